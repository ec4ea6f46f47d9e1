//! `#ttg.amd_mfma` and its dot operands.
//!
//! 3.9 (`AMDMfmaEncodingAttr::toLinearLayout`, `mfmaDotToLinearLayout`)
//! is generic in the instruction shape (32×32, 16×16, 4×64, 64×4), knows
//! 64-bit accumulators (`elementBitWidth`) and `tilesPerWarp`. Up to 3.2 the
//! recipes only know 32×32 and 16×16 and build the same tiles; they differ
//! in the order repetitions are added (see [`amd_mfma`] and [`mfma_dot`]).

use super::Conversion;
use super::cga::{combine_cta_cga_with_shape, standard_dims};
use super::common::{check_warps_len, invalid};
use crate::attr::{AmdMfma, DotOperand};
use crate::error::Result;
use crate::failure::Failure;
use crate::release::{Release, Span};
use crate::site::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::utils::identity_standard_nd;
use linear_layout::{LinearLayout, supremum};

const LLC: &str = "lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp";

/// 3.2's accumulator builder knows 32×32 and 16×16 only.
static TYPE_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: "AMDMfmaEncodingAttr::toLinearLayout",
    file: LLC,
    line: None,
    message: "Assertion `((getMDim() == 32 && getNDim() == 32) || (getMDim() == 16 && getNDim() == 16)) && \"Unsupported mfma type\"' failed.",
};
/// 3.2's operand builder.
static DOT_MDIM_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: "mfmaDotToLinearLayout",
    file: LLC,
    line: None,
    message: "Assertion `mfmaLayout.getMDim() == 16' failed.",
};
/// The 64×4 instruction must be transposed (an assertion the 3.7.1 wheel
/// has and the 3.3.1 and 3.4.0 wheels lack).
static TRANSPOSED_64X4: Location = Location {
    releases: SITE_64X4_ASSERTED,
    ending: Ending::Assertion,
    function: "AMDMfmaEncodingAttr::toLinearLayout",
    file: LLC,
    line: None,
    message: "Assertion `isTransposed && \"64x4 mfma must be transposed\"' failed.",
};
/// `identity1D` on a size that is not a power of two.
pub(super) static IDENTITY_POW2: Location = Location {
    releases: Span::since(Release::V3_2),
    ending: Ending::Assertion,
    function: "LinearLayout::identity1D",
    file: "lib/Tools/LinearLayout.cpp",
    line: None,
    message: "Assertion `llvm::isPowerOf2_32(size)' failed.",
};

/// The releases that assert on an untransposed 64×4 instruction.
const SITE_64X4_ASSERTED: Span = Span::since(Release::V3_5);

/// The site: converting an AMD MFMA accumulator or operand.
pub(crate) static SITE: Site = Site {
    id: "amd_mfma",
    kind: SiteKind::Bug,
    title: "an AMD MFMA layout with an instruction shape, transposition or warp count the builder does not accept",
    locations: &[&TYPE_3_2, &DOT_MDIM_3_2, &TRANSPOSED_64X4, &IDENTITY_POW2],
    changes: &[Change {
        release: Release::V3_3,
        pr: None,
        what: "MFMA layouts are built generically for every instruction shape",
    }],
    workaround: "32x32 or 16x16 MFMA instructions, warps and tiles in powers of two",
};

/// Triton builds every factor with `identity1D`, which asserts a power of
/// two (and its sizes are `int32`).
pub(super) fn check_pow2(version: Release, what: &str, values: &[u64]) -> Result<()> {
    super::common::check_pow2(&SITE, &IDENTITY_POW2, version, what, values)
}

/// Lanes per wavefront on CDNA.
const WARP_SIZE: u64 = 64;

/// Whether `version` builds MFMA layouts the 3.2 way (only 32×32 and 16×16,
/// no `tilesPerWarp`, repetitions added by `combineCtaCgaWithShape` alone).
fn is_legacy(version: Release) -> bool {
    version.has_hand_built_mma_layouts()
}

/// `(mDim, nDim)` of the instruction.
fn mn_dims(m: &AmdMfma) -> Result<(u64, u64)> {
    match m.instr_shape.as_slice() {
        [md, nd, ..] => Ok((*md, *nd)),
        _ => Err(invalid(
            "#ttg.amd_mfma",
            format!("instrShape {:?} needs at least [M, N]", m.instr_shape),
        )),
    }
}

