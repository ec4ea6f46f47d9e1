//! The SVG picture.

use super::*;

/// XML text: `&`, `<`, `>` and `"` escaped.
pub(super) fn esc(s: &str) -> String {
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
pub(super) fn text_w(chars: usize, fs: f64) -> f64 {
    chars as f64 * CHAR_EM * fs
}

pub(super) fn n(v: f64) -> String {
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
pub(super) fn label_fs(cell: f64, chars: usize, lines: usize, mark: Option<f64>) -> Option<f64> {
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
pub(super) struct Plan {
    pub(super) cell: u32,
    /// The label font size; `None`: labels left out (cells too small).
    pub(super) fs: Option<f64>,
    /// The side of the corner mark on elements held more than once.
    pub(super) mark: Option<f64>,
}

pub(super) fn auto_cell(g: &Grid) -> Result<u32, String> {
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

pub(super) fn plan(g: &Grid, cell: u32) -> Plan {
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
pub(super) enum Item {
    Text(String),
    /// A fill (colour, pattern) with a caption.
    Swatch(String, u128, String),
    /// The corner mark, with a caption.
    Mark(String),
}

pub(super) fn item_w(item: &Item, fs: f64) -> f64 {
    match item {
        Item::Text(t) => text_w(t.chars().count(), fs),
        Item::Swatch(_, _, t) | Item::Mark(t) => 16.0 + text_w(t.chars().count(), fs),
    }
}

pub(super) fn render(g: &Grid, p: &Plan) -> String {
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
