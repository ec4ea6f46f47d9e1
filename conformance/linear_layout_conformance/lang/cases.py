"""Case records of the Python-language families, and what a case derives from its parameters.

``{"id", "lang": FAMILY, "params", "source"}``: the parameters decide the
kernel (``source``, kept so that a reproducer needs nothing else), its
launch, its inputs (from ``params["data_seed"]``) and the exact expected
outputs.  Case ``i`` of seed ``s`` depends only on ``(s, i)`` and the family
list, as the TTGIR cases do.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import FAMILIES
from .spec import Kernel


def release_tuple(release: str) -> tuple[int, int]:
    """``"3.9"`` or ``"3.9.0"`` -> ``(3, 9)``."""
    major, minor = release.split(".")[:2]
    return int(major), int(minor)


def make_case(
    family: str, seed: int, index: int, release: str = "3.9", cap: int = 90
) -> dict[str, Any]:
    """Case ``index`` of ``seed`` in ``family``."""
    mod = FAMILIES[family]
    rng = random.Random(f"lang-{family}-{seed}-{index}")
    params = mod.draw(rng, release)
    params.update(
        seed=[seed, index, 0],
        triton=release,
        cap=cap,
        data_seed=zlib.crc32(f"data-{family}-{seed}-{index}".encode()),
    )
    return {
        "id": f"{seed}-{index}",
        "lang": family,
        "params": params,
        "source": mod.kernel(params).source,
    }


def make_cases(
    count: int,
    seed: int,
    release: str = "3.9",
    families: Sequence[str] | None = None,
    cap: int = 90,
    start: int = 0,
) -> list[dict[str, Any]]:
    """Return ``count`` cases, each of a family drawn from ``families`` (default: all)."""
    fams = [
        f for f in (families or list(FAMILIES)) if release_tuple(release) >= FAMILIES[f].MIN_RELEASE
    ]
    if not fams:
        return []
    out = []
    for i in range(start, start + count):
        fam = random.Random(f"lang-family-{seed}-{i}").choice(fams)
        out.append(make_case(fam, seed, i, release, cap))
    return out


def kernel_of(case: dict[str, Any]) -> Kernel:
    """Return the kernel of a case (its recorded source wins over a regenerated one)."""
    k = FAMILIES[case["lang"]].kernel(case["params"])
    k.source = case.get("source") or k.source
    return k


def data_of(case: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Return the inputs and expected outputs of a case."""
    mod = FAMILIES[case["lang"]]
    ins = mod.inputs(case["params"], np.random.default_rng(case["params"]["data_seed"]))
    return ins, mod.expected(case["params"], ins)
