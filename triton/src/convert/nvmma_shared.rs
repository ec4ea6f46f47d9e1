//! `#ttg.nvmma_shared` (newest) and 3.2's leading-offset
//! `#triton_gpu.shared`: the swizzled layouts wgmma and TMA read.
//!
//! Both are built from an 8-row "core matrix" whose rows are XOR-swizzled in
//! 16-byte vectors (`col ^= vec · ((row / perPhase) mod maxPhase)`), tiled
//! over the tensor with offset repetitions.
//!
//! * 3.9 (`nvmmaSharedToLinearLayout` / `buildNvmmaSharedLinearLayout`
//!   in `LinearLayoutConversions.cpp`) sizes everything by the TMA box
//!   (`getTMABlockShape`, Tiled mode): the tile is grown to the box collapsed
//!   to 2-D, reshaped (row-major) to the N-D box, and only then repeated over
//!   the shape per CTA.
//! * 3.2 (`sharedToLinearLayoutLeadingOffset`) grows one 8-row tile over the
//!   whole shape directly, rows first.
//!
//! For 2-D shapes whose box is the whole per-CTA shape the two agree.

use super::Conversion;
use super::cga::{combine_cta_cga_with_shape, shape_per_cta};
use super::common::invalid;
use crate::attr::{NvmmaShared, SwizzledShared, swizzle_phases};
use crate::error::Result;
use crate::failure::Failure;
use crate::release::{Release, Since, Span};
use crate::site::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::utils;

const NVMMA_KIND: &str = "#ttg.nvmma_shared";
const LEADING_KIND: &str = "#triton_gpu.shared";
const LLC: &str = "lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp";
const ILLEGAL_LAYOUT: &str = "LLVM ERROR: Illegal shared layout";

/// 3.2's leading-offset builder on phases that make no swizzle width.
static LEADING_PHASES_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: "sharedToLinearLayoutLeadingOffset",
    file: LLC,
    line: Some(410),
    message: "Illegal shared encoding -- UNREACHABLE executed at LinearLayoutConversions.cpp:410!",
};
/// The leading-offset builder (3.2, and 3.3 for every NVMMA buffer) on a
/// tensor smaller than its tile, or a `vec` that is not 16 bytes.
static LEADING_ILLEGAL: Location = Location {
    releases: Span::until(Release::V3_2, Release::V3_4),
    ending: Ending::FatalError,
    function: "sharedToLinearLayoutLeadingOffset",
    file: LLC,
    line: None,
    message: ILLEGAL_LAYOUT,
};
/// 3.3's unswizzled NVMMA buffer: a tile 0 columns wide whose column loop
/// never ends.
static UNSWIZZLED_OOM_3_3: Location = Location {
    releases: Span::only(Release::V3_3),
    ending: Ending::Crash,
    function: "sharedToLinearLayoutLeadingOffset",
    file: LLC,
    line: None,
    message: "terminate called after throwing an instance of 'std::bad_alloc'",
};
/// 3.4's TMA box check.
static TMA_BOX_3_4: Location = Location {
    releases: Span::only(Release::V3_4),
    ending: Ending::Assertion,
    function: "getTMABlockShape",
    file: "lib/Dialect/TritonNvidiaGPU/Transforms/TMAUtilities.cpp",
    line: Some(130),
    message: "Assertion `blockShape[contigDim] >= contigDimSize' failed.",
};
/// 3.5 to 3.7's TMA box check.
static TMA_BOX_3_5: Location = Location {
    releases: Span::until(Release::V3_5, Release::V3_8),
    ending: Ending::FatalError,
    function: "getTMABlockShape",
    file: "lib/Dialect/TritonNvidiaGPU/Transforms/TMAUtilities.cpp",
    line: None,
    message: "LLVM ERROR: Block shape is too small for the swizzle byte size in NVMMA Shared Layout.",
};
/// The TMA box check from 3.8.
static TMA_BOX: Location = Location {
    releases: Span::since(Release::V3_8),
    ending: Ending::FatalError,
    function: "getTMABlockShape",
    file: "lib/Dialect/TritonGPU/IR/Dialect.cpp",
    line: None,
    message: "LLVM ERROR: getTMABlockShape failed: invalid block shape for TMA operation.",
};
/// The NVMMA builder from 3.4 on a box it cannot tile.
static NVMMA_ILLEGAL: Location = Location {
    releases: Span::since(Release::V3_4),
    ending: Ending::FatalError,
    function: "buildNvmmaSharedLinearLayout",
    file: LLC,
    line: None,
    message: ILLEGAL_LAYOUT,
};
/// The NVMMA builder from 3.4 on a swizzled rank-1 buffer.
static NVMMA_RANK: Location = Location {
    releases: Span::since(Release::V3_4),
    ending: Ending::Assertion,
    function: "buildNvmmaSharedLinearLayout",
    file: LLC,
    line: None,
    message: "Assertion `rank >= 2' failed.",
};

