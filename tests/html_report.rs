//! The HTML report without a browser: the summary table's rows, a section
//! and pictures per site group, nothing fetched from outside, and input
//! that tries to add markup printed as text.

use linear_layout_triton::finder::search::{Options, Space};
use linear_layout_triton::finder::{Arch, Config, Dtype, Pattern};
use linear_layout_triton::report::render::{HtmlOptions, html};
use linear_layout_triton::report::{self, Kernel, Report, Reproducer, Subject, Timing};
use linear_layout_triton::{Release, finder};

/// 3.2's chained dots on Hopper, bf16 at 8 warps: the stmatrix abort.
fn report() -> Report<Config> {
    let space = Space {
        patterns: vec![Pattern::ChainB],
        sizes: vec![16, 64],
        dtypes: vec![Dtype::Bf16],
        warps: vec![8],
        stages: vec![1],
        archs: vec![Arch::Sm90],
        ctas: vec![1],
        releases: vec![Release::V3_2],
        ..Space::default()
    };
    report::search(&space, &Options { examples: 4 }, &|_, _| {})
}

/// The text between `open` and the next `close`, for each `open`.
fn sections<'a>(page: &'a str, open: &str, close: &str) -> Vec<&'a str> {
    page.split(open)
        .skip(1)
        .map(|s| s.split(close).next().unwrap_or(""))
        .collect()
}

#[test]
fn the_page_holds_the_table_each_group_and_a_picture_per_layout() {
    let report = report();
    assert!(!report.groups.is_empty());
    let page = html(&report, &HtmlOptions::default());
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.trim_end().ends_with("</html>"));
    // the table comes first, a row per group, each linking to its section
    let table = page.find("<table id=\"summary-table\">").unwrap();
    let first_group = page.find("<article").unwrap();
    assert!(table < first_group);
    let rows = sections(&page, "<tr class=", "</tr>");
    assert_eq!(rows.len(), report.groups.len());
    for (i, (row, g)) in rows.iter().zip(&report.groups).enumerate() {
        assert!(
            row.contains(&format!("href=\"#group-{i}\">{}</a>", g.site.id)),
            "{row}"
        );
        assert!(
            row.contains(&format!("<td class=\"n\">{}</td>", g.count)),
            "{row}"
        );
        assert!(page.contains(&format!("<article class=\"group\" id=\"group-{i}\">")));
    }
    let stmatrix = report.groups.iter().position(|g| g.site.id == "stmatrix");
    let stmatrix = stmatrix.expect("3.2 aborts at stmatrix");
    let article = sections(&page, &format!("id=\"group-{stmatrix}\">"), "</article>")[0];
    // the fix, the workaround, the fixing release
    assert!(
        article.contains("first fixed in <strong>3.4</strong>"),
        "{article}"
    );
    assert!(article.contains("<dt>workaround</dt>"));
    // one figure per layout of the smallest configuration, each an SVG
    // (or a reference to the same layout drawn before)
    let smallest = report.first(&report.groups[stmatrix].configs).unwrap();
    let tiles = finder::layouts::layouts(smallest);
    assert_eq!(tiles.len(), 2);
    let figures = article.matches("<figure").count();
    let again = article
        .matches("the same layout as <a href=\"#figure-")
        .count();
    assert_eq!(figures + again, tiles.len());
    assert_eq!(
        page.matches("<figure").count(),
        page.matches("<svg").count()
    );
    assert_eq!(page.matches("<svg").count(), page.matches("</svg>").count());
    // nothing outside the page: no URL, script, stylesheet link or image
    for outside in [
        "http:", "https:", "//", "<script", "<link", "<img", "@import",
    ] {
        assert!(!page.contains(outside), "the page holds {outside}");
    }
    // a url() names a pattern of the page, never a file
    assert!(page.split("url(").skip(1).all(|rest| rest.starts_with('#')));
}

#[test]
fn a_large_tile_is_clipped_and_the_caption_says_so() {
    let report = report();
    let options = HtmlOptions {
        rows: 8,
        cols: 8,
        ..HtmlOptions::default()
    };
    let page = html(&report, &options);
    // the 64-wide tiles of the larger configurations do not fit 8 x 8
    assert!(
        page.contains("(clipped: rows 0..8 of"),
        "no clipped caption"
    );
    // no picture holds a cell past the clip: the SVGs' tick labels stop at 7
    for svg in sections(&page, "<svg", "</svg>") {
        assert!(!svg.contains(">8</text>"), "a cell past row or column 7");
    }
}

