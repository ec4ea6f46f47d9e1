//! What became of a failing configuration in the builds after the one it
//! fails in: the first that compiles it, the change responsible, and where
//! it fails again. `search` reads it from the finder's predictions of
//! every later modelled release ([`super::History`]); `scan` from the
//! later releases it ran. Both go through [`Fix::find`].

use crate::{Change, Release, Site};

/// What became of a configuration that fails in some build.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fix {
    /// The first later release that compiles it, if any.
    pub fixed_in: Option<Release>,
    /// The site whose change made it compile: the one it failed at in the
    /// last failing build before `fixed_in`.
    pub blocker: Option<&'static Site>,
    /// That site's change, where its descriptor records one between the two
    /// releases.
    pub change: Option<ChangeRef>,
    /// A release after `fixed_in` where it fails again, and at which site;
    /// when nothing fixes it, the newest release looked at and its site.
    pub broken_again: Option<(Release, &'static Site)>,
    /// Which releases were looked at.
    pub scope: Scope,
    /// Whether any build after the failing one was looked at: a scan of
    /// one release, or a search's newest release, has none to fix it.
    pub later: bool,
}

/// Which later releases a [`Fix`] was looked for in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Every later modelled release (`search`, `fix_for`).
    Modelled,
    /// The later releases a scan ran.
    Scanned,
}

/// A recorded change of a site, compared and ordered by what it says.
#[derive(Clone, Copy, Debug)]
pub struct ChangeRef(pub &'static Change);

impl PartialEq for ChangeRef {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for ChangeRef {}
impl std::hash::Hash for ChangeRef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}
impl PartialOrd for ChangeRef {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ChangeRef {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl ChangeRef {
    fn key(&self) -> (Release, Option<&'static str>, &'static str) {
        (self.0.release, self.0.pr, self.0.what)
    }
}

/// One build's answer for a configuration, as a fix is read from them.
#[derive(Clone, Copy, Debug)]
pub struct Attempt {
    /// The modelled release (for a development build, the one it sits on).
    pub release: Release,
    /// Whether it is a development build rather than the release.
    pub development: bool,
    /// Whether it compiles the configuration.
    pub compiles: bool,
    /// Where it fails, when it does and the site is known.
    pub site: Option<&'static Site>,
}

impl Fix {
    /// The fix of the failure in `attempts[0]`, from the builds after it
    /// (oldest first): the first that compiles, the site it failed at just
    /// before, that site's recorded change, and any later build failing
    /// again.
    pub fn find(attempts: &[Attempt], scope: Scope) -> Fix {
        let Some(ok) = attempts.iter().position(|a| a.compiles) else {
            return Fix {
                fixed_in: None,
                blocker: None,
                change: None,
                broken_again: attempts.last().and_then(|a| Some((a.release, a.site?))),
                scope,
                later: attempts.len() > 1,
            };
        };
        let fixed = &attempts[ok];
        let before = ok
            .checked_sub(1)
            .and_then(|i| attempts.get(i))
            .and_then(|a| Some((a, a.site?)));
        let change = before
            .and_then(|(a, site)| site.change_between(a.release, fixed.release))
            .or_else(|| {
                // A development build fixed by its own release: the change
                // came between them.
                let (a, site) = before?;
                (a.development && a.release == fixed.release)
                    .then(|| site.changes.iter().find(|c| c.release == a.release))
                    .flatten()
            })
            .map(ChangeRef);
        let broken_again = attempts[ok..]
            .iter()
            .find_map(|a| Some((a.release, a.site?)));
        Fix {
            fixed_in: Some(fixed.release),
            blocker: before.map(|(_, site)| site),
            change,
            broken_again,
            scope,
            later: true,
        }
    }

    /// The change in words: the descriptor's, or what is known without one.
    pub fn describe(&self) -> String {
        let looked_at = match self.scope {
            Scope::Modelled => "modelled",
            Scope::Scanned => "scanned",
        };
        match (self.fixed_in, self.blocker, self.change) {
            (None, _, _) if !self.later => format!("no later release {looked_at}"),
            (None, _, _) => match self.broken_again {
                Some((release, site)) => {
                    format!("no {looked_at} release compiles it (Triton {release} fails at {site})")
                }
                None => format!("no {looked_at} release compiles it"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finder::site;

    fn attempt(release: Release, site: Option<&'static Site>) -> Attempt {
        Attempt {
            release,
            development: false,
            compiles: site.is_none(),
            site,
        }
    }

    #[test]
    fn with_no_later_build_looked_at_nothing_is_said_to_fix_or_not() {
        let stmatrix = site("stmatrix");
        let fix = Fix::find(&[attempt(Release::V3_2, stmatrix)], Scope::Scanned);
        assert_eq!(fix.fixed_in, None);
        assert!(!fix.later);
        assert_eq!(fix.describe(), "no later release scanned");
        let row = [
            attempt(Release::V3_2, stmatrix),
            attempt(Release::V3_3, stmatrix),
        ];
        let fix = Fix::find(&row, Scope::Scanned);
        assert!(fix.later);
        assert_eq!(
            fix.describe(),
            "no scanned release compiles it (Triton 3.3 fails at stmatrix)"
        );
    }

    #[test]
    fn the_first_compiling_build_fixes_and_the_site_before_it_names_the_change() {
        let stmatrix = site("stmatrix");
        let row = [
            attempt(Release::V3_2, stmatrix),
            attempt(Release::V3_3, stmatrix),
            attempt(Release::V3_4, None),
            attempt(Release::V3_5, None),
        ];
        let fix = Fix::find(&row, Scope::Scanned);
        assert_eq!(fix.fixed_in, Some(Release::V3_4));
        assert_eq!(fix.blocker.map(|s| s.id), Some("stmatrix"));
        assert_eq!(fix.change.map(|c| c.0.pr), Some(Some("#6609")));
        assert_eq!(fix.broken_again, None);
        assert!(
            fix.describe().starts_with("PR #6609: "),
            "{}",
            fix.describe()
        );
    }

    #[test]
    fn nothing_compiling_names_the_newest_build_in_the_scope_looked_at() {
        let stmatrix = site("stmatrix");
        let row = [
            attempt(Release::V3_2, stmatrix),
            attempt(Release::V3_3, stmatrix),
        ];
        let scanned = Fix::find(&row, Scope::Scanned);
        assert_eq!(scanned.fixed_in, None);
        assert_eq!(
            scanned.describe(),
            "no scanned release compiles it (Triton 3.3 fails at stmatrix)"
        );
        let modelled = Fix::find(&row, Scope::Modelled);
        assert!(modelled.describe().starts_with("no modelled release"));
    }

    #[test]
    fn only_a_development_build_takes_the_change_of_its_own_release() {
        let cp_async = site("cp_async");
        let mut row = [
            attempt(Release::V3_3, cp_async),
            attempt(Release::V3_3, None),
        ];
        // Two builds of one release (two wheels): no recorded change lies
        // between them.
        let fix = Fix::find(&row, Scope::Scanned);
        assert_eq!(fix.change, None);
        assert!(
            fix.describe().contains("no longer fails"),
            "{}",
            fix.describe()
        );
        // The development build before 3.3: 3.3's own change fixed it.
        row[0].development = true;
        let fix = Fix::find(&row, Scope::Modelled);
        assert_eq!(fix.change.map(|c| c.0.pr), Some(Some("#5905")));
    }
}
