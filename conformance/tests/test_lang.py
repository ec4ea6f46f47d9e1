"""The Python-language families (``lang/``): exact expectations, their check, compiles, replay.

Without a GPU: every family's expected outputs are exact in their types and
agree with a second derivation written with plain Python loops; the
comparison names unwritten, misplaced, garbage and out-of-bounds elements;
a fresh sample of each family compiles for sm90 with the 3.9.0, 3.8.0 and
3.6.0 wheels and passes the self-check; and the recorded H200 results
(``data/h200-lang-*.jsonl.gz``) replay: each passing kernel's output digest
is the digest of the exact expectation computed here, each wrong one's
outputs give its verdict.
"""

from __future__ import annotations

import functools
import glob
import gzip
import json
import operator
import os
import random

import numpy as np
import pytest
from cfhelpers import REPO, venv_python

from linear_layout_conformance.lang import FAMILIES
from linear_layout_conformance.lang.cases import data_of, kernel_of, make_case, make_cases
from linear_layout_conformance.lang.cli import replay
from linear_layout_conformance.lang.job import check_outputs, pack, selfcheck, unpack
from linear_layout_conformance.lang.refusals import refusal
from linear_layout_conformance.lang.spec import GUARD, compare, representable
from linear_layout_conformance.runner import run_cases

DATA = os.path.join(REPO, "conformance", "tests", "data")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_expectations_are_exact_and_reproducible(family, fresh_seed):
    """40 cases a family (fixed and fresh seeds): inputs and outputs exact in their types."""
    for i in range(40):
        seed = 7 if i < 20 else fresh_seed
        case = make_case(family, seed, i, "3.9")
        assert selfcheck(case) == [], (case["id"], case["params"])


def _py_matmul(a: np.ndarray, b: np.ndarray) -> list[list[float]]:
    n, k, m = a.shape[0], a.shape[1], b.shape[1]
    return [
        [sum(float(a[i, t]) * float(b[t, j]) for t in range(k)) for j in range(m)] for i in range(n)
    ]


def test_reduce_agrees_with_plain_loops():
    """Sums, maxima and argmaxes over the masked tile, written as loops."""
    checked = 0
    for i in range(200):
        case = make_case("reduce", 11, i, "3.9")
        p = case["params"]
        if p["epilogue"] not in ("store", "keep_dims") or p["M"] * p["N"] > 2048:
            continue
        ins, exp = data_of(case)
        x = ins["x_ptr"]
        other = {"argmax": -30000, "argmin": 30000, "max": -100, "min": 100}.get(p["op"], 0)
        out = []
        for t in range(p["programs"]):
            rows = [
                [
                    x[t, r, c] if r < p["m_real"] and c < p["n_real"] else other
                    for c in range(p["N"])
                ]
                for r in range(p["M"])
            ]
            lines = (
                [functools.reduce(operator.iadd, rows, [])]
                if p["axis"] is None
                else rows
                if p["axis"] == 1
                else [list(col) for col in zip(*rows)]
            )
            for line in lines:
                if p["op"] in ("sum", "sum_f32"):
                    out.append(sum(line))
                elif p["op"] == "max":
                    out.append(max(line))
                elif p["op"] == "min":
                    out.append(min(line))
                elif p["op"] == "argmax":
                    out.append(line.index(max(line)))
                elif p["op"] == "argmin":
                    out.append(line.index(min(line)))
                else:
                    acc = 0
                    for v in line:
                        acc ^= int(v)
                    out.append(acc)
        assert list(exp["out_ptr"]) == out, case["id"]
        checked += 1
    assert checked >= 30


def test_scan_agrees_with_plain_loops():
    """Prefix sums, products and maxima, forwards and reversed, written as loops."""
    checked = 0
    for i in range(200):
        case = make_case("scan", 12, i, "3.9")
        p = case["params"]
        if p["epilogue"] != "store" or p["op"] == "scan_xor" or p["M"] * p["N"] > 2048:
            continue
        ins, exp = data_of(case)
        other = {"cumprod": 1, "scan_max": -100}.get(p["op"], 0)
        x = [
            [ins["x_ptr"][r, c] if r < p["m_real"] else other for c in range(p["N"])]
            for r in range(p["M"])
        ]
        if p["axis"] == 0:
            x = [list(col) for col in zip(*x)]
        out = []
        for line in x:
            seq = line[::-1] if p["reverse"] else line
            acc, res = None, []
            for v in seq:
                if acc is None:
                    acc = v
                elif p["op"] == "cumprod":
                    acc = acc * v
                elif p["op"] == "scan_max":
                    acc = max(acc, v)
                else:
                    acc = acc + v
                res.append(acc)
            out.append(res[::-1] if p["reverse"] else res)
        if p["axis"] == 0:
            out = [list(col) for col in zip(*out)]
        assert list(exp["out_ptr"]) == [v for row in out for v in row], case["id"]
        checked += 1
    assert checked >= 20


