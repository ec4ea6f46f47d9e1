//! Text and data formats for layouts.
//!
//! - [`text`]: Triton's `toString` (the [`Display`](std::fmt::Display) of a
//!   [`crate::LinearLayout`]) and a parser for it.
//! - [`json`]: the shape Triton's Python binding uses for `bases` and
//!   `out_dims`.
//! - [`ttgir`]: the `#ttg.linear<{...}>` attribute.
//!
//! [`parse_any`] tells the three apart.

pub mod json;
pub mod text;
pub mod ttgir;

use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;

/// Parses a layout in any of the supported formats: JSON (starts with `{`),
/// a TTGIR `#ttg.linear` / `#triton_gpu.linear` attribute (starts with `#`),
/// or Triton's text.
pub fn parse_any(input: &str) -> Result<LinearLayout> {
    let trimmed = input.trim_start();
    if trimmed.starts_with('{') {
        json::from_json_str(trimmed)
    } else if trimmed.starts_with('#') {
        ttgir::parse_linear_attr(trimmed)
    } else if trimmed.is_empty() {
        Err(LayoutError::Parse {
            format: "layout",
            line: 1,
            column: 1,
            message: "empty input; expected JSON, a #ttg.linear attribute or Triton's layout text"
                .into(),
        })
    } else {
        input.parse()
    }
}
