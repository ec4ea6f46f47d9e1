r"""Collect the conformance campaigns' passing modules the miscompile sites must not flag.

Writes ``conformance/tests/data/campaign-bc-passing.jsonl.gz``: every case of
campaigns b and c (families shared, convert, dot) that passed on the H100 (Triton 3.6.0)
and has an 8-bit ``convert_layout`` or a ``#ttg.shared_linear`` buffer, as the TTGIR the
campaign ran, trimmed to what ``check-ttgir`` reads (layout definitions, the module line
and the layout-sensitive ops). ``tests/gpu_findings.rs`` checks it.

The campaign results live in the git-ignored device archive (``notes/conformance.md``):

    python3 tests/oracle/campaign_passing_modules.py \
        --campaign b conformance/linear_layout_conformance/campaign/cases-b.jsonl.gz \
            target/s3dev/device-archive/campaign-b/conformance-b-results.jsonl.gz \
        --campaign c target/s3dev/cases-c.jsonl.gz \
            target/s3dev/device-archive/campaign-c/conformance-cases-c-results.jsonl.gz

Run with the package's virtual environment (``python/.venv``), which the case builder needs.
"""

import argparse
import gzip
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "conformance"))

from linear_layout_conformance.emit import emit  # noqa: E402
from linear_layout_conformance.layouts import Dialect  # noqa: E402
from linear_layout_conformance.program import build  # noqa: E402
from linear_layout_conformance.worker import case_oracle  # noqa: E402

EIGHT_BIT = ("xi8,", "xf8E4M3FN,", "xf8E5M2,")
READ_OPS = ("convert_layout", "local_alloc", "local_load", "local_store", "memdesc_trans")
OUT = os.path.join(REPO, "conformance/tests/data/campaign-bc-passing.jsonl.gz")


def trimmed(text):
    """Return the module with only what check-ttgir reads."""
    keep = [
        line
        for line in text.splitlines()
        if line.startswith(("#", "module")) or any(op in line for op in READ_OPS)
    ]
    return "\n".join(keep) + "\n}\n"


def passing(cases_path, results_path, campaign):
    """Yield the passing records of one campaign that the sites could claim."""
    with gzip.open(results_path, "rt") as f:
        results = {r["id"]: r for r in map(json.loads, f)}
    with gzip.open(cases_path, "rt") as f:
        for case in map(json.loads, f):
            r = results.get(case["id"])
            if (
                r is None
                or r["verdict"] != "pass"
                or r.get("family") not in ("shared", "convert", "dot")
            ):
                continue
            oracle = case_oracle(case)
            text = emit(build(case["params"], oracle), Dialect(oracle))
            eight = "convert_layout" in text and any(t in text for t in EIGHT_BIT)
            if eight or "#ttg.shared_linear" in text:
                yield {
                    "id": case["id"],
                    "campaign": campaign,
                    "family": r["family"],
                    "triton": case["params"]["triton"],
                    "ttgir": trimmed(text),
                }


def main():
    """Write the data file from the campaigns named on the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--campaign", nargs=3, action="append", required=True, metavar=("NAME", "CASES", "RESULTS")
    )
    args = ap.parse_args()
    n = 0
    with gzip.open(OUT, "wt", compresslevel=9) as out:
        for name, cases, results in args.campaign:
            for rec in passing(cases, results, name):
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
                n += 1
    print(f"{n} passing modules -> {os.path.relpath(OUT, REPO)}")


if __name__ == "__main__":
    main()
