//! `#ttg.amd_wmma` and its dot operands.
//!
//! 3.9: the attribute stores its CTA part (`ctaLayout`: `register` and
//! `warp` bases in units of 16×16 instruction tiles); the accumulator is
//! the instruction tile times that layout (`AMDWmmaEncodingAttr::
//! toLinearLayout`), an operand a K-contiguous operand tile times the same
//! layout with its K component projected away
//! (`wmmaDotOperandToLinearLayout`).
//!
//! 3.2: `warpsPerCTA` instead of `ctaLayout`, versions 1 and 2 only, the
//! same tiles; operands have no linear layout.

use super::Conversion;
use super::cga::{combine_cta_cga_with_shape, standard_dims};
use super::common::{check_warps_len, invalid, matrix_order};
use crate::attr::{AmdWmma, DotOperand};
use crate::error::Result;
use crate::failure::Failure;
use crate::release::{Release, Span};
use crate::site::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::utils::identity_standard_nd;

const LLC: &str = "lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp";
const SHAPE_MESSAGE: &str = "Assertion `((shape[mIndex] == 1 || shape[mIndex] >= mDim) && (shape[nIndex] == 1 || shape[nIndex] >= nDim)) && \"Unsupported tensor shape for given wmma layout\"' failed.";

/// 3.2 knows WMMA versions 1 and 2.
static VERSION_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: "AMDWmmaEncodingAttr::toLinearLayout",
    file: LLC,
    line: None,
    message: "Assertion `ver == 1 || ver == 2' failed.",
};
/// Later releases know versions 1 to 3 (the string is in the 3.6.0 and
/// 3.7.1 wheels, not in 3.3.1's, 3.4.0's or 3.5.1's; the verifier refuses
/// other versions first).
static VERSION: Location = Location {
    releases: Span::since(Release::V3_6),
    ending: Ending::Assertion,
    function: "AMDWmmaEncodingAttr::toLinearLayout",
    file: LLC,
    line: None,
    message: "Assertion `version >= 1 && version <= 3 && \"unexpected wmma version\"' failed.",
};
/// The same check in the operand builder.
static DOT_VERSION: Location = Location {
    releases: Span::since(Release::V3_6),
    ending: Ending::Assertion,
    function: "wmmaDotOperandToLinearLayout",
    file: LLC,
    line: None,
    message: "Assertion `version >= 1 && version <= 3 && \"unexpected wmma version\"' failed.",
};
/// A tensor smaller than one instruction along M or N (3.2).
static SHAPE_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: "AMDWmmaEncodingAttr::toLinearLayout",
    file: LLC,
    line: None,
    message: SHAPE_MESSAGE,
};
/// The same from 3.4 to 3.7 (3.3 has no check; 3.8 broadcasts instead,
/// upstream 1299a3b8e).
static SHAPE: Location = Location {
    releases: Span::until(Release::V3_4, Release::V3_8),
    ending: Ending::Assertion,
    function: "AMDWmmaEncodingAttr::toLinearLayout",
    file: LLC,
    line: None,
    message: SHAPE_MESSAGE,
};

/// The site: converting an AMD WMMA accumulator or operand.
pub(crate) static SITE: Site = Site {
    id: "amd_wmma",
    kind: SiteKind::Bug,
    title: "an AMD WMMA layout on a tensor smaller than one instruction, or of an unknown version",
    locations: &[
        &VERSION_3_2,
        &VERSION,
        &DOT_VERSION,
        &SHAPE_3_2,
        &SHAPE,
        &super::amd_mfma::IDENTITY_POW2,
    ],
    changes: &[
        Change {
            release: Release::V3_3,
            pr: None,
            what: "WMMA layouts are built generically; no shape check",
        },
        Change {
            release: Release::V3_4,
            pr: None,
            what: "the shape check is back",
        },
        Change {
            release: Release::V3_8,
            pr: None,
            what: "a tensor smaller than one instruction is broadcast (upstream 1299a3b8e)",
        },
    ],
    workaround: "a tensor at least one instruction (16 x 16) in M and N",
};

fn check_pow2(version: Release, what: &str, values: &[u64]) -> Result<()> {
    super::common::check_pow2(
        &SITE,
        &super::amd_mfma::IDENTITY_POW2,
        version,
        what,
        values,
    )
}

fn fail(
    location: &'static Location,
    version: Release,
    explanation: String,
) -> crate::error::ConvertError {
    Failure::at(&SITE, location, version, explanation).into()
}

