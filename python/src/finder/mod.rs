//! The bug finder from Python: `predict`, `fix_for`, `check_ttgir`,
//! `explain`, `sites` and `releases`.
//!
//! Each answer is the JSON the command line tool prints for the same
//! question (`predict --json`, `check-ttgir --json`, `sites --json`, the
//! fixes of `search --json`), handed to Python as the package's `Record`
//! classes (`linear_layout._finder`), so that `.to_json()` gives the CLI's
//! text back. One file per concept: `config` (reading a configuration and
//! releases from Python arguments), `predict` (`predict`, `fix_for`),
//! `check` (`check_ttgir`), `explain`, `table` (`sites`, `releases`) and `records`
//! (JSON to records).

mod check;
mod config;
mod explain;
mod predict;
mod records;
mod table;

use pyo3::prelude::*;

/// Adds the finder's functions to the extension module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(predict::predict, m)?)?;
    m.add_function(wrap_pyfunction!(predict::fix_for, m)?)?;
    m.add_function(wrap_pyfunction!(check::check_ttgir, m)?)?;
    m.add_function(wrap_pyfunction!(explain::explain, m)?)?;
    m.add_function(wrap_pyfunction!(table::sites, m)?)?;
    m.add_function(wrap_pyfunction!(table::releases, m)?)?;
    m.add("CONFIG_FIELDS", config::fields_tuple(m.py())?)?;
    Ok(())
}
