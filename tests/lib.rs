//! The one integration-test binary (so the 2-core CI links once).
//!
//! - `oracle_replay`: every recorded Triton algebra result under `tests/data/algebra`.
//! - `encodings_replay`: every recorded Triton conversion under `tests/data/encodings`.
//! - `golden`: cases mirroring Triton's own unit tests.
//! - `laws`: algebraic laws and brute-force agreement (proptest).
//! - `finder`, `op_level`: the bug finder against recorded real compiles (kernels; one-op modules);
//!   `ttgir_scan`: `check-ttgir` on dumps of the scan and gather kernels; `families`: the 3.7-3.9
//!   family kernels and one-op modules (`tests/data/compile/famil*`) against their sites;
//!   `grid_ttgir`: the grid kernels' TTGIR (1-4 CTAs, 3.5-3.9) through scan's checks against the real compiles.
//! - `recorded`: the reader of every recorded data file (header, count, named records),
//!   shared by the replay tests; its own tests check every file under `tests/data`.
//! - `shrink_ops`: `ops` fuzz inputs, checked `eval` requests, and shrinking a wrong result.
//! - `gpu_findings`: the miscompile sites against the recorded GPU reproducers and campaign kernels.
//! - `hostile`: what hostile input must not do to `explain`, `check-ttgir` and the JSON request
//!   readers (misread, mislead, run away in time or memory); the binary counts its allocations
//!   for it. `html_report`: the HTML report's structure, self-containment and escaping.
//! - `explain`: every recorded failure message is recognised; `scan`: the public-kernel corpus
//!   (`tests/data/kernels`) replayed through scan's checks, and scan's arguments and cache keys.

mod encodings_replay;
mod explain;
mod families;
mod finder;
mod golden;
mod gpu_findings;
mod grid_ttgir;
mod hostile;
mod html_report;
mod laws;
mod op_level;
mod oracle_replay;
mod recorded;
mod scan;
mod shrink_ops;
mod strategies;
mod ttgir_corpus;
mod ttgir_scan;
mod utils_laws;
