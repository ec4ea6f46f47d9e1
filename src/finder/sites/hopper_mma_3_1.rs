//! Triton 3.1's Hopper MMA → linear layout conversion, which accepted
//! instruction N only in {16, 32, 64, 128, 256} (issue #4264; PR #4283 in 3.2
//! admitted 8). It only fires when something asks for the MMA's linear
//! layout; the site model gets it from the conversion itself.

use super::Failure;
use crate::finder::verdict::Trace;
use crate::triton::TritonVersion;
use crate::triton::attr::{Attr, NvidiaMma};
use crate::triton::print::print_attr;

/// Builds the accumulator's linear layout as `release` does; the 3.1 and 3.2
/// shape asserts (Triton's, modelled as [`crate::LayoutError::TritonAssertion`])
/// surface as [`Failure`]s.
pub fn mma_layout(
    mma: &NvidiaMma,
    shape: [u64; 2],
    release: TritonVersion,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let attr = Attr::NvidiaMma(mma.clone());
    let text = || print_attr(&attr, release.dialect());
    if let Some(l) = super::converted(&attr, &shape, release, None, trace, text)? {
        trace.layout(
            || format!("linear layout of {} on {}x{}", text(), shape[0], shape[1]),
            &l,
        );
    }
    Ok(())
}
