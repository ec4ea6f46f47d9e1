//! The front end's check that an AMD target takes fp8e4nv.
//!
//! The HIP backend's options name the fp8 types a kernel may use
//! (`HIPOptions.supported_fp8_dtypes`, `third_party/amd/backend/
//! compiler.py`), and the front end refuses any other as it builds the IR
//! (`dtype.to_ir`). In 3.4 every target takes fp8e5; gfx942 adds fp8e4nv
//! and the FNUZ types, gfx950 and gfx12 (`'gfx12' in arch`, so gfx1250
//! too) add fp8e4nv: fp8e4nv fails on gfx90a and gfx1100. From 3.5 every
//! target takes fp8e4nv, fp8e5, fp8e4b8 and fp8e5b16 at the front end.
//!
//! Measured: fp8e4nv kernels on gfx90a and gfx1100 raise with 3.4.0
//! (`CompilationError` wrapping the `ValueError`, stage ast).

use super::Failure;
use crate::finder::config::Arch;
use crate::release::{Release, Span};
use crate::{Change, Ending, Location, Site, SiteKind};

static UNSUPPORTED: Location = Location {
    releases: Span::only(Release::V3_4),
    ending: Ending::Diagnostic,
    function: "dtype.to_ir, against HIPOptions.supported_fp8_dtypes",
    file: "python/triton/language/core.py",
    line: None,
    message: "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "amd_fp8_arch",
    kind: SiteKind::Rejection,
    title: "an fp8e4nv dot on an AMD target whose backend options lack it (gfx90a, gfx11 in 3.4)",
    locations: &[&UNSUPPORTED],
    changes: &[Change {
        release: Release::V3_5,
        pr: None,
        what: "every AMD target takes fp8e4nv, fp8e5, fp8e4b8 and fp8e5b16 at the front end",
    }],
    workaround: "fp8e5 on gfx90a and gfx11 with Triton 3.4, or Triton 3.5 or later",
};

/// The fp8 types `arch`'s options name in 3.4, as the message prints them
/// (`tuple(sorted(...))`), and whether fp8e4nv is among them.
fn supported_3_4(arch: Arch) -> (&'static str, bool) {
    match arch {
        Arch::Gfx942 => ("('fp8e4b8', 'fp8e4nv', 'fp8e5', 'fp8e5b16')", true),
        Arch::Gfx950 | Arch::Gfx1201 | Arch::Gfx1250 => ("('fp8e4nv', 'fp8e5')", true),
        _ => ("('fp8e5',)", false),
    }
}

/// The front end of `release` on an fp8e4nv kernel (`fp8e4nv`) for `arch`.
pub(crate) fn check(fp8e4nv: bool, arch: Arch, release: Release) -> Result<(), Failure> {
    if !fp8e4nv || !arch.is_amd() {
        return Ok(());
    }
    let Some(location) = SITE.location(release) else {
        return Ok(());
    };
    let (names, takes_fp8e4nv) = supported_3_4(arch);
    if takes_fp8e4nv {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "the HIP backend of Triton {release} gives {} the fp8 types {names}",
            arch.name()
        ),
    )
    .with_message(format!("{}{names}", location.message)))
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
        &[crate::finder::config::Vendor::Amd]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::FrontEnd(super::FrontEnd {
                arch,
                dot: Some(dot),
                ..
            }) => check(dot.fp8e4nv, *arch, release),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3.4 refuses fp8e4nv on gfx90a and gfx1100 only, printing the
    /// target's tuple; later releases take it everywhere.
    #[test]
    fn fp8e4nv_is_refused_by_3_4_on_gfx90a_and_gfx11() {
        for arch in Arch::ALL.into_iter().filter(|a| a.is_amd()) {
            let refused = matches!(arch, Arch::Gfx90a | Arch::Gfx1100);
            let got = check(true, arch, Release::V3_4);
            assert_eq!(got.is_err(), refused, "{arch:?}");
            if let Err(f) = got {
                assert!(f.triton_message.ends_with("are ('fp8e5',)"), "{f}");
            }
            assert!(check(false, arch, Release::V3_4).is_ok());
            assert!(check(true, arch, Release::V3_5).is_ok());
        }
        assert!(check(true, Arch::Sm80, Release::V3_4).is_ok());
    }
}
