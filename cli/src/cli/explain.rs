//! `linear-layout explain`: a crash log in, the failure site out.

use super::Found;
use super::input::{read_file, read_stdin};
use clap::Args;
use linear_layout_triton::explain::{FailureRecord, explain, failure_records};

#[derive(Args)]
#[command(
    after_help = "Paste or pipe a crash log: an assertion line, an `LLVM ERROR`, \
    `PassManager::run failed` with its MLIR diagnostic, a whole traceback, a TTGIR dump. \
    The failures file of the Python guard (`linear_layout.triton`, JSON Lines) is explained \
    record by record.\n\n\
    Exit status: 0 when the log holds no known failure (an unknown message is reported with \
    the nearest known sites), 1 when it names a known site, 2 when the input cannot be read."
)]
pub struct ExplainArgs {
    /// The log (a file; `-` or nothing reads stdin).
    file: Option<String>,
    /// Print `{"known", "key_lines", "site": {"site", "kind", "title", "releases", "wheels",
    /// "locations", "fixed_in", "changes", "workaround"}, "others", "nearest", "findings",
    /// "context", "scan"}` instead of text (for a failures file: one
    /// `{"line", "id", "title", "explanation"}` a line).
    #[arg(long)]
    json: bool,
}

pub fn run(a: ExplainArgs) -> Result<Found, String> {
    let text = match a.file.as_deref() {
        None | Some("-") => read_stdin()?,
        Some(path) => read_file(path)?,
    };
    if text.trim().is_empty() {
        return Err("the log is empty: paste or pipe the crash output".into());
    }
    if let Some(records) = failure_records(&text) {
        return run_records(&records, a.json);
    }
    let e = explain(&text);
    let out = if a.json {
        format!("{}\n", e.to_json())
    } else {
        e.to_text()
    };
    super::print_out(&out)?;
    Ok(Found::when(e.known()))
}

/// A failures file: each record explained as its own log.
fn run_records(records: &[FailureRecord], json: bool) -> Result<Found, String> {
    let mut out = String::new();
    let mut known = false;
    for r in records {
        let e = explain(&r.log());
        known |= e.known();
        if json {
            let line = serde_json::json!({
                "line": r.line,
                "id": r.json.get("id"),
                "title": r.title(),
                "explanation": e.to_json(),
            });
            out += &format!("{line}\n");
        } else {
            out += &format!("== line {}: {}\n{}\n", r.line, r.title(), e.to_text());
        }
    }
    super::print_out(&out)?;
    Ok(Found::when(known))
}
