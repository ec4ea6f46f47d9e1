//! Reading Python arguments: dim names, lists of names, integers, and
//! `(name, int)` pairs given as a mapping or a sequence of pairs.
//!
//! A value of the wrong type is a `TypeError`. An integer that the crate
//! cannot hold (negative, or past `u64`) is an input Triton would abort on
//! (its sizes and components are checked powers of two and non-negative), so
//! it is a `LayoutError` of the kind the crate gives for an out-of-range
//! value of that role.

use crate::errors::layout_error;
use linear_layout::Dim;
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString, PyTuple};

/// The largest size the crate takes (sizes are powers of two below 2^64).
pub(crate) const MAX_SIZE: u64 = 1 << 63;

/// A dim name: a `str`, else a `TypeError` naming `what`.
#[inline]
pub(crate) fn any_name(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Dim> {
    match obj.cast::<PyString>() {
        Ok(s) => crate::names::dim_of(s),
        Err(_) => Err(type_error(what, "a dim name (str)", obj)),
    }
}

/// A dim name asked about, not stored: `None` when no layout can hold it
/// (the name was never interned). A non-`str` is a `TypeError`.
pub(crate) fn known_name(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Dim>> {
    match obj.cast::<PyString>() {
        Ok(s) => crate::names::known_dim(s),
        Err(_) => Err(type_error(what, "a dim name (str)", obj)),
    }
}

/// A sequence of dim names. A bare `str` is refused: it is a sequence of
/// one-letter names, which is never what was meant.
pub(crate) fn names(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Dim>> {
    let mut out = Vec::new();
    each(obj, what, "a sequence of dim names (str)", |item| {
        out.push(any_name(item, what)?);
        Ok(())
    })?;
    Ok(out)
}

/// Calls `f` on each item of a sequence (any iterable but `str`; else a
/// `TypeError` naming `what` and `expected`). Lists and tuples are read in
/// place: collecting them costs allocations, and asking a generic iterator
/// for its length goes through Python's `operator.length_hint`, which costs
/// more than the rest of a typical call.
pub(crate) fn each<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    expected: &str,
    mut f: impl FnMut(&Bound<'py, PyAny>) -> PyResult<()>,
) -> PyResult<()> {
    if let Ok(list) = obj.cast::<PyList>() {
        // Index by index, reading the length each time: Python code run by
        // `f` (an `__index__`, say) may change the list.
        let mut i = 0;
        while i < list.len() {
            f(&list.get_item(i)?)?;
            i += 1;
        }
        return Ok(());
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        for item in tuple.iter() {
            f(&item)?;
        }
        return Ok(());
    }
    if obj.is_instance_of::<PyString>() {
        return Err(type_error(what, expected, obj));
    }
    let iter = obj
        .try_iter()
        .map_err(|_| type_error(what, expected, obj))?;
    for item in iter {
        f(&item?)?;
    }
    Ok(())
}

/// The items of a sequence, as [`each`] reads them.
pub(crate) fn items<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    expected: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut out = Vec::new();
    each(obj, what, expected, |item| {
        out.push(item.clone());
        Ok(())
    })?;
    Ok(out)
}

/// An integer argument: in `u64` range, or the text of one that is not.
pub(crate) enum Int {
    /// A value the crate can take.
    Fits(u64),
    /// A negative integer, or one of 2^64 or more, as Python prints it.
    Outside { text: String, negative: bool },
}

/// Reads a Python `int` (or any object with `__index__`; `bool` counts, as
/// in Triton's binding). Anything else is a `TypeError` naming `what`.
pub(crate) fn int(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Int> {
    match obj.extract::<u64>() {
        Ok(v) => Ok(Int::Fits(v)),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
            let negative = obj.lt(0u8)?;
            Ok(Int::Outside {
                text: obj.str()?.to_cow()?.into_owned(),
                negative,
            })
        }
        Err(_) => Err(type_error(what, "an int", obj)),
    }
}

/// A size (a power of two, checked by the crate). Out of `u64` range it is
/// the error the crate gives for a bad size: `not_power_of_two` when
/// negative, `too_large` when past 2^63.
pub(crate) fn size(op: &str, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    match int(obj, what)? {
        Int::Fits(v) => Ok(v),
        Int::Outside { text, negative } => Err(bad_size(op, what, &text, negative)),
    }
}

/// The error for a size outside `u64`.
pub(crate) fn bad_size(op: &str, what: &str, text: &str, negative: bool) -> PyErr {
    if negative {
        layout_error(
            "not_power_of_two",
            format!("{op}: {what} is {text}, which is not a power of two"),
        )
    } else {
        layout_error(
            "too_large",
            format!("{op}: {what} is {text}, larger than {MAX_SIZE}"),
        )
    }
}

/// `(name, int)` pairs from a mapping (in its iteration order) or from a
/// sequence of 2-item sequences.
pub(crate) fn named_ints(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<(Dim, Int)>> {
    let expected = "a mapping of dim names to ints, or a sequence of (name, int) pairs";
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut out = Vec::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            out.push((any_name(&k, what)?, int(&v, what)?));
        }
        return Ok(out);
    }
    if !obj.is_instance_of::<PyList>() && !obj.is_instance_of::<PyTuple>() {
        if let Ok(map) = obj.cast::<PyMapping>() {
            let mut out = Vec::new();
            for item in map.items()?.iter() {
                let pair = item.cast::<PyTuple>()?;
                out.push((
                    any_name(&pair.get_item(0)?, what)?,
                    int(&pair.get_item(1)?, what)?,
                ));
            }
            return Ok(out);
        }
    }
    let mut out = Vec::new();
    each(obj, what, expected, |item| {
        let pair = items(item, what, "(name, int) pairs")?;
        let [d, v] = pair.as_slice() else {
            return Err(type_error(what, "(name, int) pairs", item));
        };
        out.push((any_name(d, what)?, int(v, what)?));
        Ok(())
    })?;
    Ok(out)
}

/// `(name, size)` pairs, each size read as [`size`] reads one.
pub(crate) fn named_sizes(
    op: &str,
    obj: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<Vec<(Dim, u64)>> {
    named_ints(obj, what)?
        .into_iter()
        .map(|(d, v)| match v {
            Int::Fits(v) => Ok((d, v)),
            Int::Outside { text, negative } => Err(bad_size(
                op,
                &format!("the size of dim {d}"),
                &text,
                negative,
            )),
        })
        .collect()
}

/// `TypeError: {what} must be {expected}, not {type}`.
pub(crate) fn type_error(what: &str, expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
    let type_name = got
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!("{what} must be {expected}, not {type_name}"))
}
