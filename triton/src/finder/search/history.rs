//! A configuration across releases: the finder's prediction in its own
//! build and every later modelled release, from which its fixes
//! ([`Fix::find`]) and its regressions are read.

use super::fix::{Attempt, Fix, Scope};
use crate::finder::config::Config;
use crate::finder::predict::predict_traced;
use crate::finder::verdict::Verdict;
use crate::{Failure, Release, Site};

/// What the finder predicts one release does with a configuration.
#[derive(Clone, Debug)]
pub(crate) struct Predicted {
    /// The release (for a development build, the release it sits on).
    pub(crate) release: Release,
    /// Whether this is the development build rather than the release.
    pub(crate) development: bool,
    /// The verdict.
    pub(crate) verdict: Verdict,
    /// The failure, for a verdict other than `ok`.
    pub(crate) failure: Option<Failure>,
}

impl Predicted {
    fn attempt(&self) -> Attempt {
        Attempt {
            release: self.release,
            development: self.development,
            compiles: self.verdict == Verdict::Ok,
            site: self.failure.as_ref().map(|f| f.site),
        }
    }
}

/// A configuration's predictions, oldest release first: its own build,
/// then every later modelled release (a development build's own release
/// comes after it).
#[derive(Clone, Debug)]
pub(crate) struct History {
    /// The predictions.
    pub(crate) outcomes: Vec<Predicted>,
}

/// A configuration that compiles in one release and fails in a later one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Breakage {
    /// The last release before the failure that compiles it.
    pub(crate) passes_in: Release,
    /// The release that fails.
    pub(crate) fails_in: Release,
    /// Where.
    pub(crate) site: &'static Site,
}

impl History {
    /// Predicts `cfg` in its own build and every later modelled release.
    /// A configuration `predict` refuses has no outcomes.
    pub(crate) fn of(cfg: &Config) -> History {
        let mut outcomes = Vec::new();
        let mut push = |c: &Config, development: bool| {
            if let Ok(p) = predict_traced(c, false) {
                outcomes.push(Predicted {
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

    /// The fix of the failure at `at` (an index into the outcomes).
    pub(crate) fn fix(&self, at: usize) -> Fix {
        let later: Vec<Attempt> = self.outcomes[at.min(self.outcomes.len())..]
            .iter()
            .map(Predicted::attempt)
            .collect();
        Fix::find(&later, Scope::Modelled)
    }

    /// Every place where a compiling release is followed by a failing one.
    pub(crate) fn breakages(&self) -> Vec<Breakage> {
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

/// The fix of `cfg`'s failure in its own release, looked for in every later
/// modelled release.
pub fn fix_for(cfg: &Config) -> Fix {
    History::of(cfg).fix(0)
}
