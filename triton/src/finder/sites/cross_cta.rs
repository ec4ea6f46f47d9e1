//! Moving a tensor between CTAs in registers or shared memory, which 3.4 to
//! 3.7 cannot lower.
//!
//! The generic `ConvertLayoutOpConversion` (`lib/Conversion/TritonGPUToLLVM/
//! ConvertLayoutOpToLLVM.cpp`) builds the conversion's minimal layout and
//! gives up ("NYI: Transfer between different CTAs") when it has a `block`
//! input, i.e. when some element moves to another CTA; the NVIDIA pattern
//! for distributed shared memory takes only blocked, MMA and slice pairs.
//! The shared-memory transfers (`lowerLocalLdSt`, `MemoryOpToLLVM.cpp`)
//! give up likewise when the register and shared layouts split the tensor
//! differently among CTAs. The op then stays illegal and the conversion to
//! LLVM fails with MLIR's "failed to legalize operation 'ttg.…'", naming
//! the first such op: a `convert_layout` or a `local_load`. 3.4 ends a
//! `local_load` with a fatal error instead ("Failed to emit transfer from
//! shared to register"), so there the model tells a value read from a
//! pipelined buffer (its load staged by the pipeliner: at least two stages
//! and 4 bytes per thread) from one converted in registers.
//!
//! Which values cross CTAs comes from CTA planning
//! ([`crate::finder::cta`]): `PlanCTA` gives a dot and its operands the
//! dot's tiling, and keeps every other op's CGA (`tt.reshape` and `tt.trans`
//! are not in its table), so that `inductor-3d`'s reshaped and transposed
//! loads reach the dot, and its result reaches the store, through
//! conversions between two CGAs. 3.8 lowers such conversions through
//! shared memory (PR #9317). A cheap load (fewer elements than the CTA has
//! threads, `isExpensiveLoadOrStore`) that the pipeliner does not stage is
//! loaded again by `RemoveLayoutConversions` in the layout its register
//! operand asks for, back through `tt.reshape`, so its value starts in the
//! dot's CGA and crosses nothing.
//!
//! Measured: every `inductor-3d` kernel with 2 or 4 CTAs on 3.4.0, 3.5.1,
//! 3.6.0 and 3.7.1 that does not stop earlier (`tests/data/compile/ctas-*`),
//! and 127 drawn around the cheap load (`cheap-lhs-*`).
//!
//! In a TTGIR module ([`op`]) the decision is the lowering's own, on the
//! op's layouts: a `convert_layout` between two layouts that are not both
//! blocked, MMA or slice layouts (the distributed-shared-memory pattern's,
//! `shouldUseDistSmem`) falls to the generic pattern, which gives up when
//! `minimalCvtLayout` keeps the `block` dim; a `local_alloc`,
//! `local_store` or `local_load` gives up (3.5–3.7, `MemoryOpToLLVM.cpp`)
//! when the register layout inverted and composed with the buffer's is not
//! trivial over `block`, and 3.4's `local_load` fails to emit the transfer.
//! Measured with the op-level `cta_convert` and `cta_local` modules.

use super::Failure;
use crate::Release;
use crate::attr::Attr;
use crate::finder::op::{Op, bits_of};
use crate::layout_cvt::minimal_cvt_layout;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};
use crate::{Conversion, to_linear_layout};
use linear_layout::{Dim, LinearLayout};

static CONVERT_3_4: Location = Location {
    releases: Span::only(Release::V3_4),
    ending: Ending::Diagnostic,
    function: "ConvertLayoutOpConversion (NYI: Transfer between different CTAs)",
    file: "lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp",
    line: None,
    message: "error: failed to legalize operation 'ttg.convert_layout' that was explicitly marked illegal",
};
static SHARED_3_4: Location = Location {
    releases: Span::only(Release::V3_4),
    ending: Ending::FatalError,
    function: "lowerLocalLdSt (a local_load across CTAs)",
    file: "lib/Conversion/TritonGPUToLLVM/Utility.cpp",
    line: None,
    message: "LLVM ERROR: Failed to emit transfer from shared to register",
};
static LEGALIZE: Location = Location {
    releases: Span::until(Release::V3_5, Release::V3_8),
    ending: Ending::Diagnostic,
    function: "ConvertTritonGPUToLLVM: the first convert_layout or local_load across CTAs (NYI: Transfer between different CTAs)",
    file: "lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp",
    line: None,
    message: "error: failed to legalize operation 'ttg.",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "cross_cta",
    kind: SiteKind::Bug,
    title: "a layout conversion or shared-memory transfer that moves data between CTAs (num_ctas > 1), which 3.4 to 3.7 do not lower",
    locations: &[&CONVERT_3_4, &SHARED_3_4, &LEGALIZE],
    changes: &[Change {
        release: Release::V3_8,
        pr: Some("#9317"),
        what: "conversions across CTAs go through distributed shared memory",
    }],
    workaround: "num_ctas=1 for kernels that reshape or transpose what they feed a dot, or Triton 3.8",
};

