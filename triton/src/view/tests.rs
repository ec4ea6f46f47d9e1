//! The pictures' tests.

use super::svg::*;
use super::table::*;
use super::*;
use crate::{Conversion, Defs, Release, parse_attr, to_linear_layout};
use linear_layout::dim;

/// A layout from its bases, `(in-dim, [[dim0, dim1, ...], ...])`, and
/// out-dim sizes; not necessarily surjective.
fn layout(bases: &[(&str, Vec<Vec<u64>>)], outs: &[(&str, u64)]) -> LinearLayout {
    let bases: Vec<(Dim, Vec<Vec<u64>>)> = bases.iter().map(|(d, b)| (dim(d), b.clone())).collect();
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
        cs[0]
            .0
            .starts_with("dim0 1000, dim1 30000: thread 1000 (warp 1000, lane 0), register 30000"),
        "{}",
        cs[0].0
    );
    assert!(pic.contains("drawn: dim0 1000..1008 of 32768, dim1 30000..30016 of 32768"));
    assert!(pic.contains(">30000</text>") && pic.contains(">1007</text>"));
    let table = holders_table(&l, window.as_ref()).unwrap();
    assert!(table.contains("32768 warps; dim0 1000..1008 of 32768, dim1 30000..30016 of 32768):"));
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
        let input: Vec<(Dim, u64)> = in_dims.iter().map(|&(d, _)| (d, g.hw.get(x, d))).collect();
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
                let listed: Vec<u64> = (0..all.len() as u64).map(|m| g.solver.nth(x, m)).collect();
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
