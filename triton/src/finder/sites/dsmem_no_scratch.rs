//! A layout conversion that 3.4 and 3.5 send through distributed shared
//! memory although the allocation gave it no scratch buffer.
//!
//! NVIDIA's `convert_layout` pattern (benefit + 1) takes a pair of MMA,
//! blocked or slice layouts to `lowerDistToDistWithDistSmem` when
//! `shouldUseDistSmem` holds (`lib/Analysis/Utility.cpp`, `release/3.5.x`
//! lines 58–96): with several CTAs, when the destination is a slice whose
//! parent has several CTAs along the sliced dim, or when the two layouts'
//! `CTALayoutAttr`s differ. Up to 3.5 that attribute is the three lists
//! `CTAsPerCGA`, `CTASplitNum`, `CTAOrder`, compared as written: a slice of
//! a `#ttg.linear` layout derives them from its `block` bases
//! (`LinearEncodingAttr::getCTAOrder`: the dims the `block` bases move,
//! then the register order), so it can split the CTAs exactly as a blocked
//! layout does and still differ in `CTAOrder`. The lowering's first step is
//! `getSharedMemoryBase`, which asserts that the op was given a scratch
//! buffer (`Utility.cpp:1052` in 3.4, `:1333` in 3.5); the allocation gives
//! one only when `cvtNeedsSharedMemory`, which compares the linear layouts:
//! a conversion that only reorders registers, or (3.5) moves values within
//! a warp, gets none. 3.6 compares the CTA layouts as `block` bases
//! (`CGAEncodingAttr`), so equal splits no longer take the path.
//!
//! 3.4 gives a within-warp conversion no scratch only when
//! `getWarpLayoutConvertDecomposition` finds a shuffle plan. Not modelled:
//! a source slice whose parent has several CTAs along the sliced dim
//! (`report_fatal_error("Layout conversion to be implemented")`).
//!
//! Measured: an mxfp4 `dot_scaled` with 2 CTAs on sm100 (its scale's
//! `#blocked` → slice of `#linear`) aborts 3.4.0 and 3.5.1 there; the
//! one-op module of that conversion (`families.py`'s `dsmem_scratch`
//! modules) aborts both and compiles on 3.6.0 – 3.9.0.

use super::Failure;
use crate::attr::{Attr, Cga, Linear};
use crate::finder::op::Op;
use crate::finder::verdict::Trace;
use crate::layout_cvt::{reorders_registers, shuffle_plan_3_4, within_warp};
use crate::release::Span;
use crate::{Ending, Location, Release, Site, SiteKind};
use linear_layout::Dim;

const fn shared_memory_base(release: Release, line: u32) -> Location {
    Location {
        releases: Span::only(release),
        ending: Ending::Assertion,
        function: "getSharedMemoryBase, from lowerDistToDistWithDistSmem (ConvertLayoutOpConversion)",
        file: "lib/Conversion/TritonGPUToLLVM/Utility.cpp",
        line: Some(line),
        message: "Assertion `op->hasAttr(\"allocation.offset\")' failed.",
    }
}

static BASE_3_4: Location = shared_memory_base(Release::V3_4, 1052);
static BASE_3_5: Location = shared_memory_base(Release::V3_5, 1333);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "dsmem_no_scratch",
    kind: SiteKind::Bug,
    title: "a layout conversion between CTA layouts that are written differently but split the CTAs alike (a slice of a linear layout, num_ctas > 1), sent through distributed shared memory without a scratch buffer",
    locations: &[&BASE_3_4, &BASE_3_5],
    changes: &[crate::Change {
        release: Release::V3_6,
        pr: None,
        what: "CTA layouts are compared as block bases (CGAEncodingAttr): equal splits stay on the generic path",
    }],
    workaround: "num_ctas=1, or Triton 3.6 or later",
};

/// A `CTALayoutAttr` as 3.4 and 3.5 derive it: CTAs per dim, distinct
/// tiles per dim, the order CTAs are numbered in.
#[derive(PartialEq, Eq, Debug)]
struct CtaLayout {
    ctas: Vec<u64>,
    split: Vec<u64>,
    order: Vec<usize>,
}

