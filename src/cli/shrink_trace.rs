//! `linear-layout shrink-trace FILE`: the smallest request that still fails
//! the same way, as a Rust test and a Python snippet.

use clap::Args;
use linear_layout::shrink_trace::{as_python, as_rust_test, first_failure, shrink};

#[derive(Args)]
pub struct ShrinkTraceArgs {
    /// JSON Lines of `eval` requests (or `{"request": ...}` records, as the
    /// oracle files and fuzz traces hold); the first failing one is shrunk.
    file: String,
}

pub fn run(args: ShrinkTraceArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| format!("cannot read {}: {e}", args.file))?;
    let (req, kind) = first_failure(&text).ok_or("no request in the trace fails")?;
    let small = shrink(&req, &kind);
    let out = format!(
        "failure: {kind}\n\nshrunk request:\n{small}\n\nas a Rust test:\n\n{}\nas a Python snippet against Triton's binding:\n\n{}",
        as_rust_test(&small, &kind),
        as_python(&small)
    );
    super::print_out(&out)
}
