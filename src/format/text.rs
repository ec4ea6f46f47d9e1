//! Triton's `LinearLayout::toString`, byte for byte, and its inverse.
//!
//! ```text
//!
//!  - register=1 -> (0, 1)
//!    register=2 -> (0, 2)
//!  - lane=1 -> (1, 0)
//! where out dims are: [dim0 (size 2), dim1 (size 4)]
//! ```
//!
//! Dim names containing line breaks, surrounding spaces or ` (size ` cannot
//! be written in this format (Triton has the same limits); JSON carries any
//! name.
//!
//! The text starts with a newline; an in-dim without bases prints as
//! ` - lane is a size 1 dimension`; a layout without in-dims prints as
//! `(empty layout)` or `(empty layout with out-dims [...])`.

use crate::dim::Dim;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;
use std::fmt::{self, Write};
use std::str::FromStr;

impl fmt::Display for LinearLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut outs = String::from("[");
        for (i, (d, size)) in self.out_dims().enumerate() {
            if i > 0 {
                outs.push_str(", ");
            }
            let _ = write!(outs, "{d} (size {size})");
        }
        outs.push(']');
        if self.num_in_dims() == 0 {
            return if self.num_out_dims() == 0 {
                f.write_str("\n(empty layout)")
            } else {
                write!(f, "\n(empty layout with out-dims {outs})")
            };
        }
        f.write_str("\n")?;
        for (d, vectors) in self.bases() {
            if vectors.is_empty() {
                writeln!(f, " - {d} is a size 1 dimension")?;
                continue;
            }
            f.write_str(" - ")?;
            for (i, basis) in vectors.iter().enumerate() {
                if i > 0 {
                    f.write_str("\n   ")?;
                }
                write!(f, "{d}={} -> (", 1u64 << i)?;
                for (k, c) in basis.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_str(")")?;
            }
            f.write_str("\n")?;
        }
        write!(f, "where out dims are: {outs}")
    }
}

impl FromStr for LinearLayout {
    type Err = LayoutError;

    /// Parses Triton's layout text (as printed by `str(layout)` or
    /// [`Display`](fmt::Display)). Leading and trailing whitespace is ignored.
    fn from_str(text: &str) -> Result<Self> {
        Parser::default().parse(text)
    }
}

#[derive(Default)]
struct Parser {
    bases: Vec<(Dim, Vec<Vec<u64>>)>,
    outs: Option<Vec<(Dim, u64)>>,
    empty: bool,
}

/// The dim `name` read at `line`, `column` (a name the interner refuses is
/// a parse error there).
fn named(name: &str, line: usize, column: usize) -> Result<Dim> {
    Dim::try_new(name).map_err(|e| err(line, column, e.to_string()))
}

fn err(line: usize, column: usize, message: impl Into<String>) -> LayoutError {
    LayoutError::Parse {
        format: "layout text",
        line,
        column,
        message: message.into(),
    }
}