/// `attr`'s CTA layout on a rank-`rank` tensor; `None` where the release
/// would not derive one (a slice of a parent with several CTAs along the
/// sliced dim), or an attribute this model does not read.
fn cta_layout(attr: &Attr, rank: usize) -> Option<CtaLayout> {
    match attr {
        Attr::Blocked(b) => written(b.cga.as_ref(), rank),
        Attr::NvidiaMma(m) => written(m.cga.as_ref(), rank),
        Attr::Linear(l) => linear(l, rank),
        Attr::Slice(s) => {
            let parent = cta_layout(&s.parent, rank + 1)?;
            if parent.ctas.get(s.dim) != Some(&1) {
                return None;
            }
            let erase = |v: &[u64]| {
                let mut v = v.to_vec();
                v.remove(s.dim);
                v
            };
            Some(CtaLayout {
                ctas: erase(&parent.ctas),
                split: erase(&parent.split),
                order: parent
                    .order
                    .iter()
                    .filter(|&&d| d != s.dim)
                    .map(|&d| if d > s.dim { d - 1 } else { d })
                    .collect(),
            })
        }
        _ => None,
    }
}

/// The lists as written, or the default (one CTA, the last dim fastest).
fn written(cga: Option<&Cga>, rank: usize) -> Option<CtaLayout> {
    match cga {
        None => Some(CtaLayout {
            ctas: vec![1; rank],
            split: vec![1; rank],
            order: (0..rank).rev().collect(),
        }),
        Some(Cga::Split {
            ctas_per_cga,
            cta_split_num,
            cta_order,
        }) if ctas_per_cga.len() == rank
            && cta_split_num.len() == rank
            && cta_order.len() == rank =>
        {
            Some(CtaLayout {
                ctas: ctas_per_cga.clone(),
                split: cta_split_num.clone(),
                order: cta_order.clone(),
            })
        }
        _ => None,
    }
}

/// `LinearEncodingAttr`'s lists: `basesPerDim(block)` with and without its
/// broadcast bases, and `orderPerDim(block, getOrder())`.
fn linear(l: &Linear, rank: usize) -> Option<CtaLayout> {
    let bases = |dim: Dim| -> &[Vec<u64>] {
        l.bases
            .iter()
            .find(|(d, _)| *d == dim)
            .map_or(&[], |(_, b)| b.as_slice())
    };
    let first_moved = |basis: &Vec<u64>| basis.iter().position(|&x| x != 0);
    if bases(Dim::BLOCK).iter().any(|b| b.len() != rank) {
        return None;
    }
    let (mut ctas, mut split) = (vec![1; rank], vec![1; rank]);
    let mut last = 0;
    for basis in bases(Dim::BLOCK) {
        match first_moved(basis) {
            Some(d) => {
                last = d;
                ctas[d] *= 2;
                split[d] *= 2;
            }
            // a broadcast basis doubles the CTAs of the dim seen last
            None => ctas[last] *= 2,
        }
    }
    let order_of = |dim: Dim, default: &[usize]| -> Vec<usize> {
        let mut order: Vec<usize> = Vec::with_capacity(rank);
        let moved = bases(dim).iter().filter_map(first_moved);
        for d in moved.chain(default.iter().copied()) {
            if !order.contains(&d) {
                order.push(d);
            }
        }
        order
    };
    let default: Vec<usize> = (0..rank).rev().collect();
    let register_order = order_of(Dim::REGISTER, &default);
    Some(CtaLayout {
        ctas,
        split,
        order: order_of(Dim::BLOCK, &register_order),
    })
}

/// Whether the NVIDIA pattern takes `attr` (an MMA, blocked or slice layout).
fn dsmem_kind(attr: &Attr) -> bool {
    matches!(attr, Attr::Blocked(_) | Attr::Slice(_) | Attr::NvidiaMma(_))
}

