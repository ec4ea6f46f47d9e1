//! # linear-layout
//!
//! Triton's *linear layouts* in Rust: linear maps over GF(2) from hardware
//! index bits (`register`, `lane`, `warp`, `block`, `offset`) to tensor
//! coordinates (`dim0`, `dim1`, …), with every operation giving exactly
//! Triton's answer, and a typed [`LayoutError`] wherever Triton would abort
//! the process with a failed assertion.
//!
//! ```
//! use linear_layout::{LinearLayout, dim};
//!
//! // Each thread holds 2 consecutive elements of a row; 4 lanes cover a row
//! // of 8, and 8 rows are covered by the next lane bits.
//! let regs = LinearLayout::identity_1d(2, dim("register"), dim("dim1"))?;
//! let lanes = LinearLayout::identity_1d(4, dim("lane"), dim("dim1"))?
//!     .product(&LinearLayout::identity_1d(8, dim("lane"), dim("dim0"))?)?;
//! let layout = regs.product(&lanes)?;
//!
//! // Lane 5 (0b101), register 1 holds row 1, column 3.
//! let at = layout.apply(&[(dim("register"), 1), (dim("lane"), 5)])?;
//! assert_eq!(at.as_slice(), &[(dim("dim1"), 3), (dim("dim0"), 1)]);
//!
//! // Asking for a reshape with the wrong total is an error, not an abort.
//! let err = layout.reshape_outs(&[(dim("dim0"), 4), (dim("dim1"), 4)]).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "reshape_outs: new out-dims [dim0: 4, dim1: 4] hold 16 elements, \
//!      but the layout's out-dims [dim1: 8, dim0: 8] hold 64"
//! );
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```
//!
//! The crate is layered, each layer using only the ones below it:
//! `bits` (packed GF(2) kernels) → [`LinearLayout`] (the algebra) →
//! [`utils`] (Triton's `LayoutUtils`) → [`format`](mod@format) (text, JSON,
//! TTGIR attribute syntax). [`eval`] and [`shrink_trace`] are the
//! JSON-lines scripting protocol used by the CLI and the oracle tests;
//! [`reference`](mod@reference) holds the brute-force checks that `eval`
//! runs on request and the `ops` fuzz target after every step, and
//! `fuzzing` (cargo feature `fuzzing`) that target's input and interpreter.
//! [`tutorial`] explains the maths.
//!
//! This crate is the algebra alone: no processes, no files, no Triton
//! release knowledge. The workspace's other crates build on it:
//! `linear-layout-triton` (each release's layout attributes, its failure
//! sites and the finder), `linear-layout-scan` (a user's kernel through each
//! release's real front end) and `linear-layout-cli` (the `linear-layout`
//! command). `notes/` (in the repository) explains the design.

#![warn(missing_docs)]
#![deny(unsafe_code)]

mod bits;
mod column_action;
mod dim;
mod error;
pub mod eval;
pub mod format;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod layout;
pub mod reference;
pub mod shrink_trace;
pub mod tutorial;
pub mod utils;

pub use column_action::ColumnAction;
pub use dim::{Dim, MAX_NAME_BYTES, MAX_NAMES, dim};
pub use error::{DimList, DimSizes, LayoutError, Result, Side};
pub use layout::supremum;
pub use layout::{Bases, LinearLayout, MAX_BITS, MAX_DIMS};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
