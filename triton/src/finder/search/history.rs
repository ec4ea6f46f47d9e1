//! A configuration across releases: where it fails in each, the first
//! later release that compiles it and the change responsible, and where it
//! breaks again.

use crate::finder::config::Config;
use crate::finder::predict::predict_traced;
use crate::finder::verdict::Verdict;
use crate::{Change, Failure, Release, Site};

/// What one release does with a configuration.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The release (for a development build, the release it sits on).
    pub release: Release,
    /// Whether this is the development build rather than the release.
    pub development: bool,
    /// The verdict.
    pub verdict: Verdict,
    /// The failure, for a verdict other than `ok`.
    pub failure: Option<Failure>,
}

/// A configuration's outcomes, oldest release first: its own build, then
/// every later modelled release (a development build's own release comes
/// after it).
#[derive(Clone, Debug)]
pub struct History {
    /// The outcomes.
    pub outcomes: Vec<Outcome>,
}

/// What became of a configuration that fails in some release.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fix {
    /// The first later release that compiles it, if any.
    pub fixed_in: Option<Release>,
    /// The site whose change made it compile: the one it failed at in the
    /// last failing release before `fixed_in`.
    pub blocker: Option<&'static Site>,
    /// That site's change, where its descriptor records one between the two
    /// releases.
    pub change: Option<ChangeRef>,
    /// A release after `fixed_in` where it fails again, and at which site;
    /// when nothing fixes it, the newest release and its site.
    pub broken_again: Option<(Release, &'static Site)>,
}

/// A recorded change of a site, compared and ordered by what it says.
#[derive(Clone, Copy, Debug)]
pub struct ChangeRef(pub &'static Change);

impl PartialEq for ChangeRef {
    fn eq(&self, other: &Self) -> bool {
        (self.0.release, self.0.pr, self.0.what) == (other.0.release, other.0.pr, other.0.what)
    }
}
impl Eq for ChangeRef {}
impl std::hash::Hash for ChangeRef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.0.release, self.0.pr, self.0.what).hash(state);
    }
}
impl PartialOrd for ChangeRef {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ChangeRef {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.0.release, self.0.pr, self.0.what).cmp(&(other.0.release, other.0.pr, other.0.what))
    }
}

impl Fix {
    /// The change in words: the descriptor's, or what is known without one.
    pub fn describe(&self) -> String {
        match (self.fixed_in, self.blocker, self.change) {
            (None, _, _) => match self.broken_again {
                Some((release, site)) => {
                    format!("no modelled release compiles it (Triton {release} fails at {site})")
                }
                None => "no modelled release compiles it".to_string(),
            },
            (Some(_), _, Some(ChangeRef(change))) => match change.pr {
                Some(pr) => format!("PR {pr}: {}", change.what),
                None => change.what.to_string(),
            },
            (Some(_), Some(site), None) => {
                format!("site {site} no longer fails (no change recorded in its descriptor)")
            }
            (Some(_), None, None) => "compiles".to_string(),
        }
    }
}

/// A configuration that compiles in one release and fails in a later one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakage {
    /// The last release before the failure that compiles it.
    pub passes_in: Release,
    /// The release that fails.
    pub fails_in: Release,
    /// Where.
    pub site: &'static Site,
}

impl History {
    /// Predicts `cfg` in its own build and every later modelled release.
    /// A configuration `predict` refuses has no outcomes.
    pub fn of(cfg: &Config) -> History {
        let mut outcomes = Vec::new();
        let mut push = |c: &Config, development: bool| {
            if let Ok(p) = predict_traced(c, false) {
                outcomes.push(Outcome {
                    release: c.triton,
                    development,
                    verdict: p.verdict,
                    failure: p.failure,
                });
            }
        };
        push(cfg, cfg.variant.is_some());
        let later = Release::ALL
            .into_iter()
            .filter(|&r| r > cfg.triton || (cfg.variant.is_some() && r == cfg.triton));
        for r in later {
            let c = Config {
                triton: r,
                variant: None,
                ..cfg.clone()
            };
            push(&c, false);
        }
        History { outcomes }
    }

    /// The fix of the failure at `at` (an index into the outcomes): the
    /// first later outcome that compiles, the site it failed at just before,
    /// that site's recorded change, and any later release failing again.
    pub fn fix(&self, at: usize) -> Fix {
        let later = &self.outcomes[at.min(self.outcomes.len())..];
        let Some(ok) = later.iter().position(|o| o.verdict == Verdict::Ok) else {
            return Fix {
                fixed_in: None,
                blocker: None,
                change: None,
                broken_again: later
                    .last()
                    .and_then(|o| Some((o.release, o.failure.as_ref()?.site))),
            };
        };
        let fixed = &later[ok];
        let before = ok
            .checked_sub(1)
            .and_then(|i| later.get(i))
            .and_then(|o| Some((o.release, o.failure.as_ref()?)));
        let blocker = before.map(|(_, f)| f.site);
        let change = before
            .and_then(|(release, f)| f.site.change_between(release, fixed.release))
            .or_else(|| {
                // A development build fixed by its own release: the change
                // came between them.
                let (release, f) = before?;
                (release == fixed.release)
                    .then(|| f.site.changes.iter().find(|c| c.release == release))
                    .flatten()
            })
            .map(ChangeRef);
        let broken_again = later[ok..]
            .iter()
            .find_map(|o| Some((o.release, o.failure.as_ref()?.site)));
        Fix {
            fixed_in: Some(fixed.release),
            blocker,
            change,
            broken_again,
        }
    }

    /// Every place where a compiling release is followed by a failing one.
    pub fn breakages(&self) -> Vec<Breakage> {
        self.outcomes
            .windows(2)
            .filter(|w| !w[0].development && !w[1].development)
            .filter_map(|w| {
                let failure = w[1].failure.as_ref()?;
                (w[0].verdict == Verdict::Ok).then_some(Breakage {
                    passes_in: w[0].release,
                    fails_in: w[1].release,
                    site: failure.site,
                })
            })
            .collect()
    }
}

/// The fix of `cfg`'s failure in its own release (see [`History::fix`]).
pub fn fix_for(cfg: &Config) -> Fix {
    History::of(cfg).fix(0)
}
