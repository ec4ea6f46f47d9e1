//! The TTGIR attribute `#ttg.linear<{register = [[0, 1], ...], lane = [...],
//! warp = [...], block = [...]}>` (spelled `#triton_gpu.linear` before
//! Triton 3.3).
//!
//! The attribute lists bases only; the out-dims are `dim0 … dim{rank-1}`
//! with sizes inferred from the bases (the smallest power of two above every
//! component), and the layout must be surjective on them, as Triton's parser
//! requires. Printing therefore needs standard out-dim names and sizes equal
//! to the inferred ones.

use crate::dim::Dim;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;
use std::fmt::Write;

/// A cursor over attribute text that tracks line and column for errors.
#[derive(Clone)]
pub struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    format: &'static str,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`; `format` names the syntax in errors.
    pub fn new(text: &'a str, format: &'static str) -> Self {
        Cursor {
            text,
            pos: 0,
            format,
        }
    }

    /// The unread text.
    pub fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    /// An error at the current position.
    pub fn error(&self, message: impl Into<String>) -> LayoutError {
        let before = &self.text[..self.pos];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        LayoutError::Parse {
            format: self.format,
            line,
            column,
            message: message.into(),
        }
    }

    /// An error at the position where `remaining` bytes of the text were
    /// still unread.
    pub fn error_at_remaining(&self, remaining: usize, message: impl Into<String>) -> LayoutError {
        let mut at = self.clone();
        at.pos = self.text.len().saturating_sub(remaining);
        at.error(message)
    }

    /// Skips `n` bytes (which must end on a character boundary).
    pub fn advance(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.text.len());
    }

    /// Skips whitespace.
    pub fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// Consumes `token` (after whitespace) if it is next.
    pub fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    /// Consumes `token` or fails saying it was expected.
    pub fn require(&mut self, token: &str) -> Result<()> {
        if self.eat(token) {
            Ok(())
        } else {
            let found: String = self.rest().chars().take(12).collect();
            Err(self.error(format!("expected `{token}`, found `{found}`")))
        }
    }

    /// An identifier: letters, digits, `_`, `.` and `-`.
    pub fn ident(&mut self) -> Result<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-'))
            .map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            return Err(self.error("expected a name"));
        }
        self.pos += len;
        Ok(&rest[..len])
    }

    /// A non-negative integer (an optional `: i32` type suffix is not read).
    pub fn integer(&mut self) -> Result<u64> {
        self.skip_ws();
        let rest = self.rest();
        if rest.starts_with('-') {
            return Err(self.error("expected a non-negative integer"));
        }
        let len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.error("expected an integer"));
        }
        let value = rest[..len]
            .parse::<u64>()
            .map_err(|_| self.error("integer too large"))?;
        self.pos += len;
        Ok(value)
    }

    /// `[a, b, c]` of integers.
    pub fn int_list(&mut self) -> Result<Vec<u64>> {
        self.require("[")?;
        let mut out = Vec::new();
        if self.eat("]") {
            return Ok(out);
        }
        loop {
            out.push(self.integer()?);
            if self.eat("]") {
                return Ok(out);
            }
            self.require(",")?;
        }
    }

    /// `[[a, b], [c, d]]`: a list of bases.
    pub fn basis_list(&mut self) -> Result<Vec<Vec<u64>>> {
        self.require("[")?;
        let mut out = Vec::new();
        if self.eat("]") {
            return Ok(out);
        }
        loop {
            out.push(self.int_list()?);
            if self.eat("]") {
                return Ok(out);
            }
            self.require(",")?;
        }
    }

    /// Fails unless only whitespace is left.
    pub fn finish(&mut self) -> Result<()> {
        self.skip_ws();
        if self.rest().is_empty() {
            Ok(())
        } else {
            Err(self.error("unexpected text after the attribute"))
        }
    }
}

