//! Reading an MMA operand from shared memory when its buffer is split among
//! CTAs differently from the dot (`num_ctas > 1`).
//!
//! `AccelerateMatmul` builds the NVMMA buffer of an operand with the CGA of
//! the value it comes from; the lowering (`DotOpMmaSmemLoader` in
//! `MMAHelpers.h`, used by wgmma and tcgen05) then addresses the buffer
//! through its linear layout with a `block` dim, one CTA's part at a time:
//!
//! - 3.5's loader (`DotOpMmaV3SmemLoader`, also used by tcgen05) handles
//!   an unswizzled buffer only as a `K × 16`-byte operand B and asserts so
//!   when a CTA's part is narrower than the instruction; a swizzled buffer
//!   is read without a check, and the kernel fails later;
//! - 3.6's generic descriptor (PRs #8321, #8378) finds no NVMMA tile that
//!   factors a CTA's part: "Failed to find a valid layout", a fatal error;
//! - 3.7 and later diagnose it ("failed to find valid wgmma layout", or
//!   tcgen05's), except that 3.8 and 3.9 assert `getReps` first in a
//!   swizzled buffer, and 3.9's `smemLoad` asserts `block == 0` when one of
//!   the instruction's K steps lies in another CTA's part (B split along K:
//!   chain-b, whose P comes from a first dot that splits M);
//! - for tcgen05 from 3.8, a part of 8 one-byte columns (less than one
//!   16-byte core matrix row) has no layout at all.
//!
//! Measured on the 3.5.1 to 3.9.0 wheels: `inductor-3d`, whose operand B is
//! the transposed load in the load's own CGA, chain-b on sm90 (3.9) and fp8
//! `dot`s on sm100 (3.8, 3.9), with 2 and 4 CTAs
//! (`tests/data/compile/ctas-*`; the CTA report's `model39.py` agrees with
//! all 150 chains of its grids). Up to 3.8 chained kernels with several CTAs
//! stop at CTA planning first.

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Ending, Location, Site, SiteKind};

const HELPERS: &str = "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAHelpers.h";

static UNSWIZZLED_3_5: Location = Location {
    releases: Span::only(Release::V3_5),
    ending: Ending::Assertion,
    function: "DotOpMmaV3SmemLoader::smemLoad",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/WGMMA.cpp",
    line: Some(164),
    message: "Assertion `a == 0 && instrShape[0] * elemBits == 16 * 8 && \"Currently expect that unswizzled case only happens for \" \"rhs <Kx16> cases and the inner dimension is 16bytes.\"' failed.",
};
static NO_LAYOUT_3_6: Location = Location {
    releases: Span::only(Release::V3_6),
    ending: Ending::FatalError,
    function: "DotOpMmaSmemLoader::getDescriptor",
    file: HELPERS,
    line: None,
    message: "LLVM ERROR: Failed to find a valid layout",
};
static REPS_3_8: Location = Location {
    releases: Span::only(Release::V3_8),
    ending: Ending::Assertion,
    function: "DotOpMmaSmemLoader::getDescriptor",
    file: HELPERS,
    line: Some(261),
    message: "Assertion `getReps(ll, shmemTileInv).has_value()' failed.",
};
static BLOCK_ZERO: Location = Location {
    releases: Span::since(Release::V3_9),
    ending: Ending::Assertion,
    function: "DotOpMmaSmemLoader::smemLoad",
    file: HELPERS,
    line: Some(171),
    message: "Assertion `block == 0' failed.",
};
static REPS: Location = Location {
    releases: Span::since(Release::V3_9),
    ending: Ending::Assertion,
    function: "DotOpMmaSmemLoader::getDescriptor",
    file: HELPERS,
    line: Some(280),
    message: "Assertion `getReps(ll, shmemTileInv).has_value()' failed.",
};
static WGMMA_LAYOUT: Location = Location {
    releases: Span::since(Release::V3_7),
    ending: Ending::Diagnostic,
    function: "convertWGMMA (DotOpMmaSmemLoader::build)",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/WGMMA.cpp",
    line: None,
    message: "error: failed to find valid wgmma layout for operand B in shared memory",
};
static TCGEN05_LAYOUT: Location = Location {
    releases: Span::since(Release::V3_7),
    ending: Ending::Diagnostic,
    function: "convertMMAv5 (DotOpMmaSmemLoader::build)",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAv5.cpp",
    line: None,
    message: "error: failed to find valid tcgen05.mma layout for operand B in shared memory",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "mma_operand_cga",
    kind: SiteKind::Bug,
    title: "an MMA operand read from a shared buffer split among CTAs differently from its dot (num_ctas > 1)",
    locations: &[
        &UNSWIZZLED_3_5,
        &NO_LAYOUT_3_6,
        &REPS_3_8,
        &BLOCK_ZERO,
        &REPS,
        &WGMMA_LAYOUT,
        &TCGEN05_LAYOUT,
    ],
    changes: &[],
    workaround: "num_ctas=1, or tiles whose producer is split among CTAs as the dot is (chain-b: a first dot that keeps M whole)",
};

