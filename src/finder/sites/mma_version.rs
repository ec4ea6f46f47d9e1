//! Triton 3.1's and 3.2's choice of MMA version (`getMMAVersionSafe` in
//! `AccelerateMatmul.cpp`): compute capability below 75 gives v1, below 90
//! v2, below 100 v3 or v2, and anything newer fails an `assert(false)`
//! ("computeCapability not supported"). Every dot on a Blackwell target
//! (cc 100 and up) aborts there, before any layout is chosen. 3.3 adds
//! v5 (tcgen05) with v2 as fallback below cc 110, and v2 alone below 130.
//!
//! Measured for sm100 and sm120: every recorded configuration aborts here
//! on 3.1.0 (`AccelerateMatmul.cpp:30`) and on 3.2.0 (`:36`), all four
//! patterns (`tests/data/compile/sm100-*`, `sm120-*`).

use super::Failure;
use crate::triton::TritonVersion;

/// The MMA version chooser of `release` on compute capability `cc`.
pub fn choose(cc: u32, release: TritonVersion) -> Result<(), Failure> {
    let line = match release {
        TritonVersion::V3_1 => 30,
        TritonVersion::V3_2 => 36,
        _ => return Ok(()),
    };
    if cc < 100 {
        return Ok(());
    }
    Err(Failure::assertion(
        release,
        format!(
            "getMMAVersionSafe (lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp:{line}), compute capability {cc}"
        ),
        "Assertion `false && \"computeCapability not supported\"' failed",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_3_1_and_3_2_refuse_blackwell() {
        for release in [TritonVersion::V3_1, TritonVersion::V3_2] {
            assert!(choose(90, release).is_ok());
            assert!(choose(100, release).is_err());
            assert!(choose(120, release).is_err());
        }
        assert!(choose(120, TritonVersion::V3_3).is_ok());
        assert!(choose(120, TritonVersion::Newest).is_ok());
    }
}
