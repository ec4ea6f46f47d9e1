"""Where the recorded Triton results live: the repository holding this package."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def read_cases(path: Path) -> list[dict[str, Any]]:
    """The recorded cases of a JSON Lines file: objects with a ``request``.

    Blank lines and other records (a file's ``{"header": ...}`` line) are
    skipped.
    """
    with path.open(encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    return [r for r in records if isinstance(r, dict) and "request" in r]
