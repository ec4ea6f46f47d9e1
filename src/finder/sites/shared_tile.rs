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

use super::{Ending, Failure};
use crate::LayoutError;
use crate::triton::attr::{Attr, SwizzledShared};
use crate::triton::{TritonVersion, to_linear_layout};

/// Whether `shared` is a leading-offset or NVMMA shared layout.
pub fn has_leading_offset(shared: &Attr) -> bool {
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
pub fn transfer(
    shared: &Attr,
    shape: &[u64],
    bits: u64,
    store: bool,
    release: TritonVersion,
    source_indices: impl FnOnce() -> Result<(), Failure>,
) -> Result<(), Failure> {
    if release == TritonVersion::V3_1 {
        // Only the store path computes swizzled addresses this way; loads
        // into dot operands, for one, have their own.
        return match shared {
            Attr::SwizzledShared(s) if store => {
                swizzle_fits_3_1(s.vec, s.max_phase, &s.order, shape)?;
                source_indices()?;
                leading_offset_width_3_1(s)
            }
            _ => Ok(()),
        };
    }
    if !has_leading_offset(shared) {
        return Ok(());
    }
    match to_linear_layout(shared, shape, release, Some(bits)) {
        Err(LayoutError::TritonAssertion { site, message, .. }) => Err(Failure::new(
            ending_of(&message),
            release,
            site,
            fatal_error_text(&message),
        )),
        // Anything else is not this site's business (and not a Triton failure).
        _ => Ok(()),
    }
}

/// 3.1's bound on a swizzle pattern of `vec × max_phase` elements along the
/// buffer's fastest dim (`order[0]`).
pub fn swizzle_fits_3_1(
    vec: u64,
    max_phase: u64,
    order: &[usize],
    shape: &[u64],
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
    Err(Failure::assertion(
        TritonVersion::V3_1,
        "getSwizzledSharedPtrs (include/triton/Conversion/TritonGPUToLLVM/Utility.h:1286)",
        format!(
            "Assertion `maxPhase == 1 || outVec * maxPhase <= srcShape[outOrder[0]] && \"Swizzling would generate out of bounds memory accesses\"' failed ({vec} × {max_phase} > {fastest})"
        ),
    ))
}

/// 3.1's store of a leading-offset buffer reads the swizzle width off
/// `(perPhase, maxPhase)`, right after the bound above, and stops with a
/// fatal error on any pair but (4, 2), (2, 4) and (1, 8): an unswizzled
/// (1, 1) buffer among them (measured on the 3.1.0 wheel, sm90).
fn leading_offset_width_3_1(s: &SwizzledShared) -> Result<(), Failure> {
    if s.has_leading_offset != Some(true) || s.swizzle_bytes().is_some() {
        return Ok(());
    }
    Err(Failure::new(
        Ending::FatalError,
        TritonVersion::V3_1,
        "getSwizzledSharedPtrs (include/triton/Conversion/TritonGPUToLLVM/Utility.h:1302)",
        format!(
            "LLVM ERROR: Unsupported shared layout. (perPhase = {}, maxPhase = {} is no swizzle width of a \
             leading-offset layout)",
            s.per_phase, s.max_phase
        ),
    ))
}

/// The conversion stops in `report_fatal_error("Illegal shared layout")`;
/// the TMA box check on the way is an assertion in 3.4 and a fatal error
/// after.
///
/// 3.3's unswizzled NVMMA buffers run out of memory instead: the kernel
/// kills the process, which nothing catches.
fn ending_of(message: &str) -> Ending {
    if message.starts_with("std::bad_alloc") {
        Ending::Crash
    } else if message.starts_with("Illegal shared layout")
        || message.starts_with("getTMABlockShape failed")
    {
        Ending::FatalError
    } else {
        Ending::Assertion
    }
}

/// `report_fatal_error("Illegal shared layout")` prints `LLVM ERROR:
/// Illegal shared layout` after its own explanation; other failures on the
/// way (3.4's TMA box assertion) keep their text.
fn fatal_error_text(message: &str) -> String {
    match message.strip_prefix("Illegal shared layout") {
        Some(detail) => {
            let detail = detail.trim_start_matches(';').trim();
            let detail = detail.trim_start_matches('(').trim_end_matches(')');
            format!("LLVM ERROR: Illegal shared layout ({detail})")
        }
        None => message.to_string(),
    }
}
