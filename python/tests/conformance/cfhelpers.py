"""Shared helpers of the conformance tests (a module of its own, so that
``import`` does not pick another directory's ``conftest``)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PKG_DIR = os.path.join(REPO, "python", "linear_layout", "conformance")

if "llconformance" not in sys.modules:
    _spec = importlib.util.spec_from_file_location(
        "llconformance", os.path.join(PKG_DIR, "__init__.py"), submodule_search_locations=[PKG_DIR]
    )
    assert _spec is not None
    assert _spec.loader is not None
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["llconformance"] = _mod
    _spec.loader.exec_module(_mod)

_PYTHONS: dict[str, str] = {}


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
