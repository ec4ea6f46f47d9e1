//! The layouts a configuration's tiles are held in, as [`predict`]
//! chooses them: the coalesced load of the first dot's operand A (or of a
//! scan's or gather's input) and, on NVIDIA targets with a modelled MMA,
//! the first dot's accumulator. Reports draw them (which thread holds
//! which element); the choices themselves stay in `decisions` and `cta`,
//! the functions `predict` calls.
//!
//! [`predict`]: super::predict()

use super::config::{Arch, Config, Pattern};
use super::cta;
use super::decisions::{choose_chain_mmas, choose_mma, coalesced_load_over};
use super::predict::per_cta_dots;
use crate::attr::Attr;
use crate::{Conversion, print_attr, to_linear_layout};
use linear_layout::LinearLayout;

/// One tile's layout.
#[derive(Clone, Debug)]
pub struct TileLayout {
    /// What the tile is (`operand A [M, K] load`).
    pub what: String,
    /// The attribute, as the release spells it in TTGIR.
    pub attr: String,
    /// The tile's shape.
    pub shape: Vec<u64>,
    /// The linear layout the release builds for it.
    pub layout: LinearLayout,
}

/// The layouts of `cfg`'s tiles, in program order; empty for a
/// configuration that is not valid. A tile whose attribute the release
/// builds no linear layout for is left out.
pub fn layouts(cfg: &Config) -> Vec<TileLayout> {
    if cfg.validate().is_err() {
        return Vec::new();
    }
    let bits = cfg.dtype.bits();
    let load = |shape: [u64; 2]| {
        // Row-major inputs: contiguous along the last dim. AMD's wider
        // warps go through the same coalescing pass (one CTA there).
        let blocked = if cfg.arch.is_amd() {
            coalesced_load_over(&shape, 1, bits, cfg.num_warps, cfg.arch.warp_size())
        } else {
            cta::coalesced_with_ctas(&shape, 1, bits, cfg.num_warps, cfg.num_ctas)
        };
        Attr::Blocked(blocked)
    };
    let mut tiles: Vec<(String, Attr, Vec<u64>)> = Vec::new();
    match cfg.pattern {
        Pattern::Scan | Pattern::Gather => tiles.push((
            format!("input [M, N] = [{}, {}] load", cfg.m, cfg.n),
            load([cfg.m, cfg.n]),
            vec![cfg.m, cfg.n],
        )),
        pattern => {
            let (d1, d2) = per_cta_dots(cfg);
            // The inductor kernel loads 3-d tiles and reshapes them: its
            // operand loads are not a 2-d coalesced load.
            if pattern != Pattern::Inductor3d {
                tiles.push((
                    format!("operand A [M, K] = [{}, {}] load", cfg.m, cfg.k),
                    load([cfg.m, cfg.k]),
                    vec![cfg.m, cfg.k],
                ));
            }
            // sm100's tcgen05 layouts and AMD's MFMA/WMMA are not modelled
            // as attributes here.
            if !cfg.arch.is_amd() && cfg.arch != Arch::Sm100 {
                let mma = match &d2 {
                    Some(d2) => choose_chain_mmas(cfg, &d1, d2).0,
                    None => choose_mma(cfg, &d1),
                };
                tiles.push((
                    format!(
                        "dot 1 accumulator [M, N] = [{}, {}] per CTA, MMA v{}",
                        d1.m, d1.n, mma.version
                    ),
                    Attr::NvidiaMma(mma.attr()),
                    vec![d1.m, d1.n],
                ));
            }
        }
    }
    tiles
        .into_iter()
        .filter_map(|(what, attr, shape)| {
            match to_linear_layout(&attr, &shape, cfg.triton, Some(bits)) {
                Ok(Conversion::Layout(layout)) => Some(TileLayout {
                    what,
                    attr: print_attr(&attr, cfg.triton.dialect()),
                    shape,
                    layout,
                }),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use linear_layout::dim;

    fn config(json: &str) -> Config {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_hopper_chain_holds_its_load_in_a_blocked_and_its_accumulator_in_an_mma_layout() {
        let cfg = config(
            r#"{"pattern": "chain-b", "m": 64, "n": 64, "k": 64, "x": 64, "dtype": "bf16",
                "num_warps": 8, "num_stages": 2, "arch": "sm90", "triton": "3.2"}"#,
        );
        let tiles = layouts(&cfg);
        assert_eq!(tiles.len(), 2);
        assert!(
            tiles[0].attr.starts_with("#triton_gpu.blocked<"),
            "{}",
            tiles[0].attr
        );
        assert!(
            tiles[1].attr.contains("versionMajor = 3"),
            "{}",
            tiles[1].attr
        );
        for t in &tiles {
            let sizes: Vec<u64> = t.layout.out_dims().map(|(_, s)| s).collect();
            assert_eq!(sizes, t.shape);
            // 8 warps of 32 lanes hold the tile
            assert_eq!(t.layout.in_dim_size(dim("warp")).unwrap(), 8);
            assert_eq!(t.layout.in_dim_size(dim("lane")).unwrap(), 32);
        }
    }

    #[test]
    fn an_invalid_configuration_has_no_layouts() {
        let mut cfg = config(
            r#"{"pattern": "dot", "m": 64, "n": 64, "k": 64, "dtype": "fp16",
                "num_warps": 4, "num_stages": 1, "arch": "sm80", "triton": "3.3"}"#,
        );
        assert_eq!(layouts(&cfg).len(), 2);
        cfg.m = 3;
        assert!(layouts(&cfg).is_empty());
    }
}
