//! A kernel that calls a `triton.language` function its release does not
//! have: building the kernel's IR raises `AttributeError` before anything
//! else. `tl.gather` arrived in 3.3 (measured: the gather kernel raises on
//! 3.1.0 and 3.2.0, and compiles or fails later on 3.3.1 and after). 3.6's
//! `tl.dot_scaled` takes rank-2 scales only, and its semantic check raises
//! for a batched dot's (measured: `family-compiles-*`, the batched mxfp4 and
//! mxfp8 dots on sm100 and sm120; 3.5.1 decomposes and compiles them, 3.7.1
//! takes rank-3 scales).

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

static NO_GATHER: Location = Location {
    releases: Span::until(Release::V3_1, Release::V3_3),
    ending: Ending::Diagnostic,
    function: "code generation of `tl.gather`",
    file: "python/triton/language/__init__.py",
    line: None,
    message: "AttributeError: module 'triton.language' has no attribute 'gather'",
};

static NO_BATCHED_SCALES: Location = Location {
    releases: Span::only(Release::V3_6),
    ending: Ending::Diagnostic,
    function: "the shape check of `tl.dot_scaled`'s scales",
    file: "python/triton/language/semantic.py",
    line: None,
    message: "AssertionError: lhs_scale must be a tensor of shape ",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "language_feature",
    kind: SiteKind::Rejection,
    title: "a triton.language function or form the release does not have (tl.gather before 3.3, batched tl.dot_scaled scales in 3.6)",
    locations: &[&NO_GATHER, &NO_BATCHED_SCALES],
    changes: &[
        Change {
            release: Release::V3_3,
            pr: None,
            what: "`tl.gather` exists",
        },
        Change {
            release: Release::V3_7,
            pr: None,
            what: "`tl.dot_scaled` takes a batched dot's rank-3 scales",
        },
    ],
    workaround: "Triton 3.3 or later for tl.gather; rank-2 tl.dot_scaled calls per batch on 3.6",
};

/// Whether `release` has `tl.gather`.
pub(crate) fn gather(release: Release) -> Result<(), Failure> {
    if !NO_GATHER.releases.contains(release) {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &NO_GATHER,
        release,
        format!("Triton {release} has no tl.gather"),
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
            super::Event::FrontEnd(super::FrontEnd { gather: true, .. }) => gather(release),
            _ => Ok(()),
        }
    }
}
