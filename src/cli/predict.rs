//! `linear-layout predict`: the real compiler's verdict for one
//! configuration, or a JSON Lines batch.

use clap::Args;
use linear_layout::finder::{Arch, Config, Dtype, Pattern, Prediction, Variant, predict};
use linear_layout::triton::TritonVersion;
use std::io::{BufRead, BufWriter, Write};

/// The kernel configuration flags shared by `predict`, `shrink` and `repro`.
#[derive(Args, Clone)]
pub struct ConfigArgs {
    /// Kernel pattern: dot, chain-a, chain-b or inductor-3d.
    #[arg(long, default_value = "chain-b")]
    pub pattern: Pattern,
    /// M (power of two).
    #[arg(long, default_value_t = 64)]
    pub m: u64,
    /// N (power of two).
    #[arg(long, default_value_t = 64)]
    pub n: u64,
    /// K (power of two).
    #[arg(long, default_value_t = 64)]
    pub k: u64,
    /// X, the chain patterns' second size (power of two; default 64 for chains).
    #[arg(long)]
    pub x: Option<u64>,
    /// Element type: fp16, bf16, fp32, fp8e4nv, fp8e5 or int8.
    #[arg(long, default_value = "bf16")]
    pub dtype: Dtype,
    /// Warps: 1, 2, 4, 8, 16 or 32.
    #[arg(long, default_value_t = 8)]
    pub num_warps: u64,
    /// Pipeline stages: 1 to 4.
    #[arg(long, default_value_t = 2)]
    pub num_stages: u64,
    /// Target: sm80, sm86, sm89, sm90, sm100 or sm120.
    #[arg(long, default_value = "sm90")]
    pub arch: Arch,
    /// Triton release: 3.1, 3.2, 3.3, 3.4, 3.7 (3.5 to 3.7), 3.8 or newest (3.9).
    #[arg(long, default_value = "3.2")]
    pub triton: TritonVersion,
    /// A development build on top of the release: `pre-5905` (with --triton
    /// 3.3) is Triton between 3.2 and 3.3, whose pipeliner reordered rank-3
    /// shared buffers (triton #5882).
    #[arg(long)]
    pub variant: Option<Variant>,
}

impl ConfigArgs {
    /// The configuration (X defaults to 64 for chain patterns).
    pub fn config(&self) -> Config {
        Config {
            pattern: self.pattern,
            m: self.m,
            n: self.n,
            k: self.k,
            x: if self.pattern.is_chain() {
                Some(self.x.unwrap_or(64))
            } else {
                self.x
            },
            dtype: self.dtype,
            num_warps: self.num_warps,
            num_stages: self.num_stages,
            arch: self.arch,
            triton: self.triton,
            variant: self.variant,
        }
    }
}

#[derive(Args)]
pub struct PredictArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Print JSON: {"verdict", "site", "message", "steps"}.
    #[arg(long)]
    json: bool,
    /// Read JSON Lines configurations from stdin, one verdict line each:
    /// {"pattern", "m", "n", "k", "x", "dtype", "num_warps", "num_stages",
    /// "arch", "triton"} and, for a development build, "variant".
    #[arg(long)]
    batch: bool,
}

/// A prediction for people.
pub fn render(cfg: &Config, p: &Prediction) -> String {
    let mut s = format!("{cfg}\nverdict: {}\n", p.verdict);
    if let (Some(site), Some(message)) = (&p.site, &p.message) {
        s.push_str(&format!("site:    {site}\nmessage: {message}\n"));
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

pub fn run(args: PredictArgs) -> Result<(), String> {
    if args.batch {
        let mut out = BufWriter::new(std::io::stdout().lock());
        for line in std::io::stdin().lock().lines() {
            let line = line.map_err(|e| format!("cannot read stdin: {e}"))?;
            if line.trim().is_empty() {
                continue;
            }
            let answer = match serde_json::from_str::<Config>(&line) {
                Err(e) => {
                    serde_json::json!({"error": {"kind": "bad_request", "message": e.to_string()}})
                }
                Ok(cfg) => match predict(&cfg) {
                    Ok(p) => serde_json::to_value(&p).unwrap_or_default(),
                    Err(e) => {
                        serde_json::json!({"error": {"kind": "invalid_config", "message": e.to_string()}})
                    }
                },
            };
            writeln!(out, "{answer}").map_err(|e| e.to_string())?;
        }
        return out.flush().map_err(|e| e.to_string());
    }
    let cfg = args.config.config();
    let p = predict(&cfg).map_err(|e| e.to_string())?;
    if args.json {
        super::print_out(&format!(
            "{}\n",
            serde_json::to_string(&p).map_err(|e| e.to_string())?
        ))?;
    } else {
        super::print_out(&render(&cfg, &p))?;
    }
    Ok(())
}