/// The rank, which must be 2 or 3 (an optional leading batch dim).
fn check_rank(kind: &str, rank: usize) -> Result<()> {
    if rank == 2 || rank == 3 {
        Ok(())
    } else {
        Err(invalid(
            kind,
            format!("MFMA layouts are rank 2 or 3 (with a batch dim), not rank {rank}"),
        ))
    }
}

/// `tilesPerWarp[d]`, 1 when absent (a 3-entry list on a rank-2 layout is
/// read by index, as Triton does).
fn tiles_per_warp(m: &AmdMfma, d: usize) -> u64 {
    m.tiles_per_warp
        .as_ref()
        .and_then(|t| t.get(d).copied())
        .unwrap_or(1)
}

/// `inner * outer` with Triton's out-dim merge: both factors are first put
/// in the `supremum` of their out-dim orders (Triton's product is by dim
/// name, so only the result's order depends on this).
fn mul(inner: &LinearLayout, outer: &LinearLayout) -> Result<LinearLayout> {
    let a: Vec<Dim> = inner.out_dim_names().collect();
    let b: Vec<Dim> = outer.out_dim_names().collect();
    let order: Vec<Dim> = supremum(&a, &b).into_iter().collect();
    let restrict = |l: &LinearLayout, own: &[Dim]| -> Result<LinearLayout> {
        let o: Vec<Dim> = order.iter().copied().filter(|d| own.contains(d)).collect();
        Ok(l.transpose_outs(&o)?)
    };
    Ok(restrict(inner, &a)?.product(&restrict(outer, &b)?)?)
}

/// One MFMA accumulator tile, out-dims `[dimN, dimM]`.
///
/// Not transposed: `height` registers along M (1 for 64-bit elements, else
/// 4), `nDim` lanes along N, the other `64 / nDim` lanes along M, then
/// `mDim·nDim / (64·height)` registers along M. Transposed swaps the roles
/// of M and N (lanes then go `mDim` along M first).
fn mfma_tile(
    mdim: u64,
    ndim: u64,
    height: u64,
    transposed: bool,
    dim_m: Dim,
    dim_n: Dim,
) -> Result<LinearLayout> {
    let tiles = (mdim * ndim) / (WARP_SIZE * height);
    let tile = if !transposed {
        let regs = LinearLayout::identity_1d(height, Dim::REGISTER, dim_m)?;
        let lanes = LinearLayout::identity_1d(ndim, Dim::LANE, dim_n)?.product(
            &LinearLayout::identity_1d(WARP_SIZE / ndim, Dim::LANE, dim_m)?,
        )?;
        mul(&regs, &lanes)?.product(&LinearLayout::identity_1d(tiles, Dim::REGISTER, dim_m)?)?
    } else {
        let regs = LinearLayout::identity_1d(height, Dim::REGISTER, dim_n)?;
        let lanes = LinearLayout::identity_1d(mdim, Dim::LANE, dim_m)?.product(
            &LinearLayout::identity_1d(WARP_SIZE / mdim, Dim::LANE, dim_n)?,
        )?;
        mul(&regs, &lanes)?.product(&LinearLayout::identity_1d(tiles, Dim::REGISTER, dim_n)?)?
    };
    Ok(tile.transpose_outs(&[dim_n, dim_m])?)
}

