//! The package's exceptions, and the one way every crate error becomes one.
//!
//! Where Triton aborts the process on a failed assertion, the crate returns a
//! `linear_layout::LayoutError`; here it becomes the Python exception
//! `LayoutError` (a `ValueError`), with the crate's message as its text and
//! the crate's `LayoutError::kind()` as its `.kind` attribute. A panic inside
//! the crate (a bug) becomes a `RuntimeError`, never a dead interpreter.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

create_exception!(
    linear_layout,
    LayoutError,
    PyValueError,
    "An operation that Triton would refuse by aborting the process.\n\n\
     `str(err)` is the reason, naming the operation, dims and sizes involved;\n\
     `err.kind` is a short machine-readable name for it, such as\n\
     ``\"not_surjective\"``, ``\"unknown_dim\"`` or ``\"compose_size\"`` (the Rust\n\
     crate's `LayoutError::kind()`, or `ConvertError::kind()` for\n\
     `to_linear_layout`). Where a modelled release itself fails\n\
     (``kind == \"triton_failure\"``), `err.site` is the failing site's id and\n\
     `err.triton_message` what Triton prints there. A subclass of `ValueError`."
);

create_exception!(
    linear_layout,
    NoLayoutError,
    LayoutError,
    "The chosen Triton release has no linear layout for this attribute.\n\n\
     Raised by `to_linear_layout` when the release builds the attribute's\n\
     layout with legacy code instead (Triton 3.1 converts only blocked and\n\
     NVIDIA MMA layouts and their slices): not an error in the attribute.\n\
     `err.kind` is ``\"no_layout\"``, `err.release` the release asked for."
);

/// `LayoutError(message)` with `.kind = kind`.
pub(crate) fn layout_error(kind: &str, message: impl Into<String>) -> PyErr {
    with_attrs(LayoutError::new_err(message.into()), &[("kind", kind)])
}

/// The Python form of a crate error.
pub(crate) fn from_crate(e: linear_layout::LayoutError) -> PyErr {
    layout_error(e.kind(), e.to_string())
}

/// The Python form of a conversion error: the algebra's errors as
/// [`from_crate`]; a release's failure at a site also carries the site's id
/// (`.site`) and Triton's own message (`.triton_message`).
pub(crate) fn from_convert(e: linear_layout_triton::ConvertError) -> PyErr {
    if let linear_layout_triton::ConvertError::Layout(inner) = e {
        return from_crate(inner);
    }
    let err = layout_error(e.kind(), e.to_string());
    match e.failure() {
        Some(f) => with_attrs(
            err,
            &[("site", f.site.id), ("triton_message", &f.triton_message)],
        ),
        None => err,
    }
}

/// `NoLayoutError` for a release without a layout for the attribute; the
/// crate's reason names the release and the attribute.
pub(crate) fn no_layout(release: &str, reason: &str) -> PyErr {
    with_attrs(
        NoLayoutError::new_err(reason.to_string()),
        &[("kind", "no_layout"), ("release", release)],
    )
}

/// Sets string attributes on the exception instance.
fn with_attrs(err: PyErr, attrs: &[(&str, &str)]) -> PyErr {
    Python::attach(|py| {
        let value = err.value(py);
        for (name, text) in attrs {
            if let Err(e) = value.setattr(*name, *text) {
                return e;
            }
        }
        err
    })
}

/// Runs a crate call, turning its error into `LayoutError` and a panic into
/// `RuntimeError`.
#[inline]
pub(crate) fn guard<T>(f: impl FnOnce() -> linear_layout::Result<T>) -> PyResult<T> {
    guard_with(f, from_crate)
}

/// [`guard`] for a call with another error type, converted by `convert`.
#[inline]
pub(crate) fn guard_with<T, E>(
    f: impl FnOnce() -> Result<T, E>,
    convert: impl FnOnce(E) -> PyErr,
) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(convert(e)),
        Err(panic) => Err(internal(panic)),
    }
}

/// [`guard`] for a call that cannot fail other than by panicking.
#[inline]
pub(crate) fn guard_infallible<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(internal)
}

fn internal(panic: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    PyRuntimeError::new_err(format!(
        "linear_layout internal error (a bug in the crate, please report it): {what}"
    ))
}
