//! Site descriptors: where in Triton a layout failure happens, per release.
//!
//! A *site* is one place in Triton's compiler that fails on some layouts:
//! an assertion in a layout builder, a verifier, a front-end check. Each
//! site model (a file of `finder/sites/`, or a conversion recipe) owns one
//! static [`Site`] that says, as data, everything a report needs about it:
//! its stable id (the model's file name), where it sits in each release's
//! source ([`Location`]), how the compile ends there, which changes moved or
//! removed its failures ([`Change`]), and what a user can do meanwhile. The
//! models build their [`Failure`](super::Failure)s from these descriptors, so
//! `search`'s fix notes, `explain`, `notes/sites.md` and the tests all read
//! the same facts.

use super::release::{Release, Span};
use serde::Serialize;
use std::fmt;

/// How Triton fails at a site; with the release and the way the compile was
/// started it decides the [`Verdict`](super::Verdict)
/// ([`Failure::verdict`](super::Failure::verdict)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// A failed C++ `assert` or `llvm_unreachable`: `abort()`.
    Assertion,
    /// `llvm::report_fatal_error`: `abort()` too, after printing
    /// `LLVM ERROR: …`.
    FatalError,
    /// A diagnosed error: an MLIR `emitError`, a Python exception.
    Diagnostic,
    /// The process dies on a signal that nothing catches, after the pass
    /// manager is done (3.2's segmentation fault after "LLVM Translation
    /// failed"), or is killed (3.3's unswizzled NVMMA buffer allocates until
    /// the kernel kills it).
    Crash,
    /// No failure at compile time: the kernel compiles and computes wrong
    /// values (or faults on the GPU). Triton prints nothing, so such a
    /// location has an empty `message`; its evidence is a GPU run, recorded
    /// in `notes/findings/`.
    Miscompile,
    /// No failure at compile time, and not always a wrong kernel: the
    /// assembler the release uses (not Triton's code) miscompiles some
    /// kernels of this shape, measured on a GPU (`notes/findings/`). Triton
    /// prints nothing; the location's `function` names the assembler.
    Risk,
}

impl Ending {
    /// Words for people.
    pub fn describe(self) -> &'static str {
        match self {
            Ending::Assertion => "failed assertion",
            Ending::FatalError => "fatal error (LLVM ERROR)",
            Ending::Diagnostic => "diagnosed error",
            Ending::Crash => "crash (signal, not caught)",
            Ending::Miscompile => "compiles, computes wrong values",
            Ending::Risk => "compiles; the bundled assembler may miscompile it",
        }
    }
}

/// Where a site fails in a span of releases.
#[derive(Debug, PartialEq, Eq)]
pub struct Location {
    /// The releases this location applies to.
    pub releases: Span,
    /// How the compile ends here.
    pub ending: Ending,
    /// The function, as named in those releases.
    pub function: &'static str,
    /// The source file where it fails, from Triton's repository root
    /// (`lib/Tools/LinearLayout.cpp`), or from LLVM's include directory
    /// (`llvm/ADT/ArrayRef.h`) for an assertion in an LLVM container that a
    /// Triton function (named in `function`) misuses.
    pub file: &'static str,
    /// The line in the first release of the span, where it is known (an
    /// assertion's line is part of its message).
    pub line: Option<u32>,
    /// What Triton prints, exactly, as recorded from the wheel: an
    /// assertion's `Assertion `…' failed.`, a diagnostic's text; where the
    /// text carries values, the part before them. Empty for a
    /// [`Miscompile`](Ending::Miscompile), where Triton prints nothing.
    pub message: &'static str,
}

impl Location {
    /// A failed `assert` at `file:line` of one release's source.
    pub const fn assertion(
        release: Release,
        file: &'static str,
        line: u32,
        function: &'static str,
        message: &'static str,
    ) -> Location {
        Location {
            releases: Span::only(release),
            ending: Ending::Assertion,
            function,
            file,
            line: Some(line),
            message,
        }
    }

    /// `v3.2.0:lib/Tools/LinearLayout.cpp:562`: the file and line in the
    /// span's first release.
    pub fn cite(&self) -> String {
        let line = self.line.map(|l| format!(":{l}")).unwrap_or_default();
        if self.in_llvm() {
            format!(
                "{}{line} (LLVM, as built into {})",
                self.file,
                self.releases.since.tag()
            )
        } else {
            format!("{}:{}{line}", self.releases.since.tag(), self.file)
        }
    }

    /// Whether the failing file is LLVM's or MLIR's (the LLVM project
    /// Triton builds against), not Triton's.
    pub fn in_llvm(&self) -> bool {
        self.file.starts_with("llvm/") || self.file.starts_with("mlir/")
    }

    /// `LinearLayout.cpp:562`: how an assertion's message starts.
    pub fn file_and_line(&self) -> Option<String> {
        let base = self.file.rsplit('/').next().unwrap_or(self.file);
        self.line.map(|l| format!("{base}:{l}"))
    }
}

/// A change in Triton that moved or removed a site's failures.
#[derive(Debug)]
pub struct Change {
    /// The first release with the change.
    pub release: Release,
    /// The pull request, where known (`#6609`).
    pub pr: Option<&'static str>,
    /// What changed.
    pub what: &'static str,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pr {
            Some(pr) => write!(f, "PR {pr} ({}): {}", self.release, self.what),
            None => write!(f, "{}: {}", self.release, self.what),
        }
    }
}

/// Whether a site is a compiler bug or a rejection the front end makes on
/// purpose.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SiteKind {
    /// The compiler aborts or fails an assertion on input it accepted: a
    /// bug.
    Bug,
    /// A documented refusal of unsupported input (a dtype the target lacks,
    /// a block too small for a dot, IR in another release's spelling).
    Rejection,
}

/// One site: everything a report says about it.
#[derive(Debug)]
pub struct Site {
    /// A stable id: the model's file name (`stmatrix`).
    pub id: &'static str,
    /// A bug, or a rejection on purpose.
    pub kind: SiteKind,
    /// What fails, in one line.
    pub title: &'static str,
    /// Where it fails, per span of releases; one span may hold several
    /// locations (several assertions of one builder).
    pub locations: &'static [&'static Location],
    /// The changes that moved or removed its failures, oldest first.
    pub changes: &'static [Change],
    /// What a user can do about it without changing Triton.
    pub workaround: &'static str,
}

impl Site {
    /// The first location for `release`, if the site fails there.
    pub fn location(&self, release: Release) -> Option<&'static Location> {
        self.locations
            .iter()
            .copied()
            .find(|l| l.releases.contains(release))
    }

    /// Whether the site can fail in `release`.
    pub fn fails_in(&self, release: Release) -> bool {
        self.locations.iter().any(|l| l.releases.contains(release))
    }

    /// The latest change in `(after, upto]`: what made a configuration that
    /// failed here in `after` behave differently by `upto`.
    pub fn change_between(&self, after: Release, upto: Release) -> Option<&'static Change> {
        self.changes
            .iter()
            .rev()
            .find(|c| c.release > after && c.release <= upto)
    }
}

impl PartialEq for Site {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Site {}

impl std::hash::Hash for Site {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl PartialOrd for Site {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Site {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id.cmp(other.id)
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

impl Serialize for Site {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id)
    }
}
