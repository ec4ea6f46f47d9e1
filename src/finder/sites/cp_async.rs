//! `async_copy_global_to_local` (`cp.async`): the vector width is the
//! smaller of the pointer contiguity and the number of consecutive registers
//! of a thread that land on consecutive shared offsets (computed with
//! linear layouts: `largestVectorisation` of register → offset); fewer than
//! 4 bytes is a diagnosed error.

use super::Failure;
use crate::dim::Dim;
use crate::finder::verdict::{Trace, Verdict};
use crate::layout::LinearLayout;
use crate::utils::largest_vectorisation;

/// Checks a copy from a register layout `regs` into a shared layout `shared`
/// (both onto the same tensor dims) of `bits`-bit elements, with pointer
/// contiguity `contiguity` elements.
pub fn copy(
    regs: &LinearLayout,
    shared: &LinearLayout,
    bits: u64,
    contiguity: u64,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let fail = |message: String| {
        Failure {
        verdict: Verdict::Error,
        site: "AsyncCopyGlobalToLocalOpConversion (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/LoadStoreOpToLLVM.cpp)".into(),
        message,
    }
    };
    let cvt = regs
        .invert_and_compose(shared)
        .and_then(|c| c.sublayout(&[Dim::REGISTER], &[Dim::OFFSET]))
        .map_err(|e| fail(format!("register → shared conversion: {e}")))?;
    let (vec, _) =
        largest_vectorisation(&cvt, bits as u32, None).map_err(|e| fail(e.to_string()))?;
    let vec = (vec as u64).min(contiguity.max(1));
    trace.layout(
        || format!("register → offset for cp.async: {vec} element(s) per copy"),
        &cvt,
    );
    if vec * bits < 32 {
        return Err(fail(format!(
            "cp.async does not support transfers smaller than 4 bytes (vector of {vec} × {bits}-bit = {} bytes)",
            vec * bits / 8
        )));
    }
    Ok(())
}
