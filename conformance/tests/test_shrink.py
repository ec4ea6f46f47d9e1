"""The shrinker on a synthetic failing predicate, and the reproducer."""

from __future__ import annotations

from linear_layout_conformance.cases import make_cases, make_record
from linear_layout_conformance.oracle import Oracle
from linear_layout_conformance.program import build
from linear_layout_conformance.shrink import reproducer, same_failure, shrink, size


def _pred(oracle):
    """Fails iff some convert goes to an MMA layout and the result has >= 64 elements."""

    def one(params):
        prog = build(params, oracle)
        out = prog.values[prog.output]
        to_mma = any(
            op["op"] == "convert" and prog.values[op["out"]].layout["kind"] == "mma"
            for op in prog.ops
        )
        return to_mma and out.numel >= 64

    return one


def test_shrinks_to_smallest(binary):
    oracle = Oracle("3.6", binary=binary)
    pred = _pred(oracle)
    start = None
    for c in make_cases(200, 77, families=["convert"], oracle=oracle):
        p = c["params"]
        n = 1
        for s in p["input"]["shape"]:
            n *= s
        if pred(p) and len(p["steps"]) >= 2 and n >= 1024 and p["warps"] >= 4:
            start = p
            break
    assert start is not None, "no starting case drawn"
    best, tried = shrink(start, lambda cands: [pred(c) for c in cands], oracle, max_tries=3000)
    assert pred(best)
    assert size(best) < size(start)
    n = 1
    for s in best["input"]["shape"]:
        n *= s
    assert len(best["steps"]) == 1, best
    assert n == 64, best
    assert best["warps"] == 1, best
    assert best["input"]["layout"]["kind"] == "blocked", best
    assert best["steps"][0]["layout"] == {
        "kind": "mma",
        "version": 2,
        "wpc": [1, 1],
        "instr": [16, 8],
    }
    assert tried > 0


def test_same_failure():
    a = {"verdict": "wrong", "kind": "misplaced+unwritten"}
    assert same_failure(a, {"verdict": "wrong", "kind": "misplaced"})
    assert not same_failure(a, {"verdict": "wrong", "kind": "garbage"})
    assert not same_failure(a, {"verdict": "pass"})
    c = {
        "verdict": "compile_error",
        "message": "loc(x.ttgir:3:4): error: 'ttg.local_load' op bad 12",
    }
    assert same_failure(
        c, {"verdict": "compile_error", "message": "loc(y:9:1): error: 'ttg.local_load' op bad 4"}
    )
    assert not same_failure(c, {"verdict": "compile_error", "message": "error: something else"})


def test_reproducer_is_python(binary):
    oracle = Oracle("3.6", binary=binary)
    for c in make_cases(12, 5, oracle=oracle):
        case = make_record(c["params"], oracle, c["id"])
        prog = build(case["params"], oracle)
        text = reproducer(
            case, prog, {"verdict": "wrong", "kind": "misplaced", "wrong": 1, "elements": 2}
        )
        compile(text, "repro.py", "exec")
        assert case["ttgir"] in text
