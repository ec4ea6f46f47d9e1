//! Loading a tcgen05 accumulator from tensor memory when its CTA tiling
//! splits both M and N (sm100, `num_ctas > 1`, 3.5).
//!
//! 3.5's tensor-memory layout (`tensorMemoryToLinearLayout`,
//! `LinearLayoutConversions.cpp`) folds the CTA splits into its columns,
//! M's split below N's (`((tile · splitM) · splitN)`), while the
//! accumulator's CGA numbers CTAs N first (CTA order `[1, 0]`).
//! `lowerTMemLdStFromTypes` (`TensorMemoryToLLVM.cpp`) removes the CTA part
//! from the register-to-memory conversion by dividing it on the right by
//! `identity(block → col)`, which needs the `block` bits on the top column
//! bits in order; with both dims split they come reversed, and the division
//! fails. With one dim split (or a dot that is not tcgen05) nothing
//! crosses. 3.6 builds the layout with the CGA's own order.
//!
//! Measured: `dot` on sm100 with 4 CTAs tiled 2 × 2 fails on 3.5.1 only
//! (`tests/data/compile/ctas-*`; the CTA report's grids), and compiles when
//! the dot's N per CTA (8) keeps it off tcgen05.

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

static DIVIDE: Location = Location {
    releases: Span::only(Release::V3_5),
    ending: Ending::Assertion,
    function: "lowerTMemLdStFromTypes",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TensorMemoryToLLVM.cpp",
    line: Some(699),
    message: "Assertion `maybeQuot.has_value()' failed.",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "tmem_cta_3_5",
    kind: SiteKind::Bug,
    title: "a tcgen05 accumulator whose CTA tiling splits both M and N, loaded from tensor memory by 3.5",
    locations: &[&DIVIDE],
    changes: &[Change {
        release: Release::V3_6,
        pr: None,
        what: "the tensor-memory layout numbers CTA splits in the CGA's order",
    }],
    workaround: "num_ctas=2, or a tile that 4 CTAs split along one dim only",
};

/// The accumulator of a tcgen05 dot tiled `tiling` (M, N) over the CTAs.
pub(crate) fn accumulator(tiling: [u64; 2], release: Release) -> Result<(), Failure> {
    if !DIVIDE.releases.contains(release) || tiling[0] <= 1 || tiling[1] <= 1 {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &DIVIDE,
        release,
        format!(
            "CTA tiling {}x{}: the block bits land on tensor-memory columns in the reverse order",
            tiling[0], tiling[1]
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
        &[super::EventKind::TmemAccumulator, super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::TmemAccumulator { tiling } => accumulator(*tiling, release),
            // The same lowering stores and loads a TTGIR module's
            // accumulator, tiled as its tensor-memory encoding says.
            super::Event::Op(op) if matches!(op.name, "tmem_load" | "tmem_store") => {
                match op.buffer.as_ref().and_then(|b| op.module.tmem(&b.2)) {
                    Some(tmem) => accumulator(tmem.split, release),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}
