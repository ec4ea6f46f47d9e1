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
//! Release 3.7 here stands for 3.5 to 3.7, which differ: 3.5 reads the
//! three lists, 3.6 and 3.7 the bases. It reads both, so that neither is
//! refused wrongly (measured: the 3.5.1 wheel compiles a rank-3 NVMMA
//! buffer spelled with the three lists).

use super::Failure;
use crate::triton::TritonVersion;
use crate::triton::attr::{Attr, Cga};

/// The parser's site.
const SITE: &str = "the attribute parser (lib/Dialect/TritonGPU/IR/Dialect.cpp)";

/// Whether `release` reads `attr`, and every layout nested in it, as
/// spelled.
pub fn check(attr: &Attr, release: TritonVersion) -> Result<(), Failure> {
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
    let (refused, bases_spelling) = match cga {
        Some(Cga::Split { .. }) if release >= TritonVersion::V3_8 => ("CTAOrder", true),
        Some(Cga::Bases(_)) if release <= TritonVersion::V3_4 => ("CGALayout", false),
        _ => return Ok(()),
    };
    Err(Failure::diagnostic(
        release,
        SITE,
        format!(
            "error: unexpected key: {refused} ({})",
            if bases_spelling {
                "from 3.6 a CGA is spelled as `CGALayout` bases"
            } else {
                "up to 3.5 a CGA is spelled as `CTAsPerCGA`, `CTASplitNum` and `CTAOrder`"
            }
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triton::parse::{Defs, parse_attr};

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
        for release in TritonVersion::ALL {
            let new = release >= TritonVersion::V3_8;
            let old = release <= TritonVersion::V3_4;
            let refused = |a: &Attr| check(a, release).err().map(|f| f.message);
            assert_eq!(refused(&split).is_some(), new, "{release}");
            assert_eq!(refused(&bases).is_some(), old, "{release}");
            assert_eq!(refused(&plain), None, "{release}");
            for (attr, key, refuses) in [(&split, "CTAOrder", new), (&bases, "CGALayout", old)] {
                if refuses {
                    let message = refused(attr).unwrap_or_default();
                    assert!(
                        message.starts_with(&format!("error: unexpected key: {key}")),
                        "{message}"
                    );
                }
            }
        }
        // A parent's spelling counts too.
        let slice = Attr::Slice(crate::triton::attr::Slice {
            dim: 0,
            parent: Box::new(split),
        });
        assert!(check(&slice, TritonVersion::Newest).is_err());
        assert!(check(&slice, TritonVersion::V3_4).is_ok());
    }
}
