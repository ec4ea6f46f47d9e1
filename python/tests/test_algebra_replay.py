"""Every recorded answer of Triton 3.9.0's binding, replayed through this package.

``tests/data/algebra/triton-3.9.0.jsonl`` holds requests with the answers of
``triton._C.libtriton.linear_layout.LinearLayout`` (``algebra_oracle.py
record``): a value, a Python exception, or an abort. The same calls on
``linear_layout.LinearLayout`` must give the same value, a ``ValueError``
where Triton raised one, and a ``LayoutError`` where Triton aborted.
"""

from __future__ import annotations

import collections
import json

import pytest
from layout_requests import inputs, json_same, recorded_form, run
from repo_data import DATA, read_cases

from linear_layout import LayoutError, LinearLayout

CASES = read_cases(DATA / "algebra" / "triton-3.9.0.jsonl")
BY_OP = collections.defaultdict(list)
for _case in CASES:
    BY_OP[_case["request"]["op"]].append(_case)


def test_the_recording_is_there() -> None:
    assert len(CASES) >= 2000
    outcomes = collections.Counter(
        "ok" if "ok" in c["expect"] else c["expect"]["error"]["triton"] for c in CASES
    )
    assert outcomes["ok"] > 1000
    assert outcomes["abort"] > 100


def disagreement(case: dict) -> str | None:
    """Why our answer differs from the recorded one, or None."""
    req, expect = case["request"], case["expect"]
    a, b = inputs(LinearLayout, req)
    try:
        ours = recorded_form(req, run(LinearLayout, req, a, b))
    except LayoutError as e:
        if "ok" in expect:
            return f"raised LayoutError({e.kind}: {e}) where Triton answered"
        return None
    except ValueError as e:
        if expect.get("error", {}).get("triton") == "exception":
            return None
        return f"raised {type(e).__name__}({e}); Triton: {expect}"
    if "ok" not in expect:
        return f"answered {ours!r} where Triton gave {expect['error']}"
    if not json_same(ours, expect["ok"]):
        return f"answered {json.dumps(ours)}, Triton {json.dumps(expect['ok'])}"
    return None


@pytest.mark.parametrize("op", sorted(BY_OP))
def test_op_agrees_with_triton(op: str) -> None:
    failures = []
    for case in BY_OP[op]:
        why = disagreement(case)
        if why is not None:
            failures.append(f"{json.dumps(case['request'])}\n    {why}")
    assert not failures, f"{len(failures)} of {len(BY_OP[op])} cases disagree:\n" + "\n".join(
        failures[:10]
    )
