//! The NVMMA shared encoding of a wgmma (MMA v3) operand
//! (`AccelerateMatmul.cpp` / `Utility.cpp`): the swizzle is the largest of
//! 128, 64 and 32 bytes that the operand's contiguous row fills. Up to 3.2 a
//! row of fewer than 32 bytes hits `llvm_unreachable("unsupported shared
//! memory layout for MMAv3")` (`TritonGPUAttrDefs.cpp.inc:385`); later
//! releases fall back to no swizzle.

use super::Failure;
use crate::Release;
use crate::finder::decisions::nvmma_swizzle;
use crate::finder::verdict::Trace;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

static UNREACHABLE: Location = Location {
    releases: Span::until(Release::V3_1, Release::V3_3),
    ending: Ending::Assertion,
    function: "getSharedEncoding for an MMAv3 operand",
    file: "include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.cpp.inc",
    line: Some(385),
    message: "unsupported shared memory layout for MMAv3 -- UNREACHABLE executed at TritonGPUAttrDefs.cpp.inc:385!",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "operand_shared",
    kind: SiteKind::Bug,
    title: "a wgmma operand whose contiguous row is narrower than a 32-byte swizzle",
    locations: &[&UNREACHABLE],
    changes: &[
        Change {
            release: Release::V3_2,
            pr: None,
            what: "v3 needs K of at least 256 bits, so an 8-bit dot with K = 16 takes MMA v2",
        },
        Change {
            release: Release::V3_3,
            pr: None,
            what: "an operand too narrow for any swizzle gets an unswizzled NVMMA layout",
        },
    ],
    workaround: "K of at least 32 bytes per row (K >= 32 for 8-bit types)",
};

/// An operand of `rows × cols` elements whose contiguous dim has
/// `contiguous` elements of `bits` bits.
pub(crate) fn operand(
    name: &str,
    contiguous: u64,
    bits: u64,
    release: Release,
    trace: &mut Trace,
) -> Result<u64, Failure> {
    match nvmma_swizzle(contiguous, bits) {
        Some(s) => {
            trace.note(|| format!("{name} in NVMMA shared memory: {contiguous} contiguous elements → {s}-byte swizzle"));
            Ok(s)
        }
        None if SITE.fails_in(release) => Err(Failure::at(
            &SITE,
            &UNREACHABLE,
            release,
            format!(
                "{name}: {contiguous} contiguous elements of {bits} bits = {} bytes, less than a 32-byte swizzle",
                contiguous * bits / 8
            ),
        )),
        None => {
            trace.note(|| format!("{name} in NVMMA shared memory without swizzle ({contiguous} contiguous elements)"));
            Ok(0)
        }
    }
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::SharedOperand]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        trace: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::SharedOperand {
                name,
                contiguous,
                bits,
            } => operand(name, *contiguous, *bits, release, trace).map(|_| ()),
            _ => Ok(()),
        }
    }
}
