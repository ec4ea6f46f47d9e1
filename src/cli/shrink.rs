//! `linear-layout shrink`: the smallest configuration failing at the same site.

use super::predict::{ConfigArgs, render};
use clap::Args;
use linear_layout::finder::search::shrink;

#[derive(Args)]
pub struct ShrinkArgs {
    #[command(flatten)]
    config: ConfigArgs,
}

pub fn run(args: ShrinkArgs) -> Result<(), String> {
    let cfg = args.config.config();
    cfg.validate().map_err(|e| e.to_string())?;
    match shrink(&cfg) {
        None => {
            super::print_out(&format!(
                "{cfg}\nverdict: ok — nothing fails, so there is nothing to shrink.\n"
            ))?;
            Ok(())
        }
        Some((small, p)) => {
            super::print_out("smallest configuration failing at the same site:\n\n")?;
            super::print_out(&render(&small, &p))?;
            Ok(())
        }
    }
}