impl Parser {
    fn parse(mut self, text: &str) -> Result<LinearLayout> {
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let indent = raw.len() - raw.trim_start().len();
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            if self.outs.is_some() {
                return Err(err(
                    line_no,
                    indent + 1,
                    "unexpected text after the `where out dims are:` line",
                ));
            }
            if let Some(rest) = line.strip_prefix("where out dims are:") {
                let col = indent + raw.trim_start().len() - rest.len() + 1;
                self.outs = Some(parse_out_dims(rest.trim(), line_no, col)?);
            } else if let Some(rest) = line.strip_prefix("(empty layout") {
                self.parse_empty(rest, line_no, indent)?;
            } else if indent <= 1 && line.starts_with("- ") {
                // ` - name...`: a new in-dim (names may themselves start with
                // `- `, so only the indentation tells entries apart).
                self.parse_entry(&line[2..], line_no, indent + 3, true)?;
            } else if indent >= 2 && !self.bases.is_empty() {
                self.parse_entry(line, line_no, indent + 1, false)?;
            } else {
                return Err(err(
                    line_no,
                    indent + 1,
                    "expected ` - <in-dim>=1 -> (...)`, `(empty layout)` or `where out dims are: [...]`",
                ));
            }
        }
        let outs = match (self.outs, self.empty) {
            (Some(outs), _) => outs,
            (None, true) => Vec::new(),
            (None, false) => {
                let lines = text.lines().count().max(1);
                return Err(err(
                    lines,
                    1,
                    "missing the final `where out dims are: [...]` line",
                ));
            }
        };
        LinearLayout::check_dim_counts("from_bases", self.bases.len(), outs.len())?;
        LinearLayout::from_bases_with_sizes(&self.bases, &outs, false)
    }

    fn parse_empty(&mut self, rest: &str, line_no: usize, indent: usize) -> Result<()> {
        if !self.bases.is_empty() {
            return Err(err(line_no, indent + 1, "`(empty layout)` after in-dims"));
        }
        self.empty = true;
        if rest == ")" {
            self.outs = Some(Vec::new());
            return Ok(());
        }
        let inner = rest
            .strip_prefix(" with out-dims ")
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(|| {
                err(
                    line_no,
                    indent + 14,
                    "expected `)` or ` with out-dims [...])`",
                )
            })?;
        self.outs = Some(parse_out_dims(inner, line_no, indent + 29)?);
        Ok(())
    }

    /// `name is a size 1 dimension` or `name=2^i -> (c0, c1, ...)`.
    fn parse_entry(
        &mut self,
        entry: &str,
        line_no: usize,
        col: usize,
        starts_dim: bool,
    ) -> Result<()> {
        if self.empty {
            return Err(err(line_no, col, "in-dims after `(empty layout)`"));
        }
        if let Some(name) = entry.strip_suffix(" is a size 1 dimension") {
            if !starts_dim {
                return Err(err(line_no, col, "a size-1 in-dim must start with ` - `"));
            }
            let d = named(name, line_no, col)?;
            self.start_dim(d, line_no, col)?;
            return Ok(());
        }
        // Read from the right, so names may contain `=`.
        let (head, _) = entry
            .rsplit_once(" -> ")
            .ok_or_else(|| err(line_no, col, "expected `<in-dim>=<value> -> (...)`"))?;
        let (name, _) = head
            .rsplit_once('=')
            .ok_or_else(|| err(line_no, col, "expected `<in-dim>=<value> -> (...)`"))?;
        let rest = &entry[name.len() + 1..];
        let d = named(name, line_no, col)?;
        if starts_dim {
            self.start_dim(d, line_no, col)?;
        } else if self.bases.last().map(|x| x.0) != Some(d) {
            return Err(err(
                line_no,
                col,
                format!("continuation line names in-dim `{name}`, not the current in-dim"),
            ));
        }
        let value_col = col + name.len() + 1;
        let (value, vector) = rest
            .rsplit_once(" -> ")
            .ok_or_else(|| err(line_no, value_col, "expected `<value> -> (...)`"))?;
        let value: u64 = value
            .trim()
            .parse()
            .map_err(|_| err(line_no, value_col, format!("`{value}` is not a number")))?;
        let current = &mut self
            .bases
            .last_mut()
            .ok_or_else(|| err(line_no, col, "no in-dim"))?
            .1;
        let expected = 1u64.checked_shl(current.len() as u32).unwrap_or(0);
        if value != expected {
            return Err(err(
                line_no,
                value_col,
                format!("expected {name}={expected}, the next power of two, got {value}"),
            ));
        }
        let vector_col = value_col + rest.len() - vector.len();
        let inner = vector
            .trim()
            .strip_prefix('(')
            .and_then(|v| v.strip_suffix(')'))
            .ok_or_else(|| err(line_no, vector_col, "expected a basis `(c0, c1, ...)`"))?;
        let mut basis = Vec::new();
        if !inner.trim().is_empty() {
            for part in inner.split(',') {
                let c = part.trim().parse::<u64>().map_err(|_| {
                    err(
                        line_no,
                        vector_col,
                        format!("`{}` is not a non-negative integer", part.trim()),
                    )
                })?;
                basis.push(c);
            }
        }
        current.push(basis);
        Ok(())
    }

    fn start_dim(&mut self, d: Dim, line_no: usize, col: usize) -> Result<()> {
        if self.bases.len() == crate::layout::MAX_DIMS {
            return Err(err(
                line_no,
                col,
                format!("more than {} in-dims", crate::layout::MAX_DIMS),
            ));
        }
        if self.bases.iter().any(|x| x.0 == d) {
            return Err(err(line_no, col, format!("in-dim `{d}` appears twice")));
        }
        self.bases.push((d, Vec::new()));
        Ok(())
    }
}

/// `[dim0 (size 16), dim1 (size 16)]`, read left to right so that names
/// may contain commas and parentheses.
fn parse_out_dims(text: &str, line_no: usize, col: usize) -> Result<Vec<(Dim, u64)>> {
    let mut rest = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| err(line_no, col, "expected `[<out-dim> (size <n>), ...]`"))?;
    let mut dims = Vec::new();
    while !rest.is_empty() {
        if dims.len() == crate::layout::MAX_DIMS {
            return Err(err(
                line_no,
                col,
                format!("more than {} out-dims", crate::layout::MAX_DIMS),
            ));
        }
        let (name, after) = rest.split_once(" (size ").ok_or_else(|| {
            err(
                line_no,
                col,
                format!("expected `<out-dim> (size <n>)`, got `{rest}`"),
            )
        })?;
        let (size, after) = after
            .split_once(')')
            .ok_or_else(|| err(line_no, col, "expected `)` after an out-dim size"))?;
        let size = size
            .trim()
            .parse::<u64>()
            .map_err(|_| err(line_no, col, format!("`{size}` is not a size")))?;
        dims.push((named(name, line_no, col)?, size));
        rest = match after.strip_prefix(", ") {
            Some(r) => r,
            None if after.is_empty() => after,
            None => {
                return Err(err(
                    line_no,
                    col,
                    format!("expected `, ` between out-dims, got `{after}`"),
                ));
            }
        };
    }
    Ok(dims)
}