/// The instruction tile's M and N (the verifier admits only 16×16×K).
const TILE: u64 = 16;
/// Lanes per wave on RDNA.
const WARP_SIZE: u64 = 32;

/// Whether `version` has the 3.2 attribute and recipes.
fn is_legacy(version: Release) -> bool {
    version.has_hand_built_mma_layouts()
}

/// The 16×16 accumulator tile, given in `(order[0], order[1])`
/// coordinates (N, M when row-major): v1 registers M 2, 4, 8 and lanes N
/// 1…8 then M 1 (rows interleaved between lane halves); v2/v3 registers M
/// 1, 2, 4 and lanes N 1…8 then M 8. Out-dims in `order`, with a size-1
/// batch dim last for rank 3.
fn wmma_tile(version: u64, rank: usize, order: &[usize]) -> Result<LinearLayout> {
    let (regs, lanes): (Vec<Vec<u64>>, Vec<Vec<u64>>) = if version == 1 {
        (
            vec![vec![0, 2], vec![0, 4], vec![0, 8]],
            vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 1]],
        )
    } else {
        (
            vec![vec![0, 1], vec![0, 2], vec![0, 4]],
            vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 8]],
        )
    };
    let mut tile = LinearLayout::from_bases(
        &[(Dim::REGISTER, regs), (Dim::LANE, lanes)],
        &[Dim::standard(order[0]), Dim::standard(order[1])],
    )?;
    if rank == 3 {
        let d0 = Dim::standard(0);
        tile = tile
            .product(&LinearLayout::identity_1d(1, Dim::REGISTER, d0)?)?
            .product(&LinearLayout::identity_1d(1, Dim::LANE, d0)?)?;
    }
    Ok(tile)
}

/// The rank the 3.9 parser gives the attribute, with its checks: `rank`
/// if written, else 2; every `ctaLayout` basis must have that many
/// components ("Serialized rank and rank deduced from LL need to match");
/// the `warp` key must be present ("Expected basis of 'warp' not found").
fn newest_rank(w: &AmdWmma) -> Result<usize> {
    const KIND: &str = "#ttg.amd_wmma";
    let Some(warp) = &w.cta_warp else {
        return Err(invalid(
            KIND,
            "Expected basis of 'warp' not found (ctaLayout needs a `warp` list, empty for one warp)",
        ));
    };
    let rank = w.rank.map_or(2, |r| r as usize);
    if warp.iter().chain(&w.cta_register).any(|b| b.len() != rank) {
        return Err(invalid(
            KIND,
            format!(
                "Serialized rank and rank deduced from LL need to match (rank {rank}; write `rank = N` for rank ≠ 2)"
            ),
        ));
    }
    Ok(rank)
}

/// The CTA part, `register, warp → dim0 …`, in instruction tiles. 3.9
/// reads it from `ctaLayout` (which must be surjective); older releases
/// derive it from `warpsPerCTA` (warps row-major, one tile per warp).
fn cta_layout(w: &AmdWmma, rank: usize, version: Release) -> Result<LinearLayout> {
    const KIND: &str = "#ttg.amd_wmma";
    let dims = standard_dims(rank);
    if version.has_wmma_cta_layout() || w.cta_warp.is_some() {
        let warp = w.cta_warp.clone().unwrap_or_default();
        return LinearLayout::from_bases(&[(Dim::REGISTER, w.cta_register.clone()), (Dim::WARP, warp)], &dims)
            .map_err(|e| invalid(KIND, format!("Layout is expected to be surjective: the ctaLayout bases do not cover a box ({e})")));
    }
    let Some(wpc) = &w.warps_per_cta else {
        return Err(invalid(
            KIND,
            "needs `warpsPerCTA` (up to 3.4) or `ctaLayout` (newest)",
        ));
    };
    check_warps_len(KIND, "", wpc, rank)?;
    let order = matrix_order(rank, true);
    let mut l = LinearLayout::identity_1d(1, Dim::REGISTER, dims[order[0]])?;
    for &d in &order {
        l = l.product(&LinearLayout::identity_1d(wpc[d], Dim::WARP, dims[d])?)?;
    }
    Ok(l.transpose_outs(&dims)?)
}

