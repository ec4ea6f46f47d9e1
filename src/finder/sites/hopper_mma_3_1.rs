//! Triton 3.1's Hopper MMA → linear layout conversion, which accepted
//! instruction N only in {16, 32, 64, 128, 256} (issue #4264; PR #4283 in 3.2
//! admitted 8). It only fires when something asks for the MMA's linear
//! layout; the site model gets it from the conversion itself.

use super::{Ending, Failure};
use crate::LayoutError;
use crate::finder::decisions::Mma;
use crate::finder::verdict::Trace;
use crate::triton::{Conversion, TritonVersion, parse_attr, to_linear_layout};

/// Builds the accumulator's linear layout as `release` does; the 3.1 and 3.2
/// shape asserts surface as [`Failure`]s.
pub fn mma_layout(
    mma: &Mma,
    shape: [u64; 2],
    release: TritonVersion,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let text = mma.attr_text(release);
    let attr = parse_attr(&text, &Default::default()).map_err(|e| Failure {
        ending: Ending::Diagnostic,
        release,
        site: "attribute".into(),
        message: e.to_string(),
    })?;
    match to_linear_layout(&attr, &shape, release, None) {
        Ok(Conversion::Layout(l)) => {
            trace.layout(
                || format!("linear layout of {text} on {}x{}", shape[0], shape[1]),
                &l,
            );
            Ok(())
        }
        Ok(Conversion::NoLayout(why)) => {
            trace.note(|| format!("{text}: no linear layout ({why})"));
            Ok(())
        }
        Err(LayoutError::TritonAssertion { site, message, .. }) => Err(Failure {
            ending: Ending::Assertion,
            release,
            site,
            message,
        }),
        Err(e) => Err(Failure {
            ending: Ending::Assertion,
            release,
            site: "toLinearLayout".into(),
            message: e.to_string(),
        }),
    }
}
