//! A rank-reducing TMA descriptor load with `num_ctas > 1`: the descriptor
//! encoding pass extends the load's CTA order to the descriptor's rank with
//! an out-of-range entry (3.4 and 3.5).
//!
//! A descriptor load whose block has leading unit dims, reshaped away
//! (`desc.load([0, 0, 0]).reshape(M, K)` of a `[1, M, K]` block: sglang's
//! fused MoE GEMM), becomes one load of the lower rank: the combine pass's
//! `RankedReduceDescriptorLoads` (`lib/Dialect/Triton/Transforms/
//! Combine.cpp`, 3.3 on) gives the `tt.descriptor_load` the reshape's type.
//! `OptimizeDescriptorEncoding` (`lib/Dialect/TritonNvidiaGPU/Transforms/
//! OptimizeDescriptorEncoding.cpp`) then takes the CTA layout of that
//! lower-rank result (`getUseInfo`) for the descriptor, and
//! `getFallbackSharedEncoding` (or, when the load feeds a shared buffer,
//! `updateEncodingForShape`) raises its rank with `updateCTALayoutForShape`
//! (`TMAUtilities.cpp:33-48` in `v3.4.0` and `v3.5.1`), which fills each
//! added leading dim's `CTAOrder` entry with `rank - i`: `rank` for the
//! first, never a valid dim, so a `[1, 0]` order becomes `[3, 1, 0]` for a
//! rank-3 block (`[4, 3, 1, 0]` for rank 4, `[2, 0]` for a `[1, C]` block
//! loaded as `[C]`). `CTALayoutAttr`'s builder replaces the order by the
//! identity when every `CTAsPerCGA` is 1, which is why one CTA compiles;
//! with 2 or more the verifier prints "order must be a permutation …" and
//! the uniquer's assertion (`StorageUniquerSupport.h:180`) fails, which
//! these releases' pass manager catches ("PassManager::run failed"). 3.6's
//! CGA layout is a linear layout, and the same function prepends size-1
//! dims to it (`v3.6.0:…/TMAUtilities.cpp:36-54`): nothing to get wrong.
//! Any element type, sm90 and sm100, host (`TensorDescriptor`) and
//! in-kernel (`tl.make_tensor_descriptor`) descriptors fail alike; a block
//! whose leading dims are kept, or are not 1, loads at full rank and
//! compiles.
//!
//! The pass pipeline fails before the module `check-ttgir` reads exists:
//! see [`super::Stage::TtgirPasses`].
//!
//! Measured: `family-compiles-*` (`tma_rank`: blocks `[1, 64, 64]`,
//! `[1, 1, 64, 64]` and `[1, 64]` in bf16, fp16, fp8e4nv and fp32 with 1, 2
//! and 4 CTAs on sm90 and sm100, as loads and as a dot's operand A, 3.4.0
//! to 3.9.0).

use crate::release::Span;
use crate::{Change, Ending, Location, Release, Site, SiteKind};

const FUNCTION: &str = "updateCTALayoutForShape (TMAUtilities.cpp), from TritonNvidiaGPUOptimizeDescriptorEncodingPass: CTALayoutAttr::get of the rank-raised CTA order";

// The uniquer's assertion; its text names the attribute's traits, which
// differ between the two releases' builds (3.4.0 lists TritonGPU's
// attribute trait, 3.5.1 none), so the message tells the release.
const STORAGE: &str = "mlir/IR/StorageUniquerSupport.h";
static ASSERT_3_4: Location = Location::assertion(
    Release::V3_4,
    STORAGE,
    180,
    FUNCTION,
    "static ConcreteT mlir::detail::StorageUserBase<mlir::triton::gpu::CTALayoutAttr, mlir::Attribute, mlir::triton::gpu::detail::CTALayoutAttrStorage, mlir::detail::AttributeUniquer, mlir::triton::gpu::TritonGPU_AttrTrait::Trait>::get(",
);
static ASSERT_3_5: Location = Location::assertion(
    Release::V3_5,
    STORAGE,
    180,
    FUNCTION,
    "static ConcreteT mlir::detail::StorageUserBase<mlir::triton::gpu::CTALayoutAttr, mlir::Attribute, mlir::triton::gpu::detail::CTALayoutAttrStorage, mlir::detail::AttributeUniquer>::get(",
);

/// The verifier's diagnostic, printed just before the assertion.
const ORDER: &str = "order must be a permutation of 0..(rank-1), but was [";
const VERIFY: &str = "CTALayoutAttr::verify (verifyLayoutOrder), from updateCTALayoutForShape in TritonNvidiaGPUOptimizeDescriptorEncodingPass";

static ORDER_3_4: Location = Location {
    releases: Span::only(Release::V3_4),
    ending: Ending::Diagnostic,
    function: VERIFY,
    file: "lib/Dialect/TritonGPU/IR/Dialect.cpp",
    line: Some(356),
    message: ORDER,
};
static ORDER_3_5: Location = Location {
    releases: Span::only(Release::V3_5),
    ending: Ending::Diagnostic,
    function: VERIFY,
    file: "lib/Dialect/TritonGPU/IR/Dialect.cpp",
    line: Some(350),
    message: ORDER,
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "descriptor_rank_reduce_cta",
    kind: SiteKind::Bug,
    title: "a TMA descriptor load whose leading unit dims are reshaped away (a [1, M, K] block loaded as [M, K]) with num_ctas > 1, whose CTA order the descriptor encoding pass raises to an invalid permutation",
    locations: &[&ASSERT_3_4, &ASSERT_3_5, &ORDER_3_4, &ORDER_3_5],
    changes: &[Change {
        release: Release::V3_6,
        pr: None,
        what: "the CGA layout is a linear layout; raising its rank prepends size-1 dims",
    }],
    workaround: "num_ctas=1, or a descriptor of the loaded rank (a 2-D block over a 2-D view of the tensor), or Triton 3.6",
};

super::passes_only_model!();