/// `shouldUseDistSmem` of 3.4 and 3.5; `None` where it fails itself or the
/// model cannot tell.
fn uses_dist_smem(src: &Attr, dst: &Attr, rank: usize) -> Option<bool> {
    if let Attr::Slice(s) = src {
        // a source slice with CTAs along the sliced dim: a fatal error
        cta_layout(&s.parent, rank + 1).filter(|p| p.ctas.get(s.dim) == Some(&1))?;
    }
    if let Attr::Slice(s) = dst {
        if cta_layout(&s.parent, rank + 1)?.ctas.get(s.dim) != Some(&1) {
            return Some(true);
        }
    }
    Some(cta_layout(src, rank)? != cta_layout(dst, rank)?)
}

/// The lowering of `op`, a `convert_layout`, in `release`.
fn check_op(op: &Op<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure> {
    if !SITE.fails_in(release) || op.module.num_ctas < 2 {
        return Ok(());
    }
    let (Some((shape, _, src)), Some(dst)) = (op.tensor.as_ref(), op.result.as_ref()) else {
        return Ok(());
    };
    let (Some(src_attr), Some(dst_attr)) = (op.attr(src), op.attr(dst)) else {
        return Ok(());
    };
    if !dsmem_kind(&src_attr) || !dsmem_kind(&dst_attr) {
        return Ok(());
    }
    if uses_dist_smem(&src_attr, &dst_attr, shape.len()) != Some(true) {
        return Ok(());
    }
    let what = || "the conversion's layouts".to_string();
    let Some(from) = super::converted(&src_attr, shape, release, None, trace, what)? else {
        return Ok(());
    };
    let Some(to) = super::converted(&dst_attr, shape, release, None, trace, what)? else {
        return Ok(());
    };
    let Ok(reorders) = reorders_registers(&from, &to) else {
        return Ok(());
    };
    // 3.5 lowers every within-warp conversion by shuffles, without scratch;
    // 3.4 only those it finds a shuffle plan for.
    let shuffles = match within_warp(&from, &to) {
        None => false,
        Some(_) if release == Release::V3_5 => true,
        Some(cvt) => match shuffle_plan_3_4(&cvt) {
            Some(found) => found,
            None => return Ok(()),
        },
    };
    if !reorders && !shuffles {
        return Ok(());
    }
    let location = if release == Release::V3_4 {
        &BASE_3_4
    } else {
        &BASE_3_5
    };
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "the CTA layouts differ as written, so the conversion takes the distributed-shared-memory path, but it {} and was given no scratch buffer",
            if reorders {
                "only reorders registers"
            } else {
                "stays within a warp"
            }
        ),
    ))
}

/// The model: each `convert_layout` of a module.
pub(crate) const MODEL: super::OpModel = super::OpModel {
    site: &SITE,
    op: "convert_layout",
    stage: super::Stage::Lowering,
    check: check_op,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn linear_attr(register: &[[u64; 3]], block: &[[u64; 3]]) -> Linear {
        let v = |b: &[[u64; 3]]| b.iter().map(|x| x.to_vec()).collect();
        Linear {
            bases: vec![
                (Dim::REGISTER, v(register)),
                (Dim::LANE, vec![]),
                (Dim::WARP, vec![]),
                (Dim::BLOCK, v(block)),
            ],
            generic: false,
        }
    }

    /// The dot_scaled kernel's scale layout: `block` along dim 0, registers
    /// along dim 2 then 1, so the CTA order is [0, 2, 1].
    #[test]
    fn a_linear_layout_orders_its_ctas_by_block_then_register() {
        let l = linear_attr(&[[0, 0, 1], [0, 1, 0]], &[[64, 0, 0]]);
        let got = linear(&l, 3).unwrap();
        assert_eq!(got.ctas, [2, 1, 1]);
        assert_eq!(got.split, [2, 1, 1]);
        assert_eq!(got.order, [0, 2, 1]);
        let broadcast = linear_attr(&[[0, 0, 1]], &[[0, 1, 0], [0, 0, 0]]);
        let got = linear(&broadcast, 3).unwrap();
        assert_eq!((got.ctas, got.split), (vec![1, 4, 1], vec![1, 2, 1]));
    }
}
