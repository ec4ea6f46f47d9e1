//! `linear-layout shrink-trace FILE`: the smallest request that still fails
//! the same way, as a Rust test and a Python snippet.

use clap::{Args, ValueEnum};
use linear_layout::shrink_trace::{
    MAX_EVALUATIONS, MAX_SHRINK_BYTES, Shrinker, as_python, as_rust_test, json_requests,
};
use serde_json::Value;

#[derive(Args)]
#[command(after_help = shrink_trace_help())]
pub struct ShrinkTraceArgs {
    /// JSON Lines of `eval` requests (or `{"request": ...}` records, as the
    /// oracle files hold), an `eval` fuzz artifact (one request), or an
    /// `ops` fuzz artifact (binary). For JSON, the first request that panics
    /// or answers an error is shrunk; for an `ops` artifact, the first step
    /// that panics or breaks a law of the brute-force reference, as an `eval`
    /// request with `"check": true` (failure kind `wrong_result`).
    file: String,
    /// How to read FILE: `auto` takes it as JSON when it holds any JSON
    /// request, else as an `ops` fuzz artifact.
    #[arg(long, value_enum, default_value = "auto")]
    format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Auto,
    Eval,
    Ops,
}

fn shrink_trace_help() -> String {
    format!(
        "FILE is read up to 32 MiB. Lines are read strictly (a key given twice makes a line no \
         request); a text that opens with `{{` is a JSON trace even when no line of it reads, and \
         says which line does not. A failing request of more than {} KiB of JSON is not shrunk \
         (each candidate is a copy of it); a shrink stops after {} answers with the smallest \
         failing request found, and says so.\n\n\
         Exit status: 0 when the trace holds no failure, 1 when it does (and is shrunk), 2 on bad \
         input or usage.",
        MAX_SHRINK_BYTES >> 10,
        MAX_EVALUATIONS
    )
}

pub fn run(args: ShrinkTraceArgs) -> Result<super::Found, String> {
    let bytes = super::input::read_file_bytes(&args.file)?;
    let text = std::str::from_utf8(&bytes).ok();
    // Text that opens like JSON is a trace even when no line of it reads
    // (a key given twice, say): decoding it as a binary `ops` input would
    // shrink garbage.
    let json =
        text.is_some_and(|t| !json_requests(t).is_empty() || t.trim_start().starts_with('{'));
    let ops = match args.format {
        Format::Auto => !json,
        Format::Eval => false,
        Format::Ops => true,
    };
    let text = match (ops, text) {
        (false, None) => return Err(format!("{} is not UTF-8 text", args.file)),
        (_, text) => text.unwrap_or_default(),
    };
    if !ops && json_requests(text).is_empty() {
        return Err(format!(
            "{} holds no JSON request{}",
            args.file,
            first_bad_line(text).map_or(String::new(), |why| format!(" ({why})"))
        ));
    }
    let shrinker = Shrinker::default();
    // Shrinking replays a panic many times; one line about it is enough.
    // (Nothing returns early between here and restoring the hook.)
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let found = if ops {
        first_ops_failure(&shrinker, &bytes)
    } else {
        Ok(shrinker
            .first_failure(text)
            .ok_or("no failure: no request in the trace panics or answers an error"))
    };
    let shrunk = found.and_then(|found| match found {
        Err(nothing) => Ok(Err(nothing)),
        Ok((req, kind)) => {
            let bytes = req.to_string().len();
            if bytes > MAX_SHRINK_BYTES {
                return Err(format!(
                    "the first failing request ({kind}) is {} KiB of JSON; shrink-trace shrinks \
                     requests of at most {} KiB (each candidate is a copy of it): cut it down first",
                    bytes.div_ceil(1024),
                    MAX_SHRINK_BYTES >> 10
                ));
            }
            let small = shrinker.shrink_within(&req, &kind, MAX_EVALUATIONS);
            let message = shrinker.answer(&small.request).err().map(|e| e.message);
            Ok(Ok((kind, small, message)))
        }
    });
    std::panic::set_hook(default_hook);
    let (kind, small, message) = match shrunk? {
        Ok(shrunk) => shrunk,
        Err(nothing) => {
            super::print_out(&format!("{nothing}\n"))?;
            return Ok(super::Found::Nothing);
        }
    };
    let message = message.map_or(String::new(), |m| format!(" ({m})"));
    let stopped = if small.complete {
        String::new()
    } else {
        format!(" (shrinking stopped after {MAX_EVALUATIONS} answers; it may shrink further)")
    };
    let small = small.request;
    let out = format!(
        "failure: {kind}{message}\n\nshrunk request{stopped}:\n{small}\n\nas a Rust test:\n\n{}\nas a Python snippet against Triton's binding:\n\n{}",
        as_rust_test(&small, &kind),
        as_python(&small)
    );
    super::print_out(&out)?;
    Ok(super::Found::Failures)
}

/// Decodes and runs an `ops` fuzz artifact; its first failing step.
fn first_ops_failure(shrinker: &Shrinker, bytes: &[u8]) -> Result<OpsFailure, String> {
    let input = linear_layout::fuzzing::Input::decode(bytes).ok_or(
        "not JSON, and too short to decode as an `ops` fuzz input (libFuzzer skips it too)",
    )?;
    Ok(shrinker
        .first_ops_failure(&input)?
        .ok_or("no failure: every step of the `ops` input runs without a panic or a broken law"))
}

/// The first failing request and its kind, or why there is none.
type OpsFailure = Result<(Value, String), &'static str>;

/// The first non-blank line that is not a JSON request, and why.
fn first_bad_line(text: &str) -> Option<String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .find_map(|(i, l)| {
            linear_layout::eval::parse_strict(l)
                .err()
                .map(|e| format!("line {}: {e}", i + 1))
        })
}
