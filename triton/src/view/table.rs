//! The text table.

use super::*;

/// A text grid: `T<thread>:<register>` (thread = lane + lanes·warp) or the
/// shared-memory offset of each element, for the whole layout or a window;
/// at most [`TABLE_MAX_CELLS`] elements. The error says why a layout has
/// no table (rank, in-dims, size). Without `--cols`, only as many columns
/// as fit in [`TABLE_MAX_LINE`] characters are printed, and a last line
/// says how to see the others.
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
    let cols_asked = window.is_some_and(|w| w.cols.is_some());
    let fit = (TABLE_MAX_LINE.saturating_sub(row_width) / width).max(1);
    let shown = if cols_asked {
        g.n_cols
    } else {
        g.n_cols.min(fit)
    };
    let _ = write!(s, "{:>row_width$}", "");
    for t in &g.col_ticks[..shown] {
        let _ = write!(s, "{t:>width$}");
    }
    s.push('\n');
    for r in 0..g.n_rows {
        let _ = write!(s, "{:>row_width$}", g.row_ticks[r]);
        let row = &labels[r * g.n_cols..r * g.n_cols + shown];
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
    if shown < g.n_cols {
        let (first, next) = (g.col_ticks[0], g.col_ticks[shown]);
        let _ = writeln!(
            s,
            "(columns {first}..{next} of {} shown, to keep lines within {TABLE_MAX_LINE} \
             characters: --cols {next}..{} shows the next ones, --cols {first}.. the full grid)",
            g.n_cols,
            next + (next - first),
        );
    }
    Ok(s)
}
