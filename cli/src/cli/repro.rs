//! `linear-layout repro`: a Python script (and a TTGIR module) reproducing a
//! configuration with the real compiler.

use super::predict::{ConfigArgs, OneRelease};
use clap::Args;
use linear_layout_triton::finder::predict;
use linear_layout_triton::finder::repro::{python_script, ttgir_module};

#[derive(Args)]
#[command(
    after_help = "Exit status: 0 when the configuration is predicted to compile, 1 when it is \
    predicted to fail (the files are written either way), 2 on bad input or usage."
)]
pub struct ReproArgs {
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    release: OneRelease,
    /// Directory to write `repro.py` (and `repro.ttgir`) into.
    #[arg(long)]
    out: String,
}

pub fn run(args: ReproArgs) -> Result<super::Found, String> {
    let cfg = args.config.config(args.release.triton);
    let p = predict(&cfg).map_err(|e| e.to_string())?;
    let mut expect = match &p.failure {
        Some(f) => format!("{} at {} ({})", p.verdict, f.site.id, f.cite()),
        None => p.verdict.to_string(),
    };
    if let Some(variant) = cfg.variant {
        // No released wheel is that build: a real 3.3.x should compile it.
        expect += &format!(
            " (for the {} development build; a released Triton {} should compile it)",
            variant.name(),
            cfg.triton
        );
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("cannot create {}: {e}", args.out))?;
    let script = format!("{}/repro.py", args.out);
    std::fs::write(&script, python_script(&cfg, &expect))
        .map_err(|e| format!("cannot write {script}: {e}"))?;
    super::print_out(&format!(
        "wrote {script} (run it with the triton you want to test: python3 {script})\n"
    ))?;
    if let Some(module) = ttgir_module(&cfg, p.failure.as_ref().map(|f| f.site)) {
        let path = format!("{}/repro.ttgir", args.out);
        std::fs::write(&path, module).map_err(|e| format!("cannot write {path}: {e}"))?;
        super::print_out(&format!(
            "wrote {path} (python3 -c 'import triton; from triton.backends.compiler import GPUTarget; triton.compile(\"{path}\", target={})')\n",
            cfg.arch.gpu_target()
        ))?;
    }
    super::print_out(&format!("predicted for {cfg}: {expect}\n"))?;
    Ok(super::Found::when(p.failure.is_some()))
}
