//! The report as one self-contained HTML page, to share: the summary
//! table first (the text's, one row per release and site, each linking to
//! its group), then every site group with its smallest configurations,
//! reproducer, fixes and workaround, and pictures of the layouts its
//! smallest configuration holds its tiles in (who holds which element,
//! drawn by [`crate::view`]); the regressions, front-end failures and
//! confirmations close it as the text gives them.
//!
//! Self-contained: inline CSS and inline SVG, no script, no font, no
//! link out, so the page reads the same offline and from an attachment.
//! Everything taken from input (kernel names, paths, configurations,
//! messages) goes through [`esc`]: control and reordering characters made
//! visible, then `&`, `<`, `>`, `"` and `'` escaped, so no input adds
//! markup. A picture is clipped to [`HtmlOptions::rows`] ×
//! [`HtmlOptions::cols`] elements, and its caption says so; a layout
//! drawn for one group is referred to, not drawn again, by later ones.

use super::configurations;
use super::text::{
    confirmations, first_fix, fix_line, front_end, kernel_header, listing, regressions,
    space_header,
};
use crate::SiteKind;
use crate::escape::controls;
use crate::finder::layouts::TileLayout;
use crate::report::{Configuration, Report, Reproducer, SiteGroup, Subject};
use crate::view::{Span, SvgOptions, Window, svg};
use std::fmt::Write as _;

/// How the page is laid out.
#[derive(Clone, Debug)]
pub struct HtmlOptions {
    /// How many of a group's smallest configurations to list (one per
    /// shape).
    pub show: usize,
    /// The most rows (dim0) a picture shows; larger tiles are clipped. A
    /// cell costs about 270 bytes of SVG (its tooltip lists its holders),
    /// so the default 32 × 32 keeps a picture near 300 kB at most.
    pub rows: u64,
    /// The most columns (dim1) a picture shows.
    pub cols: u64,
    /// Layouts a caller found for some groups, drawn instead of the
    /// smallest configuration's: `(group index, where they come from,
    /// layouts)` (`scan` reads the failing op's from each group's minimal
    /// TTGIR module).
    pub layouts: Vec<(usize, String, Vec<TileLayout>)>,
}

impl Default for HtmlOptions {
    fn default() -> Self {
        HtmlOptions {
            show: 8,
            rows: 32,
            cols: 32,
            layouts: Vec::new(),
        }
    }
}

