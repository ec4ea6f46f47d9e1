"""Case records: what a case file holds for each case.

``{"id", "params", "table", "ttgir"}``: the parameters (see
:mod:`.program`), the answers of our crate that building the case used (so
the GPU machine needs no crate), and the module text for the case's release.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .emit import emit
from .generate import FAMILIES, generate
from .layouts import Dialect
from .oracle import Oracle, Recorder, build_with
from .program import build


def case_id(params: dict[str, Any]) -> str:
    """Return the id of a generated case: ``SEED-INDEX`` (attempts are not part of it)."""
    seed, index, _ = params["seed"]
    return f"{seed}-{index}"


def make_record(params: dict[str, Any], oracle: Oracle, cid: str | None = None) -> dict[str, Any]:
    """Return the case record of ``params`` (fetching layouts as needed)."""
    d = Dialect(oracle)

    def go() -> tuple[Any, Recorder]:
        rec = Recorder(oracle)
        return build(params, rec, d), rec

    prog, rec = build_with(oracle, go)
    return {
        "id": cid or case_id(params),
        "params": params,
        "table": rec.table(),
        "ttgir": emit(prog, d),
    }


def make_cases(
    count: int,
    seed: int,
    release: str = "3.6",
    cap: int = 90,
    families: Sequence[str] = FAMILIES,
    oracle: Oracle | None = None,
    start: int = 0,
    progress: Any = None,
) -> list[dict[str, Any]]:
    """``count`` case records of seed ``seed``."""
    oracle = oracle or Oracle(release)
    gens = generate(count, seed, release, cap, families, oracle, start=start, progress=progress)
    return [make_record(g.params, oracle) for g in gens]
