//! What reproduces a site group's smallest failure outside the report: a
//! command or a script, and a reduced TTGIR module.

use super::RunStatus;
use crate::Verdict;
use std::path::PathBuf;

/// How to reproduce a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reproducer {
    /// A command that writes a reproducer (`linear-layout repro …`).
    Command(String),
    /// A script written for the user's kernel, run with the build's
    /// interpreter.
    Script {
        /// Where it was written.
        path: PathBuf,
        /// The first line it printed, when it was run.
        ran: Option<String>,
    },
}

/// A failing module reduced op by op while the model's verdict holds.
#[derive(Clone, Debug)]
pub struct MinimalModule {
    /// Where it was written.
    pub path: PathBuf,
    /// Ops before reduction.
    pub ops_before: usize,
    /// Ops after.
    pub ops_after: usize,
    /// What the model predicts for compiling the file.
    pub expected: Verdict,
    /// What the release did with it, where installed.
    pub compiled: Option<Compiled>,
    /// Whether that is the predicted failure (see
    /// [`confirms`](super::confirms)).
    pub confirmed: Option<bool>,
}

/// How a real compile ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// How it ended.
    pub status: RunStatus,
    /// Its key line.
    pub message: String,
}
