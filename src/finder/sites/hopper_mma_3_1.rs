//! Triton 3.1's Hopper MMA → linear layout conversion, which accepted
//! instruction N only in {16, 32, 64, 128, 256} (issue #4264; PR #4283 in 3.2
//! admitted 8). It only fires when something asks for the MMA's linear
//! layout; the site model gets it from the conversion itself.

use super::Failure;
use crate::LayoutError;
use crate::finder::verdict::Trace;
use crate::triton::attr::{Attr, NvidiaMma};
use crate::triton::print::print_attr;
use crate::triton::{Conversion, TritonVersion, to_linear_layout};

/// Builds the accumulator's linear layout as `release` does; the 3.1 and 3.2
/// shape asserts (Triton's, modelled as [`LayoutError::TritonAssertion`])
/// surface as [`Failure`]s.
pub fn mma_layout(
    mma: &NvidiaMma,
    shape: [u64; 2],
    release: TritonVersion,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let attr = Attr::NvidiaMma(mma.clone());
    let text = || print_attr(&attr, release.dialect());
    match to_linear_layout(&attr, &shape, release, None) {
        Ok(Conversion::Layout(l)) => {
            trace.layout(
                || format!("linear layout of {} on {}x{}", text(), shape[0], shape[1]),
                &l,
            );
            Ok(())
        }
        Ok(Conversion::NoLayout(why)) => {
            trace.note(|| format!("{}: no linear layout ({why})", text()));
            Ok(())
        }
        Err(LayoutError::TritonAssertion { site, message, .. }) => {
            Err(Failure::assertion(release, site, message))
        }
        // Anything else is our converter refusing the input (a shape that is
        // not a power of two, say), not a Triton assertion: no finding.
        Err(e) => {
            trace.note(|| format!("{}: not converted here ({e})", text()));
            Ok(())
        }
    }
}
