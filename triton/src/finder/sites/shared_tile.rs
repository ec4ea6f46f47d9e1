//! Register ↔ shared transfers through a leading-offset (wgmma / NVMMA)
//! buffer whose swizzle tile, 8 rows × the swizzle's bytes, is larger than
//! the tensor (triton #4727).
//!
//! Before PR #4731 the transfer's `reshapeIns` asserted on the size
//! mismatch; from 3.2 the buffer's conversion to a linear layout stops first,
//! with `report_fatal_error("Illegal shared layout")`, which ends a compile
//! as a failed assertion does ([`Failure::verdict`]). 3.4's NVMMA builder
//! keeps the same check, behind an assertion on the TMA box; the newest
//! release's box check is a fatal error too, but its type verifier
//! ([`super::nvmma_memdesc`]) refuses such a buffer first.
//!
//! 3.1 has no linear layouts for shared memory; its swizzled-address helper
//! (`getSwizzledSharedPtrs`) asserts the same idea for every swizzled
//! buffer: one swizzle pattern, `vec × maxPhase` elements, must fit in the
//! buffer's fastest dim ("Swizzling would generate out of bounds memory
//! accesses").

use super::Failure;
use crate::attr::{Attr, SwizzledShared};
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};
use crate::{ConvertError, Release, to_linear_layout};

const UTILITY_H: &str = "include/triton/Conversion/TritonGPUToLLVM/Utility.h";

/// 3.1's bound on a swizzle pattern.
static SWIZZLE_BOUND_3_1: Location = Location {
    releases: Span::only(Release::V3_1),
    ending: Ending::Assertion,
    function: "getSwizzledSharedPtrs",
    file: UTILITY_H,
    line: Some(1286),
    message: "Assertion `maxPhase == 1 || outVec * maxPhase <= srcShape[outOrder[0]] && \"Swizzling would generate out of bounds memory accesses\"' failed.",
};
/// 3.1's leading-offset store on phases that make no swizzle width.
static LEADING_WIDTH_3_1: Location = Location {
    releases: Span::only(Release::V3_1),
    ending: Ending::FatalError,
    function: "getSwizzledSharedPtrs",
    file: UTILITY_H,
    line: Some(1302),
    message: "LLVM ERROR: Unsupported shared layout.",
};

/// The site: 3.1's own; later releases fail in the buffer's conversion
/// (the `nvmma_shared` conversion site).
pub(crate) static SITE: Site = Site {
    id: "shared_tile",
    kind: SiteKind::Bug,
    title: "a register to shared transfer through a swizzled buffer whose swizzle pattern is larger than the tensor (triton #4727)",
    locations: &[&SWIZZLE_BOUND_3_1, &LEADING_WIDTH_3_1],
    changes: &[Change {
        release: Release::V3_2,
        pr: Some("#4731"),
        what: "shared-memory transfers go through linear layouts, whose NVMMA builder refuses a buffer smaller than its tile with a fatal error",
    }],
    workaround: "a tensor at least one swizzle pattern (vec x maxPhase elements) along its contiguous dim, or a narrower swizzle",
};

/// Whether `shared` is a leading-offset or NVMMA shared layout.
pub(crate) fn has_leading_offset(shared: &Attr) -> bool {
    match shared {
        Attr::SwizzledShared(s) => s.has_leading_offset == Some(true),
        Attr::NvmmaShared(_) => true,
        _ => false,
    }
}

/// Moving a `shape` tensor of `bits`-bit elements into `shared` (`store`)
/// or out of it. `source_indices` is what computing the register tensor's
/// indices fails on, if anything: 3.1's store asks for them between its two
/// checks of the buffer (`emitIndices`, which builds a Hopper accumulator's
/// linear layout; [`super::hopper_mma_3_1`]).
pub(crate) fn transfer(
    shared: &Attr,
    shape: &[u64],
    bits: u64,
    store: bool,
    release: Release,
    source_indices: impl FnOnce() -> Result<(), Failure>,
) -> Result<(), Failure> {
    if !release.lowers_with_linear_layouts() {
        // Only the store path computes swizzled addresses this way; loads
        // into dot operands, for one, have their own.
        return match shared {
            Attr::SwizzledShared(s) if store => {
                swizzle_fits_3_1(s.vec, s.max_phase, &s.order, shape, release)?;
                source_indices()?;
                leading_offset_width_3_1(s, release)
            }
            _ => Ok(()),
        };
    }
    if !has_leading_offset(shared) {
        return Ok(());
    }
    match to_linear_layout(shared, shape, release, Some(bits)) {
        Err(ConvertError::Triton(failure)) => Err(*failure),
        // Anything else is not this site's business (and not a Triton failure).
        _ => Ok(()),
    }
}

/// 3.1's bound on a swizzle pattern of `vec × max_phase` elements along the
/// buffer's fastest dim (`order[0]`).
pub(crate) fn swizzle_fits_3_1(
    vec: u64,
    max_phase: u64,
    order: &[usize],
    shape: &[u64],
    release: Release,
) -> Result<(), Failure> {
    let fastest = order
        .first()
        .and_then(|&d| shape.get(d))
        .copied()
        .unwrap_or(1);
    // An overflowing product cannot fit either.
    if max_phase == 1 || vec.checked_mul(max_phase).is_some_and(|p| p <= fastest) {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &SWIZZLE_BOUND_3_1,
        release,
        format!("{vec} × {max_phase} elements > {fastest} along the fastest dim"),
    ))
}

/// 3.1's store of a leading-offset buffer reads the swizzle width off
/// `(perPhase, maxPhase)`, right after the bound above, and stops with a
/// fatal error on any pair but (4, 2), (2, 4) and (1, 8): an unswizzled
/// (1, 1) buffer among them (measured on the 3.1.0 wheel, sm90).
fn leading_offset_width_3_1(s: &SwizzledShared, release: Release) -> Result<(), Failure> {
    if s.has_leading_offset != Some(true) || s.swizzle_bytes().is_some() {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &LEADING_WIDTH_3_1,
        release,
        format!(
            "perPhase = {}, maxPhase = {} is no swizzle width of a leading-offset layout",
            s.per_phase, s.max_phase
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
        &[super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        trace: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        // Every transfer between registers and a buffer (an op with a tensor
        // operand) first builds the buffer's addressing.
        let super::Event::Op(op) = event else {
            return Ok(());
        };
        let (Some((tensor_shape, _, tensor_enc)), Some((shape, ty, enc))) =
            (op.tensor.as_ref(), op.buffer.as_ref())
        else {
            return Ok(());
        };
        let Some(shared) = op.attr(enc) else {
            return Ok(());
        };
        let store = op.name != "local_load";
        // 3.1 asks for a Hopper accumulator's linear layout to address it
        // (notes/finder-lowering.md §3).
        let source_indices = || match (
            op.attr(tensor_enc).and_then(crate::finder::op::hopper_mma),
            &tensor_shape[..],
        ) {
            (Some(mma), &[rows, cols]) => {
                super::mma_layout(&mma.attr(), [rows, cols], release, trace)
            }
            _ => Ok(()),
        };
        transfer(
            &shared,
            shape,
            crate::finder::op::bits_of(ty),
            store,
            release,
            source_indices,
        )
    }
}
