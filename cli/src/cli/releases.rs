//! `linear-layout releases`: the release table, for people and for scripts.

use clap::Args;
use linear_layout_triton::{RELEASES, Release, releases_json};

#[derive(Args)]
pub struct ReleasesArgs {
    /// Print the table as JSON: {"releases": [{"name", "minors", "wheel",
    /// "wheels", "tag", "dialect", "latest", "models_multi_cta",
    /// "gluon_oracle", "catches_crashes", "ttgir": {...}}, ...]}, oldest
    /// first.
    #[arg(long, conflicts_with = "wheels")]
    json: bool,
    /// Print the wheel of each release on one line, separated by spaces,
    /// oldest first (for shell loops).
    #[arg(long)]
    wheels: bool,
    /// Only the releases whose several-CTA (thread-block cluster) lowering
    /// is modelled.
    #[arg(long)]
    multi_cta: bool,
}

pub fn run(args: ReleasesArgs) -> Result<(), String> {
    let chosen: Vec<Release> = Release::ALL
        .into_iter()
        .filter(|r| !args.multi_cta || r.models_multi_cta())
        .collect();
    let out = if args.json {
        let mut json = releases_json();
        if let Some(rows) = json["releases"].as_array_mut() {
            rows.retain(|row| chosen.iter().any(|r| row["name"] == r.name()));
        }
        format!("{json}\n")
    } else if args.wheels {
        let wheels: Vec<&str> = chosen.iter().map(|r| r.wheel()).collect();
        format!("{}\n", wheels.join(" "))
    } else {
        table(&chosen)
    };
    super::print_out(&out)
}

/// The table for people: one line per release.
pub fn table(chosen: &[Release]) -> String {
    let mut out = String::from(
        "release  stands for      wheel checked first  all wheels checked       tag      dialect     multi-CTA\n",
    );
    for info in RELEASES.iter().filter(|i| chosen.contains(&i.release)) {
        out += &format!(
            "{:<8} {:<15} {:<20} {:<24} {:<8} {:<11} {}\n",
            info.name,
            info.minors.join(", "),
            info.wheel,
            info.wheels.join(", "),
            info.tag,
            info.dialect,
            if info.release.models_multi_cta() {
                "modelled"
            } else {
                "-"
            }
        );
    }
    out
}
