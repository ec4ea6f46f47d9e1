//! Options.

use super::*;

/// A range of indices along one tensor dim: `start` up to `end - 1`, or to
/// the dim's end when `end` is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first index.
    pub start: u64,
    /// One past the last index; `None`: to the dim's end.
    pub end: Option<u64>,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.end {
            Some(end) => write!(f, "{}..{end}", self.start),
            None => write!(f, "{}..", self.start),
        }
    }
}

/// Reads a range: `A..B` (A up to B-1), `A..=B`, `A..` (to the end), `..B`
/// or a single index `A`.
pub fn parse_span(spec: &str) -> Result<Span, String> {
    let bad = || {
        format!(
            "bad range `{spec}`: write A..B for the indices A up to B-1 (e.g. 0..32), \
             A.. for A to the end, or one index A"
        )
    };
    let num = |t: &str| t.trim().parse::<u64>().map_err(|_| bad());
    let s = spec.trim();
    let span = match s.split_once("..") {
        Some((a, b)) => {
            let start = if a.trim().is_empty() { 0 } else { num(a)? };
            let end = match b.strip_prefix('=') {
                Some(b) => Some(num(b)?.checked_add(1).ok_or_else(bad)?),
                None if b.trim().is_empty() => None,
                None => Some(num(b)?),
            };
            Span { start, end }
        }
        None => {
            let a = num(s)?;
            Span {
                start: a,
                end: Some(a.checked_add(1).ok_or_else(bad)?),
            }
        }
    };
    if span.end.is_some_and(|end| end <= span.start) {
        return Err(format!(
            "empty range `{spec}`: A..B holds the indices A up to B-1, so B must be larger than A"
        ));
    }
    Ok(span)
}

/// The part of the tensor to draw: rows (dim0) and columns (dim1); either
/// may be left whole. A 1-d layout takes its one range from either.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// The rows (dim0); `None`: all of them.
    pub rows: Option<Span>,
    /// The columns (dim1); `None`: all of them.
    pub cols: Option<Span>,
}

impl Window {
    /// The window of `--rows` and `--cols` (`None` when neither is given);
    /// errors name the flag.
    pub fn parse(rows: Option<&str>, cols: Option<&str>) -> Result<Option<Window>, String> {
        if rows.is_none() && cols.is_none() {
            return Ok(None);
        }
        let one = |flag: &str, spec: Option<&str>| {
            spec.map(|s| parse_span(s).map_err(|e| format!("{flag}: {e}")))
                .transpose()
        };
        Ok(Some(Window {
            rows: one("--rows", rows)?,
            cols: one("--cols", cols)?,
        }))
    }
}

/// How to draw an SVG picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvgOptions {
    /// The part to draw (a tile of a large layout); `None`: all of it.
    pub window: Option<Window>,
    /// The most elements a picture shows ([`SVG_MAX_CELLS`] by default).
    pub max_cells: usize,
    /// The cell size in pixels (zoom), within [`ZOOM_PX`]; `None`: as large
    /// as keeps the grid within about 1536 × 3072 pixels (10 to 48 a cell).
    pub cell_px: Option<u32>,
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            window: None,
            max_cells: SVG_MAX_CELLS,
            cell_px: None,
        }
    }
}
