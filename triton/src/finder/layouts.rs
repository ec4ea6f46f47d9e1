//! The layouts a configuration's tiles are held in, as [`predict`]
//! chooses them: the coalesced load of the first dot's operand A (or of a
//! scan's or gather's input) and, on NVIDIA targets with a modelled MMA,
//! the first dot's accumulator ([`layouts`]); and the layouts an op of a
//! TTGIR module reads and writes ([`op_layouts`]: a failing conversion's
//! source and destination). Reports draw them (which thread holds which
//! element); the choices themselves stay in `decisions` and `cta`, the
//! functions `predict` calls.
//!
//! [`predict`]: super::predict()

use super::config::{Arch, Config, Pattern};
use super::cta;
use super::decisions::{choose_chain_mmas, choose_mma, coalesced_load_over};
use super::op::{all_typed, bits_of};
use super::predict::per_cta_dots;
use crate::attr::Attr;
use crate::{Conversion, Defs, Release, parse_attr, print_attr, to_linear_layout};
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

/// The layouts of the op on 1-based `line` of the TTGIR module `text`:
/// each distinct type written on the line (operands, then results), its
/// encoding read with the module's `#alias` definitions and built by
/// `release`. Empty when the line does not exist or holds no type the
/// release builds a layout for.
pub fn op_layouts(text: &str, line: usize, release: Release) -> Vec<TileLayout> {
    let Some(op) = line.checked_sub(1).and_then(|i| text.lines().nth(i)) else {
        return Vec::new();
    };
    let Ok(defs) = Defs::from_module(text) else {
        return Vec::new();
    };
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (shape, ty, encoding) in all_typed(op) {
        if seen.contains(&(shape.clone(), encoding.clone())) {
            continue;
        }
        seen.push((shape.clone(), encoding.clone()));
        let Ok(attr) = parse_attr(&encoding, &defs) else {
            continue;
        };
        let bits = bits_of(&ty);
        if let Ok(Conversion::Layout(layout)) = to_linear_layout(&attr, &shape, release, Some(bits))
        {
            let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
            out.push(TileLayout {
                what: format!("{}x{ty}, {encoding} (TTGIR line {line})", dims.join("x")),
                attr: print_attr(&attr, release.dialect()),
                shape,
                layout,
            });
        }
    }
    out
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
    fn a_failing_local_alloc_reads_its_register_and_shared_layouts() {
        let module = "#mma1 = #triton_gpu.nvidia_mma<{versionMajor = 3, versionMinor = 0, \
            warpsPerCTA = [8, 1], instrShape = [16, 8, 16]}>\n\
            #shared = #triton_gpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0], \
            hasLeadingOffset = true}>\n\
            module attributes {\"triton_gpu.num-warps\" = 8 : i32} {\n\
            %28 = triton_gpu.local_alloc %27 : (tensor<64x16xbf16, #mma1>) -> \
            !tt.memdesc<64x16xbf16, #shared, #triton_gpu.shared_memory>\n}\n";
        let tiles = op_layouts(module, 4, Release::V3_2);
        let what: Vec<&str> = tiles.iter().map(|t| t.what.as_str()).collect();
        assert_eq!(
            what,
            [
                "64x16xbf16, #mma1 (TTGIR line 4)",
                "64x16xbf16, #shared (TTGIR line 4)"
            ]
        );
        assert_eq!(tiles[0].layout.in_dim_size(dim("warp")).unwrap(), 8);
        assert_eq!(tiles[1].layout.in_dim_size(dim("offset")).unwrap(), 64 * 16);
        // no such line, or a line without types
        assert!(op_layouts(module, 9, Release::V3_2).is_empty());
        assert!(op_layouts(module, 0, Release::V3_2).is_empty());
        assert!(op_layouts(module, 3, Release::V3_2).is_empty());
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
