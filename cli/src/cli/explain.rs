//! `linear-layout explain`: a crash log in, the failure site out.

use super::Found;
use super::input::{read_file, read_stdin};
use clap::Args;
use linear_layout_triton::explain::explain;

#[derive(Args)]
#[command(
    after_help = "Paste or pipe a crash log: an assertion line, an `LLVM ERROR`, \
    `PassManager::run failed` with its MLIR diagnostic, a whole traceback, a TTGIR dump.\n\n\
    Exit status: 0 when the log holds no known failure (an unknown message is reported with \
    the nearest known sites), 1 when it names a known site, 2 when the input cannot be read."
)]
pub struct ExplainArgs {
    /// The log (a file; `-` or nothing reads stdin).
    file: Option<String>,
    /// Print `{"known", "key_lines", "site": {"site", "kind", "title", "releases", "wheels",
    /// "locations", "fixed_in", "changes", "workaround"}, "others", "nearest", "findings",
    /// "context", "scan"}` instead of text.
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
    let e = explain(&text);
    let out = if a.json {
        format!("{}\n", e.to_json())
    } else {
        e.to_text()
    };
    super::print_out(&out)?;
    Ok(Found::when(e.known()))
}
