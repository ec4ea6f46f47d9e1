"""The guilty pass on the CPU (``passbisect``): the int16 argmax family of the H200 runs.

On the H200, ``tl.argmax`` over int16 rows that are all the masked ``other`` gave index 1
instead of 0 on 3.6.0 and 3.8.0 and 0 on 3.9.0 (``findings/gpu-int16-reduce.md``). Here the
same kernel's PTX, run by ``ptxemu``, gives the same answers, and cutting 3.8.0's pipeline
after every pass names the first pass whose output computes wrong.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from cfhelpers import PKG_DIR, venv_python

DRIVER = os.path.join(os.path.dirname(__file__), "bisect_int16_argmax.py")


def _run(wheel: str) -> dict:
    env = dict(os.environ, LLCONFORMANCE_DIR=PKG_DIR)
    p = subprocess.run(
        [venv_python(wheel), DRIVER],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
        check=False,
    )
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    assert lines, p.stderr[-3000:]
    return json.loads(lines[-1])


@pytest.mark.parametrize("wheel", ["3.8.0", "3.6.0"])
def test_emulated_output_is_the_h200_one_and_the_pass_is_named(wheel):
    """Rows 21..31 hold 1 (the H200's answer); the first wrong module follows one pass."""
    r = _run(wheel)
    wrong = [i for i, (a, b) in enumerate(zip(r["final"], r["want"])) if a != b]
    assert wrong == list(range(21, 32))
    assert all(r["final"][i] == 1 for i in wrong)
    assert r["guilty"].startswith("TritonGPURemoveLayoutConversions"), r["guilty"]


def test_emulated_output_is_right_on_3_9():
    """3.9.0 computes every row right, as on the H200; no stage is wrong."""
    r = _run("3.9.0")
    assert r["final"] == r["want"]
    assert r["guilty"] == "no fault found"
