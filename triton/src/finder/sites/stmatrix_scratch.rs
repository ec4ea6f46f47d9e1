//! The `stmatrix` store of a small 16-bit Hopper accumulator into a
//! conversion's scratch buffer (3.2 – 3.4), when a thread holds fewer
//! values than one `stmatrix` stores, or the tile is narrower than one.
//!
//! A `convert_layout` that moves values across warps, or across lanes
//! without a shuffle plan, goes through a scratch buffer
//! (`transferWithinBlockImpl`, `lib/Conversion/TritonGPUToLLVM/
//! ConvertLayoutOpToLLVM.cpp`). From a Hopper accumulator of 16-bit values
//! it stores with `stmatrix` when the scratch allows it (`canUseStMatrix`:
//! the scratch's order starts with dim 1, one iteration covers the tensor,
//! `paddedRepShape[1] % 8 == 0`), with the layout of
//! `chooseStMatrixLayoutNoLeadingOffset`, whose register bases are columns
//! 1, 2, 4: `getNumConsecutiveInOut()` values a step, 8 where the CTA's
//! tile is 8 columns wide or more. The values come from the source's
//! registers: steps `j = 0, 8, …` below their count `E` read
//! `inVals[j .. j + 8]`, past the end unless `E` is a multiple of 8 (LLVM's
//! `ArrayRef` assertion; a Hopper accumulator of instruction N 8 covering
//! its tile once holds 4). A tile 4 columns wide stores 4 a step, and
//! `storeMatrixShared` asserts it is given 8.
//!
//! The scratch (`getScratchConfigForCvt`, `lib/Analysis/Allocation.cpp`):
//! `repShape[d] = max(min(S[d], srcTile[d]), min(S[d], dstTile[d]))` over the
//! CTA's shape `S`, so one iteration wherever either layout's tile covers
//! the tensor; `paddedRepShape` pads the contiguous dim by
//! `max(inVec, outVec)` unless every other dim of `repShape` is 1. The
//! accumulator stores 2 contiguous values, so a padded scratch allows
//! `stmatrix` only where the destination holds 8 (or more) contiguous
//! values a thread along dim 1: one-row tensors, or tall ones converted to
//! rows of 8.
//!
//! Per release (the line of the store loop's `inVals[inRegSlice + k]`):
//!
//! - 3.2 (`release/3.2.x`, `ConvertLayoutOpToLLVM.cpp:473–633`, its
//!   `chooseStMatrixLayout` in `lib/Dialect/TritonGPU/IR/
//!   LinearLayoutConversions.cpp:993–1151`, the scratch in `Allocation.cpp:
//!   70–166`): every conversion across lanes or warps takes the scratch; its
//!   order is the destination's written `order` (`getThreadOrder`), its
//!   vectors `min(shape, sizePerThread)` of the whole tensor.
//! - 3.3 (`release/3.3.x`, `ConvertLayoutOpToLLVM.cpp:426–590`,
//!   `TargetInfo::canUseStMatrix` in `third_party/nvidia/lib/
//!   TritonNVIDIAGPUToLLVM/TargetInfo.cpp:478–511`, PR #5407's builder in
//!   `LinearLayoutConversions.cpp:1212–1248`, `Allocation.cpp:36–158`): a
//!   conversion across lanes only takes a warp shuffle where
//!   `getWarpLayoutConvertDecomposition` finds one; order and vectors come
//!   from the layouts' linear layouts, vectors clamped to 128 bits.
//! - 3.4 (`release/3.4.x`, `ConvertLayoutOpToLLVM.cpp:185–336`,
//!   `Allocation.cpp:35–157`): as 3.3.
//!
//! 3.5 compiles every one of these modules.
//!
//! Measured: `families.py`'s `stmatrix_scratch` modules (a constant in a
//! Hopper accumulator converted to a blocked layout, on sm90) on 3.2.0,
//! 3.3.1 and 3.4.0 – 3.9.0: one-row and tall tensors, 1 – 128 rows × 4 – 128
//! columns, warps 4 × 1 – 4 × 4 and 8 × 1, instruction N 8 – 64, bf16,
//! fp16, int16 and fp32, either destination order, destinations with 1 – 16
//! contiguous values a thread and lanes or warps along either dim, and CTA
//! splits of 2 and 4 shared by both layouts.

