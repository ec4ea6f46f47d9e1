//! A batched (rank-3) `tl.dot` with `num_ctas > 1` in CTA planning
//! (triton #11808), 3.4 to 3.8.
//!
//! `PlanCTA` (`lib/Dialect/TritonNvidiaGPU/Transforms/PlanCTA.cpp`) plans a
//! dot's CTA tiling over its `M × N` result; a rank-3 dot breaks it. 3.4
//! indexes past the end of an `ArrayRef<unsigned>` (its CGA lists), 3.5 to
//! 3.8 build a `BlockedEncodingAttr` whose uniquer asserts: the attribute's
//! verifier refuses it inside `get`, which triton #11808 shows to be the
//! CGA's rank against the layout's for the pass that replaced PlanCTA. The
//! pipeline's note names `TritonGPUPlanCTAPass` in every release. 3.9.0,
//! whose `AssignCGALayouts` replaces PlanCTA, compiles the measured kernels
//! (triton #11808 reports other shapes failing there, fixed after 3.9 by
//! PR #11811).
//!
//! The pass pipeline fails before the module `check-ttgir` reads exists:
//! see [`super::Stage::TtgirPasses`].
//!
//! Measured: `family-compiles-*` (`bmm` 2 × 64 × 64 × 32 fp16 with 2 and 4
//! CTAs on sm90, sm100 and sm120, 3.4.0 to 3.9.0).

use crate::release::Span;
use crate::{Change, Ending, Location, Release, Site, SiteKind};

static ARRAY_REF_3_4: Location = Location {
    releases: Span::only(Release::V3_4),
    ending: Ending::Assertion,
    function: "TritonGPUPlanCTAPass, tiling a rank-3 dot with rank-2 CGA lists",
    file: "llvm/ADT/ArrayRef.h",
    line: Some(268),
    message: "const T &llvm::ArrayRef<unsigned int>::operator[](size_t) const [T = unsigned int]: Assertion `Index < Length && \"Invalid index!\"' failed.",
};
static UNIQUER: Location = Location {
    releases: Span::until(Release::V3_5, Release::V3_9),
    ending: Ending::Assertion,
    function: "BlockedEncodingAttr::get, from TritonGPUPlanCTAPass (the verifier: the CGA must have the layout's rank)",
    file: "mlir/IR/StorageUniquerSupport.h",
    line: Some(180),
    message: "static ConcreteT mlir::detail::StorageUserBase<mlir::triton::gpu::BlockedEncodingAttr",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "plan_cta_rank3_dot",
    kind: SiteKind::Bug,
    title: "a batched (rank-3) tl.dot with num_ctas > 1, which CTA planning tiles with a rank-2 CGA (triton #11808)",
    locations: &[&ARRAY_REF_3_4, &UNIQUER],
    changes: &[Change {
        release: Release::V3_9,
        pr: None,
        what: "AssignCGALayouts replaces PlanCTA",
    }],
    workaround: "num_ctas=1 for batched dots, or Triton 3.9",
};

super::passes_only_model!();
