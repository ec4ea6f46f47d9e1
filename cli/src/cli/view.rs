//! Pictures of a layout: who holds each element, as a text grid or an SVG.

use linear_layout::{Dim, LinearLayout};
use std::fmt::Write;

/// The holder of one element: hardware coordinates of its first holder and
/// how many hold it.
struct Cell {
    label: String,
    warp: u64,
    copies: u32,
}

/// Enumerates every input and records, per element of a ≤2-d tensor, the
/// first holder. `None` for layouts this view cannot show.
fn holders(l: &LinearLayout) -> Option<(u64, u64, Vec<Option<Cell>>, bool)> {
    let distributed = [Dim::REGISTER, Dim::LANE, Dim::WARP, Dim::BLOCK];
    let shared = [Dim::OFFSET, Dim::BLOCK];
    let is_shared = l.in_dim_names().any(|d| d == Dim::OFFSET);
    let allowed: &[Dim] = if is_shared { &shared } else { &distributed };
    if l.num_in_dims() == 0
        || l.in_dim_names().any(|d| !allowed.contains(&d))
        || l.num_out_dims() > 2
    {
        return None;
    }
    if l.total_in_bits() > 20 || l.total_out_bits() > 16 {
        return None;
    }
    let outs: Vec<(Dim, u64)> = l.out_dims().collect();
    let (rows, cols) = match outs.len() {
        0 => (1, 1),
        1 => (1, outs[0].1),
        _ => (outs[0].1, outs[1].1),
    };
    let size = |d: Dim| l.in_dim_size(d).unwrap_or(1);
    let lanes = size(Dim::LANE);
    let mut cells: Vec<Option<Cell>> = (0..rows * cols).map(|_| None).collect();
    let in_dims: Vec<(Dim, u64)> = l.in_dims().collect();
    for flat in 0..(1u64 << l.total_in_bits()) {
        let mut rest = flat;
        let input: Vec<(Dim, u64)> = in_dims
            .iter()
            .map(|&(d, s)| {
                let v = rest % s;
                rest /= s;
                (d, v)
            })
            .collect();
        let out = l.apply(&input).ok()?;
        let (r, c) = match out.len() {
            0 => (0, 0),
            1 => (0, out[0].1),
            _ => (out[0].1, out[1].1),
        };
        let cell = &mut cells[(r * cols + c) as usize];
        match cell {
            Some(existing) => existing.copies += 1,
            None => {
                let get = |d: Dim| input.iter().find(|x| x.0 == d).map_or(0, |x| x.1);
                let block = if size(Dim::BLOCK) > 1 {
                    format!("B{}", get(Dim::BLOCK))
                } else {
                    String::new()
                };
                let label = if is_shared {
                    format!("{block}{}", get(Dim::OFFSET))
                } else {
                    format!(
                        "{block}T{}:{}",
                        get(Dim::LANE) + lanes * get(Dim::WARP),
                        get(Dim::REGISTER)
                    )
                };
                *cell = Some(Cell {
                    label,
                    warp: get(Dim::WARP),
                    copies: 1,
                });
            }
        }
    }
    Some((rows, cols, cells, is_shared))
}

/// A text grid: `T<thread>:<register>` (thread = lane + lanes·warp) or the
/// shared-memory offset of each element.
pub fn holders_table(l: &LinearLayout) -> Option<String> {
    let (rows, cols, cells, is_shared) = holders(l)?;
    let size = |d: Dim| l.in_dim_size(d).unwrap_or(1);
    let mut s = String::new();
    if is_shared {
        let _ = writeln!(
            s,
            "Shared-memory offset of each element ({} offsets):",
            size(Dim::OFFSET)
        );
    } else {
        let _ = writeln!(
            s,
            "Who holds each element (T<thread>:<register>, thread = lane + {}·warp; {} registers, {} lanes, {} warps):",
            size(Dim::LANE),
            size(Dim::REGISTER),
            size(Dim::LANE),
            size(Dim::WARP)
        );
    }
    let width = cells
        .iter()
        .flatten()
        .map(|c| c.label.len())
        .max()
        .unwrap_or(1)
        + 1;
    let _ = write!(s, "{:>6}", "");
    for c in 0..cols {
        let _ = write!(s, "{c:>width$}");
    }
    s.push('\n');
    for r in 0..rows {
        let _ = write!(s, "{r:>6}");
        for c in 0..cols {
            let cell = cells[(r * cols + c) as usize]
                .as_ref()
                .map_or("-", |x| x.label.as_str());
            let _ = write!(s, "{cell:>width$}");
        }
        s.push('\n');
    }
    let max_copies = cells.iter().flatten().map(|c| c.copies).max().unwrap_or(0);
    if max_copies > 1 {
        let _ = writeln!(
            s,
            "(elements are held up to {max_copies} times; the first holder is shown)"
        );
    }
    if cells.iter().any(Option::is_none) {
        let _ = writeln!(s, "(`-`: nobody holds that element)");
    }
    Some(s)
}

/// The grid as an SVG picture: one square per element, coloured by warp,
/// labelled with thread and register (or offset).
pub fn svg(l: &LinearLayout) -> Option<String> {
    let (rows, cols, cells, is_shared) = holders(l)?;
    let cell = 44u64;
    let (margin_left, margin_top) = (40u64, 40u64);
    let width = margin_left + cols * cell + 10;
    let height = margin_top + rows * cell + 10;
    let palette = [
        "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
        "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f",
    ];
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="10">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="{width}" height="{height}" fill="white"/>"#
    );
    let title = if is_shared {
        "offset of each element"
    } else {
        "T&lt;thread&gt;:&lt;register&gt;, colour = warp"
    };
    let _ = writeln!(
        s,
        r#"<text x="{margin_left}" y="14" font-size="12">{title}</text>"#
    );
    for c in 0..cols {
        let x = margin_left + c * cell + cell / 2;
        let _ = writeln!(
            s,
            r#"<text x="{x}" y="{}" text-anchor="middle">{c}</text>"#,
            margin_top - 6
        );
    }
    for r in 0..rows {
        let y = margin_top + r * cell + cell / 2 + 4;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{y}" text-anchor="end">{r}</text>"#,
            margin_left - 6
        );
        for c in 0..cols {
            let (x, y0) = (margin_left + c * cell, margin_top + r * cell);
            let (fill, label) = match &cells[(r * cols + c) as usize] {
                Some(cell) => (
                    palette[(cell.warp as usize) % palette.len()],
                    cell.label.clone(),
                ),
                None => ("#ffffff", "-".to_string()),
            };
            let _ = writeln!(
                s,
                r##"<rect x="{x}" y="{y0}" width="{cell}" height="{cell}" fill="{fill}" stroke="#555" stroke-width="0.5"/>"##
            );
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle">{label}</text>"#,
                x + cell / 2,
                y0 + cell / 2 + 3
            );
        }
    }
    s.push_str("</svg>\n");
    Some(s)
}
