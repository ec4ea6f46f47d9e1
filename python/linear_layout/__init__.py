"""Triton's linear layouts, with Triton's exact answers and errors instead of aborts.

A *linear layout* is a linear map over GF(2) from hardware index bits
(``register``, ``lane``, ``warp``, ``block``, ``offset``) to tensor
coordinates (``dim0``, ``dim1``, ...). Triton builds every tensor layout with
this algebra and guards it with C++ assertions that abort the process; this
package gives the same answers as Triton 3.9.0's Python binding and raises
:class:`LayoutError` wherever Triton would abort.

- :class:`LinearLayout`: the algebra. Its names and semantics are those of
  ``triton._C.libtriton.linear_layout.LinearLayout`` (``from_bases``,
  ``identity_1d``, ``compose``, ``invert_and_compose``, ``apply``, ``*``,
  the views, ...), plus the rest of Triton's C++ operations in snake_case
  (``reshape_outs``, ``divide_left``, ``sublayout``, ...).
- :func:`to_linear_layout`: the layout a given Triton release builds for a
  TTGIR layout attribute and a tensor shape; :func:`ttgir_attr`: an
  attribute given as data, printed the way a release spells it.
- :class:`LayoutError` (a ``ValueError``, with ``.kind``) and
  :class:`NoLayoutError` (a ``LayoutError``: the release has no linear
  layout for that attribute).
- The bug finder: :func:`predict` (how each release's compiler ends on a
  kernel configuration, and where it fails), :func:`fix_for` (the first
  release that compiles it), :func:`check_ttgir` (the same checks over a
  TTGIR module), :func:`sites` and :func:`releases` (the failure sites and
  the modelled releases). Their answers are records (:class:`Record`)
  holding exactly the JSON the command line tool prints (:class:`Prediction`,
  :class:`Fix`, :class:`CheckReport`, :class:`Site`, :class:`ReleaseInfo`).
- :class:`Record`: the plain-object form of those JSON results.
- :mod:`linear_layout.triton`: a guard and an autotuning pruner for the
  installed Triton (imported on its own; it needs Triton).

>>> from linear_layout import LinearLayout
>>> tile = LinearLayout.identity_1d(4, "lane", "dim1") * LinearLayout.identity_1d(8, "lane", "dim0")
>>> tile.apply({"lane": 6})
{'dim1': 2, 'dim0': 1}
"""

from linear_layout._finder import (
    CheckReport,
    Explanation,
    Failure,
    Fix,
    KernelConfig,
    Prediction,
    ReleaseInfo,
    Site,
    TtgirFinding,
    TtgirSpelling,
)
from linear_layout._native import (
    CONFIG_FIELDS,
    MAX_NESTING,
    MAX_VIEW_BITS,
    LayoutError,
    LinearLayout,
    NoLayoutError,
    __version__,
    check_ttgir,
    explain,
    fix_for,
    predict,
    releases,
    sites,
    to_linear_layout,
    ttgir_attr,
)
from linear_layout._records import Record

__all__ = [
    "CONFIG_FIELDS",
    "MAX_NESTING",
    "MAX_VIEW_BITS",
    "CheckReport",
    "Explanation",
    "Failure",
    "Fix",
    "KernelConfig",
    "LayoutError",
    "LinearLayout",
    "NoLayoutError",
    "Prediction",
    "Record",
    "ReleaseInfo",
    "Site",
    "TtgirFinding",
    "TtgirSpelling",
    "__version__",
    "check_ttgir",
    "explain",
    "fix_for",
    "predict",
    "releases",
    "sites",
    "to_linear_layout",
    "ttgir_attr",
]
