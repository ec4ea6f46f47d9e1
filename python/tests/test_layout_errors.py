"""Error behaviour: typed errors where Triton aborts, TypeError on bad types, no crashes."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import pytest

import linear_layout
from linear_layout import MAX_NESTING, LayoutError, LinearLayout, to_linear_layout

L = LinearLayout
LANES = L.identity_1d(4, "lane", "dim0")
TILE = L.identity_1d(4, "lane", "dim1") * L.identity_1d(8, "lane", "dim0")


def kind_of(call) -> str:
    with pytest.raises(LayoutError) as info:
        call()
    err = info.value
    assert isinstance(err, ValueError)
    assert str(err), "a LayoutError says why"
    return err.kind


KINDS = [
    (lambda: L.identity_1d(3, "lane", "dim0"), "not_power_of_two"),
    (lambda: L.identity_1d(-4, "lane", "dim0"), "not_power_of_two"),
    (lambda: L.identity_1d(2**64, "lane", "dim0"), "too_large"),
    (lambda: L.strided_1d(4, 0, "lane", "dim0"), "not_power_of_two"),
    (lambda: L.strided_1d(2**40, 2**40, "lane", "dim0"), "too_large"),
    (lambda: L.zeros_1d(4, "lane", "dim0", 3), "not_power_of_two"),
    (lambda: L.from_bases([("lane", [[1]])], ["dim0"], [4]), "not_surjective"),
    (lambda: L.from_bases([("lane", [[1, 0]])], ["dim0"]), "basis_length"),
    (lambda: L.from_bases([("lane", [[-1]])], ["dim0"]), "component_out_of_range"),
    (lambda: L.from_bases([("lane", [[2**70]])], ["dim0"]), "component_out_of_range"),
    (lambda: L.from_bases([("lane", [[4]])], ["dim0"], [4]), "component_out_of_range"),
    (lambda: L.from_bases([("lane", [[1]])], ["dim0"], [2, 2]), "wrong_length"),
    (lambda: L.from_bases([("lane", [[1]] * 65)], ["dim0"], [2**63], False), "too_many_bits"),
    (lambda: L.from_bases([], ["d0", "d1"], [2**40, 2**40], False), "too_many_bits"),
    (lambda: L.from_bases([("a", []), ("a", [])], []), "duplicate_dim"),
    (lambda: LANES.compose(L.identity_1d(2, "dim0", "x")), "compose_size"),
    (lambda: LANES.compose(L.identity_1d(4, "dim1", "x")), "dim_set_mismatch"),
    (lambda: L.zeros_1d(4, "lane", "dim0", 4).invert(), "not_invertible"),
    (lambda: LANES.apply({"lane": 4}), "input_out_of_range"),
    (lambda: LANES.apply({"lane": -1}), "input_out_of_range"),
    (lambda: LANES.apply({"lane": 1, "warp": 0}), "dim_set_mismatch"),
    (lambda: LANES.apply({"warp": -1}), "dim_set_mismatch"),
    (lambda: LANES.apply({}), "dim_set_mismatch"),
    (lambda: TILE.reshape_outs([("dim0", 4), ("dim1", 4)]), "total_size_mismatch"),
    (lambda: TILE.reshape_outs({"dim0": -4}), "not_power_of_two"),
    (lambda: TILE.transpose_outs(["dim0"]), "dim_set_mismatch"),
    (lambda: TILE.sublayout(["warp"], []), "unknown_dim"),
    (lambda: TILE.squeeze_ins("lane"), "not_size_one"),
    (lambda: TILE.in_dim_size("warp"), "unknown_dim"),
    (lambda: TILE.basis("lane", 5), "index_out_of_range"),
    (lambda: TILE.apply_flat(32), "input_out_of_range"),
    (lambda: TILE.get_distributed_view(False), "unknown_dim"),
    (lambda: TILE.get_shared_view(False), "unknown_dim"),
    (lambda: L.parse("not a layout"), "parse"),
    (lambda: L.from_json('{"bases": []}'), "parse"),
    (lambda: L.strided_1d(4, 2, "lane", "dim0").to_ttgir(), "parse"),
]


@pytest.mark.parametrize(
    ("call", "kind"), KINDS, ids=[f"{i}-{k}" for i, (_, k) in enumerate(KINDS)]
)
def test_layout_error_kinds(call, kind: str) -> None:
    assert kind_of(call) == kind


def test_the_message_is_the_crates() -> None:
    with pytest.raises(LayoutError) as info:
        TILE.reshape_outs([("dim0", 32), ("dim1", 64)])
    assert str(info.value) == (
        "reshape_outs: new out-dims [dim0: 32, dim1: 64] hold 2048 elements, "
        "but the layout's out-dims [dim1: 4, dim0: 8] hold 32"
    )
    assert info.value.kind == "total_size_mismatch"


def test_layout_errors_pickle_with_their_kind() -> None:
    with pytest.raises(LayoutError) as info:
        L.identity_1d(3, "lane", "dim0")
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is LayoutError
    assert again.kind == "not_power_of_two"
    assert str(again) == str(info.value)


def test_triton_s_own_value_errors_stay_value_errors() -> None:
    with pytest.raises(ValueError, match="out_dim_sizes must be provided"):
        L.from_bases([], [], require_surjective=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda: L.identity_1d("4", "lane", "dim0"),
        lambda: L.identity_1d(4.0, "lane", "dim0"),
        lambda: L.identity_1d(None, "lane", "dim0"),
        lambda: L.identity_1d(4, 1, "dim0"),
        lambda: L.identity_1d(4, b"lane", "dim0"),
        lambda: L.identity_1d(4, "lane"),
        lambda: L.zeros_1d(4, "lane", "dim0", 1.5),
        lambda: L.from_bases("lane", ["dim0"]),
        lambda: L.from_bases([("lane", [[1.5]])], ["dim0"]),
        lambda: L.from_bases([("lane", "12")], ["dim0"]),
        lambda: L.from_bases([("lane", [[1]], "extra")], ["dim0"]),
        lambda: L.from_bases([(0, [[1]])], ["dim0"]),
        lambda: L.from_bases([("lane", [[1]])], "dim0"),
        lambda: L.from_bases([("lane", [[1]])], ["dim0"], "2"),
        lambda: L.from_bases([("lane", [[1]])], ["dim0"], None, "yes"),
        lambda: LANES.compose(3),
        lambda: LANES.compose(None),
        lambda: LANES * 3,
        lambda: 3 * LANES,
        lambda: LANES < LANES,
        lambda: LANES.apply([1, 2]),
        lambda: LANES.apply({"lane": "1"}),
        lambda: LANES.apply({1: 1}),
        lambda: LANES.apply("lane"),
        lambda: LANES.transpose_outs("dim0"),
        lambda: LANES.reshape_outs(4),
        lambda: LANES.reshape_outs([("dim0",)]),
        lambda: LANES.sublayout("lane", []),
        lambda: LANES.get_distributed_view(1),
        lambda: LANES.get_shared_view(None),
        lambda: L.parse(None),
        lambda: L.parse(b"text"),
        lambda: to_linear_layout(None, [4]),
        lambda: to_linear_layout("#ttg.blocked<{}>", None),
        lambda: to_linear_layout("#ttg.blocked<{}>", [4], release=3.9),
        lambda: to_linear_layout("#ttg.blocked<{}>", [4], elem_bits="16"),
    ],
)
def test_bad_argument_types_are_type_errors(call) -> None:
    with pytest.raises(TypeError):
        call()


def test_equality_with_other_types_is_false_not_an_error() -> None:
    # Triton's binding raises TypeError here; == on unrelated types is False
    # everywhere else in Python.
    assert LANES != 3
    assert (LANES == "lane") is False
    assert LANES in [3, LANES]


HOSTILE = textwrap.dedent(
    """
    import linear_layout as ll
    L = ll.LinearLayout
    block = L.zeros_1d(1, "block", "dim0")
    one = L.from_bases([("lane", []), ("warp", []), ("block", [])], ["dim0"], [1], False)
    deep = "[" * 1_000_000 + "]" * 1_000_000
    attr = "#ttg.slice<{dim = 0, parent = " * 100_000 + "#ttg.blocked<{}>" + ">}" * 100_000
    calls = [
        lambda: ll.to_linear_layout(attr, [4]),
        lambda: ll.to_linear_layout("#ttg.linear<{register = " + deep + "}>", [4]),
        lambda: ll.to_linear_layout("#a", [4], defs="#a = #ttg.blocked<{order = " + deep + "}>"),
        lambda: ll.to_linear_layout("#ttg.blocked<{}>" * 100_000, [4]),
        lambda: L.parse(deep),
        lambda: L.parse("{" + '"a":' * 100_000 + "1" + "}" * 100_000),
        lambda: L.parse("#ttg.linear<{register = " + deep + "}>"),
        lambda: L.from_json("[" * 100_000),
        lambda: L.identity_1d(2**63, "register", "dim0"),
        lambda: L.identity_1d(2**63, "register", "dim0").get_matrix_view(),
        lambda: (L.identity_1d(2**30, "offset", "dim0") * block).get_shared_view(True),
        lambda: (L.identity_1d(2**30, "register", "dim0") * one).get_distributed_view(False),
        lambda: L.from_bases([], ["d" + str(i) for i in range(65)], [2] * 65, False),
        lambda: L.from_bases([("lane", [[0]] * 1_000_000)], ["dim0"]),
        lambda: L.from_bases([("lane\\0x", [[1]])], ["dim\\u00e9"]),
        lambda: L.identity_1d(1, "x" * 1_000_000, "y").apply({"x" * 1_000_000: 0}),
        lambda: L.identity_1d(4, "lane", "dim0").apply({"lane": 10**100}),
        lambda: L.identity_1d(4, "lane", "dim0").reshape_outs({"dim0": 2**64}),
        lambda: L.identity_1d(4, "lane", "dim0").resize_in_dim("lane", -1),
    ]
    for i, call in enumerate(calls):
        try:
            call()
            print(i, "ok")
        except (ll.LayoutError, ValueError, TypeError) as e:
            print(i, type(e).__name__, getattr(e, "kind", "-"))
    print("survived")
    """
)


def test_hostile_input_never_kills_the_interpreter(tmp_path) -> None:
    # In a child process, so that a crash fails this test instead of the run;
    # from an empty directory, so that `python -c` imports the package this
    # test imported (not a source tree in the working directory).
    done = subprocess.run(
        [sys.executable, "-c", HOSTILE],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[-1] == "survived", done.stdout
    outcomes = dict(line.split(" ", 1) for line in lines[:-1])
    # Deeply nested text is refused before any parser sees it.
    for i in ("0", "1", "2", "4", "6"):
        assert outcomes[i] == "LayoutError parse", (i, outcomes)
    assert outcomes["9"] == "ok"  # a 64-bit matrix is fine to print
    assert outcomes["10"] == "LayoutError too_large"
    assert outcomes["11"] == "LayoutError too_large"
    assert outcomes["12"] == "LayoutError too_many_bits"
    assert outcomes["14"] == "ok"
    assert outcomes["15"] == "ok"
    assert outcomes["16"] == "LayoutError input_out_of_range"


def test_the_nesting_limit_leaves_room_for_real_attributes() -> None:
    assert MAX_NESTING >= 32
    nested = (
        "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
    )
    for _ in range(3):
        nested = f"#ttg.slice<{{dim = 0, parent = {nested}}}>"
    with pytest.raises(LayoutError) as info:
        to_linear_layout(nested, [64])
    assert info.value.kind != "parse"


def test_a_view_of_a_huge_layout_is_refused() -> None:
    big = L.identity_1d(2**25, "register", "dim0") * L.from_bases(
        [("lane", []), ("warp", []), ("block", [])], ["dim0"], [1], False
    )
    with pytest.raises(LayoutError) as info:
        big.get_distributed_view(True)
    assert info.value.kind == "too_large"
    assert linear_layout.MAX_VIEW_BITS == 24
