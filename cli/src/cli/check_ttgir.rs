//! `linear-layout check-ttgir`: modelled checks over a TTGIR dump.

use super::Found;
use super::input::{read_file, read_stdin};
use clap::Args;
use linear_layout_triton::finder::check_ttgir::{Finding, check, looks_like, risks};
use linear_layout_triton::release::release_help;
use linear_layout_triton::{Ending, Entry, Release};
use serde_json::json;

#[derive(Args)]
#[command(
    after_help = "Exit status: 0 when no modelled check fails, 1 when one does, 2 when the \
    input cannot be read or holds no TTGIR module. Risks (a bundled assembler known to \
    miscompile some kernels of the module's shape) are printed beside the findings and do \
    not change the exit status."
)]
pub struct CheckTtgirArgs {
    /// A TTGIR file as Triton emits it (`-` reads stdin).
    file: String,
    #[arg(long, default_value = "latest", help = release_help())]
    triton: Release,
    /// Print `{"file", "triton", "warnings", "findings": [{"line", "op",
    /// "verdict", "verdict_from_source", "failure": {…}}], "risks": [the
    /// same, verdict "risk"]}` instead of text.
    /// `verdict` is for this file compiled with `triton.compile(path)`,
    /// `verdict_from_source` for the kernel compiled from Python; `op` is
    /// the op's name, or `#name` for a layout definition the release cannot
    /// parse.
    #[arg(long)]
    json: bool,
}

pub fn run(args: CheckTtgirArgs) -> Result<Found, String> {
    let name = if args.file == "-" {
        "<stdin>"
    } else {
        args.file.as_str()
    };
    let text = if args.file == "-" {
        read_stdin()?
    } else {
        read_file(&args.file)?
    };
    let warnings = looks_like(&text, args.triton).map_err(|e| format!("{name}: {e}"))?;
    for w in &warnings {
        eprintln!("warning: {name}: {w}");
    }
    let findings = check(&text, args.triton).map_err(|e| format!("{name}: {e}"))?;
    let risks = risks(&text, args.triton).map_err(|e| format!("{name}: {e}"))?;
    let out = if args.json {
        let items = |fs: &[Finding]| -> Vec<serde_json::Value> {
            fs.iter()
                .map(|f| {
                    json!({"line": f.line, "op": f.op,
                           "verdict": f.verdict,
                           "verdict_from_source": f.failure.verdict(Entry::Source),
                           "failure": f.failure.to_json(Entry::IrFile)})
                })
                .collect()
        };
        let report = json!({"file": name, "triton": args.triton.to_string(),
                            "warnings": warnings, "findings": items(&findings),
                            "risks": items(&risks)});
        format!("{report}\n")
    } else if findings.is_empty() && risks.is_empty() {
        format!(
            "{name}: no modelled check fails for Triton {}\n",
            args.triton
        )
    } else {
        let mut out = String::new();
        for f in &risks {
            let fail = &f.failure;
            out += &format!(
                "{name}:{}: {} — risk {} ({}): {}\n    why: {}\n    workaround: {}\n",
                f.line,
                f.op,
                fail.site.id,
                fail.location.function,
                fail.ending().describe(),
                fail.explanation,
                fail.site.workaround,
            );
        }
        for f in &findings {
            let fail = &f.failure;
            // A miscompile has no Triton text: say what happens instead.
            let said = if matches!(fail.ending(), Ending::Miscompile | Ending::Risk) {
                format!("(Triton prints nothing: {})", fail.ending().describe())
            } else {
                fail.triton_message.clone()
            };
            out += &format!(
                "{name}:{}: {} — site {} ({} at {}): {}\n    why: {}\n    compiling this file: {}; the kernel from source: {}\n",
                f.line,
                f.op,
                fail.site.id,
                fail.location.function,
                fail.cite(),
                said,
                fail.explanation,
                f.verdict,
                fail.verdict(Entry::Source),
            );
        }
        out + &format!(
            "{} finding(s), {} risk(s) for Triton {}\n",
            findings.len(),
            risks.len(),
            args.triton
        )
    };
    super::print_out(&out)?;
    Ok(Found::when(!findings.is_empty()))
}