def test_matmul_families_agree_with_plain_loops():
    """Small tiles of wgmma, persistent and chain cases: numpy's product equals loops'."""
    checked = 0
    for fam in ("wgmma", "persistent", "chain"):
        for i in range(300):
            case = make_case(fam, 13, i, "3.9")
            p = case["params"]
            ins, exp = data_of(case)
            if fam == "wgmma" and p["epilogue"] == "store" and p["m_cut"] == 0:
                a = ins["a_ptr"].T if p["a_trans"] else ins["a_ptr"]
                b = ins["b_ptr"].T if p["b_trans"] else ins["b_ptr"]
                if a.shape[0] * a.shape[1] * b.shape[1] > 300000:
                    continue
                want = _py_matmul(a, b)
            elif fam == "persistent" and p["M"] * p["K"] * p["N"] <= 300000:
                want = _py_matmul(ins["a_ptr"], ins["b_ptr"])
            elif fam == "chain" and p["variant"] == "as_b" and p["M"] * p["N"] * p["D"] <= 300000:
                s = _py_matmul(ins["q_ptr"], ins["k_ptr"].T)
                want = _py_matmul(ins["w_ptr"], np.array(s))
            else:
                continue
            assert list(next(iter(exp.values()))) == [v for row in want for v in row], case["id"]
            checked += 1
            break
    assert checked == 3


def test_compare_names_what_went_wrong():
    """Unwritten sentinels, values from elsewhere, foreign values, stray writes, guard hits."""
    exp = np.array([1.0, 2.0, 3.0, 4.0, np.nan])
    assert compare(exp, np.array([1, 2, 3, 4, np.nan]), "fp32")["verdict"] == "pass"
    assert compare(exp, np.array([1, 2, np.nan, 4, np.nan]), "fp32")["kind"] == "unwritten"
    assert compare(exp, np.array([2, 1, 3, 4, np.nan]), "fp32")["kind"] == "misplaced"
    assert compare(exp, np.array([9, 2, 3, 4, np.nan]), "fp32")["kind"] == "garbage"
    assert compare(exp, np.array([1, 2, 3, 4, 7]), "fp32")["kind"] == "stray_write"
    assert compare(np.array([5.0]), np.array([-(2.0**31)]), "int32")["kind"] == "unwritten"
    case = make_case("fp8store", 3, 0, "3.9")
    k = kernel_of(case)
    _, e = data_of(case)
    padded = {
        n: np.concatenate([np.full(GUARD, np.nan), v, np.full(GUARD, np.nan)]) for n, v in e.items()
    }
    assert check_outputs(k, e, padded)["verdict"] == "pass"
    padded["out_ptr"][GUARD - 1] = 0.0
    got = check_outputs(k, e, padded)
    assert (got["verdict"], got["kind"]) == ("wrong", "out_of_bounds_write")
    assert np.array_equal(unpack(pack(padded))["out_ptr"], padded["out_ptr"], equal_nan=True)


def test_representable_is_exact():
    """The narrow types' value sets, checked against their definitions."""
    assert representable([448, -448, 0.001953125], "fp8e4nv")
    assert not representable([449], "fp8e4nv")
    assert representable([57344, 2**-16], "fp8e5")
    assert representable([3.5], "fp8e5")
    assert not representable([2.25], "fp8e5")
    assert representable([256, 255], "bf16")
    assert not representable([257], "bf16")
    assert representable([2048, 2047], "fp16")
    assert not representable([2049, 2047.5], "fp16")
    assert representable([127, -128], "int8")
    assert not representable([128], "int8")


RELEASES = [("3.9", "3.9.0", 2), ("3.8", "3.8.0", 1), ("3.6", "3.6.0", 1)]


