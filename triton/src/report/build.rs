//! One Triton build a report looked at: a modelled release, a development
//! build on one (`search --variant`), or an installed wheel (`scan`).

use crate::Release;
use crate::finder::Variant;
use std::fmt;
use std::path::PathBuf;

/// A build a report looked at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Build {
    /// How it is named: the release (`3.2`) for the finder's predictions,
    /// the wheel (`3.2.0`) for a scan.
    pub name: String,
    /// The modelled release that stands for it.
    pub release: Release,
    /// The development build, when it is one.
    pub variant: Option<Variant>,
    /// The interpreter that ran it (a scan's).
    pub python: Option<PathBuf>,
}

impl Build {
    /// A modelled release, or a development build on it.
    pub fn modelled(release: Release, variant: Option<Variant>) -> Build {
        Build {
            name: release.to_string(),
            release,
            variant,
            python: None,
        }
    }
}

impl fmt::Display for Build {
    /// `3.3`, `3.3 (pre-5905 build)`, `3.5.1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        match self.variant {
            Some(v) => write!(f, " ({} build)", v.name()),
            None => Ok(()),
        }
    }
}