/// The site: building a wgmma / TMA (NVMMA, leading-offset) shared layout.
pub(crate) static SITE: Site = Site {
    id: "nvmma_shared",
    kind: SiteKind::Bug,
    title: "an NVMMA (wgmma / TMA) shared buffer smaller than one swizzle tile, or unswizzled in 3.3",
    locations: &[
        &LEADING_PHASES_3_2,
        &LEADING_ILLEGAL,
        &UNSWIZZLED_OOM_3_3,
        &TMA_BOX_3_4,
        &TMA_BOX_3_5,
        &TMA_BOX,
        &NVMMA_ILLEGAL,
        &NVMMA_RANK,
    ],
    changes: &[
        Change {
            release: Release::V3_4,
            pr: None,
            what: "NVMMA buffers are built by buildNvmmaSharedLinearLayout from the TMA box; an unswizzled one no longer runs out of memory",
        },
        Change {
            release: Release::V3_5,
            pr: None,
            what: "the TMA box check is a fatal error instead of an assertion",
        },
    ],
    workaround: "a tensor at least one swizzle tile (8 rows by the swizzle's width in bytes) in size, or a narrower swizzle",
};

/// Where the TMA box check fails, per release.
const TMA_BOX_CHECK: Since<&'static Location> = Since(&[
    (Release::V3_4, &TMA_BOX_3_4),
    (Release::V3_5, &TMA_BOX_3_5),
    (Release::V3_8, &TMA_BOX),
]);

fn fail(
    location: &'static Location,
    release: Release,
    explanation: String,
) -> crate::error::ConvertError {
    Failure::at(&SITE, location, release, explanation).into()
}

/// The standard dims paired with `sizes`, in the order `dims` lists them.
fn pairs(dims: &[usize], sizes: &[u64]) -> Vec<(Dim, u64)> {
    dims.iter().map(|&d| (Dim::standard(d), sizes[d])).collect()
}

// ---------------------------------------------------------------------------
// 3.9: #ttg.nvmma_shared
// ---------------------------------------------------------------------------

/// 3.9's `NVMMASharedEncodingAttr::get{Vec,PerPhase,MaxPhase}`: all 1 when
/// the layout is not swizzled.
fn swizzle_params(n: &NvmmaShared) -> (u64, u64, u64) {
    let swizzle = n.swizzling_byte_width;
    match 128u64.checked_div(swizzle) {
        None => (1, 1, 1),
        Some(per_phase) => (128 / n.element_bit_width, per_phase, swizzle / 16),
    }
}

/// `getTMABlockShape` in Tiled mode with `packedSize = true`: the box one TMA
/// message moves. Every dim is clamped to 256, and with a swizzle the
/// contiguous dim (the last, or dim 0 when transposed) becomes exactly the
/// swizzle width in elements. fp4-padded tensors are measured in padded
/// elements (twice the packed count) and converted back at the end.
fn tma_block_shape(n: &NvmmaShared, shape_per_cta: &[u64], version: Release) -> Result<Vec<u64>> {
    if let Some(short) = swizzle_row_shortfall(n, shape_per_cta) {
        // 3.4 has a bare assert in TMAUtilities.cpp; later releases a
        // diagnosed failure made fatal.
        let explanation = format!(
            "the box holds {} elements along its contiguous dim {}; the {}-byte swizzle needs {}",
            short.got, short.contig, n.swizzling_byte_width, short.need
        );
        let location = TMA_BOX_CHECK.at(version).copied().unwrap_or(&TMA_BOX_3_4);
        return Err(fail(location, version, explanation));
    }
    let mut block = shape_per_cta.to_vec();
    let contig = if n.transposed { 0 } else { block.len() - 1 };
    if n.fp4_padded {
        block[contig] *= 2;
    }
    for size in &mut block {
        *size = (*size).min(256);
    }
    if n.swizzling_byte_width != 0 {
        block[contig] = 8 * n.swizzling_byte_width / n.element_bit_width;
    }
    if n.fp4_padded {
        block[contig] /= 2;
    }
    Ok(block)
}

/// A TMA box whose contiguous dim holds less than one swizzle row.
struct Shortfall {
    /// The contiguous dim, counted within the box.
    contig: usize,
    /// What it holds: padded elements, clamped to 256.
    got: u64,
    /// One swizzle row, `8 · swizzle / bits` elements.
    need: u64,
}

impl Shortfall {
    /// The newest release's wording, shared by its verifier and
    /// `getTMABlockShape`.
    fn newest_message(&self, n: &NvmmaShared) -> String {
        format!(
            "block shape along the contiguous dimension {} is too small for the swizzle byte size {} \
             in an NVMMASharedLayout, got {} but expected at least {}",
            self.contig, n.swizzling_byte_width, self.got, self.need
        )
    }
}

