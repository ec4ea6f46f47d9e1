//! A batched (rank-3) `tl.dot_scaled` on consumer Blackwell (sm120,
//! triton #11733).
//!
//! sm120 lowers mxfp dots natively on MMA v2 from 3.6 (PR #7918), and
//! `AccelerateMatmul` gives their scales the layout
//! `getSM120DotScaledScaleLayout` builds: a rank-2 layout, combined with
//! the operand's CGA by `combineCtaCgaWithShape`
//! (`lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`), which asserts
//! that the layout has as many dims as the tensor. A batched scale tensor
//! has three: `ctaLayout.getNumOutDims() == rank` fails. 3.6's front end
//! still refuses batched scales (`lhs_scale must be a tensor of shape
//! [M, K/32]`); 3.9 builds the scale layout at the operand's rank
//! (PR #11262).
//!
//! The pass pipeline fails before the module `check-ttgir` reads exists:
//! see [`super::Stage::TtgirPasses`].
//!
//! Measured: `family-compiles-*` (mxfp4 × mxfp4, 2 × 128 × 128 × 128, sm120:
//! error on 3.7.1 and 3.8.0, compiled by 3.9.0; the rank-2 dot and sm100
//! compile on all three).

use crate::{Change, Location, Release, Site, SiteKind};

const FILE: &str = "lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp";
const FUNCTION: &str =
    "combineCtaCgaWithShape, from getSM120DotScaledScaleLayout in AccelerateMatmul";
const MESSAGE: &str = "Assertion `ctaLayout.getNumOutDims() == rank' failed.";

static ASSERT_3_7: Location = Location::assertion(Release::V3_7, FILE, 1255, FUNCTION, MESSAGE);
static ASSERT_3_8: Location = Location::assertion(Release::V3_8, FILE, 1451, FUNCTION, MESSAGE);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "scaled_dot_batched_scale",
    kind: SiteKind::Bug,
    title: "a batched (rank-3) tl.dot_scaled on sm120, whose scale layout is built at rank 2 (triton #11733)",
    locations: &[&ASSERT_3_7, &ASSERT_3_8],
    changes: &[Change {
        release: Release::V3_9,
        pr: Some("#11262"),
        what: "the sm120 scale layout is built at the operand's rank",
    }],
    workaround: "loop over the batch with rank-2 dot_scaled calls, or Triton 3.9",
};

super::passes_only_model!();