def test_refusals_cover_every_compile_error_of_the_h200_runs():
    """Every lang compile error recorded on the H200 falls under a measured refusal rule."""
    for path in _recorded():
        with gzip.open(path.replace("-results.jsonl.gz", "-cases.jsonl.gz"), "rt") as f:
            cases = {c["id"]: c for c in map(json.loads, f)}
        with gzip.open(path, "rt") as f:
            for rec in map(json.loads, f):
                if rec.get("verdict") == "compile_error":
                    run = rec["ran_on"].rsplit(".", 1)[0]
                    assert refusal(cases[rec["id"]]["params"], run), (path, rec["id"])


@pytest.mark.parametrize(
    ("release", "wheel", "per_family"), RELEASES, ids=[w for _, w, _ in RELEASES]
)
def test_fresh_sample_compiles(release, wheel, per_family, fresh_seed, jobs, tmp_path, monkeypatch):
    """Each family, a few fresh cases: compiled for sm90 and self-checked.

    A compile error passes only where the H200 runs measured the release refusing such
    kernels (``lang.refusals``); any other fails the test.
    """
    python = venv_python(wheel)
    deps = os.environ.get("CONFORMANCE_LANG_PYDEPS")  # numpy for the wheel's python (run_cpu.sh)
    if deps:
        monkeypatch.setenv("PYTHONPATH", deps)
    rng = random.Random(fresh_seed)
    cases = []
    for fam, mod in sorted(FAMILIES.items()):
        if tuple(map(int, release.split("."))) < mod.MIN_RELEASE:
            continue
        for j in range(per_family):
            c = make_case(fam, fresh_seed, rng.randrange(10**6), release)
            c["id"] = f"{fam}-{j}"
            cases.append(c)
    records = run_cases(cases, str(tmp_path), jobs=jobs, python=python, gpu=False, quiet=True)
    by_id = {c["id"]: c for c in cases}
    bad = [
        (r["id"], r.get("verdict"), (r.get("message") or "")[-400:])
        for r in records
        if r.get("verdict") != "compiled"
        and not (r.get("verdict") == "compile_error" and refusal(by_id[r["id"]]["params"], release))
    ]
    assert not bad, bad
    assert len(records) == len(cases)


def test_make_cases_is_deterministic():
    """Case i of seed s is the same whatever the count asked."""
    a = make_cases(30, 5, "3.9")
    b = make_cases(10, 5, "3.9", start=20)
    assert a[20:] == b


def _recorded() -> list[str]:
    return sorted(glob.glob(os.path.join(DATA, "h200-lang-*-results.jsonl.gz")))


def test_recorded_gpu_results_replay():
    """Every recorded H200 verdict of the Python-language campaigns follows from its outputs."""
    files = _recorded()
    assert files, "no recorded H200 results of the lang families"
    total = 0
    for path in files:
        cases_path = path.replace("-results.jsonl.gz", "-cases.jsonl.gz")
        with gzip.open(cases_path, "rt") as f:
            cases = {c["id"]: c for c in map(json.loads, f)}
        with gzip.open(path, "rt") as f:
            results = [json.loads(line) for line in f]
        assert replay(results, cases) == [], path
        total += sum(1 for r in results if r["id"] in cases)
    assert total > 0


def test_replay_rejects_a_tampered_record():
    """A passing record whose digest is not the expectation's is refused."""
    path = _recorded()[0]
    with gzip.open(path.replace("-results.jsonl.gz", "-cases.jsonl.gz"), "rt") as f:
        cases = {c["id"]: c for c in map(json.loads, f)}
    with gzip.open(path, "rt") as f:
        rec = next(r for r in map(json.loads, f) if r.get("verdict") == "pass" and r["id"] in cases)
    rec = dict(rec, out_digest="0" * 24)
    assert replay([rec], cases)


def test_harness_bug_of_the_first_campaign_is_fixed():
    """Nine reductions the H200 runs recorded as stray writes were the expectation's fault.

    A masked store of a reduced vector of length 1 writes its element (index 0
    of its program's vector); the first expectation masked by the global index.
    Their recorded outputs are right under the fixed expectation.
    """
    with gzip.open(os.path.join(DATA, "h200-lang-harness-fixed.jsonl.gz"), "rt") as f:
        objs = [json.loads(line) for line in f]
    assert len(objs) == 9
    for obj in objs:
        case, rec = obj["case"], obj["record"]
        assert (rec["verdict"], rec["kind"]) == ("wrong", "stray_write")
        _, exp = data_of(case)
        assert check_outputs(kernel_of(case), exp, unpack(rec["outputs"]))["verdict"] == "pass"
