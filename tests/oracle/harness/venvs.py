"""The Python of each Triton wheel's venv, made once by ``tests/oracle/venv.sh``."""

from __future__ import annotations

import os
import subprocess
from functools import cache

from . import child

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_SH = os.path.join(os.path.dirname(HERE), "venv.sh")


@cache
def python(wheel):
    """The python of the ``triton==wheel`` venv; ``SystemExit`` if it cannot be made."""
    p = subprocess.run(["bash", VENV_SH, wheel], capture_output=True, text=True)
    if p.returncode != 0 or not p.stdout.strip():
        raise SystemExit(f"no python with triton=={wheel} (tests/oracle/venv.sh failed): "
                         f"{p.stderr.strip()[-1500:]}")
    return p.stdout.strip().splitlines()[-1]


def installed_version(py):
    """``triton.__version__`` under the python ``py``; ``SystemExit`` if triton does not import."""
    ended = child.run([py, "-c", "import triton; print(triton.__version__)"], timeout=300)
    if ended.returncode != 0:
        raise SystemExit(f"triton does not import under {py}: {ended.stderr.strip()[-1500:]}")
    return ended.stdout.strip()
