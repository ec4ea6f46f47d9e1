"""The expected outputs, checked against independent computations."""

from __future__ import annotations

import pytest

from linear_layout_conformance import ll as llmod
from linear_layout_conformance.cases import make_cases
from linear_layout_conformance.oracle import Oracle
from linear_layout_conformance.plan import make_plan
from linear_layout_conformance.program import (
    InvalidCaseError,
    Program,
    Value,
    interpret,
    transpose_flat,
)
from linear_layout_conformance.selfcheck import selfcheck
from linear_layout_conformance.worker import case_program


def test_selfcheck_fresh_sample(binary, fresh_seed):
    cases = make_cases(60, fresh_seed, oracle=Oracle("3.6", binary=binary))
    for c in cases:
        prog = case_program(c)
        plan = make_plan(prog, c["id"])
        assert selfcheck(prog, plan) == [], (c["id"], c["params"])


def _shape_cases(binary, seed, op):
    out = []
    for c in make_cases(80, seed, families=["shape"], oracle=Oracle("3.6", binary=binary)):
        if any(s["op"] == op for s in c["params"]["steps"]):
            out.append(c)
    return out


@pytest.mark.parametrize("op", ["trans", "join", "reshape"])
def test_selfcheck_catches_wrong_derived_layout(binary, monkeypatch, op):
    """A wrong result layout for a data-free op must disagree with the op."""
    cases = _shape_cases(binary, 11, op)
    assert cases, f"no {op} case drawn"
    orig = {
        "trans": llmod.Layout.transpose,
        "join": llmod.Layout.join,
        "reshape": llmod.Layout.reshape,
    }[op]

    def broken(self, *a):
        lay = orig(self, *a)
        regs = list(lay.get("register"))
        lanes = list(lay.get("lane"))
        if regs and lanes:  # swap the first register and lane bases
            regs[0], lanes[0] = lanes[0], regs[0]
        return llmod.Layout.make(
            {"register": regs, "lane": lanes, "warp": lay.get("warp"), "block": []}, lay.shape
        )

    method = {"trans": "transpose"}.get(op, op)
    found = 0
    for c in cases:
        monkeypatch.setattr(llmod.Layout, method, broken)
        try:
            prog = case_program(c)
        except InvalidCaseError:
            continue  # the broken layout breaks a later op's rule: not this test's point
        finally:
            monkeypatch.undo()
        plan = make_plan(prog, c["id"])
        if any(op in p for p in selfcheck(prog, plan)):
            found += 1
    assert found, f"selfcheck never noticed a broken {op} layout"


def _prog(shapes, ops, output, dtype="i32"):
    values = {n: Value(list(s), dtype) for n, s in shapes.items()}
    return Program(
        params={},
        warps=4,
        cap=90,
        values=values,
        inputs=[{"name": n, "role": "data"} for n in shapes if n.startswith("x")],
        ops=ops,
        output=output,
    )


def test_meaning_of_shape_ops():
    x = list(range(24))
    # trans of a 2x3x4 tensor, order (2, 0, 1): out[k, i, j] = x[i, j, k]
    p = _prog(
        {"x": [2, 3, 4], "t": [4, 2, 3]},
        [{"op": "trans", "args": ["x"], "out": "t", "order": [2, 0, 1]}],
        "t",
    )
    got = interpret(p, {"x": x}, numeric=False)
    want = [x[i * 12 + j * 4 + k] for k in range(4) for i in range(2) for j in range(3)]
    assert got == want
    assert transpose_flat(list(range(6)), [2, 3], [1, 0]) == [0, 3, 1, 4, 2, 5]
    # join then split gives the operands back
    p = _prog(
        {"x": [2, 2], "y": [2, 2], "j": [2, 2, 2], "a": [2, 2], "b": [2, 2]},
        [
            {"op": "join", "args": ["x", "y"], "out": "j"},
            {"op": "split", "args": ["j"], "out": ["a", "b"]},
        ],
        "b",
    )
    assert interpret(p, {"x": [1, 2, 3, 4], "y": [5, 6, 7, 8]}, numeric=False) == [5, 6, 7, 8]
    p.output = "j"
    assert interpret(p, {"x": [1, 2, 3, 4], "y": [5, 6, 7, 8]}, numeric=False) == [
        1,
        5,
        2,
        6,
        3,
        7,
        4,
        8,
    ]
    # broadcast [2, 1] -> [2, 3]
    p = _prog({"x": [2, 1], "b": [2, 3]}, [{"op": "broadcast", "args": ["x"], "out": "b"}], "b")
    assert interpret(p, {"x": [7, 9]}, numeric=False) == [7, 7, 7, 9, 9, 9]
    # gather along axis 1: out[i, j] = x[i, idx[i, j]]
    p = _prog(
        {"x": [2, 3], "xi": [2, 2], "g": [2, 2]},
        [{"op": "gather", "args": ["x", "xi"], "out": "g", "axis": 1}],
        "g",
    )
    assert interpret(p, {"x": [10, 11, 12, 20, 21, 22], "xi": [2, 0, 1, 1]}, numeric=False) == [
        12,
        10,
        21,
        21,
    ]
    # dot with an identity is the operand; numeric dots are products
    p = _prog(
        {"x": [2, 3], "e": [3, 3], "c": [2, 3], "d": [2, 3]},
        [{"op": "dot", "args": ["x", "e", "c"], "out": "d"}],
        "d",
    )
    eye = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    assert interpret(p, {"x": [1, 2, 3, 4, 5, 6], "e": eye, "c": [0] * 6}, numeric=False) == [
        1,
        2,
        3,
        4,
        5,
        6,
    ]
    p.values["d"].dtype = "f32"
    got = interpret(
        p, {"x": [1, 2, 3, 4, 5, 6], "e": [1, 2, 0, 0, 1, 0, 3, 0, 1], "c": [0] * 6}, numeric=True
    )
    assert got == [10.0, 4.0, 3.0, 22.0, 13.0, 6.0]
