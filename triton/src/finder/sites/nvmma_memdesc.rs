//! The newest release's verifier of NVMMA shared-memory types.
//!
//! From 3.7, `MemDescType::verify` (`Types.cpp`) asks `getTMABlockShape`
//! (Tiled mode) for the box of every NVMMA buffer and refuses the type when
//! the box's contiguous dim holds less than one swizzle row. Types are
//! verified as they are parsed or built, so such a buffer is a diagnosed
//! error before any lowering; in earlier releases the same box check is an
//! assertion or fatal error inside the lowering ([`super::shared_tile`]).
//! Measured: the 3.7.1, 3.8.0 and 3.9.0 wheels print this diagnostic; 3.5.1
//! and 3.6.0 verify no such thing and end the same modules in the lowering,
//! with the caught fatal error "Block shape is too small for the swizzle
//! byte size in NVMMA Shared Layout" (the `nvmma_shared` conversion site).

use super::Failure;
use crate::Release;
use crate::attr::Attr;
use crate::memdesc_verifier_error;
use crate::release::Span;
use crate::{Ending, Location, Site, SiteKind};

static VERIFY: Location = Location {
    releases: Span::since(Release::V3_7),
    ending: Ending::Diagnostic,
    function: "MemDescType::verify",
    file: "lib/Dialect/TritonGPU/IR/Types.cpp",
    line: None,
    message: "block shape along the contiguous dimension ",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "nvmma_memdesc",
    kind: SiteKind::Rejection,
    title: "an NVMMA shared buffer whose contiguous dim holds less than one swizzle row (refused by the type verifier)",
    locations: &[&VERIFY],
    changes: &[],
    workaround: "a swizzle no wider than the buffer's contiguous dim in bytes",
};

/// Checks a `!ttg.memdesc` of `alloc_shape` in `shared` as `release`
/// verifies it.
pub(crate) fn verify(shared: &Attr, alloc_shape: &[u64], release: Release) -> Result<(), Failure> {
    let Attr::NvmmaShared(n) = shared else {
        return Ok(());
    };
    if !SITE.fails_in(release) {
        return Ok(());
    }
    match memdesc_verifier_error(n, alloc_shape) {
        Some(message) => Err(Failure::at(
            &SITE,
            &VERIFY,
            release,
            "the TMA box's contiguous dim holds less than one swizzle row",
        )
        .with_message(message)),
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
        &[super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        // The buffer's type, as the release verifies it when parsing a module.
        let super::Event::Op(op) = event else {
            return Ok(());
        };
        let Some((shape, _, enc)) = op.buffer.as_ref() else {
            return Ok(());
        };
        match op.attr(enc) {
            Some(shared) => verify(&shared, shape, release),
            None => Ok(()),
        }
    }
}