/// The rank of the attribute for `version`, checked against the shape's.
fn rank_for(w: &AmdWmma, shape: &[u64], version: Release) -> Result<usize> {
    let rank = if version.has_wmma_cta_layout() {
        newest_rank(w)?
    } else if let Some(wpc) = &w.warps_per_cta {
        wpc.len()
    } else {
        newest_rank(w)?
    };
    if rank != shape.len() {
        return Err(crate::error::ConvertError::InvalidShape {
            shape: shape.to_vec(),
            message: format!(
                "the attribute is rank {rank}, the shape rank {}",
                shape.len()
            ),
        });
    }
    if rank != 2 && rank != 3 {
        return Err(invalid(
            "#ttg.amd_wmma",
            format!("WMMA layouts are rank 2 or 3 (with a batch dim), not rank {rank}"),
        ));
    }
    Ok(rank)
}

/// The accumulator layout.
///
/// 3.9: the tile in thread order (row-major, or column-major when
/// `isTranspose`), transposed to `dim0 …`, times the CTA layout, put in
/// row-major repetition order `[N, M, batch]`, then fitted.
///
/// 3.2 (versions 1 and 2): the tile in `[N, M, batch]` order times
/// `warpsPerCTA` walked in that order, then fitted.
pub(crate) fn amd_wmma(w: &AmdWmma, shape: &[u64], version: Release) -> Result<Conversion> {
    let rank = rank_for(w, shape, version)?;
    let dims = standard_dims(rank);
    let row_major = matrix_order(rank, true);
    if is_legacy(version) {
        if w.version != 1 && w.version != 2 {
            return Err(fail(
                &VERSION_3_2,
                version,
                format!("WMMA version {}", w.version),
            ));
        }
        covers_one_instruction(shape, (TILE, TILE), version)?;
        let Some(wpc) = &w.warps_per_cta else {
            return Err(invalid(
                "#ttg.amd_wmma",
                "3.2's amd_wmma needs `warpsPerCTA`",
            ));
        };
        check_pow2(version, "warpsPerCTA", wpc)?;
        let tile = wmma_tile(w.version, rank, &row_major)?;
        let warps = identity_standard_nd(Dim::WARP, wpc, &row_major)?;
        let cta = tile.product(&warps)?;
        return combine_cta_cga_with_shape(cta, &w.cga, shape, version).map(Conversion::Layout);
    }
    if !(1..=3).contains(&w.version) {
        return Err(fail(
            &VERSION,
            version,
            format!("WMMA version {}", w.version),
        ));
    }
    // 3.8 broadcasts instead (upstream 1299a3b8e); 3.3 has no check.
    if version.checks_wmma_shape() {
        let mn = match w.instr_shape.as_deref() {
            Some([m, n, ..]) => (*m, *n),
            _ => (TILE, TILE),
        };
        covers_one_instruction(shape, mn, version)?;
    }
    let thread_order = matrix_order(rank, !w.is_transpose.unwrap_or(false));
    let tile = wmma_tile(w.version, rank, &thread_order)?.transpose_outs(&dims)?;
    let cta = cta_layout(w, rank, version)?;
    let rep_dims: Vec<Dim> = row_major.iter().map(|&d| dims[d]).collect();
    let layout = tile.product(&cta)?.transpose_outs(&rep_dims)?;
    combine_cta_cga_with_shape(layout, &w.cga, shape, version).map(Conversion::Layout)
}

/// The assertion of 3.2 and of 3.4 to 3.7: the tensor covers at least one
/// instruction `(mDim, nDim)` along M and N, or is 1 there.
fn covers_one_instruction(
    shape: &[u64],
    (m_dim, n_dim): (u64, u64),
    version: Release,
) -> Result<()> {
    let (m, n) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    if (m == 1 || m >= m_dim) && (n == 1 || n >= n_dim) {
        return Ok(());
    }
    let location = if version.has_hand_built_mma_layouts() {
        &SHAPE_3_2
    } else {
        &SHAPE
    };
    Err(fail(
        location,
        version,
        format!("a {m}x{n} tensor and a {m_dim}x{n_dim} instruction"),
    ))
}

