//! A Hopper `wgmma` on 8-bit or tf32 operands with an operand stored
//! M- or N-major (triton #11586: an int8 `tl.dot` in a warp-specialized loop
//! fed by TMA descriptors).
//!
//! `WGMMAOpPattern::getPtxAsm` (`third_party/nvidia/lib/NVGPUToLLVM/
//! NVGPUToLLVMPass.cpp`) admits the 16-bit forms with either operand
//! transposed, and the tf32 (`f32`), fp8 (`e4m3`/`e5m2`) and `s8` forms only
//! when neither is: `assert(supported && "WGMMA type or shape is not
//! supported")` otherwise. The `wgmma` lowering (`DotOpToLLVM/WGMMA.cpp`)
//! takes an operand's transposition from its shared-memory descriptor:
//! operand A (`[M, K]`) is transposed when its `nvmma_shared` buffer is
//! `transposed` (M contiguous), operand B (`[K, N]`) when it is not (N
//! contiguous); an operand A in registers is never transposed.
//!
//! `AccelerateMatmul` gives such operands K-major buffers (it stores B with
//! `transposed = true`), so plain kernels never reach the assertion. The
//! Hopper warp specialization rebuilds each operand buffer from the
//! producer's register order instead (3.4 to 3.9): a B tile loaded `[K, N]`
//! by TMA keeps N contiguous, and the `wgmma` of the consumer partition
//! asserts. A B tile loaded `[N, K]` and transposed in the kernel compiles.
//!
//! Measured: `family-compiles-*` (int8, fp8e4nv and tf32 `ws_matmul`
//! kernels on sm90 with 3.4.0 to 3.9.0; each compiles without
//! `warp_specialize` and with B transposed) and the one-op modules of
//! `tests/oracle/compile/families.py` (a `ttng.warp_group_dot` with each
//! operand order, element type and release).

use super::Failure;
use crate::attr::Attr;
use crate::finder::op::{DotTypes, Op, bits_of};
use crate::{Location, Release, Site, SiteKind};

const FILE: &str = "third_party/nvidia/lib/NVGPUToLLVM/NVGPUToLLVMPass.cpp";
const FUNCTION: &str = "WGMMAOpPattern::getPtxAsm";
const MESSAGE: &str = "Assertion `supported && \"WGMMA type or shape is not supported\"' failed.";

static ASSERT_3_4: Location = Location::assertion(Release::V3_4, FILE, 604, FUNCTION, MESSAGE);
static ASSERT_3_5: Location = Location::assertion(Release::V3_5, FILE, 561, FUNCTION, MESSAGE);
static ASSERT_3_6: Location = Location::assertion(Release::V3_6, FILE, 461, FUNCTION, MESSAGE);
static ASSERT_3_7: Location = Location::assertion(Release::V3_7, FILE, 464, FUNCTION, MESSAGE);
static ASSERT_3_8: Location = Location::assertion(Release::V3_8, FILE, 460, FUNCTION, MESSAGE);
static ASSERT_3_9: Location = Location::assertion(Release::V3_9, FILE, 467, FUNCTION, MESSAGE);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "wgmma_operand_major",
    kind: SiteKind::Bug,
    title: "a Hopper wgmma on int8, fp8 or tf32 operands whose shared buffer is not K-major (a warp-specialized loop over TMA tiles, triton #11586)",
    locations: &[
        &ASSERT_3_4,
        &ASSERT_3_5,
        &ASSERT_3_6,
        &ASSERT_3_7,
        &ASSERT_3_8,
        &ASSERT_3_9,
    ],
    changes: &[],
    workaround: "load operand B as [N, K] and transpose it in the kernel (`b_desc.load([n, k]).T`), or drop `warp_specialize=True` on sm90 for 8-bit and tf32 dots",
};

/// Which of a wgmma's two operands the lowering would transpose, and why.
fn transposed(dot: &DotTypes, op: &Op<'_>) -> Option<&'static str> {
    let nvmma_transposed = |enc: &str| match op.attr(enc) {
        Some(Attr::NvmmaShared(n)) => Some(n.transposed),
        _ => None,
    };
    if dot.a_in_memory && nvmma_transposed(&dot.a.2) == Some(true) {
        return Some("operand A's buffer is M-major (`transposed = true`)");
    }
    if dot.b_in_memory && nvmma_transposed(&dot.b.2) == Some(false) {
        return Some("operand B's buffer is N-major (`transposed = false`)");
    }
    None
}

/// The assertion for `op`, a `ttng.warp_group_dot`, in `release`.
fn check_op(op: &Op<'_>, release: Release) -> Result<(), Failure> {
    let Some(location) = SITE.location(release) else {
        return Ok(());
    };
    let Some(dot) = op.dot_types() else {
        return Ok(());
    };
    // The 16-bit forms take either operand order.
    let bits = bits_of(&dot.a.1);
    if bits == 16 {
        return Ok(());
    }
    let Some(why) = transposed(&dot, op) else {
        return Ok(());
    };
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "{bits}-bit wgmma ({} x {}): {why}, and the {} form has no transposed operands",
            dot.a.1,
            dot.b.1,
            if bits == 32 { "tf32" } else { "8-bit" }
        ),
    ))
}

/// The model: each `warp_group_dot` of a module.
pub(crate) const MODEL: super::OpModel = super::OpModel {
    site: &SITE,
    op: "warp_group_dot",
    stage: super::Stage::Lowering,
    check: |op, release, _| check_op(op, release),
};
