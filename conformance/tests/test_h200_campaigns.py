"""The TTGIR part of the H200 campaigns on 3.9.0 and 3.8.0 (``notes/conformance.md``), replayed.

Every non-passing record and 300 passing ones of each campaign, with their
cases (``data/h200-ttgir-*``): ``replay`` re-derives each passing kernel's
exact outputs and each wrong one's verdict from the recorded bytes, and
checks that the module re-emitted from the parameters is the one that ran.
"""

from __future__ import annotations

import gzip
import json
import os

import pytest
from cfhelpers import REPO

from linear_layout_conformance.replay import replay_record

DATA = os.path.join(REPO, "conformance", "tests", "data")


@pytest.mark.parametrize("release", ["3.9", "3.8"])
def test_recorded_ttgir_results_replay(release):
    """Every recorded verdict follows from the recorded outputs; the 3.9 run has no wrong one."""
    with gzip.open(os.path.join(DATA, f"h200-ttgir-{release}-cases.jsonl.gz"), "rt") as f:
        cases = {c["id"]: c for c in map(json.loads, f)}
    with gzip.open(os.path.join(DATA, f"h200-ttgir-{release}-results.jsonl.gz"), "rt") as f:
        results = [json.loads(line) for line in f]
    assert len(results) > 300
    problems = {r["id"]: replay_record(cases[r["id"]], r) for r in results}
    assert not {k: v for k, v in problems.items() if v}
    verdicts = {r["verdict"] for r in results}
    if release == "3.9":
        assert verdicts == {"pass", "launch_error"}  # two out-of-shared-memory launches
    else:
        assert "illegal_access" in verdicts
