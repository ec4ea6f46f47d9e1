//! `linear-layout shrink-trace FILE`: the smallest request that still fails
//! the same way, as a Rust test and a Python snippet.

use clap::{Args, ValueEnum};
use linear_layout::shrink_trace::{Shrinker, as_python, as_rust_test, json_requests};
use serde_json::Value;

#[derive(Args)]
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

pub fn run(args: ShrinkTraceArgs) -> Result<super::Found, String> {
    let bytes = super::input::read_file_bytes(&args.file)?;
    let text = std::str::from_utf8(&bytes).ok();
    let json = text.is_some_and(|t| !json_requests(t).is_empty());
    let ops = match args.format {
        Format::Auto => !json,
        Format::Eval => false,
        Format::Ops => true,
    };
    let text = match (ops, text) {
        (false, None) => return Err(format!("{} is not UTF-8 text", args.file)),
        (_, text) => text.unwrap_or_default(),
    };
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
    let shrunk = found.map(|found| {
        found.map(|(req, kind)| {
            let small = shrinker.shrink(&req, &kind);
            let message = shrinker.answer(&small).err().map(|e| e.message);
            (kind, small, message)
        })
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
    let out = format!(
        "failure: {kind}{message}\n\nshrunk request:\n{small}\n\nas a Rust test:\n\n{}\nas a Python snippet against Triton's binding:\n\n{}",
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
