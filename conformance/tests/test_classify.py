"""The comparison and classifier on synthetic wrong outputs."""

from __future__ import annotations

import random

import pytest

from linear_layout_conformance.cases import make_record
from linear_layout_conformance.classify import AffineFit, check, fit_pairs
from linear_layout_conformance.fault import simulated_outputs
from linear_layout_conformance.oracle import Oracle
from linear_layout_conformance.plan import make_plan
from linear_layout_conformance.worker import case_program

BLOCKED = {"kind": "blocked", "spt": [1, 4], "tpw": [8, 4], "wpc": [4, 1], "order": [1, 0]}
MMA = {"kind": "mma", "version": 2, "wpc": [2, 2], "instr": [16, 8]}


def _case(binary, src, dst, shape=(64, 64), dtype="i16", steps=None):
    params = {
        "family": "convert",
        "triton": "3.6",
        "cap": 90,
        "seed": [0, 0, 0],
        "warps": 4,
        "input": {"shape": list(shape), "dtype": dtype, "layout": src},
        "steps": steps or [{"op": "convert", "layout": dst}],
    }
    case = make_record(params, Oracle("3.6", binary=binary), "t")
    prog = case_program(case)
    return prog, make_plan(prog, "t")


def test_affine_fit_recovers_maps():
    rng = random.Random(5)
    for _ in range(20):
        n = rng.randint(3, 10)
        perm = list(range(n))
        rng.shuffle(perm)
        c = rng.getrandbits(n)
        names = [f"b{i}" for i in range(n)]
        pairs = []
        for x in range(1 << n):
            y = 0
            for i in range(n):
                if x >> i & 1:
                    y |= 1 << perm[i]
            pairs.append((x, y ^ c))
        r = fit_pairs(pairs, names)
        assert r["affine"]
        swaps = sum(1 for i in range(n) if perm[i] != i)
        assert (r["size"] == 0) == (swaps == 0 and c == 0)
    fit = AffineFit(3)
    fit.add(0, 0)
    fit.add(1, 2)
    fit.add(1, 3)
    assert not fit.consistent


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (("register", 0), ("lane", 1)),
        (("lane", 0), ("warp", 1)),
        (("register", 1), ("register", 2)),
    ],
)
def test_swapped_bits_are_named(binary, a, b):
    prog, plan = _case(binary, BLOCKED, MMA)
    out = simulated_outputs(prog, plan, {"swap": [list(a), list(b)]})
    res = check(prog, plan, out)
    assert res["verdict"] == "wrong"
    assert res["kind"] == "misplaced"
    name = res["map"]["name"]
    assert (
        name == f"output layout: {a[0]} bit {a[1]} <-> {b[0]} bit {b[1]}"
        or name == f"output layout: {b[0]} bit {b[1]} <-> {a[0]} bit {a[1]}"
    ), name


def test_right_outputs_pass(binary):
    prog, plan = _case(binary, MMA, BLOCKED, dtype="f16")
    res = check(prog, plan, simulated_outputs(prog, plan, {}))
    assert res == {"verdict": "pass"}


def test_unwritten_and_garbage(binary):
    prog, plan = _case(binary, BLOCKED, MMA, dtype="i8")
    out = simulated_outputs(prog, plan, {"unwritten": ["warp", 1]})
    res = check(prog, plan, out)
    assert res["kind"] == "unwritten"
    assert res["unwritten"] == len(plan.source) // 2
    assert res["where"] == {"warp bit 1": 1}
    out = simulated_outputs(prog, plan, {})
    out[0][5] = 0x7F  # digit range is 7 bits: 0x7f is a digit; make it inconsistent across launches
    out[1][5] = 0x00
    res = check(prog, plan, out)
    assert res["verdict"] == "wrong"
    assert res["wrong"] == 1


def test_coordinate_permutation_named(binary):
    """Rows 2k and 2k+1 exchanged: dim0 bit 0 flipped."""
    prog, plan = _case(binary, BLOCKED, BLOCKED, shape=(16, 8), dtype="i32")
    out = []
    for launch in plan.launches:
        e = list(launch.expected)
        out.append([e[((i // 8) ^ 1) * 8 + i % 8] for i in range(len(e))])
    res = check(prog, plan, out)
    assert res["map"]["fits"]["input coordinates"]["moves"] == ["dim0 bit 0 flipped"]


def test_arith_failure(binary):
    steps = [{"op": "dot", "as": "A", "other": 16, "mma": MMA, "k_width": 2, "aux_layout": BLOCKED}]
    prog, plan = _case(binary, BLOCKED, None, shape=(32, 16), dtype="f16", steps=steps)
    assert plan.numeric
    assert any(launch.kind == "random" for launch in plan.launches)
    out = simulated_outputs(prog, plan, {})
    assert check(prog, plan, out)["verdict"] == "pass"
    r = next(i for i, launch in enumerate(plan.launches) if launch.kind == "random")
    out[r][3] ^= 0x00400000  # a mantissa bit of an f32 result
    res = check(prog, plan, out)
    assert res["kind"] == "arith"
    assert res["arith"] == 1
