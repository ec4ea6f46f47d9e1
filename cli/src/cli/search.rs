//! `linear-layout search`: the failing map of the parameter space.

use super::Found;
use super::predict::releases;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use linear_layout_triton::Release;
use linear_layout_triton::finder::search::{Options, Space, default_ctas};
use linear_layout_triton::finder::{Arch, Config, Dtype, Pattern, Variant};
use linear_layout_triton::release::releases_help;
use linear_layout_triton::report::render::{self, TextOptions};
use linear_layout_triton::report::{self, Reproducer, Subject};

#[derive(Args)]
#[command(
    after_help = "Exit status: 0 when no compiler failure is found (front-end rejections \
    do not count), 1 when one is, 2 on bad input."
)]
pub struct SearchArgs {
    #[arg(long, value_delimiter = ',', default_value = "all", help = releases_help())]
    triton: Vec<String>,
    /// Only these patterns, on every target (default: all; on the AMD
    /// targets dot, attention, attention-bias and desc-dot).
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
    /// Targets (default sm80,sm89,sm90 and every AMD target, gfx90a to
    /// gfx1250).
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
    /// How many of the smallest failing configurations to list per site
    /// (one per shape unless --all-variants).
    #[arg(long, default_value_t = 8)]
    show: usize,
    /// List every smallest configuration, not one per shape (those that
    /// differ only in element type, stages or target).
    #[arg(long)]
    all_variants: bool,
    /// List front-end rejections (fp8e4nv before sm89, 8-bit dots with K <
    /// 32, …) in full, like compiler failures, instead of one line each.
    #[arg(long)]
    all_rejections: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Print the report as JSON (the one `scan --json` prints too): {"total",
    /// "failing", "skipped", "configs", "groups": [{"release", "site",
    /// "kind", "verdict", "count", "function", "location",
    /// "triton_message", "explanation", "workaround", "minimal",
    /// "examples", "where", "reproducer", "fixes": [{"count", "fixed_in",
    /// "change", "pr", "blocker", "broken_again"}], …}], "regressions":
    /// [{"passes_in", "fails_in", "site", "kind", "count", "minimal", …}],
    /// "found_failure", …}.
    #[arg(long)]
    json: bool,
    /// Also write the report as one self-contained HTML page to FILE: the
    /// release × site table, each site's smallest configurations, `repro`
    /// command, fix and workaround, and pictures of the smallest
    /// configuration's load and accumulator layouts (which warp and lane
    /// hold which element; large tiles clipped). No script, no font, no
    /// link out. FILE is written atomically; an empty name, or a FILE that
    /// is a symbolic link or a directory, is refused.
    #[arg(long, value_name = "FILE")]
    html: Option<String>,
}

/// How many of the smallest configurations the text reads per shape it
/// lists: the default space's element types × stages × targets.
const VARIANTS_PER_SHAPE: usize = 6 * 4 * 3;

fn or_default<T: Clone>(given: &[T], default: Vec<T>) -> Vec<T> {
    if given.is_empty() {
        default
    } else {
        given.to_vec()
    }
}

pub fn run(args: SearchArgs) -> Result<Found, String> {
    if let Some(path) = &args.html {
        super::output::plain_path(path, "--html")?;
    }
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
        // Every release, by default, that one of the targets asked for
        // takes (AMD targets from 3.4).
        None if args.triton.iter().all(|t| t == "all") && !args.arch.is_empty() => asked
            .into_iter()
            .filter(|r| args.arch.iter().any(|a| !a.is_amd() || r.models_amd()))
            .collect(),
        None => asked,
    };
    let space = Space {
        patterns: or_default(&args.pattern, d.patterns),
        sizes: or_default(&args.sizes, d.sizes),
        dtypes: or_default(&args.dtype, d.dtypes),
        warps: or_default(&args.num_warps, d.warps),
        stages: or_default(&args.num_stages, d.stages),
        archs: or_default(&args.arch, d.archs),
        // Patterns asked for by name run on every target asked for.
        amd_patterns: or_default(&args.pattern, d.amd_patterns),
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
    // One per shape needs more of the smallest than it lists: each shape
    // comes in up to (element types × stages × targets) variants. The JSON
    // keeps --show's count.
    let examples = if args.json || args.all_variants {
        args.show
    } else {
        args.show.saturating_mul(VARIANTS_PER_SHAPE)
    };
    let options = Options {
        examples: examples.max(1),
    };
    let mut report = report::search(&space, &options, &|done, _| bar.set_position(done));
    bar.finish_and_clear();
    report.subject = Subject::Space {
        skipped: skipped.values.iter().map(|v| v.to_string()).collect(),
    };
    for g in &mut report.groups {
        let minimal = &report.configs[g.configs[0]];
        g.reproducer = Some(Reproducer::Command(reproduce(minimal)));
    }
    let found = Found::when(report.found_failure());
    let text = if args.json {
        format!("{}\n", render::json(&report))
    } else {
        let options = TextOptions {
            show: args.show,
            all_rejections: args.all_rejections,
            all_variants: args.all_variants,
        };
        render::text(&report, &options)
    };
    if let Some(path) = &args.html {
        let options = render::HtmlOptions {
            show: args.show,
            ..render::HtmlOptions::default()
        };
        let page = render::html(&report, &options);
        super::output::write_file(std::path::Path::new(path), page.as_bytes())?;
    }
    super::print_out(&text)?;
    Ok(found)
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
