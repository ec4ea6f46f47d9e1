//! Configurations that one release compiles and the next one fails.

use crate::{Release, Site};
use std::fmt;

/// Configurations that one release compiles and the next one looked at
/// fails, for one reason.
#[derive(Clone, Debug)]
pub struct Regression {
    /// The release that compiles them.
    pub passes_in: Release,
    /// The next one, which fails.
    pub fails_in: Release,
    /// What fails there.
    pub cause: Cause,
    /// How many.
    pub count: u64,
    /// Indices into the report's configurations, smallest first (in the
    /// failing release). Never empty.
    pub configs: Vec<usize>,
}

/// What fails in a regression.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cause {
    /// The lowering, at a site.
    Site(&'static Site),
    /// The front end, with a known site or only its message.
    FrontEnd {
        /// The site whose message it printed.
        site: Option<&'static Site>,
        /// Its key line.
        message: String,
    },
}

impl Cause {
    /// The site, where known.
    pub fn site(&self) -> Option<&'static Site> {
        match self {
            Cause::Site(site) => Some(site),
            Cause::FrontEnd { site, .. } => *site,
        }
    }
}

impl fmt::Display for Cause {
    /// `site stmatrix`, `front end, site dot_k`, `front end: <message>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Site(site) => write!(f, "site {}", site.id),
            Cause::FrontEnd {
                site: Some(site), ..
            } => write!(f, "front end, site {}", site.id),
            Cause::FrontEnd {
                site: None,
                message,
            } => write!(f, "front end: {message}"),
        }
    }
}
