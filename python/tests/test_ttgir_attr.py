"""Layout attributes given as data, printed by the crate per release."""

from __future__ import annotations

import json

import pytest

import linear_layout as ll

BLOCKED = {
    "kind": "blocked",
    "sizePerThread": [1, 8],
    "threadsPerWarp": [4, 8],
    "warpsPerCTA": [8, 1],
    "order": [1, 0],
}
NVMMA = {
    "kind": "nvmma_shared",
    "swizzlingByteWidth": 128,
    "transposed": False,
    "elementBitWidth": 16,
}


def test_each_release_prints_its_dialect() -> None:
    for r in ll.releases():
        text = ll.ttgir_attr({"kind": "slice", "dim": 0, "parent": BLOCKED}, release=r.name)
        assert text.startswith(f"#{r.dialect}.slice<{{dim = 0, parent = #{r.dialect}.blocked<")
        # what is printed is what the release reads: the same layout as from the newest text
        want = ll.to_linear_layout(ll.ttgir_attr(BLOCKED), [64, 256], release=r.name)
        assert ll.to_linear_layout(ll.ttgir_attr(BLOCKED, r.name), [64, 256], r.name) == want


def test_shared_layouts_follow_the_table() -> None:
    for r in ll.releases():
        text = ll.ttgir_attr(NVMMA, release=r.name)
        if r.ttgir.legacy_shared:
            assert "hasLeadingOffset = true" in text
        else:
            assert text.startswith(f"#{r.dialect}.nvmma_shared<")
        rank3 = ll.ttgir_attr({**NVMMA, "rank": 3}, release=r.name)
        if r.ttgir.legacy_shared:
            assert "order = [2, 1, 0]" in rank3
        elif r.ttgir.cga == "bases":
            assert rank3.endswith(", rank = 3}>")
        else:
            assert "CTAsPerCGA = [1, 1, 1]" in rank3


def test_json_text_is_taken_too() -> None:
    assert ll.ttgir_attr(json.dumps(BLOCKED)) == ll.ttgir_attr(BLOCKED)


def test_bad_input_is_an_error() -> None:
    with pytest.raises(ValueError, match="needs `order`"):
        ll.ttgir_attr({k: v for k, v in BLOCKED.items() if k != "order"})
    with pytest.raises(ValueError, match="unknown Triton release"):
        ll.ttgir_attr(BLOCKED, release="2.0")
    with pytest.raises(ValueError, match="not JSON"):
        ll.ttgir_attr("{")
    with pytest.raises(TypeError, match="mapping or its JSON text"):
        ll.ttgir_attr(3)  # type: ignore[arg-type]
    for depth, message in ((70, "deeper than 64"), (200, "recursion limit")):
        deep: dict[str, object] = BLOCKED
        for _ in range(depth):
            deep = {"kind": "slice", "dim": 0, "parent": deep}
        with pytest.raises(ValueError, match=message):
            ll.ttgir_attr(deep)
