//! `linear-layout predict`: the real compiler's verdict for one
//! configuration in each release asked, or a JSON Lines batch.

use super::Found;
use clap::Args;
use linear_layout_triton::Release;
use linear_layout_triton::finder::search::fix_for;
use linear_layout_triton::finder::{Arch, Config, Dtype, Pattern, Prediction, Variant, predict};
use linear_layout_triton::kernel_fields::{DEFAULTS, KernelFields, config_fields};
use linear_layout_triton::release::{release_help, releases_help};
use std::sync::OnceLock;

/// The kernel configuration flags shared by `predict`, `shrink` and `repro`:
/// the fields of a configuration (`kernel_fields`), with its defaults.
#[derive(Args, Clone)]
pub struct ConfigArgs {
    /// Kernel pattern: dot, chain-a, chain-b, inductor-3d, scan or gather.
    #[arg(long, default_value = DEFAULTS.pattern.name())]
    pub pattern: Pattern,
    /// M (power of two).
    #[arg(long, default_value_t = DEFAULTS.size)]
    pub m: u64,
    /// N (power of two).
    #[arg(long, default_value_t = DEFAULTS.size)]
    pub n: u64,
    /// K (power of two; the gather's index columns; scan takes none).
    #[arg(long, default_value_t = DEFAULTS.size)]
    pub k: u64,
    /// X, the chain patterns' second size (power of two; default 64 for chains).
    #[arg(long)]
    pub x: Option<u64>,
    /// Element type: fp16, bf16, fp32, fp8e4nv, fp8e5 or int8.
    #[arg(long, default_value = DEFAULTS.dtype.name())]
    pub dtype: Dtype,
    /// Warps: 1, 2, 4, 8, 16 or 32.
    #[arg(long, default_value_t = DEFAULTS.num_warps)]
    pub num_warps: u64,
    /// Pipeline stages: 1 to 4.
    #[arg(long, default_value_t = DEFAULTS.num_stages)]
    pub num_stages: u64,
    /// Target: sm80, sm86, sm89, sm90, sm100 or sm120.
    #[arg(long, default_value = DEFAULTS.arch.name())]
    pub arch: Arch,
    /// CTAs per program (`num_ctas`): 1, 2, 4 or 8; more than one needs
    /// sm90 or later.
    #[arg(long, default_value_t = DEFAULTS.num_ctas)]
    pub num_ctas: u64,
    /// A development build on top of the release: `pre-5905` (with --triton
    /// 3.3) is Triton between 3.2 and 3.3, whose pipeliner reordered rank-3
    /// shared buffers (triton #5882).
    #[arg(long)]
    pub variant: Option<Variant>,
}

/// One release for `shrink` and `repro`.
#[derive(Args, Clone)]
pub struct OneRelease {
    #[arg(long, default_value = "latest", help = release_help())]
    pub triton: Release,
}

impl ConfigArgs {
    /// The configuration in `triton` (X defaults for the chain patterns).
    pub fn config(&self, triton: Release) -> Config {
        KernelFields {
            pattern: self.pattern,
            m: self.m,
            n: self.n,
            k: self.k,
            x: self.x,
            dtype: Some(self.dtype),
            num_warps: Some(self.num_warps),
            num_stages: Some(self.num_stages),
            arch: Some(self.arch),
            num_ctas: Some(self.num_ctas),
            variant: self.variant,
        }
        .config(triton)
    }
}

/// `--batch`'s help: the fields of a configuration line.
fn batch_help() -> &'static str {
    static HELP: OnceLock<String> = OnceLock::new();
    HELP.get_or_init(|| {
        let fields: Vec<String> = config_fields().iter().map(|f| format!("\"{f}\"")).collect();
        format!(
            "Read JSON Lines configurations from stdin, one verdict line each: \
             {{{}}}; \"num_ctas\" may be left out (1), \"variant\" is for a development build, \
             \"x\" for the chain patterns and \"k\" for those that take one",
            fields.join(", ")
        )
    })
}

#[derive(Args)]
#[command(
    after_help = "Exit status: 0 when every release asked (every line of --batch) compiles the \
    configuration, 1 when one is predicted to fail, 2 on bad input or usage."
)]
pub struct PredictArgs {
    #[command(flatten)]
    config: ConfigArgs,
    #[arg(long, value_delimiter = ',', default_value = "all", help = releases_help())]
    triton: Vec<String>,
    /// Print one JSON line per release: {"config", "release", "verdict",
    /// "failure"?: {"site", "ending", "verdict", "function", "location",
    /// "triton_message", "explanation", …}, "steps"}.
    #[arg(long)]
    json: bool,
    #[arg(long, conflicts_with = "json", help = batch_help())]
    batch: bool,
}

