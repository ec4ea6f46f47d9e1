//! The report as text: what was looked at, then each section that has
//! something in it.

use super::configurations;
use crate::SiteKind;
use crate::finder::search::{Fix, Scope};
use crate::report::{
    Cause, ConfigOutcome, Configuration, Kernel, Report, Reproducer, SiteGroup, Subject,
};
use std::fmt::Write as _;

/// How the text is laid out.
#[derive(Clone, Debug)]
pub struct TextOptions {
    /// How many of a group's smallest configurations to list.
    pub show: usize,
    /// List front-end rejections in full, like compiler failures, instead
    /// of one line each.
    pub all_rejections: bool,
    /// List each configuration, instead of one per shape (configurations
    /// that differ only in element type, stages or target).
    pub all_variants: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            show: 8,
            all_rejections: false,
            all_variants: false,
        }
    }
}

/// The report as text.
pub fn text<C: Configuration>(report: &Report<C>, options: &TextOptions) -> String {
    let mut out = String::new();
    match &report.subject {
        Subject::Space { skipped } => space_header(&mut out, report, skipped),
        Subject::Kernel(kernel) => kernel_header(&mut out, report, kernel),
    }
    summary(&mut out, report);
    let (bugs, rejections): (Vec<&SiteGroup>, Vec<&SiteGroup>) = report
        .groups
        .iter()
        .partition(|g| g.site.kind == SiteKind::Bug);
    let listed = if options.all_rejections {
        report.groups.iter().collect()
    } else {
        bugs
    };
    if listed.is_empty() {
        let _ = writeln!(out, "== No compiler failure in this space.\n");
    } else {
        let _ = writeln!(
            out,
            "== Compiler failures by release and site (smallest reproducer, fix, workaround)\n"
        );
    }
    for g in &listed {
        group(&mut out, report, g, options);
    }
    regressions(&mut out, report);
    if !options.all_rejections && !rejections.is_empty() {
        let _ = writeln!(
            out,
            "== Front-end rejections (documented refusals, not compiler bugs; --all-rejections lists them)\n"
        );
        for g in &rejections {
            let _ = writeln!(
                out,
                "Triton {} — {}: {} ({}), e.g. {}",
                report.builds[g.build],
                g.site.id,
                configurations(g.count),
                g.site.title,
                shown(report, &g.configs)
            );
        }
    }
    front_end(&mut out, report);
    super::risks::text(&mut out, report);
    confirmations(&mut out, report);
    out
}

/// A configuration by index, as text.
fn shown<C: Configuration>(report: &Report<C>, configs: &[usize]) -> String {
    report.first(configs).map(C::to_string).unwrap_or_default()
}

pub(super) fn space_header<C>(out: &mut String, report: &Report<C>, skipped: &[String]) {
    let count = |kind: SiteKind| {
        report
            .groups
            .iter()
            .filter(|g| g.site.kind == kind)
            .map(|g| g.count)
            .sum::<u64>()
    };
    let _ = writeln!(
        out,
        "{} configurations predicted in {:.2} s ({:.0}/s); {} fail: {} at compiler failures, {} \
         rejected by the front end.",
        report.total,
        report.seconds,
        report.total as f64 / report.seconds.max(1e-9),
        report.failing,
        count(SiteKind::Bug),
        count(SiteKind::Rejection)
    );
    if !skipped.is_empty() {
        let _ = writeln!(out, "{} value(s) skipped as invalid.", skipped.len());
    }
    let _ = writeln!(out);
}