/// `getTMABlockShape`'s one check on a box over `block` (its dims per CTA):
/// with a swizzle, the contiguous dim must hold a swizzle row. `None` when
/// it does, when there is no swizzle, or for a box with no dims or no
/// element width (which the callers refuse elsewhere).
fn swizzle_row_shortfall(n: &NvmmaShared, block: &[u64]) -> Option<Shortfall> {
    if n.swizzling_byte_width == 0 || n.element_bit_width == 0 {
        return None;
    }
    let contig = if n.transposed {
        0
    } else {
        block.len().checked_sub(1)?
    };
    let padded = if n.fp4_padded { 2 } else { 1 };
    let got = block.get(contig)?.saturating_mul(padded).min(256);
    let need = 8 * n.swizzling_byte_width / n.element_bit_width;
    (got < need).then_some(Shortfall { contig, got, need })
}

/// 3.9's `MemDescType::verify` for an NVMMA buffer of `alloc_shape`
/// (`Types.cpp`, after 3.6): the box of the last `rank` dims per CTA must
/// pass [`swizzle_row_shortfall`]. The verifier runs whenever the type is
/// parsed or built, so it rejects such a buffer before any lowering reaches
/// the fatal error in [`tma_block_shape`]. `Some(message)` when it fails;
/// `None` when it passes or the attribute is malformed (that is for the
/// conversion to report).
pub(crate) fn memdesc_verifier_error(n: &NvmmaShared, alloc_shape: &[u64]) -> Option<String> {
    // the encoding's rank: a rank-3 buffer's CGA splits dims of all three
    let rank = n.layout_rank();
    let last = alloc_shape.get(alloc_shape.len().checked_sub(rank)?..)?;
    let block = shape_per_cta(&n.cga, last).ok()?;
    swizzle_row_shortfall(n, &block).map(|short| short.newest_message(n))
}

/// `getCoreMatrixLinearLayout`: 8 rows × `8·max(16, swizzle)/bits` columns
/// with out-dims `(dim0 = row, dim1 = col)` and sizes inferred from the bases.
/// With fp4 padding each group of 16 (padded) columns holds 8 real ones, and
/// the padded 8 map onto the same coordinates as the real 8.
fn core_matrix(n: &NvmmaShared) -> Result<LinearLayout> {
    let (vec, per_phase, max_phase) = swizzle_params(n);
    let tile_rows = 8u64;
    let tile_cols = 8 * n.swizzling_byte_width.max(16) / n.element_bit_width;
    let pack = |c: u64| if n.fp4_padded { c / 16 * 8 + c % 8 } else { c };
    let mut bases: Vec<Vec<u64>> = Vec::new();
    let mut col = 1;
    while col < tile_cols {
        bases.push(vec![0, pack(col)]);
        col *= 2;
    }
    let mut row = 1;
    while row < tile_rows {
        bases.push(vec![row, pack(vec * ((row / per_phase) % max_phase))]);
        row *= 2;
    }
    Ok(LinearLayout::from_bases(
        &[(Dim::OFFSET, bases)],
        &[Dim::standard(0), Dim::standard(1)],
    )?)
}

/// Triton 3.3 on an unswizzled `#ttg.nvmma_shared` of rank 2 or more: it
/// never returns a layout.
///
/// 3.3 sends every NVMMA layout through `sharedToLinearLayoutLeadingOffset`,
/// whose tile is `8 · swizzleBytes / elemBitWidth` columns wide: 0 here. So
/// the size check (`shape[colDim] < tileCols`) only refuses fewer than 8
/// rows, with its fatal error. With 8 rows or more the column loop runs
/// while `logCol < Log2_32(tileCols)`, and `Log2_32(0)` is `31 - 32`
/// wrapped to 2^32 − 1: it pushes a basis per step until memory runs out.
/// The 3.3.1 wheel, compiling a `local_alloc` / `local_load` pair on a
/// 16×8 fp16 buffer for sm90, grew to 24 GiB in 74 s and was killed by the
/// kernel (notes/releases.md, the 3.3 row). 3.4 builds these layouts by its own
/// recipe.
///
/// `order` is the leading-offset order 3.3 gives the buffer (rank 2 or
/// more): columns along `order[0]`, rows along `order[1]`.
fn unswizzled_leading_offset_3_3(
    shape: &[u64],
    order: &[usize],
    release: Release,
) -> crate::error::ConvertError {
    let (col_dim, row_dim) = (order[0], order[1]);
    if shape[row_dim] < 8 {
        fail(
            &LEADING_ILLEGAL,
            release,
            format!(
                "expected shape to be at least [8, 0], shape: [{}, {}] (an unswizzled NVMMA tile is 0 \
                 columns wide in 3.3)",
                shape[row_dim], shape[col_dim]
            ),
        )
    } else {
        fail(
            &UNSWIZZLED_OOM_3_3,
            release,
            "an unswizzled NVMMA tile is 0 columns wide, and the column loop's bound Log2_32(0) wraps \
             to 2^32 - 1, so it pushes bases until allocation fails; with no limit on its memory the \
             process is killed by the kernel instead"
                .into(),
        )
    }
}

