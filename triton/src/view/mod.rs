//! Pictures of a layout: who holds each element, as a text grid or an SVG.
//!
//! Both read the layout through its public API only. The image of each
//! hardware input bit (`apply` on a one-bit input) is a column of the map
//! over GF(2); eliminating over those columns gives, for any element, its
//! lowest holder, and the kernel gives the others. Every element a linear
//! map reaches has the same number of holders, 2^(input bits − rank), so
//! one count serves the whole picture. Nothing enumerates all inputs: a
//! window of a huge layout costs what the window costs.
//!
//! One file per part: `options` (what to draw), `hardware` (which in-dims
//! hold elements), `solve` (finding holders), `grid` (what both views
//! draw), `table`, `colours`, `svg`.

mod colours;
mod grid;
mod hardware;
mod options;
mod solve;
mod svg;
mod table;
#[cfg(test)]
mod tests;

use colours::*;
use grid::*;
use hardware::*;
pub use options::{Span, SvgOptions, Window, parse_span};
use solve::*;
pub use svg::svg;
pub use table::holders_table;

use linear_layout::{Dim, LinearLayout};
use std::fmt::{self, Write};

/// The most elements an SVG picture shows unless told otherwise (64 × 64).
pub const SVG_MAX_CELLS: usize = 64 * 64;
/// The most elements the text table shows (256 × 256).
pub const TABLE_MAX_CELLS: usize = 256 * 256;

/// The widest line a table prints unless `--cols` asks for more columns.
pub const TABLE_MAX_LINE: usize = 160;
/// The cell sizes `SvgOptions::cell_px` accepts, in pixels.
pub const ZOOM_PX: std::ops::RangeInclusive<u32> = 4..=200;

/// Automatic cell sizes: as large as fits the pixel budget, within these.
const CELL_MIN_PX: u32 = 10;
const CELL_MAX_PX: u32 = 48;
/// The pixel budget of the grid when no zoom is given.
const GRID_MAX_W: u32 = 1536;
const GRID_MAX_H: u32 = 3072;
/// The advance of a monospace glyph, in em (DejaVu Sans Mono, Menlo,
/// Consolas and Courier all advance 0.60–0.61 em; a little spare).
const CHAR_EM: f64 = 0.62;
/// Line advance of a multi-line cell label, in em.
const LINE_EM: f64 = 1.15;
/// Label font sizes: no larger than this, and left out below the minimum.
const LABEL_MAX_FS: f64 = 12.0;
const LABEL_MIN_FS: f64 = 6.0;
/// A 1-d layout is drawn this many elements to a row.
const WRAP: u64 = 32;
/// Holders listed in a cell's tooltip.
const TOOLTIP_HOLDERS: u64 = 8;
const FONTS: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";
