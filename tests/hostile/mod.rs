//! Hostile input, library side: what a careless or malicious user can feed
//! `explain`, `check-ttgir` and the JSON request readers (`eval`, `convert
//! --batch`, `predict --batch`), and what must happen instead of a wrong or
//! runaway answer. Each case states the expected behaviour. Work is bounded
//! by input size, never by the clock: the large inputs here take a linear
//! pass a fraction of a second and a quadratic one many minutes, so a
//! regression shows as a test that never ends, not as a flaky timing.
//!
//! The command-line side (exit codes, files written, terminal output, the
//! process-wide name bound) is `cli/tests/hostile.rs`; the Python side
//! `python/tests/test_hostile.py`.

mod check_ttgir;
mod explain;
mod memory;
mod requests;

/// Every allocation of the test binary goes through the counting
/// allocator, so that a test can bound what a call holds.
#[global_allocator]
static ALLOCATOR: memory::Counting = memory::Counting;
