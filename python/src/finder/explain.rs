//! `explain`: a crash log in, the failure site out.

use super::records::record;
use crate::args;
use linear_layout_triton::explain::explain as crate_explain;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// Names the failure site of a crash log, as ``linear-layout explain
/// --json`` does.
///
/// ``log`` is whatever the failing job printed: a failed assertion line,
/// ``LLVM ERROR: ...``, ``PassManager::run failed`` with its MLIR
/// diagnostic, a whole traceback, or a TTGIR dump.
///
/// Returns an ``Explanation``: ``known`` (whether a modelled site, or a
/// known front-end rejection, prints a message in the log), ``site`` (the
/// best match: ``site``, ``title``, ``releases`` whose wheels print exactly
/// that message, ``locations`` with each release's ``file:line``,
/// ``fixed_in``, ``changes``, ``workaround``), ``others``, ``nearest`` (for
/// an unknown message: the known sites whose messages are closest),
/// ``front_end``, ``findings`` (the model's findings on a TTGIR module in
/// the log), ``context`` (kernel, warps, target... read from the log) and
/// ``scan`` (the ``linear-layout scan`` command the log suggests).
///
/// Raises ``TypeError`` when ``log`` is not a ``str``. The interpreter's
/// lock is released while the log is read.
///
/// >>> e = explain("LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.up.i32")
/// >>> e.known, e.site.site, e.site.fixed_in
/// (True, 'unknown_target', '3.3')
#[pyfunction]
#[pyo3(signature = (log))]
pub(crate) fn explain<'py>(
    py: Python<'py>,
    log: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let log = log
        .cast::<PyString>()
        .map_err(|_| args::type_error("log", "the crash log (str)", log))?
        .to_cow()?
        .into_owned();
    let json = py.detach(|| crate_explain(&log).to_json());
    record(py, "Explanation", &json)
}
