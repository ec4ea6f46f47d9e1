//! What a search found, tallied as it streams: one group per (release,
//! site) with counts, the smallest configurations and the fixes, and one
//! group per regression. Memory depends on the number of groups, not of
//! configurations; `crate::report` turns the tally into a report.

use super::fix::Fix;
use super::history::Breakage;
use crate::finder::config::{Arch, Config, Pattern};
use crate::finder::verdict::Verdict;
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

/// The tally one worker builds; merged with the others' into the search's.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) total: u64,
    pub(crate) failing: u64,
    pub(crate) groups: BTreeMap<(Release, &'static str), GroupAcc>,
    pub(crate) regressions: BTreeMap<(Release, Release, &'static str), RegressionAcc>,
}

/// The failures at one site in one release.
pub(crate) struct GroupAcc {
    pub(crate) site: &'static Site,
    pub(crate) verdict: Verdict,
    pub(crate) count: u64,
    pub(crate) smallest: Smallest,
    pub(crate) by_pattern: BTreeMap<(Pattern, Arch), u64>,
    pub(crate) fixes: BTreeMap<Fix, u64>,
}

/// The configurations that compile in one release and fail at one site in
/// the next.
pub(crate) struct RegressionAcc {
    pub(crate) site: &'static Site,
    pub(crate) count: u64,
    pub(crate) smallest: Smallest,
}

impl Tally {
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

    pub(crate) fn merge(mut self, other: Tally) -> Tally {
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
}
