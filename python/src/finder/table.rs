//! `sites` and `releases`: the site descriptors and the release table.

use super::records::records;
use crate::errors::guard_infallible;
use linear_layout_triton::finder::site_table;
use linear_layout_triton::releases_json;
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::Value;

/// One part of `sites --json`'s document.
fn part(key: &str) -> PyResult<Vec<Value>> {
    guard_infallible(|| match site_table::json().get_mut(key).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    })
}

/// Every failure site the finder models, sorted by id: the ``sites`` of
/// ``linear-layout sites --json``.
///
/// Each ``Site`` has ``id`` (``"stmatrix"``...), ``kind`` (``"bug"`` or
/// ``"rejection"``), ``title``, ``workaround``, ``locations`` (per span of
/// releases: ``releases``, ``ending``, ``function``, ``file``, ``line``,
/// ``location``, ``message`` (Triton's own text) and ``verdicts`` per
/// release) and ``changes`` (the changes in Triton that moved or removed its
/// failures, oldest first: ``release``, ``pr``, ``what``).
///
/// >>> "stmatrix" in [s.id for s in sites()]
/// True
#[pyfunction]
pub(crate) fn sites(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    records(py, "Site", &part("sites")?)
}

/// The modelled Triton releases, oldest first: the crate's release table,
/// as ``linear-layout releases --json`` prints it.
///
/// Each ``ReleaseInfo`` has ``name`` (what the other functions take:
/// ``"3.2"``), ``minors`` (every ``major.minor`` it stands for), ``wheel``
/// (the wheel the model is checked against first), ``wheels`` (every wheel
/// checked), ``tag`` (the git tag sources are cited from), ``dialect``
/// (``"triton_gpu"`` or ``"ttg"``, the TTGIR spelling it prints),
/// ``latest`` (whether it is the newest), ``models_multi_cta`` (whether its
/// lowering of several CTAs a program is modelled), ``gluon_oracle``
/// (whether its wheel's Gluon checks the attribute conversions) and
/// ``ttgir`` (how it
/// spells TTGIR: dialects, memdesc types, CGA spelling, and which
/// attributes and ops it has).
///
/// >>> releases()[0].dialect
/// 'triton_gpu'
/// >>> releases()[-1].latest
/// True
#[pyfunction]
pub(crate) fn releases(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let rows = guard_infallible(|| match releases_json().get_mut("releases").map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    })?;
    records(py, "ReleaseInfo", &rows)
}
