//! Pictures of a layout: who holds each element, as a text grid or an SVG.
//!
//! Both read the layout through its public API only. The image of each
//! hardware input bit (`apply` on a one-bit input) is a column of the map
//! over GF(2); eliminating over those columns gives, for any element, its
//! lowest holder, and the kernel gives the others. Every element a linear
//! map reaches has the same number of holders, 2^(input bits − rank), so
//! one count serves the whole picture. Nothing enumerates all inputs: a
//! window of a huge layout costs what the window costs.

use linear_layout::{Dim, LinearLayout};
use std::fmt::{self, Write};

/// The most elements an SVG picture shows unless told otherwise (64 × 64).
pub const SVG_MAX_CELLS: usize = 64 * 64;
/// The most elements the text table shows (256 × 256).
pub const TABLE_MAX_CELLS: usize = 256 * 256;
/// The cell sizes `SvgOptions::cell_px` accepts, in pixels.
pub const ZOOM_PX: std::ops::RangeInclusive<u32> = 4..=200;

/// Automatic cell sizes: as large as fits the pixel budget, within these.
const CELL_MIN_PX: u32 = 10;
const CELL_MAX_PX: u32 = 48;
/// The pixel budget of the grid when no zoom is given.
const GRID_MAX_W: u32 = 1536;
const GRID_MAX_H: u32 = 3072;
/// The advance of a monospace glyph, in em (DejaVu Sans Mono, Menlo,
/// Consolas and Courier all advance 0.60–0.61 em; a little spare).
const CHAR_EM: f64 = 0.62;
/// Line advance of a multi-line cell label, in em.
const LINE_EM: f64 = 1.15;
/// Label font sizes: no larger than this, and left out below the minimum.
const LABEL_MAX_FS: f64 = 12.0;
const LABEL_MIN_FS: f64 = 6.0;
/// A 1-d layout is drawn this many elements to a row.
const WRAP: u64 = 32;
/// Holders listed in a cell's tooltip.
const TOOLTIP_HOLDERS: u64 = 8;
const FONTS: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

/// A range of indices along one tensor dim: `start` up to `end - 1`, or to
/// the dim's end when `end` is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
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
    pub rows: Option<Span>,
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

// ---------------------------------------------------------------------------
// Hardware side: which in-dims hold elements, and how a holder reads
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// register, lane, warp, block.
    Distributed,
    /// offset, block.
    Shared,
}

/// The in-dims, packed into one flat holder index in a fixed order
/// (register lowest, then lane, warp, block; or offset, then block), so
/// that the numerically lowest holder is the lowest block, warp, lane and
/// register, in that priority.
struct Hw {
    kind: Kind,
    /// (dim, first bit, bits).
    fields: Vec<(Dim, u32, u32)>,
}

impl Hw {
    fn read(l: &LinearLayout) -> Result<Hw, String> {
        let names: Vec<Dim> = l.in_dim_names().collect();
        if names.is_empty() {
            return Err(
                "the layout has no in-dims: no register, lane, warp or offset holds \
                        its elements, so there is nothing to draw"
                    .into(),
            );
        }
        let list = names
            .iter()
            .map(|d| d.name())
            .collect::<Vec<_>>()
            .join(", ");
        let distributed = [Dim::REGISTER, Dim::LANE, Dim::WARP, Dim::BLOCK];
        let shared = [Dim::OFFSET, Dim::BLOCK];
        let kind = if names.contains(&Dim::OFFSET) {
            Kind::Shared
        } else {
            Kind::Distributed
        };
        let order: &[Dim] = match kind {
            Kind::Shared => &shared,
            Kind::Distributed => &distributed,
        };
        if let Some(bad) = names.iter().find(|d| !order.contains(d)) {
            return Err(if kind == Kind::Shared && distributed.contains(bad) {
                format!(
                    "a shared-memory layout (offset, block) is drawn by offset, but this one's \
                     in-dims ({list}) also have {bad}; a picture shows either offset and block, \
                     or register, lane, warp and block"
                )
            } else {
                format!(
                    "the layout's in-dims ({list}) include `{bad}`, which is not a hardware dim; \
                     pictures show distributed layouts (register, lane, warp, block) and \
                     shared-memory ones (offset, block)"
                )
            });
        }
        let mut fields = Vec::new();
        let mut first = 0;
        for &d in order {
            if let Ok(bits) = l.in_dim_size_log2(d) {
                fields.push((d, first, bits));
                first += bits;
            }
        }
        Ok(Hw { kind, fields })
    }

    fn bits_of(&self, d: Dim) -> u32 {
        self.fields.iter().find(|f| f.0 == d).map_or(0, |f| f.2)
    }

    fn size(&self, d: Dim) -> u128 {
        1u128 << self.bits_of(d)
    }

    /// The value of in-dim `d` in the flat holder `x`.
    fn get(&self, x: u64, d: Dim) -> u64 {
        match self.fields.iter().find(|f| f.0 == d) {
            Some(&(_, first, bits)) if bits > 0 => (x >> first) & low_mask(bits),
            _ => 0,
        }
    }

    fn lanes(&self) -> u128 {
        self.size(Dim::LANE)
    }

    fn thread(&self, x: u64) -> u128 {
        self.get(x, Dim::LANE) as u128 + self.lanes() * self.get(x, Dim::WARP) as u128
    }

    /// What a cell's colour tells apart: the warp, numbered across blocks.
    fn group(&self, x: u64) -> u128 {
        self.get(x, Dim::BLOCK) as u128 * self.size(Dim::WARP) + self.get(x, Dim::WARP) as u128
    }

    fn blocks(&self) -> bool {
        self.bits_of(Dim::BLOCK) > 0
    }

    /// The lines of a cell's label: `t33` over `r7` (with `b1` on top when
    /// there are several blocks), or the offset.
    fn label_lines(&self, x: u64) -> Vec<String> {
        let mut lines = Vec::new();
        if self.blocks() {
            lines.push(format!("b{}", self.get(x, Dim::BLOCK)));
        }
        match self.kind {
            Kind::Distributed => {
                lines.push(format!("t{}", self.thread(x)));
                lines.push(format!("r{}", self.get(x, Dim::REGISTER)));
            }
            Kind::Shared => lines.push(self.get(x, Dim::OFFSET).to_string()),
        }
        lines
    }

    /// One line: `t33 r7`, `b1 t33 r7`, `140` or `b1 o140`.
    fn compact(&self, x: u64) -> String {
        match self.kind {
            Kind::Distributed => self.label_lines(x).join(" "),
            Kind::Shared if self.blocks() => {
                format!("b{} o{}", self.get(x, Dim::BLOCK), self.get(x, Dim::OFFSET))
            }
            Kind::Shared => format!("o{}", self.get(x, Dim::OFFSET)),
        }
    }

    /// The text table's label: `T33:7` or `B1T33:7`; `140` or `B1:140`.
    fn table_label(&self, x: u64) -> String {
        let block = if self.blocks() {
            format!("B{}", self.get(x, Dim::BLOCK))
        } else {
            String::new()
        };
        match self.kind {
            Kind::Distributed => {
                format!("{block}T{}:{}", self.thread(x), self.get(x, Dim::REGISTER))
            }
            Kind::Shared if self.blocks() => format!("{block}:{}", self.get(x, Dim::OFFSET)),
            Kind::Shared => self.get(x, Dim::OFFSET).to_string(),
        }
    }

    /// In words: `thread 33 (warp 1, lane 1), register 7`.
    fn describe(&self, x: u64) -> String {
        let block = if self.blocks() {
            format!("block {}, ", self.get(x, Dim::BLOCK))
        } else {
            String::new()
        };
        match self.kind {
            Kind::Distributed => format!(
                "{block}thread {} (warp {}, lane {}), register {}",
                self.thread(x),
                self.get(x, Dim::WARP),
                self.get(x, Dim::LANE),
                self.get(x, Dim::REGISTER)
            ),
            Kind::Shared => format!("{block}offset {}", self.get(x, Dim::OFFSET)),
        }
    }

    /// "8 warps × 32 lanes × 4 registers" or "512 offsets".
    fn sizes(&self) -> String {
        let mut parts = Vec::new();
        let mut push = |d: Dim, one: &str, many: &str| {
            let n = self.size(d);
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        };
        if self.blocks() {
            push(Dim::BLOCK, "block", "blocks");
        }
        match self.kind {
            Kind::Distributed => {
                push(Dim::WARP, "warp", "warps");
                push(Dim::LANE, "lane", "lanes");
                push(Dim::REGISTER, "register", "registers");
            }
            Kind::Shared => push(Dim::OFFSET, "offset", "offsets"),
        }
        parts.join(" × ")
    }
}

fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

// ---------------------------------------------------------------------------
// Solving for holders
// ---------------------------------------------------------------------------

/// Gaussian elimination over the columns (the image of each input bit):
/// which inputs reach an element, lowest first.
struct Solver {
    /// Indexed by pivot (highest set bit): a vector of the column span and
    /// the input bits that combine to it.
    pivots: Vec<Option<(u64, u64)>>,
    /// The kernel in reduced echelon form, leading bits ascending: input
    /// combinations that reach nothing.
    kernel: Vec<u64>,
}

fn lead(v: u64) -> u32 {
    63 - v.leading_zeros()
}

impl Solver {
    fn new(cols: &[u64]) -> Solver {
        let mut s = Solver {
            pivots: vec![None; 64],
            kernel: Vec::new(),
        };
        for (j, &c) in cols.iter().enumerate() {
            let (v, combo) = s.reduce(c, 1u64 << j);
            if v == 0 {
                // Its leading bit is j: only earlier columns joined it.
                s.kernel.push(combo);
            } else {
                s.pivots[lead(v) as usize] = Some((v, combo));
            }
        }
        for i in 0..s.kernel.len() {
            for j in 0..i {
                if s.kernel[i] >> lead(s.kernel[j]) & 1 == 1 {
                    s.kernel[i] ^= s.kernel[j];
                }
            }
        }
        s
    }

