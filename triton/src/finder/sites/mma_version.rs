//! Triton 3.1's and 3.2's choice of MMA version (`getMMAVersionSafe` in
//! `AccelerateMatmul.cpp`): compute capability below 75 gives v1, below 90
//! v2, below 100 v3 or v2, and anything newer fails an `assert(false)`
//! ("computeCapability not supported"). Every dot on a Blackwell target
//! (cc 100 and up) aborts there, before any layout is chosen. 3.3 adds
//! v5 (tcgen05) with v2 as fallback below cc 110, and v2 alone below 130.
//!
//! Measured for sm100 and sm120: every recorded configuration aborts here
//! on 3.1.0 (`AccelerateMatmul.cpp:30`) and on 3.2.0 (`:36`), all four
//! patterns (`tests/data/compile/sm100-*`, `sm120-*`).

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

const fn unsupported(release: Release, line: u32) -> Location {
    Location {
        releases: Span::only(release),
        ending: Ending::Assertion,
        function: "getMMAVersionSafe",
        file: "lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp",
        line: Some(line),
        message: "Assertion `false && \"computeCapability not supported\"' failed.",
    }
}

static UNSUPPORTED_3_1: Location = unsupported(Release::V3_1, 30);
static UNSUPPORTED_3_2: Location = unsupported(Release::V3_2, 36);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "mma_version",
    kind: SiteKind::Bug,
    title: "any dot on a Blackwell target (compute capability 100 and up), which 3.1 and 3.2 do not know",
    locations: &[&UNSUPPORTED_3_1, &UNSUPPORTED_3_2],
    changes: &[Change {
        release: Release::V3_3,
        pr: None,
        what: "the MMA version chooser knows Blackwell (v5 then v2 below cc 110, v2 alone below 130)",
    }],
    workaround: "Triton 3.3 or later for Blackwell targets",
};

/// The MMA version chooser of `release` on compute capability `cc`.
pub(crate) fn choose(cc: u32, release: Release) -> Result<(), Failure> {
    match SITE.location(release) {
        Some(location) if cc >= 100 => Err(Failure::at(
            &SITE,
            location,
            release,
            format!("compute capability {cc}"),
        )),
        _ => Ok(()),
    }
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::ChooseMma]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::ChooseMma { capability } => choose(*capability, release),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_3_1_and_3_2_refuse_blackwell() {
        for release in [Release::V3_1, Release::V3_2] {
            assert!(choose(90, release).is_ok());
            assert!(choose(100, release).is_err());
            assert!(choose(120, release).is_err());
        }
        assert!(choose(120, Release::V3_3).is_ok());
        assert!(choose(120, Release::V3_9).is_ok());
    }
}
