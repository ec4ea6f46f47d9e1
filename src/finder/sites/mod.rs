//! The lowering sites that can fail, one file each. A site model takes the
//! layouts the release chose and runs the release's own layout steps
//! through the checked algebra; a violated precondition becomes a
//! [`Failure`] naming Triton's site and message.

pub mod cp_async;
pub mod hopper_mma_3_1;
pub mod local_load_rank3;
pub mod operand_shared;
pub mod shared_tile;
pub mod stmatrix;

use super::verdict::{Prediction, Step, Verdict};

/// A failing site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// How the process ends.
    pub verdict: Verdict,
    /// Function and file as named in that release.
    pub site: String,
    /// What Triton prints.
    pub message: String,
    /// A failed C++ `assert` (or `llvm_unreachable`), as opposed to a
    /// diagnosed error: how it ends depends on the release and on how the
    /// compile was started (see [`Failure::from_ir_file`]).
    pub assertion: bool,
}

impl Failure {
    /// How this failure ends when the module is compiled from a TTGIR file
    /// (`triton.compile("m.ttgir", target=...)`) rather than from Python
    /// source. Measured with 3.3.1: the crash reproducer prints "A signal
    /// was caught while processing the MLIR module", then the process still
    /// dies on SIGABRT, where an `ASTSource` compile of the same kernel gets
    /// `PassManager::run failed`. So from a file every failed assertion
    /// aborts, in every release.
    pub fn from_ir_file(mut self) -> Failure {
        if self.assertion {
            self.verdict = Verdict::Abort;
        }
        self
    }

    /// Into a prediction with the steps that led here.
    pub fn into_prediction(self, steps: Vec<Step>) -> Prediction {
        Prediction::fail(self.verdict, self.site, self.message, steps)
    }
}

/// How a failed C++ `assert` ends in `release`: 3.1 and 3.2 abort the
/// process; from 3.3 the pass manager's crash reproducer turns it into a
/// Python exception (`PassManager::run failed`).
pub fn assert_verdict(release: crate::triton::TritonVersion) -> Verdict {
    if release <= crate::triton::TritonVersion::V3_2 {
        Verdict::Abort
    } else {
        Verdict::Error
    }
}
