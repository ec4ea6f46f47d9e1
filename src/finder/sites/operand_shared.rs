//! The NVMMA shared encoding of a wgmma (MMA v3) operand
//! (`AccelerateMatmul.cpp` / `Utility.cpp`): the swizzle is the largest of
//! 128, 64 and 32 bytes that the operand's contiguous row fills. Up to 3.2 a
//! row of fewer than 32 bytes hits `llvm_unreachable("unsupported shared
//! memory layout for MMAv3")` (`TritonGPUAttrDefs.cpp.inc:385`); later
//! releases fall back to no swizzle.

use super::Failure;
use crate::finder::decisions::nvmma_swizzle;
use crate::finder::verdict::Trace;
use crate::triton::TritonVersion;

/// An operand of `rows × cols` elements whose contiguous dim has
/// `contiguous` elements of `bits` bits.
pub fn operand(
    name: &str,
    contiguous: u64,
    bits: u64,
    release: TritonVersion,
    trace: &mut Trace,
) -> Result<u64, Failure> {
    match nvmma_swizzle(contiguous, bits) {
        Some(s) => {
            trace.note(|| format!("{name} in NVMMA shared memory: {contiguous} contiguous elements → {s}-byte swizzle"));
            Ok(s)
        }
        None if release <= TritonVersion::V3_2 => Err(Failure::assertion(
            release,
            "getSharedEncoding for an MMAv3 operand (include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.cpp.inc:385)",
            format!(
                "unsupported shared memory layout for MMAv3: UNREACHABLE executed ({name}: {contiguous} contiguous elements of {bits} bits = {} bytes, less than a 32-byte swizzle)",
                contiguous * bits / 8
            ),
        )),
        None => {
            trace.note(|| format!("{name} in NVMMA shared memory without swizzle ({contiguous} contiguous elements)"));
            Ok(0)
        }
    }
}
