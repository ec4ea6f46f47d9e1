//! `linear-layout search`: the failing map of the parameter space.

use super::Found;
use super::predict::releases;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use linear_layout_triton::finder::search::{
    Fix, Options, Report, SiteGroup, Space, default_ctas, search,
};
use linear_layout_triton::finder::{Arch, Config, Dtype, Pattern, Variant};
use linear_layout_triton::release::releases_help;
use linear_layout_triton::{Entry, Release, Site, SiteKind};
use serde_json::{Value, json};
use std::fmt::Write as _;

#[derive(Args)]
#[command(
    after_help = "Exit status: 0 when no compiler failure is found (front-end rejections \
    do not count), 1 when one is, 2 on bad input."
)]
pub struct SearchArgs {
    #[arg(long, value_delimiter = ',', default_value = "all", help = releases_help())]
    triton: Vec<String>,
    /// Only these patterns (default: all).
    #[arg(long, value_delimiter = ',')]
    pattern: Vec<Pattern>,
    /// Block sizes for M, N, K and X (default 16,32,64,128).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<u64>,
    /// Element types (default: all).
    #[arg(long, value_delimiter = ',')]
    dtype: Vec<Dtype>,
    /// Warps (default 1,2,4,8,16,32).
    #[arg(long, value_delimiter = ',')]
    num_warps: Vec<u64>,
    /// Stages (default 1,2,3,4).
    #[arg(long, value_delimiter = ',')]
    num_stages: Vec<u64>,
    /// Targets (default sm80,sm89,sm90).
    #[arg(long, value_delimiter = ',')]
    arch: Vec<Arch>,
    /// CTAs per program (default 1,2; more than one is searched on sm90
    /// and later only).
    #[arg(long, value_delimiter = ',')]
    num_ctas: Vec<u64>,
    /// Search a development build instead of releases: `pre-5905` (Triton
    /// between 3.2 and 3.3; implies --triton 3.3).
    #[arg(long)]
    variant: Option<Variant>,
    /// Drop values `predict` would refuse (a size of 2048, 0 stages, …) and
    /// say how many, instead of stopping at the first.
    #[arg(long)]
    skip_invalid: bool,
    /// How many of the smallest failing configurations to list per site.
    #[arg(long, default_value_t = 8)]
    show: usize,
    /// List front-end rejections (fp8e4nv before sm89, 8-bit dots with K <
    /// 32, …) in full, like compiler failures, instead of one line each.
    #[arg(long)]
    all_rejections: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Print the report as JSON: {"total", "failing", "skipped", "groups":
    /// [{"release", "site", "kind", "verdict", "count", "function",
    /// "location", "triton_message", "explanation", "workaround", "minimal",
    /// "examples", "where", "fixes": [{"count", "fixed_in", "change",
    /// "blocker", "broken_again"}]}], "regressions": [{"passes_in",
    /// "fails_in", "site", "kind", "count", "minimal"}]}.
    #[arg(long)]
    json: bool,
}

fn or_default<T: Clone>(given: &[T], default: Vec<T>) -> Vec<T> {
    if given.is_empty() {
        default
    } else {
        given.to_vec()
    }
}

pub fn run(args: SearchArgs) -> Result<Found, String> {
    let d = Space::default();
    let asked = releases(&args.triton)?;
    let releases = match args.variant {
        // A development build sits on one release.
        Some(v) => {
            let named: Vec<&String> = args.triton.iter().filter(|t| *t != "all").collect();
            match asked.iter().find(|&&t| t != v.release()) {
                Some(&t) if !named.is_empty() => {
                    return Err(format!(
                        "{}; pass --triton {} or no --triton",
                        v.wrong_release(t),
                        v.release()
                    ));
                }
                _ => vec![v.release()],
            }
        }
        None => asked,
    };
    let space = Space {
        patterns: or_default(&args.pattern, d.patterns),
        sizes: or_default(&args.sizes, d.sizes),
        dtypes: or_default(&args.dtype, d.dtypes),
        warps: or_default(&args.num_warps, d.warps),
        stages: or_default(&args.num_stages, d.stages),
        archs: or_default(&args.arch, d.archs),
        ctas: or_default(
            &args.num_ctas,
            default_ctas(releases.iter().copied().max().unwrap_or(Release::LATEST)),
        ),
        releases,
        variant: args.variant,
    };
    let (space, skipped) = space
        .validated(args.skip_invalid)
        .map_err(|e| format!("{e} (--skip-invalid drops such values)"))?;
    for v in &skipped.values {
        eprintln!("skipped {v}");
    }
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(space.count())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} predicting {human_pos}/{human_len} configurations [{bar:40}] {per_sec} ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let started = std::time::Instant::now();
    let options = Options {
        examples: args.show.max(1),
    };
    let report = search(&space, &options, &|done, _| bar.set_position(done));
    bar.finish_and_clear();
    let found = Found::when(report.groups.iter().any(|g| g.site.kind == SiteKind::Bug));
    let skipped: Vec<String> = skipped.values.iter().map(|v| v.to_string()).collect();
    if args.json {
        let value = report_json(&report, &skipped);
        super::print_out(&format!("{value}\n"))?;
        return Ok(found);
    }
    let secs = started.elapsed().as_secs_f64();
    let text = render(&report, &args, args.variant, secs, &skipped);
    super::print_out(&text)?;
    Ok(found)
}

