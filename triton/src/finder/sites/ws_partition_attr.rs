//! A warp-specialized loop without a dot on Blackwell whose partitioner
//! leaves a layout conversion outside every partition (triton #10901:
//! vLLM's `rms_norm_per_block_quant` on B200).
//!
//! `tl.range(..., warp_specialize=True)` hands the loop to
//! `TritonGPUAutomaticWarpSpecialization`. For a loop of loads,
//! reductions and stores (no MMA), 3.7's partitioning leaves the
//! `convert_layout`s that `TritonGPURemoveLayoutConversions` then places
//! between them without a `ttg.partition` attribute, and the TritonGPU
//! dialect's verifier of partitioned loops refuses them (the pipeline's note
//! names `TritonGPURemoveLayoutConversions`). 3.6 fails the same loops one
//! pass earlier, in `NVWSInsertAref`, which prints no diagnostic of its own,
//! only the pipeline's note naming the passes; it fails so on other
//! warp-specialized loops too (a persistent matmul whose epilogue splits
//! the accumulator, measured), which the note alone cannot tell apart.
//! 3.5.1 and 3.8.0 compile them (3.8.0 and 3.9.0 keep the message in their
//! binary, for loops their partitioner still leaves so).
//!
//! The pass pipeline fails before the module `check-ttgir` reads exists:
//! see [`super::Stage::TtgirPasses`].
//!
//! Measured: `family-compiles-*` (`ws_norm`, bf16 rows of 512 and 1024,
//! 4 and 8 warps, sm100: error on 3.6.0 and 3.7.1, compiled by 3.4.0,
//! 3.5.1, 3.8.0 and 3.9.0, and on sm90 by every release; the persistent
//! matmul with a split epilogue fails on 3.6.0 only).

use crate::release::Span;
use crate::{Change, Ending, Location, Release, Site, SiteKind};

static INSERT_AREF_3_6: Location = Location {
    releases: Span::only(Release::V3_6),
    ending: Ending::Diagnostic,
    function: "NVWSInsertAref (no diagnostic of its own), after TritonGPUAutomaticWarpSpecialization",
    file: "third_party/nvidia/lib/Dialect/NVWS/Transforms/InsertAref.cpp",
    line: None,
    message: "Pipeline failed while executing [`TritonGPUAutomaticWarpSpecialization` on 'builtin.module' operation, `NVWSInsertAref` on 'builtin.module' operation]",
};
static VERIFY_3_7: Location = Location {
    releases: Span::only(Release::V3_7),
    ending: Ending::Diagnostic,
    function: "the TritonGPU dialect's verifier of partitioned loops, after TritonGPURemoveLayoutConversions",
    file: "lib/Dialect/TritonGPU/IR/Dialect.cpp",
    line: None,
    message: "'ttg.convert_layout' op does not have expected attribute ttg.partition which is expected for ops whose parent has partitions",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "ws_partition_attr",
    kind: SiteKind::Bug,
    title: "a warp-specialized loop on sm100 whose partitioning leaves layout conversions outside every partition (a loop without a dot, triton #10901; 3.6 fails these and other loops silently in NVWSInsertAref)",
    locations: &[&INSERT_AREF_3_6, &VERIFY_3_7],
    changes: &[Change {
        release: Release::V3_8,
        pr: None,
        what: "the conversions of such a loop stay in their partition",
    }],
    workaround: "warp_specialize=False on loops without a dot, or Triton 3.8",
};

super::passes_only_model!();
