//! What a release knows of an AMD target: the ISA family its backend
//! deduces from the processor name (`deduceISAFamily`,
//! `third_party/amd/lib/TritonAMDGPUToLLVM/TargetUtils.cpp`), which decides
//! whether the target is supported at all and which heuristics apply.

use crate::Release;
use crate::finder::config::{Arch, Dtype};

/// An AMD ISA family as Triton's backend names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum IsaFamily {
    /// MI200 (gfx90a).
    Cdna2,
    /// MI300 (gfx942).
    Cdna3,
    /// MI350 (gfx950).
    Cdna4,
    /// RDNA3 (gfx11; gfx12 too up to 3.5, which has no RDNA4).
    Rdna3,
    /// RDNA4 (gfx120x), from 3.6.
    Rdna4,
    /// gfx1250, from 3.6.
    Gfx1250,
    /// A processor the release does not know: its lowering refuses it.
    Unknown,
}

impl IsaFamily {
    /// Whether the family is an RDNA one (`isRDNA`).
    pub(crate) fn is_rdna(self) -> bool {
        matches!(self, IsaFamily::Rdna3 | IsaFamily::Rdna4)
    }
}

/// The family `release` deduces for `arch` (`None` for an NVIDIA arch).
/// 3.4 and 3.5 map gfx1100–gfx1201 to RDNA3 and know no gfx1250; 3.6 adds
/// RDNA4 (gfx1200–gfx1201) and gfx1250.
pub(crate) fn isa_family(arch: Arch, release: Release) -> Option<IsaFamily> {
    let family = match arch {
        Arch::Gfx90a => IsaFamily::Cdna2,
        Arch::Gfx942 => IsaFamily::Cdna3,
        Arch::Gfx950 => IsaFamily::Cdna4,
        Arch::Gfx1100 => IsaFamily::Rdna3,
        Arch::Gfx1201 if release.knows_rdna4_and_gfx1250() => IsaFamily::Rdna4,
        Arch::Gfx1201 => IsaFamily::Rdna3,
        Arch::Gfx1250 if release.knows_rdna4_and_gfx1250() => IsaFamily::Gfx1250,
        Arch::Gfx1250 => IsaFamily::Unknown,
        _ => return None,
    };
    Some(family)
}

/// The unit a 16-bit (fp16, bf16) dot of at least 16 along M, N and K
/// runs on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum DotUnit {
    /// An MFMA instruction of this version (CDNA).
    Mfma(u64),
    /// A WMMA instruction of this version (RDNA, gfx1250).
    Wmma(u64),
    /// FMA, the operands cast to fp32 first.
    Fma,
}

/// The unit of a 16-bit dot on `arch` in `release` (`None` for NVIDIA):
/// AccelerateAMDMatmul's MFMA version by ISA family, its WMMA version by
/// name (`getWmmaVersion`), and FMA on gfx1250 up to 3.6
/// ([`Release::gfx1250_dots_on_fma`]).
pub(crate) fn dot_unit_16_bit(arch: Arch, release: Release) -> Option<DotUnit> {
    Some(match arch {
        Arch::Gfx90a => DotUnit::Mfma(2),
        Arch::Gfx942 => DotUnit::Mfma(3),
        Arch::Gfx950 => DotUnit::Mfma(4),
        Arch::Gfx1100 => DotUnit::Wmma(1),
        Arch::Gfx1201 => DotUnit::Wmma(2),
        Arch::Gfx1250 if release.gfx1250_dots_on_fma() => DotUnit::Fma,
        Arch::Gfx1250 => DotUnit::Wmma(3),
        _ => return None,
    })
}

/// The unit a dot of `dtype` runs on for the trace: the 16-bit dots'
/// ([`dot_unit_16_bit`]); for other types the matrix cores of the target
/// where the type and sizes have an instruction, FMA otherwise (not
/// modelled further).
pub(crate) fn matrix_core(arch: Arch, dtype: Dtype, release: Release) -> String {
    let unit = match dot_unit_16_bit(arch, release) {
        None => "none".to_string(),
        Some(DotUnit::Fma) => "FMA (operands cast to fp32)".to_string(),
        Some(DotUnit::Mfma(v)) => format!("MFMA version {v}"),
        Some(DotUnit::Wmma(v)) => format!("WMMA version {v}"),
    };
    let hedge = if matches!(dtype, Dtype::Fp16 | Dtype::Bf16) {
        ""
    } else {
        ", or FMA where no instruction takes the type and sizes"
    };
    format!(
        "{} dot on {}: {unit}{hedge} (instruction shapes not modelled)",
        dtype.name(),
        arch.name()
    )
}

/// Whether `release` keeps a kernel's tensor descriptors for `arch`, to
/// lower them to the tensor data mover: from 3.7 on a target with TDM
/// (gfx1250: `amd.supports_tdm`); everywhere else the front end rewrites
/// them to pointer loads (`add_rewrite_tensor_descriptor_to_pointer`,
/// unconditional up to 3.6).
pub(crate) fn keeps_tensor_descriptors(arch: Arch, release: Release) -> bool {
    arch == Arch::Gfx1250 && release.amd_keeps_descriptors_for_tdm()
}
