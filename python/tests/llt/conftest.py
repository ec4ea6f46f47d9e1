"""Fixtures for the linear_layout.triton tests (run per release by run_all.sh).

Every test needs an importable, modelled Triton: when there is none, the
tests fail (they never skip). ``LLT_TRITON_WHEEL=X.Y.Z`` also makes them fail
unless that exact wheel is the one imported.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import llt_import
import llt_support
import pytest

WHEEL_ENV = "LLT_TRITON_WHEEL"

# before any test module imports linear_layout
llt_import.prepare_path()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "triton: needs an importable Triton wheel")


@pytest.fixture(scope="session")
def triton_version() -> str:
    """The imported Triton's version (fails the test when there is none)."""
    try:
        import triton
    except ImportError as e:
        pytest.fail(
            f"Triton is not importable ({e}): these tests run inside a release's venv "
            "(python/tests/llt/run_all.sh)",
            pytrace=False,
        )
    want = os.environ.get(WHEEL_ENV)
    if want and triton.__version__ != want:
        pytest.fail(f"expected triton=={want}, imported {triton.__version__}", pytrace=False)
    return str(triton.__version__)


@pytest.fixture(scope="session")
def llt(triton_version: str) -> Any:
    """The ``linear_layout.triton`` module."""
    return llt_import.ensure()


@pytest.fixture(autouse=True)
def stand_in(
    llt: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[llt_support.StandInDriver]:
    """A fresh Triton cache, the stand-in driver, and clean guard state around each test.

    Containment's memory of failed compiles is per process; each test starts
    without it, and records failures under its own temporary directory.
    """
    from linear_layout.triton import _contain, _hooks

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    # failures are recorded here unless a test says otherwise
    monkeypatch.setattr(_contain, "settings", _contain.Settings(failures=str(tmp_path / "f.jsonl")))
    _hooks.by_key.data.clear()
    _hooks.by_text.data.clear()
    _contain.memo.data.clear()
    _contain._failures.clear()
    for name in ("checks", "key_hits", "text_hits"):
        setattr(_hooks.Stats, name, 0)
    for name in ("forks", "probe_hits", "memo_hits"):
        setattr(_contain.Stats, name, 0)
    driver = llt_support.activate()
    yield driver
    llt.uninstall()
    assert not _hooks.hooked(), "a test left the stage hooks in place"