/// The accumulator layout.
///
/// 3.9: the tile, then along N `tilesPerWarp[N]` registers,
/// `warpsPerCTA[N]` warps and registers up to the tensor's (global) N size;
/// then along M `tilesPerWarp[M]` registers and `warpsPerCTA[M]` warps; the
/// batch warps last; `combineCtaCgaWithShape` adds the M repetitions.
///
/// 3.2: 32×32 or 16×16 only (asserted); the tile times the warps walked N,
/// M, batch; `combineCtaCgaWithShape` adds every repetition (N first).
pub(crate) fn amd_mfma(m: &AmdMfma, shape: &[u64], version: Release) -> Result<Conversion> {
    const KIND: &str = "#ttg.amd_mfma";
    let rank = shape.len();
    check_rank(KIND, rank)?;
    check_warps_len(KIND, "", &m.warps_per_cta, rank)?;
    let (mdim, ndim) = mn_dims(m)?;
    check_pow2(version, "warpsPerCTA", &m.warps_per_cta)?;
    if let Some(t) = &m.tiles_per_warp {
        check_pow2(version, "tilesPerWarp", t)?;
    }
    let batch = rank == 3;
    let (m_index, n_index) = (rank - 2, rank - 1);
    let (dim_m, dim_n) = (Dim::standard(m_index), Dim::standard(n_index));
    let wpc = &m.warps_per_cta;

    if is_legacy(version) {
        if !matches!((mdim, ndim), (32, 32) | (16, 16)) {
            return Err(Failure::at(
                &SITE,
                &TYPE_3_2,
                version,
                format!("a {mdim}x{ndim} instruction"),
            )
            .into());
        }
        let mut tile = mfma_tile(mdim, ndim, 4, m.is_transposed, dim_m, dim_n)?;
        let order: Vec<usize> = (0..rank).rev().collect();
        if batch {
            tile = tile
                .product(&LinearLayout::identity_1d(
                    1,
                    Dim::REGISTER,
                    Dim::standard(0),
                )?)?
                .product(&LinearLayout::identity_1d(1, Dim::LANE, Dim::standard(0))?)?;
        }
        let warps = identity_standard_nd(Dim::WARP, wpc, &order)?;
        let cta = mul(&tile, &warps)?;
        return combine_cta_cga_with_shape(cta, &m.cga, shape, version).map(Conversion::Layout);
    }

    if !matches!((mdim, ndim), (32, 32) | (16, 16) | (64, 4) | (4, 64)) {
        return Err(invalid(
            KIND,
            format!("invalid (mDim, nDim) combination: ({mdim}, {ndim})"),
        ));
    }
    if mdim == 64 && ndim == 4 && !m.is_transposed && !SITE_64X4_ASSERTED.contains(version) {
        return Err(invalid(
            KIND,
            format!(
                "a 64x4 MFMA instruction that is not transposed: modelled from 3.5 on, not in Triton {version}"
            ),
        ));
    }
    if mdim == 64 && ndim == 4 && !m.is_transposed {
        return Err(Failure::at(
            &SITE,
            &TRANSPOSED_64X4,
            version,
            "a 64x4 instruction that is not transposed",
        )
        .into());
    }
    let height = if m.element_bit_width == Some(64) {
        1
    } else {
        4
    };
    let mut tile = mfma_tile(mdim, ndim, height, m.is_transposed, dim_m, dim_n)?;

    let (tiles_m, tiles_n) = (tiles_per_warp(m, m_index), tiles_per_warp(m, n_index));
    let (warps_m, warps_n) = (wpc[m_index], wpc[n_index]);
    // N first: the warp's tiles, the warps, then registers over the rest of
    // the tensor's N extent (none when it is smaller than one CTA tile).
    tile = tile.product(&LinearLayout::identity_1d(tiles_n, Dim::REGISTER, dim_n)?)?;
    tile = tile.product(&LinearLayout::identity_1d(warps_n, Dim::WARP, dim_n)?)?;
    let n_cta_tile = ndim.saturating_mul(warps_n).saturating_mul(tiles_n);
    let n_rest = shape[n_index] / n_cta_tile;
    tile = tile.product(&LinearLayout::identity_1d(n_rest, Dim::REGISTER, dim_n)?)?;
    // Then M: the warp's tiles and the warps.
    tile = tile.product(&LinearLayout::identity_1d(tiles_m, Dim::REGISTER, dim_m)?)?;
    tile = tile.product(&LinearLayout::identity_1d(warps_m, Dim::WARP, dim_m)?)?;
    if batch {
        let d0 = Dim::standard(0);
        tile = tile
            .product(&LinearLayout::identity_1d(1, Dim::REGISTER, d0)?)?
            .product(&LinearLayout::identity_1d(1, Dim::LANE, d0)?)?
            .product(&LinearLayout::identity_1d(wpc[0], Dim::WARP, d0)?)?;
    }
    combine_cta_cga_with_shape(tile, &m.cga, shape, version).map(Conversion::Layout)
}

