//! Shrinking a failing configuration to the smallest one that fails at the
//! same site.

use super::tally::rank;
use crate::finder::config::Config;
use crate::finder::predict::predict_traced;
use crate::finder::verdict::Prediction;

/// The smallest configuration failing at the same site as `cfg`: shrinks
/// the sizes, warps, stages and CTAs one step at a time while the site
/// stays the same. `None` when `cfg` is invalid or compiles.
pub fn shrink(cfg: &Config) -> Option<(Config, Prediction)> {
    let site = predict_traced(cfg, false).ok()?.site_id()?;
    let same = |c: &Config| {
        predict_traced(c, false)
            .ok()
            .is_some_and(|p| p.site_id() == Some(site))
    };
    let mut best = cfg.clone();
    loop {
        // Sizes stop where the pattern's smallest does (16 for a dot, 1
        // otherwise); a pattern without K keeps its K at 0.
        let smallest = if best.pattern.has_dot() { 16 } else { 1 };
        let halve = |v: u64| (v / 2).max(smallest);
        let candidates = (0..7).filter_map(|field| {
            let mut c = best.clone();
            match field {
                0 => c.m = halve(c.m),
                1 => c.n = halve(c.n),
                2 if c.pattern.takes_k() => c.k = halve(c.k),
                2 => {}
                3 => c.x = c.x.map(halve),
                4 => c.num_warps = (c.num_warps / 2).max(1),
                5 => c.num_ctas = (c.num_ctas / 2).max(1),
                _ => c.num_stages = c.num_stages.saturating_sub(1).max(1),
            }
            (c != best && same(&c)).then_some(c)
        });
        match candidates.min_by_key(|c| rank(c, 0)) {
            Some(c) => best = c,
            None => break,
        }
    }
    let p = predict_traced(&best, true).ok()?;
    Some((best, p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Release;
    use crate::finder::config::{Arch, Dtype, Pattern};

    /// A chain with four CTAs fails CTA planning in 3.8 whatever its sizes:
    /// it shrinks to the smallest chain, one warp, one stage and two CTAs
    /// (one CTA plans nothing, so the count stops at two).
    #[test]
    fn a_multi_cta_failure_keeps_its_ctas_down_to_two() {
        let cfg = Config {
            pattern: Pattern::ChainB,
            m: 128,
            n: 128,
            k: 64,
            x: Some(128),
            dtype: Dtype::Fp16,
            num_warps: 8,
            num_stages: 3,
            arch: Arch::Sm90,
            num_ctas: 4,
            triton: Release::V3_8,
            variant: None,
        };
        let (small, p) = shrink(&cfg).unwrap();
        assert_eq!(p.site_id(), Some("plan_cta"));
        assert_eq!(
            (
                small.m,
                small.n,
                small.k,
                small.x,
                small.num_warps,
                small.num_stages
            ),
            (16, 16, 16, Some(16), 1, 1)
        );
        assert_eq!(small.num_ctas, 2);
    }
}
