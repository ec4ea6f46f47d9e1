//! Front-end failures with one message in one build: the release's own
//! refusals and crashes before any layout is lowered.

use super::RunStatus;
use crate::Site;

/// Front-end failures with one message in one build.
#[derive(Clone, Debug)]
pub struct FrontEndGroup {
    /// Index into the report's builds.
    pub build: usize,
    /// How they ended: `error`, `abort` or `timeout`.
    pub status: RunStatus,
    /// The key line.
    pub message: String,
    /// The known site whose message it is.
    pub site: Option<&'static Site>,
    /// Indices into the report's configurations, smallest first.
    pub configs: Vec<usize>,
}
