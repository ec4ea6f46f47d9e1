//! `ttgir_attr`: a layout attribute given as data, printed by the crate the
//! way a release spells it (`linear-layout print-attr`).

use crate::errors::guard_with;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyMapping, PyString};
use serde_json::Value;

/// The TTGIR text of a layout attribute given as data, as Triton
/// ``release`` spells it.
///
/// ``attr`` is a mapping (or its JSON text) naming the attribute's
/// ``kind`` as TTGIR does (``"blocked"``, ``"slice"``, ``"nvidia_mma"``,
/// ``"dot_op"``, ``"linear"``, ``"swizzled_shared"``, ``"nvmma_shared"``,
/// ``"shared_linear"``, ``"padded_shared"``, ...) and its parameters by
/// their TTGIR names (``sizePerThread``, ``parent``, ...). The release
/// decides the dialect prefix, the legacy shared layouts up to 3.2 and how
/// a CGA or an NVMMA rank is spelled (``linear-layout print-attr --help``
/// lists the kinds; ``release`` is a name :func:`releases` gives, a version
/// it stands for, or ``"newest"``).
///
/// Raises ``ValueError`` for an unknown release or an attribute the data
/// does not describe, ``TypeError`` when ``attr`` is neither a mapping nor
/// text.
///
/// >>> ttgir_attr({"kind": "swizzled_shared", "vec": 8, "perPhase": 1,
/// ...             "maxPhase": 8, "order": [1, 0]}, release="3.2")
/// '#triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = false}>'
#[pyfunction]
#[pyo3(signature = (attr, release = "newest"))]
pub(crate) fn ttgir_attr(attr: &Bound<'_, PyAny>, release: &str) -> PyResult<String> {
    let release: linear_layout_triton::Release = release
        .parse()
        .map_err(|e| PyValueError::new_err(format!("{e}")))?;
    let text = if let Ok(s) = attr.cast::<PyString>() {
        s.to_cow()?.into_owned()
    } else if attr.cast::<PyMapping>().is_ok() {
        let json = attr.py().import("json")?;
        json.call_method1("dumps", (attr,))?.extract::<String>()?
    } else {
        return Err(PyTypeError::new_err(format!(
            "ttgir_attr() takes a mapping or its JSON text, not {}",
            attr.get_type().name()?
        )));
    };
    // serde_json refuses input nested deeper than 128 levels.
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| PyValueError::new_err(format!("the attribute is not JSON: {e}")))?;
    guard_with(
        || linear_layout_triton::ttgir_attr(&value, release),
        |e| PyValueError::new_err(e.to_string()),
    )
}
