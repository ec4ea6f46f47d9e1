//! The front end's check that the target has fp8e4nv: compute capability
//! 89 or more in every release (3.1's `allow_fp8e4nv` and the later
//! releases' supported fp8 types both test `capability >= 89`), before any
//! layout exists. Measured on every recorded wheel: fp8e4nv dots on sm80 and
//! sm86 fail here, on sm89 they compile.

use super::Failure;
use crate::release::{Release, Span};
use crate::{Ending, Location, Site, SiteKind};

const SEMANTIC: &str = "python/triton/language/semantic.py";

static ASSERT_3_1: Location = Location {
    releases: Span::only(Release::V3_1),
    ending: Ending::Diagnostic,
    function: "dot",
    file: SEMANTIC,
    line: Some(1325),
    message: "AssertionError: Dot op does not support fp8e4nv on CUDA arch < 90",
};
static UNSUPPORTED: Location = Location {
    releases: Span::since(Release::V3_2),
    ending: Ending::Diagnostic,
    function: "dtype.to_ir, against the target's supported fp8 dtypes",
    file: "python/triton/language/core.py",
    line: None,
    message: "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "fp8_arch",
    kind: SiteKind::Rejection,
    title: "fp8e4nv on a target below compute capability 89",
    locations: &[&ASSERT_3_1, &UNSUPPORTED],
    changes: &[],
    workaround: "fp8e5 on Ampere, or an Ada / Hopper / Blackwell target",
};

/// Whether the front end of `release` takes an fp8e4nv dot on compute
/// capability `cc`.
pub(crate) fn check(fp8e4nv: bool, cc: u32, release: Release) -> Result<(), Failure> {
    if !fp8e4nv || cc >= 89 {
        return Ok(());
    }
    let location = SITE.location(release).unwrap_or(&UNSUPPORTED);
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!("compute capability {cc} has no fp8e4nv"),
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
                match dot.capability {
                    Some(cc) => check(dot.fp8e4nv, cc, release),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}
