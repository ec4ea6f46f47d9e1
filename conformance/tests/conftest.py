"""Fixtures of the conformance fuzzer's CPU tests.

The package is imported from this checkout (as the worker processes import
it, see ``cfhelpers``); the tests need neither the ``linear_layout``
extension (the CLI binary answers instead) nor torch.
The compile tests need the Triton wheels (through ``tests/oracle/venv.sh``,
which makes the venvs once) and our CLI binary (``cargo build --release``);
they fail, not skip, without them.
"""

from __future__ import annotations

import os
import time

import pytest
from cfhelpers import default_binary


@pytest.fixture(scope="session")
def binary() -> str:
    """Our CLI binary (the layout oracle)."""
    path = default_binary()
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} missing: run `cargo build --release` first")
    os.environ["LINEAR_LAYOUT_BIN"] = path
    return path


@pytest.fixture(scope="session")
def fresh_seed() -> int:
    """A new seed each run (``CONFORMANCE_SEED`` to repeat one)."""
    seed = int(os.environ.get("CONFORMANCE_SEED", int(time.time()) % 1000003))
    print(f"conformance tests: seed {seed} (CONFORMANCE_SEED={seed} repeats this run)")
    return seed


@pytest.fixture(scope="session")
def jobs() -> int:
    """Compile processes (the CI box is small)."""
    return int(os.environ.get("CONFORMANCE_JOBS", "2"))
