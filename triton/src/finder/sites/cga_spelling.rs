//! How a layout attribute spells its CGA (the CTAs of a cluster), which
//! each release's attribute parser accepts one way only.
//!
//! Up to 3.5 a layout names its CTA tiling with three lists, `CTAsPerCGA`,
//! `CTASplitNum` and `CTAOrder`; from 3.6 with one list of bases,
//! `CGALayout` (`Dialect.cpp`, every layout's `parse`). A key of the other
//! spelling is refused as the module is read ("unexpected key: …"), before
//! any pass runs. MLIR keeps an attribute dictionary sorted by key, so the
//! first key refused is `CTAOrder` or `CGALayout`. Measured with a blocked
//! layout: the 3.1.0, 3.2.0, 3.3.1 and 3.4.0 wheels refuse `CGALayout`, the
//! 3.7.1, 3.8.0 and 3.9.0 wheels refuse `CTAOrder`, and each compiles the
//! module in its own spelling.
//!
//! Measured with the same module on the 3.5.1 wheel (which refuses
//! `CGALayout`) and the 3.6.0 wheel (which refuses `CTAOrder`): the
//! spelling changed in 3.6 (PR #8770).

use super::Failure;
use crate::Release;
use crate::attr::{Attr, Cga};
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

const FUNCTION: &str = "every layout attribute's parse";
const FILE: &str = "lib/Dialect/TritonGPU/IR/Dialect.cpp";

/// Up to 3.5 the `CGALayout` bases are refused.
static REFUSES_BASES: Location = Location {
    releases: Span::until(Release::V3_1, Release::V3_6),
    ending: Ending::Diagnostic,
    function: FUNCTION,
    file: FILE,
    line: None,
    message: "unexpected key: ",
};
/// From 3.6 the three lists are refused.
static REFUSES_LISTS: Location = Location {
    releases: Span::since(Release::V3_6),
    ending: Ending::Diagnostic,
    function: FUNCTION,
    file: FILE,
    line: None,
    message: "unexpected key: ",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "cga_spelling",
    kind: SiteKind::Rejection,
    title: "a CGA spelled the way another release reads it (refused as the module is parsed)",
    locations: &[&REFUSES_BASES, &REFUSES_LISTS],
    changes: &[Change {
        release: Release::V3_6,
        pr: Some("#8770"),
        what: "a CGA is spelled as `CGALayout` bases; the three lists `CTAsPerCGA`, `CTASplitNum`, `CTAOrder` are no longer read",
    }],
    workaround: "dump the TTGIR with the release that compiles it",
};

/// Whether `release` reads `attr`, and every layout nested in it, as
/// spelled.
pub(crate) fn check(attr: &Attr, release: Release) -> Result<(), Failure> {
    let cga = match attr {
        Attr::Blocked(b) => &b.cga,
        Attr::NvidiaMma(m) => &m.cga,
        Attr::AmdMfma(m) => &m.cga,
        Attr::AmdWmma(w) => &w.cga,
        Attr::SwizzledShared(s) => &s.cga,
        Attr::NvmmaShared(n) => &n.cga,
        Attr::Slice(s) => return check(&s.parent, release),
        Attr::DotOperand(d) => return check(&d.parent, release),
        Attr::Linear(_) | Attr::SharedLinear(_) | Attr::Other { .. } => return Ok(()),
    };
    let (location, refused, why) = match cga {
        Some(Cga::Split { .. }) if REFUSES_LISTS.releases.contains(release) => (
            &REFUSES_LISTS,
            "CTAOrder",
            "from 3.6 a CGA is spelled as `CGALayout` bases",
        ),
        Some(Cga::Bases(_)) if REFUSES_BASES.releases.contains(release) => (
            &REFUSES_BASES,
            "CGALayout",
            "up to 3.5 a CGA is spelled as `CTAsPerCGA`, `CTASplitNum` and `CTAOrder`",
        ),
        _ => return Ok(()),
    };
    Err(Failure::at(&SITE, location, release, why)
        .with_message(format!("unexpected key: {refused}")))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::Definition]
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
            super::Event::Definition(attr) => check(attr, release),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Defs, parse_attr};

    fn blocked(cga: &str) -> Attr {
        let text = format!(
            "#ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]{cga}}}>"
        );
        parse_attr(&text, &Defs::new()).expect("parses")
    }

    #[test]
    fn each_release_refuses_the_other_spelling_only() {
        let split = blocked(", CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]");
        let bases = blocked(", CGALayout = []");
        let plain = blocked("");
        for release in Release::ALL {
            let new = release >= Release::V3_6;
            let old = release <= Release::V3_5;
            let refused = |a: &Attr| check(a, release).err().map(|f| f.triton_message);
            assert_eq!(refused(&split).is_some(), new, "{release}");
            assert_eq!(refused(&bases).is_some(), old, "{release}");
            assert_eq!(refused(&plain), None, "{release}");
            for (attr, key, refuses) in [(&split, "CTAOrder", new), (&bases, "CGALayout", old)] {
                if refuses {
                    let message = refused(attr).unwrap_or_default();
                    assert!(
                        message.starts_with(&format!("unexpected key: {key}")),
                        "{message}"
                    );
                }
            }
        }
        // A parent's spelling counts too.
        let slice = Attr::Slice(crate::attr::Slice {
            dim: 0,
            parent: std::sync::Arc::new(split),
        });
        assert!(check(&slice, Release::V3_9).is_err());
        assert!(check(&slice, Release::V3_4).is_ok());
    }
}
