//! Triton 3.2's register conversion of an fp8 P (a first dot's result,
//! cast to fp8) from a wgmma accumulator (MMA v3) to an MMA v2 dot operand,
//! when the second dot falls back to MMA v2 because its K is below the
//! 8-bit wgmma's 32. No pattern lowers that `convert_layout`: translation
//! to LLVM IR fails on the `unrealized_conversion_cast` left behind, and
//! the process then crashes. Measured on 3.2.0 at every `num_warps` (4 to
//! 32); 3.1 fails earlier, on the first dot's shared operands, and 3.3
//! rejects K < 32 in the front end.

use super::{Ending, Failure};
use crate::finder::config::Dtype;
use crate::finder::decisions::Mma;
use crate::triton::TritonVersion;

/// P of `dtype` moving in registers from `producer`'s accumulator to an
/// operand of `consumer`.
pub fn convert_p(
    dtype: Dtype,
    producer: &Mma,
    consumer: &Mma,
    release: TritonVersion,
) -> Result<(), Failure> {
    if release > TritonVersion::V3_2
        || dtype != Dtype::Fp8e4nv
        || producer.version != 3
        || consumer.version != 2
    {
        return Ok(());
    }
    Err(Failure::new(
        Ending::Crash,
        release,
        "translation to LLVM IR of P's convert_layout from the MMA v3 accumulator to an MMA v2 dot operand (fp8)",
        "error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast; then a segmentation fault",
    ))
}
