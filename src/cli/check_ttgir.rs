//! `linear-layout check-ttgir`: modelled checks over a TTGIR dump.

use clap::Args;
use linear_layout::finder::check_ttgir::check;
use linear_layout::triton::TritonVersion;
use serde_json::json;

#[derive(Args)]
pub struct CheckTtgirArgs {
    /// A TTGIR file as Triton emits it.
    file: String,
    /// The release that produced it (its lowering is modelled).
    #[arg(long, default_value = "3.2")]
    triton: TritonVersion,
    /// Print `{"file", "triton", "findings": [{"line", "op", "verdict",
    /// "site", "message"}]}` instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: CheckTtgirArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| format!("cannot read {}: {e}", args.file))?;
    let findings = check(&text, args.triton).map_err(|e| format!("{}: {e}", args.file))?;
    if args.json {
        let findings: Vec<_> = findings
            .iter()
            .map(|f| {
                json!({"line": f.line, "op": f.op, "verdict": f.verdict,
                       "site": f.failure.site, "message": f.failure.message})
            })
            .collect();
        let failed = !findings.is_empty();
        println!(
            "{}",
            json!({"file": args.file, "triton": args.triton.to_string(), "findings": findings})
        );
        // Same exit status as the text form: 1 when something fails.
        if failed {
            std::process::exit(1);
        }
        return Ok(());
    }
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
