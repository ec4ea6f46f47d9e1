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
//! shared memory (PR #9317).
//!
//! Measured: every `inductor-3d` kernel with 2 or 4 CTAs on 3.4.0, 3.5.1,
//! 3.6.0 and 3.7.1 that does not stop earlier (`tests/data/compile/ctas-*`).

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

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

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::CrossCta]
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
            _ => Ok(()),
        }
    }
}