    fn reduce(&self, mut v: u64, mut combo: u64) -> (u64, u64) {
        for p in (0..64).rev() {
            if v >> p & 1 == 1 {
                if let Some((pv, pc)) = self.pivots[p] {
                    v ^= pv;
                    combo ^= pc;
                }
            }
        }
        (v, combo)
    }

    /// The lowest input reaching the packed element `e`, if any.
    fn first(&self, e: u64) -> Option<u64> {
        let (rest, mut x) = self.reduce(e, 0);
        if rest != 0 {
            return None;
        }
        for &k in &self.kernel {
            if x >> lead(k) & 1 == 1 {
                x ^= k;
            }
        }
        Some(x)
    }

    /// The `m`-th lowest input reaching the same element as `first` (which
    /// must come from [`Solver::first`]); `m` below [`Solver::copies`].
    fn nth(&self, first: u64, m: u64) -> u64 {
        let mut x = first;
        for (b, &k) in self.kernel.iter().enumerate() {
            if m >> b & 1 == 1 {
                x ^= k;
            }
        }
        x
    }

    /// How many inputs reach each element that is reached at all.
    fn copies(&self) -> u128 {
        1u128 << self.kernel.len()
    }
}

// ---------------------------------------------------------------------------
// The grid both views draw
// ---------------------------------------------------------------------------

/// One drawn element.
struct Cell {
    /// Tensor coordinates, one per out-dim, in out-dim order.
    coords: Vec<u64>,
    /// The lowest holder (flat), or `None` when nothing holds it.
    holder: Option<u64>,
}

struct Grid {
    hw: Hw,
    solver: Solver,
    outs: Vec<(Dim, u64)>,
    n_rows: usize,
    n_cols: usize,
    /// The index each row and column stands for (for a 1-d layout: the
    /// first element of the row, and the offset within it).
    row_ticks: Vec<u64>,
    col_ticks: Vec<u64>,
    /// Row-major; `None` past the end of a 1-d range's last row.
    cells: Vec<Option<Cell>>,
    /// Axis names: down the rows, across the columns.
    down: String,
    across: String,
    /// "16 × 32 (dim0 × dim1)".
    shape: String,
    /// What part is drawn, when not all of it.
    part: Option<String>,
    /// Holders of each element that share its lowest holder's thread (or
    /// block): registers per thread, offsets per block.
    per_thread: u128,
}

impl Grid {
    fn copies(&self) -> u128 {
        self.solver.copies()
    }

    fn cell(&self, r: usize, c: usize) -> Option<&Cell> {
        self.cells[r * self.n_cols + c].as_ref()
    }

    fn any_unheld(&self) -> bool {
        self.cells.iter().flatten().any(|c| c.holder.is_none())
    }

    /// "every element is held 4 times: by 4 threads, one register each".
    fn copies_text(&self) -> String {
        let (copies, each) = (self.copies(), self.per_thread);
        match self.hw.kind {
            Kind::Distributed if each == copies => format!("{copies} registers of one thread"),
            Kind::Distributed if each == 1 => format!("{copies} threads, one register each"),
            Kind::Distributed => format!("{} threads, {each} registers each", copies / each.max(1)),
            Kind::Shared if each == copies => format!("{copies} offsets"),
            Kind::Shared => format!("{} blocks, {each} offsets each", copies / each.max(1)),
        }
    }