pub(super) fn kernel_header<C>(out: &mut String, report: &Report<C>, k: &Kernel) {
    let n = report.configs.len();
    let _ = writeln!(
        out,
        "{} ({}): {} configuration(s) × {} release(s) in {:.2} s ({} front ends run, {} cached).",
        k.kernel,
        k.name,
        n,
        report.builds.len(),
        report.seconds,
        k.timing.ran,
        k.timing.cached
    );
    let scanned: Vec<String> = report
        .builds
        .iter()
        .map(|b| {
            let info = b.release.info();
            if info.wheels.len() > 1 || info.wheel != b.name {
                format!("{} ({} model)", b.name, b.release)
            } else {
                b.name.clone()
            }
        })
        .collect();
    let _ = writeln!(out, "Scanned: Triton {}.", scanned.join(", "));
    for (wheel, why) in &k.not_scanned {
        let _ = writeln!(out, "Not scanned: Triton {wheel}: {why}");
    }
    if k.torch == "stand-in" {
        let _ = writeln!(
            out,
            "(torch is not installed with these releases: a stand-in module answered the \
             kernel module's imports.)"
        );
    }
    // one row per build
    let _ = writeln!(out);
    for (b, row) in report.builds.iter().zip(&report.outcomes) {
        let fails = row
            .iter()
            .filter(|o| matches!(o, ConfigOutcome::Fails { .. }))
            .count();
        let front = row
            .iter()
            .filter(|o| matches!(o, ConfigOutcome::FrontEnd(_)))
            .count();
        let _ = writeln!(
            out,
            "  Triton {:<6} {:>4} ok, {:>4} fail in the lowering (predicted), {:>4} fail in the front end",
            b.name,
            n - fails - front,
            fails,
            front
        );
    }
    let _ = writeln!(out);
}

/// The answer first: one row per release and site, with how many fail
/// there, how, and the first release that compiles them.
fn summary<C>(out: &mut String, report: &Report<C>) {
    if report.groups.is_empty() {
        return;
    }
    let header = [
        "release",
        "site",
        "kind",
        "configurations",
        "verdict",
        "first fixed in",
    ];
    let rows: Vec<[String; 6]> = report
        .groups
        .iter()
        .map(|g| {
            [
                report.builds[g.build].to_string(),
                g.site.id.to_string(),
                match g.site.kind {
                    SiteKind::Bug => "bug".to_string(),
                    SiteKind::Rejection => "rejection".to_string(),
                },
                g.count.to_string(),
                g.verdict.to_string(),
                first_fix(report, g),
            ]
        })
        .collect();
    let _ = writeln!(
        out,
        "== Summary: failing configurations by release and site (details below)\n"
    );
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| -> String {
        let mut l = String::from(" ");
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            // counts right-aligned, the rest left
            if i == 3 {
                l += &format!(" {cell:>w$}");
            } else {
                l += &format!(" {cell:<w$}");
            }
        }
        l.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(header));
    for row in &rows {
        let _ = writeln!(out, "{}", line(row.each_ref().map(String::as_str)));
    }
    let _ = writeln!(out);
}

/// The first release that compiles some of a group's configurations, and
/// how many no release looked at compiles.
pub(super) fn first_fix<C>(report: &Report<C>, g: &SiteGroup) -> String {
    let first = g.fixes.iter().filter_map(|(f, _)| f.fixed_in).min();
    let never: u64 = g
        .fixes
        .iter()
        .filter(|(f, _)| f.fixed_in.is_none())
        .map(|(_, n)| n)
        .sum();
    let nothing = match g.fixes.first().map(|(f, _)| (f.scope, f.later)) {
        Some((_, false)) => "no later release",
        Some((Scope::Scanned, true)) => "none scanned",
        _ => "none",
    };
    match first {
        None => nothing.to_string(),
        Some(r) if never > 0 => format!("{} ({never} never)", report.name_of(r)),
        Some(r) => report.name_of(r),
    }
}

/// Up to `options.show` of `configs`, one per shape unless every variant
/// is asked for, each with how many of the others share its shape.
pub(super) fn listing<C: Configuration>(
    report: &Report<C>,
    configs: &[usize],
    options: &TextOptions,
) -> Vec<(usize, usize)> {
    let mut rows: Vec<(usize, usize, String)> = Vec::new();
    for &c in configs {
        let Some(config) = report.configs.get(c) else {
            continue;
        };
        if options.all_variants {
            if rows.len() == options.show {
                break;
            }
            rows.push((c, 0, String::new()));
            continue;
        }
        let shape = config.shape();
        if let Some(row) = rows.iter_mut().find(|r| r.2 == shape) {
            row.1 += 1;
        } else if rows.len() < options.show {
            rows.push((c, 0, shape));
        }
    }
    rows.into_iter().map(|(c, like, _)| (c, like)).collect()
}

