//! `#ttg.dot_op`: the operands of a dot, per parent kind.

use super::Conversion;
use super::cga::{combine_cta_cga_with_shape, operand_cga};
use super::common::{
    broadcasted_warps, invalid, k_dim, matrix_order, mma_tile, times_in_tile_order,
};
use crate::attr::{Attr, Blocked, DotOperand, NvidiaMma};
use crate::error::Result;
use crate::failure::Failure;
use crate::release::{Release, Span};
use crate::site::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::utils::identity_standard_nd;

/// 3.2's hand-built Ampere operand is rank 2 only.
static AMPERE_RANK_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: "ampereDotToLinearLayout",
    file: "lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp",
    line: None,
    message: "Assertion `rank == 2' failed.",
};

/// The site: converting a dot operand.
pub(crate) static SITE: Site = Site {
    id: "dot_operand",
    kind: SiteKind::Bug,
    title: "a dot operand layout the release's builder does not accept",
    locations: &[&AMPERE_RANK_3_2],
    changes: &[Change {
        release: Release::V3_3,
        pr: None,
        what: "dot operands are built by the generic nvidiaDotToLinearLayout, any rank",
    }],
    workaround: "none needed in practice: 3.2 builds rank-3 Ampere operands without a linear layout",
};

pub(crate) fn dot_operand(
    d: &DotOperand,
    shape: &[u64],
    version: Release,
    elem_bits: Option<u64>,
) -> Result<Conversion> {
    let _ = elem_bits;
    if version.has_hand_built_mma_layouts() {
        return dot_operand_3_2(d, shape, version);
    }
    match d.parent.as_ref() {
        Attr::NvidiaMma(m) => nvidia_dot(d, m, shape, version),
        Attr::Blocked(b) => fma_dot(d, b, shape, version),
        Attr::AmdMfma(m) => super::amd_mfma::mfma_dot(d, m, shape, version),
        Attr::AmdWmma(w) => super::amd_wmma::wmma_dot(d, w, shape, version),
        other => Err(invalid(
            "#ttg.dot_op",
            format!("a `{}` parent has no dot operand layout", other.kind()),
        )),
    }
}

/// 3.9's `nvidiaDotToLinearLayout`: A's tile is `[instrM, 8·kWidth]`, B's
/// `[8·kWidth, 8]` (4·kWidth for fp64's `[8, 8]` instruction), K
/// contiguous; the parent's warps with those along K broadcasting (row-major
/// on Ampere, column-major on Hopper); repetitions K first.
fn nvidia_dot(
    d: &DotOperand,
    m: &NvidiaMma,
    shape: &[u64],
    version: Release,
) -> Result<Conversion> {
    let rank = shape.len();
    let k_width = d.k_width.unwrap_or(0);
    let instr = &m.instr_shape;
    if instr.len() < 2 || k_width == 0 {
        return Err(invalid(
            "#ttg.dot_op",
            "kWidth parameter is mandatory for Ampere or Hopper MMA parent",
        ));
    }
    // v3 writes [M, N, K] for rank 2 and [1, M, N] for rank 3.
    let (instr_m, instr_n) = if m.version_major == 3 {
        let at = rank.saturating_sub(2).min(instr.len() - 2);
        (instr[at], instr[at + 1])
    } else {
        (instr[instr.len() - 2], instr[instr.len() - 1])
    };
    let fp64 = m.version_major == 2 && instr_m == 8 && instr_n == 8;
    let k_tile = if fp64 { 4 * k_width } else { 8 * k_width };
    let k = k_dim(d.op_idx, rank);
    let tile = if d.op_idx == 0 {
        mma_tile(rank, rank - 2, k, instr_m, k_tile, k_width)?
    } else {
        mma_tile(rank, rank - 1, k, 8, k_tile, k_width)?
    };
    let warp_order = matrix_order(rank, m.version_major != 3);
    let warps = broadcasted_warps(Dim::WARP, &m.warps_per_cta, &warp_order, k)?;
    let cta = times_in_tile_order(&tile, &warps)?;
    combine_cta_cga_with_shape(cta, &operand_cga(&m.cga, k), shape, version).map(Conversion::Layout)
}

