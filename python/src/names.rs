//! Dim names from Python strings, cached.
//!
//! Turning a `str` into a `Dim` costs a UTF-8 copy (the stable ABI before
//! Python 3.10 has no borrowed UTF-8 view) and a lookup in the crate's
//! interner: about 200 ns, more than most operations. The names of a
//! program are few and mostly interned literals, so a dict from `str` to
//! `Dim` answers almost every lookup in one hash probe on the string's cached
//! hash. The cache stops growing at [`CAPACITY`] names, so that a stream of
//! fresh names (each interned by the crate for good, as Triton does) cannot
//! also grow it without bound.

use linear_layout::Dim;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString};

/// The most names the cache holds.
const CAPACITY: usize = 4096;

/// A `Dim` as a Python object, for the cache's values.
#[pyclass(frozen, module = "linear_layout._native")]
struct CachedDim(Dim);

static CACHE: PyOnceLock<Py<PyDict>> = PyOnceLock::new();

/// The `Dim` named by `s`.
#[inline]
pub(crate) fn dim_of(s: &Bound<'_, PyString>) -> PyResult<Dim> {
    let py = s.py();
    let cache = CACHE.get_or_init(py, || PyDict::new(py).unbind()).bind(py);
    if let Some(hit) = cache.get_item(s)? {
        if let Ok(cached) = hit.cast::<CachedDim>() {
            return Ok(cached.get().0);
        }
    }
    // A name from Python is input: interned within the process's bound
    // (`Dim::try_new`), so a stream of fresh names ends in `LayoutError`
    // (`too_many_names`) instead of growing the table without end.
    let d = Dim::try_new(&s.to_cow()?).map_err(crate::errors::from_crate)?;
    // Exact `str` keys only: a subclass could hash or compare differently.
    if cache.len() < CAPACITY && s.is_exact_instance_of::<PyString>() {
        cache.set_item(s, CachedDim(d))?;
    }
    Ok(d)
}

/// The `Dim` named by `s` if some layout could hold it (it is interned),
/// without interning it: a query about a fresh name costs nothing and
/// never meets the interner's bound.
pub(crate) fn known_dim(s: &Bound<'_, PyString>) -> PyResult<Option<Dim>> {
    let py = s.py();
    let cache = CACHE.get_or_init(py, || PyDict::new(py).unbind()).bind(py);
    if let Some(hit) = cache.get_item(s)? {
        if let Ok(cached) = hit.cast::<CachedDim>() {
            return Ok(Some(cached.get().0));
        }
    }
    Ok(Dim::lookup(&s.to_cow()?))
}
