//! A layout conversion between two CTAs' parts of a tensor through
//! distributed shared memory, whose `nvvm.mapa` the release's MLIR refuses
//! (`num_ctas > 1`, 3.5 to 3.7).
//!
//! A `convert_layout` that moves elements between CTAs (the two layouts'
//! `block` bases differ) is not lowered by the generic conversion
//! ("NYI: Transfer between different CTAs", see [`super::cross_cta`]); the
//! NVIDIA pattern takes it when both layouts are blocked, MMA or slice
//! layouts and their CGAs differ (`shouldUseDistSmem`), and exchanges the
//! values through distributed shared memory, mapping each address into the
//! peer CTA with `nvvm.mapa` (`lowerDistToDistWithDistSmem`,
//! `third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/ConvertLayoutOpToLLVM.cpp`).
//! From 3.5 the NVVM dialect of the bundled MLIR requires `mapa`'s result to
//! be a generic (0) or cluster (7) pointer, and the pattern still builds a
//! shared-memory (3) one: the op's verifier fails. 3.4 (3.4.0 compiles the
//! same kernels) and 3.8 (conversions across CTAs go through shared memory,
//! PR #9317) do not fail. A `tl.trans` whose result is stored is the
//! commonest way in: the transpose swaps the CGA's dims, and the store
//! converts back.
//!
//! The refusal comes from the verifier the pass manager runs once the
//! lowering pass has converted the whole module
//! ([`super::Stage::LoweredModuleVerifier`]): a failure of the lowering
//! itself anywhere in the module, even at an op after this one, ends the
//! compile first. sglang's fp8 MoE GEMM (`fused_moe_kernel`, `swap_ab`)
//! with 2 CTAs and 4 warps has both: its token ids take this path near the
//! top, and the transposed accumulator's conversion to the store's layout
//! (`#linear` to `#blocked`, which this pattern does not take) fails to
//! legalize at the end; 3.6.0 and 3.7.1 report the latter.
//!
//! Measured: `family-compiles-*` (`trans_store` 64 × 64 fp16 with 2 and 4
//! CTAs on sm90, sm100 and sm120: error on 3.5.1, 3.6.0 and 3.7.1, compiled
//! by 3.4.0, 3.8.0 and 3.9.0), the one-op `convert_layout` modules of
//! `tests/oracle/compile/families.py`, and the MoE GEMM's modules
//! (`tests/data/ttgir/`, `check_ttgir_moe_*`).

use super::Failure;
use crate::attr::Attr;
use crate::finder::op::Op;
use crate::finder::verdict::Trace;
use crate::release::Span;
use crate::{Change, Ending, Location, Release, Site, SiteKind};
use linear_layout::{Dim, LinearLayout};

static MAPA: Location = Location {
    releases: Span::until(Release::V3_5, Release::V3_8),
    ending: Ending::Diagnostic,
    function: "lowerDistToDistWithDistSmem (ConvertLayoutOpConversion): nvvm.mapa with a shared-memory result, refused by the NVVM dialect's verifier",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/ConvertLayoutOpToLLVM.cpp",
    line: None,
    message: "'nvvm.mapa' op result #0 must be LLVM pointer in address space 0 or LLVM pointer in address space 7, but got '!llvm.ptr<3>'",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "dsmem_mapa",
    kind: SiteKind::Bug,
    title: "a layout conversion that moves values between CTAs through distributed shared memory (num_ctas > 1; e.g. tl.trans then a store), whose nvvm.mapa the release's MLIR refuses",
    locations: &[&MAPA],
    changes: &[Change {
        release: Release::V3_8,
        pr: Some("#9317"),
        what: "conversions across CTAs go through shared memory without nvvm.mapa",
    }],
    workaround: "num_ctas=1 for kernels that transpose what they store, or Triton 3.4 or 3.8",
};

/// Whether the NVIDIA distributed-shared-memory pattern takes `attr`.
fn dsmem_kind(attr: &Attr) -> bool {
    match attr {
        Attr::Blocked(_) | Attr::Slice(_) => true,
        Attr::NvidiaMma(m) => m.version_major >= 2,
        _ => false,
    }
}

/// The `block` bases of `l`, in tensor coordinates.
fn block_bases(l: &LinearLayout) -> Vec<Vec<u64>> {
    l.bases()
        .into_iter()
        .filter(|(d, _)| *d == Dim::BLOCK)
        .flat_map(|(_, bases)| bases)
        .collect()
}

/// The lowering of `op`, a `convert_layout`, in `release`.
fn check_op(op: &Op<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure> {
    if !MAPA.releases.contains(release) {
        return Ok(());
    }
    let (Some((shape, _, src)), Some(dst)) = (op.tensor.as_ref(), op.result.as_ref()) else {
        return Ok(());
    };
    let (Some(src_attr), Some(dst_attr)) = (op.attr(src), op.attr(dst)) else {
        return Ok(());
    };
    if !dsmem_kind(&src_attr) || !dsmem_kind(&dst_attr) {
        return Ok(());
    }
    let what = || "the conversion's layouts".to_string();
    let Some(from) = super::converted(&src_attr, shape, release, None, trace, what)? else {
        return Ok(());
    };
    let Some(to) = super::converted(&dst_attr, shape, release, None, trace, what)? else {
        return Ok(());
    };
    let (from, to) = (block_bases(&from), block_bases(&to));
    if from == to {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &MAPA,
        release,
        format!(
            "values move between CTAs (block bases {from:?} to {to:?}) through distributed shared memory"
        ),
    ))
}

/// The model: each `convert_layout` of a module.
pub(crate) const MODEL: super::OpModel = super::OpModel {
    site: &SITE,
    op: "convert_layout",
    stage: super::Stage::LoweredModuleVerifier,
    check: check_op,
};
