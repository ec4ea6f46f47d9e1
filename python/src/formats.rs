//! Layouts as text and data: Triton's text (`str()`), the JSON shape of
//! Triton's binding (`{"bases": ..., "out_dims": ...}`), the TTGIR
//! `#ttg.linear<{...}>` attribute, and pickling.

use crate::errors::{guard, guard_infallible};
use crate::layout::{PyLayout, build};
use crate::nesting::check_nesting;
use linear_layout::format;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

#[pymethods]
impl PyLayout {
    /// Reads a layout in any of three forms: Triton's text (what ``str()``
    /// prints), the JSON of ``to_json()``, or a ``#ttg.linear<{...}>``
    /// attribute (out-dims ``dim0, dim1, ...``).
    ///
    /// >>> l = LinearLayout.identity_1d(4, "lane", "dim0")
    /// >>> LinearLayout.parse(str(l)) == l == LinearLayout.parse(l.to_json())
    /// True
    /// >>> LinearLayout.parse("#ttg.linear<{lane = [[1], [2]]}>") == l
    /// True
    #[staticmethod]
    #[pyo3(signature = (text, /))]
    fn parse(text: &str) -> PyResult<Self> {
        check_nesting(text, "layout")?;
        build(|| format::parse_any(text))
    }

    /// Reads the JSON of ``to_json()``: ``{"bases": [[in_dim, [[c, ...],
    /// ...]], ...], "out_dims": [[out_dim, size], ...]}`` (the binding's
    /// ``bases`` and ``out_dims``, tuples as arrays). Sizes are taken as
    /// given; the layout need not be surjective.
    #[staticmethod]
    #[pyo3(signature = (text, /))]
    fn from_json(text: &str) -> PyResult<Self> {
        check_nesting(text, "layout JSON")?;
        build(|| format::json::from_json_str(text))
    }

    /// The layout as JSON text (see ``from_json``), as the CLI's ``--json``
    /// prints it.
    ///
    /// >>> LinearLayout.identity_1d(2, "lane", "dim0").to_json()
    /// '{"bases":[["lane",[[1]]]],"out_dims":[["dim0",2]]}'
    fn to_json(&self) -> PyResult<String> {
        guard_infallible(|| format::json::to_json_string(&self.inner))
    }

    /// The layout as a TTGIR ``#ttg.linear<{...}>`` attribute (``dialect``
    /// ``"triton_gpu"`` for Triton 3.2 and older). Only a surjective layout
    /// with out-dims ``dim0, dim1, ...`` of the inferred sizes can be
    /// written so; anything else is a ``LayoutError`` (``parse``).
    ///
    /// >>> LinearLayout.identity_1d(2, "lane", "dim0").to_ttgir()
    /// '#ttg.linear<{lane = [[1]]}>'
    #[pyo3(signature = (dialect = "ttg"))]
    fn to_ttgir(&self, dialect: &str) -> PyResult<String> {
        guard(|| format::ttgir::print_linear_attr(&self.inner, dialect))
    }

    /// Pickles as ``LinearLayout.from_bases(bases, names, sizes, False)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let layout = &slf.get().inner;
        let names: Vec<&str> = layout.out_dim_names().map(|d| d.name()).collect();
        let sizes: Vec<u64> = layout.out_dims().map(|(_, s)| s).collect();
        let bases: Vec<(&str, Vec<Vec<u64>>)> = layout
            .bases()
            .into_iter()
            .map(|(d, v)| (d.name(), v))
            .collect();
        let constructor = py.get_type::<PyLayout>().getattr("from_bases")?;
        (constructor, (bases, names, sizes, false)).into_pyobject(py)
    }

    /// Layouts are immutable: a copy is the layout itself.
    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Layouts are immutable: a deep copy is the layout itself.
    #[pyo3(signature = (memo, /))]
    fn __deepcopy__<'py>(slf: Bound<'py, Self>, memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        let _ = memo;
        slf
    }
}