    /// The tensor coordinates of a cell in words: `dim0 4, dim1 8`.
    fn coords_text(&self, cell: &Cell) -> String {
        if self.outs.is_empty() {
            return "the one element".into();
        }
        self.outs
            .iter()
            .zip(&cell.coords)
            .map(|((d, _), v)| format!("{d} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A cell's full story, for tooltips.
    fn tooltip(&self, cell: &Cell) -> String {
        let mut s = self.coords_text(cell);
        let Some(x) = cell.holder else {
            s.push_str(": held by nobody");
            return s;
        };
        let _ = write!(s, ": {}", self.hw.describe(x));
        let copies = self.copies();
        if copies > 1 {
            let listed = copies.min(TOOLTIP_HOLDERS as u128) as u64;
            let names: Vec<String> = (0..listed)
                .map(|m| self.hw.compact(self.solver.nth(x, m)))
                .collect();
            let more = if copies > listed as u128 { ", …" } else { "" };
            let _ = write!(s, "; held ×{copies}: {}{more}", names.join(", "));
        }
        s
    }
}

/// Resolves one range against a dim of `size` indices.
fn resolve(span: Option<Span>, size: u64, flag: &str, name: Dim) -> Result<(u64, u64), String> {
    let Some(span) = span else {
        return Ok((0, size));
    };
    let end = span.end.unwrap_or(size);
    if span.start >= size || end > size {
        return Err(format!(
            "{flag} {span} runs past {name}, which has {size} indices (0..{size})"
        ));
    }
    Ok((span.start, end))
}

/// The largest part near `rows` × `cols` that holds at most `cap` elements.
fn suggest(rows: u64, cols: u64, cap: u64) -> (u64, u64) {
    let mut side = 1u64;
    while (side * 2).saturating_mul(side * 2) <= cap {
        side *= 2;
    }
    let c = cols.min(side).max(1);
    let r = rows.min(cap / c).max(1);
    (r, c)
}

/// Everything both views need: the part of the layout drawn, checked
/// against `cap` elements, and the holder of each element.
fn grid(l: &LinearLayout, window: Option<&Window>, cap: usize, noun: &str) -> Result<Grid, String> {
    let cap = cap.max(1) as u64;
    let outs: Vec<(Dim, u64)> = l.out_dims().collect();
    if outs.len() > 2 {
        let sizes = outs
            .iter()
            .map(|(d, s)| format!("{d}: {s}"))
            .collect::<Vec<_>>()
            .join(", ");
        let tail = outs[outs.len() - 2..]
            .iter()
            .map(|(_, s)| s.to_string())
            .collect::<Vec<_>>()
            .join("x");
        return Err(format!(
            "the layout has {} tensor dims ({sizes}); pictures need 1 or 2 (for a rank-{} \
             layout, draw its 2-d counterpart, e.g. convert with --shape {tail}, or merge its \
             dims into two first with eval's reshape_outs)",
            outs.len(),
            outs.len()
        ));
    }
    let hw = Hw::read(l)?;
    // Pack an element's coordinates into one word, the first out-dim lowest.
    let shifts: Vec<u32> = outs
        .iter()
        .scan(0u32, |at, &(_, size)| {
            let s = *at;
            *at += size.trailing_zeros();
            Some(s)
        })
        .collect();
    let pack = |coords: &[u64]| -> u64 {
        coords
            .iter()
            .zip(&shifts)
            .fold(0u64, |e, (&v, &s)| e | v.checked_shl(s).unwrap_or(0))
    };
    // The image of each holder bit, in the holder's own bit order.
    let in_dims: Vec<(Dim, u64)> = l.in_dims().collect();
    let mut cols = Vec::with_capacity(hw.fields.iter().map(|f| f.2 as usize).sum());
    for &(d, _, bits) in &hw.fields {
        for i in 0..bits {
            let input: Vec<(Dim, u64)> = in_dims
                .iter()
                .map(|&(e, _)| (e, if e == d { 1u64 << i } else { 0 }))
                .collect();
            let out = l.apply(&input).map_err(|e| e.to_string())?;
            let coords: Vec<u64> = out.iter().map(|x| x.1).collect();
            cols.push(pack(&coords));
        }
    }
    let solver = Solver::new(&cols);
    let per_thread = {
        let own = match hw.kind {
            Kind::Distributed => Dim::REGISTER,
            Kind::Shared => Dim::OFFSET,
        };
        let (first, bits) = hw
            .fields
            .iter()
            .find(|f| f.0 == own)
            .map_or((0, 0), |f| (f.1 as usize, f.2 as usize));
        Solver::new(&cols[first..first + bits]).copies()
    };

    // Rows are the lower-numbered dim when both are named dimN.
    let number = |d: Dim| {
        d.name()
            .strip_prefix("dim")
            .and_then(|n| n.parse::<u64>().ok())
    };
    let (row_k, col_k) = match (outs.first(), outs.get(1)) {
        (Some(a), Some(b)) if matches!((number(a.0), number(b.0)), (Some(x), Some(y)) if x > y) => {
            (1, 0)
        }
        _ => (0, 1),
    };
    let mut cells = Vec::new();
    let holder_at = |coords: Vec<u64>| {
        let holder = solver.first(pack(&coords));
        Some(Cell { coords, holder })
    };
    let g = match outs.len() {
        0 => {
            if window.is_some_and(|w| w.rows.is_some() || w.cols.is_some()) {
                return Err("the layout has no tensor dims (it holds one element): \
                            --rows and --cols do not apply"
                    .into());
            }
            cells.push(holder_at(Vec::new()));
            (
                1,
                1,
                vec![0],
                vec![0],
                String::new(),
                String::new(),
                "a single element".to_string(),
                None,
            )
        }
        1 => {
            let (name, size) = outs[0];
            let (flag, span) = match window.map(|w| (w.rows, w.cols)) {
                Some((Some(_), Some(_))) => {
                    return Err(format!(
                        "the layout has one tensor dim, {name}: give its range with --rows \
                         or --cols, not both"
                    ));
                }
                Some((Some(r), None)) => ("--rows", Some(r)),
                Some((None, Some(c))) => ("--cols", Some(c)),
                _ => ("--rows", None),
            };
            let (a, b) = resolve(span, size, flag, name)?;
            let count = b - a;
            if count > cap {
                let eg = format!("--rows {a}..{}", a + cap);
                return Err(if span.is_none() {
                    format!(
                        "the layout covers {size} elements of {name}, more than the {cap} a \
                         {noun} shows; draw a part with --rows A..B, e.g. {eg}"
                    )
                } else {
                    format!(
                        "the part asked for, {name} {a}..{b}, holds {count} elements, more than \
                         the {cap} a {noun} shows; draw a smaller part, e.g. {eg}"
                    )
                });
            }
            let wrap = count.min(WRAP);
            let n_rows = count.div_ceil(wrap);
            for r in 0..n_rows {
                for c in 0..wrap {
                    let i = a + r * wrap + c;
                    cells.push(if i < b { holder_at(vec![i]) } else { None });
                }
            }
            let wrapping = (count > WRAP).then(|| format!("{wrap} to a row"));
            let range = ((a, b) != (0, size)).then(|| format!("{name} {a}..{b} of {size}"));
            let part = match (range, wrapping) {
                (Some(r), Some(w)) => Some(format!("{r}, {w}")),
                (r, w) => r.or(w),
            };
            (
                n_rows as usize,
                wrap as usize,
                (0..n_rows).map(|r| a + r * wrap).collect(),
                (0..wrap).collect(),
                format!("{name} ↓"),
                "+ column →".to_string(),
                format!("{size} ({name})"),
                part,
            )
        }
        _ => {
            let (rd, rs) = outs[row_k];
            let (cd, cs) = outs[col_k];
            let w = window.copied().unwrap_or_default();
            let (ra, rb) = resolve(w.rows, rs, "--rows", rd)?;
            let (ca, cb) = resolve(w.cols, cs, "--cols", cd)?;
            let (nr, nc) = (rb - ra, cb - ca);
            let count = nr as u128 * nc as u128;
            if count > cap as u128 {
                let (sr, sc) = suggest(nr, nc, cap);
                let eg = format!("--rows {ra}..{} --cols {ca}..{}", ra + sr, ca + sc);
                return Err(if window.is_none() {
                    format!(
                        "the layout covers {rs} x {cs} = {count} elements, more than the {cap} \
                         a {noun} shows; draw a part with --rows A..B --cols C..D, e.g. {eg}"
                    )
                } else {
                    format!(
                        "the part asked for, rows {ra}..{rb} x cols {ca}..{cb}, holds {count} \
                         elements, more than the {cap} a {noun} shows; draw a smaller part, \
                         e.g. {eg}"
                    )
                });
            }
            for r in ra..rb {
                for c in ca..cb {
                    let mut coords = vec![0; 2];
                    coords[row_k] = r;
                    coords[col_k] = c;
                    cells.push(holder_at(coords));
                }
            }
            let part = ((ra, rb, ca, cb) != (0, rs, 0, cs))
                .then(|| format!("{rd} {ra}..{rb} of {rs}, {cd} {ca}..{cb} of {cs}"));
            (
                nr as usize,
                nc as usize,
                (ra..rb).collect(),
                (ca..cb).collect(),
                format!("{rd} ↓"),
                format!("{cd} →"),
                format!("{rs} × {cs} ({rd} × {cd})"),
                part,
            )
        }
    };
    let (n_rows, n_cols, row_ticks, col_ticks, down, across, shape, part) = g;
    Ok(Grid {
        hw,
        solver,
        outs,
        n_rows,
        n_cols,
        row_ticks,
        col_ticks,
        cells,
        down,
        across,
        shape,
        part,
        per_thread,
    })
}

// ---------------------------------------------------------------------------
// The text table
// ---------------------------------------------------------------------------

/// A text grid: `T<thread>:<register>` (thread = lane + lanes·warp) or the
/// shared-memory offset of each element, for the whole layout or a window;
/// at most [`TABLE_MAX_CELLS`] elements. The error says why a layout has
/// no table (rank, in-dims, size).
pub fn holders_table(l: &LinearLayout, window: Option<&Window>) -> Result<String, String> {
    let g = grid(l, window, TABLE_MAX_CELLS, "table")?;
    let hw = &g.hw;
    let mut s = String::new();
    let part = g.part.as_ref().map_or(String::new(), |p| format!("; {p}"));
    match hw.kind {
        Kind::Shared => {
            let _ = writeln!(
                s,
                "Shared-memory offset of each element ({}{part}):",
                hw.sizes()
            );
        }
        Kind::Distributed => {
            let _ = writeln!(
                s,
                "Who holds each element ({}T<thread>:<register>, thread = lane + {}·warp; \
                 {} registers, {} lanes, {} warps{part}):",
                if hw.blocks() { "B<block>" } else { "" },
                hw.lanes(),
                hw.size(Dim::REGISTER),
                hw.lanes(),
                hw.size(Dim::WARP)
            );
        }
    }
    let labels: Vec<String> = g
        .cells
        .iter()
        .map(|c| match c {
            Some(Cell {
                holder: Some(x), ..
            }) => hw.table_label(*x),
            Some(_) => "-".into(),
            None => String::new(),
        })
        .collect();
    let width = labels
        .iter()
        .map(|l| l.len())
        .chain(g.col_ticks.iter().map(|t| t.to_string().len()))
        .max()
        .unwrap_or(1)
        + 1;
    let row_width = g
        .row_ticks
        .iter()
        .map(|t| t.to_string().len() + 1)
        .max()
        .unwrap_or(1)
        .max(6);
    let _ = write!(s, "{:>row_width$}", "");
    for t in &g.col_ticks {
        let _ = write!(s, "{t:>width$}");
    }
    s.push('\n');
    for r in 0..g.n_rows {
        let _ = write!(s, "{:>row_width$}", g.row_ticks[r]);
        let row = &labels[r * g.n_cols..(r + 1) * g.n_cols];
        let used = row.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
        for label in &row[..used] {
            let _ = write!(s, "{label:>width$}");
        }
        s.push('\n');
    }
    if g.copies() > 1 {
        let _ = writeln!(
            s,
            "(every {}element is held {} times: by {}; the lowest holder is shown)",
            if g.any_unheld() { "held " } else { "" },
            g.copies(),
            g.copies_text()
        );
    }
    if g.any_unheld() {
        let _ = writeln!(s, "(`-`: nobody holds that element)");
    }
    Ok(s)
}

// ---------------------------------------------------------------------------
// Colours
// ---------------------------------------------------------------------------

/// 32 light colours for warps, black text readable on each (contrast at
/// least 6.7:1): 12 hues at three lightness levels of OKLCH, ordered so
/// that each next colour is the farthest (in OKLab) from those before it.
/// The first 8 are at least 0.14 apart, all 32 at least 0.05.
const PALETTE: [&str; 32] = [
    "#b0deff", "#df7b07", "#a67fec", "#04b199", "#fe8fb6", "#aec353", "#fecca6", "#02a3eb",
    "#a9eab3", "#04cee5", "#fdc0f9", "#9ab5fe", "#e46897", "#f99f54", "#8fa506", "#cc70c9",
    "#ea6c5d", "#40b25d", "#6f91fa", "#bb9205", "#18d4b8", "#dcb23a", "#e896e4", "#72d084",
    "#ff9688", "#c2a5fe", "#09abbe", "#61c2ff", "#ddcffe", "#81eafb", "#fec5d7", "#d0e195",
];
/// Hatch patterns laid over the colour for warps 32 and up.
const PATTERNS: u128 = 6;
const NOBODY_FILL: &str = "#e6e6e6";

/// The fill of a warp: a palette colour and, past the palette, a pattern
/// (1..=PATTERNS; 0: none). Distinct for the first 32 × 7 warps.
fn paint(group: u128) -> (&'static str, u128) {
    let colour = PALETTE[(group % PALETTE.len() as u128) as usize];
    (colour, (group / PALETTE.len() as u128) % (PATTERNS + 1))
}

fn pattern_def(p: u128) -> String {
    let stroke = r##"stroke="#000" stroke-opacity="0.45" stroke-width="1.2""##;
    let body = match p {
        1 => format!(r#"<path d="M-1 1L1 -1M0 6L6 0M5 7L7 5" {stroke}/>"#),
        2 => format!(r#"<path d="M-1 5L1 7M0 0L6 6M5 -1L7 1" {stroke}/>"#),
        3 => format!(r#"<path d="M0 3H6" {stroke}/>"#),
        4 => format!(r#"<path d="M3 0V6" {stroke}/>"#),
        5 => r##"<circle cx="3" cy="3" r="1.3" fill="#000" fill-opacity="0.45"/>"##.to_string(),
        _ => format!(r#"<path d="M0 3H6M3 0V6" {stroke}/>"#),
    };
    format!(
        r#"<pattern id="hatch{p}" patternUnits="userSpaceOnUse" width="6" height="6">{body}</pattern>"#
    )
}

/// The colour of offset `o` of `n`: light blue through green and yellow
/// to orange, so the order of memory reads off the picture.
fn ramp(o: u64, n: u128) -> String {
    const STOPS: [(u8, u8, u8); 4] = [
        (0xc6, 0xdb, 0xef),
        (0xc7, 0xe9, 0xc0),
        (0xff, 0xf3, 0xb0),
        (0xfd, 0xc0, 0x8a),
    ];
    let span = (n.max(2) - 1) as f64;
    let t = (o as f64 / span).clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (t.floor() as usize).min(STOPS.len() - 2);
    let f = t - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

// ---------------------------------------------------------------------------
// The SVG picture
// ---------------------------------------------------------------------------

/// XML text: `&`, `<`, `>` and `"` escaped.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Pixels a monospace text of `chars` characters takes at `fs`.
fn text_w(chars: usize, fs: f64) -> f64 {
    chars as f64 * CHAR_EM * fs
}

fn n(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r}")
    }
}

/// The label font size for `lines` lines of up to `chars` characters in a
/// square `cell`, or `None` when it would be too small to read. With a
/// corner mark of side `mark`, the text keeps clear of it either
/// vertically or horizontally.
fn label_fs(cell: f64, chars: usize, lines: usize, mark: Option<f64>) -> Option<f64> {
    let pad = 2.0;
    let fit = |w: f64, h: f64| {
        (w / text_w(chars.max(1), 1.0))
            .min(h / (lines.max(1) as f64 * LINE_EM))
            .min(LABEL_MAX_FS)
    };
    let mut fs = fit(cell - 2.0 * pad, cell - 2.0 * pad);
    if let Some(t) = mark {
        fs = fit(cell - 2.0 * pad, cell - 2.0 * t).max(fit(cell - 2.0 * t, cell - 2.0 * pad));
    }
    let fs = (fs * 2.0).floor() / 2.0;
    (fs >= LABEL_MIN_FS).then_some(fs)
}

/// How a picture is laid out; the SVG is written from it.
struct Plan {
    cell: u32,
    /// The label font size; `None`: labels left out (cells too small).
    fs: Option<f64>,
    /// The side of the corner mark on elements held more than once.
    mark: Option<f64>,
}

fn auto_cell(g: &Grid) -> Result<u32, String> {
    let by_w = GRID_MAX_W / g.n_cols.max(1) as u32;
    let by_h = GRID_MAX_H / g.n_rows.max(1) as u32;
    let cell = by_w.min(by_h).min(CELL_MAX_PX);
    if cell < CELL_MIN_PX {
        return Err(format!(
            "a picture of {} x {} cells would need cells under {CELL_MIN_PX} px to stay within \
             {GRID_MAX_W} x {GRID_MAX_H} px; draw a part with --rows A..B --cols C..D, or set \
             the cell size with --zoom PX",
            g.n_rows, g.n_cols
        ));
    }
    Ok(cell)
}

fn plan(g: &Grid, cell: u32) -> Plan {
    let c = cell as f64;
    let mark = (g.copies() > 1).then(|| (c * 0.22).clamp(3.0, 10.0).round());
    let mut chars = 1;
    let mut lines = 1;
    for x in g.cells.iter().flatten().filter_map(|c| c.holder) {
        let ls = g.hw.label_lines(x);
        lines = lines.max(ls.len());
        chars = chars.max(ls.iter().map(|l| l.chars().count()).max().unwrap_or(1));
    }
    Plan {
        cell,
        fs: label_fs(c, chars, lines, mark),
        mark,
    }
}

/// The picture as SVG: a grid of cells coloured by warp (or offset),
/// labelled with their lowest holder, with axis names and ticks, lines
/// between threads and between warps, a corner mark on elements held more
/// than once, a tooltip per cell, and a legend. At most `opts.max_cells`
/// elements; the error says why a layout cannot be drawn.
pub fn svg(layout: &LinearLayout, opts: &SvgOptions) -> Result<String, String> {
    if let Some(z) = opts.cell_px {
        if !ZOOM_PX.contains(&z) {
            return Err(format!(
                "a cell of {z} px is out of range: give {} to {} px",
                ZOOM_PX.start(),
                ZOOM_PX.end()
            ));
        }
    }
    let g = grid(layout, opts.window.as_ref(), opts.max_cells, "picture")?;
    let cell = match opts.cell_px {
        Some(z) => z,
        None => auto_cell(&g)?,
    };
    Ok(render(&g, &plan(&g, cell)))
}

/// Legend rows: text runs and swatches, laid left to right and wrapped.
enum Item {
    Text(String),
    /// A fill (colour, pattern) with a caption.
    Swatch(String, u128, String),
    /// The corner mark, with a caption.
    Mark(String),
}

fn item_w(item: &Item, fs: f64) -> f64 {
    match item {
        Item::Text(t) => text_w(t.chars().count(), fs),
        Item::Swatch(_, _, t) | Item::Mark(t) => 16.0 + text_w(t.chars().count(), fs),
    }
}

fn render(g: &Grid, p: &Plan) -> String {
    let hw = &g.hw;
    let cell = p.cell as f64;
    let pad = 12.0;
    let (title_fs, small_fs) = (13.0, 11.0);
    let tick_fs = 10.0f64.min(cell * 0.9).max(7.0);

    // Ticks: every k-th, k the smallest power of two that keeps them apart.
    let digits = |ts: &[u64]| ts.iter().map(|t| t.to_string().len()).max().unwrap_or(1);
    let mut col_step = 1u64;
    while text_w(digits(&g.col_ticks), tick_fs) + 4.0 > col_step as f64 * cell {
        col_step *= 2;
    }
    let mut row_step = 1u64;
    while tick_fs * 1.1 > row_step as f64 * cell {
        row_step *= 2;
    }
    let wrapped = g.outs.len() == 1;
    let show_row = |i: usize| {
        if wrapped {
            i as u64 % row_step == 0
        } else {
            g.row_ticks[i] % row_step == 0
        }
    };
    let show_col = |i: usize| g.col_ticks[i] % col_step == 0;

    // Geometry, top to bottom: title, part, axis names, ticks, grid, legend.
    let title = match hw.kind {
        Kind::Distributed => format!("Who holds each element of a {} layout", g.shape),
        Kind::Shared => format!(
            "Shared-memory offset of each element of a {} layout",
            g.shape
        ),
    };
    let subtitle = match &g.part {
        Some(part) => format!("{}; drawn: {part}", hw.sizes()),
        None => hw.sizes(),
    };
    let mut y = pad + title_fs;
    let title_y = y;
    y += 16.0;
    let subtitle_y = y;
    y += 20.0;
    let axis_y = y;
    y += tick_fs + 4.0;
    let tick_y = y;
    let gy = y + 5.0;
    let row_tick_w = text_w(digits(&g.row_ticks), tick_fs);
    let down_w = text_w(g.down.chars().count(), small_fs);
    let gx = (pad + row_tick_w.max(down_w) + 8.0).round();
    let grid_w = g.n_cols as f64 * cell;
    let grid_h = g.n_rows as f64 * cell;

    // Legend.
    let mut legend: Vec<Vec<Item>> = Vec::new();
    // The example explained: the holder with the most non-zero fields.
    let example = g
        .cells
        .iter()
        .flatten()
        .filter_map(|c| c.holder)
        .fold(None, |best: Option<(usize, u64)>, x| {
            let score = hw.fields.iter().filter(|f| hw.get(x, f.0) > 0).count();
            match best {
                Some((b, _)) if b >= score => best,
                _ => Some((score, x)),
            }
        })
        .map(|(_, x)| x);
    if let Some(x) = example {
        let what = match hw.kind {
            Kind::Distributed => format!("{}; thread = lane + {}·warp", hw.describe(x), hw.lanes()),
            Kind::Shared => format!("the element is stored at {}", hw.describe(x)),
        };
        let text = if p.fs.is_some() {
            format!("cell label {} = {what}", hw.label_lines(x).join(" over "))
        } else {
            format!("hover a cell for its holders, e.g. {what}")
        };
        legend.push(vec![Item::Text(text)]);
    }
    match hw.kind {
        Kind::Distributed => {
            let mut groups: Vec<u128> = g
                .cells
                .iter()
                .flatten()
                .filter_map(|c| c.holder.map(|x| hw.group(x)))
                .collect();
            groups.sort_unstable();
            groups.dedup();
            let mut row = vec![Item::Text(if hw.blocks() {
                "colour = block and warp:".into()
            } else {
                "colour = warp:".into()
            })];
            let warps = hw.size(Dim::WARP);
            for grp in groups {
                let (colour, pattern) = paint(grp);
                let name = if hw.blocks() {
                    format!("b{}w{}", grp / warps, grp % warps)
                } else {
                    format!("w{grp}")
                };
                row.push(Item::Swatch(colour.into(), pattern, name));
            }
            legend.push(row);
        }
        Kind::Shared => {
            let n = hw.size(Dim::OFFSET);
            let mut row = vec![Item::Text("colour = offset:".into())];
            for k in 0..5u128 {
                let o = (k * (n - 1) / 4) as u64;
                row.push(Item::Swatch(ramp(o, n), 0, o.to_string()));
            }
            legend.push(row);
        }
    }
    if g.copies() > 1 {
        let who = match hw.kind {
            Kind::Distributed => "(thread, register) pairs",
            Kind::Shared => "offsets",
        };
        let listed = if g.copies() > TOOLTIP_HOLDERS as u128 {
            format!("the first {TOOLTIP_HOLDERS}")
        } else {
            "all".to_string()
        };
        legend.push(vec![Item::Mark(format!(
            "every {}element is held by {} {who}: {}; the label names the lowest, the tooltip \
             {listed}",
            if g.any_unheld() { "held " } else { "" },
            g.copies(),
            g.copies_text()
        ))]);
    }
    if g.any_unheld() {
        legend.push(vec![Item::Swatch(
            NOBODY_FILL.into(),
            0,
            "held by nobody".into(),
        )]);
    }
    if p.fs.is_none() {
        legend.push(vec![Item::Text(format!(
            "labels left out: {} px cells are too small (--zoom 32 draws larger cells; \
             --rows/--cols a part)",
            p.cell
        ))]);
    }
    // Lay the legend out in rows no wider than the grid (or 640 px).
    let legend_w = grid_w.max(640.0);
    let mut placed: Vec<(f64, f64, &Item)> = Vec::new();
    let mut ly = gy + grid_h + 24.0;
    let mut widest = 0.0f64;
    for row in &legend {
        let mut lx = gx;
        for (i, item) in row.iter().enumerate() {
            let w = item_w(item, small_fs);
            if i > 0 && lx + w > gx + legend_w {
                ly += 18.0;
                lx = gx + 16.0;
            }
            placed.push((lx, ly, item));
            lx += w + 10.0;
            widest = widest.max(lx - 10.0);
        }
        ly += 20.0;
    }
    let width = (gx + grid_w + pad)
        .max(widest + pad)
        .max(gx + text_w(g.across.chars().count(), small_fs) + pad)
        .max(pad * 2.0 + text_w(title.chars().count(), title_fs))
        .max(pad * 2.0 + text_w(subtitle.chars().count(), small_fs))
        .ceil();
    let height = (ly - 4.0).ceil();

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONTS}" font-size="{fs}">"#,
        w = n(width),
        h = n(height),
        fs = n(small_fs)
    );
    let _ = writeln!(s, "<title>{}</title>", esc(&title));
    let mut patterns: Vec<u128> = g
        .cells
        .iter()
        .flatten()
        .filter_map(|c| c.holder)
        .filter(|_| hw.kind == Kind::Distributed)
        .map(|x| paint(hw.group(x)).1)
        .filter(|&p| p > 0)
        .collect();
    patterns.sort_unstable();
    patterns.dedup();
    if !patterns.is_empty() {
        s.push_str("<defs>");
        for &pt in &patterns {
            s.push_str(&pattern_def(pt));
        }
        s.push_str("</defs>\n");
    }
    let _ = writeln!(
        s,
        r#"<rect width="{}" height="{}" fill="white"/>"#,
        n(width),
        n(height)
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" font-size="{}" font-weight="bold">{}</text>"#,
        n(pad),
        n(title_y),
        n(title_fs),
        esc(&title)
    );
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" fill="#444">{}</text>"##,
        n(pad),
        n(subtitle_y),
        esc(&subtitle)
    );
    // Axis names and ticks.
    let _ = writeln!(
        s,
        r#"<text class="axis" x="{}" y="{}" text-anchor="middle" font-weight="bold">{}</text>"#,
        n(gx + (grid_w / 2.0).max(text_w(g.across.chars().count(), small_fs) / 2.0)),
        n(axis_y),
        esc(&g.across)
    );
    let _ = writeln!(
        s,
        r#"<text class="axis" x="{}" y="{}" text-anchor="end" font-weight="bold">{}</text>"#,
        n(gx - 6.0),
        n(axis_y),
        esc(&g.down)
    );
    let _ = writeln!(s, r##"<g font-size="{}" fill="#333">"##, n(tick_fs));
    for (i, t) in g.col_ticks.iter().enumerate() {
        if show_col(i) && !g.outs.is_empty() {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle">{t}</text>"#,
                n(gx + (i as f64 + 0.5) * cell),
                n(tick_y)
            );
        }
    }
    for (i, t) in g.row_ticks.iter().enumerate() {
        if show_row(i) && !g.outs.is_empty() {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="end">{t}</text>"#,
                n(gx - 5.0),
                n(gy + (i as f64 + 0.5) * cell + tick_fs * 0.35)
            );
        }
    }
    s.push_str("</g>\n");

    // Cells.
    let _ = writeln!(
        s,
        r#"<g class="cells" text-anchor="middle" font-size="{}">"#,
        n(p.fs.unwrap_or(small_fs))
    );
    for r in 0..g.n_rows {
        for c in 0..g.n_cols {
            let Some(cl) = g.cell(r, c) else { continue };
            let (x0, y0) = (gx + c as f64 * cell, gy + r as f64 * cell);
            let (fill, pattern) = match (cl.holder, hw.kind) {
                (None, _) => (NOBODY_FILL.to_string(), 0),
                (Some(x), Kind::Distributed) => {
                    let (colour, pattern) = paint(hw.group(x));
                    (colour.to_string(), pattern)
                }
                (Some(x), Kind::Shared) => (ramp(hw.get(x, Dim::OFFSET), hw.size(Dim::OFFSET)), 0),
            };
            let _ = write!(
                s,
                r#"<g><title>{}</title><rect x="{}" y="{}" width="{}" height="{}" fill="{fill}"/>"#,
                esc(&g.tooltip(cl)),
                n(x0),
                n(y0),
                n(cell),
                n(cell)
            );
            if pattern > 0 {
                let _ = write!(
                    s,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="url(#hatch{pattern})"/>"#,
                    n(x0),
                    n(y0),
                    n(cell),
                    n(cell)
                );
            }
            if let (Some(fs), Some(x)) = (p.fs, cl.holder) {
                // On a hatched cell, a light halo keeps the text readable.
                let halo = if pattern > 0 {
                    r##" stroke="#fff" stroke-width="3" stroke-opacity="0.85" paint-order="stroke""##
                } else {
                    ""
                };
                let lines = hw.label_lines(x);
                let lh = fs * LINE_EM;
                let mid = (lines.len() as f64 - 1.0) / 2.0;
                for (i, line) in lines.iter().enumerate() {
                    let _ = write!(
                        s,
                        r#"<text class="label" x="{}" y="{}"{halo}>{}</text>"#,
                        n(x0 + cell / 2.0),
                        n(y0 + cell / 2.0 + (i as f64 - mid) * lh + fs * 0.35),
                        esc(line)
                    );
                }
            }
            s.push_str("</g>\n");
        }
    }
    s.push_str("</g>\n");

    // Lines between cells: light within a thread, darker between threads,
    // heavy between warps (or between held and unheld).
    let register_mask = hw
        .fields
        .iter()
        .find(|f| f.0 == Dim::REGISTER)
        .map_or(0, |&(_, first, bits)| {
            low_mask(bits).checked_shl(first).unwrap_or(0)
        });
    let owner = |r: usize, c: usize| -> Option<(u128, u64)> {
        let x = g.cell(r, c)?.holder?;
        Some(match hw.kind {
            Kind::Distributed => (hw.group(x), x & !register_mask),
            Kind::Shared => (0, 0),
        })
    };
    let class = |a: Option<(u128, u64)>, b: Option<(u128, u64)>| match (a, b) {
        (Some(a), Some(b)) if a == b => 0,
        (Some(a), Some(b)) if a.0 == b.0 => 1,
        (None, None) => 0,
        _ => 2,
    };
    let mut paths = [String::new(), String::new(), String::new()];
    for r in 0..g.n_rows {
        for c in 0..g.n_cols {
            if g.cell(r, c).is_none() {
                continue;
            }
            let (x0, y0) = (gx + c as f64 * cell, gy + r as f64 * cell);
            if c + 1 < g.n_cols && g.cell(r, c + 1).is_some() {
                let k = class(owner(r, c), owner(r, c + 1));
                let _ = write!(paths[k], "M{} {}v{}", n(x0 + cell), n(y0), n(cell));
            }
            if r + 1 < g.n_rows && g.cell(r + 1, c).is_some() {
                let k = class(owner(r, c), owner(r + 1, c));
                let _ = write!(paths[k], "M{} {}h{}", n(x0), n(y0 + cell), n(cell));
            }
            // The outline: edges with no cell beyond them.
            if c + 1 == g.n_cols || g.cell(r, c + 1).is_none() {
                let _ = write!(paths[2], "M{} {}v{}", n(x0 + cell), n(y0), n(cell));
            }
            if r + 1 == g.n_rows || g.cell(r + 1, c).is_none() {
                let _ = write!(paths[2], "M{} {}h{}", n(x0), n(y0 + cell), n(cell));
            }
            if c == 0 {
                let _ = write!(paths[2], "M{} {}v{}", n(x0), n(y0), n(cell));
            }
            if r == 0 {
                let _ = write!(paths[2], "M{} {}h{}", n(x0), n(y0), n(cell));
            }
        }
    }
    let strokes = [("#8a8a8a", 0.5), ("#333", 1.0), ("#000", 2.0)];
    for (path, (colour, w)) in paths.iter().zip(strokes) {
        if !path.is_empty() {
            let _ = writeln!(
                s,
                r#"<path d="{path}" fill="none" stroke="{colour}" stroke-width="{}" stroke-linecap="square"/>"#,
                n(w)
            );
        }
    }

    // Corner marks on elements held more than once.
    if let Some(t) = p.mark {
        s.push_str("<g fill=\"#111\">\n");
        for r in 0..g.n_rows {
            for c in 0..g.n_cols {
                if g.cell(r, c).is_some_and(|cl| cl.holder.is_some()) {
                    let (x1, y0) = (gx + (c + 1) as f64 * cell, gy + r as f64 * cell);
                    let _ = writeln!(
                        s,
                        r#"<path class="dup" d="M{} {}h{}v{}z"/>"#,
                        n(x1 - t),
                        n(y0),
                        n(t),
                        n(t)
                    );
                }
            }
        }
        s.push_str("</g>\n");
    }

    // Legend.
    s.push_str("<g class=\"legend\">\n");
    for (x, y, item) in placed {
        match item {
            Item::Text(t) => {
                let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, n(x), n(y), esc(t));
            }
            Item::Swatch(colour, pattern, t) => {
                let _ = write!(
                    s,
                    r##"<rect x="{}" y="{}" width="12" height="12" fill="{colour}" stroke="#333" stroke-width="0.5"/>"##,
                    n(x),
                    n(y - 10.0)
                );
                if *pattern > 0 {
                    let _ = write!(
                        s,
                        r#"<rect x="{}" y="{}" width="12" height="12" fill="url(#hatch{pattern})"/>"#,
                        n(x),
                        n(y - 10.0)
                    );
                }
                let _ = writeln!(
                    s,
                    r#"<text x="{}" y="{}">{}</text>"#,
                    n(x + 16.0),
                    n(y),
                    esc(t)
                );
            }
            Item::Mark(t) => {
                let _ = write!(
                    s,
                    r##"<rect x="{}" y="{}" width="12" height="12" fill="white" stroke="#333" stroke-width="0.5"/><path d="M{} {}h6v6z" fill="#111"/>"##,
                    n(x),
                    n(y - 10.0),
                    n(x + 6.0),
                    n(y - 10.0)
                );
                let _ = writeln!(
                    s,
                    r#"<text x="{}" y="{}">{}</text>"#,
                    n(x + 16.0),
                    n(y),
                    esc(t)
                );
            }
        }
    }
    s.push_str("</g>\n</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use linear_layout::dim;
    use linear_layout::triton::{Conversion, Defs, Release, parse_attr, to_linear_layout};

    /// A layout from its bases, `(in-dim, [[dim0, dim1, ...], ...])`, and
    /// out-dim sizes; not necessarily surjective.
    fn layout(bases: &[(&str, Vec<Vec<u64>>)], outs: &[(&str, u64)]) -> LinearLayout {
        let bases: Vec<(Dim, Vec<Vec<u64>>)> =
            bases.iter().map(|(d, b)| (dim(d), b.clone())).collect();
        let outs: Vec<(Dim, u64)> = outs.iter().map(|&(d, s)| (dim(d), s)).collect();
        LinearLayout::from_bases_with_sizes(&bases, &outs, false).unwrap()
    }

    /// `bits` bases of in-dim, each a power of two along one out-dim.
    fn units(k: usize, bits: u32, first: u32, rank: usize) -> Vec<Vec<u64>> {
        (0..bits)
            .map(|i| {
                let mut v = vec![0; rank];
                v[k] = 1 << (first + i);
                v
            })
            .collect()
    }

    const E1: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], \
                      warpsPerCTA = [8, 1], order = [1, 0]}>";

    fn convert(attr: &str, shape: &[u64]) -> LinearLayout {
        let attr = parse_attr(attr, &Defs::new()).unwrap();
        match to_linear_layout(&attr, shape, Release::LATEST, None).unwrap() {
            Conversion::Layout(l) => l,
            Conversion::NoLayout(why) => panic!("no layout: {why}"),
        }
    }

    fn draw(l: &LinearLayout) -> String {
        svg(l, &SvgOptions::default()).unwrap()
    }

    /// A small XML check: tags nest and close, attributes are quoted,
    /// text and attribute values hold only escaped `&` and `<`, and one
    /// root element holds everything.
    fn well_formed(xml: &str) -> Result<(), String> {
        fn entities(s: &str) -> Result<(), String> {
            for (i, _) in s.match_indices('&') {
                let rest = &s[i..];
                if !["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"]
                    .iter()
                    .any(|e| rest.starts_with(e))
                {
                    return Err(format!("bare & in {s:?}"));
                }
            }
            Ok(())
        }
        let mut stack: Vec<String> = Vec::new();
        let mut rest = xml;
        let mut roots = 0;
        while let Some(i) = rest.find('<') {
            let text = &rest[..i];
            if stack.is_empty() && !text.trim().is_empty() {
                return Err(format!("text outside the root: {text:?}"));
            }
            entities(text)?;
            rest = &rest[i + 1..];
            let end = rest.find('>').ok_or("a tag never closes")?;
            let tag = &rest[..end];
            rest = &rest[end + 1..];
            if tag.contains('<') {
                return Err(format!("`<` inside a tag: {tag:?}"));
            }
            if tag.matches('"').count() % 2 != 0 {
                return Err(format!("unbalanced quotes: {tag:?}"));
            }
            for (k, value) in tag.split('"').enumerate() {
                if k % 2 == 1 {
                    entities(value)?;
                } else if k > 0 && !value.is_empty() && !value.starts_with([' ', '/']) {
                    return Err(format!("attributes run together: {tag:?}"));
                }
            }
            if let Some(name) = tag.strip_prefix('/') {
                match stack.pop() {
                    Some(open) if open == name.trim() => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
            } else {
                let name: String = tag
                    .chars()
                    .take_while(|c| !c.is_whitespace() && *c != '/')
                    .collect();
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
                    return Err(format!("bad tag name in {tag:?}"));
                }
                if stack.is_empty() {
                    roots += 1;
                }
                if !tag.ends_with('/') {
                    stack.push(name);
                }
            }
        }
        if !stack.is_empty() {
            return Err(format!("unclosed: {stack:?}"));
        }
        if !rest.trim().is_empty() || roots != 1 {
            return Err(format!("{roots} roots, trailing {rest:?}"));
        }
        Ok(())
    }

    /// The attribute `name` of the first tag that has it, after `from`.
    fn attr<'a>(s: &'a str, name: &str) -> Option<&'a str> {
        let key = format!(" {name}=\"");
        let i = s.find(&key)? + key.len();
        Some(&s[i..i + s[i..].find('"')?])
    }

    /// Each drawn cell: (tooltip, fill, hatch pattern, label lines).
    fn cells(svg: &str) -> Vec<(String, String, Option<String>, Vec<String>)> {
        svg.split("<g><title>")
            .skip(1)
            .map(|c| {
                let c = &c[..c.find("</g>").unwrap()];
                let tip = c[..c.find("</title>").unwrap()].to_string();
                let rects: Vec<&str> = c.split("<rect").skip(1).collect();
                let fill = attr(rects[0], "fill").unwrap().to_string();
                let hatch = rects.get(1).map(|r| attr(r, "fill").unwrap().to_string());
                let labels = c
                    .split("<text class=\"label\"")
                    .skip(1)
                    .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].to_string())
                    .collect();
                (tip, fill, hatch, labels)
            })
            .collect()
    }

    #[test]
    fn ranges_parse_and_say_what_is_wrong() {
        let s = |a, b| Span { start: a, end: b };
        assert_eq!(parse_span("0..32"), Ok(s(0, Some(32))));
        assert_eq!(parse_span(" 4..=7 "), Ok(s(4, Some(8))));
        assert_eq!(parse_span("16.."), Ok(s(16, None)));
        assert_eq!(parse_span("..8"), Ok(s(0, Some(8))));
        assert_eq!(parse_span("5"), Ok(s(5, Some(6))));
        assert_eq!(s(16, None).to_string(), "16..");
        assert_eq!(
            parse_span("0-32").unwrap_err(),
            "bad range `0-32`: write A..B for the indices A up to B-1 (e.g. 0..32), A.. for A to \
             the end, or one index A"
        );
        assert_eq!(
            parse_span("8..8").unwrap_err(),
            "empty range `8..8`: A..B holds the indices A up to B-1, so B must be larger than A"
        );
        assert!(
            parse_span("a..b")
                .unwrap_err()
                .starts_with("bad range `a..b`")
        );
        assert_eq!(Window::parse(None, None), Ok(None));
        assert_eq!(
            Window::parse(Some("0..4"), None),
            Ok(Some(Window {
                rows: Some(s(0, Some(4))),
                cols: None
            }))
        );
        assert!(
            Window::parse(None, Some("x"))
                .unwrap_err()
                .starts_with("--cols: bad range `x`")
        );
    }

    fn huge() -> LinearLayout {
        // 32768 x 32768: registers along dim1, warps (a 2^15-warp CTA) down dim0.
        layout(
            &[
                ("register", units(1, 15, 0, 2)),
                ("warp", units(0, 15, 0, 2)),
            ],
            &[("dim0", 32768), ("dim1", 32768)],
        )
    }

    #[test]
    fn a_layout_too_large_is_refused_with_a_reason_and_a_part_is_drawn() {
        let l = huge();
        assert_eq!(
            svg(&l, &SvgOptions::default()).unwrap_err(),
            "the layout covers 32768 x 32768 = 1073741824 elements, more than the 4096 a \
             picture shows; draw a part with --rows A..B --cols C..D, e.g. --rows 0..64 --cols 0..64"
        );
        assert_eq!(
            holders_table(&l, None).unwrap_err(),
            "the layout covers 32768 x 32768 = 1073741824 elements, more than the 65536 a \
             table shows; draw a part with --rows A..B --cols C..D, e.g. --rows 0..256 --cols 0..256"
        );
        // A tile far inside draws, with the right holders and ticks.
        let window = Window::parse(Some("1000..1008"), Some("30000..30016")).unwrap();
        let opts = SvgOptions {
            window,
            ..SvgOptions::default()
        };
        let pic = svg(&l, &opts).unwrap();
        well_formed(&pic).unwrap();
        let cs = cells(&pic);
        assert_eq!(cs.len(), 8 * 16);
        assert!(
            cs[0].0.starts_with(
                "dim0 1000, dim1 30000: thread 1000 (warp 1000, lane 0), register 30000"
            ),
            "{}",
            cs[0].0
        );
        assert!(pic.contains("drawn: dim0 1000..1008 of 32768, dim1 30000..30016 of 32768"));
        assert!(pic.contains(">30000</text>") && pic.contains(">1007</text>"));
        let table = holders_table(&l, window.as_ref()).unwrap();
        assert!(
            table.contains("32768 warps; dim0 1000..1008 of 32768, dim1 30000..30016 of 32768):")
        );
        assert!(
            table.contains("\n  1000 T1000:30000 T1000:30001 "),
            "{table}"
        );
        // A window larger than the cap says so.
        let big = Window::parse(Some("0..128"), Some("0..64")).unwrap();
        assert_eq!(
            svg(
                &l,
                &SvgOptions {
                    window: big,
                    ..SvgOptions::default()
                }
            )
            .unwrap_err(),
            "the part asked for, rows 0..128 x cols 0..64, holds 8192 elements, more than the \
             4096 a picture shows; draw a smaller part, e.g. --rows 0..64 --cols 0..64"
        );
        // The cap is the caller's to raise.
        let raised = SvgOptions {
            window: big,
            max_cells: 8192,
            ..SvgOptions::default()
        };
        assert!(svg(&l, &raised).is_ok());
    }

    #[test]
    fn windows_out_of_range_and_odd_shapes_are_refused_clearly() {
        let l = convert(E1, &[16, 32]);
        let opts = |rows: Option<&str>, cols: Option<&str>| SvgOptions {
            window: Window::parse(rows, cols).unwrap(),
            ..SvgOptions::default()
        };
        assert_eq!(
            svg(&l, &opts(Some("8..20"), None)).unwrap_err(),
            "--rows 8..20 runs past dim0, which has 16 indices (0..16)"
        );
        assert_eq!(
            holders_table(&l, opts(None, Some("40..")).window.as_ref()).unwrap_err(),
            "--cols 40.. runs past dim1, which has 32 indices (0..32)"
        );
        let one_d = layout(&[("lane", units(0, 5, 0, 1))], &[("dim0", 32)]);
        assert_eq!(
            svg(&one_d, &opts(Some("0..4"), Some("0..4"))).unwrap_err(),
            "the layout has one tensor dim, dim0: give its range with --rows or --cols, not both"
        );
        assert_eq!(
            svg(&one_d, &opts(None, Some("0..40"))).unwrap_err(),
            "--cols 0..40 runs past dim0, which has 32 indices (0..32)"
        );
        let rank3 = convert(
            "#ttg.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], \
             warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>",
            &[2, 16, 32],
        );
        assert_eq!(
            svg(&rank3, &SvgOptions::default()).unwrap_err(),
            "the layout has 3 tensor dims (dim0: 2, dim1: 16, dim2: 32); pictures need 1 or 2 \
             (for a rank-3 layout, draw its 2-d counterpart, e.g. convert with --shape 16x32, or \
             merge its dims into two first with eval's reshape_outs)"
        );
        assert_eq!(
            holders_table(&rank3, None).unwrap_err(),
            svg(&rank3, &SvgOptions::default()).unwrap_err()
        );
        let mixed = layout(
            &[("offset", units(0, 2, 0, 1)), ("lane", units(0, 1, 2, 1))],
            &[("dim0", 8)],
        );
        assert_eq!(
            svg(&mixed, &SvgOptions::default()).unwrap_err(),
            "a shared-memory layout (offset, block) is drawn by offset, but this one's in-dims \
             (offset, lane) also have lane; a picture shows either offset and block, or \
             register, lane, warp and block"
        );
        let odd = layout(&[("x", units(0, 2, 0, 1))], &[("dim0", 4)]);
        assert_eq!(
            holders_table(&odd, None).unwrap_err(),
            "the layout's in-dims (x) include `x`, which is not a hardware dim; pictures show \
             distributed layouts (register, lane, warp, block) and shared-memory ones (offset, \
             block)"
        );
        let none = layout(&[], &[("dim0", 1)]);
        assert!(
            svg(&none, &SvgOptions::default())
                .unwrap_err()
                .contains("no in-dims")
        );
        let zoom = SvgOptions {
            cell_px: Some(2),
            ..SvgOptions::default()
        };
        assert_eq!(
            svg(&l, &zoom).unwrap_err(),
            "a cell of 2 px is out of range: give 4 to 200 px"
        );
        // Too many columns for readable cells without a zoom; with one, it draws.
        let strip = layout(
            &[("register", units(1, 12, 0, 2))],
            &[("dim0", 1), ("dim1", 4096)],
        );
        assert_eq!(
            svg(&strip, &SvgOptions::default()).unwrap_err(),
            "a picture of 1 x 4096 cells would need cells under 10 px to stay within 1536 x 3072 \
             px; draw a part with --rows A..B --cols C..D, or set the cell size with --zoom PX"
        );
        let zoomed = SvgOptions {
            cell_px: Some(8),
            ..SvgOptions::default()
        };
        assert!(svg(&strip, &zoomed).is_ok());
    }

    /// Every holder of every element, lowest first, by trying every input.
    fn brute_holders(l: &LinearLayout, g: &Grid) -> Vec<Vec<u64>> {
        let in_dims: Vec<(Dim, u64)> = l.in_dims().collect();
        let mut found = vec![Vec::new(); g.cells.len()];
        let total: u32 = g.hw.fields.iter().map(|f| f.2).sum();
        for x in 0..1u64 << total {
            let input: Vec<(Dim, u64)> =
                in_dims.iter().map(|&(d, _)| (d, g.hw.get(x, d))).collect();
            let out = l.apply(&input).unwrap();
            let coords: Vec<u64> = out.iter().map(|o| o.1).collect();
            if let Some(i) = g
                .cells
                .iter()
                .position(|c| c.as_ref().is_some_and(|c| c.coords == coords))
            {
                found[i].push(x);
            }
        }
        found
    }

    #[test]
    fn holders_agree_with_trying_every_input() {
        let layouts = [
            convert(E1, &[16, 32]),
            convert(
                "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], \
                 CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0], instrShape = [16, 8]}>",
                &[32, 32],
            ),
            // Not surjective, with a lane bit that moves nothing and
            // in-dims out of the usual order.
            layout(
                &[
                    ("lane", vec![vec![1, 0], vec![0, 0], vec![0, 2]]),
                    ("register", vec![vec![2, 2], vec![0, 1]]),
                    ("warp", vec![vec![1, 2]]),
                ],
                &[("dim0", 8), ("dim1", 4)],
            ),
            layout(
                &[
                    ("offset", vec![vec![1], vec![2], vec![3]]),
                    ("block", vec![vec![4]]),
                ],
                &[("dim0", 8)],
            ),
        ];
        for l in &layouts {
            let g = grid(l, None, SVG_MAX_CELLS, "picture").unwrap();
            let brute = brute_holders(l, &g);
            for (cell, all) in g.cells.iter().flatten().zip(&brute) {
                assert_eq!(cell.holder, all.first().copied());
                if let Some(x) = cell.holder {
                    assert_eq!(all.len() as u128, g.copies());
                    let listed: Vec<u64> =
                        (0..all.len() as u64).map(|m| g.solver.nth(x, m)).collect();
                    assert_eq!(&listed, all);
                } else {
                    assert!(all.is_empty());
                }
            }
        }
    }

    fn broadcast() -> LinearLayout {
        // Lanes 0 and 2 hold the same elements; register 1 moves along dim1.
        layout(
            &[
                ("register", vec![vec![0, 1]]),
                ("lane", vec![vec![1, 0], vec![0, 0]]),
            ],
            &[("dim0", 2), ("dim1", 2)],
        )
    }

    #[test]
    fn elements_held_more_than_once_are_marked() {
        let pic = draw(&broadcast());
        assert_eq!(pic.matches(r#"<path class="dup""#).count(), 4);
        let cs = cells(&pic);
        assert_eq!(
            cs[1].0,
            "dim0 0, dim1 1: thread 0 (warp 0, lane 0), register 1; held ×2: t0 r1, t2 r1"
        );
        assert!(pic.contains(
            "every element is held by 2 (thread, register) pairs: 2 threads, one register each"
        ));
        let table = holders_table(&broadcast(), None).unwrap();
        assert!(table.contains(
            "(every element is held 2 times: by 2 threads, one register each; the lowest holder \
             is shown)"
        ));
        // The README's example broadcasts too: a 32 x 64 tile on 16 x 32.
        let pic = draw(&convert(E1, &[16, 32]));
        assert_eq!(pic.matches(r#"<path class="dup""#).count(), 16 * 32);
        assert!(pic.contains("held ×4: t0 r0, t4 r0, t128 r0, t132 r0"));
        // Registers of one thread holding the same element.
        let regs = layout(
            &[
                ("register", vec![vec![0], vec![1]]),
                ("lane", vec![vec![2]]),
            ],
            &[("dim0", 4)],
        );
        assert!(draw(&regs).contains("held ×2: t0 r0, t0 r1"));
        // Held once: no marks.
        let once = draw(&convert(E1, &[32, 64]));
        assert!(!once.contains("class=\"dup\"") && !once.contains("held ×"));
    }

    #[test]
    fn elements_nobody_holds_are_grey_and_dashed() {
        let l = layout(&[("lane", units(1, 2, 0, 2))], &[("dim0", 2), ("dim1", 4)]);
        let pic = draw(&l);
        let cs = cells(&pic);
        assert_eq!(cs[4].0, "dim0 1, dim1 0: held by nobody");
        assert_eq!(cs[4].1, NOBODY_FILL);
        assert!(cs[4].3.is_empty());
        assert!(pic.contains(">held by nobody</text>"));
        let table = holders_table(&l, None).unwrap();
        assert!(table.contains("     1    -    -    -    -\n"), "{table}");
        assert!(table.contains("(`-`: nobody holds that element)"));
        // Some held twice, some not at all.
        let l = layout(
            &[
                ("register", units(1, 2, 0, 2)),
                ("lane", vec![vec![1, 0], vec![0, 0], vec![4, 0]]),
            ],
            &[("dim0", 8), ("dim1", 4)],
        );
        let table = holders_table(&l, None).unwrap();
        assert!(table.contains(
            "(every held element is held 2 times: by 2 threads, one register each; the lowest \
             holder is shown)"
        ));
        assert!(draw(&l).contains(">every held element is held by 2 (thread, register) pairs"));
    }

    #[test]
    fn many_warps_get_distinct_fills() {
        // 64 warps of 32 lanes, one row each; then 4 blocks of 32 warps.
        for (bases, outs) in [
            (
                vec![("lane", units(1, 5, 0, 2)), ("warp", units(0, 6, 0, 2))],
                [("dim0", 64), ("dim1", 32)],
            ),
            (
                vec![
                    ("lane", units(1, 5, 0, 2)),
                    ("warp", units(0, 5, 0, 2)),
                    ("block", units(0, 2, 5, 2)),
                ],
                [("dim0", 128), ("dim1", 32)],
            ),
        ] {
            let l = layout(&bases, &outs);
            let pic = svg(
                &l,
                &SvgOptions {
                    max_cells: 128 * 32,
                    ..SvgOptions::default()
                },
            )
            .unwrap();
            well_formed(&pic).unwrap();
            let mut fills = std::collections::BTreeMap::new();
            for (tip, fill, hatch, _) in cells(&pic) {
                let block = tip
                    .split("block ")
                    .nth(1)
                    .map_or("0", |b| b.split(',').next().unwrap());
                let warp = tip
                    .split("(warp ")
                    .nth(1)
                    .unwrap()
                    .split(',')
                    .next()
                    .unwrap();
                let key = (block.to_string(), warp.to_string());
                let paint = (fill, hatch);
                assert_eq!(fills.entry(key).or_insert_with(|| paint.clone()), &paint);
            }
            assert_eq!(fills.len(), outs[0].1 as usize);
            let distinct: std::collections::BTreeSet<_> = fills.values().collect();
            assert_eq!(distinct.len(), fills.len(), "two warps share a fill");
            // Every pattern used is defined, and the legend shows each warp.
            for (_, hatch) in fills.values() {
                if let Some(h) = hatch {
                    let id = h.trim_start_matches("url(#").trim_end_matches(')');
                    assert!(pic.contains(&format!("<pattern id=\"{id}\"")));
                }
            }
            assert!(pic.contains(">w63</text>") || pic.contains(">b3w31</text>"));
        }
        // The palette: 32 colours, far apart in RGB; the first 8 farther.
        let rgb = |h: &str| -> [f64; 3] {
            [1, 3, 5].map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap() as f64)
        };
        let min_dist = |n: usize| {
            let colours: Vec<[f64; 3]> = PALETTE[..n].iter().map(|h| rgb(h)).collect();
            let mut m = f64::MAX;
            for (i, a) in colours.iter().enumerate() {
                for b in &colours[i + 1..] {
                    let d = (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt();
                    m = m.min(d);
                }
            }
            m
        };
        assert!(min_dist(32) >= 30.0 && min_dist(8) >= 60.0);
        let paints: std::collections::BTreeSet<_> = (0..32 * 7).map(paint).collect();
        assert_eq!(paints.len(), 32 * 7);
    }

    #[test]
    fn labels_fit_their_cells() {
        // The font-size rule itself, over the sizes a picture can have.
        for cell in [10.0, 16.0, 24.0, 31.0, 48.0, 100.0] {
            for chars in 1..9 {
                for lines in 1..4 {
                    for mark in [None, Some((cell * 0.22f64).clamp(3.0, 10.0).round())] {
                        if let Some(fs) = label_fs(cell, chars, lines, mark) {
                            assert!((LABEL_MIN_FS..=LABEL_MAX_FS).contains(&fs));
                            assert!(text_w(chars, fs) <= cell - 4.0);
                            assert!(lines as f64 * fs * LINE_EM <= cell - 4.0);
                            if let Some(t) = mark {
                                let clear_below = lines as f64 * fs * LINE_EM <= cell - 2.0 * t;
                                let clear_beside = text_w(chars, fs) <= cell - 2.0 * t;
                                assert!(clear_below || clear_beside);
                            }
                        }
                    }
                }
            }
        }
        // And in drawn pictures: every label's text x font size fits.
        let shared = convert(
            "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
            &[32, 64],
        );
        let blocks = layout(
            &[
                ("register", units(1, 3, 0, 2)),
                ("lane", units(1, 3, 3, 2)),
                ("warp", units(0, 2, 0, 2)),
                ("block", units(0, 2, 2, 2)),
            ],
            &[("dim0", 16), ("dim1", 64)],
        );
        let cases = [
            (convert(E1, &[16, 32]), None),
            (convert(E1, &[64, 64]), None),
            (convert(E1, &[64, 64]), Some(16)),
            (shared, None),
            (blocks, None),
            (huge(), None),
        ];
        for (l, zoom) in cases {
            let window = Window::parse(Some("0..16"), Some("0..64")).unwrap();
            let opts = SvgOptions {
                window: if l.total_out_bits() > 20 {
                    window
                } else {
                    None
                },
                cell_px: zoom,
                ..SvgOptions::default()
            };
            let pic = svg(&l, &opts).unwrap();
            let cells_g = &pic[pic.find("<g class=\"cells\"").unwrap()..];
            let fs: f64 = attr(cells_g, "font-size").unwrap().parse().unwrap();
            let cell: f64 = attr(&cells_g[cells_g.find("<rect").unwrap()..], "width")
                .unwrap()
                .parse()
                .unwrap();
            let mut labelled = 0;
            for (_, _, _, lines) in cells(&pic) {
                if lines.is_empty() {
                    continue;
                }
                labelled += 1;
                let chars = lines.iter().map(|l| l.chars().count()).max().unwrap();
                assert!(
                    text_w(chars, fs) <= cell - 4.0,
                    "{lines:?} at {fs} px overflows a {cell} px cell"
                );
                assert!(lines.len() as f64 * fs * LINE_EM <= cell - 4.0);
            }
            // Cells too small for their labels leave them out, and say so.
            if labelled == 0 {
                assert!(pic.contains(&format!("labels left out: {cell} px cells are too small")));
            }
        }
    }

    #[test]
    fn legend_and_axis_names_are_drawn() {
        let pic = draw(&convert(E1, &[32, 64]));
        for needle in [
            ">dim1 →</text>",
            ">dim0 ↓</text>",
            ">Who holds each element of a 32 × 64 (dim0 × dim1) layout</text>",
            ">8 warps × 32 lanes × 8 registers</text>",
            ">cell label t33 over r1 = thread 33 (warp 1, lane 1), register 1; thread = lane + \
             32·warp</text>",
            ">colour = warp:</text>",
            ">w0</text>",
            ">w7</text>",
        ] {
            assert!(pic.contains(needle), "{needle} is missing");
        }
        // Ticks for every column at this size, and the row numbers.
        assert!(pic.contains(">63</text>") && pic.contains(">31</text>"));
        let shared = draw(&convert(
            "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
            &[32, 64],
        ));
        assert!(shared.contains(">colour = offset:</text>"));
        assert!(shared.contains(">Shared-memory offset of each element of a 32 × 64"));
        assert!(shared.contains("= the element is stored at offset "));
        // A 1-d layout is drawn 32 to a row, with its axis named.
        let slice = convert(&format!("#ttg.slice<{{dim = 1, parent = {E1}}}>"), &[64]);
        let pic = draw(&slice);
        assert!(pic.contains(">dim0 ↓</text>") && pic.contains(">+ column →</text>"));
        assert!(pic.contains("32 to a row"));
        assert_eq!(cells(&pic).len(), 64);
        assert!(cells(&pic)[33].0.starts_with("dim0 33: "));
        let part = SvgOptions {
            window: Window::parse(None, Some("8..40")).unwrap(),
            ..SvgOptions::default()
        };
        let pic = svg(&slice, &part).unwrap();
        assert_eq!(cells(&pic).len(), 32);
        assert!(cells(&pic)[0].0.starts_with("dim0 8: "));
    }

    #[test]
    fn pictures_are_well_formed_xml_and_deterministic() {
        let weird = layout(
            &[("register", units(0, 2, 0, 2)), ("lane", units(1, 2, 0, 2))],
            &[("a<b", 4), ("c&\"d", 4)],
        );
        let layouts = [
            convert(E1, &[16, 32]),
            convert(E1, &[64, 64]),
            broadcast(),
            weird,
            layout(&[("register", vec![])], &[]),
            convert(
                "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
                &[32, 64],
            ),
        ];
        for l in &layouts {
            let a = draw(l);
            well_formed(&a).unwrap_or_else(|e| panic!("{e}\n{a}"));
            assert_eq!(a, draw(l));
            assert!(a.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
            assert_eq!(holders_table(l, None), holders_table(l, None));
        }
        assert!(well_formed("<a><b></a></b>").is_err());
        assert!(well_formed("<a x=\"&\"/>").is_err());
        assert!(well_formed("<a/><b/>").is_err());
    }

    #[test]
    fn pictures_stay_readable_in_size() {
        let width = |s: &str| -> f64 { attr(s, "width").unwrap().parse().unwrap() };
        let height = |s: &str| -> f64 { attr(s, "height").unwrap().parse().unwrap() };
        // 64 x 64 was 2,866 px wide; 16 x 32 was 1,458.
        for shape in [[64, 64], [16, 32], [32, 64], [64, 32], [16, 128], [1, 8]] {
            let pic = draw(&convert(E1, &shape));
            assert!(width(&pic) <= 1640.0, "{shape:?}: {}", width(&pic));
            assert!(height(&pic) <= 3300.0, "{shape:?}: {}", height(&pic));
        }
        // A zoom makes cells that size, whatever the width.
        let zoomed = svg(
            &convert(E1, &[16, 32]),
            &SvgOptions {
                cell_px: Some(64),
                ..SvgOptions::default()
            },
        )
        .unwrap();
        assert!(width(&zoomed) >= 32.0 * 64.0);
        let g = grid(&convert(E1, &[64, 64]), None, SVG_MAX_CELLS, "picture").unwrap();
        assert_eq!(auto_cell(&g), Ok(24));
        let g = grid(&convert(E1, &[4, 8]), None, SVG_MAX_CELLS, "picture").unwrap();
        assert_eq!(auto_cell(&g), Ok(CELL_MAX_PX));
    }

    #[test]
    fn the_table_keeps_its_format() {
        let l = layout(
            &[("register", vec![vec![0, 1]]), ("lane", vec![vec![1, 0]])],
            &[("dim0", 2), ("dim1", 2)],
        );
        assert_eq!(
            holders_table(&l, None).unwrap(),
            "Who holds each element (T<thread>:<register>, thread = lane + 2·warp; 2 registers, \
             2 lanes, 1 warps):\n          0    1\n     0 T0:0 T0:1\n     1 T1:0 T1:1\n"
        );
        let shared = layout(
            &[("offset", vec![vec![1], vec![2]]), ("block", vec![vec![4]])],
            &[("dim0", 8)],
        );
        assert_eq!(
            holders_table(&shared, None).unwrap(),
            "Shared-memory offset of each element (2 blocks × 4 offsets):\n          0    1    2    \
             3    4    5    6    7\n     0 B0:0 B0:1 B0:2 B0:3 B1:0 B1:1 B1:2 B1:3\n"
        );
    }

    /// Writes the README's picture when LINEAR_LAYOUT_WRITE_PICTURES is
    /// set; otherwise checks that the one in notes/img/ is what the code
    /// draws now.
    #[test]
    fn the_readme_picture_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../notes/img/blocked-1x8-4x8-8x1-on-16x32.svg");
        let pic = draw(&convert(E1, &[16, 32]));
        if std::env::var_os("LINEAR_LAYOUT_WRITE_PICTURES").is_some() {
            std::fs::write(&path, &pic).unwrap();
        } else {
            let on_disk = std::fs::read_to_string(&path).unwrap();
            assert!(
                on_disk == pic,
                "{} is stale: rerun with LINEAR_LAYOUT_WRITE_PICTURES=1",
                path.display()
            );
        }
    }
}
