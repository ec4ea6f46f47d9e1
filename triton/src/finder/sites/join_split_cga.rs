//! `tl.join` / `tl.split` with `num_ctas > 1`, 3.6 and 3.7.
//!
//! `ConvertTritonToTritonGPU` (named by the pipeline's note) stops with
//! the `LinearLayout` constructor's fatal error: a layout whose `block`
//! bases have another length than its output dims ("… But this failed for
//! in dimension 'block'"). A join adds a dim of 2 to its operands' layout;
//! the `block` bases keep the operands' rank. It starts with 3.6, whose
//! CGAs are linear maps (`CGALayout` bases, PR #8770): 3.4.0 and 3.5.1
//! (CGA lists) compile the same kernels, and so do 3.8.0 and 3.9.0.
//!
//! The pass pipeline fails before the module `check-ttgir` reads exists:
//! see [`super::Stage::TtgirPasses`].
//!
//! Measured: `family-compiles-*` (`join_split` 64 × 64 fp16 with 2 and 4
//! CTAs on sm90, sm100 and sm120, 3.4.0 to 3.9.0).

use crate::release::Span;
use crate::{Change, Ending, Location, Release, Site, SiteKind};

static BASES: Location = Location {
    releases: Span::until(Release::V3_6, Release::V3_8),
    ending: Ending::FatalError,
    function: "LinearLayout::LinearLayout, from the join/split layout inference in ConvertTritonToTritonGPU",
    file: "lib/Tools/LinearLayout.cpp",
    line: None,
    message: "LLVM ERROR: Invalid bases passed to LinearLayout.  Expect all bases to have the same size, equal to outDimNames.size() (",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "join_split_cga",
    kind: SiteKind::Bug,
    title: "tl.join or tl.split with num_ctas > 1, whose inferred layout keeps block bases of the operand's rank",
    locations: &[&BASES],
    changes: &[Change {
        release: Release::V3_8,
        pr: None,
        what: "join and split compile with several CTAs again",
    }],
    workaround: "num_ctas=1 for kernels that join or split tensors, or Triton 3.8",
};

super::passes_only_model!();
