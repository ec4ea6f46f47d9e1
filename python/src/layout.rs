//! `LinearLayout`: the class, and the part of it that mirrors Triton 3.9.0's
//! binding `triton._C.libtriton.linear_layout.LinearLayout` (same names,
//! argument names, defaults and return types). The crate's further
//! operations are in `ops.rs`, queries in `queries.rs`, text and data
//! formats in `formats.rs` and the printed views in `views.rs`.

use crate::args;
use crate::errors::{guard, guard_infallible};
use crate::inputs;
use linear_layout::{Dim, LinearLayout};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A linear layout: a linear map over GF(2) from named input dims (hardware
/// index bits such as ``register``, ``lane``, ``warp``, ``block``, ``offset``)
/// to named output dims (tensor coordinates ``dim0``, ``dim1``, ...).
///
/// In-dim ``d`` has bases ``b_0, b_1, ...``: ``b_i`` is where the input
/// ``d = 2**i`` (every other in-dim 0) lands, one component per out-dim; any
/// other input lands on the XOR of the bases of its set bits.
///
/// The API mirrors Triton 3.9.0's ``triton._C.libtriton.linear_layout.LinearLayout``
/// (``from_bases``, ``identity_1d``, ``compose``, ``invert_and_compose``,
/// ``apply``, ``*``, ...) and gives exactly its answers; where Triton would
/// abort the process, a ``LayoutError`` is raised instead. The crate's other
/// operations (``reshape_outs``, ``divide_left``, ``sublayout``, ...) are
/// here too, in snake_case.
///
/// Layouts are immutable values: ``==`` compares them as Triton does, they
/// are hashable and can be pickled.
///
/// >>> from linear_layout import LinearLayout
/// >>> lanes = LinearLayout.identity_1d(4, "lane", "dim1")
/// >>> regs = LinearLayout.identity_1d(2, "register", "dim0")
/// >>> (lanes * regs).apply({"lane": 3, "register": 1})
/// {'dim1': 3, 'dim0': 1}
#[pyclass(frozen, eq, hash, module = "linear_layout", name = "LinearLayout")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyLayout {
    pub(crate) inner: LinearLayout,
}

impl From<LinearLayout> for PyLayout {
    #[inline]
    fn from(inner: LinearLayout) -> Self {
        PyLayout { inner }
    }
}

/// Runs a crate operation that builds a layout.
#[inline]
pub(crate) fn build(f: impl FnOnce() -> linear_layout::Result<LinearLayout>) -> PyResult<PyLayout> {
    guard(f).map(PyLayout::from)
}

#[pymethods]
impl PyLayout {
    /// The empty layout: no in-dims, no out-dims (the identity of ``*``).
    #[new]
    fn new() -> Self {
        LinearLayout::empty().into()
    }

    /// ``x -> x`` from ``inDim`` onto ``outDim``, on ``size`` elements (a power
    /// of two; 0 gives the empty layout).
    ///
    /// >>> LinearLayout.identity_1d(4, "lane", "dim0").bases
    /// [('lane', [[1], [2]])]
    #[staticmethod]
    #[allow(non_snake_case)]
    #[pyo3(signature = (size, inDim, outDim))]
    fn identity_1d(
        size: &Bound<'_, PyAny>,
        inDim: &Bound<'_, PyAny>,
        outDim: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let size = args::size("identity_1d", "size", size)?;
        let (i, o) = (
            args::any_name(inDim, "inDim")?,
            args::any_name(outDim, "outDim")?,
        );
        build(|| LinearLayout::identity_1d(size, i, o))
    }

