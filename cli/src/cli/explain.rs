//! `linear-layout explain`: a crash log in, the failure site out.

use super::Found;
use super::input::read_log;
use clap::Args;
use linear_layout_triton::explain::{FailureRecord, explain, failure_records};

#[derive(Args)]
#[command(
    after_help = "Paste or pipe a crash log: an assertion line, an `LLVM ERROR`, \
    `PassManager::run failed` with its MLIR diagnostic, a whole traceback, a TTGIR dump. \
    The failures file of the Python guard (`linear_layout.triton`, JSON Lines) is explained \
    record by record.\n\n\
    A site is named only when the log shows Triton printed its message: a failed assertion's \
    line must name the site's own source file (an assertion of another program is not \
    Triton's), and text any program may print (LLVM's own errors, `terminate called`, a bare \
    exception name, the pass manager's wrapper) needs the log to name Triton too (a `triton` \
    path or frame, a `mlir::triton` function, a `ttg.` op). A message that matches without \
    that evidence is shown as unconfirmed, not as the answer. The nearest known sites are \
    listed for an unknown log only when their messages share words with it. A log holding \
    several failures says how many. The log is read as bytes: invalid UTF-8 is replaced \
    (U+FFFD), never a reason to refuse it; text echoed from it has its control characters \
    escaped.\n\n\
    Exit status: 1 when the log (or a record of a failures file) names a known site (or a \
    known front-end rejection), 3 when it cannot be placed (unknown, unconfirmed, or only the pass manager's wrapper), 2 when \
    the input cannot be read or is empty."
)]
pub struct ExplainArgs {
    /// The log (a file; `-` or nothing reads stdin).
    file: Option<String>,
    /// Print `{"known", "key_lines", "key_line_count", "failures", "site": {"site", "kind",
    /// "title", "releases", "wheels", "locations", "fixed_in", "changes", "workaround",
    /// "line"}, "others", "unconfirmed", "nearest", "findings", "context", "scan"}` instead of
    /// text (for a failures file: one `{"line", "id", "title",
    /// "explanation"}` a line).
    #[arg(long)]
    json: bool,
}

pub fn run(a: ExplainArgs) -> Result<Found, String> {
    let (text, replaced) = read_log(a.file.as_deref())?;
    if text.trim().is_empty() {
        return Err("the log is empty: paste or pipe the crash output".into());
    }
    if replaced > 0 {
        super::print_err(&format!(
            "note: {replaced} byte sequence(s) of the log are not UTF-8; read as U+FFFD\n"
        ));
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
    Ok(if e.known() {
        Found::Failures
    } else {
        Found::Unknown
    })
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
    Ok(if known {
        Found::Failures
    } else {
        Found::Unknown
    })
}