#[test]
fn markup_in_a_kernel_name_a_path_or_a_message_is_printed_as_text() {
    let mut report = report();
    let hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    report.subject = Subject::Kernel(Kernel {
        kernel: format!("k\"'{hostile}.py::k"),
        name: hostile.into(),
        import: "import".into(),
        torch: "torch".into(),
        not_scanned: vec![(hostile.into(), hostile.into())],
        timing: Timing::default(),
    });
    for g in &mut report.groups {
        g.failure.triton_message = hostile.into();
        g.reproducer = Some(Reproducer::Script {
            path: format!("/tmp/{hostile}/repro.py").into(),
            ran: Some(hostile.into()),
        });
    }
    let page = html(&report, &HtmlOptions::default());
    assert!(!page.contains("<script"));
    assert!(!page.contains("<img"));
    let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;";
    assert!(page.contains(escaped));
    assert!(page.contains("<title>linear-layout scan: k&quot;&#39;&lt;script&gt;"));
    // the message, the reproducer's path and what it printed
    assert!(page.contains(&format!("<dt>message</dt><dd><code>{escaped}</code>")));
    assert!(page.contains(&format!("python /tmp/{escaped}/repro.py</pre>")));
    assert!(page.contains(&format!("ran it: <code>{escaped}</code>")));
}

#[test]
fn layouts_a_caller_gives_for_a_group_are_drawn_instead_of_the_configurations() {
    let report = report();
    let module = "#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], \
        warpsPerCTA = [4, 1], order = [1, 0]}>\n\
        module attributes {\"ttg.num-warps\" = 4 : i32} {\n\
        %1 = ttg.convert_layout %0 : tensor<16x32xf16, #blocked> -> tensor<16x32xf16, #blocked>\n}\n";
    let tiles = finder::layouts::op_layouts(module, 3, Release::V3_4);
    assert_eq!(tiles.len(), 1);
    let options = HtmlOptions {
        layouts: vec![(0, "the failing <op>".into(), tiles)],
        ..HtmlOptions::default()
    };
    let page = html(&report, &options);
    let first = sections(&page, "id=\"group-0\">", "</article>")[0];
    assert!(
        first.contains("<h4>Layouts of the failing &lt;op&gt;</h4>"),
        "{first}"
    );
    assert!(first.contains("16x32xf16, #blocked (TTGIR line 3)"));
    assert_eq!(first.matches("<svg").count(), 1);
    // the other groups keep their configurations' layouts
    if report.groups.len() > 1 {
        let second = sections(&page, "id=\"group-1\">", "</article>")[0];
        assert!(second.contains("<h4>Layouts of the smallest configuration</h4>"));
    }
}

#[test]
fn pattern_ids_are_unique_across_the_pictures_of_a_page() {
    // 64 warps: warps past the 32 colours are hatched, and each SVG
    // defines its patterns
    let module = "#a = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], \
        warpsPerCTA = [64, 1], order = [1, 0]}>\n\
        #b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], \
        warpsPerCTA = [32, 2], order = [1, 0]}>\n\
        module attributes {\"ttg.num-warps\" = 64 : i32} {\n\
        %1 = ttg.convert_layout %0 : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>\n}\n";
    let tiles = finder::layouts::op_layouts(module, 4, Release::V3_4);
    assert_eq!(tiles.len(), 2);
    let options = HtmlOptions {
        layouts: vec![(0, "a wide op".into(), tiles)],
        ..HtmlOptions::default()
    };
    let page = html(&report(), &options);
    assert!(
        page.contains("url(#figure-2-hatch"),
        "no hatched warp drawn"
    );
    let ids: Vec<&str> = page
        .split(" id=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap_or(""))
        .collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "repeated ids in {ids:?}");
    for target in page.split("url(#").skip(1) {
        let id = target.split(')').next().unwrap_or("");
        assert!(ids.contains(&id), "url(#{id}) names no element");
    }
}