/// How a group's build is named: the release, or the development build on it.
fn build(release: Release, variant: Option<Variant>) -> String {
    match variant {
        Some(v) => format!("{release} ({} build)", v.name()),
        None => release.to_string(),
    }
}

/// The `repro` command for a configuration.
fn reproduce(c: &Config) -> String {
    let x = c.x.map(|x| format!(" --x {x}")).unwrap_or_default();
    let k = if c.pattern.takes_k() {
        format!(" --k {}", c.k)
    } else {
        String::new()
    };
    let ctas = if c.num_ctas == 1 {
        String::new()
    } else {
        format!(" --num-ctas {}", c.num_ctas)
    };
    let variant = c
        .variant
        .map(|v| format!(" --variant {}", v.name()))
        .unwrap_or_default();
    format!(
        "linear-layout repro --pattern {} --m {} --n {}{k}{x} --dtype {} --num-warps {} --num-stages {} --arch {}{ctas} --triton {}{variant} --out repro-dir",
        c.pattern.name(),
        c.m,
        c.n,
        c.dtype.name(),
        c.num_warps,
        c.num_stages,
        c.arch.name(),
        c.triton
    )
}

/// One fix line; `site` is the group's.
fn fix_text(fix: &Fix, count: u64, site: &Site) -> String {
    let Some(release) = fix.fixed_in else {
        return format!("{count}: {}", fix.describe());
    };
    let mut line = format!("{count} fixed in {release}: {}", fix.describe());
    if let Some(blocker) = fix.blocker.filter(|b| *b != site) {
        line += &format!(" (they fail at {blocker} until then)");
    }
    if let Some((again, at)) = fix.broken_again {
        line += &format!("; failing again from {again} at {at}");
    }
    line
}

fn render(
    report: &Report,
    args: &SearchArgs,
    variant: Option<Variant>,
    secs: f64,
    skipped: &[String],
) -> String {
    let mut out = String::new();
    let (bugs, rejections): (Vec<&SiteGroup>, Vec<&SiteGroup>) = report
        .groups
        .iter()
        .partition(|g| g.site.kind == SiteKind::Bug);
    let count = |gs: &[&SiteGroup]| gs.iter().map(|g| g.count).sum::<u64>();
    let _ = writeln!(
        out,
        "{} configurations predicted in {:.2} s ({:.0}/s); {} fail: {} at compiler failures, {} \
         rejected by the front end.",
        report.total,
        secs,
        report.total as f64 / secs.max(1e-9),
        report.failing,
        count(&bugs),
        count(&rejections)
    );
    if !skipped.is_empty() {
        let _ = writeln!(out, "{} value(s) skipped as invalid.", skipped.len());
    }
    let _ = writeln!(out);
    let listed: Vec<&SiteGroup> = if args.all_rejections {
        report.groups.iter().collect()
    } else {
        bugs.clone()
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
        group_text(&mut out, g, args.show, variant);
    }
    if !report.regressions.is_empty() {
        let _ = writeln!(
            out,
            "== Regressions: configurations that compile in one release and fail in the next\n"
        );
        for r in &report.regressions {
            let kind = match r.site.kind {
                SiteKind::Bug => "",
                SiteKind::Rejection => " (a front-end rejection)",
            };
            let _ = writeln!(
                out,
                "{} → {}, site {}{kind}: {} configurations, e.g. {}",
                r.passes_in, r.fails_in, r.site.id, r.count, r.minimal
            );
        }
        let _ = writeln!(out);
    }
    if !args.all_rejections && !rejections.is_empty() {
        let _ = writeln!(
            out,
            "== Front-end rejections (documented refusals, not compiler bugs; --all-rejections lists them)\n"
        );
        for g in &rejections {
            let _ = writeln!(
                out,
                "Triton {} — {}: {} configurations ({}), e.g. {}",
                build(g.release, variant),
                g.site.id,
                g.count,
                g.site.title,
                g.minimal
            );
        }
    }
    out
}

