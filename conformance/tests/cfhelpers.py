"""Shared helpers of the conformance tests (a module of its own, so that
``import`` does not pick another directory's ``conftest``)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
PKG_DIR = os.path.join(REPO, "conformance", "linear_layout_conformance")

# The package as it is in this checkout (as the worker processes import it),
# whether or not it is installed.
sys.path.insert(0, os.path.dirname(PKG_DIR))

_PYTHONS: dict[str, str] = {}


def default_binary() -> str:
    """Our CLI binary (the layout oracle): ``$LINEAR_LAYOUT_BIN`` or target/release."""
    return os.environ.get("LINEAR_LAYOUT_BIN") or os.path.join(
        REPO, "target", "release", "linear-layout"
    )


def release_rows() -> list[dict[str, Any]]:
    """The crate's release table (for parametrizing by release at collection)."""
    from linear_layout_conformance.oracle import release_table

    return list(release_table(default_binary()))


def venv_python(version: str) -> str:
    """The python of the triton==VERSION venv (made once by venv.sh)."""
    if version not in _PYTHONS:
        p = subprocess.run(
            ["bash", os.path.join(REPO, "tests", "oracle", "venv.sh"), version],
            capture_output=True,
            text=True,
            check=False,
        )
        if p.returncode != 0 or not p.stdout.strip():
            pytest.fail(f"triton=={version} wheel unavailable: {p.stderr.strip()[-1000:]}")
        _PYTHONS[version] = p.stdout.strip().splitlines()[-1]
    return _PYTHONS[version]
