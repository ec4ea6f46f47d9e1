//! Promoting a dot's operand A to tensor memory when its value is split
//! among CTAs (sm100, `num_ctas > 1`, 3.4 to 3.7).
//!
//! `PromoteLHSToTMem` (`lib/Dialect/TritonNvidiaGPU/Transforms/
//! PromoteLHSToTMem.cpp`) moves a tcgen05 dot's operand A that is stored to
//! shared memory from registers into tensor memory, with the accumulator's
//! `blockM`, `blockN` = A's K, and the CTA split (`CTASplitNum`) of A's
//! register layout. Which element types it takes changes ([`promotes`]):
//! 3.4's pattern has no element-type condition; 3.5 to 3.7 return
//! `failure()` for any width but 16 and 32 bits ("We don't currently
//! support fp8", PR #7748), leaving an 8-bit A in shared memory (read there
//! by the loader, site `mma_operand_cga`); 3.8 takes 8 bits as well.
//! `MemDescType::verify` (`lib/Dialect/TritonGPU/IR/Types.cpp`) then
//! requires the shape to hold `blockM · CTASplitM` rows and `blockN ·
//! CTASplitN` columns; it fails ("the allocation shape must be at least
//! …") inside `MemDescType::get`, whose uniquer asserts. The accumulator's
//! `blockM` is the CTA's rows (64 or 128), so an A split along M more ways
//! than the dot's tiling fails. 3.8 bounds `blockN` by the shape and takes
//! the split from the encoding's CGA. 3.4's type verifier has no such
//! check; the pass instead asks whether A's register layout suits tensor
//! memory (`isDistributedLayoutTMemCompatible`), building the 32x32b layout
//! of `getTmemLoadStoreLayout32x32b` (`v3.4.0:lib/Dialect/TritonNvidiaGPU/
//! IR/Dialect.cpp:112-130`), whose `blockM = 64` branch counts A's blocks
//! per CTA as `(rows per CTA / blockM) · (columns per CTA / K)`: the same
//! condition makes that count zero, and the branch then gives warps 0
//! along M and divides by them. The pass fails without a diagnostic of its
//! own (only the pass manager's note naming the pass). With
//! `blockM = 128` the branch never divides, and 3.4 compiles (128 × 128 ×
//! 16 bf16 with 2 CTAs, 128 × 256 × 32 fp16 with 4).
//!
//! Measured: `inductor-3d` on sm100 with 2 and 4 CTAs on 3.4.0 to 3.7.1
//! (`tests/data/compile/ctas-*`), and in 8-bit types (fp8e4nv, fp8e5,
//! int8: `tests/data/compile/tmem-lhs-*`), which 3.4.0 promotes and fails
//! on as on 16-bit ones and 3.5.1 to 3.7.1 leave in shared memory.

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

static PASS_3_4: Location = Location {
    releases: Span::only(Release::V3_4),
    ending: Ending::Diagnostic,
    function: "TritonNvidiaGPUPromoteLHSToTMemPass (no diagnostic of its own)",
    file: "lib/Dialect/TritonNvidiaGPU/Transforms/PromoteLHSToTMem.cpp",
    line: None,
    // the pass manager's note, which names the pass: its "Failures have
    // been detected" line is the same for any pass that fails
    message: "Pipeline failed while executing [`TritonNvidiaGPUPromoteLHSToTMemPass` on 'builtin.module' operation]",
};
static VERIFY: Location = Location {
    releases: Span::until(Release::V3_5, Release::V3_8),
    ending: Ending::Assertion,
    function: "MemDescType::get, from PromoteLHSToTMem (MemDescType::verify: the allocation shape must be at least blockM · CTASplitM × blockN · CTASplitN)",
    file: "mlir/IR/StorageUniquerSupport.h",
    line: Some(180),
    message: "static ConcreteT mlir::detail::StorageUserBase<mlir::triton::gpu::MemDescType",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "tmem_lhs_cta",
    kind: SiteKind::Bug,
    title: "a tcgen05 operand A promoted to tensor memory with a CTA split its tile cannot hold (sm100, num_ctas > 1)",
    locations: &[&PASS_3_4, &VERIFY],
    changes: &[Change {
        release: Release::V3_8,
        pr: None,
        what: "the tensor-memory type bounds blockN by the shape and takes the CTA split from its CGA",
    }],
    workaround: "num_ctas=1, or a dot tiled over M by every CTA (M of at least 128 per CTA)",
};

/// Whether `release`'s `PromoteLHSToTMem` moves an operand A of `bits`-bit
/// elements to tensor memory: any width in 3.4 (`v3.4.0`, no element-type
/// check), 16 and 32 bits in 3.5 to 3.7 (`v3.5.1`
/// `PromoteLHSToTMem.cpp:62`: `elemBitWidth != 16 && elemBitWidth != 32`
/// fails the match), 8, 16 and 32 bits from 3.8 (`is_contained({8, 16,
/// 32}, elemBitWidth)`). Before 3.4 the pass does not run on these
/// kernels' CTAs and the question does not arise.
pub(crate) fn promotes(bits: u64, release: Release) -> bool {
    match release {
        r if r <= Release::V3_4 => true,
        r if r < Release::V3_8 => matches!(bits, 16 | 32),
        _ => matches!(bits, 8 | 16 | 32),
    }
}

/// A `rows × k` operand A whose register layout splits it `split` ways
/// (M, K), promoted for an accumulator of `block_m` rows per CTA.
pub(crate) fn promote(
    rows: u64,
    k: u64,
    split: [u64; 2],
    block_m: u64,
    release: Release,
) -> Result<(), Failure> {
    let location = match release {
        // Only the 64-row branch of 3.4's layout divides by the blocks.
        Release::V3_4 if block_m != 64 => return Ok(()),
        Release::V3_4 => &PASS_3_4,
        r if VERIFY.releases.contains(r) => &VERIFY,
        _ => return Ok(()),
    };
    let need = [block_m * split[0], k * split[1]];
    if rows >= need[0] && k >= need[1] {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "the allocation shape must be at least {}x{}. Got {rows}, {k}",
            need[0], need[1]
        ),
    ))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::TmemLhs]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::TmemLhs {
                rows,
                k,
                split,
                block_m,
            } => promote(*rows, *k, *split, *block_m, release),
            _ => Ok(()),
        }
    }
}
