//! A guard against deeply nested text.
//!
//! The crate's TTGIR reader recurses once per `[`, `{`, `<` and nested
//! attribute, without a limit, so text nested a few hundred thousand levels
//! deep would overflow the stack and kill the interpreter (a stack overflow
//! is no panic that could be caught). Real attributes nest less than ten
//! levels; text nested deeper than [`MAX_DEPTH`] is refused up front.

use crate::errors::layout_error;
use pyo3::prelude::*;

/// The deepest bracket nesting accepted.
pub(crate) const MAX_DEPTH: usize = 64;

/// Refuses `text` (named `what` in the message) when its brackets nest
/// deeper than [`MAX_DEPTH`]. Unbalanced brackets are left to the parser.
pub(crate) fn check_nesting(text: &str, what: &str) -> PyResult<()> {
    let mut depth = 0usize;
    let (mut line, mut column) = (1usize, 0usize);
    for ch in text.chars() {
        column += 1;
        match ch {
            '[' | '{' | '<' | '(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(layout_error(
                        "parse",
                        format!(
                            "{what}: line {line}, column {column}: brackets nest more than {MAX_DEPTH} levels deep"
                        ),
                    ));
                }
            }
            ']' | '}' | '>' | ')' => depth = depth.saturating_sub(1),
            '\n' => {
                line += 1;
                column = 0;
            }
            _ => {}
        }
    }
    Ok(())
}
