//! Triton's layout attributes: their TTGIR syntax, the linear layouts each
//! Triton release builds from them, and the description of where a release
//! fails.
//!
//! - [`release`]: the modelled releases as data ([`Release`], [`RELEASES`])
//!   and the cut points between them.
//! - [`attr`]: the attributes as data ([`Attr`]).
//! - [`parse_attr`] / [`print_attr`]: TTGIR text, with both dialect
//!   spellings (`#triton_gpu.` up to 3.2, `#ttg.` after) and `#alias`
//!   definitions ([`Defs`]).
//! - [`to_linear_layout`]: the layout `release` builds for an attribute on
//!   a shape ([`Conversion`]; [`ConvertError`] when it cannot).
//! - [`Site`] descriptors (where a release fails, how, what fixed it) and
//!   [`Failure`] (one failure of a release), shared by the conversions and
//!   the finder.
//! - [`layout_cvt`]: whether a `convert_layout` between two layouts only
//!   reorders registers.

pub mod attr;
mod convert;
mod error;
mod failure;
pub mod layout_cvt;
mod parse;
mod print;
pub mod release;
pub mod request;
mod site;

pub use attr::{Attr, Cga};
pub(crate) use convert::cga::split_num as cta_split_num;
pub(crate) use convert::memdesc_verifier_error;
pub use convert::{Conversion, ConversionCache, SITES as CONVERSION_SITES, to_linear_layout};
pub use error::ConvertError;
pub use failure::{Entry, Failure, Verdict};
pub use parse::{Defs, parse_attr};
pub use print::print_attr;
pub use release::{RELEASES, Release, ReleaseInfo, Since, Span};
pub use site::{Change, Ending, Location, Site, SiteKind};
