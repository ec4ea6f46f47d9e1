//! `check_ttgir`: the modelled checks over a TTGIR module.

use super::config::one_release;
use super::records::record;
use crate::args;
use crate::errors::{from_crate, guard_with};
use linear_layout_triton::finder::check_ttgir::{Checked, NotTtgir, looks_like, report};
use linear_layout_triton::{Entry, Release};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::{Value, json};

/// Runs the modelled checks of a Triton release over every
/// layout-sensitive op of a TTGIR module (``local_alloc``, ``local_load``,
/// ``local_store``, ``convert_layout``, ``async_copy_global_to_local``),
/// without compiling anything.
///
/// ``text`` is the module as Triton prints it (a ``.ttgir`` dump);
/// ``release`` the release that reads it (``"3.2"``, ``"3.3.1"``,
/// ``"newest"``...); ``file`` the name the report gives it.
///
/// Returns a ``CheckReport``, the JSON of ``linear-layout check-ttgir FILE
/// --json``: ``file``, ``triton`` (the release), ``warnings`` (a module
/// spelled in another release's dialect, say) and ``findings``, one per op
/// the release fails on: ``line`` (1-based), ``op`` (or ``#name`` for a
/// layout definition the release cannot parse), ``verdict`` (how compiling
/// this file ends: ``abort`` or ``error``), ``verdict_from_source`` (how the
/// kernel compiled from Python ends) and ``failure`` (``site``,
/// ``function``, ``location``, ``triton_message``, ``explanation``...);
/// ``unchecked``, the ops whose types cannot be read as Triton writes them
/// (a size that is not a 64-bit integer, a tensor dim that is not a power
/// of two, an encoding the module does not define), each with ``line``,
/// ``op`` and ``reason`` (such a module is not known to compile even
/// without findings); ``modules`` (a text of several modules is checked
/// module by module) and ``checked`` (the ops checked).
///
/// Raises ``ValueError`` when the text holds no TTGIR module or names an
/// unknown release, ``LayoutError`` when a layout definition cannot be read,
/// and ``TypeError`` for arguments of the wrong type. The interpreter's lock
/// is released while the checks run.
#[pyfunction]
#[pyo3(signature = (text, release = None, file = None),
       text_signature = "(text, release='newest', file='<string>')")]
pub(crate) fn check_ttgir<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    release: Option<&Bound<'py, PyAny>>,
    file: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let text = text
        .cast::<PyString>()
        .map_err(|_| args::type_error("text", "TTGIR text (str)", text))?
        .to_cow()?;
    let release = match release {
        Some(r) => one_release(r, "release")?,
        None => Release::LATEST,
    };
    let file = match file {
        Some(f) => f
            .cast::<PyString>()
            .map_err(|_| args::type_error("file", "a str", f))?
            .to_cow()?
            .into_owned(),
        None => "<string>".to_string(),
    };
    let report = py.detach(|| {
        let warnings = looks_like(&text, release).map_err(|e| not_ttgir(&file, &e))?;
        let found = guard_with(|| report(&text, release), from_crate)?;
        PyResult::Ok(report_json(&file, release, &warnings, &found))
    })?;
    record(py, "CheckReport", &report)
}

fn not_ttgir(file: &str, e: &NotTtgir) -> PyErr {
    PyValueError::new_err(format!("{file}: {e}"))
}

/// `check-ttgir --json`'s report (as `cli/src/cli/check_ttgir.rs` writes
/// it; every op not checked is listed here).
fn report_json(file: &str, release: Release, warnings: &[String], found: &Checked) -> Value {
    let items: Vec<Value> = found
        .findings
        .iter()
        .map(|f| {
            json!({"line": f.line, "op": f.op,
                   "verdict": f.verdict,
                   "verdict_from_source": f.failure.verdict(Entry::Source),
                   "failure": f.failure.to_json(Entry::IrFile)})
        })
        .collect();
    let unchecked: Vec<Value> = found
        .unchecked
        .iter()
        .map(|u| json!({"line": u.line, "op": u.op, "reason": u.reason}))
        .collect();
    json!({"file": file, "triton": release.to_string(),
           "warnings": warnings, "findings": items, "unchecked": unchecked,
           "unchecked_count": found.unchecked.len(), "modules": found.summary.modules,
           "checked": found.summary.checked})
}
