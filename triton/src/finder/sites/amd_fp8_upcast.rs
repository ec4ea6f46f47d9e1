//! An fp8 dot that CDNA4 (gfx950) computes in fp32, in 3.4 and 3.5.
//!
//! AMD's `AccelerateMatmul` (`chooseMfmaInstruction` in
//! `third_party/amd/lib/TritonAMDGPUTransforms/AccelerateAMDMatmul.cpp`)
//! picks the MFMA's M and N from the result's smaller side (32 from 32
//! rows and columns, 16 from 16), looks the instruction up for the operand
//! types, and refuses one whose K step does not divide the dot's K (it
//! would duplicate data). CDNA4's fp8 MFMAs (OCP `f8E4M3FN`, `f8E5M2`; the
//! scaled `f8f6f4` ones are tried first and need more K still) step 16
//! along K with 32-wide tiles and 32 with 16-wide ones, so a K of 16 under
//! a side of fewer than 32 has none. The dot then becomes an fp32 MFMA
//! (`instrShape = [16, 16]`, version 4, in the TTGIR the lowering gets)
//! whose operands are cast by `tt.fp_to_fp …, rounding = rtne`, and 3.4's
//! and 3.5's lowering of that op on gfx950 has no rule from an OCP fp8
//! type to fp32 with a rounding mode: "Unsupported conversion from
//! 'f8E4M3FN' to 'f32' with rounding mode rtne". A plain `.to(tl.float32)`
//! (an `fp_to_fp` without rounding) lowers, as does the same dot on gfx942;
//! 3.6 lowers it on gfx950 too.
//!
//! In a TTGIR module the check is the lowering's own: an `fp_to_fp` with
//! `rounding = rtne` from an OCP fp8 type to `f32` in a `hip:gfx950`
//! module.
//!
//! Measured: 118 fp8 kernels drawn over `dot`, the chains and
//! `inductor-3d` on gfx90a, gfx942, gfx950, gfx1100 and gfx1201 with M, N
//! 16–64 and K 16–128 (`tests/data/compile/amd-fp8-upcast-*`): on 3.4.0
//! and 3.5.1 the 9 whose dot (or a chain's second dot) meets the rule
//! above, all on gfx950, fail here; 3.6.0 to 3.9.0 compile them.

use super::Failure;
use crate::finder::config::Arch;
use crate::finder::decisions::DotShape;
use crate::release::{Release, Span};
use crate::{Change, Ending, Location, Site, SiteKind};

const fn unsupported(message: &'static str) -> Location {
    Location {
        releases: Span::until(Release::V3_4, Release::V3_6),
        ending: Ending::Diagnostic,
        function: "FpToFpOpConversion (an fp_to_fp with rounding = rtne from OCP fp8 to fp32: a dot's operand cast)",
        file: "third_party/amd/lib/TritonAMDGPUToLLVM/ElementwiseOpToLLVM.cpp",
        line: None,
        message,
    }
}

static E4M3: Location =
    unsupported("error: Unsupported conversion from 'f8E4M3FN' to 'f32' with rounding mode rtne");
static E5M2: Location =
    unsupported("error: Unsupported conversion from 'f8E5M2' to 'f32' with rounding mode rtne");

/// The site.
pub(crate) static SITE: Site = Site {
    id: "amd_fp8_upcast",
    kind: SiteKind::Bug,
    title: "an fp8 dot computed in fp32 on gfx950, whose rounded fp8 → fp32 operand casts have no lowering (3.4, 3.5)",
    locations: &[&E4M3, &E5M2],
    changes: &[Change {
        release: Release::V3_6,
        pr: None,
        what: "gfx950 lowers the cast from an OCP fp8 type to fp32",
    }],
    workaround: "K of at least 32 where the dot is narrower than 32, a dot of 32 or more rows and columns, or Triton 3.6",
};

/// The K step of CDNA4's fp8 MFMA `non_k` wide (`None`: no instruction).
fn fp8_k_step(non_k: u64) -> Option<u64> {
    match non_k {
        32 => Some(16),
        16 => Some(32),
        _ => None,
    }
}

/// The width `chooseMfmaInstruction` gives `dot`'s MFMA: 32 when both
/// sides of the result have 32, 16 when they have 16 (0: none).
fn mfma_width(dot: &DotShape) -> u64 {
    match dot.m.min(dot.n) {
        s if s >= 32 => 32,
        s if s >= 16 => 16,
        _ => 0,
    }
}

