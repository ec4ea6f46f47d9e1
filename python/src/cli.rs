//! The `linear-layout` command inside the extension, so that the wheel
//! installs it as a console script (`linear_layout._cli:main`) and a user
//! needs no Rust toolchain and no second install.

use pyo3::prelude::*;

/// Runs the `linear-layout` command line `argv` (the program name first)
/// and returns its exit status. The interpreter is released while the
/// command runs (it may run for minutes and starts threads of its own).
#[pyfunction]
pub fn run_cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| linear_layout_cli::run(argv))
}
