//! CTA planning with more than one `tt.dot` in a kernel (`num_ctas > 1`).
//!
//! `PlanCTA` (`lib/Dialect/TritonNvidiaGPU/Transforms/PlanCTA.cpp`, 3.1 to
//! 3.8) walks every `tt.dot` of the function, gives each the CTA tiling of
//! its result ([`crate::finder::cta::dot_tiling`]) and marks the function
//! tiled (`setTiling` up to 3.5, `markTiled` from 3.6), both of which start
//! with `assert(!tiled && …)`: the second dot always fails, whatever its
//! shapes (a FIXME beside the call says several dots are not handled). The
//! pass runs right after coalescing, before any MMA is chosen. 3.9 replaced
//! it by `AssignCGALayouts`, which gives each dot its own CGA.
//!
//! Measured: every chained kernel with 2 or 4 CTAs on sm90, sm100 and sm120
//! fails here in 3.4.0 to 3.8.0 (`tests/data/compile/ctas-*`), at the line
//! each wheel prints. 3.1.0, 3.2.0 and 3.3.1 fail the same way (lines 230,
//! 230 and 232), but the finder models several CTAs from 3.4 only
//! ([`crate::finder::Config::validate`]).

use super::Failure;
use crate::Release;
use crate::release::{Since, Span};
use crate::{Change, Location, Site, SiteKind};

const FILE: &str = "lib/Dialect/TritonNvidiaGPU/Transforms/PlanCTA.cpp";
const DETERMINTED: &str = "Assertion `!tiled && \"CTA tiling is already determinted\"' failed.";
const DETERMINED: &str = "Assertion `!tiled && \"CTA tiling is already determined\"' failed.";

const fn at(
    release: Release,
    line: u32,
    function: &'static str,
    message: &'static str,
) -> Location {
    Location::assertion(release, FILE, line, function, message)
}

static TILED_3_4: Location = at(Release::V3_4, 237, "CTAPlanner::setTiling", DETERMINTED);
static TILED_3_5: Location = at(Release::V3_5, 236, "CTAPlanner::setTiling", DETERMINTED);
static TILED_3_6: Location = Location {
    releases: Span::until(Release::V3_6, Release::V3_8),
    ..at(Release::V3_6, 212, "CTAPlanner::markTiled", DETERMINED)
};
static TILED_3_8: Location = at(Release::V3_8, 208, "CTAPlanner::markTiled", DETERMINED);

const TILED: Since<&'static Location> = Since(&[
    (Release::V3_4, &TILED_3_4),
    (Release::V3_5, &TILED_3_5),
    (Release::V3_6, &TILED_3_6),
    (Release::V3_8, &TILED_3_8),
]);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "plan_cta",
    kind: SiteKind::Bug,
    title: "CTA planning of a kernel with two or more dots and num_ctas > 1 (the second dot finds the kernel already tiled)",
    locations: &[&TILED_3_4, &TILED_3_5, &TILED_3_6, &TILED_3_8],
    changes: &[Change {
        release: Release::V3_9,
        pr: Some("#10325"),
        what: "PlanCTA is replaced by AssignCGALayouts, which gives every dot its own CGA layout",
    }],
    workaround: "num_ctas=1 for kernels with more than one tl.dot, or Triton 3.9",
};

/// Plans the CTAs of a kernel holding `dots` dots over `num_ctas` CTAs.
pub(crate) fn plan(dots: u64, num_ctas: u64, release: Release) -> Result<(), Failure> {
    if num_ctas <= 1 || dots < 2 {
        return Ok(());
    }
    match TILED.at(release) {
        Some(location) if location.releases.contains(release) => Err(Failure::at(
            &SITE,
            location,
            release,
            format!("{dots} tt.dot ops with {num_ctas} CTAs: the second is tiled again"),
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
        &[super::EventKind::PlanCtas]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::PlanCtas { dots, num_ctas } => plan(*dots, *num_ctas, release),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_dot_fails_until_3_9() {
        for release in Release::ALL {
            let failed = plan(2, 2, release).is_err();
            let planned = (Release::V3_4..Release::V3_9).contains(&release);
            assert_eq!(failed, planned, "{release}");
            assert!(plan(1, 4, release).is_ok());
            assert!(plan(2, 1, release).is_ok());
        }
        let f = plan(2, 2, Release::V3_6).unwrap_err();
        assert_eq!(
            f.location.file_and_line().as_deref(),
            Some("PlanCTA.cpp:212")
        );
    }
}
