//! The AMD lowering's check that the release knows the target.
//!
//! `ConvertTritonAMDGPUToLLVM` starts by deducing the target's ISA family
//! from its processor name (`deduceISAFamily`); an unknown one stops the
//! lowering with the diagnostic "unsupported target: 'gfx…'" before any op
//! is lowered. 3.4 and 3.5 know CDNA1–4 and RDNA1–3 (gfx1100 to gfx1201),
//! not gfx1250, which 3.6 added (with RDNA4). The front end and the TTGIR
//! passes run first: a failure there comes first.
//!
//! Measured: every kernel configuration for gfx1250 on the 3.4.0 and 3.5.1
//! wheels (stage llir, `RuntimeError: PassManager::run failed`); 3.6.0
//! compiles them (without matrix cores), 3.7.1 on with WMMA version 3.

use super::Failure;
use crate::finder::amd::target::{IsaFamily, isa_family};
use crate::finder::config::Arch;
use crate::release::{Release, Span};
use crate::{Change, Ending, Location, Site, SiteKind};

static UNSUPPORTED: Location = Location {
    releases: Span::until(Release::V3_4, Release::V3_6),
    ending: Ending::Diagnostic,
    function: "ConvertTritonAMDGPUToLLVM::runOnOperation",
    file: "third_party/amd/lib/TritonAMDGPUToLLVM/TritonGPUToLLVM.cpp",
    line: Some(89),
    message: "error: unsupported target: '",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "amd_target",
    kind: SiteKind::Rejection,
    title: "an AMD target whose ISA family the release does not know (gfx1250 before 3.6)",
    locations: &[&UNSUPPORTED],
    changes: &[Change {
        release: Release::V3_6,
        pr: None,
        what: "the backend knows gfx1250 (and RDNA4)",
    }],
    workaround: "Triton 3.6 or later for gfx1250 (3.7 for its matrix cores)",
};

/// The lowering of a module for `arch` in `release`.
pub(crate) fn lower(arch: Arch, release: Release) -> Result<(), Failure> {
    if isa_family(arch, release) != Some(IsaFamily::Unknown) {
        return Ok(());
    }
    let Some(location) = SITE.location(release) else {
        return Ok(());
    };
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!("Triton {release} deduces no ISA family for {}", arch.name()),
    )
    .with_message(format!("error: unsupported target: '{}'", arch.name())))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::LowerModule]
    }

    fn vendors(&self) -> &'static [crate::finder::config::Vendor] {
        &[crate::finder::config::Vendor::Amd]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::LowerModule { arch } => lower(*arch, release),
            _ => Ok(()),
        }
    }

    fn stage(&self) -> Option<super::Stage> {
        Some(super::Stage::Lowering)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gfx1250 is refused by 3.4 and 3.5 alone, with its name in the
    /// message; every other AMD target is known to every modelled release.
    #[test]
    fn only_gfx1250_before_3_6_is_unknown() {
        for release in Release::ALL.into_iter().filter(|r| r.models_amd()) {
            for arch in Arch::ALL.into_iter().filter(|a| a.is_amd()) {
                let refused = arch == Arch::Gfx1250 && release < Release::V3_6;
                let got = lower(arch, release);
                assert_eq!(got.is_err(), refused, "{arch:?} {release}");
                if let Err(f) = got {
                    assert_eq!(f.triton_message, "error: unsupported target: 'gfx1250'");
                }
            }
        }
    }
}