/// Parses `{name = [[..], ..], ...}` into named bases, keeping their order.
pub fn parse_bases_dict(c: &mut Cursor<'_>) -> Result<Vec<(Dim, Vec<Vec<u64>>)>> {
    c.require("{")?;
    let mut bases: Vec<(Dim, Vec<Vec<u64>>)> = Vec::new();
    // A set keeps the check for repeats linear in the number of in-dims.
    let mut seen = rustc_hash::FxHashSet::default();
    if c.eat("}") {
        return Ok(bases);
    }
    loop {
        if bases.len() == crate::layout::MAX_DIMS {
            return Err(c.error(format!("more than {} in-dims", crate::layout::MAX_DIMS)));
        }
        let name = c.ident()?;
        let d = Dim::try_new(name).map_err(|e| c.error(e.to_string()))?;
        if !seen.insert(d) {
            return Err(c.error(format!("`{name}` appears twice")));
        }
        c.require("=")?;
        bases.push((d, c.basis_list()?));
        if c.eat("}") {
            return Ok(bases);
        }
        c.require(",")?;
    }
}

/// Builds a layout from named bases with standard out-dims `dim0..` whose
/// sizes are inferred; surjectivity is required, as in Triton's parser.
pub fn layout_from_standard_bases(bases: &[(Dim, Vec<Vec<u64>>)]) -> Result<LinearLayout> {
    let rank = bases
        .iter()
        .flat_map(|(_, v)| v.first())
        .map(Vec::len)
        .next()
        .unwrap_or(0);
    // before `dim0..dim{rank}` are interned
    LinearLayout::check_dim_counts("from_bases", bases.len(), rank)?;
    let outs: Vec<Dim> = (0..rank).map(Dim::standard).collect();
    LinearLayout::from_bases(bases, &outs)
}

/// Parses `#ttg.linear<{...}>` or `#triton_gpu.linear<{...}>`.
pub fn parse_linear_attr(text: &str) -> Result<LinearLayout> {
    let mut c = Cursor::new(text, "#ttg.linear");
    c.require("#")?;
    let name = c.ident()?;
    if name != "ttg.linear" && name != "triton_gpu.linear" {
        return Err(c.error(format!(
            "expected `ttg.linear` or `triton_gpu.linear`, found `{name}`"
        )));
    }
    c.require("<")?;
    let bases = parse_bases_dict(&mut c)?;
    c.require(">")?;
    c.finish()?;
    layout_from_standard_bases(&bases).map_err(|e| match e {
        LayoutError::Parse { .. } => e,
        other => c.error(other.to_string()),
    })
}

/// Prints `#ttg.linear<{...}>` (or with the given dialect prefix, such as
/// `triton_gpu`). Fails when the out-dims are not `dim0..` with the sizes the
/// parser would infer, since the attribute could not say so.
pub fn print_linear_attr(l: &LinearLayout, dialect: &str) -> Result<String> {
    let is_ident = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
    };
    let standard = l
        .out_dim_names()
        .enumerate()
        .all(|(i, d)| d == Dim::standard(i))
        && l.in_dim_names().all(|d| is_ident(d.name()));
    let rebuilt = layout_from_standard_bases(&l.bases()).ok();
    if !standard || rebuilt.as_ref() != Some(l) {
        return Err(LayoutError::Parse {
            format: "#ttg.linear",
            line: 1,
            column: 1,
            message: "only a surjective layout with out-dims dim0, dim1, …, inferred sizes and identifier in-dim names can be written as #ttg.linear"
                .into(),
        });
    }
    let mut s = format!("#{dialect}.linear<{{");
    for (i, (d, vectors)) in l.bases().iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{d} = [");
        for (j, v) in vectors.iter().enumerate() {
            if j > 0 {
                s.push_str(", ");
            }
            s.push('[');
            for (k, c) in v.iter().enumerate() {
                if k > 0 {
                    s.push_str(", ");
                }
                let _ = write!(s, "{c}");
            }
            s.push(']');
        }
        s.push(']');
    }
    s.push_str("}>");
    Ok(s)
}
