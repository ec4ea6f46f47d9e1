//! Triton 3.3's shared layout for an operand of a tcgen05 dot (MMA v5,
//! sm100). `AccelerateMatmul` gives each operand an NVMMA shared encoding
//! whose builder picks the swizzle from the operand's contiguous bytes
//! (128, 64 or 32) and reaches `llvm_unreachable("unsupported shared memory
//! layout for MMAv3")` below 32. A loaded operand B keeps its load's order,
//! N fastest, even for 8-bit types (wgmma transposes those to K fastest),
//! so an fp8 dot with N = 16 has 16 contiguous bytes. Operand A is K
//! fastest, and 8-bit K is at least 32 (the front end's check). 3.4's
//! builder no longer ends there.
//!
//! A dot takes v5 in 3.3 (`supportMMA(dot, 5)`) when its types are not
//! integers, it is rank 2, it has 4 or 8 warps, and M % 64 == 0 and
//! N % 8 == 0; otherwise it falls back to MMA v2 and keeps no NVMMA buffer.
//! Measured on 3.3.1: every fp8 dot with N = 16 that takes v5 fails here
//! (`dot`, either dot of a chain, `inductor-3d`), and none with N = 32, M =
//! 32, 16 warps or int8 does (`tests/data/compile/sm100-*`).

use super::Failure;
use crate::Release;
use crate::finder::config::Dtype;
use crate::finder::decisions::DotShape;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

static UNREACHABLE_3_3: Location = Location {
    releases: Span::only(Release::V3_3),
    ending: Ending::Assertion,
    function: "the NVMMASharedEncodingAttr builder for an MMA v5 operand",
    file: "include/triton/Dialect/TritonGPU/IR/AttrDefs.cpp.inc",
    line: Some(458),
    message: "unsupported shared memory layout for MMAv3 -- UNREACHABLE executed at AttrDefs.cpp.inc:458!",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "tcgen05_operand_3_3",
    kind: SiteKind::Bug,
    title: "a tcgen05 (MMA v5) operand B narrower than 32 bytes on sm100 (fp8 dots with N = 16)",
    locations: &[&UNREACHABLE_3_3],
    changes: &[Change {
        release: Release::V3_4,
        pr: None,
        what: "the NVMMA encoding builder no longer gives up on an MMA v5 operand narrower than 32 bytes",
    }],
    workaround: "N of at least 32 for fp8 dots on sm100",
};

/// Whether 3.3 lowers `dot` to tcgen05 on `num_warps` warps.
fn takes_v5(dot: &DotShape, num_warps: u64) -> bool {
    takes_v5_in(dot, num_warps, Release::V3_3)
}

/// Whether `release` lowers `dot` (its shape per CTA) to tcgen05
/// (`supportMMA(dot, 5)`): 4 or 8 warps, M % 64 == 0 and N % 8 == 0, no
/// integers; 3.5 to 3.7 also ask for N % 16 == 0 and K of at least 256
/// bits, which 3.8 keeps while going back to N % 8 and admitting int8 ×
/// int8 → int32 (read in each release's `lib/Analysis/Utility.cpp`).
pub(crate) fn takes_v5_in(dot: &DotShape, num_warps: u64, release: Release) -> bool {
    let n_step = release.tcgen05_n_step();
    let k_ok = !release.tcgen05_needs_256_bit_k() || dot.k >= 256 / dot.dtype.bits();
    let int_ok = dot.dtype != Dtype::Int8 || release.tcgen05_takes_int8();
    int_ok && k_ok && matches!(num_warps, 4 | 8) && dot.m % 64 == 0 && dot.n % n_step == 0
}

/// 3.3's NVMMA encoding for the loaded operand B of `dot` on sm100.
pub(crate) fn operand_b(dot: &DotShape, num_warps: u64, release: Release) -> Result<(), Failure> {
    if !SITE.fails_in(release) || !takes_v5(dot, num_warps) {
        return Ok(());
    }
    let contiguous_bytes = dot.n * dot.dtype.bits() / 8;
    if contiguous_bytes >= 32 {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &UNREACHABLE_3_3,
        release,
        format!("operand B: {contiguous_bytes} contiguous bytes"),
    ))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::Tcgen05OperandB]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::Tcgen05OperandB { dot, num_warps } => operand_b(dot, *num_warps, release),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fails(m: u64, n: u64, dtype: Dtype, num_warps: u64, release: Release) -> bool {
        let dot = DotShape {
            m,
            n,
            k: 64,
            dtype,
            chained: false,
        };
        operand_b(&dot, num_warps, release).is_err()
    }

    /// The 3.3.1 probe's cases (see the module docs).
    #[test]
    fn fp8_with_sixteen_columns_on_tcgen05() {
        let v = Release::V3_3;
        assert!(fails(128, 16, Dtype::Fp8e4nv, 4, v));
        assert!(fails(64, 16, Dtype::Fp8e5, 8, v));
        assert!(!fails(128, 32, Dtype::Fp8e4nv, 4, v));
        assert!(!fails(32, 16, Dtype::Fp8e4nv, 4, v));
        assert!(!fails(128, 16, Dtype::Fp8e4nv, 16, v));
        assert!(!fails(128, 16, Dtype::Int8, 4, v));
        assert!(!fails(128, 16, Dtype::Fp16, 4, v));
        assert!(!fails(128, 16, Dtype::Fp8e4nv, 4, Release::V3_4));
    }
}
