//! A search's report: the finder's tally of a parameter space
//! (`finder::search`) with the smallest configuration of each group
//! predicted again for its failure.

use super::{Build, Cause, Regression, Report, SiteGroup, Subject};
use crate::finder::search::{Options, Space, Tally};
use crate::finder::{Config, predict_traced};
use std::time::Instant;

/// Predicts every configuration of `space` (validated:
/// [`Space::validated`]) in each of its releases, calling
/// `progress(done, total)` with the configurations predicted so far, and
/// reports what fails: one build per release of the space.
pub fn search(
    space: &Space,
    options: &Options,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Report<Config> {
    let started = Instant::now();
    let tally = crate::finder::search::tally(space, options, progress);
    let mut report = from_tally(space, tally);
    report.seconds = started.elapsed().as_secs_f64();
    report
}

fn from_tally(space: &Space, tally: Tally) -> Report<Config> {
    let builds: Vec<Build> = space
        .releases
        .iter()
        .map(|&r| Build::modelled(r, space.variant))
        .collect();
    let mut configs: Vec<Config> = Vec::new();
    let mut keep = |cs: Vec<Config>| -> Vec<usize> {
        let first = configs.len();
        configs.extend(cs);
        (first..configs.len()).collect()
    };
    let mut groups: Vec<SiteGroup> = tally
        .groups
        .into_iter()
        .filter_map(|((release, _), g)| {
            let build = builds.iter().position(|b| b.release == release)?;
            let examples: Vec<Config> = g.smallest.configs().cloned().collect();
            // The smallest again, for its failure (the tally keeps counts).
            let failure = predict_traced(examples.first()?, false).ok()?.failure?;
            let mut fixes: Vec<_> = g.fixes.into_iter().collect();
            fixes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            Some(SiteGroup {
                build,
                site: g.site,
                verdict: g.verdict,
                count: g.count,
                configs: keep(examples),
                failure,
                op: None,
                places: g
                    .by_pattern
                    .iter()
                    .map(|((p, a), n)| (format!("{} on {}", p.name(), a.name()), *n))
                    .collect(),
                fixes,
                reproducer: None,
                minimal_module: None,
            })
        })
        .collect();
    groups.sort_by_key(|g| (g.site.kind, builds[g.build].release, g.site.id));
    let regressions = tally
        .regressions
        .into_iter()
        .filter_map(|((passes_in, fails_in, _), r)| {
            let minimal = r.smallest.configs().next()?.clone();
            Some(Regression {
                passes_in,
                fails_in,
                cause: Cause::Site(r.site),
                count: r.count,
                configs: keep(vec![minimal]),
            })
        })
        .collect();
    Report {
        subject: Subject::Space {
            skipped: Vec::new(),
        },
        builds,
        configs,
        outcomes: Vec::new(),
        total: tally.total,
        failing: tally.failing,
        groups,
        front_end: Vec::new(),
        regressions,
        confirmations: Vec::new(),
        risks: Vec::new(),
        seconds: 0.0,
    }
}
