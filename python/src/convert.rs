//! `to_linear_layout`: a TTGIR layout attribute and a tensor shape to the
//! linear layout a given Triton release builds for them.

use crate::args::{self, Int};
use crate::errors::{from_convert, guard, guard_with, layout_error, no_layout};
use crate::layout::PyLayout;
use crate::nesting::check_nesting;
use linear_layout_triton::{Conversion, Defs};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The linear layout Triton ``release`` builds for the layout attribute
/// ``attr`` on a tensor of ``shape`` (Triton's ``toLinearLayout``; Gluon's
/// ``to_linear_layout`` in 3.9).
///
/// ``attr`` is TTGIR text such as ``'#ttg.blocked<{sizePerThread = [1, 8],
/// threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>'`` (both
/// the ``#ttg.`` and the older ``#triton_gpu.`` spellings), or an alias
/// ``'#mma'`` defined in ``defs``, TTGIR text holding ``#name = ...`` lines
/// (a whole ``.ttgir`` dump will do). ``release`` is the ``name`` of a row
/// of :func:`releases` (``"3.2"``), a version it stands for (``"3.3.1"``),
/// or ``"newest"``. ``elem_bits`` is the element width in bits, which Triton 3.2's
/// shared layouts with a leading offset need.
///
/// Raises ``LayoutError`` where the release refuses the attribute or the
/// shape (its verifier fails, or the conversion would abort), and
/// ``NoLayoutError`` (a ``LayoutError``) when the release has no linear
/// layout for the attribute at all. An unknown release is a ``ValueError``.
///
/// >>> l = to_linear_layout(
/// ...     "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
/// ...     "warpsPerCTA = [8, 1], order = [1, 0]}>",
/// ...     [64, 256],
/// ... )
/// >>> l.get_in_dim_names()
/// ['register', 'lane', 'warp', 'block']
/// >>> l.out_dims
/// [('dim0', 64), ('dim1', 256)]
#[pyfunction]
#[pyo3(signature = (attr, shape, release = "newest", defs = None, elem_bits = None))]
pub(crate) fn to_linear_layout(
    attr: &str,
    shape: &Bound<'_, PyAny>,
    release: &str,
    defs: Option<&str>,
    elem_bits: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyLayout> {
    let shape = read_shape(shape)?;
    let elem_bits = match elem_bits {
        None => None,
        Some(b) => Some(match args::int(b, "elem_bits")? {
            Int::Fits(v) => v,
            Int::Outside { text, .. } => {
                return Err(PyValueError::new_err(format!(
                    "elem_bits must be a non-negative int, not {text}"
                )));
            }
        }),
    };
    let version = release
        .parse()
        .map_err(|e| PyValueError::new_err(format!("{e}")))?;
    check_nesting(attr, "TTGIR attribute")?;
    let defs = match defs {
        None => Defs::new(),
        Some(text) => {
            check_nesting(text, "defs")?;
            guard(|| Defs::from_module(text))?
        }
    };
    let parsed = guard(|| linear_layout_triton::parse_attr(attr.trim(), &defs))?;
    let conversion = guard_with(
        || linear_layout_triton::to_linear_layout(&parsed, &shape, version, elem_bits),
        from_convert,
    )?;
    match conversion {
        Conversion::Layout(layout) => Ok(layout.into()),
        Conversion::NoLayout(reason) => Err(no_layout(&version.to_string(), &reason)),
    }
}

/// The shape: a sequence of ints. A negative or huge dim is the crate's
/// `invalid_shape`, as a dim that is no power of two is.
fn read_shape(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    const WHAT: &str = "shape";
    const EXPECTED: &str = "a sequence of ints";
    let items = args::items(obj, WHAT, EXPECTED)?;
    let mut shape = Vec::with_capacity(items.len());
    let mut texts = Vec::with_capacity(items.len());
    let mut outside = None;
    for item in &items {
        match args::int(item, "a shape dim")? {
            Int::Fits(v) => {
                shape.push(v);
                texts.push(v.to_string());
            }
            Int::Outside { text, .. } => {
                outside.get_or_insert_with(|| text.clone());
                texts.push(text);
            }
        }
    }
    match outside {
        None => Ok(shape),
        Some(text) => Err(layout_error(
            "invalid_shape",
            format!(
                "shape [{}]: every dim must be a nonzero power of two, but one is {text}",
                texts.join(", ")
            ),
        )),
    }
}