/// Whether `chooseMfmaInstruction` finds no fp8 MFMA for `dot` of OCP fp8
/// operands on CDNA4: a K step that must divide K.
pub(crate) fn no_fp8_mfma(dot: &DotShape) -> bool {
    fp8_k_step(mfma_width(dot)).is_none_or(|step| dot.k % step != 0)
}

/// The location of a rounded cast to `f32` from the MLIR element type
/// `element`, where it is an OCP fp8 type.
fn cast_from(element: &str) -> Option<&'static Location> {
    match element {
        "f8E4M3FN" => Some(&E4M3),
        "f8E5M2" => Some(&E5M2),
        _ => None,
    }
}

/// The lowering of `dot`'s operand casts for `arch` in `release`.
pub(crate) fn lower(dot: &DotShape, arch: Arch, release: Release) -> Result<(), Failure> {
    let Some(location) = cast_from(dot.dtype.mlir()) else {
        return Ok(());
    };
    if arch != Arch::Gfx950 || !location.releases.contains(release) || !no_fp8_mfma(dot) {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "the {}x{}x{} {} dot has no gfx950 fp8 MFMA whose K step divides K {} ({}-wide tiles), so it becomes an fp32 MFMA whose operands are cast with rounding = rtne",
            dot.m,
            dot.n,
            dot.k,
            dot.dtype.name(),
            dot.k,
            mfma_width(dot)
        ),
    ))
}

/// The lowering of a TTGIR `fp_to_fp` for `arch` in `release`: an OCP fp8
/// source, an `f32` result and `rounding = rtne` on gfx950.
pub(crate) fn lower_op(op: &crate::finder::op::Op<'_>, release: Release) -> Result<(), Failure> {
    if op.module.arch != Some(Arch::Gfx950) || !op.line.contains("rounding = rtne") {
        return Ok(());
    }
    let (Some(src), Some(dst)) = (op.types.first(), op.types.get(1)) else {
        return Ok(());
    };
    let Some(location) = cast_from(&src.1) else {
        return Ok(());
    };
    if dst.1 != "f32" || !location.releases.contains(release) {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "a cast from {} to f32 with rounding = rtne on gfx950: Triton {release}'s lowering has no such rule",
            src.1
        ),
    ))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::AmdDot, super::EventKind::Op]
    }

    fn vendors(&self) -> &'static [crate::finder::config::Vendor] {
        &[crate::finder::config::Vendor::Amd]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::AmdDot { dot, arch } => lower(dot, *arch, release),
            super::Event::Op(op) if op.name == "fp_to_fp" => lower_op(op, release),
            _ => Ok(()),
        }
    }

    fn stage(&self) -> Option<super::Stage> {
        Some(super::Stage::Lowering)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finder::config::Dtype;

    fn dot(m: u64, n: u64, k: u64, dtype: Dtype) -> DotShape {
        DotShape {
            m,
            n,
            k,
            dtype,
            chained: false,
        }
    }

    /// K 16 under a side below 32 has no fp8 MFMA; 32-wide tiles step 16
    /// along K and take it.
    #[test]
    fn a_narrow_dot_of_k_16_has_no_fp8_mfma() {
        assert!(no_fp8_mfma(&dot(16, 64, 16, Dtype::Fp8e5)));
        assert!(no_fp8_mfma(&dot(32, 16, 16, Dtype::Fp8e4nv)));
        assert!(!no_fp8_mfma(&dot(64, 64, 16, Dtype::Fp8e4nv)));
        assert!(!no_fp8_mfma(&dot(16, 16, 32, Dtype::Fp8e4nv)));
    }

    /// Only gfx950, only OCP fp8, only 3.4 and 3.5.
    #[test]
    fn the_cast_fails_on_gfx950_before_3_6() {
        let d = dot(16, 16, 16, Dtype::Fp8e4nv);
        let f = lower(&d, Arch::Gfx950, Release::V3_4).unwrap_err();
        assert!(f.triton_message.contains("'f8E4M3FN' to 'f32'"), "{f}");
        let f = lower(&dot(16, 16, 16, Dtype::Fp8e5), Arch::Gfx950, Release::V3_5).unwrap_err();
        assert!(f.triton_message.contains("'f8E5M2' to 'f32'"), "{f}");
        assert!(lower(&d, Arch::Gfx950, Release::V3_6).is_ok());
        assert!(lower(&d, Arch::Gfx942, Release::V3_4).is_ok());
        assert!(lower(&dot(16, 16, 16, Dtype::Bf16), Arch::Gfx950, Release::V3_4).is_ok());
    }
}
