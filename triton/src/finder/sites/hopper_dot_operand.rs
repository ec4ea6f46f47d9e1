//! Operand A of a Hopper (wgmma) dot held in registers, reached through
//! shared memory by 3.1's and 3.2's first lowering pass.
//!
//! `DecomposeUnsupportedNVIDIAConversions` (the first pass of `make_llir`)
//! rewrites, over the whole module and before anything is allocated or
//! lowered, every conversion into a dot operand that has no register
//! path:
//! - an MMA accumulator to a dot operand, unless `isMmaToDotShortcut`
//!   holds, becomes a conversion to a blocked layout and from there to the
//!   operand (`decomposeTensorCoreToDotLayoutConversion`);
//! - a blocked tensor to a dot operand becomes a `local_alloc` into a
//!   buffer whose layout `SharedEncodingAttr::get(dotOperand, …)` builds,
//!   and a `local_load` (`decomposeBlockedToDotLayoutConversion`);
//! - a `local_load` of a leading-offset buffer into a dot operand is
//!   split the same way (`DecomposeLocalLoadToDotOperand`).
//!
//! That builder has no case for a Hopper parent: `llvm_unreachable
//! ("SharedEncodingAttr builder when the MMAEncodingAttr is Hopper has not
//! been implemented yet")`, `TritonGPUAttrDefs.td:403` in 3.1
//! (`TritonGPUAttrDefs.cpp.inc:347`), `:402` in 3.2 (`.inc:362`). The
//! shortcut that keeps a Hopper operand A in registers
//! (`matchMmaV3AndDotOperandLayout`): a v3 accumulator with one warp along
//! N and 8- or 16-bit elements, whose layout is the operand's parent's —
//! 3.1 asks only that the parent also be a v3 MMA with one warp along N
//! (`isMmaToMmaShortcut`), 3.2 that converting the parent's layout to the
//! source's only reorders registers. Attention kernels whose second dot
//! takes P through any other path abort (3.1 and 3.2, 8 and 16 warps).
//! From 3.3 a Hopper operand goes to an NVMMA buffer.
//!
//! Measured on 3.1.0 and 3.2.0 with the op-level `hopper_dot_operand`
//! modules (48 per release: blocked, the same MMA, another MMA and a
//! leading-offset buffer as the source; 4 compile, 44 abort on each).

use super::Failure;
use crate::Release;
use crate::attr::{Attr, DotOperand, NvidiaMma};
use crate::finder::op::{Op, bits_of};
use crate::layout_cvt::reorders_registers;
use crate::release::Span;
use crate::{Change, Conversion, Ending, Location, Site, SiteKind, to_linear_layout};

static UNREACHABLE_3_1: Location = Location {
    releases: Span::only(Release::V3_1),
    ending: Ending::Assertion,
    function: "SharedEncodingAttr::get for a dot operand, from DecomposeUnsupportedNVIDIAConversions",
    file: "include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.cpp.inc",
    line: Some(347),
    message: "SharedEncodingAttr builder when the MMAEncodingAttr is Hopper has not been implemented yet -- UNREACHABLE executed at TritonGPUAttrDefs.cpp.inc:347!",
};
static UNREACHABLE_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: "SharedEncodingAttr::get for a dot operand, from DecomposeUnsupportedNVIDIAConversions",
    file: "include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.cpp.inc",
    line: Some(362),
    message: "SharedEncodingAttr builder when the MMAEncodingAttr is Hopper has not been implemented yet -- UNREACHABLE executed at TritonGPUAttrDefs.cpp.inc:362!",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "hopper_dot_operand",
    kind: SiteKind::Bug,
    title: "operand A of a Hopper dot converted into registers other than by the accumulator shortcut, rewritten through a shared buffer whose builder has no Hopper case (3.1, 3.2)",
    locations: &[&UNREACHABLE_3_1, &UNREACHABLE_3_2],
    changes: &[Change {
        release: Release::V3_3,
        pr: None,
        what: "a Hopper dot's operands go to NVMMA shared buffers; the dot-operand shared builder is no longer asked for a Hopper parent",
    }],
    workaround: "num_warps of 4 (or 8 with all warps along M) for the dots of an attention kernel, 16-bit P, or Triton 3.3",
};

/// Operand A of a Hopper dot, the encoding `name` resolves to.
fn hopper_operand_a(op: &Op<'_>, name: &str) -> Option<(DotOperand, NvidiaMma)> {
    let Attr::DotOperand(dot) = op.attr(name)? else {
        return None;
    };
    match &*dot.parent {
        Attr::NvidiaMma(parent) if dot.op_idx == 0 && parent.version_major == 3 => {
            let parent = parent.clone();
            Some((dot, parent))
        }
        _ => None,
    }
}

/// Whether `release` keeps a `src` accumulator of `bits`-bit elements in
/// registers as operand A of a dot whose MMA is `parent`, on `shape`.
fn register_shortcut(
    src: &NvidiaMma,
    parent: &NvidiaMma,
    bits: u64,
    shape: &[u64],
    release: Release,
) -> bool {
    let one_warp_along_n = |m: &NvidiaMma| m.warps_per_cta.get(1) == Some(&1);
    if src.version_major != 3 || !one_warp_along_n(src) || !matches!(bits, 8 | 16) {
        return false;
    }
    if release == Release::V3_1 {
        return one_warp_along_n(parent);
    }
    let layout =
        |m: &NvidiaMma| match to_linear_layout(&Attr::NvidiaMma(m.clone()), shape, release, None) {
            Ok(Conversion::Layout(l)) => Some(l),
            _ => None,
        };
    match (layout(parent), layout(src)) {
        (Some(p), Some(s)) => reorders_registers(&p, &s).unwrap_or(false),
        _ => false,
    }
}

/// What the first lowering pass of `release` does with `op`.
fn decompose(op: &Op<'_>, release: Release) -> Result<(), Failure> {
    if !SITE.fails_in(release) {
        return Ok(());
    }
    let location = if release == Release::V3_1 {
        &UNREACHABLE_3_1
    } else {
        &UNREACHABLE_3_2
    };
    let Some((shape, ty, src)) = op.tensor.as_ref() else {
        return Ok(());
    };
    let why = match op.name {
        "convert_layout" => {
            let Some((_, parent)) = op.result.as_ref().and_then(|r| hopper_operand_a(op, r)) else {
                return Ok(());
            };
            match op.attr(src) {
                Some(Attr::Blocked(_)) => "a blocked tensor converted".to_string(),
                Some(Attr::NvidiaMma(mma)) => {
                    if register_shortcut(&mma, &parent, bits_of(ty), shape, release) {
                        return Ok(());
                    }
                    format!(
                        "a v{} accumulator (warps {:?}) converted without the register shortcut",
                        mma.version_major, mma.warps_per_cta
                    )
                }
                _ => return Ok(()),
            }
        }
        "local_load" => {
            // The first tensor on a local_load is its result.
            let leading_offset = op
                .buffer
                .as_ref()
                .and_then(|b| op.attr(&b.2))
                .is_some_and(|a| match a {
                    Attr::SwizzledShared(s) => s.has_leading_offset == Some(true),
                    _ => false,
                });
            if !leading_offset || hopper_operand_a(op, src).is_none() {
                return Ok(());
            }
            "a leading-offset buffer loaded".to_string()
        }
        _ => return Ok(()),
    };
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "{why} into operand A of a Hopper dot: rewritten through a shared buffer whose layout builder has no Hopper case"
        ),
    ))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::Decompose]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> Result<(), Failure> {
        match event {
            super::Event::Decompose(op) => decompose(op, release),
            _ => Ok(()),
        }
    }
}
