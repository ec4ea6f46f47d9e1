//! A TMA descriptor gather (`desc.gather`) with `num_ctas > 1` in CTA
//! planning, 3.4, 3.7 and 3.8.
//!
//! `PlanCTA` (`lib/Dialect/TritonNvidiaGPU/Transforms/PlanCTA.cpp`) indexes
//! past the end of an `llvm::SmallVector<long>` (a shape) when it meets a
//! `tt.descriptor_gather` in a kernel split among CTAs; the pipeline's note
//! names `TritonGPUPlanCTAPass`. 3.5 and 3.6 refuse the gather's split index
//! earlier, in `ConvertTritonToTritonGPU`, with the verifier's "Result has
//! an invalid layout" ([`super::plan_cta_reduce`]); 3.9.0, whose
//! `AssignCGALayouts` replaces PlanCTA, compiles it.
//!
//! The pass pipeline fails before the module `check-ttgir` reads exists:
//! see [`super::Stage::TtgirPasses`].
//!
//! Measured: `family-compiles-*` (`tma` gathers of 64 × 64, 256 × 64 and
//! 512 × 32 fp16 with 2 CTAs on sm90, sm100 and sm120, 3.4.0 to 3.9.0).

use crate::{Change, Location, Release, Site, SiteKind};

const FILE: &str = "llvm/ADT/SmallVector.h";
const FUNCTION: &str = "TritonGPUPlanCTAPass, on a tt.descriptor_gather";
const MESSAGE: &str = "reference llvm::SmallVectorTemplateCommon<long>::operator[](size_type) [T = long]: Assertion `idx < size()' failed.";

static ASSERT_3_4: Location = Location::assertion(Release::V3_4, FILE, 292, FUNCTION, MESSAGE);
static ASSERT_3_7: Location = Location::assertion(Release::V3_7, FILE, 297, FUNCTION, MESSAGE);
static ASSERT_3_8: Location = Location::assertion(Release::V3_8, FILE, 300, FUNCTION, MESSAGE);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "plan_cta_descriptor_gather",
    kind: SiteKind::Bug,
    title: "a TMA descriptor gather (desc.gather) with num_ctas > 1, which CTA planning reads with the wrong rank",
    locations: &[&ASSERT_3_4, &ASSERT_3_7, &ASSERT_3_8],
    changes: &[Change {
        release: Release::V3_9,
        pr: None,
        what: "AssignCGALayouts replaces PlanCTA",
    }],
    workaround: "num_ctas=1 for kernels with descriptor gathers, or Triton 3.9",
};

super::passes_only_model!();
