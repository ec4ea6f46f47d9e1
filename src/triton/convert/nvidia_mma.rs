//! `#ttg.nvidia_mma`: the accumulator tile of `mma.sync` (v2) and `wgmma`
//! (v3), and the tile builder the dot operands share.

use super::Conversion;
use super::cga::combine_cta_cga_with_shape;
use crate::dim::Dim;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;
use crate::triton::attr::NvidiaMma;
use crate::triton::version::TritonVersion;

/// Triton's `nvidiaMmaTile`: on an `outer × inner` tile, `k_width`
/// registers then 4 lanes along `inner`, 8 lanes then `outer / 8` registers
/// along `outer`, then `inner / (4·k_width)` registers along `inner`. The
/// other dims of a rank-`rank` tensor get size 1. Out order: inner, outer,
/// then the rest from the highest dim down.
pub(crate) fn mma_tile(
    rank: usize,
    outer: usize,
    inner: usize,
    outer_size: u64,
    inner_size: u64,
    k_width: u64,
) -> Result<LinearLayout> {
    let (o, i) = (Dim::standard(outer), Dim::standard(inner));
    let per_thread_inner = 4 * k_width;
    let mut l = LinearLayout::identity_1d(k_width, Dim::REGISTER, i)?
        .product(&LinearLayout::identity_1d(4, Dim::LANE, i)?)?
        .product(&LinearLayout::identity_1d(8, Dim::LANE, o)?)?
        .product(&LinearLayout::identity_1d(
            (outer_size / 8).max(1),
            Dim::REGISTER,
            o,
        )?)?;
    if inner_size % per_thread_inner != 0 {
        return Err(LayoutError::InvalidAttribute {
            kind: "#ttg.nvidia_mma".into(),
            message: format!(
                "the tile's inner size {inner_size} is not a multiple of 4·kWidth = {per_thread_inner}"
            ),
        });
    }
    l = l.product(&LinearLayout::identity_1d(
        inner_size / per_thread_inner,
        Dim::REGISTER,
        i,
    )?)?;
    for d in (0..rank).rev().filter(|&d| d != outer && d != inner) {
        l = l.product(&LinearLayout::identity_1d(
            1,
            Dim::REGISTER,
            Dim::standard(d),
        )?)?;
    }
    Ok(l)
}

/// Multiplies `tile` by `warps`, first putting `warps`' out-dims in the
/// tile's order (Triton merges the orders; the tile's wins).
pub(crate) fn times_in_tile_order(
    tile: &LinearLayout,
    warps: &LinearLayout,
) -> Result<LinearLayout> {
    let order: Vec<Dim> = tile.out_dim_names().collect();
    tile.product(&warps.transpose_outs(&order)?)
}

/// The accumulator layout (newest: `nvidiaMmaTile([m, n], 2, row-major)`;
/// the bases are the same as 3.2's hand-built tile).
pub(crate) fn nvidia_mma(
    m: &NvidiaMma,
    shape: &[u64],
    version: TritonVersion,
) -> Result<Conversion> {
    let rank = shape.len();
    let instr = &m.instr_shape;
    if instr.len() < 2 {
        return Err(LayoutError::InvalidAttribute {
            kind: "#ttg.nvidia_mma".into(),
            message: format!("instrShape {instr:?} needs at least [M, N]"),
        });
    }
    let (tile_m, tile_n) = match m.version_major {
        2 => (instr[instr.len() - 2], instr[instr.len() - 1]),
        3 => (instr[0], instr[1]),
        v => {
            return Ok(Conversion::NoLayout(format!(
                "MMA version {v} has no linear layout"
            )));
        }
    };
    check_release_asserts(m, version)?;
    if m.version_major == 3 && (rank != 2 || instr.len() != 3) {
        return Err(LayoutError::TritonAssertion {
            version: version.to_string(),
            site: "nvidiaMmaTile (LinearLayoutConversions.cpp)".into(),
            message: "tileShape.size() == rank".into(),
        });
    }
    let tile = mma_tile(rank, rank - 2, rank - 1, tile_m, tile_n, 2)?;
    // v2 numbers warps N first (row-major), v3 M first.
    let warp_order = super::dot_operand::matrix_order(rank, m.version_major != 3);
    let warps = crate::utils::identity_standard_nd(Dim::WARP, &m.warps_per_cta, &warp_order)?;
    let cta = times_in_tile_order(&tile, &warps)?;
    combine_cta_cga_with_shape(cta, &m.cga, shape, version).map(Conversion::Layout)
}

/// The shape checks of 3.1's and 3.2's hand-built MMA layouts, which later
/// releases dropped for the generic tile.
fn check_release_asserts(m: &NvidiaMma, version: TritonVersion) -> Result<()> {
    if version > TritonVersion::V3_2 {
        return Ok(());
    }
    // The assert's line in LinearLayoutConversions.cpp: (3.1, 3.2).
    let fail = |lines: (u32, u32), message: String| {
        let line = if version == TritonVersion::V3_1 {
            lines.0
        } else {
            lines.1
        };
        let function = if m.version_major == 3 {
            "hopperMmaToLinearLayout"
        } else {
            "ampereMmaToLinearLayout"
        };
        Err(LayoutError::TritonAssertion {
            version: version.to_string(),
            site: format!(
                "{function} (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp:{line})"
            ),
            message,
        })
    };
    let instr = &m.instr_shape;
    if m.version_major == 2 {
        let ok = instr.as_slice() == [16, 8] || instr.as_slice() == [1, 16, 8];
        return if ok {
            Ok(())
        } else {
            fail((344, 279), format!("instrShape == [16, 8] (got {instr:?})"))
        };
    }
    let warps: u64 = m.warps_per_cta.iter().product();
    if m.warps_per_cta.len() != 2 || instr.len() != 3 {
        return fail((366, 301), "rank == 2".into());
    }
    if warps % 4 != 0 {
        return fail(
            (369, 304),
            format!("product(warpsPerCTA) % 4 == 0 (got {warps})"),
        );
    }
    let (mm, n, k) = (instr[0], instr[1], instr[2]);
    if mm != 16 {
        return fail((376, 311), format!("m == 16 (got {mm})"));
    }
    let n_ok = if version == TritonVersion::V3_1 {
        matches!(n, 16 | 32 | 64 | 128 | 256)
    } else {
        matches!(n, 8 | 16 | 32 | 64 | 128 | 256)
    };
    if !n_ok {
        let list = if version == TritonVersion::V3_1 {
            "16 || n == 32 || n == 64 || n == 128 || n == 256"
        } else {
            "8 || n == 16 || n == 32 || n == 64 || n == 128 || n == 256"
        };
        return fail((377, 312), format!("n == {list} (got n = {n})"));
    }
    if !matches!(k, 8 | 16 | 32) {
        return fail(
            (378, 313),
            format!("k == 8 || k == 16 || k == 32 (got k = {k})"),
        );
    }
    Ok(())
}
