//! The layout-bug finder: for a kernel configuration, the layout decisions
//! a Triton release makes and the layout-sensitive lowering steps it runs,
//! each checked with this crate's algebra, so that a violated precondition
//! surfaces as the failure the real compiler shows.
//!
//! The facade:
//! - [`predict()`]: one configuration → [`Prediction`] (a [`Verdict`] and,
//!   when it fails, a [`Failure`] at a [`Site`]).
//! - [`check_ttgir`]: the same site models over a TTGIR dump.
//! - [`search`]: a whole parameter space, tallied by site and release,
//!   with the smallest configurations per site, each configuration's fix
//!   and the regressions (`crate::report::search` reports it).
//! - [`repro`]: a Python script and a TTGIR module reproducing a failure
//!   with the real compiler.
//! - [`sites()`]: every site descriptor; [`site_table`] renders them.
//!
//! Inside: [`config`] (the parameter space), `decisions` (MMA version,
//! warps, instruction shapes, swizzles), `amd` (the AMD backend's steps)
//! and `sites` (one model per file).

pub(crate) mod amd;
pub mod check_ttgir;
pub mod config;
pub(crate) mod cta;
pub(crate) mod decisions;
pub mod layouts;
pub(crate) mod op;
pub(crate) mod predict;
pub mod repro;
pub mod search;
pub mod site_table;
pub(crate) mod sites;
pub(crate) mod verdict;

pub use crate::{Ending, Entry, Failure, Site, SiteKind};
pub use config::{Arch, Config, ConfigError, Dtype, Pattern, Variant, Vendor};
pub use predict::{predict, predict_traced};
pub use sites::Stage;
pub use verdict::{LoweringStep, Prediction, Verdict};

/// Every failure site the finder reports (its own and the conversions'),
/// sorted by id.
pub fn sites() -> Vec<&'static Site> {
    sites::all()
}

/// The site with this id (`stmatrix`, `dot_k`, …).
pub fn site(id: &str) -> Option<&'static Site> {
    sites::by_id(id)
}

/// The part of a compile the site `id` fails in, where its model says.
pub fn stage(id: &str) -> Option<Stage> {
    sites::stage_of(id)
}
