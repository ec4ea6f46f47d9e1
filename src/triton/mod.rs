//! Triton's layout attributes: their TTGIR syntax, the linear layouts each
//! Triton release builds from them, and the description of where a release
//! fails.
//!
//! - [`release`]: the modelled releases as data ([`Release`], [`RELEASES`])
//!   and the cut points between them.
//! - [`attr`]: the attributes as data ([`Attr`]).
//! - [`parse`] / [`print`](mod@print): TTGIR text, with both dialect spellings
//!   (`#triton_gpu.` up to 3.2, `#ttg.` after) and `#alias` definitions.
//! - [`convert`]: `to_linear_layout(attr, shape, release)`.
//! - [`site`] and [`failure`]: where a release fails ([`Site`] descriptors)
//!   and one failure of it ([`Failure`]), shared by the conversions and the
//!   finder.
//! - [`layout_cvt`]: whether a `convert_layout` between two layouts only
//!   reorders registers.

pub mod attr;
pub mod convert;
pub mod error;
pub mod failure;
pub mod layout_cvt;
pub mod parse;
pub mod print;
pub mod release;
pub mod request;
pub mod site;

pub use attr::{Attr, Cga};
pub use convert::{Conversion, ConversionCache, to_linear_layout};
pub use error::ConvertError;
pub use failure::{Entry, Failure, Verdict};
pub use parse::{Defs, parse_attr};
pub use release::{RELEASES, Release, Since, Span};
pub use site::{Change, Ending, Location, Site, SiteKind};
