//! `linear-layout check-ttgir`: modelled checks over a TTGIR dump.
//!
//! Findings are written as the checks find them (text or JSON alike), so a
//! module with hundreds of thousands of failing ops costs the memory of
//! one finding, not of the report.

use super::Found;
use super::input::{read_file, read_stdin};
use clap::Args;
use linear_layout_triton::escape;
use linear_layout_triton::finder::check_ttgir::{
    Finding, Item, Unchecked, check_each, looks_like, risks,
};
use linear_layout_triton::release::release_help;
use linear_layout_triton::{Ending, Entry, Release};
use serde_json::json;
use std::io::{BufWriter, Write};

#[derive(Args)]
#[command(
    after_help = "A file holding several modules (dumps written one after another) is checked \
    module by module, each with its own definitions. A layout-sensitive op whose types cannot be \
    read as Triton writes them (a size that is not a 64-bit integer, a tensor dim that is not a \
    power of two, more than 2^30 elements, an encoding the module does not define) is reported \
    as not checked, with its line and the reason: such a module is not known to compile. An \
    alias defined twice in one module is refused.\n\n\
    Exit status: 0 when every layout-sensitive op was checked and no modelled check fails, 1 \
    when one fails, 3 when none fails but some op could not be checked, 2 when the input cannot \
    be read or holds no TTGIR module. Risks (a bundled assembler known to miscompile some \
    kernels of the module's shape) are printed before the findings and do not change the exit \
    status."
)]
pub struct CheckTtgirArgs {
    /// A TTGIR file as Triton emits it (`-` reads stdin).
    file: String,
    #[arg(long, default_value = "latest", help = release_help())]
    triton: Release,
    /// Print `{"file", "triton", "warnings", "risks": [as findings, verdict
    /// "risk"], "findings": [{"line", "op", "verdict",
    /// "verdict_from_source", "failure": {…}}], "unchecked":
    /// [{"line", "op", "reason"}], "unchecked_count", "modules", "checked"}`
    /// instead of text. `verdict` is for this file compiled with
    /// `triton.compile(path)`, `verdict_from_source` for the kernel
    /// compiled from Python; `op` is the op's name, or `#name` for a layout
    /// definition the release cannot parse. `unchecked` lists the first
    /// 1000 ops not checked; `unchecked_count` counts them all.
    #[arg(long)]
    json: bool,
}

/// The most ops not checked that the report lists one by one (all are
/// counted).
const UNCHECKED_LISTED: usize = 1000;

/// Writes the report as the checks go.
struct Report<'a> {
    out: BufWriter<std::io::StdoutLock<'static>>,
    json: bool,
    name: &'a str,
    findings: usize,
    unchecked: Vec<Unchecked>,
    unchecked_count: usize,
    /// The first write error other than a closed pipe.
    error: Option<std::io::Error>,
    /// The reader went away: stop writing, quietly.
    closed: bool,
}

impl Report<'_> {
    fn write(&mut self, text: &str) {
        if self.closed || self.error.is_some() {
            return;
        }
        if let Err(e) = self.out.write_all(escape::controls(text).as_bytes()) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                self.closed = true;
            } else {
                self.error = Some(e);
            }
        }
    }

    fn item(&mut self, item: Item) {
        match item {
            Item::Finding(f) => {
                let text = if self.json {
                    let sep = if self.findings == 0 { "" } else { "," };
                    format!("{sep}{}", finding_json(&f))
                } else {
                    finding_text(self.name, &f)
                };
                self.findings += 1;
                self.write(&text);
            }
            Item::Unchecked(u) => {
                self.unchecked_count += 1;
                if !self.json {
                    let text = format!(
                        "{}:{}: {} not checked: {}\n",
                        self.name, u.line, u.op, u.reason
                    );
                    self.write(&text);
                } else if self.unchecked.len() < UNCHECKED_LISTED {
                    self.unchecked.push(u);
                }
            }
        }
    }
}

fn finding_json(f: &Finding) -> serde_json::Value {
    json!({"line": f.line, "op": f.op,
           "verdict": f.failure.verdict(Entry::IrFile),
           "verdict_from_source": f.failure.verdict(Entry::Source),
           "failure": f.failure.to_json(Entry::IrFile)})
}

