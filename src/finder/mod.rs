//! The layout-bug finder: for a kernel configuration, the layout decisions
//! a Triton release makes and the layout-sensitive lowering steps it runs,
//! each checked with this crate's algebra, so that a violated precondition
//! surfaces as the failure the real compiler shows.
//!
//! - [`config`]: the parameter space (pattern, sizes, dtype, warps, stages,
//!   arch, release).
//! - [`decisions`]: MMA version, warps, instruction shapes, swizzles.
//! - [`sites`]: the lowering sites that assert, one file each.
//! - [`predict()`]: one configuration → [`Prediction`].
//! - [`search`]: the whole space, grouped by site and release, with the
//!   minimal reproducer per site and the release that fixes each failure.
//! - [`repro`]: a Python script and a TTGIR module reproducing a failure
//!   with the real compiler.

pub mod check_ttgir;
pub mod config;
pub mod decisions;
pub mod predict;
pub mod repro;
pub mod search;
pub mod sites;
pub mod verdict;

pub use config::{Arch, Config, ConfigError, Dtype, Pattern, Variant};
pub use predict::predict;
pub use verdict::{Prediction, Step, Verdict};
