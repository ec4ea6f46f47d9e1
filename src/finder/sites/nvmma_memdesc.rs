//! The newest release's verifier of NVMMA shared-memory types.
//!
//! After 3.6, `MemDescType::verify` (`Types.cpp`) asks `getTMABlockShape`
//! (Tiled mode) for the box of every NVMMA buffer and refuses the type when
//! the box's contiguous dim holds less than one swizzle row. Types are
//! verified as they are parsed or built, so such a buffer is a diagnosed
//! error before any lowering; in earlier releases the same box check is an
//! assertion or fatal error inside the lowering ([`super::shared_tile`]).

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
    if release < TritonVersion::Newest {
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
