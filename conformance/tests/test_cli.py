"""The command line and the reproducibility of generation."""

from __future__ import annotations

import os
import subprocess
import sys

from cfhelpers import PKG_DIR, REPO

from linear_layout_conformance.cases import make_cases
from linear_layout_conformance.oracle import Oracle


def test_help_as_script_and_module():
    p = subprocess.run(
        [sys.executable, os.path.join(PKG_DIR, "__main__.py"), "--help"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert p.returncode == 0, p.stderr
    assert "replay" in p.stdout
    for sub in ("run", "generate", "shrink", "replay"):
        p = subprocess.run(
            [sys.executable, os.path.join(PKG_DIR, "__main__.py"), sub, "--help"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert p.returncode == 0, p.stderr


def test_generation_is_reproducible(binary):
    oracle = Oracle("3.6", binary=binary)
    a = make_cases(12, 4242, oracle=oracle)
    b = make_cases(12, 4242, oracle=Oracle("3.6", binary=binary))
    assert a == b
    one = make_cases(1, 4242, oracle=oracle, start=7)
    assert one[0] == a[7]


def test_generate_command(binary, tmp_path):
    out = tmp_path / "cases.jsonl.gz"
    p = subprocess.run(
        [
            sys.executable,
            os.path.join(PKG_DIR, "__main__.py"),
            "generate",
            "--count",
            "5",
            "--seed",
            "3",
            "--out",
            str(out),
            "--binary",
            binary,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert out.exists()
