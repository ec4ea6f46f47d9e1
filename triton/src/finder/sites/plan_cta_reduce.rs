//! A reduction whose kept dims cannot hold the CTAs (`num_ctas > 1`, 3.4 to
//! 3.8), and the index of a descriptor gather split among CTAs (3.5, 3.6).
//!
//! `PlanCTA` (`lib/Dialect/TritonNvidiaGPU/Transforms/PlanCTA.cpp`, named by
//! the pipeline's note) gives a `tt.reduce` a CGA that keeps the reduced
//! dim within each CTA; with fewer rows (or columns) kept than CTAs (a
//! `1 × N` tensor reduced along N with 2 CTAs, `2 × N` with 4), the CTAs
//! left over land on a dim of extent 1, as the refused layouts show, and
//! the TritonGPU verifier refuses the reduction's result: "Result has an
//! invalid layout". 3.5 and 3.6 refuse the index tensor of a
//! `tt.descriptor_gather` split among CTAs with the same message, earlier,
//! in `ConvertTritonToTritonGPU`. 3.9.0, whose `AssignCGALayouts` replaces
//! PlanCTA, compiles both.
//!
//! The pass pipeline fails before the module `check-ttgir` reads exists:
//! see [`super::Stage::TtgirPasses`].
//!
//! Measured: `family-compiles-*` (`reduce` of `1 × 256`, `1 × 1024`,
//! `2 × 256`, `256 × 1`, `256 × 2` along either dim with 2 and 4 CTAs on
//! sm90 and sm100, 3.4.0 to 3.9.0; `4 × 256`, `4 × 64` and `64 × 4`
//! compile).

use crate::release::Span;
use crate::{Change, Ending, Location, Release, Site, SiteKind};

static VERIFY: Location = Location {
    releases: Span::until(Release::V3_4, Release::V3_9),
    ending: Ending::Diagnostic,
    function: "the TritonGPU verifier of a reduction's result layout, after TritonGPUPlanCTAPass (3.5 and 3.6: of a descriptor gather's index, in ConvertTritonToTritonGPU)",
    file: "lib/Dialect/TritonGPU/IR/Dialect.cpp",
    line: None,
    message: "Result has an invalid layout: ",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "plan_cta_reduce",
    kind: SiteKind::Bug,
    title: "a reduction (or a descriptor gather's index) whose kept dims are too small for the CTAs (num_ctas > 1), which CTA planning leaves split along a dim of extent 1",
    locations: &[&VERIFY],
    changes: &[Change {
        release: Release::V3_9,
        pr: None,
        what: "AssignCGALayouts replaces PlanCTA and broadcasts the CTAs a tensor cannot hold",
    }],
    workaround: "num_ctas=1 for kernels that reduce rows fewer than the CTAs, or Triton 3.9",
};

super::passes_only_model!();
