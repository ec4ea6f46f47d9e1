//! The front end's check of a dot's accumulator against `out_dtype`, in 3.5
//! to 3.7: `tl.dot(a, b, acc)` with an int32 accumulator (int8 operands) and
//! the default `out_dtype` (float32) fails `acc.type.element_ty ==
//! out_dtype`. Up to 3.4 `acc` had to match the result type, int32 for
//! integers; from 3.8 `out_dtype` defaults to the accumulator's type.
//! Measured: the int8 `inductor-3d` kernel (the one pattern that hands
//! `tl.dot` its accumulator) on 3.5.1, 3.6.0 and 3.7.1.

use super::Failure;
use crate::release::{Release, Span};
use crate::{Change, Ending, Location, Site, SiteKind};

static ACC_3_5: Location = Location {
    releases: Span::until(Release::V3_5, Release::V3_8),
    ending: Ending::Diagnostic,
    function: "dot",
    file: "python/triton/language/semantic.py",
    line: None,
    message: "AssertionError",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "acc_dtype",
    kind: SiteKind::Rejection,
    title: "an int32 accumulator passed to tl.dot with the default out_dtype",
    locations: &[&ACC_3_5],
    changes: &[Change {
        release: Release::V3_8,
        pr: None,
        what: "`tl.dot`'s `out_dtype` defaults to the accumulator's type",
    }],
    workaround: "pass out_dtype=tl.int32 to tl.dot with an int32 accumulator",
};

/// The check on a dot handed an int32 accumulator (`int32_acc`) with the
/// default `out_dtype`.
pub(crate) fn check(int32_acc: bool, release: Release) -> Result<(), Failure> {
    match SITE.location(release) {
        Some(location) if int32_acc => Err(Failure::at(
            &SITE,
            location,
            release,
            "an int32 accumulator with out_dtype float32: `acc.type.element_ty == out_dtype`",
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
        &[super::EventKind::FrontEnd]
    }

    fn vendors(&self) -> &'static [crate::finder::config::Vendor] {
        super::EVERY_VENDOR
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::FrontEnd(super::FrontEnd { dot: Some(dot), .. }) => {
                check(dot.int32_acc, release)
            }
            _ => Ok(()),
        }
    }
}
