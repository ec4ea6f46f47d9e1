//! Searching a parameter space: which configurations fail where, the
//! smallest reproducer per site, the release that fixes each failure and
//! the change responsible, and the regressions.
//!
//! The space is enumerated lazily by index ([`Space::base_config`]) in
//! parallel chunks. Each configuration is predicted once per release from
//! the first one the space asks about (`History`), which gives its
//! failures, their fixes ([`Fix`]) and its regressions together; the
//! results are folded into per-group counts (`Tally`), so memory depends
//! on the number of groups, not of configurations. `crate::report::search`
//! runs a search and gives its report.

mod fix;
mod history;
mod shrink;
mod space;
mod tally;

pub use fix::{Attempt, ChangeRef, Fix, Scope};
pub(crate) use history::History;
pub use history::fix_for;
pub use shrink::shrink;
pub use space::{InvalidValue, Skipped, Space, default_ctas};
pub(crate) use tally::Tally;

use crate::finder::config::Config;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// How a search reports.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many of the smallest failing configurations to keep per group.
    pub examples: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { examples: 8 }
    }
}

/// Base configurations per unit of parallel work.
const CHUNK: u64 = 512;

/// Predicts every configuration of `space` (validated:
/// [`Space::validated`]), calling `progress(done, total)` with the
/// configurations tallied so far.
pub(crate) fn tally(
    space: &Space,
    options: &Options,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Tally {
    let base = space.base_count();
    let total = space.count();
    let done = AtomicU64::new(0);
    let per_base = space.releases.len() as u64;
    let chunks = base.div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let mut partial = Tally::default();
            let end = ((chunk + 1) * CHUNK).min(base);
            for index in chunk * CHUNK..end {
                if let Some(cfg) = space.base_config(index) {
                    visit(space, &cfg, index, options, &mut partial);
                }
            }
            let n = (end - chunk * CHUNK) * per_base;
            progress(done.fetch_add(n, Ordering::Relaxed) + n, total);
            partial
        })
        .reduce(Tally::default, Tally::merge)
}

/// One base configuration: its history from the space's first release,
/// and what the space's releases make of it.
fn visit(space: &Space, cfg: &Config, index: u64, options: &Options, partial: &mut Tally) {
    let history = History::of(cfg);
    for (at, outcome) in history.outcomes.iter().enumerate() {
        let asked = space.releases.contains(&outcome.release)
            && outcome.development == space.variant.is_some();
        if !asked {
            continue;
        }
        partial.total += 1;
        let at_release = Config {
            triton: outcome.release,
            variant: space.variant.filter(|_| outcome.development),
            ..cfg.clone()
        };
        if let Some(failure) = &outcome.failure {
            let fix = history.fix(at);
            partial.fail(
                &at_release,
                index,
                outcome.verdict,
                failure.site,
                fix,
                options.examples,
            );
        }
    }
    for b in history.breakages() {
        if space.releases.contains(&b.fails_in) && space.variant.is_none() {
            let failing = Config {
                triton: b.fails_in,
                ..cfg.clone()
            };
            partial.regress(&failing, index, &b);
        }
    }
}
