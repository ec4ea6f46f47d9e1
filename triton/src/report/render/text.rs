//! The report as text: what was looked at, then each section that has
//! something in it.

use super::configurations;
use crate::SiteKind;
use crate::finder::search::Fix;
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
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            show: 8,
            all_rejections: false,
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
        group(&mut out, report, g, options.show);
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
    confirmations(&mut out, report);
    out
}

/// A configuration by index, as text.
fn shown<C: Configuration>(report: &Report<C>, configs: &[usize]) -> String {
    report.first(configs).map(C::to_string).unwrap_or_default()
}

fn space_header<C>(out: &mut String, report: &Report<C>, skipped: &[String]) {
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

fn kernel_header<C>(out: &mut String, report: &Report<C>, k: &Kernel) {
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

fn group<C: Configuration>(out: &mut String, report: &Report<C>, g: &SiteGroup, show: usize) {
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
    let _ = writeln!(out, "  smallest:");
    let listed = g.configs.len().min(show);
    for &c in &g.configs[..listed] {
        let _ = writeln!(out, "    {}", report.configs[c]);
    }
    if g.count > listed as u64 {
        let _ = writeln!(out, "    … {} more", g.count - listed as u64);
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
fn fix_line<C>(report: &Report<C>, fix: &Fix, count: u64, g: &SiteGroup) -> String {
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

fn regressions<C: Configuration>(out: &mut String, report: &Report<C>) {
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

fn front_end<C: Configuration>(out: &mut String, report: &Report<C>) {
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

fn confirmations<C: Configuration>(out: &mut String, report: &Report<C>) {
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
