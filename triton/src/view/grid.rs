//! The grid both views draw.

use super::*;

/// One drawn element.
pub(super) struct Cell {
    /// Tensor coordinates, one per out-dim, in out-dim order.
    pub(super) coords: Vec<u64>,
    /// The lowest holder (flat), or `None` when nothing holds it.
    pub(super) holder: Option<u64>,
}

pub(super) struct Grid {
    pub(super) hw: Hw,
    pub(super) solver: Solver,
    pub(super) outs: Vec<(Dim, u64)>,
    pub(super) n_rows: usize,
    pub(super) n_cols: usize,
    /// The index each row and column stands for (for a 1-d layout: the
    /// first element of the row, and the offset within it).
    pub(super) row_ticks: Vec<u64>,
    pub(super) col_ticks: Vec<u64>,
    /// Row-major; `None` past the end of a 1-d range's last row.
    pub(super) cells: Vec<Option<Cell>>,
    /// Axis names: down the rows, across the columns.
    pub(super) down: String,
    pub(super) across: String,
    /// "16 × 32 (dim0 × dim1)".
    pub(super) shape: String,
    /// What part is drawn, when not all of it.
    pub(super) part: Option<String>,
    /// Holders of each element that share its lowest holder's thread (or
    /// block): registers per thread, offsets per block.
    pub(super) per_thread: u128,
}

impl Grid {
    pub(super) fn copies(&self) -> u128 {
        self.solver.copies()
    }

    pub(super) fn cell(&self, r: usize, c: usize) -> Option<&Cell> {
        self.cells[r * self.n_cols + c].as_ref()
    }

    pub(super) fn any_unheld(&self) -> bool {
        self.cells.iter().flatten().any(|c| c.holder.is_none())
    }

    /// "every element is held 4 times: by 4 threads, one register each".
    pub(super) fn copies_text(&self) -> String {
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
    pub(super) fn coords_text(&self, cell: &Cell) -> String {
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
    pub(super) fn tooltip(&self, cell: &Cell) -> String {
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
pub(super) fn resolve(
    span: Option<Span>,
    size: u64,
    flag: &str,
    name: Dim,
) -> Result<(u64, u64), String> {
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
pub(super) fn suggest(rows: u64, cols: u64, cap: u64) -> (u64, u64) {
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
pub(super) fn grid(
    l: &LinearLayout,
    window: Option<&Window>,
    cap: usize,
    noun: &str,
) -> Result<Grid, String> {
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
