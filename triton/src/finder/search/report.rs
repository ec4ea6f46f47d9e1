//! What a search found, aggregated as it streams: one group per (release,
//! site) with counts, the smallest configurations and the fixes, and one
//! group per regression. Memory depends on the number of groups, not of
//! configurations.

use super::history::{Breakage, Fix};
use crate::finder::config::{Arch, Config, Pattern};
use crate::finder::verdict::{Prediction, Verdict};
use crate::{Release, Site};
use std::collections::BTreeMap;

/// How configurations are ranked for reproducers: fewest elements, then
/// fewest warps, then fewest stages, then the order of the space.
pub(crate) type Rank = (u64, u64, u64, u64);

pub(crate) fn rank(cfg: &Config, index: u64) -> Rank {
    (cfg.elements(), cfg.num_warps, cfg.num_stages, index)
}

/// The `keep` smallest configurations seen, by [`Rank`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Smallest {
    keep: usize,
    items: Vec<(Rank, Config)>,
}

impl Smallest {
    pub(crate) fn new(keep: usize) -> Self {
        Smallest {
            keep: keep.max(1),
            items: Vec::new(),
        }
    }

    pub(crate) fn offer(&mut self, rank: Rank, cfg: &Config) {
        if self.items.len() == self.keep && self.items.last().is_some_and(|(r, _)| *r <= rank) {
            return;
        }
        let at = self.items.partition_point(|(r, _)| *r <= rank);
        self.items.insert(at, (rank, cfg.clone()));
        self.items.truncate(self.keep);
    }

    pub(crate) fn merge(&mut self, other: Smallest) {
        for (r, c) in other.items {
            self.offer(r, &c);
        }
    }

    pub(crate) fn configs(&self) -> impl Iterator<Item = &Config> {
        self.items.iter().map(|(_, c)| c)
    }
}

/// The failures at one site in one release.
#[derive(Clone, Debug)]
pub struct SiteGroup {
    /// The release.
    pub release: Release,
    /// The site.
    pub site: &'static Site,
    /// How the compile ends there.
    pub verdict: Verdict,
    /// How many configurations fail here.
    pub count: u64,
    /// The smallest failing configurations, smallest first (at most the
    /// number asked for).
    pub examples: Vec<Config>,
    /// How many fail per pattern and target.
    pub by_pattern: BTreeMap<(Pattern, Arch), u64>,
    /// For each fix (first compiling release, change), how many of the
    /// group's configurations it applies to.
    pub fixes: Vec<(Fix, u64)>,
    /// The smallest failing configuration.
    pub minimal: Config,
    /// Its prediction, with its steps.
    pub minimal_prediction: Prediction,
}

