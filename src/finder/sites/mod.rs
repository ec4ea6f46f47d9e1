//! The lowering sites that can fail, one file each. A site model takes the
//! layouts the release chose and runs the release's own layout steps
//! through the checked algebra; a violated precondition becomes a
//! [`Failure`] naming Triton's site and message.

pub mod accumulator_to_v2;
pub mod cga_spelling;
pub mod cp_async;
pub mod fp8_promotion;
pub mod hopper_mma_3_1;
pub mod local_load_rank3;
pub mod mma_to_mma_3_1;
pub mod mma_version;
pub mod nvmma_memdesc;
pub mod operand_shared;
pub mod shared_tile;
pub mod stmatrix;
pub mod tcgen05_operand_3_3;
pub mod v2_shortcut_3_1;
pub mod warp_shuffle_3_3;

use super::verdict::{Prediction, Step, Trace, Verdict};
use crate::LayoutError;
use crate::layout::LinearLayout;
use crate::triton::attr::Attr;
use crate::triton::{Conversion, TritonVersion, to_linear_layout};

/// `attr`'s linear layout on `shape` as `release` converts it, for a site
/// that needs it. A Triton assertion in the conversion is that release's
/// failure. No layout, or our converter refusing the input (a shape that is
/// not a power of two, say), is no finding: `None`, with the reason traced
/// under `what`.
pub fn converted(
    attr: &Attr,
    shape: &[u64],
    release: TritonVersion,
    elem_bits: Option<u64>,
    trace: &mut Trace,
    what: impl Fn() -> String,
) -> Result<Option<LinearLayout>, Failure> {
    match to_linear_layout(attr, shape, release, elem_bits) {
        Ok(Conversion::Layout(l)) => Ok(Some(l)),
        Ok(Conversion::NoLayout(why)) => {
            trace.note(|| format!("{}: no linear layout ({why})", what()));
            Ok(None)
        }
        Err(LayoutError::TritonAssertion { site, message, .. }) => {
            Err(Failure::assertion(release, site, message))
        }
        Err(e) => {
            trace.note(|| format!("{}: not converted here ({e})", what()));
            Ok(None)
        }
    }
}

/// What kind of failure Triton has at a site; with the release and the way
/// the compile was started it decides the [`Verdict`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A failed C++ `assert` or `llvm_unreachable`.
    Assertion,
    /// `llvm::report_fatal_error`, which calls `abort()` like a failed
    /// assertion and ends the same way (see [`Failure::verdict`]); it prints
    /// `LLVM ERROR: …` instead of the assertion's text.
    FatalError,
    /// A diagnosed error (an MLIR `emitError`, a Python exception).
    Diagnostic,
    /// The process dies on a signal whatever the release: measured on
    /// 3.2.0, where an op left unlowered ("LLVM Translation failed for
    /// operation: builtin.unrealized_conversion_cast") is followed by a
    /// segmentation fault; and on 3.3.1, where an unswizzled NVMMA buffer
    /// makes the layout builder allocate until the kernel kills the process.
    Crash,
}

/// How the compile was started.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// From Python source (`ASTSource`), as kernels are compiled.
    Source,
    /// From a TTGIR file (`triton.compile("m.ttgir", target=...)`).
    IrFile,
}

/// A failing site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What kind of failure it is.
    pub ending: Ending,
    /// The release it happens in.
    pub release: TritonVersion,
    /// Function and file as named in that release.
    pub site: String,
    /// What Triton prints.
    pub message: String,
}

impl Failure {
    /// A failed assertion at `site` in `release`.
    pub fn assertion(
        release: TritonVersion,
        site: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Failure::new(Ending::Assertion, release, site, message)
    }

    /// A diagnosed error at `site` in `release`.
    pub fn diagnostic(
        release: TritonVersion,
        site: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Failure::new(Ending::Diagnostic, release, site, message)
    }

    /// A failure of the given kind.
    pub fn new(
        ending: Ending,
        release: TritonVersion,
        site: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Failure {
            ending,
            release,
            site: site.into(),
            message: message.into(),
        }
    }

    /// How the compile ends.
    ///
    /// A failed assertion and `report_fatal_error` both end in `abort()`,
    /// so they end the same way:
    ///
    /// - 3.1 and 3.2 die on SIGABRT.
    /// - From 3.3 the pass manager's crash reproducer catches the signal
    ///   ("A signal was caught while processing the MLIR module … marking
    ///   pass as failed") and the compile raises `PassManager::run failed`.
    ///   Measured from source on 3.3.1 (assertions, kernel grids) and 3.4.0
    ///   (a Gluon kernel reaching "Illegal shared layout"), and from a TTGIR
    ///   file on 3.9.0 (op-level grid).
    /// - Compiled from a TTGIR file, 3.3.1 and 3.4.0 print that same message
    ///   and then still die on SIGABRT (44 of 44 one-op stmatrix modules on
    ///   3.3.1; "Illegal shared layout" modules on 3.3.1 and 3.4.0).
    ///
    /// A [`Crash`](Ending::Crash) happens after the pass manager has
    /// finished, where nothing catches it.
    pub fn verdict(&self, entry: Entry) -> Verdict {
        let caught = self.release >= TritonVersion::V3_3
            && !(entry == Entry::IrFile && self.release <= TritonVersion::V3_4);
        match self.ending {
            Ending::Diagnostic => Verdict::Error,
            Ending::Assertion | Ending::FatalError if caught => Verdict::Error,
            Ending::Assertion | Ending::FatalError | Ending::Crash => Verdict::Abort,
        }
    }

    /// Into a prediction (of a compile from source) with the steps that led
    /// here.
    pub fn into_prediction(self, steps: Vec<Step>) -> Prediction {
        Prediction::fail(self.verdict(Entry::Source), self.site, self.message, steps)
    }
}