/// A risk: what the assembler may do with the op, why, and the way out.
fn risk_text(name: &str, f: &Finding) -> String {
    let fail = &f.failure;
    format!(
        "{name}:{}: {} — risk {} ({}): {}\n    why: {}\n    workaround: {}\n",
        f.line,
        f.op,
        fail.site.id,
        fail.location.function,
        fail.ending().describe(),
        fail.explanation,
        fail.site.workaround,
    )
}

fn finding_text(name: &str, f: &Finding) -> String {
    let fail = &f.failure;
    // A miscompile has no Triton text: say what happens instead.
    let said = if matches!(fail.ending(), Ending::Miscompile | Ending::Risk) {
        format!("(Triton prints nothing: {})", fail.ending().describe())
    } else {
        fail.triton_message.clone()
    };
    format!(
        "{name}:{}: {} — site {} ({} at {}): {}\n    why: {}\n    compiling this file: {}; the kernel from source: {}\n",
        f.line,
        f.op,
        fail.site.id,
        fail.location.function,
        fail.cite(),
        said,
        fail.explanation,
        fail.verdict(Entry::IrFile),
        fail.verdict(Entry::Source),
    )
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
        super::print_err(&format!("warning: {name}: {w}\n"));
    }
    // Risks are few (at most one per op) and come first, so they are kept.
    let risks = risks(&text, args.triton).map_err(|e| format!("{name}: {e}"))?;
    let mut report = Report {
        out: BufWriter::new(std::io::stdout().lock()),
        json: args.json,
        name,
        findings: 0,
        unchecked: Vec::new(),
        unchecked_count: 0,
        error: None,
        closed: false,
    };
    if args.json {
        let risks: Vec<_> = risks.iter().map(finding_json).collect();
        let head = json!({"file": name, "triton": args.triton.to_string(), "warnings": warnings,
                          "risks": risks});
        // the report's object, open at its findings
        let head = head.to_string();
        report.write(&format!("{},\"findings\":[", &head[..head.len() - 1]));
    } else {
        for f in &risks {
            report.write(&risk_text(name, f));
        }
    }
    let summary = check_each(&text, args.triton, |item| report.item(item))
        .map_err(|e| format!("{name}: {e}"))?;
    let tail = if args.json {
        let unchecked: Vec<_> = report
            .unchecked
            .iter()
            .map(|u| json!({"line": u.line, "op": u.op, "reason": u.reason}))
            .collect();
        format!(
            "],\"unchecked\":{},\"unchecked_count\":{},\"modules\":{},\"checked\":{}}}\n",
            serde_json::Value::Array(unchecked),
            report.unchecked_count,
            summary.modules,
            summary.checked
        )
    } else {
        let modules = if summary.modules > 1 {
            format!(" ({} modules, each checked on its own)", summary.modules)
        } else {
            String::new()
        };
        let risked = match risks.len() {
            0 => String::new(),
            n => format!("; {n} risk(s) (listed above)"),
        };
        let not_checked = match report.unchecked_count {
            0 => String::new(),
            n => format!("; {n} op(s) not checked (listed above)"),
        };
        if report.findings == 0 && report.unchecked_count == 0 {
            format!(
                "{name}: no modelled check fails for Triton {}{risked}{modules}\n",
                args.triton
            )
        } else if report.findings == 0 {
            format!(
                "{name}: no modelled check fails among the {} op(s) checked for Triton {}{not_checked}{risked}{modules}\n",
                summary.checked, args.triton
            )
        } else {
            format!(
                "{} finding(s) for Triton {}{not_checked}{risked}{modules}\n",
                report.findings, args.triton
            )
        }
    };
    report.write(&tail);
    if !report.closed {
        if let Err(e) = report.out.flush() {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                report.error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = report.error {
        return Err(format!("cannot write: {e}"));
    }
    Ok(if report.findings > 0 {
        Found::Failures
    } else if report.unchecked_count > 0 {
        Found::Unknown
    } else {
        Found::Nothing
    })
}
