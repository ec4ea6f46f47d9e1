//! `linear-layout search`: the failing map of the parameter space.

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use linear_layout::finder::search::{Space, fix_for, search};
use linear_layout::finder::{Arch, Dtype, Pattern, Variant};
use linear_layout::triton::TritonVersion;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Args)]
pub struct SearchArgs {
    /// Only these releases (default: all: 3.1, 3.2, 3.3, 3.4, 3.7, 3.8, newest).
    #[arg(long, value_delimiter = ',')]
    triton: Vec<TritonVersion>,
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
    /// Search a development build instead of releases: `pre-5905` (Triton
    /// between 3.2 and 3.3; implies --triton 3.3).
    #[arg(long)]
    variant: Option<Variant>,
    /// How many failing configurations to list per site.
    #[arg(long, default_value_t = 8)]
    show: usize,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Print the groups as JSON: {"total", "failing", "groups": [{"release",
    /// "site", "verdict", "count", "minimal", "message", "fixed_in", "change"}]}.
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

pub fn run(args: SearchArgs) -> Result<(), String> {
    let d = Space::default();
    for &s in args.sizes.iter().chain(&args.num_warps) {
        if !s.is_power_of_two() {
            return Err(format!("{s} is not a power of two"));
        }
    }
    let space = Space {
        patterns: or_default(&args.pattern, d.patterns),
        sizes: or_default(&args.sizes, d.sizes),
        dtypes: or_default(&args.dtype, d.dtypes),
        warps: or_default(&args.num_warps, d.warps),
        stages: or_default(&args.num_stages, d.stages),
        archs: or_default(&args.arch, d.archs),
        releases: match args.variant {
            // A development build sits on one release.
            Some(v) => match args.triton.iter().find(|&&t| t != v.release()) {
                Some(&t) => {
                    let release = v.release();
                    return Err(format!(
                        "{}; pass --triton {release} or no --triton",
                        v.wrong_release(t)
                    ));
                }
                None => vec![v.release()],
            },
            None => or_default(&args.triton, d.releases),
        },
        variant: args.variant,
    };
    let total = space.configs().len() as u64;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} predicting {pos}/{len} configurations [{bar:40}] {per_sec} {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let started = std::time::Instant::now();
    let report = search(&space, &|n| bar.set_position(n as u64));
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    if args.json {
        let groups: Vec<serde_json::Value> = report
            .groups
            .iter()
            .map(|g| {
                let fix = fix_for(&g.minimal, &g.site);
                serde_json::json!({
                    "release": g.release.to_string(),
                    "site": g.site,
                    "verdict": g.verdict,
                    "count": g.configs.len(),
                    "minimal": g.minimal,
                    "message": g.minimal_prediction.message,
                    "fixed_in": fix.fixed_in.map(|v| v.to_string()),
                    "change": fix.change,
                })
            })
            .collect();
        let value =
            serde_json::json!({"total": report.total, "failing": report.failing, "groups": groups});
        return super::print_out(&format!("{value}\n"));
    }
    // How a group's build is named: the release, or the development build on it.
    let build = |release: TritonVersion| match args.variant {
        Some(v) => format!("{release} ({} build)", v.name()),
        None => release.to_string(),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} configurations predicted in {:.2} s ({:.0}/s); {} fail.\n",
        report.total,
        secs,
        report.total as f64 / secs.max(1e-9),
        report.failing
    );
    if report.groups.is_empty() {
        let _ = writeln!(out, "No configuration fails.");
        return super::print_out(&out);
    }
    let _ = writeln!(out, "== Failing configurations by release and site\n");
    for g in &report.groups {
        let _ = writeln!(
            out,
            "Triton {} — {} ({} configurations, verdict {})",
            build(g.release),
            g.site,
            g.configs.len(),
            g.verdict
        );
        let mut by_pattern: BTreeMap<(Pattern, Arch), usize> = BTreeMap::new();
        for c in &g.configs {
            *by_pattern.entry((c.pattern, c.arch)).or_default() += 1;
        }
        let summary: Vec<String> = by_pattern
            .iter()
            .map(|((p, a), n)| format!("{} on {}: {n}", p.name(), a.name()))
            .collect();
        let _ = writeln!(out, "  where: {}", summary.join(", "));
        for c in g.configs.iter().take(args.show) {
            let _ = writeln!(out, "    {c}");
        }
        if g.configs.len() > args.show {
            let _ = writeln!(out, "    … {} more", g.configs.len() - args.show);
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "== Minimal reproducer per site (fewest elements, then fewest warps)\n"
    );
    for g in &report.groups {
        let _ = writeln!(out, "Triton {} — {}", build(g.release), g.site);
        let _ = writeln!(out, "  {}", g.minimal);
        if let Some(m) = &g.minimal_prediction.message {
            let _ = writeln!(out, "  message: {m}");
        }
        let c = &g.minimal;
        let x = c.x.map(|x| format!(" --x {x}")).unwrap_or_default();
        let variant = c
            .variant
            .map(|v| format!(" --variant {}", v.name()))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  reproduce: linear-layout repro --pattern {} --m {} --n {} --k {}{x} --dtype {} --num-warps {} --num-stages {} --arch {} --triton {}{variant} --out repro-dir\n",
            c.pattern.name(),
            c.m,
            c.n,
            c.k,
            c.dtype.name(),
            c.num_warps,
            c.num_stages,
            c.arch.name(),
            c.triton
        );
    }
    let _ = writeln!(
        out,
        "== Fix validation: the first release that compiles each failing configuration\n"
    );
    for g in &report.groups {
        // Keyed by release and change together: one change can be the first
        // to compile some configurations and be followed by another site's
        // failure for others.
        let mut fixes: BTreeMap<(Option<TritonVersion>, String), usize> = BTreeMap::new();
        for c in &g.configs {
            let f = fix_for(c, &g.site);
            *fixes.entry((f.fixed_in, f.change)).or_default() += 1;
        }
        let _ = writeln!(out, "Triton {} — {}", build(g.release), g.site);
        for ((release, change), n) in fixes {
            let _ = match release {
                Some(r) => writeln!(out, "  {n} fixed in {r}: {change}"),
                None => writeln!(out, "  {n}: {change}"),
            };
        }
        let _ = writeln!(out);
    }
    super::print_out(&out)
}
