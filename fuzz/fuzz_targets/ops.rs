//! A starting layout and up to `fuzzing::MAX_OPS` operations on it (`linear_layout::fuzzing`
//! decodes and runs them). Every `Err` of an operation is fine; a panic, or
//! a result that breaks a law of `linear_layout::reference` (invariants, and
//! for layouts of at most `reference::BRUTE_BITS` input bits, every value against a brute-force
//! reference built on `apply`), is a bug. libFuzzer only sees panics, so a
//! violation panics with its description and the failing step as an `eval`
//! request; `linear-layout shrink-trace` shrinks the crash file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linear_layout::fuzzing::{Input, run};

fuzz_target!(|input: Input| {
    if let Err(failure) = run(&input) {
        panic!("{failure}");
    }
});
