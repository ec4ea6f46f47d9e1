//! `linear-layout shrink`: the smallest configuration failing at the same site.

use super::Found;
use super::predict::{ConfigArgs, OneRelease, render};
use clap::Args;
use linear_layout_triton::finder::search::shrink;

#[derive(Args)]
#[command(
    after_help = "Exit status: 0 when the configuration compiles (nothing to shrink), 1 when it \
    fails (and is shrunk), 2 on bad input or usage."
)]
pub struct ShrinkArgs {
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    release: OneRelease,
}

pub fn run(args: ShrinkArgs) -> Result<Found, String> {
    let cfg = args.config.config(args.release.triton);
    cfg.validate().map_err(|e| e.to_string())?;
    match shrink(&cfg) {
        None => {
            super::print_out(&format!(
                "{cfg}\nverdict: ok — nothing fails, so there is nothing to shrink.\n"
            ))?;
            Ok(Found::Nothing)
        }
        Some((small, p)) => {
            super::print_out("smallest configuration failing at the same site:\n\n")?;
            super::print_out(&render(&small, &p))?;
            Ok(Found::Failures)
        }
    }
}