fn group<C: Configuration>(
    out: &mut String,
    report: &Report<C>,
    g: &SiteGroup,
    options: &TextOptions,
) {
    let f = &g.failure;
    let build = &report.builds[g.build];
    let _ = writeln!(
        out,
        "Triton {build} — site {}: {}, verdict {}{}",
        g.site.id,
        configurations(g.count),
        g.verdict,
        if g.site.kind == SiteKind::Rejection {
            " (a front-end rejection)"
        } else {
            ""
        }
    );
    let _ = writeln!(out, "  what:      {}", g.site.title);
    let _ = writeln!(out, "  where:     {} at {}", f.location.function, f.cite());
    if let Some(op) = &g.op {
        let _ = writeln!(
            out,
            "  op:        TTGIR line {} ({}) of the minimal configuration",
            op.line, op.op
        );
    }
    if !g.places.is_empty() {
        let places: Vec<String> = g.places.iter().map(|(p, n)| format!("{p}: {n}")).collect();
        let _ = writeln!(out, "  patterns:  {}", places.join(", "));
    }
    let rows = listing(report, &g.configs, options);
    if options.all_variants {
        let _ = writeln!(out, "  smallest:");
    } else {
        let _ = writeln!(
            out,
            "  smallest (one per shape; +N: as many more that differ only in element type, \
             stages or target):"
        );
    }
    let mut listed = 0u64;
    for &(c, like) in &rows {
        let others = if like == 0 {
            String::new()
        } else {
            format!(" (+{like})")
        };
        let _ = writeln!(out, "    {}{others}", report.configs[c]);
        listed += 1 + like as u64;
    }
    if g.count > listed {
        let _ = writeln!(
            out,
            "    … {} more (--show N lists more shapes, --all-variants every configuration)",
            g.count - listed
        );
    }
    let _ = writeln!(out, "  message:   {}", f.triton_message);
    let _ = writeln!(out, "  why:       {}", f.explanation);
    match &g.reproducer {
        Some(Reproducer::Command(command)) => {
            let _ = writeln!(out, "  reproduce: {command}");
        }
        Some(Reproducer::Script { path, ran }) => {
            let python = build
                .python
                .as_ref()
                .map_or_else(|| "python".to_string(), |p| p.display().to_string());
            let _ = writeln!(out, "  reproduce: {python} {}", path.display());
            if let Some(line) = ran {
                let _ = writeln!(out, "             ran it: {line}");
            }
        }
        None => {}
    }
    if let Some(m) = &g.minimal_module {
        let compiled = match &m.compiled {
            Some(c) => format!(
                "; Triton {} gives {}{} ({})",
                build.name,
                c.status,
                if c.message.is_empty() {
                    String::new()
                } else {
                    format!(": {}", c.message)
                },
                if m.confirmed == Some(true) {
                    "confirmed"
                } else {
                    "NOT confirmed"
                }
            ),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "  minimal TTGIR: {} ({} of {} ops; predicted {}{compiled})",
            m.path.display(),
            m.ops_after,
            m.ops_before,
            m.expected
        );
    }
    let _ = writeln!(out, "  fixes:");
    for (fix, n) in &g.fixes {
        let _ = writeln!(out, "    {}", fix_line(report, fix, *n, g));
    }
    let _ = writeln!(out, "  workaround: {}\n", g.site.workaround);
}

/// One fix of a group.
pub(super) fn fix_line<C>(report: &Report<C>, fix: &Fix, count: u64, g: &SiteGroup) -> String {
    let Some(release) = fix.fixed_in else {
        return format!("{count}: {}", fix.describe());
    };
    let mut line = format!(
        "{count} fixed in {}: {}",
        report.name_of(release),
        fix.describe()
    );
    if let Some(blocker) = fix.blocker.filter(|b| *b != g.site) {
        line += &format!(" (they fail at {blocker} until then)");
    }
    if let Some((again, at)) = fix.broken_again {
        line += &format!("; failing again from {} at {at}", report.name_of(again));
    }
    line
}

