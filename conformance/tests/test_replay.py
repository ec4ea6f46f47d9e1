"""Replay of recorded results (made here with a simulated faulty GPU)."""

from __future__ import annotations

import argparse
import json
import os

from cfhelpers import venv_python

from linear_layout_conformance.cases import make_cases
from linear_layout_conformance.oracle import Oracle
from linear_layout_conformance.replay import main as replay_main
from linear_layout_conformance.runner import run_cases, write_cases

FAULT = json.dumps(
    {"swap": [["register", 0], ["lane", 1]], "when": {"op": "convert", "min_numel": 64}}
)


def test_replay_consistent_then_tampered(binary, fresh_seed, jobs, tmp_path):
    cases = make_cases(16, fresh_seed, oracle=Oracle("3.6", binary=binary))
    out = str(tmp_path)
    write_cases(os.path.join(out, "cases.jsonl.gz"), cases)
    records = run_cases(
        cases, out, jobs=jobs, python=venv_python("3.6.0"), simulate=FAULT, quiet=True
    )
    assert {r["verdict"] for r in records} <= {"pass", "wrong"}, [r.get("message") for r in records]
    results = os.path.join(out, "results.jsonl")
    ns = argparse.Namespace(results=results, cases=None)
    assert replay_main(ns) == 0
    with open(results) as f:
        lines = [json.loads(x) for x in f]
    passes = [r for r in lines if r["verdict"] == "pass"]
    assert passes
    passes[0]["exact_digest"] = "0" * 24
    wrong = [r for r in lines if r["verdict"] == "wrong"]
    if wrong:
        wrong[0]["kind"] = "garbage"
    with open(results, "w") as f:
        for r in lines:
            f.write(json.dumps(r) + "\n")
    assert replay_main(ns) == 1


def test_bundle_then_replay(binary, jobs, tmp_path):
    """The few files a GPU machine sends back are enough to replay."""
    from linear_layout_conformance.bundle import bundle

    cases = make_cases(8, 31337, oracle=Oracle("3.6", binary=binary))
    out = str(tmp_path / "run")
    os.makedirs(out)
    write_cases(os.path.join(out, "cases.jsonl.gz"), cases)
    run_cases(cases, out, jobs=jobs, python=venv_python("3.6.0"), simulate=FAULT, quiet=True)
    files = bundle(out, str(tmp_path / "back"), "conformance-t")
    assert len(files) <= 8
    assert all(os.path.getsize(f) < 16 << 20 for f in files)
    results = str(tmp_path / "back" / "conformance-t-results.jsonl.gz")
    cases_file = os.path.join(out, "cases.jsonl.gz")
    assert replay_main(argparse.Namespace(results=results, cases=cases_file)) == 0
