//! The crate's questions about a layout beyond Triton's binding: dims and
//! sizes, single bases, rank, and the structural predicates Triton's C++
//! uses (`sublayoutIsZero`, `isTrivialOver`, `getFreeVariableMasks`, ...).

use crate::args::{self, Int};
use crate::errors::{guard, layout_error};
use crate::layout::PyLayout;
use linear_layout::Dim;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

#[pymethods]
impl PyLayout {
    /// The in-dims with their sizes, in order: ``[(name, size), ...]``.
    #[getter]
    fn in_dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.inner.in_dims().map(|(d, s)| (d.name(), s)))
    }

    /// The size of in-dim ``dim``.
    #[pyo3(signature = (dim, /))]
    fn in_dim_size(&self, dim: &Bound<'_, PyAny>) -> PyResult<u64> {
        let d = args::any_name(dim, "dim")?;
        guard(|| self.inner.in_dim_size(d))
    }

    /// The size of out-dim ``dim``.
    #[pyo3(signature = (dim, /))]
    fn out_dim_size(&self, dim: &Bound<'_, PyAny>) -> PyResult<u64> {
        let d = args::any_name(dim, "dim")?;
        guard(|| self.inner.out_dim_size(d))
    }

    /// ``log2`` of in-dim ``dim``'s size: its number of bases.
    #[pyo3(signature = (dim, /))]
    fn in_dim_size_log2(&self, dim: &Bound<'_, PyAny>) -> PyResult<u32> {
        let d = args::any_name(dim, "dim")?;
        guard(|| self.inner.in_dim_size_log2(d))
    }

    /// ``log2`` of out-dim ``dim``'s size.
    #[pyo3(signature = (dim, /))]
    fn out_dim_size_log2(&self, dim: &Bound<'_, PyAny>) -> PyResult<u32> {
        let d = args::any_name(dim, "dim")?;
        guard(|| self.inner.out_dim_size_log2(d))
    }

    /// Whether ``dim`` is an in-dim.
    #[pyo3(signature = (dim, /))]
    fn has_in_dim(&self, dim: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(args::known_name(dim, "dim")?.is_some_and(|d| self.inner.has_in_dim(d)))
    }

    /// Whether ``dim`` is an out-dim.
    #[pyo3(signature = (dim, /))]
    fn has_out_dim(&self, dim: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(args::known_name(dim, "dim")?.is_some_and(|d| self.inner.has_out_dim(d)))
    }

    /// Basis ``index`` of in-dim ``in_dim``: one component per out-dim.
    #[pyo3(signature = (in_dim, index))]
    fn basis(&self, in_dim: &Bound<'_, PyAny>, index: usize) -> PyResult<Vec<u64>> {
        let d = args::any_name(in_dim, "in_dim")?;
        Ok(guard(|| self.inner.basis(d, index))?.to_vec())
    }

    /// The rank of the basis matrix: the number of independent bases.
    #[getter]
    fn rank(&self) -> u32 {
        self.inner.rank()
    }

    /// The total number of input bits (``log2`` of ``total_in_dim_size``).
    #[getter]
    fn total_in_bits(&self) -> u32 {
        self.inner.total_in_bits()
    }

    /// The total number of output bits (``log2`` of ``total_out_dim_size``).
    #[getter]
    fn total_out_bits(&self) -> u32 {
        self.inner.total_out_bits()
    }

    /// The product of the in-dim sizes.
    #[getter]
    fn total_in_dim_size(&self) -> u128 {
        self.inner.total_in_dim_size()
    }

    /// The product of the out-dim sizes.
    #[getter]
    fn total_out_dim_size(&self) -> u128 {
        self.inner.total_out_dim_size()
    }

    /// The layout on a flat input: bit ``j`` of ``x`` is input bit ``j``,
    /// in-dims in order (the first lowest); the result packs the out-dims
    /// the same way. ``x`` must be below ``total_in_dim_size``.
    #[pyo3(signature = (x, /))]
    fn apply_flat(&self, x: &Bound<'_, PyAny>) -> PyResult<u64> {
        let bits = self.inner.total_in_bits();
        let text = match args::int(x, "x")? {
            Int::Fits(v) if bits >= 64 || v >> bits == 0 => return Ok(self.inner.apply_flat(v)),
            Int::Fits(v) => v.to_string(),
            Int::Outside { text, .. } => text,
        };
        Err(layout_error(
            "input_out_of_range",
            format!("apply_flat: the input is {text}, outside the layout's 2^{bits} inputs"),
        ))
    }

    /// Whether every basis of in-dims ``ins`` is zero on out-dims ``outs``
    /// (``sublayoutIsZero``).
    #[pyo3(signature = (ins, outs))]
    fn sublayout_is_zero(&self, ins: &Bound<'_, PyAny>, outs: &Bound<'_, PyAny>) -> PyResult<bool> {
        let ins = args::names(ins, "ins")?;
        let outs = args::names(outs, "outs")?;
        guard(|| self.inner.sublayout_is_zero(&ins, &outs))
    }

    /// Whether the square sub-layout on ``dims`` (in-dims and out-dims of
    /// those names) is the identity (``squareSublayoutIsIdentity``).
    #[pyo3(signature = (dims, /))]
    fn square_sublayout_is_identity(&self, dims: &Bound<'_, PyAny>) -> PyResult<bool> {
        let dims = args::names(dims, "dims")?;
        guard(|| self.inner.square_sublayout_is_identity(&dims))
    }

    /// Whether the layout only passes ``dims`` through: identity on them,
    /// and no other dim mixes with them (``isTrivialOver``). Each must be
    /// both an in-dim and an out-dim.
    #[pyo3(signature = (dims, /))]
    fn is_trivial_over(&self, dims: &Bound<'_, PyAny>) -> PyResult<bool> {
        let dims = args::names(dims, "dims")?;
        guard(|| self.inner.is_trivial_over(&dims))
    }

    /// For each in-dim, the mask of its bits whose basis lies in the span of
    /// the bases before it (``getFreeVariableMasks``).
    fn free_variable_masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (d, mask) in self.inner.free_variable_masks() {
            dict.set_item(Dim::name(d), mask)?;
        }
        Ok(dict)
    }

    /// The largest ``V`` such that ``V`` consecutive values of the first
    /// in-dim land on ``V`` consecutive values of the first out-dim
    /// (``getNumConsecutiveInOut``).
    fn num_consecutive_in_out(&self) -> u64 {
        self.inner.num_consecutive_in_out()
    }

    /// Equality ignoring the out-dim sizes (names and order still count).
    #[pyo3(signature = (other, /))]
    fn equal_ignoring_out_dim_sizes(&self, other: PyRef<'_, Self>) -> bool {
        self.inner.equal_ignoring_out_dim_sizes(&other.inner)
    }
}
