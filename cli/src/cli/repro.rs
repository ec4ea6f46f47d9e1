//! `linear-layout repro`: a Python script (and a TTGIR module) reproducing a
//! configuration with the real compiler.

use super::output::OutDir;
use super::predict::{ConfigArgs, OneRelease};
use clap::Args;
use linear_layout_triton::escape::shell_word;
use linear_layout_triton::finder::predict;
use linear_layout_triton::finder::repro::{python_script, ttgir_module};

#[derive(Args)]
#[command(
    after_help = "The files are written as a careful tool does: an empty or blank --out, \
    or one that is a symbolic link, is refused; a link planted in the directory under an output's \
    name is replaced, never written through; each file is written to a temporary file in the \
    directory and renamed into place.\n\n\
    Exit status: 0 when the configuration is predicted to compile, 1 when it is predicted to fail \
    (the files are written either way), 2 on bad input or usage."
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
    let dir = OutDir::open(&args.out, "--out")?;
    let script = dir.write("repro.py", python_script(&cfg, &expect).as_bytes())?;
    let script = script.to_string_lossy();
    super::print_out(&format!(
        "wrote {script} (run it with the triton you want to test: python3 {})\n",
        shell_word(&script)
    ))?;
    if let Some(module) = ttgir_module(&cfg, p.failure.as_ref().map(|f| f.site)) {
        let path = dir.write("repro.ttgir", module.as_bytes())?;
        let path = path.to_string_lossy();
        // a JSON string is a Python string literal
        let literal = serde_json::to_string(&path).unwrap_or_default();
        let compile = format!(
            "import triton; from triton.backends.compiler import GPUTarget; \
             triton.compile({literal}, target=GPUTarget(\"cuda\", {}, 32))",
            cfg.arch.capability()
        );
        super::print_out(&format!(
            "wrote {path} (python3 -c {})\n",
            shell_word(&compile)
        ))?;
    }
    super::print_out(&format!("predicted for {cfg}: {expect}\n"))?;
    Ok(super::Found::when(p.failure.is_some()))
}
