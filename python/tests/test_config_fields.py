"""The kernel-configuration fields are the crate's, spelled once.

``CONFIG_FIELDS`` comes from the crate (the fields of its configuration's
JSON form); the record class, the functions taking a configuration field by
field and their stubs must name exactly those.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import linear_layout as ll
from linear_layout._finder import KernelConfig

STUB = Path(ll.__file__).with_name("_native.pyi")


def test_the_fields_are_the_crates() -> None:
    fields = ll.CONFIG_FIELDS
    assert fields[0] == "pattern"
    assert len(set(fields)) == len(fields)
    # predictions' configurations hold them (num_ctas and variant when set)
    [ctas] = ll.predict("chain-b", 64, 64, 64, num_ctas=2, release="newest")
    [build] = ll.predict("inductor-3d", 64, 64, 64, variant="pre-5905")
    seen = set(ctas.config.to_dict()) | set(build.config.to_dict())
    assert seen == set(fields)


def test_the_record_class_names_every_field() -> None:
    named = set(KernelConfig.__annotations__) | {
        name for name, v in vars(KernelConfig).items() if isinstance(v, property)
    }
    assert named == set(ll.CONFIG_FIELDS)


def _as_arguments(fields: tuple[str, ...]) -> list[str]:
    """The fields as a function takes them: the release is its ``release`` argument."""
    return ["release" if f == "triton" else f for f in fields]


def test_predict_and_fix_for_take_the_fields() -> None:
    want = _as_arguments(ll.CONFIG_FIELDS)
    for fn in (ll.predict, ll.fix_for):
        assert list(inspect.signature(fn).parameters) == want, fn.__name__


def test_the_stubs_take_the_fields() -> None:
    tree = ast.parse(STUB.read_text())
    stubs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    want = _as_arguments(ll.CONFIG_FIELDS)
    for name in ("predict", "fix_for"):
        args = stubs[name].args
        assert [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs] == want, name


def test_an_unknown_field_names_the_fields() -> None:
    with pytest.raises(ValueError, match="unknown configuration field `colour`") as e:
        ll.predict({"pattern": "dot", "m": 64, "n": 64, "k": 64, "colour": 1})
    assert all(field in str(e.value) for field in ll.CONFIG_FIELDS)