    /// ``x -> stride * x`` from ``inDim`` onto ``outDim``, on ``size``
    /// elements; the out-dim has size ``size * stride``. Surjective only for
    /// ``stride == 1``.
    ///
    /// >>> LinearLayout.strided_1d(4, 2, "register", "dim0").out_dims
    /// [('dim0', 8)]
    #[staticmethod]
    #[allow(non_snake_case)]
    #[pyo3(signature = (size, stride, inDim, outDim))]
    fn strided_1d(
        size: &Bound<'_, PyAny>,
        stride: &Bound<'_, PyAny>,
        inDim: &Bound<'_, PyAny>,
        outDim: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let size = args::size("strided_1d", "size", size)?;
        let stride = args::size("strided_1d", "stride", stride)?;
        let (i, o) = (
            args::any_name(inDim, "inDim")?,
            args::any_name(outDim, "outDim")?,
        );
        build(|| LinearLayout::strided_1d(size, stride, i, o))
    }

    /// ``x -> 0`` from ``inDim`` onto ``outDim``, on ``size`` elements, with
    /// out-dim size ``outDimSize``: every element broadcast to one place.
    ///
    /// >>> LinearLayout.zeros_1d(2, "warp", "dim0").bases
    /// [('warp', [[0]])]
    #[staticmethod]
    #[allow(non_snake_case)]
    #[pyo3(
        signature = (size, inDim, outDim, outDimSize = None),
        text_signature = "(size, inDim, outDim, outDimSize=1)"
    )]
    fn zeros_1d(
        size: &Bound<'_, PyAny>,
        inDim: &Bound<'_, PyAny>,
        outDim: &Bound<'_, PyAny>,
        outDimSize: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let size = args::size("zeros_1d", "size", size)?;
        let out_size = match outDimSize {
            Some(s) => args::size("zeros_1d", "out-dim size", s)?,
            None => 1,
        };
        let (i, o) = (
            args::any_name(inDim, "inDim")?,
            args::any_name(outDim, "outDim")?,
        );
        build(|| LinearLayout::zeros_1d(size, i, o, out_size))
    }

    /// A layout from its bases: ``bases`` lists each in-dim, in order, with
    /// its basis vectors (one component per out-dim, in the order of
    /// ``out_dim_names``).
    ///
    /// Without ``out_dim_sizes``, each out-dim's size is the smallest power
    /// of two above its largest component, and the layout must be surjective
    /// (``require_surjective=False`` then needs explicit sizes, as in Triton).
    ///
    /// >>> l = LinearLayout.from_bases([("lane", [[1, 0], [0, 1]])], ["dim0", "dim1"])
    /// >>> l.out_dims
    /// [('dim0', 2), ('dim1', 2)]
    #[staticmethod]
    #[pyo3(signature = (bases, out_dim_names, out_dim_sizes = None, require_surjective = true))]
    fn from_bases(
        bases: &Bound<'_, PyAny>,
        out_dim_names: &Bound<'_, PyAny>,
        out_dim_sizes: Option<&Bound<'_, PyAny>>,
        require_surjective: bool,
    ) -> PyResult<Self> {
        let names = args::names(out_dim_names, "out_dim_names")?;
        let bases = inputs::bases(bases, &names)?;
        // input: bounded in its dims, as every reader of layouts bounds them
        guard(|| LinearLayout::check_dim_counts("from_bases", bases.len(), names.len()))?;
        match out_dim_sizes {
            None if !require_surjective => Err(PyValueError::new_err(
                "out_dim_sizes must be provided when require_surjective is false",
            )),
            None => build(|| LinearLayout::from_bases(&bases, &names)),
            Some(sizes) => {
                let sizes = inputs::out_dim_sizes(sizes, &names)?;
                build(|| LinearLayout::from_bases_with_sizes(&bases, &sizes, require_surjective))
            }
        }
    }

    /// ``self`` followed by ``outer``: the layout ``x -> outer(self(x))``.
    /// ``self``'s out-dims must be ``outer``'s in-dims (as a set), each no
    /// larger.
    #[pyo3(signature = (outer, /))]
    fn compose(&self, outer: PyRef<'_, Self>) -> PyResult<Self> {
        build(|| self.inner.compose(&outer.inner))
    }

    /// The layout ``C`` with ``outer(C(x)) == self(x)``: ``outer`` inverted
    /// (or pseudo-inverted) and composed after ``self``. The usual way to
    /// convert between two layouts of the same tensor.
    #[pyo3(signature = (outer, /))]
    fn invert_and_compose(&self, outer: PyRef<'_, Self>) -> PyResult<Self> {
        build(|| self.inner.invert_and_compose(&outer.inner))
    }

    /// The inverse layout (out-dims become in-dims); the layout must be
    /// invertible.
    fn invert(&self) -> PyResult<Self> {
        build(|| self.inner.invert())
    }

    /// A right inverse ``P`` with ``self(P(y)) == y``, choosing Triton's
    /// answer when there are many; the layout must be surjective.
    fn pseudoinvert(&self) -> PyResult<Self> {
        build(|| self.inner.pseudoinvert())
    }

    /// Whether every output is reached (the bases span all output bits).
    fn is_surjective(&self) -> bool {
        self.inner.is_surjective()
    }

    /// Whether distinct inputs reach distinct outputs (independent bases).
    fn is_injective(&self) -> bool {
        self.inner.is_injective()
    }

    /// Whether the layout is a bijection.
    fn is_invertible(&self) -> bool {
        self.inner.is_invertible()
    }

    /// The in-dim names, in order.
    fn get_in_dim_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.inner.in_dim_names().map(Dim::name))
    }

    /// The out-dim names, in order.
    fn get_out_dim_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.inner.out_dim_names().map(Dim::name))
    }

    /// Every in-dim, in order, with its bases: ``[(name, [[c0, c1, ...],
    /// ...]), ...]``, one component per out-dim.
    #[getter]
    fn bases<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self
            .inner
            .bases()
            .into_iter()
            .map(|(d, vectors)| (d.name(), vectors))
            .collect::<Vec<_>>();
        PyList::new(py, items)
    }

    /// The out-dims with their sizes, in order: ``[(name, size), ...]``.
    #[getter]
    fn out_dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.inner.out_dims().map(|(d, s)| (d.name(), s)))
    }

    /// The number of in-dims.
    #[getter]
    fn num_in_dims(&self) -> usize {
        self.inner.num_in_dims()
    }

    /// The number of out-dims.
    #[getter]
    fn num_out_dims(&self) -> usize {
        self.inner.num_out_dims()
    }

    /// The product ``self * other``: in-dims and out-dims of both, ``other``'s
    /// bases placed above ``self``'s on shared dims (Triton's ``operator*``).
    ///
    /// ``a *= b`` rebinds ``a`` to ``a * b``: layouts are immutable values,
    /// so other references keep the old layout (Triton's binding changes
    /// the object in place).
    fn __mul__(&self, other: PyRef<'_, Self>) -> PyResult<Self> {
        build(|| self.inner.product(&other.inner))
    }

    /// Triton's text form (``LinearLayout::toString``), as ``str()`` gives.
    fn __repr__(&self) -> PyResult<String> {
        guard_infallible(|| self.inner.to_string())
    }

    /// Triton's text form (``LinearLayout::toString``): one line per basis,
    /// then the out-dims. ``LinearLayout.parse`` reads it back.
    fn __str__(&self) -> PyResult<String> {
        guard_infallible(|| self.inner.to_string())
    }

    /// Where the input lands: ``inputs`` gives a value for every in-dim (in
    /// any order); the result maps each out-dim, in order, to its value.
    ///
    /// A value at or above its in-dim's size is a ``LayoutError``
    /// (``input_out_of_range``); Triton silently drops the extra bits.
    #[pyo3(signature = (inputs))]
    fn apply<'py>(
        &self,
        py: Python<'py>,
        inputs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let input = inputs::apply_inputs(&self.inner, inputs)?;
        let out = guard(|| self.inner.apply(&input))?;
        let dict = PyDict::new(py);
        for (d, v) in out {
            dict.set_item(d.name(), v)?;
        }
        Ok(dict)
    }
}