/// `[rank-1, 0, 1, …, rank-2]`: the permutation `transposeLinearLayout` gets
/// for transposed layouts.
fn transposed_order(rank: usize) -> Vec<usize> {
    std::iter::once(rank - 1).chain(0..rank - 1).collect()
}

/// The layout the newest Triton (the 3.9.0 wheel) builds for
/// `#ttg.nvmma_shared` on a tensor (allocation) of `shape`.
///
/// Fails where the wheel aborts: `getTMABlockShape failed` when the
/// contiguous dim holds fewer bytes than the swizzle, `Illegal shared
/// layout` when the box collapsed to 2-D is smaller than the core matrix
/// (fewer than 8 rows), and `Assertion rank >= 2` for a swizzled rank-1
/// tensor. From 3.4 the recipe is the newest one; `version` selects the
/// `ensureLayoutNotLargerThan` of the final CGA step, and 3.4 to 3.7 ignore
/// `transposed` when there is no swizzle. 3.3 builds its leading-offset
/// layout instead, which never returns for swizzle 0
/// ([`unswizzled_leading_offset_3_3`]).
pub(crate) fn nvmma_shared(n: &NvmmaShared, shape: &[u64], version: Release) -> Result<Conversion> {
    let rank = shape.len();
    // 3.3 still builds the 3.2 leading-offset layout, keyed on the swizzle,
    // with the columns along `order[0]` and the rows along `order[1]`.
    let mut order: Vec<usize> = (0..rank).rev().collect();
    if n.transposed && rank >= 2 {
        order.swap(0, 1);
    }
    // (Padding for fp4 only changes the column bases, which never come.)
    let leading_offset = version.builds_nvmma_by_leading_offset();
    if leading_offset && n.swizzling_byte_width == 0 && rank >= 2 {
        return Err(unswizzled_leading_offset_3_3(shape, &order, version));
    }
    if leading_offset && n.swizzling_byte_width > 0 && !n.fp4_padded && rank >= 2 {
        // Other widths fail the attribute's verifier before this.
        let (per_phase, max_phase) = swizzle_phases(n.swizzling_byte_width).unwrap_or((1, 8));
        let legacy = SwizzledShared {
            vec: 128 / n.element_bit_width.max(1),
            per_phase,
            max_phase,
            order,
            cga: n.cga.clone(),
            has_leading_offset: Some(true),
        };
        return leading_offset_shared(&legacy, shape, version, Some(n.element_bit_width));
    }
    if rank == 0 {
        return Err(invalid(NVMMA_KIND, "a shape needs at least one dim"));
    }
    if n.element_bit_width == 0 {
        return Err(invalid(NVMMA_KIND, "elementBitWidth must be non-zero"));
    }
    if ![0, 32, 64, 128].contains(&n.swizzling_byte_width) {
        return Err(invalid(
            NVMMA_KIND,
            "swizzlingByteWidth must be 0, 32, 64, or 128",
        ));
    }
    let per_cta = shape_per_cta(&n.cga, shape)?;
    let tma = tma_block_shape(n, &per_cta, version)?;
    // `buildNvmmaSharedLinearLayout` fails on a box that is not a power of
    // two (odd element widths), and the caller turns that into a fatal error.
    if let Some(&bad) = tma.iter().find(|&&s| !s.is_power_of_two()) {
        return Err(fail(
            &NVMMA_ILLEGAL,
            version,
            format!("the TMA block shape {tma:?} has a size {bad} that is not a power of two"),
        ));
    }
    let all_dims: Vec<usize> = (0..rank).collect();

    if n.swizzling_byte_width == 0 {
        // A row-major identity over the box (the last dim fastest), built
        // with its out-dims in reverse order. For `transposed`, the 3.9.0
        // wheel's results are those of the swizzled path's treatment (rotate
        // the box, then `transposeLinearLayout`) applied to this layout.
        // (Inferred from the recorded 3.9.0 results: the source copies read
        // ignore `transposed` here.) `transposeLinearLayout` permutes basis
        // components by *position*, and this layout's out-dims are
        // `dim{rank-1} … dim0`. For rank 2 that is the intended transpose.
        // For rank 3 and up the dims come out permuted and with the wrong
        // sizes, and the steps below repair that with zero and extra bases.
        // 3.4 to 3.7 ignore `transposed` here (upstream e4264c126 changed
        // that for 3.8). 3.3 never gets here for rank 2 and up
        // (`unswizzled_leading_offset_3_3`).
        let transposed = n.transposed && version.transposes_unswizzled_nvmma();
        let mut box_shape = tma.clone();
        if transposed {
            box_shape.rotate_left(1);
        }
        let mut layout = LinearLayout::empty();
        for d in (0..rank).rev() {
            layout = layout.product(&LinearLayout::identity_1d(
                box_shape[d],
                Dim::OFFSET,
                Dim::standard(d),
            )?)?;
        }
        if transposed {
            layout = utils::transpose_linear_layout(&layout, &transposed_order(rank))?;
        }
        let layout = utils::ensure_layout_not_smaller_than(&layout, &pairs(&all_dims, &per_cta))?;
        return combine_cta_cga_with_shape(layout, &n.cga, shape, version).map(Conversion::Layout);
    }
    if rank < 2 {
        return Err(fail(
            &NVMMA_RANK,
            version,
            "a swizzled nvmma_shared layout needs at least 2 dims".into(),
        ));
    }

    // Collapse the box to 2-D: (all outer dims, the last dim); transposed
    // layouts swap the two, so the contiguous dim 0 comes out as columns.
    let outer: u64 = tma[..rank - 1].iter().product();
    let mut collapsed = [outer, tma[rank - 1]];
    if n.transposed {
        collapsed.swap(0, 1);
    }

    let tile = core_matrix(n)?;
    let tile_rows = tile.out_dim_size(Dim::standard(0))?;
    let tile_cols = tile.out_dim_size(Dim::standard(1))?;
    let packing = if n.fp4_padded { 2 } else { 1 };
    if collapsed[1] * packing < tile_cols || collapsed[0] < tile_rows {
        return Err(fail(
            &NVMMA_ILLEGAL,
            version,
            format!(
                "expected collapsed shapePerCTA to be at least [{tile_rows}, {}], collapsedTmaShape: \
                 [{}, {}]",
                tile_cols / packing,
                collapsed[0],
                collapsed[1]
            ),
        ));
    }
    let layout = utils::ensure_layout_not_smaller_than(
        &tile,
        &[
            (Dim::standard(0), collapsed[0]),
            (Dim::standard(1), collapsed[1]),
        ],
    )?;

    // Reshape (row-major) to the N-D box; a transposed layout is reshaped to
    // the box with dim 0 moved innermost and then rotated back.
    let mut box_shape = tma.clone();
    if n.transposed {
        box_shape.rotate_left(1);
    }
    let box_total: u128 = box_shape.iter().map(|&s| s as u128).product();
    if layout.total_out_dim_size() != box_total {
        return Err(fail(
            &NVMMA_ILLEGAL,
            version,
            format!(
                "the core-matrix tiling covers {} elements, the TMA box {box_total}",
                layout.total_out_dim_size()
            ),
        ));
    }
    let mut layout = utils::reshape_layout(&layout, &box_shape)?;
    if n.transposed {
        layout = utils::transpose_linear_layout(&layout, &transposed_order(rank))?;
    }
    // Out-dims are now dim0 … dim{rank-1}: further box repetitions go along
    // dim 0 first.
    let layout = utils::ensure_layout_not_smaller_than(&layout, &pairs(&all_dims, &per_cta))?;
    combine_cta_cga_with_shape(layout, &n.cga, shape, version).map(Conversion::Layout)
}