/// An operand of an MFMA dot.
///
/// `kWidth` registers along K; `nonKDim` lanes along the non-K dim, the
/// other `64 / nonKDim` lanes along K; for the 64-wide operand of a 4×64 /
/// 64×4 instruction 16 more K registers; registers over the rest of the
/// tensor's K; (newest) `tilesPerWarp[nonK]` registers along non-K. Warps
/// are the parent's, row-major, not broadcast (those along K are zeroed by
/// the fit when K is covered by registers).
///
/// The tile's out order is `[K, nonK, batch]`, so newest repeats K first;
/// 3.2 puts everything in `dim0, dim1, …` order first, so it repeats the
/// leading dim first.
pub(crate) fn mfma_dot(
    d: &DotOperand,
    m: &AmdMfma,
    shape: &[u64],
    version: Release,
) -> Result<Conversion> {
    const KIND: &str = "#ttg.dot_op";
    let rank = shape.len();
    check_rank(KIND, rank)?;
    check_warps_len(KIND, "the parent's ", &m.warps_per_cta, rank)?;
    let k_width = match d.k_width {
        Some(k) if k != 0 => k,
        _ => {
            return Err(invalid(
                KIND,
                "ttg.dot_op kWidth parameter is mandatory for MFMA parent",
            ));
        }
    };
    if d.op_idx > 1 {
        return Err(invalid(
            KIND,
            format!(
                "ttg.dot_op opIdx parameter can be 0 or 1, got: {}",
                d.op_idx
            ),
        ));
    }
    let (mdim, ndim) = mn_dims(m)?;
    check_pow2(version, "kWidth", &[k_width])?;
    check_pow2(version, "warpsPerCTA", &m.warps_per_cta)?;
    if let Some(t) = &m.tiles_per_warp {
        check_pow2(version, "tilesPerWarp", t)?;
    }
    let legacy = is_legacy(version);
    if legacy && !matches!((mdim, ndim), (32, 32) | (16, 16)) {
        return Err(Failure::at(
            &SITE,
            &DOT_MDIM_3_2,
            version,
            format!("an operand of a {mdim}x{ndim} instruction"),
        )
        .into());
    }
    if !legacy && !matches!((mdim, ndim), (32, 32) | (16, 16) | (64, 4) | (4, 64)) {
        return Err(invalid(
            "#ttg.amd_mfma",
            format!("invalid (mDim, nDim) combination: ({mdim}, {ndim})"),
        ));
    }
    let (k_index, non_k_index) = if d.op_idx == 0 {
        (rank - 1, rank - 2)
    } else {
        (rank - 2, rank - 1)
    };
    let (dim_k, dim_non_k) = (Dim::standard(k_index), Dim::standard(non_k_index));
    let non_k_dim = if d.op_idx == 0 { mdim } else { ndim };

    let regs = LinearLayout::identity_1d(k_width, Dim::REGISTER, dim_k)?;
    let lanes = LinearLayout::identity_1d(non_k_dim, Dim::LANE, dim_non_k)?.product(
        &LinearLayout::identity_1d(WARP_SIZE / non_k_dim, Dim::LANE, dim_k)?,
    )?;
    let mut tile = mul(&regs, &lanes)?;
    let mut k_tile = WARP_SIZE / non_k_dim * k_width;
    if (mdim == 64 && ndim == 4 && d.op_idx == 0) || (mdim == 4 && ndim == 64 && d.op_idx == 1) {
        tile = tile.product(&LinearLayout::identity_1d(16, Dim::REGISTER, dim_k)?)?;
        k_tile *= 16;
    }
    let k_size = shape[k_index];
    if k_size > k_tile {
        tile = tile.product(&LinearLayout::identity_1d(
            k_size / k_tile,
            Dim::REGISTER,
            dim_k,
        )?)?;
    }
    if !legacy {
        tile = tile.product(&LinearLayout::identity_1d(
            tiles_per_warp(m, non_k_index),
            Dim::REGISTER,
            dim_non_k,
        )?)?;
    }
    tile = tile.transpose_outs(&[dim_k, dim_non_k])?;
    if rank == 3 {
        let d0 = Dim::standard(0);
        tile = tile
            .product(&LinearLayout::identity_1d(1, Dim::REGISTER, d0)?)?
            .product(&LinearLayout::identity_1d(1, Dim::LANE, d0)?)?;
    }
    let warp_order: Vec<usize> = (0..rank).rev().collect();
    let warps = identity_standard_nd(Dim::WARP, &m.warps_per_cta, &warp_order)?;
    let cta = if legacy {
        let dims = standard_dims(rank);
        tile.transpose_outs(&dims)?
            .product(&warps.transpose_outs(&dims)?)?
    } else {
        mul(&tile, &warps)?
    };
    combine_cta_cga_with_shape(cta, &m.cga, shape, version).map(Conversion::Layout)
}
