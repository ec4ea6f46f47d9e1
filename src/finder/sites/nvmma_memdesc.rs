//! The newest release's verifier of NVMMA shared-memory types.
//!
//! From 3.7, `MemDescType::verify` (`Types.cpp`) asks `getTMABlockShape`
//! (Tiled mode) for the box of every NVMMA buffer and refuses the type when
//! the box's contiguous dim holds less than one swizzle row. Types are
//! verified as they are parsed or built, so such a buffer is a diagnosed
//! error before any lowering; in earlier releases the same box check is an
//! assertion or fatal error inside the lowering ([`super::shared_tile`]).
//! Measured: the 3.7.1, 3.8.0 and 3.9.0 wheels print this diagnostic; 3.5.1
//! and 3.6.0 end the same modules with the caught fatal error "Block shape
//! is too small for the swizzle byte size in NVMMA Shared Layout" (also an
//! error, so the verdict is the same). 3.5 to 3.7 are modelled as one
//! release, 3.7, so this is the message reported for all of them.

use super::Failure;
use crate::triton::TritonVersion;
use crate::triton::attr::Attr;
use crate::triton::convert::memdesc_verifier_error;

/// The verifier's site.
const SITE: &str = "MemDescType::verify (lib/Dialect/TritonGPU/IR/Types.cpp)";

/// Checks a `!ttg.memdesc` of `alloc_shape` in `shared` as `release`
/// verifies it.
pub fn verify(shared: &Attr, alloc_shape: &[u64], release: TritonVersion) -> Result<(), Failure> {
    let Attr::NvmmaShared(n) = shared else {
        return Ok(());
    };
    if release < TritonVersion::V3_7 {
        return Ok(());
    }
    match memdesc_verifier_error(n, alloc_shape) {
        Some(message) => Err(Failure::diagnostic(
            release,
            SITE,
            format!("error: {message}"),
        )),
        None => Ok(()),
    }
}
