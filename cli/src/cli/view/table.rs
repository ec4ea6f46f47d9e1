//! The text table.

use super::*;

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
