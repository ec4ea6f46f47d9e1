//! Predictions checked against real compiles.

use super::RunStatus;
use crate::{Site, Verdict};

/// A prediction checked against a full compile.
#[derive(Clone, Debug)]
pub struct Confirmation {
    /// Index into the report's builds.
    pub build: usize,
    /// Index into the report's configurations.
    pub config: usize,
    /// The report's verdict.
    pub predicted: Verdict,
    /// How the real compile ended.
    pub real: RunStatus,
    /// Its key line.
    pub message: String,
    /// Whether they agree ([`confirms`]).
    pub confirmed: bool,
}

/// Whether a real compile that ended with `status` and key line `message`
/// is the failure `site` predicts with `verdict`: the same outcome, and
/// (for a failure) a message that `explain` names the site for. A `wrong`
/// verdict is confirmed by a compile that succeeds: on the CPU only that
/// much of a miscompile shows.
pub fn confirms(verdict: Verdict, site: Option<&Site>, status: RunStatus, message: &str) -> bool {
    if verdict == Verdict::Wrong {
        return status == RunStatus::Ok;
    }
    if status.verdict() != Some(verdict) {
        return false;
    }
    match site {
        Some(site) if verdict != Verdict::Ok => {
            let e = crate::explain::explain(message);
            e.site.iter().chain(&e.others).any(|m| m.site.id == site.id)
        }
        _ => true,
    }
}
