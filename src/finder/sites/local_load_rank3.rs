//! Triton 3.1's and 3.2's shared → register load of a rank-3 tensor
//! (3.1: `ConvertLayoutOpToLLVM.cpp:84`, 3.2: `MemoryOpToLLVM.cpp:175`):
//! lowering `local_load` asserts the destination is at most rank 2 unless it
//! is a supported dot-operand layout. 3.3 lowers it through linear layouts.

use super::Failure;
use crate::triton::TritonVersion;

/// A rank-`rank` `local_load`, into a dot-operand layout or not.
pub fn local_load(
    rank: usize,
    into_dot_operand: bool,
    release: TritonVersion,
) -> Result<(), Failure> {
    if rank <= 2 || into_dot_operand {
        return Ok(());
    }
    let site = match release {
        TritonVersion::V3_1 => {
            "LocalLoadOpConversion::lowerSharedToDistributed (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/ConvertLayoutOpToLLVM.cpp:84)"
        }
        TritonVersion::V3_2 => {
            "LocalLoadOpConversion (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/MemoryOpToLLVM.cpp:175)"
        }
        _ => return Ok(()),
    };
    Err(Failure::assertion(
        release,
        site,
        "Assertion `... && \"Unexpected rank of ConvertLayout(shared->distributed)\"' failed",
    ))
}