// ---------------------------------------------------------------------------
// 3.2: #triton_gpu.shared<{..., hasLeadingOffset = true}>
// ---------------------------------------------------------------------------

/// The layout 3.2 builds for a `#triton_gpu.shared` with
/// `hasLeadingOffset = true` (`sharedToLinearLayoutLeadingOffset`), which
/// needs the element bit width.
///
/// * Rank 1 is an identity over the whole dim.
/// * `(perPhase, maxPhase)` must be (4, 2), (2, 4) or (1, 8): a 32, 64 or
///   128-byte swizzle (`llvm_unreachable` otherwise).
/// * The tile is 8 rows × `8·swizzleBytes/elemBitWidth` columns; a shape
///   smaller than it along the row (`order[1]`) or column (`order[0]`) dim is
///   refused (`report_fatal_error("Illegal shared layout")`, added by PR
///   #4731 after issue #4727).
/// * `vec` must equal `128/elemBitWidth` (fatal otherwise).
/// * Tile rows are swizzled by `vec · ((row / perPhase) mod maxPhase)`,
///   without the `mod numCols` of the plain swizzled layout; further dims
///   (`order[2…]`) are identities over the whole shape; then
///   `combineCtaCgaWithShape` repeats the tile down all rows first, then
///   across column chunks.
///
/// The rules are those of the 3.2.0 wheel (whose `libtriton` carries the
/// three messages); they are applied whatever `version` is, which only picks
/// the CGA step's `ensureLayoutNotLargerThan`.
pub(crate) fn leading_offset_shared(
    s: &SwizzledShared,
    shape: &[u64],
    version: Release,
    elem_bits: Option<u64>,
) -> Result<Conversion> {
    let Some(bits) = elem_bits else {
        return Err(invalid(
            LEADING_KIND,
            "a shared layout with hasLeadingOffset = true needs the element bit width \
             (toLinearLayout's elemBitWidth): give the tensor's element type",
        ));
    };
    if bits == 0 {
        return Err(invalid(
            LEADING_KIND,
            "the element bit width must be non-zero",
        ));
    }
    let rank = shape.len();
    if rank == 0 {
        return Err(invalid(LEADING_KIND, "a shape needs at least one dim"));
    }
    if s.order.len() != rank {
        return Err(invalid(
            LEADING_KIND,
            format!("order has {} entries, the shape {rank}", s.order.len()),
        ));
    }
    if rank == 1 {
        let cta = LinearLayout::identity_1d(shape[0], Dim::OFFSET, Dim::standard(0))?;
        return combine_cta_cga_with_shape(cta, &s.cga, shape, version).map(Conversion::Layout);
    }
    let Some(tile_width_bytes) = s.swizzle_bytes() else {
        // Only 3.2 spells such a layout (3.3 and later derive the phases
        // from a swizzle width); its `llvm_unreachable` names the line.
        return Err(fail(
            &LEADING_PHASES_3_2,
            version,
            format!(
                "If hasLeadingOffset is true, then (perPhase, maxPhase) must be either (4,2), (2,4), or \
                 (1,8), but they are ({},{})",
                s.per_phase, s.max_phase
            ),
        ));
    };
    let (col_dim, row_dim) = (s.order[0], s.order[1]);
    let tile_rows = 8u64;
    let tile_cols = 8 * tile_width_bytes / bits;
    if shape[col_dim] < tile_cols || shape[row_dim] < tile_rows {
        // PR #4731 (for issue #4727) made this a fatal error instead of an
        // assertion deep inside the layout algebra.
        return Err(fail(
            &LEADING_ILLEGAL,
            version,
            format!(
                "expected shape to be at least [{tile_rows}, {tile_cols}], shape: [{}, {}] (the fatal \
                 error PR #4731 added for issue #4727)",
                shape[row_dim], shape[col_dim]
            ),
        ));
    }
    let vec = 128 / bits;
    if vec != s.vec {
        return Err(fail(
            &LEADING_ILLEGAL,
            version,
            format!("expected `vec` to be {vec}, but it is {}", s.vec),
        ));
    }
    // Triton counts the bits with a floored log2.
    let log2 = |x: u64| if x == 0 { 0 } else { 63 - x.leading_zeros() };
    let mut bases: Vec<Vec<u64>> = Vec::new();
    for i in 0..log2(tile_cols) {
        bases.push(vec![0, 1 << i]);
    }
    for i in 0..log2(tile_rows) {
        let row = 1u64 << i;
        bases.push(vec![row, vec * ((row / s.per_phase) % s.max_phase)]);
    }
    let mut tile = LinearLayout::from_bases(
        &[(Dim::OFFSET, bases)],
        &[Dim::standard(row_dim), Dim::standard(col_dim)],
    )?;
    for &d in &s.order[2..] {
        tile = tile.product(&LinearLayout::identity_1d(
            shape[d],
            Dim::OFFSET,
            Dim::standard(d),
        )?)?;
    }
    combine_cta_cga_with_shape(tile, &s.cga, shape, version).map(Conversion::Layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Cga;

    fn nvmma(swizzle: u64, transposed: bool, bits: u64) -> NvmmaShared {
        NvmmaShared {
            swizzling_byte_width: swizzle,
            transposed,
            element_bit_width: bits,
            fp4_padded: false,
            cga: None,
            rank: None,
        }
    }

    fn leading(vec: u64, per_phase: u64, max_phase: u64, order: &[usize]) -> SwizzledShared {
        SwizzledShared {
            vec,
            per_phase,
            max_phase,
            order: order.to_vec(),
            cga: None,
            has_leading_offset: Some(true),
        }
    }

    fn offsets(c: Conversion) -> Vec<Vec<u64>> {
        let l = c.layout().expect("a layout");
        l.bases()
            .into_iter()
            .find(|(d, _)| *d == Dim::OFFSET)
            .map(|(_, v)| v)
            .unwrap_or_default()
    }

    fn v(bases: &[[u64; 2]]) -> Vec<Vec<u64>> {
        bases.iter().map(|b| b.to_vec()).collect()
    }

    const NEWEST: Release = Release::V3_9;

    #[test]
    fn e8_newest_16_bit_on_16x64() {
        let e128 = v(&[
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [0, 16],
            [0, 32],
            [1, 8],
            [2, 16],
            [4, 32],
            [8, 0],
        ]);
        let e64 = v(&[
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [0, 16],
            [1, 0],
            [2, 8],
            [4, 16],
            [8, 0],
            [0, 32],
        ]);
        let e32 = v(&[
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [1, 0],
            [2, 0],
            [4, 8],
            [8, 0],
            [0, 16],
            [0, 32],
        ]);
        for (swizzle, want) in [(128, e128), (64, e64), (32, e32)] {
            let got = offsets(nvmma_shared(&nvmma(swizzle, false, 16), &[16, 64], NEWEST).unwrap());
            assert_eq!(got, want, "{swizzle} B");
        }
    }

    #[test]
    fn e8_newest_128b_transposed_on_64x16() {
        let want = v(&[
            [1, 0],
            [2, 0],
            [4, 0],
            [8, 0],
            [16, 0],
            [32, 0],
            [8, 1],
            [16, 2],
            [32, 4],
            [0, 8],
        ]);
        let got = offsets(nvmma_shared(&nvmma(128, true, 16), &[64, 16], NEWEST).unwrap());
        assert_eq!(got, want);
    }

    #[test]
    fn a_cga_that_is_no_permutation_splits_by_first_dim_in_3_7() {
        // The 3.7.1 wheel's Gluon on this attribute and a 32 × 16 tensor
        // (seed 1795637408 of the encodings oracle): the bases (1, 1),
        // (1, 0), (2, 0) all count for dim 0, so each CTA holds 4 × 16
        // elements, padded to the 8-row core matrix with a zero basis.
        let n = NvmmaShared {
            cga: Some(Cga::Bases(vec![vec![1, 1], vec![1, 0], vec![2, 0]])),
            ..nvmma(32, true, 64)
        };
        let l = nvmma_shared(&n, &[32, 16], Release::V3_7)
            .unwrap()
            .layout()
            .expect("a layout");
        let want_offset = v(&[[1, 0], [2, 0], [0, 1], [0, 2], [2, 4], [0, 0], [4, 0]]);
        let want_block = v(&[[8, 8], [8, 0], [16, 0]]);
        let bases = l.bases();
        assert_eq!(bases[0], (Dim::OFFSET, want_offset));
        assert_eq!(bases[1], (Dim::BLOCK, want_block));
        // 3.8 refuses such a CGA in its verifier.
        let attr = crate::attr::Attr::NvmmaShared(n);
        assert!(crate::to_linear_layout(&attr, &[32, 16], Release::V3_8, None).is_err());
    }

    #[test]
    fn unswizzled_nvmma_in_3_3_never_becomes_a_layout() {
        // Rows are dim 0 (the last but one dim with a batch), or dim 1 when
        // transposed: fewer than 8 is the fatal error, more runs out of
        // memory. 3.4 builds a layout for every one of them.
        let fails = |shape: &[u64], transposed: bool| -> Failure {
            match nvmma_shared(&nvmma(0, transposed, 16), shape, Release::V3_3) {
                Err(crate::ConvertError::Triton(f)) => *f,
                other => panic!("{shape:?} transposed {transposed}: {other:?}"),
            }
        };
        for (shape, transposed, fatal) in [
            (&[4u64, 8][..], false, true),
            (&[8, 4], false, false),
            (&[8, 4], true, true),
            (&[4, 8], true, false),
            (&[2, 4, 64], false, true),
            (&[64, 8, 4], false, false),
        ] {
            let failure = fails(shape, transposed);
            let (want, ending) = if fatal {
                ("Illegal shared layout", Ending::FatalError)
            } else {
                ("std::bad_alloc", Ending::Crash)
            };
            assert!(
                failure.triton_message.contains(want) && failure.ending() == ending,
                "{shape:?} {transposed}: {failure}"
            );
            let newer = nvmma_shared(&nvmma(0, transposed, 16), shape, Release::V3_4);
            assert!(newer.is_ok(), "{shape:?} {transposed}: {newer:?}");
        }
    }

    #[test]
    fn leading_offset_matches_newest_nvmma_in_2d() {
        // (swizzle, perPhase, maxPhase); vec = 128 / bits.
        for (swizzle, per_phase, max_phase) in [(128, 1, 8), (64, 2, 4), (32, 4, 2)] {
            for bits in [8u64, 16, 32] {
                let vec = 128 / bits;
                let tile_cols = 8 * swizzle / bits;
                for rows in [8u64, 16, 64, 256] {
                    for cols in [tile_cols, 2 * tile_cols, 4 * tile_cols] {
                        let old = leading(vec, per_phase, max_phase, &[1, 0]);
                        let a =
                            leading_offset_shared(&old, &[rows, cols], Release::V3_2, Some(bits))
                                .unwrap();
                        let b = nvmma_shared(&nvmma(swizzle, false, bits), &[rows, cols], NEWEST)
                            .unwrap();
                        assert_eq!(a, b, "{swizzle} B, {bits} bits, [{rows}, {cols}]");
                        let old_t = leading(vec, per_phase, max_phase, &[0, 1]);
                        let a =
                            leading_offset_shared(&old_t, &[cols, rows], Release::V3_2, Some(bits))
                                .unwrap();
                        let b = nvmma_shared(&nvmma(swizzle, true, bits), &[cols, rows], NEWEST)
                            .unwrap();
                        assert_eq!(
                            a, b,
                            "transposed {swizzle} B, {bits} bits, [{cols}, {rows}]"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn leading_offset_and_newest_differ_past_256_rows_when_transposed() {
        // 3.9 caps the TMA box at 256 rows and then repeats it along
        // dim 0 (the contiguous dim) before dim 1; 3.2 repeats rows first.
        let old = leading(8, 1, 8, &[0, 1]);
        let a = offsets(leading_offset_shared(&old, &[128, 512], Release::V3_2, Some(16)).unwrap());
        let b = offsets(nvmma_shared(&nvmma(128, true, 16), &[128, 512], NEWEST).unwrap());
        assert_eq!(&a[..14], &b[..14]);
        assert_eq!(&a[14..], &v(&[[0, 256], [64, 0]])[..]);
        assert_eq!(&b[14..], &v(&[[64, 0], [0, 256]])[..]);
    }

    #[test]
    fn newest_swizzle_0_transposed_rank_3_permutes_sizes() {
        // Recorded from the 3.9.0 wheel: `transposeLinearLayout` on the
        // reverse-ordered identity sends the box's sizes to the wrong dims;
        // the oversized dim gets a zero basis, the short one a late repeat.
        let mut n = nvmma(0, true, 8);
        n.rank = Some(3);
        let got: Vec<Vec<u64>> = offsets(nvmma_shared(&n, &[8, 16, 8], NEWEST).unwrap());
        let want: Vec<Vec<u64>> = [
            [0, 1, 0],
            [0, 2, 0],
            [0, 4, 0],
            [1, 0, 0],
            [2, 0, 0],
            [4, 0, 0],
            [0, 0, 1],
            [0, 0, 2],
            [0, 0, 4],
            [0, 0, 0],
            [0, 8, 0],
        ]
        .iter()
        .map(|b| b.to_vec())
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn leading_offset_e8_examples() {
        let e128 = v(&[
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [0, 16],
            [0, 32],
            [1, 8],
            [2, 16],
            [4, 32],
            [8, 0],
        ]);
        let got = offsets(
            leading_offset_shared(
                &leading(8, 1, 8, &[1, 0]),
                &[16, 64],
                Release::V3_2,
                Some(16),
            )
            .unwrap(),
        );
        assert_eq!(got, e128);
        let want = v(&[
            [1, 0],
            [2, 0],
            [4, 0],
            [8, 0],
            [16, 0],
            [32, 0],
            [8, 1],
            [16, 2],
            [32, 4],
            [0, 8],
        ]);
        let got = offsets(
            leading_offset_shared(
                &leading(8, 1, 8, &[0, 1]),
                &[64, 16],
                Release::V3_2,
                Some(16),
            )
            .unwrap(),
        );
        assert_eq!(got, want);
    }

    #[test]
    fn leading_offset_refusals() {
        let s = leading(8, 1, 8, &[1, 0]);
        // No element width.
        assert!(leading_offset_shared(&s, &[16, 64], Release::V3_2, None).is_err());
        // Issue #4727: fewer than 8 rows, or fewer columns than the tile.
        assert!(leading_offset_shared(&s, &[4, 64], Release::V3_2, Some(16)).is_err());
        assert!(leading_offset_shared(&s, &[16, 32], Release::V3_2, Some(16)).is_err());
        // Wrong vec, wrong phases.
        assert!(
            leading_offset_shared(
                &leading(4, 1, 8, &[1, 0]),
                &[16, 64],
                Release::V3_2,
                Some(16)
            )
            .is_err()
        );
        assert!(
            leading_offset_shared(
                &leading(8, 1, 4, &[1, 0]),
                &[16, 64],
                Release::V3_2,
                Some(16)
            )
            .is_err()
        );
        // Rank 1 is an identity whatever the parameters.
        let one = leading(1, 1, 1, &[0]);
        assert_eq!(
            offsets(leading_offset_shared(&one, &[8], Release::V3_2, Some(16)).unwrap()),
            vec![vec![1], vec![2], vec![4]]
        );
    }

    #[test]
    fn newest_refusals() {
        // Contiguous dim narrower than the swizzle.
        assert!(nvmma_shared(&nvmma(128, false, 16), &[64, 32], NEWEST).is_err());
        // Fewer than 8 rows.
        assert!(nvmma_shared(&nvmma(128, false, 16), &[4, 64], NEWEST).is_err());
        // Rank 1 with a swizzle; without one it converts.
        let mut one = nvmma(128, false, 8);
        one.rank = Some(1);
        assert!(nvmma_shared(&one, &[256], NEWEST).is_err());
        one.swizzling_byte_width = 0;
        assert!(nvmma_shared(&one, &[256], NEWEST).is_ok());
        // Per CTA: [8, 64] split over 2 CTAs along dim 0 leaves 4 rows.
        let mut cga = nvmma(128, false, 16);
        cga.cga = Some(Cga::Bases(vec![vec![1, 0]]));
        assert!(nvmma_shared(&cga, &[8, 64], NEWEST).is_err());
        assert!(nvmma_shared(&cga, &[16, 64], NEWEST).is_ok());
    }

    #[test]
    fn fp4_padded_inserts_a_zero_basis() {
        let mut n = nvmma(128, false, 8);
        n.fp4_padded = true;
        let got = offsets(nvmma_shared(&n, &[8, 64], NEWEST).unwrap());
        assert_eq!(&got[..5], &v(&[[0, 1], [0, 2], [0, 4], [0, 0], [0, 8]])[..]);
    }
}
