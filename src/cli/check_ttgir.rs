//! `linear-layout check-ttgir`: modelled checks over a TTGIR dump.

use clap::Args;
use linear_layout::finder::check_ttgir::check;
use linear_layout::triton::TritonVersion;

#[derive(Args)]
pub struct CheckTtgirArgs {
    /// A TTGIR file as Triton emits it.
    file: String,
    /// The release that produced it (its lowering is modelled).
    #[arg(long, default_value = "3.2")]
    triton: TritonVersion,
}

pub fn run(args: CheckTtgirArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| format!("cannot read {}: {e}", args.file))?;
    let findings = check(&text, args.triton).map_err(|e| format!("{}: {e}", args.file))?;
    if findings.is_empty() {
        println!(
            "{}: no modelled check fails for Triton {}",
            args.file, args.triton
        );
        return Ok(());
    }
    for f in &findings {
        println!(
            "{}:{}: {} — {} ({})",
            args.file, f.line, f.op, f.failure.message, f.failure.site
        );
    }
    println!("{} finding(s) for Triton {}", findings.len(), args.triton);
    std::process::exit(1);
}
