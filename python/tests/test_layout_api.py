"""The package's surface: stubs, docstrings, value semantics, formats, views, operations."""

from __future__ import annotations

import ast
import copy
import inspect
import pickle
from pathlib import Path

import pytest

import linear_layout
from linear_layout import LayoutError, LinearLayout

L = LinearLayout
STUB = Path(linear_layout.__file__).with_name("_native.pyi")
TILE = L.identity_1d(2, "register", "dim1") * L.identity_1d(4, "lane", "dim1")
TILE = TILE * L.identity_1d(8, "lane", "dim0")


def stub_members() -> tuple[set[str], set[str]]:
    """Names the stub declares in ``LinearLayout``, and at module level."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    members, module = set(), set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            module.add(node.name)
            if node.name == "LinearLayout":
                members |= {
                    n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AnnAssign))
                }
        elif isinstance(node, ast.FunctionDef):
            module.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            module.add(node.target.id)
    return members, module


def public_members() -> set[str]:
    own = set(vars(LinearLayout))
    return {n for n in own if not n.startswith("_")} | {
        n for n in own if n in {"__mul__", "__reduce__", "__copy__", "__deepcopy__"}
    }


def test_the_stub_declares_every_member_and_nothing_else() -> None:
    members, module = stub_members()
    runtime = public_members()
    assert runtime - members == set(), "missing from _native.pyi"
    declared_public = {m for m in members if not m.startswith("_")}
    assert declared_public - runtime == set(), "in _native.pyi but not at run time"
    from linear_layout import _native

    assert {n for n in dir(_native) if not n.startswith("_")} <= module | {"__version__"}


def test_every_public_name_is_documented() -> None:
    # (Operators keep Python's own docstrings; the class docstring covers them.)
    for name in public_members() - {"__mul__"}:
        doc = inspect.getdoc(getattr(LinearLayout, name))
        assert doc, name
        assert len(doc) > 20, name
    for obj in (
        linear_layout,
        LinearLayout,
        linear_layout.to_linear_layout,
        LayoutError,
        linear_layout.NoLayoutError,
        linear_layout.Record,
    ):
        assert inspect.getdoc(obj), obj


def test_layouts_are_values() -> None:
    again = L.parse(str(TILE))
    assert again == TILE
    assert again is not TILE
    assert hash(again) == hash(TILE)
    assert len({TILE, again, L.identity_1d(4, "lane", "dim0")}) == 2
    assert pickle.loads(pickle.dumps(TILE)) == TILE
    assert copy.copy(TILE) is TILE
    assert copy.deepcopy([TILE])[0] is TILE
    with pytest.raises(AttributeError):
        TILE.bases = []  # type: ignore[misc]
    a = b = L.identity_1d(2, "register", "dim0")
    a *= L.identity_1d(2, "lane", "dim0")
    assert b == L.identity_1d(2, "register", "dim0")
    assert a.out_dims == [("dim0", 4)]


def test_a_non_surjective_layout_pickles() -> None:
    odd = L.strided_1d(4, 2, "register", "dim0")
    assert not odd.is_surjective()
    assert pickle.loads(pickle.dumps(odd)) == odd


def test_the_binding_s_view_of_a_layout() -> None:
    assert TILE.get_in_dim_names() == ["register", "lane"]
    assert TILE.get_out_dim_names() == ["dim1", "dim0"]
    assert TILE.num_in_dims == 2
    assert TILE.num_out_dims == 2
    assert TILE.out_dims == [("dim1", 8), ("dim0", 8)]
    assert TILE.bases == [
        ("register", [[1, 0]]),
        ("lane", [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]]),
    ]
    assert TILE.apply({"lane": 6, "register": 1}) == {"dim1": 5, "dim0": 1}
    assert TILE.apply([("register", 1), ("lane", 6)]) == {"dim1": 5, "dim0": 1}
    assert LinearLayout() == L.empty()
    assert str(L()) == "\n(empty layout)"


def test_views() -> None:
    layout = L.from_bases(
        [
            ("register", [[1, 0], [0, 2]]),
            ("lane", [[2, 0], [4, 0]]),
            ("warp", [[0, 1]]),
            ("block", []),
        ],
        ["dim0", "dim1"],
        [8, 4],
        False,
    )
    # Printed by Triton 3.9.0's binding for the same layout.
    assert layout.get_distributed_view(False).splitlines()[:2] == [
        "[[T0:0, T4:0, T0:2, T4:2]",
        "[ T0:1, T4:1, T0:3, T4:3]",
    ]
    assert layout.get_distributed_view(True).splitlines()[:3] == [
        "Warp0:",
        "(0,0), (2,0), (4,0), (6,0)",
        "(1,0), (3,0), (5,0), (7,0)",
    ]
    shared = L.from_bases(
        [("offset", [[1, 0], [0, 1], [2, 0]]), ("block", [[0, 2]])], ["dim0", "dim1"], [4, 4], False
    )
    assert shared.get_shared_view(False).splitlines()[0] == "[[(0:0),(1:0),(0:1),(1:1)]"
    assert shared.get_shared_view(True).splitlines()[:3] == [
        "Block: 0:",
        "Offset: 0 -> (0,0)",
        "Offset: 1 -> (1,0)",
    ]
    assert L.identity_1d(4, "lane", "dim0").get_matrix_view() == [[1, 0], [0, 1]]


def test_formats_round_trip() -> None:
    assert L.from_json(TILE.to_json()) == TILE
    assert L.parse(TILE.to_json()) == TILE
    lanes = L.identity_1d(4, "lane", "dim0") * L.identity_1d(2, "warp", "dim1")
    assert lanes.to_ttgir() == "#ttg.linear<{lane = [[1, 0], [2, 0]], warp = [[0, 1]]}>"
    assert lanes.to_ttgir("triton_gpu").startswith("#triton_gpu.linear<{")
    assert L.parse(lanes.to_ttgir()) == lanes


def test_further_operations() -> None:
    lanes = L.identity_1d(8, "lane", "dim0")
    split = lanes.reshape_outs([("dim0", 2), ("dim1", 4)])
    assert split.out_dims == [("dim0", 2), ("dim1", 4)]
    assert lanes.reshape_outs({"dim0": 2, "dim1": 4}) == split
    assert split.flatten_outs() == lanes
    assert split.transpose_outs(["dim1", "dim0"]).get_out_dim_names() == ["dim1", "dim0"]
    assert TILE.sublayout(["lane"], ["dim0"]).bases == [("lane", [[0], [0], [1], [2], [4]])]
    a = L.identity_1d(2, "register", "dim0")
    b = L.identity_1d(4, "register", "dim0")
    assert (a * b).divide_left(a) == b
    assert (a * b).divide_right(b) == a
    assert b.divide_left(L.identity_1d(2, "lane", "dim0")) is None
    assert a.product(b) == a * b
    assert L.zeros_1d(4, "warp", "dim0").remove_zero_bases_along_dim("warp").in_dims == [
        ("warp", 1)
    ]
    assert lanes.rename_in_dim("lane", "x").get_in_dim_names() == ["x"]
    assert lanes.resize_in_dim("lane", 2).in_dims == [("lane", 2)]
    assert lanes.resize_out_dim("dim0", 4).out_dims == [("dim0", 4)]
    ident = L.identity_1d(4, "dim0", "dim0")
    assert ident.is_trivial_over(["dim0"])
    assert ident.square_sublayout_is_identity(["dim0"])
    assert ident.quotient(["dim0"]) == L.empty()
    assert TILE.sublayout_is_zero(["register"], ["dim0"])
    assert L.zeros_1d(2, "register", "dim0").free_variable_masks() == {"register": 1}
    assert TILE.num_consecutive_in_out() == 2
    assert lanes.equal_ignoring_out_dim_sizes(L.strided_1d(8, 1, "lane", "dim0"))
    assert lanes.concat_ins(L.identity_1d(8, "warp", "dim0")).get_in_dim_names() == [
        "lane",
        "warp",
    ]
    assert lanes.concat_outs(L.identity_1d(8, "lane", "dim1")).out_dims == [
        ("dim0", 8),
        ("dim1", 8),
    ]
    assert L.from_bases([("a", [])], []).squeeze_ins("a") == L.empty()


def test_further_queries() -> None:
    assert TILE.in_dims == [("register", 2), ("lane", 32)]
    assert TILE.in_dim_size("lane") == 32
    assert TILE.in_dim_size_log2("lane") == 5
    assert TILE.out_dim_size("dim0") == 8
    assert TILE.out_dim_size_log2("dim0") == 3
    assert TILE.has_in_dim("lane")
    assert not TILE.has_out_dim("lane")
    assert TILE.basis("lane", 2) == [0, 1]
    assert TILE.rank == 6
    assert (TILE.total_in_bits, TILE.total_out_bits) == (6, 6)
    assert (TILE.total_in_dim_size, TILE.total_out_dim_size) == (64, 64)
    # Input bit 3 is lane bit 2 (lane = 4): one row down.
    assert TILE.apply_flat(0b001000) == 0b001000
    full = L.identity_1d(2**63, "register", "dim0") * L.identity_1d(2, "lane", "dim1")
    assert full.total_in_dim_size == 2**64
