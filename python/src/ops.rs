//! The crate's operations beyond Triton's binding that build new layouts:
//! products, reshapes, transposes, restrictions, concatenation, division.
//! Each mirrors a `LinearLayout` method of Triton's C++ (named in its
//! docstring) and raises `LayoutError` where Triton asserts.

use crate::args;
use crate::errors::guard;
use crate::layout::{PyLayout, build};
use pyo3::prelude::*;

#[pymethods]
impl PyLayout {
    /// The empty layout (no in-dims, no out-dims); the same as ``LinearLayout()``.
    #[staticmethod]
    fn empty() -> Self {
        linear_layout::LinearLayout::empty().into()
    }

    /// ``self * other`` (Triton's ``operator*``): in-dims and out-dims of
    /// both; on a dim both have, ``other``'s bases and sizes go above
    /// ``self``'s. Dims both have must come in the same relative order.
    ///
    /// >>> a = LinearLayout.identity_1d(2, "register", "dim0")
    /// >>> a.product(LinearLayout.identity_1d(4, "lane", "dim0")).out_dims
    /// [('dim0', 8)]
    #[pyo3(signature = (other, /))]
    fn product(&self, other: PyRef<'_, Self>) -> PyResult<Self> {
        build(|| self.inner.product(&other.inner))
    }

    /// The same map with the in-dims regrouped as ``dims`` (``(name, size)``
    /// pairs or a mapping), flattening the bits in order
    /// (``reshapeIns``). The total size must not change.
    #[pyo3(signature = (dims, /))]
    fn reshape_ins(&self, dims: &Bound<'_, PyAny>) -> PyResult<Self> {
        let dims = args::named_sizes("reshape_ins", dims, "dims")?;
        build(|| self.inner.reshape_ins(&dims))
    }

    /// The same map with the out-dims regrouped as ``dims`` (``(name, size)``
    /// pairs or a mapping), flattening the bits in order (``reshapeOuts``).
    /// The total size must not change.
    ///
    /// >>> l = LinearLayout.identity_1d(8, "lane", "dim0")
    /// >>> l.reshape_outs([("dim0", 2), ("dim1", 4)]).out_dims
    /// [('dim0', 2), ('dim1', 4)]
    #[pyo3(signature = (dims, /))]
    fn reshape_outs(&self, dims: &Bound<'_, PyAny>) -> PyResult<Self> {
        let dims = args::named_sizes("reshape_outs", dims, "dims")?;
        build(|| self.inner.reshape_outs(&dims))
    }

    /// All in-dims merged into the first one (``flattenIns``).
    fn flatten_ins(&self) -> PyResult<Self> {
        build(|| self.inner.flatten_ins())
    }

    /// All out-dims merged into the first one (``flattenOuts``).
    fn flatten_outs(&self) -> PyResult<Self> {
        build(|| self.inner.flatten_outs())
    }

    /// The in-dims reordered as ``order`` (a permutation of their names;
    /// ``transposeIns``).
    #[pyo3(signature = (order, /))]
    fn transpose_ins(&self, order: &Bound<'_, PyAny>) -> PyResult<Self> {
        let order = args::names(order, "order")?;
        build(|| self.inner.transpose_ins(&order))
    }

    /// The out-dims reordered as ``order`` (a permutation of their names;
    /// ``transposeOuts``).
    #[pyo3(signature = (order, /))]
    fn transpose_outs(&self, order: &Bound<'_, PyAny>) -> PyResult<Self> {
        let order = args::names(order, "order")?;
        build(|| self.inner.transpose_outs(&order))
    }

    /// The restriction to in-dims ``ins`` and out-dims ``outs`` (each a
    /// subset of the layout's, kept in the layout's order; ``sublayout``).
    /// The result need not be surjective.
    #[pyo3(signature = (ins, outs))]
    fn sublayout(&self, ins: &Bound<'_, PyAny>, outs: &Bound<'_, PyAny>) -> PyResult<Self> {
        let ins = args::names(ins, "ins")?;
        let outs = args::names(outs, "outs")?;
        build(|| self.inner.sublayout(&ins, &outs))
    }