/// Configurations that compile in one release and fail in the next one
/// modelled, at one site.
#[derive(Clone, Debug)]
pub struct Regression {
    /// The release that compiles them.
    pub passes_in: Release,
    /// The next release, which fails.
    pub fails_in: Release,
    /// Where.
    pub site: &'static Site,
    /// How many.
    pub count: u64,
    /// The smallest, in the failing release.
    pub minimal: Config,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Report {
    /// Configurations predicted and reported on (base configurations times
    /// the space's releases).
    pub total: u64,
    /// Failing ones.
    pub failing: u64,
    /// Failures grouped by release and site: compiler bugs first, then
    /// rejections, each by release and site id.
    pub groups: Vec<SiteGroup>,
    /// Configurations that pass in one release and fail in the next.
    pub regressions: Vec<Regression>,
}

/// The partial aggregate one worker builds; merged into a [`Report`].
#[derive(Default)]
pub(crate) struct Partial {
    pub(crate) total: u64,
    pub(crate) failing: u64,
    pub(crate) groups: BTreeMap<(Release, &'static str), GroupAcc>,
    pub(crate) regressions: BTreeMap<(Release, Release, &'static str), RegressionAcc>,
}

pub(crate) struct GroupAcc {
    site: &'static Site,
    verdict: Verdict,
    count: u64,
    smallest: Smallest,
    by_pattern: BTreeMap<(Pattern, Arch), u64>,
    fixes: BTreeMap<Fix, u64>,
}

pub(crate) struct RegressionAcc {
    site: &'static Site,
    count: u64,
    smallest: Smallest,
}

impl Partial {
    /// Adds one failing configuration.
    pub(crate) fn fail(
        &mut self,
        cfg: &Config,
        index: u64,
        verdict: Verdict,
        site: &'static Site,
        fix: Fix,
        keep: usize,
    ) {
        self.failing += 1;
        let g = self
            .groups
            .entry((cfg.triton, site.id))
            .or_insert_with(|| GroupAcc {
                site,
                verdict,
                count: 0,
                smallest: Smallest::new(keep),
                by_pattern: BTreeMap::new(),
                fixes: BTreeMap::new(),
            });
        g.count += 1;
        g.smallest.offer(rank(cfg, index), cfg);
        *g.by_pattern.entry((cfg.pattern, cfg.arch)).or_default() += 1;
        *g.fixes.entry(fix).or_default() += 1;
    }

    /// Adds one regression of a configuration (`cfg` in the failing
    /// release).
    pub(crate) fn regress(&mut self, cfg: &Config, index: u64, b: &Breakage) {
        let r = self
            .regressions
            .entry((b.passes_in, b.fails_in, b.site.id))
            .or_insert_with(|| RegressionAcc {
                site: b.site,
                count: 0,
                smallest: Smallest::new(1),
            });
        r.count += 1;
        r.smallest.offer(rank(cfg, index), cfg);
    }

    pub(crate) fn merge(mut self, other: Partial) -> Partial {
        self.total += other.total;
        self.failing += other.failing;
        for (key, g) in other.groups {
            match self.groups.get_mut(&key) {
                None => {
                    self.groups.insert(key, g);
                }
                Some(mine) => {
                    mine.count += g.count;
                    mine.smallest.merge(g.smallest);
                    for (k, n) in g.by_pattern {
                        *mine.by_pattern.entry(k).or_default() += n;
                    }
                    for (k, n) in g.fixes {
                        *mine.fixes.entry(k).or_default() += n;
                    }
                }
            }
        }
        for (key, r) in other.regressions {
            match self.regressions.get_mut(&key) {
                None => {
                    self.regressions.insert(key, r);
                }
                Some(mine) => {
                    mine.count += r.count;
                    mine.smallest.merge(r.smallest);
                }
            }
        }
        self
    }

    /// The report, with the minimal configuration of each group predicted
    /// again with its steps by `explain`.
    pub(crate) fn finish(self, explain: impl Fn(&Config) -> Prediction) -> Report {
        let mut groups: Vec<SiteGroup> = self
            .groups
            .into_iter()
            .filter_map(|((release, _), g)| {
                let examples: Vec<Config> = g.smallest.configs().cloned().collect();
                let minimal = examples.first()?.clone();
                let minimal_prediction = explain(&minimal);
                let mut fixes: Vec<(Fix, u64)> = g.fixes.into_iter().collect();
                fixes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                Some(SiteGroup {
                    release,
                    site: g.site,
                    verdict: g.verdict,
                    count: g.count,
                    examples,
                    by_pattern: g.by_pattern,
                    fixes,
                    minimal,
                    minimal_prediction,
                })
            })
            .collect();
        groups.sort_by_key(|g| (g.site.kind, g.release, g.site.id));
        let regressions = self
            .regressions
            .into_iter()
            .filter_map(|((passes_in, fails_in, _), r)| {
                Some(Regression {
                    passes_in,
                    fails_in,
                    site: r.site,
                    count: r.count,
                    minimal: r.smallest.configs().next()?.clone(),
                })
            })
            .collect();
        Report {
            total: self.total,
            failing: self.failing,
            groups,
            regressions,
        }
    }
}
