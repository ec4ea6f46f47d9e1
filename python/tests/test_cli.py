"""The ``linear-layout`` console script the wheel installs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def _command() -> str:
    """The console script beside this interpreter (the venv's ``bin``), else on PATH."""
    beside = Path(sys.executable).parent / "linear-layout"
    if beside.exists():
        return str(beside)
    found = shutil.which("linear-layout")
    if found is None:
        pytest.fail("the wheel installed no `linear-layout` console script")
    return found


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_command(), *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_version_names_the_package_version() -> None:
    import linear_layout

    done = _run("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"linear-layout {linear_layout.__version__}"


def test_predict_exits_1_on_a_predicted_abort_and_names_the_site() -> None:
    args = (
        "predict --pattern chain-b --m 64 --n 64 --k 64 --x 64 --dtype bf16 --num-warps 8"
        " --num-stages 2 --arch sm90 --triton 3.2"
    )
    done = _run(*args.split())
    assert done.returncode == 1, done.stderr
    assert "stmatrix" in done.stdout


def test_bad_usage_exits_2_with_clap_s_message() -> None:
    done = _run("predict", "--no-such-flag")
    assert done.returncode == 2
    assert "--no-such-flag" in done.stderr
    assert done.stdout == ""


def test_the_script_and_the_extension_answer_alike() -> None:
    from linear_layout import _native

    assert _native.run_cli(["linear-layout", "sites"]) == 0
    assert _native.run_cli(["linear-layout", "bogus-command"]) == 2
