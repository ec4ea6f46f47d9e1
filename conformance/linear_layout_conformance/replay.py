"""Replaying recorded results without a GPU.

For every record of a ``results.jsonl`` (with the run's ``cases.jsonl.gz``)
``replay`` rebuilds the case from its parameters and saved layouts and
checks that the recorded verdict follows from what was recorded:

* the module text re-emitted from the parameters is the one that ran;
* ``pass``: the expected outputs of the exact launches, re-derived here,
  hash to the digest of what the GPU wrote (and, for dot chains, the
  recorded error is within the tolerance re-derived here);
* ``wrong``: the recorded outputs, re-checked here, give the same verdict,
  the same kinds of wrong elements and the same named map;
* everything else (compile failures, crashes, hangs): the case rebuilds.

Exit status 1 if any record is inconsistent.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections import Counter
from typing import Any

from .classify import check
from .emit import emit
from .layouts import Dialect
from .plan import make_plan
from .program import build
from .runner import read_cases
from .worker import case_oracle, exact_digest, unpack_outputs


def replay_record(case: dict[str, Any], rec: dict[str, Any]) -> list[str]:
    """Return the inconsistencies between ``rec`` and ``case`` (empty if none)."""
    problems: list[str] = []
    oracle = case_oracle(case)
    prog = build(case["params"], oracle)
    text = emit(prog, Dialect(oracle))
    if case.get("ttgir") and text != case["ttgir"]:
        problems.append("re-emitted module differs from the one that ran")
    v = rec.get("verdict")
    if v not in ("pass", "wrong", "compiled"):
        return problems
    plan = make_plan(prog, case["id"])
    if v in ("pass", "compiled"):
        want = exact_digest(plan, [list(x.expected) for x in plan.launches])
        if rec.get("exact_digest") != want:
            problems.append(f"{v}: outputs digest {rec.get('exact_digest')} != re-derived {want}")
        if plan.numeric and v == "pass" and rec.get("max_err", 0.0) > 2 * plan.tolerance:
            problems.append(
                f"pass with error {rec.get('max_err')} over tolerance {2 * plan.tolerance}"
            )
        return problems
    if "outputs" not in rec:
        if not rec.get("outputs_dropped"):
            problems.append("wrong result without recorded outputs")
        return problems
    outputs = unpack_outputs(rec["outputs"])
    res = check(prog, plan, outputs)
    for key in ("verdict", "kind", "wrong", "misplaced", "unwritten", "garbage"):
        if key in rec and res.get(key) != rec.get(key):
            problems.append(f"{key}: recorded {rec.get(key)!r}, re-derived {res.get(key)!r}")
    rec_map = (rec.get("map") or {}).get("name")
    res_map = (res.get("map") or {}).get("name")
    if rec_map != res_map:
        problems.append(f"map: recorded {rec_map!r}, re-derived {res_map!r}")
    return problems


def main(args: argparse.Namespace) -> int:
    """``replay RESULTS.jsonl [--cases FILE]``."""
    cases_path = args.cases or os.path.join(
        os.path.dirname(os.path.abspath(args.results)), "cases.jsonl.gz"
    )
    cases = {c["id"]: c for c in read_cases(cases_path)}
    opener = gzip.open if args.results.endswith(".gz") else open
    with opener(args.results, "rt") as f:
        records = [json.loads(line) for line in f if line.strip()]
    records = [r for r in records if "truncated" not in r or "id" in r]
    counts: Counter[str] = Counter()
    bad = 0
    for rec in records:
        case = cases.get(rec.get("id"))
        if case is None:
            print(f"replay: {rec.get('id')}: no such case in {cases_path}", file=sys.stderr)
            bad += 1
            continue
        try:
            problems = replay_record(case, rec)
        except Exception as e:
            problems = [f"replay failed: {type(e).__name__}: {e}"]
        counts[rec.get("verdict", "?")] += 1
        if problems:
            bad += 1
            print(
                f"replay: {rec['id']} ({rec.get('verdict')}): " + "; ".join(problems),
                file=sys.stderr,
            )
    summary = ", ".join(f"{k} {v}" for k, v in counts.most_common())
    print(
        f"replay: {len(records) - bad} of {len(records)} records consistent ({summary})",
        file=sys.stderr,
    )
    return 1 if bad else 0