/// Text from input made safe inside HTML text and quoted attributes.
pub fn esc(s: &str) -> String {
    let s = controls(s);
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;\
padding:0 1em;color:#1b1b1b}h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:2em}\
table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:.25em .6em;text-align:left}\
th{background:#f0f0f0}td.n{text-align:right}tr.bug td:nth-child(3){color:#a00;font-weight:600}\
pre,code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}\
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;white-space:pre-wrap}\
article{border:1px solid #ddd;border-radius:6px;padding:.2em 1em 1em;margin:1.2em 0}\
dt{font-weight:600;margin-top:.5em}dd{margin-left:1.5em}\
figure{margin:1em 0}figure svg{max-width:min(100%,720px);height:auto;border:1px solid #eee}\
figcaption{font-size:.9em;margin-bottom:.3em}.note{color:#555;font-size:.9em}";

/// The report as an HTML page.
pub fn html<C: Configuration>(report: &Report<C>, options: &HtmlOptions) -> String {
    let mut out = String::new();
    let (title, mut header) = match &report.subject {
        Subject::Space { skipped } => {
            let mut h = String::new();
            space_header(&mut h, report, skipped);
            ("linear-layout search".to_string(), h)
        }
        Subject::Kernel(kernel) => {
            let mut h = String::new();
            kernel_header(&mut h, report, kernel);
            (format!("linear-layout scan: {}", kernel.kernel), h)
        }
    };
    header = header.trim_end().to_string();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{t}</title><style>{STYLE}</style></head><body>\n<h1>{t}</h1>\n\
         <pre class=\"header\">{h}</pre>\n",
        t = esc(&title),
        h = esc(&header)
    );
    summary(&mut out, report);
    let mut pictures = Pictures::default();
    if !report.groups.is_empty() {
        let _ = writeln!(
            out,
            "<section id=\"groups\"><h2>Failures by release and site</h2>"
        );
        for (i, g) in report.groups.iter().enumerate() {
            group(&mut out, report, i, g, options, &mut pictures);
        }
        let _ = writeln!(out, "</section>");
    }
    let mut rest = String::new();
    regressions(&mut rest, report);
    front_end(&mut rest, report);
    super::risks::text(&mut rest, report);
    confirmations(&mut rest, report);
    if !rest.is_empty() {
        let _ = writeln!(
            out,
            "<section id=\"more\"><h2>Regressions, front-end failures, risks, confirmations</h2>\
             <pre>{}</pre></section>",
            esc(rest.trim_end())
        );
    }
    let _ = writeln!(out, "</body></html>");
    out
}

/// The summary table: the text's, each site linking to its group.
fn summary<C>(out: &mut String, report: &Report<C>) {
    let _ = writeln!(
        out,
        "<section id=\"summary\"><h2>Failing configurations by release and site</h2>"
    );
    if report.groups.is_empty() {
        let _ = writeln!(out, "<p>No failure in the lowering.</p></section>");
        return;
    }
    let _ = writeln!(
        out,
        "<table id=\"summary-table\"><thead><tr><th>release</th><th>site</th><th>kind</th>\
         <th>configurations</th><th>verdict</th><th>first fixed in</th></tr></thead><tbody>"
    );
    for (i, g) in report.groups.iter().enumerate() {
        let kind = match g.site.kind {
            SiteKind::Bug => "bug",
            SiteKind::Rejection => "rejection",
        };
        let _ = writeln!(
            out,
            "<tr class=\"{kind}\"><td>{}</td><td><a href=\"#group-{i}\">{}</a></td><td>{kind}</td>\
             <td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
            esc(&report.builds[g.build].to_string()),
            esc(g.site.id),
            g.count,
            esc(&g.verdict.to_string()),
            esc(&first_fix(report, g))
        );
    }
    let _ = writeln!(out, "</tbody></table></section>");
}

/// The layouts drawn so far, to refer back to instead of drawing twice.
#[derive(Default)]
struct Pictures {
    /// `(the layout as text, its figure's number)`.
    drawn: Vec<(String, usize)>,
}

fn group<C: Configuration>(
    out: &mut String,
    report: &Report<C>,
    i: usize,
    g: &SiteGroup,
    options: &HtmlOptions,
    pictures: &mut Pictures,
) {
    let build = &report.builds[g.build];
    let f = &g.failure;
    let _ = writeln!(
        out,
        "<article class=\"group\" id=\"group-{i}\"><h3>Triton {} — site <code>{}</code>: {}, \
         verdict {}{}</h3><dl>",
        esc(&build.to_string()),
        esc(g.site.id),
        configurations(g.count),
        esc(&g.verdict.to_string()),
        if g.site.kind == SiteKind::Rejection {
            " (a front-end rejection)"
        } else {
            ""
        }
    );
    let mut item = |name: &str, body: String| {
        let _ = writeln!(out, "<dt>{name}</dt><dd>{body}</dd>");
    };
    item("what", esc(g.site.title));
    item(
        "where",
        format!(
            "{} at <code>{}</code>",
            esc(f.location.function),
            esc(&f.cite())
        ),
    );
    if let Some(op) = &g.op {
        item(
            "op",
            format!(
                "TTGIR line {} (<code>{}</code>) of the smallest configuration",
                op.line,
                esc(&op.op)
            ),
        );
    }
    let text_options = super::TextOptions {
        show: options.show,
        all_rejections: true,
        all_variants: false,
    };
    let rows = listing(report, &g.configs, &text_options);
    let mut smallest = String::from("<ul>");
    let mut listed = 0u64;
    for &(c, like) in &rows {
        let more = if like == 0 {
            String::new()
        } else {
            format!(" (+{like} of the same shape)")
        };
        let _ = write!(
            smallest,
            "<li><code>{}</code>{more}</li>",
            esc(&report.configs[c].to_string())
        );
        listed += 1 + like as u64;
    }
    if g.count > listed {
        let _ = write!(smallest, "<li>… {} more</li>", g.count - listed);
    }
    smallest += "</ul>";
    item("smallest configurations", smallest);
    item(
        "message",
        format!("<code>{}</code>", esc(&f.triton_message)),
    );
    item("why", esc(&f.explanation));
    match &g.reproducer {
        Some(Reproducer::Command(command)) => {
            item("reproduce", format!("<pre>{}</pre>", esc(command)));
        }
        Some(Reproducer::Script { path, ran }) => {
            let python = build
                .python
                .as_ref()
                .map_or_else(|| "python".to_string(), |p| p.display().to_string());
            let ran = ran
                .as_ref()
                .map(|l| format!("<p>ran it: <code>{}</code></p>", esc(l)))
                .unwrap_or_default();
            item(
                "reproduce",
                format!(
                    "<pre>{} {}</pre>{ran}",
                    esc(&python),
                    esc(&path.display().to_string())
                ),
            );
        }
        None => {}
    }
    if let Some(m) = &g.minimal_module {
        item(
            "minimal TTGIR",
            format!(
                "<code>{}</code> ({} of {} ops; predicted {})",
                esc(&m.path.display().to_string()),
                m.ops_after,
                m.ops_before,
                esc(&m.expected.to_string())
            ),
        );
    }
    let mut fixes = format!(
        "first fixed in <strong>{}</strong><ul>",
        esc(&first_fix(report, g))
    );
    for (fix, n) in &g.fixes {
        let _ = write!(fixes, "<li>{}</li>", esc(&fix_line(report, fix, *n, g)));
    }
    fixes += "</ul>";
    item("fix", fixes);
    item("workaround", esc(g.site.workaround));
    let _ = writeln!(out, "</dl>");
    let given = options
        .layouts
        .iter()
        .find(|(at, _, tiles)| *at == i && !tiles.is_empty());
    let (source, tiles) = match given {
        Some((_, source, tiles)) => (esc(source), tiles.clone()),
        None => (
            "the smallest configuration".to_string(),
            report.first(&g.configs).map(C::layouts).unwrap_or_default(),
        ),
    };
    if tiles.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"note\">No layout pictures: neither the smallest configuration nor a \
             minimal TTGIR module gives this group's layouts.</p>"
        );
    } else {
        let _ = writeln!(out, "<h4>Layouts of {source}</h4><div class=\"pictures\">");
        for t in &tiles {
            picture(out, t, options, pictures);
        }
        let _ = writeln!(out, "</div>");
    }
    let _ = writeln!(out, "</article>");
}

