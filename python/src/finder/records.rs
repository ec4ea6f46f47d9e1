//! Finder answers as records: JSON built in Rust, read by the record class
//! of `linear_layout._finder` that names its fields.

use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::Value;

/// The Python module holding the record classes.
const MODULE: &str = "linear_layout._finder";

/// `class_name.from_json(<value as compact JSON>)`.
pub(crate) fn record<'py>(
    py: Python<'py>,
    class_name: &str,
    value: &Value,
) -> PyResult<Bound<'py, PyAny>> {
    let class = py.import(MODULE)?.getattr(class_name)?;
    class.call_method1("from_json", (value.to_string(),))
}

/// A list of records of one class.
pub(crate) fn records<'py>(
    py: Python<'py>,
    class_name: &str,
    values: &[Value],
) -> PyResult<Bound<'py, PyList>> {
    let class = py.import(MODULE)?.getattr(class_name)?;
    let items = values
        .iter()
        .map(|v| class.call_method1("from_json", (v.to_string(),)))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// Whether `obj` is a `linear_layout.Record`.
pub(crate) fn is_record(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let class = obj
        .py()
        .import("linear_layout._records")?
        .getattr("Record")?;
    obj.is_instance(&class)
}
