//! The one integration-test binary (so the 2-core CI links once).
//!
//! - `oracle_replay`: every recorded Triton result under `tests/data/`.
//! - `golden`: cases mirroring Triton's own unit tests.
//! - `laws`: algebraic laws and brute-force agreement (proptest).
//! - `cli`: the command line, end to end.

mod cli;
mod golden;
mod laws;
mod oracle_replay;
mod strategies;
