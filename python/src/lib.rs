//! `linear_layout._native`: the Rust crate `linear-layout` as a Python
//! extension module. The public face is the `linear_layout` package, which
//! re-exports what is defined here; the stubs are `linear_layout/_native.pyi`.
//!
//! One file per concept: `layout` (the class and the part mirroring Triton's
//! binding), `ops` and `queries` (the crate's further operations), `formats`
//! (text, JSON, TTGIR, pickling), `views` (Triton's printed views),
//! `convert` (`to_linear_layout`), `print_attr` (`ttgir_attr`), `finder` (the bug finder: `predict`,
//! `fix_for`, `check_ttgir`, `sites`, `releases`), `errors` (exceptions), `args`, `inputs`,
//! `names` and `nesting` (reading arguments quickly and safely); `cli` (the
//! `linear-layout` command, for the wheel's console script).

#![deny(unsafe_code)]

mod args;
mod cli;
mod convert;
mod errors;
mod finder;
mod formats;
mod inputs;
mod layout;
mod names;
mod nesting;
mod ops;
mod print_attr;
mod queries;
mod views;

use pyo3::prelude::*;

/// Triton's linear layouts, bit-exact with Triton 3.9.0, with `LayoutError`
/// where Triton aborts. Use the `linear_layout` package, which re-exports
/// everything here.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<layout::PyLayout>()?;
    m.add("LayoutError", py.get_type::<errors::LayoutError>())?;
    m.add("NoLayoutError", py.get_type::<errors::NoLayoutError>())?;
    m.add_function(wrap_pyfunction!(convert::to_linear_layout, m)?)?;
    m.add_function(wrap_pyfunction!(print_attr::ttgir_attr, m)?)?;
    finder::register(m)?;
    m.add_function(wrap_pyfunction!(cli::run_cli, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_VIEW_BITS", views::MAX_VIEW_BITS)?;
    m.add("MAX_NESTING", nesting::MAX_DEPTH)?;
    Ok(())
}
