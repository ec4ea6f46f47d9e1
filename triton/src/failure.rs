//! The one description of a Triton failure, shared by the conversions and
//! the finder: which release, which site and location, what Triton prints
//! there (its own words, as recorded from the wheel) and our explanation
//! (the sizes and the reason), kept apart.

use super::release::Release;
use super::site::{Ending, Location, Site};
use serde::Serialize;
use std::fmt;

/// How the real compiler ends.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// `triton.compile` returns a kernel.
    Ok,
    /// The process dies on a signal (a failed `assert` in 3.1 and 3.2).
    Abort,
    /// `triton.compile` raises: a diagnosed error, or (from 3.3) a failed
    /// assertion inside the pass pipeline turned into `PassManager::run failed`.
    Error,
    /// `triton.compile` returns a kernel that computes wrong values (a
    /// [`Miscompile`](Ending::Miscompile) site).
    Wrong,
    /// `triton.compile` returns a kernel that may compute wrong values: the
    /// assembler the release uses miscompiles some kernels of this shape (a
    /// [`Risk`](Ending::Risk) site). Reported beside the compile's verdict,
    /// never as it.
    Risk,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Ok => "ok",
            Verdict::Abort => "abort",
            Verdict::Error => "error",
            Verdict::Wrong => "wrong",
            Verdict::Risk => "risk",
        })
    }
}

/// How the compile was started.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// From Python source (`ASTSource`), as kernels are compiled.
    Source,
    /// From a TTGIR file (`triton.compile("m.ttgir", target=...)`).
    IrFile,
}

/// A failure at a site in one release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The release.
    pub release: Release,
    /// The site.
    pub site: &'static Site,
    /// Where in the release's source.
    pub location: &'static Location,
    /// What Triton prints, exactly (an assertion's `Assertion `…'
    /// failed.`, a diagnostic's text, a Python exception's line).
    pub triton_message: String,
    /// Ours: which sizes and layouts make it fail, and why.
    pub explanation: String,
}

impl Failure {
    /// A failure at `location` of `site`, printing the location's message.
    pub fn at(
        site: &'static Site,
        location: &'static Location,
        release: Release,
        explanation: impl Into<String>,
    ) -> Self {
        debug_assert!(
            site.locations.iter().any(|l| std::ptr::eq(*l, location)),
            "site {} does not list {location:?}",
            site.id
        );
        Failure {
            release,
            site,
            location,
            triton_message: location.message.to_string(),
            explanation: explanation.into(),
        }
    }

    /// The same, with a message that carries values (a diagnostic's sizes).
    pub fn with_message(mut self, triton_message: impl Into<String>) -> Self {
        self.triton_message = triton_message.into();
        self
    }

    /// How the compile ends here.
    pub fn ending(&self) -> Ending {
        self.location.ending
    }

    /// How the compile ends, per release and entry point.
    ///
    /// A failed assertion and `report_fatal_error` both end in `abort()`:
    ///
    /// - 3.1 and 3.2 die on SIGABRT.
    /// - From 3.3 the pass manager's crash reproducer catches the signal
    ///   ("A signal was caught while processing the MLIR module … marking
    ///   pass as failed") and the compile raises `PassManager::run failed`.
    ///   Measured from source on 3.3.1 (assertions, kernel grids) and 3.4.0
    ///   (a Gluon kernel reaching "Illegal shared layout",
    ///   `tests/oracle/compile/caught_abort.py`), and from a TTGIR file on
    ///   3.9.0 (op-level grid).
    /// - Compiled from a TTGIR file, 3.3.1 and 3.4.0 print that same message
    ///   and then still die on SIGABRT (44 of 44 one-op stmatrix modules on
    ///   3.3.1; "Illegal shared layout" modules on 3.3.1 and 3.4.0).
    ///
    /// A [`Crash`](Ending::Crash) happens where nothing catches it; a
    /// [`Miscompile`](Ending::Miscompile) ends nothing: the kernel is wrong.
    pub fn verdict(&self, entry: Entry) -> Verdict {
        let r = self.release;
        let caught =
            r.catches_crashes() && !(entry == Entry::IrFile && r.file_compile_aborts_after_catch());
        match self.ending() {
            Ending::Miscompile => Verdict::Wrong,
            Ending::Risk => Verdict::Risk,
            Ending::Diagnostic => Verdict::Error,
            Ending::Assertion | Ending::FatalError if caught => Verdict::Error,
            Ending::Assertion | Ending::FatalError | Ending::Crash => Verdict::Abort,
        }
    }

    /// `v3.2.0:lib/Tools/LinearLayout.cpp:562`.
    pub fn cite(&self) -> String {
        self.location.cite()
    }

    /// The failure as the JSON the CLI prints and the Python package reads.
    pub fn to_json(&self, entry: Entry) -> serde_json::Value {
        serde_json::json!({
            "release": self.release.to_string(),
            "site": self.site.id,
            "ending": self.ending(),
            "verdict": self.verdict(entry),
            "function": self.location.function,
            "location": self.cite(),
            "triton_message": self.triton_message,
            "explanation": self.explanation,
        })
    }
}

impl fmt::Display for Failure {
    /// `Triton 3.2, stmatrix (reshapeOuts at v3.2.0:…:562): <Triton's
    /// message> [<our explanation>]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Triton {}, site {} ({} at {}): {}",
            self.release,
            self.site.id,
            self.location.function,
            self.cite(),
            self.triton_message
        )?;
        if !self.explanation.is_empty() {
            write!(f, " [{}]", self.explanation)?;
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}
