//! The front end's size check on 8-bit dots (`semantic.py`'s `dot`),
//! before any layout exists:
//!
//! - 3.1 asks an integer dot's lhs for 32 columns (its K): "small blocks
//!   not supported!".
//! - 3.2 moved the check to the target, spelled as a minimum for int8 that
//!   a block type never meets (`is_int8()` is false on it): 3.2 compiles
//!   int8 dots with K = 16.
//! - From 3.3 every 8-bit dot needs K ≥ 32 (the message's M and N minimums
//!   drop to 1 from 3.5).
//!
//! Measured: int8 and fp8 dots with K = 16 on every recorded wheel
//! (`tests/data/compile/int8-*`, `fp8-*`).

use super::Failure;
use crate::release::{Release, Span};
use crate::{Change, Ending, Location, Site, SiteKind};

const SEMANTIC: &str = "python/triton/language/semantic.py";

static SMALL_BLOCKS_3_1: Location = Location {
    releases: Span::only(Release::V3_1),
    ending: Ending::Diagnostic,
    function: "dot",
    file: SEMANTIC,
    line: Some(1376),
    message: "AssertionError: small blocks not supported!",
};
static SHAPES_3_3: Location = Location {
    releases: Span::until(Release::V3_3, Release::V3_5),
    ending: Ending::Diagnostic,
    function: "dot",
    file: SEMANTIC,
    line: None,
    message: "AssertionError: Input shapes should have M >= 16, N >= 16 and K >= 32",
};
static SHAPES: Location = Location {
    releases: Span::since(Release::V3_5),
    ending: Ending::Diagnostic,
    function: "dot",
    file: SEMANTIC,
    line: None,
    message: "AssertionError: Input shapes should have M >= 1, N >= 1 and K >= 32",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "dot_k",
    kind: SiteKind::Rejection,
    title: "an 8-bit dot with K below 32",
    locations: &[&SMALL_BLOCKS_3_1, &SHAPES_3_3, &SHAPES],
    changes: &[
        Change {
            release: Release::V3_2,
            pr: None,
            what: "the front end no longer asks an int8 dot for K >= 32 (the check moved to the target, whose int8 test misses block types)",
        },
        Change {
            release: Release::V3_3,
            pr: None,
            what: "every 8-bit dot needs K >= 32 again",
        },
    ],
    workaround: "K of at least 32 for 8-bit dots",
};

/// The check on a kernel whose smallest dot K is `min_k`, with 8-bit
/// operands (`int8` says whether they are integers).
pub(crate) fn check(
    eight_bit: bool,
    int8: bool,
    min_k: u64,
    release: Release,
) -> Result<(), Failure> {
    let checked = if release.lowers_with_linear_layouts() {
        eight_bit && release.checks_8bit_dot_k()
    } else {
        int8
    };
    if !checked || min_k >= 32 {
        return Ok(());
    }
    let Some(location) = SITE.location(release) else {
        return Ok(());
    };
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!("a dot has K = {min_k}"),
    ))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::FrontEnd]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::FrontEnd(super::FrontEnd { dot: Some(dot), .. }) => {
                check(dot.eight_bit, dot.int8, dot.min_k, release)
            }
            _ => Ok(()),
        }
    }
}