/// An operand of a WMMA dot (newest; 3.2 has no linear layout for it).
///
/// `kWidth` registers along K; 16 lanes along the non-K dim; the other 2
/// lanes along K, as zeros in v1 (the two lane halves hold the same
/// values) and as the next `kWidth` block of K in v2/v3; registers
/// repeating that up to the instruction's K. Then the parent's CTA layout
/// with its K component zeroed and the registers that became broadcasts
/// dropped. Everything in `[K, nonK, batch]` order, then fitted.
pub(crate) fn wmma_dot(
    d: &DotOperand,
    w: &AmdWmma,
    shape: &[u64],
    version: Release,
) -> Result<Conversion> {
    const KIND: &str = "#ttg.dot_op";
    if is_legacy(version) {
        return Ok(Conversion::NoLayout(format!(
            "Triton {version} has no linear layout for operands of a WMMA dot (it uses the legacy code)"
        )));
    }
    let rank = rank_for(w, shape, version)?;
    if d.op_idx > 1 {
        return Err(invalid(
            KIND,
            format!(
                "ttg.dot_op opIdx parameter can be 0 or 1, got: {}",
                d.op_idx
            ),
        ));
    }
    if !(1..=3).contains(&w.version) {
        return Err(fail(
            &DOT_VERSION,
            version,
            format!("WMMA version {}", w.version),
        ));
    }
    let k_width = match d.k_width {
        Some(k) if k != 0 => k,
        _ => {
            return Err(invalid(
                KIND,
                format!(
                    "ttg.dot_op kWidth parameter is mandatory for WMMA v{}",
                    w.version
                ),
            ));
        }
    };
    check_pow2(version, "kWidth", &[k_width])?;
    let dims = standard_dims(rank);
    let (k_index, non_k_index) = if d.op_idx == 0 {
        (rank - 1, rank - 2)
    } else {
        (rank - 2, rank - 1)
    };
    let (dim_k, dim_non_k) = (dims[k_index], dims[non_k_index]);
    let instr_k = w
        .instr_shape
        .as_ref()
        .and_then(|s| s.get(2).copied())
        .unwrap_or(16);

    let k_depth = WARP_SIZE / TILE;
    let mut tile = LinearLayout::identity_1d(k_width, Dim::REGISTER, dim_k)?
        .product(&LinearLayout::identity_1d(TILE, Dim::LANE, dim_non_k)?)?;
    tile = if w.version == 1 {
        tile.product(&LinearLayout::zeros_1d(k_depth, Dim::LANE, dim_k, 1)?)?
    } else {
        tile.product(&LinearLayout::identity_1d(k_depth, Dim::LANE, dim_k)?)?
    };
    // 3.7 repeats the registers along K up to the tensor's K when that is
    // larger than the instruction's; 3.8 stops at the instruction and lets
    // the CTA fitting below repeat the rest (after the warps).
    let k_covered = if version.wmma_operands_cover_whole_k() {
        instr_k.max(shape[k_index])
    } else {
        instr_k
    };
    let k_repeat = k_covered / (k_depth * k_width);
    tile = tile.product(&LinearLayout::identity_1d(k_repeat, Dim::REGISTER, dim_k)?)?;

    // The parent's CTA part with K projected away; then drop the register
    // bases that became zero.
    let cta = cta_layout(w, rank, version)?;
    let k_pos = cta
        .out_dim_names()
        .position(|x| x == dim_k)
        .unwrap_or(k_index);
    let mut bases = cta.bases();
    for (in_dim, vectors) in bases.iter_mut() {
        for v in vectors.iter_mut() {
            v[k_pos] = 0;
        }
        if *in_dim == Dim::REGISTER {
            vectors.retain(|v| v.iter().any(|&c| c != 0));
        }
    }
    let cta_names: Vec<Dim> = cta.out_dim_names().collect();
    let cta = LinearLayout::from_bases(&bases, &cta_names)?;

    // Repetition order: K, non-K, then the batch dim.
    let mut rep_dims = vec![dim_k, dim_non_k];
    rep_dims.extend(
        dims.iter()
            .copied()
            .filter(|x| *x != dim_k && *x != dim_non_k),
    );
    for &extra in &rep_dims[2..] {
        tile = tile.product(&LinearLayout::identity_1d(1, Dim::REGISTER, extra)?)?;
    }
    let layout = tile
        .transpose_outs(&rep_dims)?
        .product(&cta.transpose_outs(&rep_dims)?)?;
    // 3.7 fits the operand with its parent's CGA layout; 3.8 with the
    // operand's own (K projected away).
    let cga = if version.wmma_operands_take_parent_cga() {
        w.cga.clone()
    } else {
        super::cga::operand_cga(&w.cga, k_index)
    };
    combine_cta_cga_with_shape(layout, &cga, shape, version).map(Conversion::Layout)
}
