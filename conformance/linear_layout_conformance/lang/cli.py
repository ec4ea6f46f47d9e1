"""``python -m linear_layout_conformance lang generate|replay ...``.

``generate``  write a case file of the Python-language families (no crate
              needed); run it like any case file: ``run --cases FILE``
              (``--dry-run`` compiles and self-checks on the CPU).
``replay``    re-derive every recorded verdict of a GPU run on the CPU: a
              passing record's output digest must be the digest of the exact
              expectation, a failing record's outputs must give its verdict.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from . import FAMILIES


def _read(path: str) -> list[dict[str, Any]]:
    from ..runner import read_cases

    return read_cases(path)


def replay(results: list[dict[str, Any]], cases: dict[str, dict[str, Any]]) -> list[str]:
    """Return where recorded verdicts and recorded outputs disagree (empty: nowhere)."""
    import numpy as np

    from .cases import data_of, kernel_of
    from .job import check_outputs, out_digest, out_digest_v1, unpack
    from .spec import GUARD

    problems = []
    for rec in results:
        case = cases.get(rec["id"])
        if case is None or not case.get("lang"):
            continue
        k = kernel_of(case)
        _, exp = data_of(case)
        if rec.get("verdict") in ("pass", "compiled"):
            pad = {
                n: np.concatenate([np.full(GUARD, np.nan), v, np.full(GUARD, np.nan)])
                for n, v in exp.items()
            }
            digest = rec.get("out_digest") or ""
            # "z...": zeros and sentinels canonical; older: as the first H200 runs hashed them
            want = out_digest(k, pad) if digest.startswith("z") else out_digest_v1(k, pad)
            if digest != want:
                problems.append(f"{rec['id']}: recorded as {rec['verdict']}, digest differs")
        elif rec.get("verdict") == "wrong":
            if "outputs" not in rec:
                problems.append(f"{rec['id']}: wrong without outputs")
                continue
            got = check_outputs(k, exp, unpack(rec["outputs"]))
            if (got["verdict"], got.get("kind")) != ("wrong", rec.get("kind")):
                problems.append(
                    f"{rec['id']}: recorded wrong/{rec.get('kind')}, outputs give {got}"
                )
    return problems


def main(argv: list[str]) -> int:
    """Entry point of ``lang``."""
    ap = argparse.ArgumentParser(prog="conformance lang", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="write a case file of the Python-language families")
    g.add_argument("--count", type=int, default=100)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--start", type=int, default=0)
    g.add_argument("--triton", default="3.9", help="release the cases are for (default 3.9)")
    g.add_argument("--cap", type=int, default=90)
    g.add_argument("--families", default=",".join(FAMILIES))
    g.add_argument("--out", required=True)
    r = sub.add_parser("replay", help="check recorded GPU results on the CPU")
    r.add_argument("results")
    r.add_argument("--cases", required=True)
    args = ap.parse_args(argv)
    if args.cmd == "generate":
        from ..runner import write_cases
        from .cases import make_cases

        fams = [f for f in args.families.split(",") if f]
        bad = [f for f in fams if f not in FAMILIES]
        if bad:
            raise SystemExit(f"unknown families {bad}; choose from {list(FAMILIES)}")
        cases = make_cases(args.count, args.seed, args.triton, fams, args.cap, args.start)
        write_cases(args.out, cases)
        counts = Counter(c["lang"] for c in cases)
        print(f"lang: wrote {len(cases)} cases to {args.out}: {dict(counts)}", file=sys.stderr)
        return 0
    cases = {c["id"]: c for c in _read(args.cases)}
    results = _read(args.results)
    problems = replay(results, cases)
    n = sum(1 for r in results if r["id"] in cases)
    print(f"lang replay: {n} records, {len(problems)} disagreements")
    for p in problems[:50]:
        print("  " + p)
    return 1 if problems else 0
