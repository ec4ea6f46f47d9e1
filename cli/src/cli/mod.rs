//! Command-line parsing and dispatch. Each subcommand lives in its own file
//! and only calls the library.

mod batch;
mod check_ttgir;
mod convert;
mod envs;
mod eval;
mod explain;
mod input;
mod output;
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

use clap::{Parser, Subcommand};
use linear_layout_triton::escape;

/// Triton's linear layouts: inspect, compute, and check them against Triton.
#[derive(Parser)]
#[command(
    name = "linear-layout",
    version,
    about,
    long_about = None,
    after_help = "Exit status: 0 when nothing fails, 1 when `predict`, `repro`, `check-ttgir`, `search`, \
                  `shrink`, `shrink-trace`, `scan` or `explain` found or predicted a failure, 2 on bad \
                  input or usage, 3 when the answer is unknown: `explain` cannot place the log, or \
                  `check-ttgir` could not check some op and found no failure. Each command's --help \
                  says when.\n\n\
                  Hostile input: whatever a command echoes from its input is printed with control \
                  characters escaped (\\u001b for ESC), so a log or a request cannot drive the \
                  terminal; inputs are bounded (32 MiB a file, 1 MiB a batch line) and read in time \
                  linear in their size; JSON with a key given twice is refused; files are written \
                  atomically and never through a symbolic link."
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
    /// List (and remove) the Triton environments `scan` installed.
    Envs(envs::EnvsArgs),
}

/// What a command found, for its exit status: 0 when nothing fails, 1
/// when a failure was found, 2 for bad input or usage (as clap does), 3
/// when the command cannot tell.
pub enum Found {
    /// Nothing fails (or the command checks nothing).
    Nothing,
    /// A failure was found.
    Failures,
    /// No answer: a log `explain` cannot place, ops `check-ttgir` could not
    /// check (and no failure among those it could).
    Unknown,
}

impl Found {
    /// `Failures` when `any`.
    pub fn when(any: bool) -> Found {
        if any { Found::Failures } else { Found::Nothing }
    }
}

/// Bad input or usage.
const USAGE: u8 = 2;

/// No answer ([`Found::Unknown`]).
const UNKNOWN: u8 = 3;

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
        Command::Envs(args) => nothing(envs::run(args)),
    };
    match result {
        Ok(Found::Nothing) => 0,
        Ok(Found::Failures) => 1,
        Ok(Found::Unknown) => UNKNOWN,
        Err(message) => {
            print_err(&format!("error: {message}\n"));
            USAGE
        }
    }
}

/// Writes `text` to stderr, control characters escaped (an error message
/// quotes its input).
pub fn print_err(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr()
        .lock()
        .write_all(escape::controls(text).as_bytes());
}

/// Writes `text` to stdout with control characters escaped (every
/// command's text echoes its input somewhere: a log line, a file name, a
/// dim name); a closed pipe (`| head`) ends quietly.
pub fn print_out(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(escape::controls(text).as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write: {e}")),
        _ => Ok(()),
    }
}
