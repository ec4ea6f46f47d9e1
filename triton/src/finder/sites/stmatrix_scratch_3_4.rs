//! 3.4's `stmatrix` store of a Hopper accumulator into a conversion's
//! scratch buffer, on a one-row tensor holding fewer values a thread than
//! one `stmatrix` stores.
//!
//! A `convert_layout` that moves values across warps (or across lanes
//! without a shuffle plan) goes through a scratch buffer
//! (`transferWithinBlockImpl`, `lib/Conversion/TritonGPUToLLVM/
//! ConvertLayoutOpToLLVM.cpp`). From a 16-bit Hopper accumulator on sm90
//! it stores with `stmatrix` when `TargetInfo::canUseStMatrix` holds
//! (the destination's order, read from its linear layout, starting with
//! dim 1; one iteration; `paddedRepShape[1] % 8 == 0`), with `chooseStMatrixLayoutSwizzled`'s layout: `inVec =
//! getNumConsecutiveInOut()` values a step, 8 (its register bases are
//! columns 1, 2, 4). The values come from the source's registers, as many
//! as its linear layout has (`getTotalElemsPerThread`); fewer than 8, and
//! the first step reads past them: LLVM's `ArrayRef` assertion. The scratch
//! is padded (so no `stmatrix`) unless every dim but the contiguous one is
//! 1 (`getScratchConfigForCvt`), so only a one-row tensor gets there.
//!
//! Modelled for 3.4 only, where the path is read
//! (`release/3.4.x:lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp`
//! lines 185–336, `lib/Analysis/Allocation.cpp:113–157`); 3.2 and 3.3 abort on
//! the same one-row modules through builders of their own (not modelled);
//! 3.5 compiles them. The iteration count is taken as one only where the
//! tensor's columns fit the accumulator's tile (`instrN × warps along N`),
//! the case measured.
//!
//! Measured: `families.py`'s `stmatrix_scratch` modules (a bf16 constant in
//! a Hopper accumulator of instruction N 8 converted to a blocked layout,
//! 1 – 16 rows × 8 – 32 columns, warps 4 × 1, 4 × 2 and 8 × 1, fp16, bf16
//! and fp32, instruction N 8 and 16, either destination order).

use super::{Event, Failure, SiteModel};
use crate::attr::Attr;
use crate::finder::op::{Op, bits_of};
use crate::finder::verdict::Trace;
use crate::layout_cvt::{reorders_registers, shuffle_plan_3_4, within_warp};
use crate::release::Span;
use crate::{Ending, Location, Release, Site, SiteKind};
use linear_layout::{Dim, LinearLayout, dim};

static STORE_3_4: Location = Location {
    releases: Span::only(Release::V3_4),
    ending: Ending::Assertion,
    function: "transferWithinBlockImpl (ConvertLayoutOpConversion): inVals[inRegSlice + k] of a stmatrix store",
    file: "llvm/ADT/ArrayRef.h",
    line: Some(268),
    message: "Assertion `Index < Length && \"Invalid index!\"' failed.",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "stmatrix_scratch_3_4",
    kind: SiteKind::Bug,
    title: "a one-row 16-bit Hopper accumulator converted through scratch memory with stmatrix, holding fewer values a thread than one stmatrix stores",
    locations: &[&STORE_3_4],
    changes: &[crate::Change {
        release: Release::V3_5,
        pr: None,
        what: "the conversion's stmatrix store no longer reads past the thread's values",
    }],
    workaround: "convert the accumulator after widening the tensor to 8 values a thread (or 2+ rows), or Triton 3.5",
};

/// The values one `stmatrix` of the swizzled layout stores a step.
const STMATRIX_VEC: u64 = 8;

/// The lowering of `op`, a `convert_layout`, in `release`.
fn check_op(op: &Op<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure> {
    if !SITE.fails_in(release) || op.module.capability.is_none_or(|c| c < 90) {
        return Ok(());
    }
    let (Some((shape, elem, src)), Some(dst)) = (op.tensor.as_ref(), op.result.as_ref()) else {
        return Ok(());
    };
    let (Some(Attr::NvidiaMma(mma)), Some(Attr::Blocked(blocked))) = (op.attr(src), op.attr(dst))
    else {
        return Ok(());
    };
    let [1, cols] = shape[..] else {
        return Ok(());
    };
    let (Some(&instr_n), Some(&warps_n)) = (mma.instr_shape.get(1), mma.warps_per_cta.get(1))
    else {
        return Ok(());
    };
    let stmatrix = mma.version_major == 3
        && bits_of(elem) == 16
        && !elem.starts_with("!tt.ptr")
        && cols % STMATRIX_VEC == 0
        && cols <= instr_n * warps_n;
    if !stmatrix {
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
    // The scratch's order is the destination's `getOrder`, from its linear
    // layout: the dim its first register basis moves, else the last dim.
    if contiguous_dim(&to) != Some(1) {
        return Ok(());
    }
    // Only a conversion through scratch memory: not a register reorder,
    // not a within-warp one with a shuffle plan.
    let Ok(reorders) = reorders_registers(&from, &to) else {
        return Ok(());
    };
    let shuffles = match within_warp(&from, &to) {
        Some(cvt) => match shuffle_plan_3_4(&cvt) {
            Some(found) => found,
            None => return Ok(()),
        },
        None => false,
    };
    if reorders || shuffles {
        return Ok(());
    }
    let Ok(registers) = from.in_dim_size(Dim::REGISTER) else {
        return Ok(());
    };
    if registers >= STMATRIX_VEC {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &STORE_3_4,
        release,
        format!(
            "a thread holds {registers} values of the 1 x {cols} accumulator; stmatrix stores {STMATRIX_VEC} a step from them"
        ),
    ))
}

/// `LinearEncodingAttr::getOrder()[0]` of a rank-2 layout `l`: the tensor
/// dim its first moving register basis moves, or dim 1 where no register
/// basis moves (the default order `[1, 0]`).
fn contiguous_dim(l: &LinearLayout) -> Option<usize> {
    let outs: Vec<Dim> = l.out_dim_names().collect();
    for i in 0..l.in_dim_size_log2(Dim::REGISTER).ok()? as usize {
        let basis = l.basis(Dim::REGISTER, i).ok()?;
        if let Some(p) = basis.iter().position(|&x| x != 0) {
            let name = outs.get(p)?;
            return (0..2).find(|&d| *name == dim(&format!("dim{d}")));
        }
    }
    Some(1)
}

/// The model.
pub(crate) struct Model;

impl SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::Op]
    }

    fn check(&self, event: &Event<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure> {
        match event {
            Event::Op(op) if op.name == "convert_layout" => check_op(op, release, trace),
            _ => Ok(()),
        }
    }

    fn stage(&self) -> Option<super::Stage> {
        Some(super::Stage::Lowering)
    }
}