use super::Failure;
use crate::attr::{Attr, Blocked, NvidiaMma};
use crate::convert::cga::split_num;
use crate::finder::op::{Op, bits_of};
use crate::finder::verdict::Trace;
use crate::layout_cvt::{
    minimal_cvt_layout, minimal_cvt_layout_3_2, shuffle_plan_3_4, within_warp,
};
use crate::release::Span;
use crate::{Ending, Location, Release, Site, SiteKind};
use linear_layout::{Dim, LinearLayout, dim};

const STORE: &str = "transferWithinBlockImpl (ConvertLayoutOpConversion): inVals[inRegSlice + k] of a stmatrix store";
const ARRAY_REF: &str = "llvm/ADT/ArrayRef.h";
const INDEX: &str = "Assertion `Index < Length && \"Invalid index!\"' failed.";

static STORE_3_2: Location = Location {
    releases: Span::until(Release::V3_2, Release::V3_4),
    ending: Ending::Assertion,
    function: STORE,
    file: ARRAY_REF,
    line: Some(260),
    message: INDEX,
};

static STORE_3_4: Location = Location {
    releases: Span::only(Release::V3_4),
    ending: Ending::Assertion,
    function: STORE,
    file: ARRAY_REF,
    line: Some(268),
    message: INDEX,
};

const fn narrow(release: Release, line: u32) -> Location {
    Location {
        releases: Span::only(release),
        ending: Ending::Assertion,
        function: "TargetInfo::storeMatrixShared, given fewer than 8 values by transferWithinBlockImpl",
        file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TargetInfo.cpp",
        line: Some(line),
        message: "Assertion `vals.size() == 8 && \"stmatrix requires exactly 8 elements in the input vector\"' failed.",
    }
}

static NARROW_3_2: Location = narrow(Release::V3_2, 487);
static NARROW_3_3: Location = narrow(Release::V3_3, 520);
static NARROW_3_4: Location = narrow(Release::V3_4, 527);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "stmatrix_scratch",
    kind: SiteKind::Bug,
    title: "a small 16-bit Hopper accumulator converted through scratch memory with stmatrix, holding fewer values a thread than one stmatrix stores",
    locations: &[
        &STORE_3_2,
        &STORE_3_4,
        &NARROW_3_2,
        &NARROW_3_3,
        &NARROW_3_4,
    ],
    changes: &[crate::Change {
        release: Release::V3_5,
        pr: None,
        what: "the conversion's stmatrix store no longer reads past the thread's values",
    }],
    workaround: "convert the accumulator once the tensor gives a thread 8 values (a tile of instruction N 8 covered twice), or Triton 3.5",
};

/// The values one `stmatrix` stores a step.
const STMATRIX_VEC: u64 = 8;

