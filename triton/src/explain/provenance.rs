//! Whether a site's message found in a log was printed by Triton, so that
//! `explain` names the site only then.
//!
//! - A failed C++ `assert` prints `FILE:LINE: FUNCTION: Assertion `…'
//!   failed.`: the location's file must open the line the message is on
//!   (or the line before, where a long signature wrapped). The same
//!   expression asserted in another program's file is not Triton's.
//! - An `UNREACHABLE executed at FILE:LINE!` carries its file in the
//!   message itself.
//! - Text that is not Triton's own (an assertion inside LLVM's headers, an
//!   LLVM backend error, the C++ runtime's `terminate called …`, a bare
//!   exception name, MLIR's wrapper of any failed pass, a message of fewer
//!   than three words) is any program's as much as Triton's: the log must
//!   also show Triton ([`Log::from_triton`]).
//! - Any other message is Triton's own prose (`LLVM ERROR: Illegal shared
//!   layout`, a front-end `AssertionError: …` with its reason), which no
//!   other program prints: the message is the evidence.

use super::log::{Log, normalize};
use crate::Location;

/// Whether the message of `loc`, found on line `line` of `log`, is
/// Triton's.
pub(super) fn placed(loc: &Location, log: &Log<'_>, line: usize) -> bool {
    if needs_triton(loc) && !log.from_triton {
        return false;
    }
    if loc.message.contains("Assertion `") {
        let base = loc.file.rsplit('/').next().unwrap_or(loc.file);
        return [Some(line), line.checked_sub(1)]
            .into_iter()
            .flatten()
            .filter_map(|i| log.lines.get(i))
            .any(|text| names_file(text, base));
    }
    true
}

/// Whether a match of `message` (a message some site prints that no
/// descriptor lists yet) is Triton's: as [`placed`] for text of no file.
pub(super) fn placed_text(message: &str, log: &Log<'_>) -> bool {
    !generic(message) || log.from_triton
}

/// Whether `loc`'s text is not Triton's alone.
fn needs_triton(loc: &Location) -> bool {
    loc.in_llvm() || generic(loc.message)
}

/// Text any program may print.
pub(super) fn generic(message: &str) -> bool {
    const ANY_PROGRAM: [&str; 4] = [
        "terminate called",
        "killed by signal",
        "Segmentation fault",
        "Failures have been detected while processing an MLIR pass pipeline",
    ];
    let text = normalize(message);
    if ANY_PROGRAM.iter().any(|t| text.contains(t)) {
        return true;
    }
    // the words after a leading `error:`, `LLVM ERROR:` or `NameError:`
    let body = text
        .strip_prefix("LLVM ERROR:")
        .or_else(|| text.strip_prefix("error:"))
        .unwrap_or(&text);
    let body = match body.split_once(": ") {
        Some((head, rest)) if head.ends_with("Error") && !head.contains(' ') => rest,
        _ if body.ends_with("Error") && !body.contains(' ') => "",
        _ => body,
    };
    body.split_whitespace().count() < 3
}

/// Whether `line` names the file `base` as a `file:line` (`…/base:123`),
/// not as the tail of another name.
fn names_file(line: &str, base: &str) -> bool {
    line.match_indices(base).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = &line[at + base.len()..];
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && after
                .strip_prefix(':')
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_or_foreign_text_is_generic() {
        for text in [
            "AssertionError",
            "terminate called after throwing an instance of 'std::bad_alloc'",
            "unexpected key: ",
            "error: Failures have been detected while processing an MLIR pass pipeline",
        ] {
            assert!(generic(text), "{text}");
        }
        for text in [
            "LLVM ERROR: Illegal shared layout",
            "AssertionError: small blocks not supported!",
            "Assertion `rank == 2' failed.",
        ] {
            assert!(!generic(text), "{text}");
        }
    }

    #[test]
    fn a_file_is_named_as_file_colon_line() {
        assert!(names_file(
            "python: /a/LinearLayout.cpp:562: f",
            "LinearLayout.cpp"
        ));
        assert!(names_file("LinearLayout.cpp:1: f", "LinearLayout.cpp"));
        assert!(!names_file("MyLinearLayout.cpp:12: f", "LinearLayout.cpp"));
        assert!(!names_file("LinearLayout.cpp is fine", "LinearLayout.cpp"));
        assert!(!names_file("LinearLayout.cpp:x", "LinearLayout.cpp"));
    }
}
