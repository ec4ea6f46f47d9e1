"""``to_linear_layout`` against the recorded conversions of real Triton wheels.

``tests/data/encodings/gluon-3.9.0.jsonl`` holds 4000 attribute conversions
by the 3.9.0 wheel's Gluon ``to_linear_layout`` (and the other files those of
3.7.1, 3.2's C++ unit tests and regressions): each must give the same
layout, or a ``LayoutError`` where Triton failed.
"""

from __future__ import annotations

import collections

import pytest
from layout_requests import layout_json
from repo_data import DATA, read_cases

from linear_layout import LayoutError, LinearLayout, NoLayoutError, to_linear_layout

# Blackwell tensor memory: outside the crate's scope, refused as such.
OUT_OF_SCOPE = {"tmem", "tmem_scales"}

BLOCKED = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
    "warpsPerCTA = [8, 1], order = [1, 0]}>"
)
MMA = (
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>"
)


def convert(request: dict) -> LinearLayout:
    return to_linear_layout(
        request["attr"],
        request["shape"],
        release=request.get("triton", "newest"),
        defs=request.get("defs"),
        elem_bits=request.get("elem_bits"),
    )


@pytest.mark.parametrize(
    "name",
    [
        "gluon-3.9.0",
        "gluon-3.7.1",
        "triton-3.2-golden",
        "blocked-duplicates",
        "campaign-regressions",
    ],
)
def test_recorded_conversions(name: str) -> None:
    cases = read_cases(DATA / "encodings" / f"{name}.jsonl")
    assert cases
    failures = []
    tally: collections.Counter = collections.Counter()
    for case in cases:
        request, expect = case["request"], case["expect"]
        try:
            got = layout_json(convert(request))
        except NoLayoutError:
            got = "none"
        except LayoutError as e:
            if case.get("kind") in OUT_OF_SCOPE:
                ok = e.kind == "invalid_attribute"
            else:
                ok = "error" in expect
            tally["error"] += 1
            if not ok:
                failures.append(f"{request}: raised {e.kind}: {e}; Triton {expect}")
            continue
        tally["ok" if got != "none" else "none"] += 1
        if "ok" in expect and got == expect["ok"]:
            continue
        if "none" in expect and got == "none":
            continue
        failures.append(f"{request}: got {got}; Triton {expect}")
    assert not failures, f"{len(failures)} of {len(cases)} disagree:\n" + "\n".join(failures[:10])
    assert tally["ok"] > 0


def test_a_blocked_layout() -> None:
    layout = to_linear_layout(BLOCKED, [64, 256])
    assert layout.get_in_dim_names() == ["register", "lane", "warp", "block"]
    assert layout.out_dims == [("dim0", 64), ("dim1", 256)]
    # Each thread holds 8 consecutive elements of a row, then repeats.
    assert layout.bases[0] == ("register", [[0, 1], [0, 2], [0, 4], [0, 64], [0, 128], [32, 0]])
    # Lane 9 = 0b01001: lane bit 0 moves 8 along a row, lane bit 3 one row
    # down; warp 1 is 4 rows down.
    assert layout.apply({"register": 0, "lane": 9, "warp": 1, "block": 0}) == {
        "dim0": 5,
        "dim1": 8,
    }


def test_the_releases_differ() -> None:
    dot = f"#ttg.dot_op<{{opIdx = 0, parent = {MMA}, kWidth = 2}}>"
    newest = to_linear_layout(dot, [64, 64])
    assert to_linear_layout(dot, [64, 64], release="3.9.0") == newest
    with pytest.raises(NoLayoutError) as info:
        to_linear_layout(dot, [64, 64], release="3.2")
    assert info.value.kind == "no_layout"
    assert info.value.release == "3.2"
    assert "kWidth = 8" in str(info.value)
    with pytest.raises(NoLayoutError, match=r"Triton 3\.1 has no linear layout for `dot_op`"):
        to_linear_layout(dot, [64, 64], release="3.1")
    # A NoLayoutError is a LayoutError, and so a ValueError.
    assert issubclass(NoLayoutError, LayoutError)
    assert issubclass(LayoutError, ValueError)


def test_a_release_s_own_failure_names_its_site() -> None:
    # 3.7 wraps the layout as a linear encoding, whose verifier refuses a
    # CGA that is no permutation; 3.8 refuses the attribute itself.
    attr = (
        "#ttg.blocked<{sizePerThread = [8, 4], threadsPerWarp = [2, 8], warpsPerCTA = [1, 4], "
        "order = [1, 0], CGALayout = [[0, 1], [0, 1]]}>"
    )
    with pytest.raises(LayoutError) as info:
        to_linear_layout(attr, [32, 64], release="3.7")
    assert info.value.kind == "triton_failure"
    assert info.value.site == "verify"
    assert "bijective" in info.value.triton_message
    with pytest.raises(LayoutError) as info:
        to_linear_layout(attr, [32, 64], release="3.8")
    assert info.value.kind == "invalid_attribute"
    assert not hasattr(info.value, "site")


def test_both_dialect_spellings() -> None:
    old = BLOCKED.replace("#ttg.", "#triton_gpu.")
    assert to_linear_layout(old, [64, 256], release="3.2") == to_linear_layout(
        BLOCKED, [64, 256], release="3.2"
    )


def test_aliases_from_a_ttgir_module() -> None:
    module = f"""#blocked = {BLOCKED}
#mma = {MMA}
module attributes {{"ttg.num-warps" = 4 : i32}} {{
}}
"""
    assert to_linear_layout("#mma", [32, 32], defs=module) == to_linear_layout(MMA, [32, 32])
    with pytest.raises(LayoutError, match=r"`#mma` is not defined") as info:
        to_linear_layout("#mma", [32, 32])
    assert info.value.kind == "parse"


def test_refusals() -> None:
    with pytest.raises(ValueError, match=r"unknown Triton release `3\.0`"):
        to_linear_layout(BLOCKED, [64, 256], release="3.0")
    with pytest.raises(LayoutError) as info:
        to_linear_layout(BLOCKED, [64, 48])
    assert info.value.kind == "invalid_shape"
    with pytest.raises(LayoutError) as info:
        to_linear_layout(BLOCKED, [64, -256])
    assert info.value.kind == "invalid_shape"
    with pytest.raises(LayoutError) as info:
        to_linear_layout(BLOCKED, [64])
    assert info.value.kind == "invalid_shape"
    with pytest.raises(LayoutError) as info:
        to_linear_layout("#ttg.blocked<{sizePerThread = [1, 8]}>", [64, 256])
    assert info.value.kind == "parse"
    with pytest.raises(TypeError):
        to_linear_layout(BLOCKED, "64x256")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        to_linear_layout(BLOCKED, [64.0, 256])  # type: ignore[list-item]