/// A value converted in registers, or read from a shared buffer
/// (`from_shared`), from one CGA to another, both given as `block` bases
/// in element coordinates; `what` names the value.
pub(crate) fn transfer(
    what: &str,
    from: &[[u64; 2]],
    to: &[[u64; 2]],
    from_shared: bool,
    release: Release,
) -> Result<(), Failure> {
    if from == to {
        return Ok(());
    }
    let location = match release {
        Release::V3_4 if from_shared => &SHARED_3_4,
        Release::V3_4 => &CONVERT_3_4,
        r if LEGALIZE.releases.contains(r) => &LEGALIZE,
        _ => return Ok(()),
    };
    let how = if from_shared {
        "read from its pipelined buffer"
    } else {
        "converted in registers"
    };
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!("{what}, {how}, moves between CTAs: block bases {from:?} to {to:?}"),
    ))
}

/// A layout the distributed-shared-memory conversion takes (NVIDIA's
/// `ConvertLayoutOpConversion`: MMA, blocked and slice layouts).
fn distributed_pattern_takes(attr: &Attr) -> bool {
    matches!(
        attr,
        Attr::NvidiaMma(_)
            | Attr::AmdMfma(_)
            | Attr::AmdWmma(_)
            | Attr::Blocked(_)
            | Attr::Slice(_)
    )
}

/// `attr`'s layout on `shape` as `release` builds it, where it has one.
fn layout(attr: &Attr, shape: &[u64], release: Release, bits: Option<u64>) -> Option<LinearLayout> {
    match to_linear_layout(attr, shape, release, bits).ok()? {
        Conversion::Layout(l) => Some(l),
        Conversion::NoLayout(_) => None,
    }
}

/// How `release` lowers a TTGIR op that may move data between CTAs.
pub(crate) fn op(op: &Op<'_>, release: Release) -> Result<(), Failure> {
    if op.module.num_ctas <= 1 || release < Release::V3_4 || release > Release::V3_7 {
        return Ok(());
    }
    let Some((shape, _, enc)) = op.tensor.as_ref() else {
        return Ok(());
    };
    let Some(regs) = op.attr(enc) else {
        return Ok(());
    };
    let (location, what) = match op.name {
        "convert_layout" => {
            let Some(dst) = op.result.as_ref().and_then(|r| op.attr(r)) else {
                return Ok(());
            };
            if distributed_pattern_takes(&regs) && distributed_pattern_takes(&dst) {
                return Ok(());
            }
            let (Some(src_l), Some(dst_l)) = (
                layout(&regs, shape, release, None),
                layout(&dst, shape, release, None),
            ) else {
                return Ok(());
            };
            let Ok(cvt) = minimal_cvt_layout(&src_l, &dst_l) else {
                return Ok(());
            };
            if !cvt.in_dim_names().any(|d| d == Dim::BLOCK) {
                return Ok(());
            }
            let location = if release == Release::V3_4 {
                &CONVERT_3_4
            } else {
                &LEGALIZE
            };
            (location, "a convert_layout")
        }
        "local_alloc" | "local_store" | "local_load" => {
            let Some((buf_shape, buf_ty, buf_enc)) = op.buffer.as_ref() else {
                return Ok(());
            };
            let location = match (op.name, release) {
                ("local_load", Release::V3_4) => &SHARED_3_4,
                (_, Release::V3_4) => return Ok(()),
                _ => &LEGALIZE,
            };
            let (Some(shared), true) = (op.attr(buf_enc), buf_shape == shape) else {
                return Ok(());
            };
            let (Some(reg_l), Some(shared_l)) = (
                layout(&regs, shape, release, None),
                layout(&shared, shape, release, Some(bits_of(buf_ty))),
            ) else {
                return Ok(());
            };
            let Ok(cvt) = reg_l.invert_and_compose(&shared_l) else {
                return Ok(());
            };
            if !cvt.has_in_dim(Dim::BLOCK)
                || !cvt.has_out_dim(Dim::BLOCK)
                || cvt.is_trivial_over(&[Dim::BLOCK]).unwrap_or(true)
            {
                return Ok(());
            }
            (location, "a shared-memory transfer")
        }
        _ => return Ok(()),
    };
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "{what} whose layouts split the tensor among CTAs differently ({} of {}): the lowering has no transfer between CTAs",
            op.name,
            shape
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("x")
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
        &[super::EventKind::CrossCta, super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::CrossCta {
                what,
                from,
                to,
                from_shared,
            } => transfer(what, from, to, *from_shared, release),
            super::Event::Op(o) => op(o, release),
            _ => Ok(()),
        }
    }
}
