//! A warp-specialized loop on Hopper over TMA tiles whose consumer
//! partitions split the tile the descriptor still moves whole.
//!
//! On sm90, `tl.range(..., warp_specialize=True)` runs the Hopper warp
//! specialization (`third_party/nvidia/hopper/`), which partitions the
//! loop's data among its consumer warp groups. With one warp group (4
//! warps) and a 128-row tile, it hands each consumer a 64-row half, and
//! the copies it rewrites keep the host descriptor's whole block: 3.7 to
//! 3.9 refuse the `ttng.async_tma_copy_global_to_local` ("descriptor
//! block and tensor must have the same number of elements"), 3.4 to 3.6
//! the epilogue's `tt.descriptor_store` ("tensor descriptor block and
//! tensor types must match"). The same kernel compiles with 8 warps, with a
//! 64-row tile, or with descriptors made in the kernel
//! (`tl.make_tensor_descriptor`).
//!
//! The pass pipeline fails before the module `check-ttgir` reads exists:
//! see [`super::Stage::TtgirPasses`].
//!
//! Measured: `family-compiles-*` (`ws_matmul` with host descriptors, fp16
//! and int8, 128-row tiles, 4 warps, sm90, on 3.4.0 to 3.9.0).

use crate::release::Span;
use crate::{Ending, Location, Release, Site, SiteKind};

static STORE_3_4: Location = Location {
    releases: Span::until(Release::V3_4, Release::V3_7),
    ending: Ending::Diagnostic,
    function: "the verifier of tt.descriptor_store, after the Hopper warp specialization",
    file: "lib/Dialect/Triton/IR/Ops.cpp",
    line: None,
    message: "'tt.descriptor_store' op tensor descriptor block and tensor types must match",
};
static COPY_3_7: Location = Location {
    releases: Span::since(Release::V3_7),
    ending: Ending::Diagnostic,
    function: "the descriptor block check of ttng.async_tma_copy_global_to_local's verifier, after the Hopper warp specialization",
    file: "lib/Dialect/Triton/IR/Ops.cpp",
    line: None,
    message: "'ttng.async_tma_copy_global_to_local' op descriptor block and tensor must have the same number of elements, but got descriptor block with ",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "ws_tma_block",
    kind: SiteKind::Bug,
    title: "a warp-specialized loop on sm90 over host TMA descriptors whose tile the consumer partitions split (one warp group, 128-row tiles)",
    locations: &[&STORE_3_4, &COPY_3_7],
    changes: &[],
    workaround: "8 warps, 64-row tiles, descriptors made in the kernel (`tl.make_tensor_descriptor`), or warp_specialize=False on sm90",
};

super::passes_only_model!();
