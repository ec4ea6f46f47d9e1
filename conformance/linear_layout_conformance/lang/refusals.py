"""Compile refusals measured on the H200 (and on the CPU): not bugs of ours, not silent.

A release's front end or pipeline refuses some kernels these families draw, with an error,
every time; the campaigns count them apart (``notes/conformance.md``). :func:`refusal` names
the measured rule a case falls under, so a CPU test accepts exactly those compile errors and
fails on any other. The rules are as broad as the measurements, no broader: each says "may
be refused" where the same parameters also compiled.
"""

from __future__ import annotations

from typing import Any

from .cases import release_tuple


def refusal(params: dict[str, Any], release: str) -> str | None:
    """Return the measured refusal rule ``params`` falls under on ``release``, if any."""
    fam = params.get("family")
    rel = release_tuple(release)
    if fam == "wsloop" and params.get("num_warps") == 4:
        return "warp specialization with 4 warps (PassManager::run failed; 3.6, 3.8, 3.9)"
    if fam == "dot_scaled" and "e2m1" in (params.get("a_fmt"), params.get("b_fmt")):
        return "dot_scaled with an e2m1 operand (PassManager::run failed; 3.6, 3.8, 3.9)"
    if fam == "scan" and params.get("dtype") == "bf16" and params.get("op") == "scan_max":
        return "associative_scan of bf16 maximum (front end; 3.6, 3.8)" if rel <= (3, 8) else None
    if fam in ("persistent", "wgmma") and params.get("dtype") == "int8" and rel <= (3, 6):
        return "int8 tl.dot in these loops (front end; 3.6)"
    return None