/// Which instruction reads the operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reader {
    /// Hopper's wgmma.
    Wgmma,
    /// Blackwell's tcgen05.
    Tcgen05,
}

/// A dot's operand B, `[K, N]`, in a buffer whose CGA `block` bases are
/// `bases` (element coordinates), read by an instruction `instr_n` wide;
/// `swizzled` when the buffer has an NVMMA swizzle.
pub(crate) fn operand_b(
    bases: &[[u64; 2]],
    n: u64,
    instr_n: u64,
    swizzled: bool,
    reader: Reader,
    release: Release,
) -> Result<(), Failure> {
    let k_split = bases.iter().any(|b| b[0] != 0);
    let per_cta_n = n >> bases.iter().filter(|b| b[1] != 0).count();
    let narrow = instr_n > per_cta_n;
    if !k_split && !narrow {
        return Ok(());
    }
    let why = if k_split {
        "operand B's buffer is split along K among CTAs: a K step of the instruction lies in another CTA's part".to_string()
    } else {
        format!(
            "operand B's buffer holds {per_cta_n} columns per CTA, the instruction reads {instr_n}"
        )
    };
    let layout = match reader {
        Reader::Wgmma => &WGMMA_LAYOUT,
        Reader::Tcgen05 => &TCGEN05_LAYOUT,
    };
    let location = match release {
        r if r < Release::V3_5 => return Ok(()),
        Release::V3_5 if swizzled => return Ok(()),
        Release::V3_5 => &UNSWIZZLED_3_5,
        Release::V3_6 => &NO_LAYOUT_3_6,
        Release::V3_7 => layout,
        Release::V3_8 if swizzled => &REPS_3_8,
        Release::V3_8 => layout,
        _ if k_split => &BLOCK_ZERO,
        _ if swizzled => &REPS,
        _ => layout,
    };
    Err(Failure::at(&SITE, location, release, why))
}

/// A tcgen05 dot's operand B with `cols_bytes` contiguous bytes per CTA.
pub(crate) fn tcgen05_operand_b(cols_bytes: u64, release: Release) -> Result<(), Failure> {
    if release < Release::V3_8 || cols_bytes >= 16 {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &TCGEN05_LAYOUT,
        release,
        format!(
            "operand B holds {cols_bytes} contiguous bytes per CTA, less than one 16-byte core matrix row"
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
        &[
            super::EventKind::MmaOperandBuffer,
            super::EventKind::Tcgen05OperandBuffer,
        ]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::MmaOperandBuffer {
                bases,
                n,
                instr_n,
                swizzled,
                reader,
            } => operand_b(bases, *n, *instr_n, *swizzled, *reader, release),
            super::Event::Tcgen05OperandBuffer { cols_bytes } => {
                tcgen05_operand_b(*cols_bytes, release)
            }
            _ => Ok(()),
        }
    }
}