pub(super) fn regressions<C: Configuration>(out: &mut String, report: &Report<C>) {
    if report.regressions.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "== Regressions: configurations that compile in one release and fail in the next\n"
    );
    for r in &report.regressions {
        let kind = match r.cause {
            Cause::Site(site) if site.kind == SiteKind::Rejection => " (a front-end rejection)",
            _ => "",
        };
        let _ = writeln!(
            out,
            "{} → {}, {}{kind}: {}, e.g. {}",
            report.name_of(r.passes_in),
            report.name_of(r.fails_in),
            r.cause,
            configurations(r.count),
            shown(report, &r.configs)
        );
    }
    let _ = writeln!(out);
}

pub(super) fn front_end<C: Configuration>(out: &mut String, report: &Report<C>) {
    if report.front_end.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "== Front-end failures (Triton's own messages, before any layout is lowered)\n"
    );
    for g in &report.front_end {
        let site = g
            .site
            .map(|s| format!(" [site {}: {}]", s.id, s.title))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "Triton {} — {} in {}, e.g. {}:\n    {}{site}",
            report.builds[g.build],
            g.status,
            configurations(g.configs.len() as u64),
            shown(report, &g.configs),
            g.message
        );
    }
    let _ = writeln!(out);
}

pub(super) fn confirmations<C: Configuration>(out: &mut String, report: &Report<C>) {
    if report.confirmations.is_empty() {
        return;
    }
    let agree = report.confirmations.iter().filter(|x| x.confirmed).count();
    let _ = writeln!(
        out,
        "== Confirmed by full compiles: {agree} of {} predictions\n",
        report.confirmations.len()
    );
    for x in report.confirmations.iter().filter(|x| !x.confirmed) {
        let _ = writeln!(
            out,
            "NOT CONFIRMED: Triton {} {}: predicted {}, the compile gave {}: {}",
            report.builds[x.build],
            shown(report, &[x.config]),
            x.predicted,
            x.real,
            x.message
        );
    }
    let _ = writeln!(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finder::search::{Options, Space};

    /// int8 dots with K = 16 on sm80, in one or two stages: 3.1 refuses
    /// both (one shape), 3.2 compiles them, 3.3 refuses them again.
    fn report() -> Report<crate::finder::Config> {
        let space = Space {
            patterns: vec!["dot".parse().unwrap()],
            sizes: vec![16],
            dtypes: vec!["int8".parse().unwrap()],
            warps: vec![4],
            stages: vec![1, 2],
            archs: vec!["sm80".parse().unwrap()],
            ctas: vec![1],
            ..Space::default()
        };
        crate::report::search(&space, &Options { examples: 8 }, &|_, _| {})
    }

    #[test]
    fn the_summary_table_opens_with_a_row_per_release_and_site() {
        let report = report();
        let options = TextOptions {
            all_rejections: true,
            ..TextOptions::default()
        };
        let text = text(&report, &options);
        let (summary, details) = text.split_once("== Compiler failures").unwrap();
        assert!(summary.contains("release site  kind      configurations verdict first fixed in"));
        let row = summary
            .lines()
            .find(|l| l.trim_start().starts_with("3.1"))
            .unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells, ["3.1", "dot_k", "rejection", "2", "error", "3.2"]);
        // 3.3's are refused by every later release too
        assert!(
            summary
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>()
                    == ["3.3", "dot_k", "rejection", "2", "error", "none"])
        );
        // the details follow, one section per row
        assert_eq!(details.matches("— site dot_k").count(), report.groups.len());
    }

    #[test]
    fn configurations_of_one_shape_are_listed_once_unless_every_variant_is_asked() {
        let report = report();
        let one = TextOptions {
            all_rejections: true,
            ..TextOptions::default()
        };
        let text_one = text(&report, &one);
        assert!(text_one.contains("stages=1 sm80 triton=3.1 (+1)\n"));
        assert!(!text_one.contains("stages=2 sm80 triton=3.1"));
        let every = TextOptions {
            all_variants: true,
            ..one
        };
        let text_every = text(&report, &every);
        assert!(text_every.contains("stages=1 sm80 triton=3.1\n"));
        assert!(text_every.contains("stages=2 sm80 triton=3.1\n"));
    }
}