fn group_text(out: &mut String, g: &SiteGroup, show: usize, variant: Option<Variant>) {
    let failure = g.minimal_prediction.failure.as_ref();
    let location = failure.map(|f| format!("{} at {}", f.location.function, f.cite()));
    let _ = writeln!(
        out,
        "Triton {} — site {}: {} configurations, verdict {}",
        build(g.release, variant),
        g.site.id,
        g.count,
        g.verdict
    );
    let _ = writeln!(out, "  what:      {}", g.site.title);
    if let Some(location) = location {
        let _ = writeln!(out, "  where:     {location}");
    }
    let summary: Vec<String> = g
        .by_pattern
        .iter()
        .map(|((p, a), n)| format!("{} on {}: {n}", p.name(), a.name()))
        .collect();
    let _ = writeln!(out, "  patterns:  {}", summary.join(", "));
    let _ = writeln!(out, "  smallest:");
    for c in g.examples.iter().take(show) {
        let _ = writeln!(out, "    {c}");
    }
    if g.count > g.examples.len().min(show) as u64 {
        let _ = writeln!(
            out,
            "    … {} more",
            g.count - g.examples.len().min(show) as u64
        );
    }
    if let Some(f) = failure {
        let _ = writeln!(out, "  message:   {}", f.triton_message);
        let _ = writeln!(out, "  why:       {}", f.explanation);
    }
    let _ = writeln!(out, "  reproduce: {}", reproduce(&g.minimal));
    let _ = writeln!(out, "  fixes:");
    for (fix, n) in &g.fixes {
        let _ = writeln!(out, "    {}", fix_text(fix, *n, g.site));
    }
    let _ = writeln!(out, "  workaround: {}\n", g.site.workaround);
}

fn fix_json(fix: &Fix, count: u64) -> Value {
    json!({
        "count": count,
        "fixed_in": fix.fixed_in.map(|r| r.to_string()),
        "change": fix.describe(),
        "pr": fix.change.and_then(|c| c.0.pr),
        "blocker": fix.blocker.map(|s| s.id),
        "broken_again": fix.broken_again.map(|(r, s)| json!({"release": r.to_string(), "site": s.id})),
    })
}

fn report_json(report: &Report, skipped: &[String]) -> Value {
    let groups: Vec<Value> = report
        .groups
        .iter()
        .map(|g| {
            let f = g.minimal_prediction.failure.as_ref();
            let places: serde_json::Map<String, Value> = g
                .by_pattern
                .iter()
                .map(|((p, a), n)| (format!("{} on {}", p.name(), a.name()), json!(n)))
                .collect();
            json!({
                "release": g.release.to_string(),
                "site": g.site.id,
                "kind": g.site.kind,
                "verdict": g.verdict,
                "count": g.count,
                "function": f.map(|f| f.location.function),
                "location": f.map(|f| f.cite()),
                "ending": f.map(|f| f.ending()),
                "verdict_from_file": f.map(|f| f.verdict(Entry::IrFile)),
                "triton_message": f.map(|f| f.triton_message.clone()),
                "explanation": f.map(|f| f.explanation.clone()),
                "workaround": g.site.workaround,
                "minimal": g.minimal,
                "examples": g.examples,
                "where": places,
                "fixes": g.fixes.iter().map(|(fix, n)| fix_json(fix, *n)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let regressions: Vec<Value> = report
        .regressions
        .iter()
        .map(|r| {
            json!({
                "passes_in": r.passes_in.to_string(),
                "fails_in": r.fails_in.to_string(),
                "site": r.site.id,
                "kind": r.site.kind,
                "count": r.count,
                "minimal": r.minimal,
            })
        })
        .collect();
    json!({
        "total": report.total,
        "failing": report.failing,
        "skipped": skipped,
        "groups": groups,
        "regressions": regressions,
    })
}
