//! A kernel that calls a `triton.language` function its release does not
//! have: building the kernel's IR raises `AttributeError` before anything
//! else. `tl.gather` arrived in 3.3 (measured: the gather kernel raises on
//! 3.1.0 and 3.2.0, and compiles or fails later on 3.3.1 and after).

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

/// The site.
pub(crate) static SITE: Site = Site {
    id: "language_feature",
    kind: SiteKind::Rejection,
    title: "a triton.language function the release does not have (tl.gather before 3.3)",
    locations: &[&NO_GATHER],
    changes: &[Change {
        release: Release::V3_3,
        pr: None,
        what: "`tl.gather` exists",
    }],
    workaround: "Triton 3.3 or later for tl.gather",
};

/// Whether `release` has `tl.gather`.
pub(crate) fn gather(release: Release) -> Result<(), Failure> {
    match SITE.location(release) {
        Some(location) => Err(Failure::at(
            &SITE,
            location,
            release,
            format!("Triton {release} has no tl.gather"),
        )),
        None => Ok(()),
    }
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
