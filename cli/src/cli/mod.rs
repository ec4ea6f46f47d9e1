//! Command-line parsing and dispatch. Each subcommand lives in its own file
//! and only calls the library.

mod batch;
mod check_ttgir;
mod convert;
mod eval;
mod explain;
mod input;
mod predict;
mod print_attr;
mod releases;
mod repro;
mod scan;
mod search;
mod show;
mod shrink;
mod shrink_trace;
mod sites;
mod view;

use clap::{Parser, Subcommand};

/// Triton's linear layouts: inspect, compute, and check them against Triton.
#[derive(Parser)]
#[command(
    name = "linear-layout",
    version,
    about,
    long_about = None,
    after_help = "Exit status: 0 when nothing fails, 1 when `predict`, `repro`, `check-ttgir`, `search`, \
                  `shrink`, `shrink-trace`, `scan` or `explain` found or predicted a failure, 2 on bad \
                  input or usage. Each command's --help says when."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show a layout: Triton's text, its bit matrix, and who holds each element.
    Show(show::ShowArgs),
    /// Evaluate JSON Lines requests from stdin, one JSON answer per line.
    Eval(eval::EvalArgs),
    /// Convert a Triton layout attribute (TTGIR text) to its linear layout.
    Convert(convert::ConvertArgs),
    /// Print a layout attribute given as JSON the way a release spells it.
    PrintAttr(print_attr::PrintAttrArgs),
    /// Predict how a Triton release compiles a kernel configuration.
    Predict(predict::PredictArgs),
    /// Search the parameter space for configurations that fail, per site and release.
    Search(search::SearchArgs),
    /// Shrink a failing configuration to the smallest one failing the same way.
    Shrink(shrink::ShrinkArgs),
    /// Write a Python script (and TTGIR module) reproducing a configuration.
    Repro(repro::ReproArgs),
    /// Run the modelled checks over a TTGIR dump.
    CheckTtgir(check_ttgir::CheckTtgirArgs),
    /// Shrink a failing eval trace, or a failing `ops` fuzz artifact, to its smallest failing request.
    ShrinkTrace(shrink_trace::ShrinkTraceArgs),
    /// List the modelled failure sites: where each release fails, how, what fixed it.
    Sites(sites::SitesArgs),
    /// List the modelled Triton releases: wheels, tags, TTGIR spelling (`--json` for scripts).
    Releases(releases::ReleasesArgs),
    /// Your kernel, every release: run each release's front end to TTGIR and check it.
    Scan(Box<scan::ScanArgs>),
    /// Name the failure site of a crash log (an assertion, LLVM ERROR, traceback).
    Explain(explain::ExplainArgs),
}

/// What a command found, for its exit status: 0 when nothing fails, 1
/// when a failure was found, 2 for bad input or usage (as clap does).
pub enum Found {
    /// Nothing fails (or the command checks nothing).
    Nothing,
    /// A failure was found.
    Failures,
}

impl Found {
    /// `Failures` when `any`.
    pub fn when(any: bool) -> Found {
        if any { Found::Failures } else { Found::Nothing }
    }
}

/// Bad input or usage.
const USAGE: u8 = 2;

pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0, usage errors to
            // stderr with status 2, as clap's own `exit` does.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(USAGE);
        }
    };
    let nothing = |r: Result<(), String>| r.map(|()| Found::Nothing);
    let result = match cli.command {
        Command::Show(args) => nothing(show::run(args)),
        Command::Eval(args) => nothing(eval::run(args)),
        Command::Convert(args) => nothing(convert::run(args)),
        Command::PrintAttr(args) => nothing(print_attr::run(args)),
        Command::Predict(args) => predict::run(args),
        Command::Search(args) => search::run(args),
        Command::Shrink(args) => shrink::run(args),
        Command::Repro(args) => repro::run(args),
        Command::CheckTtgir(args) => check_ttgir::run(args),
        Command::ShrinkTrace(args) => shrink_trace::run(args),
        Command::Sites(args) => nothing(sites::run(args)),
        Command::Releases(args) => nothing(releases::run(args)),
        Command::Scan(args) => scan::run(*args),
        Command::Explain(args) => explain::run(args),
    };
    match result {
        Ok(Found::Nothing) => 0,
        Ok(Found::Failures) => 1,
        Err(message) => {
            eprintln!("error: {message}");
            USAGE
        }
    }
}

/// Writes `text` to `path` whole or not at all: into a temporary file
/// beside it, then renamed over it, so a reader never sees half a file.
pub fn write_atomically(path: &std::path::Path, text: &str) -> Result<(), String> {
    if path.as_os_str().is_empty() {
        return Err("an empty path; name the file to write".into());
    }
    let name = path
        .file_name()
        .ok_or_else(|| format!("{}: not a file name", path.display()))?;
    let mut temporary = name.to_os_string();
    temporary.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(temporary);
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            format!("cannot write {}: {e}", path.display())
        })
}

/// Writes `text` to stdout; a closed pipe (`| head`) ends quietly.
pub fn print_out(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write: {e}")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod write_tests {
    use super::write_atomically;

    #[test]
    fn a_file_is_written_whole_and_an_empty_path_refused() {
        let dir = std::env::temp_dir().join(format!("ll-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("report.xml");
        write_atomically(&path, "one").unwrap();
        write_atomically(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        // no temporary file is left beside it
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert!(write_atomically(std::path::Path::new(""), "x").is_err());
        assert!(write_atomically(&dir.join("no/such/dir/f.xml"), "x").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
