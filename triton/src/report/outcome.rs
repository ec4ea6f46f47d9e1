//! What one build made of one configuration, when a report keeps every
//! configuration's answer (a scan does; a search keeps counts).

use super::RunStatus;
use crate::finder::check_ttgir::Finding;
use crate::{Entry, Site, Verdict};

/// What one build made of one configuration.
#[derive(Clone, Debug)]
pub enum ConfigOutcome {
    /// The front end gave a module the model passes.
    Passes,
    /// The model fails the module: the lowering would fail (first finding
    /// first).
    Fails {
        /// The findings, in module order.
        findings: Vec<Finding>,
    },
    /// The front end itself failed (or timed out).
    FrontEnd(FrontEndFailure),
}

/// A front end's own failure.
#[derive(Clone, Debug)]
pub struct FrontEndFailure {
    /// How it ended: `error`, `abort` or `timeout`.
    pub status: RunStatus,
    /// Its key line.
    pub message: String,
    /// The Python exception, for an error.
    pub exception: Option<String>,
    /// The stage that was running.
    pub stage: Option<String>,
    /// The known site whose message it is, if any.
    pub site: Option<&'static Site>,
}

impl ConfigOutcome {
    /// The verdict of a compile from source.
    pub fn verdict(&self) -> Verdict {
        match self {
            ConfigOutcome::Passes => Verdict::Ok,
            ConfigOutcome::Fails { findings } => findings
                .first()
                .map_or(Verdict::Ok, |f| f.failure.verdict(Entry::Source)),
            ConfigOutcome::FrontEnd(f) => {
                if f.status == RunStatus::Abort {
                    Verdict::Abort
                } else {
                    Verdict::Error
                }
            }
        }
    }

    /// Whether it fails in any way.
    pub fn fails(&self) -> bool {
        !matches!(self, ConfigOutcome::Passes)
    }

    /// The site it fails at, where known: the model's first finding, or the
    /// site whose message the front end printed.
    pub fn site(&self) -> Option<&'static Site> {
        match self {
            ConfigOutcome::Passes => None,
            ConfigOutcome::Fails { findings } => findings.first().map(|f| f.failure.site),
            ConfigOutcome::FrontEnd(f) => f.site,
        }
    }
}
