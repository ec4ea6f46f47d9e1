//! `linear-layout sites`: the modelled failure sites and releases.

use clap::Args;
use linear_layout_triton::Release;
use linear_layout_triton::finder::site_table;

#[derive(Args)]
#[command(
    after_help = "Exit status: 0 on success, 2 on bad input or usage (it predicts nothing, so never 1)."
)]
pub struct SitesArgs {
    /// Print everything as JSON: {"releases": [...], "sites": [...]}.
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// Print the Markdown of notes/sites.md.
    #[arg(long)]
    markdown: bool,
    /// List the modelled releases only (as `linear-layout releases` does).
    #[arg(long, conflicts_with_all = ["json", "markdown"])]
    releases: bool,
}

pub fn run(args: SitesArgs) -> Result<(), String> {
    let out = if args.json {
        format!("{}\n", site_table::json())
    } else if args.markdown {
        site_table::markdown()
    } else if !args.releases {
        site_table::text()
    } else {
        super::releases::table(&Release::ALL)
    };
    super::print_out(&out)
}
