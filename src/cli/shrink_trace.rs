//! `linear-layout shrink-trace FILE`: the smallest request that still fails
//! the same way, as a Rust test and a Python snippet.

use clap::Args;
use linear_layout::shrink_trace::{as_python, as_rust_test, first_failure, shrink};

#[derive(Args)]
pub struct ShrinkTraceArgs {
    /// JSON Lines of `eval` requests (or `{"request": ...}` records, as the
    /// oracle files hold), or an `eval` fuzz artifact (one request); the
    /// first one that panics or answers an error is shrunk.
    file: String,
}

pub fn run(args: ShrinkTraceArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| format!("cannot read {}: {e}", args.file))?;
    // Shrinking replays a panic many times; one line about it is enough.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let found = first_failure(&text);
    let shrunk = found.as_ref().map(|(req, kind)| shrink(req, kind));
    std::panic::set_hook(default_hook);
    let ((_, kind), small) = found
        .zip(shrunk)
        .ok_or("no request in the trace fails (none panics or answers an error)")?;
    let out = format!(
        "failure: {kind}\n\nshrunk request:\n{small}\n\nas a Rust test:\n\n{}\nas a Python snippet against Triton's binding:\n\n{}",
        as_rust_test(&small, &kind),
        as_python(&small)
    );
    super::print_out(&out)
}
