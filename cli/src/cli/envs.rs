//! `linear-layout envs`: the Triton environments `scan` installed, listed
//! with their size, and removed on request.

use clap::Args;
use linear_layout_scan::{default_cache_dir, environments, remove_environments};
use std::path::PathBuf;

#[derive(Args)]
#[command(
    after_help = "Only directories `venv-X.Y.Z` of a release in the table, holding a \
    pyvenv.cfg, are listed or removed; a symbolic link is never followed.\n\n\
    Exit status: 0 on success, 2 on bad input or usage (it predicts nothing, so never 1)."
)]
pub struct EnvsArgs {
    /// The environments' directory (default: the cache directory's
    /// `venvs`, where `scan` installs them).
    #[arg(long)]
    venv_dir: Option<PathBuf>,
    /// Remove these releases' environments (`3.2`, `3.9.0`, or `all`).
    #[arg(long, value_delimiter = ',')]
    remove: Vec<String>,
    /// Print `[{"wheel", "path", "bytes", "ready"}]` (what is left) instead
    /// of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: EnvsArgs) -> Result<(), String> {
    for r in &a.remove {
        if r != "all" && r.parse::<linear_layout_triton::Release>().is_err() {
            return Err(format!(
                "--remove {r}: not a Triton release (3.1 … 3.9, a wheel such as 3.5.1, or all)"
            ));
        }
    }
    let dir = a
        .venv_dir
        .unwrap_or_else(|| default_cache_dir().join("venvs"));
    let mut out = String::new();
    if !a.remove.is_empty() {
        let removed = remove_environments(&dir, &a.remove).map_err(|e| e.to_string())?;
        if !a.json {
            for env in &removed {
                out += &format!(
                    "removed triton=={} ({}, {:.1} MB)\n",
                    env.wheel,
                    env.path.display(),
                    env.bytes as f64 / 1e6
                );
            }
            if removed.is_empty() {
                out += "nothing to remove\n";
            }
        }
    }
    let envs = environments(&dir).map_err(|e| e.to_string())?;
    if a.json {
        let list: Vec<_> = envs
            .iter()
            .map(|e| {
                serde_json::json!({"wheel": e.wheel, "path": e.path, "bytes": e.bytes,
                                   "ready": e.ready})
            })
            .collect();
        out += &format!("{}\n", serde_json::Value::Array(list));
    } else if envs.is_empty() {
        out += &format!("no Triton environments in {}\n", dir.display());
    } else {
        let total: u64 = envs.iter().map(|e| e.bytes).sum();
        out += &format!("Triton environments in {}:\n", dir.display());
        for e in &envs {
            let state = if e.ready { "" } else { " (incomplete)" };
            out += &format!(
                "  triton=={:<7} {:>8.1} MB{state}\n",
                e.wheel,
                e.bytes as f64 / 1e6
            );
        }
        out += &format!(
            "{:.1} MB in all; `linear-layout envs --remove 3.2` (or `all`) removes them\n",
            total as f64 / 1e6
        );
    }
    super::print_out(&out)
}
