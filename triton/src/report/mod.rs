//! One report for `search` and `scan`: per build, per site, the failing
//! configurations, how the compile ends, the smallest reproducer, the
//! release that fixes them and the change, the workaround; the
//! regressions; the front end's own failures; and, for a scan, every
//! configuration's outcome and the confirmations by real compiles.
//!
//! A [`Report`] is data; [`render`] prints it (text, JSON), one function
//! per format, for both commands. Two producers fill it: [`search()`]
//! from the finder's predictions over a parameter space, and
//! `linear-layout-scan` from each release's real front end over a user's
//! kernel.
//!
//! ```
//! use linear_layout_triton::finder::search::{Options, Space};
//! use linear_layout_triton::report::{self, render};
//!
//! // int8 dots with K = 16 on sm80 in every release: 3.1 refuses them,
//! // 3.2 compiles them, 3.3's front end refuses them again.
//! let space = Space {
//!     patterns: vec!["dot".parse()?],
//!     sizes: vec![16],
//!     dtypes: vec!["int8".parse()?],
//!     warps: vec![4],
//!     stages: vec![1],
//!     archs: vec!["sm80".parse()?],
//!     ctas: vec![1],
//!     ..Space::default()
//! };
//! let report = report::search(&space, &Options::default(), &|_, _| {});
//! let refused = &report.groups[0];
//! assert_eq!((refused.site.id, report.builds[refused.build].name.as_str()), ("dot_k", "3.1"));
//! assert_eq!(report.regressions[0].cause.to_string(), "site dot_k");
//! let text = render::text(&report, &render::TextOptions::default());
//! assert!(text.contains("3.2 → 3.3, site dot_k (a front-end rejection)"));
//! assert_eq!(render::json(&report)["groups"][0]["fixes"][0]["fixed_in"], "3.2");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod artefact;
mod build;
mod configuration;
mod confirmation;
mod front_end;
mod group;
mod outcome;
mod regression;
pub mod render;
mod risk;
mod search;
mod status;
mod subject;

pub use artefact::{Compiled, MinimalModule, Reproducer};
pub use build::Build;
pub use configuration::Configuration;
pub use confirmation::{Confirmation, confirms};
pub use front_end::FrontEndGroup;
pub use group::{SiteGroup, TtgirOp};
pub use outcome::{ConfigOutcome, FrontEndFailure};
pub use regression::{Cause, Regression};
pub use risk::RiskGroup;
pub use search::search;
pub use status::RunStatus;
pub use subject::{Kernel, Subject, Timing};

use crate::{Release, SiteKind};

/// What a search or a scan found.
#[derive(Clone, Debug)]
pub struct Report<C> {
    /// What was looked at.
    pub subject: Subject,
    /// The builds looked at, oldest first.
    pub builds: Vec<Build>,
    /// The configurations the report refers to (by index): every one of the
    /// space when `outcomes` is kept, else the examples it lists.
    pub configs: Vec<C>,
    /// `outcomes[build][config]`, when every configuration's answer is
    /// kept (a scan); empty otherwise.
    pub outcomes: Vec<Vec<ConfigOutcome>>,
    /// Configurations looked at, in every build (a configuration in two
    /// builds counts twice).
    pub total: u64,
    /// How many of them fail, in the lowering or the front end.
    pub failing: u64,
    /// The lowering's failures by build and site: compiler bugs first, then
    /// rejections, each by release and site id.
    pub groups: Vec<SiteGroup>,
    /// The front end's own failures by build and message.
    pub front_end: Vec<FrontEndGroup>,
    /// Configurations that compile in one release and fail in the next.
    pub regressions: Vec<Regression>,
    /// Predictions checked by real compiles.
    pub confirmations: Vec<Confirmation>,
    /// The assembler's risks in the modules checked (a scan): never a
    /// failure, never the exit status.
    pub risks: Vec<RiskGroup>,
    /// Seconds the whole took.
    pub seconds: f64,
}

impl<C> Report<C> {
    /// Whether a compiler failure (or an internal front-end failure) was
    /// found: the exit status's question. Front-end rejections and Python
    /// errors the front end raises on its own do not count.
    pub fn found_failure(&self) -> bool {
        self.groups.iter().any(|g| g.site.kind == SiteKind::Bug)
            || self.front_end.iter().any(|g| {
                g.site.is_some_and(|s| s.kind == SiteKind::Bug)
                    || (g.site.is_none() && g.status != RunStatus::Error)
            })
    }

    /// How the report names `release`: its first build of it that is no
    /// development build (`3.2.0` in a scan), else the release (`3.2`).
    pub fn name_of(&self, release: Release) -> String {
        self.builds
            .iter()
            .find(|b| b.release == release && b.variant.is_none())
            .map_or_else(|| release.to_string(), |b| b.name.clone())
    }

    /// The first (smallest) of `configs`, indices into the report's.
    pub fn first(&self, configs: &[usize]) -> Option<&C> {
        configs.first().and_then(|&c| self.configs.get(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finder::{Config, Variant};

    fn report(front_end: Vec<FrontEndGroup>) -> Report<Config> {
        Report {
            subject: Subject::Space {
                skipped: Vec::new(),
            },
            builds: vec![
                Build::modelled(Release::V3_3, Some(Variant::Pre5905)),
                Build {
                    name: "3.3.1".into(),
                    release: Release::V3_3,
                    variant: None,
                    python: None,
                },
            ],
            configs: Vec::new(),
            outcomes: Vec::new(),
            total: 0,
            failing: 0,
            groups: Vec::new(),
            front_end,
            regressions: Vec::new(),
            confirmations: Vec::new(),
            risks: Vec::new(),
            seconds: 0.0,
        }
    }

    fn front_end(status: RunStatus, site: Option<&'static crate::Site>) -> FrontEndGroup {
        FrontEndGroup {
            build: 0,
            status,
            message: "m".into(),
            site,
            configs: vec![0],
        }
    }

    #[test]
    fn only_compiler_failures_count_as_found() {
        assert!(!report(Vec::new()).found_failure());
        // Python errors of the kernel's own and rejections are not bugs
        assert!(!report(vec![front_end(RunStatus::Error, None)]).found_failure());
        let dot_k = crate::finder::site("dot_k");
        assert!(!report(vec![front_end(RunStatus::Abort, dot_k)]).found_failure());
        // an unknown crash or hang of the front end is
        assert!(report(vec![front_end(RunStatus::Abort, None)]).found_failure());
        assert!(report(vec![front_end(RunStatus::Timeout, None)]).found_failure());
        let stmatrix = crate::finder::site("stmatrix");
        assert!(report(vec![front_end(RunStatus::Error, stmatrix)]).found_failure());
    }

    #[test]
    fn a_release_is_named_by_its_build_unless_only_a_development_build_has_it() {
        let r = report(Vec::new());
        assert_eq!(r.name_of(Release::V3_3), "3.3.1");
        assert_eq!(r.name_of(Release::V3_4), "3.4");
        assert_eq!(r.builds[0].to_string(), "3.3 (pre-5905 build)");
    }
}
