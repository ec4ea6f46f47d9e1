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
    /// "site", "message"}]}` instead of text. `op` is the op's name, or
    /// `#name` for a layout definition the release cannot parse.
    #[arg(long)]
    json: bool,
}

pub fn run(args: CheckTtgirArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| format!("cannot read {}: {e}", args.file))?;
    let findings = check(&text, args.triton).map_err(|e| format!("{}: {e}", args.file))?;
    let out = if args.json {
        let items: Vec<_> = findings
            .iter()
            .map(|f| {
                json!({"line": f.line, "op": f.op, "verdict": f.verdict,
                       "site": f.failure.site, "message": f.failure.message})
            })
            .collect();
        let report =
            json!({"file": args.file, "triton": args.triton.to_string(), "findings": items});
        format!("{report}\n")
    } else if findings.is_empty() {
        format!(
            "{}: no modelled check fails for Triton {}\n",
            args.file, args.triton
        )
    } else {
        let mut out = String::new();
        for f in &findings {
            out += &format!(
                "{}:{}: {} — {} ({})\n",
                args.file, f.line, f.op, f.failure.message, f.failure.site
            );
        }
        out + &format!("{} finding(s) for Triton {}\n", findings.len(), args.triton)
    };
    // A closed pipe (`| head`) is not an error; findings exit 1 in both forms.
    super::print_out(&out)?;
    if !findings.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}
