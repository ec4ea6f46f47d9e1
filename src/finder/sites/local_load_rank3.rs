//! Triton 3.2's shared → register load of a rank-3 tensor
//! (`MemoryOpToLLVM.cpp:175`): lowering `local_load` asserts the destination
//! is at most rank 2 unless it is a supported dot-operand layout.

use super::Failure;
use crate::triton::TritonVersion;

/// A rank-`rank` `local_load` into a non-dot-operand layout.
pub fn local_load(
    rank: usize,
    into_dot_operand: bool,
    release: TritonVersion,
) -> Result<(), Failure> {
    if release == TritonVersion::V3_2 && rank > 2 && !into_dot_operand {
        return Err(Failure {
            verdict: super::assert_verdict(release),
            site: "LocalLoadOpConversion (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/MemoryOpToLLVM.cpp:175)".into(),
            message: "Assertion `... && \"Unexpected rank of ConvertLayout(shared->distributed)\"' failed".into(),
        });
    }
    Ok(())
}