/// One tile's picture, clipped to the options' size, or a reference to the
/// figure that drew the same layout.
fn picture(out: &mut String, t: &TileLayout, options: &HtmlOptions, pictures: &mut Pictures) {
    let key = format!("{:?}\n{}", t.shape, t.layout);
    let caption = format!("{} <code>{}</code>", esc(&t.what), esc(&t.attr));
    if let Some((_, n)) = pictures.drawn.iter().find(|(k, _)| *k == key) {
        let _ = writeln!(
            out,
            "<p>{caption}: the same layout as <a href=\"#figure-{n}\">figure {n}</a>.</p>"
        );
        return;
    }
    let n = pictures.drawn.len() + 1;
    // Rows and columns past the cap are left out, and the caption says so.
    let clip = |size: u64, cap: u64| {
        (size > cap).then_some(Span {
            start: 0,
            end: Some(cap),
        })
    };
    let cells = options.rows.max(1).saturating_mul(options.cols.max(1));
    let (window, note) = match t.shape[..] {
        [rows, cols] => {
            let w = Window {
                rows: clip(rows, options.rows.max(1)),
                cols: clip(cols, options.cols.max(1)),
            };
            let shown = |s: Option<Span>, size: u64| s.and_then(|s| s.end).unwrap_or(size);
            let note = format!(
                "rows 0..{} of {rows}, columns 0..{} of {cols}",
                shown(w.rows, rows),
                shown(w.cols, cols)
            );
            (w, note)
        }
        [size] => {
            let w = Window {
                rows: None,
                cols: clip(size, cells),
            };
            (w, format!("elements 0..{cells} of {size}"))
        }
        _ => (Window::default(), String::new()),
    };
    let clipped = window != Window::default();
    let opts = SvgOptions {
        window: clipped.then_some(window),
        max_cells: usize::try_from(cells).unwrap_or(usize::MAX),
        cell_px: None,
    };
    let note = if clipped {
        format!(" <span class=\"note\">(clipped: {note})</span>")
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<figure class=\"layout\" id=\"figure-{n}\"><figcaption>Figure {n}: {caption}{note}\
         </figcaption>"
    );
    match svg(&t.layout, &opts) {
        // In HTML an inline <svg> is SVG by the parser's rules: the
        // namespace attribute is redundant, and leaving it out keeps the
        // page free of any URL.
        // Its hatch patterns (warps past the palette) get ids of their
        // own figure: ids are one namespace across the page.
        Ok(s) => out.push_str(
            &s.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1)
                .replace("id=\"hatch", &format!("id=\"figure-{n}-hatch"))
                .replace("url(#hatch", &format!("url(#figure-{n}-hatch")),
        ),
        Err(e) => {
            let _ = write!(out, "<p class=\"note\">not drawn: {}</p>", esc(&e));
        }
    }
    let _ = writeln!(out, "</figure>");
    pictures.drawn.push((key, n));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_input_stays_text() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        // a bidirectional override is made visible, not applied
        assert_eq!(esc("a\u{202e}b"), "a\\u202eb");
    }
}