/// The releases named by `--triton`: `all`, or names.
pub fn releases(names: &[String]) -> Result<Vec<Release>, String> {
    if names.iter().any(|n| n == "all") {
        return Ok(Release::ALL.to_vec());
    }
    let mut out: Vec<Release> = Vec::new();
    for n in names {
        let r: Release = n.parse().map_err(|e| format!("--triton: {e}"))?;
        if !out.contains(&r) {
            out.push(r);
        }
    }
    Ok(out)
}

/// A prediction for people.
pub fn render(cfg: &Config, p: &Prediction) -> String {
    let mut s = format!("{cfg}\nverdict: {}\n", p.verdict);
    if let Some(f) = &p.failure {
        s.push_str(&format!(
            "site:    {} ({} at {}, {})\nmessage: {}\nwhy:     {}\n",
            f.site.id,
            f.location.function,
            f.cite(),
            f.ending().describe(),
            f.triton_message,
            f.explanation
        ));
        let fix = fix_for(cfg);
        let fixed = match fix.fixed_in {
            Some(release) => format!("fixed in {release}: {}", fix.describe()),
            None => fix.describe(),
        };
        s.push_str(&format!(
            "fix:     {fixed}\nworkaround: {}\n",
            f.site.workaround
        ));
    }
    s.push_str("steps:\n");
    for step in &p.steps {
        s.push_str(&format!("  - {}\n", step.what));
        if let Some(layout) = &step.layout {
            for line in layout.trim_start_matches('\n').lines() {
                s.push_str(&format!("      {line}\n"));
            }
        }
    }
    s
}

/// One line per release for people.
fn render_line(release: Release, p: &Prediction) -> String {
    match &p.failure {
        None => format!("  {release:<5} {}\n", p.verdict),
        Some(f) => format!(
            "  {release:<5} {:<5} {} at {}: {}\n",
            p.verdict,
            f.site.id,
            f.cite(),
            f.triton_message
        ),
    }
}

pub fn run(args: PredictArgs) -> Result<Found, String> {
    if args.batch {
        return batch();
    }
    let releases = releases(&args.triton)?;
    let mut any = false;
    let mut out = String::new();
    let mut table = String::new();
    let mut refused = Vec::new();
    for &release in &releases {
        let cfg = args.config.config(release);
        // Several releases: one that does not model the configuration (more
        // than one CTA before 3.4) says so in its line.
        let p = match predict(&cfg) {
            Ok(p) => p,
            Err(e) if releases.len() > 1 => {
                if args.json {
                    out += &format!(
                        "{}\n",
                        serde_json::json!({"release": release.to_string(), "error": e.to_string()})
                    );
                } else {
                    table += &format!("  {release:<5} not modelled: {}\n", e.0);
                }
                refused.push(e.to_string());
                continue;
            }
            Err(e) => return Err(e.to_string()),
        };
        any |= p.failure.is_some();
        if args.json {
            out += &format!("{}\n", p.to_json_line(&cfg));
        } else if releases.len() == 1 {
            out += &render(&cfg, &p);
        } else {
            table += &render_line(release, &p);
        }
    }
    if refused.len() == releases.len() {
        // The same reason for every release is said once.
        refused.dedup();
        return Err(refused.join("; "));
    }
    if let (false, Some(&first)) = (table.is_empty(), releases.first()) {
        out = format!(
            "{}\n{table}(--triton RELEASE shows the steps that lead to one verdict)\n",
            args.config.config(first).kernel()
        );
    }
    super::print_out(&out)?;
    Ok(Found::when(any))
}

/// `--batch`: one answer per line of stdin.
fn batch() -> Result<Found, String> {
    let found = super::batch::run(
        |request| match linear_layout::eval::typed::<Config>(request) {
            Err(e) => super::batch::Answer::plain(
                serde_json::json!({"error": {"kind": "bad_request", "message": e}}),
            ),
            Ok(cfg) => match predict(&cfg) {
                Ok(p) => super::batch::Answer {
                    found: p.failure.is_some(),
                    value: serde_json::to_value(&p).unwrap_or_default(),
                },
                Err(e) => super::batch::Answer::plain(
                    serde_json::json!({"error": {"kind": "invalid_config", "message": e.to_string()}}),
                ),
            },
        },
    )?;
    Ok(Found::when(found))
}
