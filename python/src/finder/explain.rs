//! `explain`: a crash log in, the failure site out.

use super::records::record;
use crate::args;
use linear_layout_triton::explain::explain as crate_explain;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// Names the failure site of a crash log, as ``linear-layout explain
/// --json`` does.
///
/// ``log`` is whatever the failing job printed: a failed assertion line,
/// ``LLVM ERROR: ...``, ``PassManager::run failed`` with its MLIR
/// diagnostic, a whole traceback, or a TTGIR dump; a ``str``, or the raw
/// ``bytes`` of the log. Bytes that are not UTF-8 (and lone surrogates in
/// a ``str``, as ``errors="surrogateescape"`` reads them) are read as
/// U+FFFD, never a reason to refuse the log.
///
/// A site is named only when the log shows Triton printed its message: a
/// failed assertion's line names the site's own source file, and text any
/// program may print (LLVM's own errors, a bare exception name) comes with
/// a sign of Triton in the log (a ``triton`` path, ``mlir::triton``, a
/// ``ttg.`` op). A message matched without that evidence is listed in
/// ``unconfirmed``, not named.
///
/// Returns an ``Explanation``: ``known`` (whether a modelled site, or a
/// known front-end rejection, is named), ``site`` (the best match:
/// ``site``, ``title``, ``releases`` whose wheels print exactly that
/// message, ``locations`` with each release's ``file:line``,
/// ``fixed_in``, ``changes``, ``workaround``, ``line`` of the log),
/// ``others``, ``unconfirmed``, ``failures`` (how many failures the log
/// holds), ``nearest`` (for an unknown message: the known sites whose
/// messages share words with it), ``front_end``, ``findings`` (the model's
/// findings on a TTGIR module in the log), ``context`` (kernel, warps,
/// target... read from the log) and ``scan`` (the ``linear-layout scan``
/// command the log suggests).
///
/// Raises ``TypeError`` when ``log`` is neither ``str`` nor bytes. The
/// interpreter's lock is released while the log is read.
///
/// >>> e = explain("python: /src/lib/Analysis/Utility.cpp:318: bool f(): "
/// ...             "Assertion `lowerHalfRow[1] == 0' failed.")
/// >>> e.known, e.site.site, e.site.fixed_in
/// (True, 'warp_shuffle_3_3', '3.4')
/// >>> explain("LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.up.i32").known
/// False
#[pyfunction]
#[pyo3(signature = (log))]
pub(crate) fn explain<'py>(
    py: Python<'py>,
    log: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let log: String = if let Ok(s) = log.cast::<PyString>() {
        s.to_string_lossy().into_owned()
    } else if let Ok(b) = log.cast::<PyBytes>() {
        String::from_utf8_lossy(b.as_bytes()).into_owned()
    } else if let Ok(b) = log.cast::<PyByteArray>() {
        String::from_utf8_lossy(&b.to_vec()).into_owned()
    } else {
        return Err(args::type_error("log", "the crash log (str or bytes)", log));
    };
    let json = py.detach(|| crate_explain(&log).to_json());
    record(py, "Explanation", &json)
}
