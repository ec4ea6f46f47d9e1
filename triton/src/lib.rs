//! # linear-layout-triton
//!
//! What each Triton release from 3.1 to 3.9 does with linear layouts: its
//! layout attributes and the layouts it builds from them, the places where
//! its lowering fails, and a finder that predicts, without a GPU, which
//! kernel configurations make a release fail, where and why.
//!
//! ```
//! use linear_layout_triton::{Release, finder};
//!
//! // flash-linear-attention's chained dots at 8 warps on Hopper (fla #196).
//! let cfg: finder::Config = serde_json::from_str(r#"{"pattern": "chain-b", "m": 64, "n": 64,
//!     "k": 64, "x": 64, "dtype": "bf16", "num_warps": 8, "num_stages": 2, "arch": "sm90",
//!     "triton": "3.2"}"#)?;
//! let prediction = finder::predict(&cfg)?;
//! let failure = prediction.failure.ok_or("3.2 should abort")?;
//! assert_eq!(failure.site.id, "stmatrix");
//! assert_eq!(failure.cite(), "v3.2.0:lib/Tools/LinearLayout.cpp:562");
//! // The first release that compiles it, and the change responsible.
//! let fix = finder::search::fix_for(&cfg);
//! assert_eq!(fix.fixed_in, Some(Release::V3_4));
//! assert!(fix.describe().contains("#6609"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The layers, each using only those before it:
//! - [`release`]: the modelled releases as data ([`Release`], [`RELEASES`])
//!   and the cut points between them; [`releases_json`], the table for
//!   scripts.
//! - [`attr`]: the attributes as data ([`Attr`]).
//! - [`parse_attr`] / [`print_attr`]: TTGIR text, with both dialect
//!   spellings (`#triton_gpu.` up to 3.2, `#ttg.` after) and `#alias`
//!   definitions ([`Defs`]); [`ttgir_attr`]: an attribute given as JSON,
//!   printed the way a release spells it.
//! - [`to_linear_layout`]: the layout `release` builds for an attribute on
//!   a shape ([`Conversion`]; [`ConvertError`] when it cannot).
//! - [`Site`] descriptors (where a release fails, how, what fixed it) and
//!   [`Failure`] (one failure of a release), shared by the conversions and
//!   the finder.
//! - [`layout_cvt`]: whether a `convert_layout` between two layouts only
//!   reorders registers.
//! - [`finder`]: the lowering models of each release (one file per site),
//!   `predict`, `search`, `check_ttgir`, shrinking and reproducers;
//!   [`kernel_fields`]: a configuration's fields as callers give them, with
//!   the defaults.
//! - [`explain`]: a crash log in, the failure site out.
//! - [`view`]: pictures of a layout (who holds each element, as a text
//!   grid or an SVG), drawn by `convert --view`/`--svg` and the HTML
//!   report.
//! - [`report`]: what `search` (and `linear-layout-scan`) found, as one
//!   model, and its renderers (text, JSON, JUnit, HTML).
//!
//! The algebra underneath is the [`linear_layout`] crate; running Triton
//! itself (on a user's kernel) is `linear-layout-scan`'s job.

#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod attr;
mod attr_json;
mod convert;
mod error;
pub mod escape;
pub mod explain;
mod failure;
pub mod finder;
pub mod kernel_fields;
mod launch_option;
pub mod layout_cvt;
mod parse;
mod print;
pub mod release;
mod release_json;
pub mod report;
pub mod request;
mod site;
pub mod view;

pub use attr::{Attr, Cga};
pub use attr_json::{AttrJsonError, attr_from_json, ttgir_attr};
pub(crate) use convert::cga::split_num as cta_split_num;
pub(crate) use convert::{AMD_WMMA_SITE, NVIDIA_MMA_SITE, memdesc_verifier_error};
pub use convert::{Conversion, ConversionCache, SITES as CONVERSION_SITES, to_linear_layout};
pub use error::ConvertError;
pub use failure::{Entry, Failure, Verdict};
pub use launch_option::{
    LAUNCH_OPTIONS, LaunchOption, OptionKind, launch_option, launch_options_list,
};
pub use parse::{Defs, parse_attr};
pub use print::print_attr;
pub use release::{Ptxas, RELEASES, Release, ReleaseInfo, Since, Span};
pub use release_json::releases_json;
pub use site::{Change, Ending, Location, Site, SiteKind};