/// 3.9's FMA operand of a blocked parent: each thread holds the whole K
/// extent; lanes and warps along K broadcast; everything in the blocked
/// order.
fn fma_dot(d: &DotOperand, b: &Blocked, shape: &[u64], version: Release) -> Result<Conversion> {
    let rank = shape.len();
    let k = k_dim(d.op_idx, rank);
    let mut spt = b.size_per_thread.clone();
    spt[k] = shape[k];
    let regs = identity_standard_nd(Dim::REGISTER, &spt, &b.order)?;
    let lanes = broadcasted_warps(Dim::LANE, &b.threads_per_warp, &b.order, k)?;
    let warps = broadcasted_warps(Dim::WARP, &b.warps_per_cta, &b.order, k)?;
    let cta = regs.product(&lanes)?.product(&warps)?;
    combine_cta_cga_with_shape(cta, &operand_cga(&b.cga, k), shape, version).map(Conversion::Layout)
}

/// Release 3.2 has a linear layout only for an Ampere (MMA v2) parent with
/// `kWidth = 8`, and for AMD MFMA parents; every other operand uses legacy
/// code (`toLinearLayout` returns none).
fn dot_operand_3_2(d: &DotOperand, shape: &[u64], version: Release) -> Result<Conversion> {
    match d.parent.as_ref() {
        Attr::NvidiaMma(m) if m.version_major == 2 && d.k_width == Some(8) => {
            ampere_dot_3_2(d, m, shape, version)
        }
        Attr::NvidiaMma(m) => Ok(Conversion::NoLayout(format!(
            "Triton {version} builds linear layouts only for Ampere (MMA v2) dot operands with kWidth = 8 \
             (this one: MMA v{}, kWidth = {})",
            m.version_major,
            d.k_width.unwrap_or(0)
        ))),
        Attr::AmdMfma(m) => super::amd_mfma::mfma_dot(d, m, shape, version),
        other => Ok(Conversion::NoLayout(format!(
            "Triton {version} has no linear layout for dot operands of a `{}` parent",
            other.kind()
        ))),
    }
}

/// 3.2's `ampereDotToLinearLayout` (kWidth 8, rank 2): the A tile in (M, K)
/// is registers K 1, 2, 4; lanes K 8, 16 then M 1, 2, 4; register M 8 (A
/// only); register K 32. B is the same with the coordinates swapped. Warps
/// are only those of the parent not along K (the K warps are absent, not
/// broadcast), numbered N first; repetitions go along dim1 first for both
/// operands (so B repeats N before K).
fn ampere_dot_3_2(
    d: &DotOperand,
    m: &NvidiaMma,
    shape: &[u64],
    version: Release,
) -> Result<Conversion> {
    if shape.len() != 2 {
        return Err(Failure::at(
            &SITE,
            &AMPERE_RANK_3_2,
            version,
            format!("a rank-{} operand", shape.len()),
        )
        .into());
    }
    // (M, K) pairs for A; swapped for B.
    let mut regs: Vec<[u64; 2]> = vec![[0, 1], [0, 2], [0, 4]];
    let lanes: Vec<[u64; 2]> = vec![[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]];
    if d.op_idx == 0 {
        regs.push([8, 0]);
    }
    regs.push([0, 32]);
    let orient = |v: &[u64; 2]| -> Vec<u64> {
        if d.op_idx == 0 {
            vec![v[0], v[1]]
        } else {
            vec![v[1], v[0]]
        }
    };
    let tile = LinearLayout::from_bases(
        &[
            (Dim::REGISTER, regs.iter().map(orient).collect()),
            (Dim::LANE, lanes.iter().map(orient).collect()),
        ],
        &[Dim::standard(0), Dim::standard(1)],
    )?;
    let k = k_dim(d.op_idx, 2);
    let mut warps_per_cta = m.warps_per_cta.clone();
    warps_per_cta[k] = 1;
    let warps = identity_standard_nd(Dim::WARP, &warps_per_cta, &[1, 0])?;
    let order = [Dim::standard(1), Dim::standard(0)];
    let cta = tile.transpose_outs(&order)?.product(&warps)?;
    combine_cta_cga_with_shape(cta, &m.cga, shape, version).map(Conversion::Layout)
}
