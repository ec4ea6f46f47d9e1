//! Triton's layout attributes: their TTGIR syntax, and the linear layouts
//! each Triton release builds from them.
//!
//! - [`version`]: the releases whose behaviour differs ([`TritonVersion`]).
//! - [`attr`]: the attributes as data ([`Attr`]).
//! - [`parse`] / [`print`](mod@print): TTGIR text, with both dialect spellings
//!   (`#triton_gpu.` up to 3.2, `#ttg.` after) and `#alias` definitions.
//! - [`convert`]: `to_linear_layout(attr, shape, version)`.
//! - [`layout_cvt`]: whether a `convert_layout` between two layouts only
//!   reorders registers.

pub mod attr;
pub mod convert;
pub mod layout_cvt;
pub mod parse;
pub mod print;
pub mod request;
pub mod version;

pub use attr::{Attr, Cga};
pub use convert::{Conversion, ConversionCache, to_linear_layout};
pub use parse::{Defs, parse_attr};
pub use version::TritonVersion;