    /// ``self``'s in-dims followed by ``other``'s, over identical out-dims
    /// (``concatIns``).
    #[pyo3(signature = (other, /))]
    fn concat_ins(&self, other: PyRef<'_, Self>) -> PyResult<Self> {
        build(|| self.inner.concat_ins(&other.inner))
    }

    /// ``self``'s out-dims followed by ``other``'s, over identical in-dims
    /// (``concatOuts``).
    #[pyo3(signature = (other, /))]
    fn concat_outs(&self, other: PyRef<'_, Self>) -> PyResult<Self> {
        build(|| self.inner.concat_outs(&other.inner))
    }

    /// ``C`` with ``self == divisor * C``, or ``None`` when ``divisor`` is not
    /// a left factor of the shape Triton looks for (``divideLeft``).
    ///
    /// >>> a = LinearLayout.identity_1d(2, "register", "dim0")
    /// >>> b = LinearLayout.identity_1d(4, "register", "dim0")
    /// >>> (a * b).divide_left(a) == b
    /// True
    #[pyo3(signature = (divisor, /))]
    fn divide_left(&self, divisor: PyRef<'_, Self>) -> PyResult<Option<Self>> {
        Ok(guard(|| self.inner.divide_left(&divisor.inner))?.map(Self::from))
    }

    /// ``C`` with ``self == C * divisor``, or ``None`` when ``divisor`` is not
    /// a right factor (``divideRight``).
    #[pyo3(signature = (divisor, /))]
    fn divide_right(&self, divisor: PyRef<'_, Self>) -> PyResult<Option<Self>> {
        Ok(guard(|| self.inner.divide_right(&divisor.inner))?.map(Self::from))
    }

    /// The layout with ``dims`` peeled off, when it is trivial over them
    /// (see ``is_trivial_over``); ``None`` otherwise (``quotient``).
    #[pyo3(signature = (dims, /))]
    fn quotient(&self, dims: &Bound<'_, PyAny>) -> PyResult<Option<Self>> {
        let dims = args::names(dims, "dims")?;
        Ok(guard(|| self.inner.quotient(&dims))?.map(Self::from))
    }

    /// In-dim ``dim`` without its all-zero bases (broadcast bits); out sizes
    /// are kept, and a layout without ``dim`` comes back unchanged
    /// (``removeZeroBasesAlongDim``).
    #[pyo3(signature = (dim, /))]
    fn remove_zero_bases_along_dim(&self, dim: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = args::any_name(dim, "dim")?;
        build(|| self.inner.remove_zero_bases_along_dim(d))
    }

    /// The layout without in-dim ``dim``, which must have size 1.
    #[pyo3(signature = (dim, /))]
    fn squeeze_ins(&self, dim: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = args::any_name(dim, "dim")?;
        build(|| self.inner.squeeze_ins(d))
    }

    /// The layout without out-dim ``dim``, which must have size 1.
    #[pyo3(signature = (dim, /))]
    fn squeeze_outs(&self, dim: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = args::any_name(dim, "dim")?;
        build(|| self.inner.squeeze_outs(d))
    }

    /// In-dim ``dim`` shrunk to ``size`` (a power of two, at most its current
    /// size): its first ``log2(size)`` bases are kept (``resizeInDim``).
    #[pyo3(signature = (dim, size))]
    fn resize_in_dim(&self, dim: &Bound<'_, PyAny>, size: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = args::any_name(dim, "dim")?;
        let size = args::size("resize_in_dim", "size", size)?;
        build(|| self.inner.resize_in_dim(d, size))
    }

    /// Out-dim ``dim`` shrunk to ``size`` (a power of two, at most its current
    /// size): every component that no longer fits becomes 0
    /// (``resizeOutDim``).
    #[pyo3(signature = (dim, size))]
    fn resize_out_dim(&self, dim: &Bound<'_, PyAny>, size: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = args::any_name(dim, "dim")?;
        let size = args::size("resize_out_dim", "size", size)?;
        build(|| self.inner.resize_out_dim(d, size))
    }

    /// In-dim ``old`` renamed ``new`` (``renameInDim``).
    #[pyo3(signature = (old, new))]
    fn rename_in_dim(&self, old: &Bound<'_, PyAny>, new: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (o, n) = (args::any_name(old, "old")?, args::any_name(new, "new")?);
        build(|| self.inner.rename_in_dim(o, n))
    }
}
