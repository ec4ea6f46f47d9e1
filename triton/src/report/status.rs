//! How a real run of Triton ended: a front end, a full compile, a module
//! compile, a reproducer.

use crate::Verdict;
use serde::Serialize;
use std::fmt;

/// How a real run of Triton ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// It finished.
    Ok,
    /// Python raised.
    Error,
    /// The process died on a signal.
    Abort,
    /// It ran out of time.
    Timeout,
}

impl RunStatus {
    /// The verdict this run shows, if any (a timeout shows none).
    pub fn verdict(self) -> Option<Verdict> {
        match self {
            RunStatus::Ok => Some(Verdict::Ok),
            RunStatus::Error => Some(Verdict::Error),
            RunStatus::Abort => Some(Verdict::Abort),
            RunStatus::Timeout => None,
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RunStatus::Ok => "ok",
            RunStatus::Error => "error",
            RunStatus::Abort => "abort",
            RunStatus::Timeout => "timeout",
        })
    }
}