/// The lowering of `op`, a `convert_layout`, in `release`.
fn check_op(op: &Op<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure> {
    if !SITE.fails_in(release) {
        return Ok(());
    }
    // 3.2's chooser looks at the layout only; from 3.3 `canUseStMatrix`
    // asks for sm90 first.
    if release >= Release::V3_3 && op.module.capability.is_none_or(|c| c < 90) {
        return Ok(());
    }
    let (Some((shape, elem, src)), Some(dst)) = (op.tensor.as_ref(), op.result.as_ref()) else {
        return Ok(());
    };
    let (Some(Attr::NvidiaMma(mma)), Some(Attr::Blocked(blocked))) = (op.attr(src), op.attr(dst))
    else {
        return Ok(());
    };
    // Both layouts split the CTAs alike (else the distributed-shared-memory
    // path), 16-bit values (else no stmatrix).
    if mma.version_major != 3
        || shape.len() != 2
        || mma.cga != blocked.cga
        || bits_of(elem) != 16
        || elem.starts_with("!tt.ptr")
    {
        return Ok(());
    }
    let what = || "the conversion's layouts".to_string();
    let src_attr = Attr::NvidiaMma(mma.clone());
    let dst_attr = Attr::Blocked(blocked.clone());
    let Some(from) = super::converted(&src_attr, shape, release, None, trace, what)? else {
        return Ok(());
    };
    let Some(to) = super::converted(&dst_attr, shape, release, None, trace, what)? else {
        return Ok(());
    };
    if !through_scratch(&from, &to, release) {
        return Ok(());
    }
    let Some(scratch) = Scratch::of(&mma, &blocked, shape, &from, &to, release) else {
        return Ok(());
    };
    trace.note(|| format!("{scratch:?}"));
    if !scratch.stmatrix() {
        return Ok(());
    }
    let Ok(registers) = from.in_dim_size(Dim::REGISTER) else {
        return Ok(());
    };
    // `getNumConsecutiveInOut` of the stmatrix layout: its column bases
    // 1, 2, 4 cut to the CTA's columns.
    let vec = STMATRIX_VEC.min(scratch.cta_shape[1]);
    let (location, why) = if vec < STMATRIX_VEC {
        let location = match release {
            Release::V3_2 => &NARROW_3_2,
            Release::V3_3 => &NARROW_3_3,
            _ => &NARROW_3_4,
        };
        let why = format!(
            "the CTA's tile is {} columns wide; stmatrix is given {vec} values a step",
            scratch.cta_shape[1]
        );
        (location, why)
    } else if registers % vec != 0 {
        let location = if release == Release::V3_4 {
            &STORE_3_4
        } else {
            &STORE_3_2
        };
        let why = format!(
            "a thread holds {registers} values of the {} x {} accumulator; stmatrix stores {vec} a step from them",
            shape[0], shape[1]
        );
        (location, why)
    } else {
        return Ok(());
    };
    Err(Failure::at(&SITE, location, release, why))
}

/// Whether converting `from` to `to` goes through a scratch buffer in
/// `release`: it moves values across warps or lanes (not only within a
/// thread, not across CTAs; 3.2 matches broadcast elements its own way),
/// and from 3.3 a conversion across lanes only has no warp-shuffle plan.
fn through_scratch(from: &LinearLayout, to: &LinearLayout, release: Release) -> bool {
    let cvt = if release == Release::V3_2 {
        minimal_cvt_layout_3_2(from, to)
    } else {
        minimal_cvt_layout(from, to).ok()
    };
    let Some(cvt) = cvt else {
        return false;
    };
    let outs: Vec<Dim> = cvt.out_dim_names().collect();
    if outs.contains(&Dim::BLOCK) || !(outs.contains(&Dim::WARP) || outs.contains(&Dim::LANE)) {
        return false;
    }
    if release < Release::V3_3 {
        return true;
    }
    match within_warp(from, to) {
        // no plan: scratch; a plan (or 3.3's assertion in building one,
        // another site's): no scratch
        Some(cvt) => shuffle_plan_3_4(&cvt) == Some(false),
        None => true,
    }
}

/// The conversion's scratch buffer (`ScratchConfig`), what `canUseStMatrix`
/// reads of it.
#[derive(Debug)]
struct Scratch {
    /// The tensor's shape in one CTA.
    cta_shape: [u64; 2],
    /// `repShape`.
    rep: [u64; 2],
    /// `paddedRepShape[1]`.
    padded_cols: u64,
    /// `order[0]`.
    contiguous: usize,
}

impl Scratch {
    fn of(
        mma: &NvidiaMma,
        blocked: &Blocked,
        shape: &[u64],
        from: &LinearLayout,
        to: &LinearLayout,
        release: Release,
    ) -> Option<Scratch> {
        let split = split_num(&mma.cga, 2).ok()?;
        let cta_shape: [u64; 2] = std::array::from_fn(|d| shape[d] / shape[d].min(split[d]).max(1));
        // The tiles: instruction N × warps along N for the accumulator
        // (16 rows a warp), sizePerThread × threadsPerWarp × warpsPerCTA for
        // the blocked layout (from 3.3 read from the linear layouts, the
        // same wherever a tile covers the tensor or not).
        let (&instr_n, &warps_n, &warps_m) = (
            mma.instr_shape.get(1)?,
            mma.warps_per_cta.get(1)?,
            mma.warps_per_cta.first()?,
        );
        let src_tile = [16 * warps_m, instr_n * warps_n];
        let dst_tile: [u64; 2] = std::array::from_fn(|d| {
            blocked.size_per_thread[d] * blocked.threads_per_warp[d] * blocked.warps_per_cta[d]
        });
        let rep: [u64; 2] = std::array::from_fn(|d| {
            cta_shape[d]
                .min(src_tile[d])
                .max(cta_shape[d].min(dst_tile[d]))
        });
        let contiguous = if release == Release::V3_2 {
            *blocked.order.first()?
        } else {
            contiguous_dim(to)?
        };
        // The store and load vectors along the contiguous dim (only the
        // case `contiguous == 1` matters): 3.2 `min(shape, contigPerThread)`
        // of the whole tensor, 2 for the accumulator; from 3.3 the linear
        // layouts' contiguity, at most the scratch's width and 128 bits.
        let (in_vec, out_vec) = if release == Release::V3_2 {
            (
                shape[1].min(2),
                shape[1].min(*blocked.size_per_thread.get(1)?),
            )
        } else {
            let clamp = |v: u64| v.min(rep[1]).min(128 / 16);
            (clamp(contig_cols(from)?), clamp(contig_cols(to)?))
        };
        let padded_cols = if rep[0] == 1 {
            rep[1]
        } else {
            rep[1] + in_vec.max(out_vec)
        };
        Some(Scratch {
            cta_shape,
            rep,
            padded_cols,
            contiguous,
        })
    }

    /// `canUseStMatrix` for the unswizzled scratch.
    fn stmatrix(&self) -> bool {
        let iterations = (0..2)
            .map(|d| self.cta_shape[d].div_ceil(self.rep[d].max(1)))
            .product::<u64>();
        self.contiguous == 1 && iterations == 1 && self.padded_cols % 8 == 0
    }
}

/// The tensor components (dim 0, dim 1) of a rank-2 layout's basis.
fn components(l: &LinearLayout, in_dim: Dim, i: usize) -> Option<[u64; 2]> {
    let outs: Vec<Dim> = l.out_dim_names().collect();
    let basis = l.basis(in_dim, i).ok()?;
    let mut out = [0; 2];
    for (name, &x) in outs.iter().zip(basis.iter()) {
        let d = (0..2).find(|&d| *name == dim(&format!("dim{d}")))?;
        out[d] = x;
    }
    Some(out)
}

/// `LinearEncodingAttr::getOrder()[0]` of a rank-2 layout `l`: the tensor
/// dim its first moving register basis moves, or dim 1 where no register
/// basis moves (the default order `[1, 0]`).
fn contiguous_dim(l: &LinearLayout) -> Option<usize> {
    for i in 0..l.in_dim_size_log2(Dim::REGISTER).ok()? as usize {
        let c = components(l, Dim::REGISTER, i)?;
        if let Some(d) = c.iter().position(|&x| x != 0) {
            return Some(d);
        }
    }
    Some(1)
}

/// `getContigPerThread()[1]` of a rank-2 layout whose order starts with
/// dim 1: how many of its first register bases step along dim 1 by 1, 2,
/// 4, ….
fn contig_cols(l: &LinearLayout) -> Option<u64> {
    let mut contig = 1;
    for i in 0..l.in_dim_size_log2(Dim::REGISTER).ok()? as usize {
        if components(l, Dim::REGISTER, i)? != [0, contig] {
            break;
        }
        contig *= 2;
    }
    Some(contig)
}

/// The model: each `convert_layout` of a module.
pub(crate) const MODEL: super::OpModel = super::OpModel {
    site: &SITE,
    op: "convert_layout",
    stage: super::Stage::Lowering,
    check: check_op,
};
