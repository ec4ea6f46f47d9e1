"""Known bug families: which recorded finding a non-passing case looks like.

A campaign on a release with known bugs would otherwise report them again
and again. :func:`known_family` names the finding whose pattern a case's
parameters match (``notes/findings/gpu-*.md``), for the releases the finding
affects; the runner adds it to non-passing records as ``known``, and the
summary counts them apart. It is a pointer for triage, not a verdict: the
patterns are what the H100 runs showed necessary, and a case that matches
one may still fail for a new reason (its shrunk reproducer tells).

The releases of a family our crate models as a miscompile site are that
site's (its descriptor, through the oracle: ``sites()``); where no crate
answers (the GPU machine, unless it carries the CLI) those families are
not named. The one family no site models (a ptxas bug, not a layout's)
keeps the releases its H100 runs measured.
"""

from __future__ import annotations

from functools import cache
from typing import Any

# finding -> (the crate's site that models it, the note)
SITE_FAMILIES: dict[str, tuple[str, str]] = {
    "shared-linear-xor": (
        "shared_linear_xor",
        "notes/findings/gpu-shared-linear-xor.md (fixed in 3.9, triton-lang/triton#10122)",
    ),
    "8bit-convert": (
        "convert_8bit_shuffle",
        "notes/findings/gpu-8bit-convert.md (right in 3.8)",
    ),
}

# finding -> (the releases the H100 runs measured wrong, the note): finding
# data, not a copy of the release table (no site models a ptxas bug)
MEASURED_FAMILIES: dict[str, tuple[frozenset[str], str]] = {
    "wgmma-operand-reuse": (
        frozenset({"3.6", "3.7"}),
        "notes/findings/gpu-wgmma-operand-reuse.md (ptxas 12.8; fixed with ptxas 12.9)",
    ),
}


@cache
def _site_releases() -> dict[str, frozenset[str]]:
    """Each site's releases, from the crate (empty when no crate answers)."""
    from .oracle import NoCrateError, site_table

    try:
        sites = site_table()
    except NoCrateError:
        return {}
    return {s["id"]: frozenset(r for loc in s["locations"] for r in loc["releases"]) for s in sites}


def note(family: str) -> str:
    """Return where the finding is written up."""
    return (MEASURED_FAMILIES.get(family) or SITE_FAMILIES[family])[1]


def family_releases(family: str) -> frozenset[str]:
    """Return the releases ``family`` affects (none for a site family no crate answers for)."""
    if family in MEASURED_FAMILIES:
        return MEASURED_FAMILIES[family][0]
    return _site_releases().get(SITE_FAMILIES[family][0], frozenset())


_EIGHT_BIT = {"i8", "f8e4", "f8e5"}


def _specs(obj: Any) -> list[dict[str, Any]]:
    """Every layout spec nested in ``obj``."""
    out = []
    if isinstance(obj, dict):
        if "kind" in obj:
            out.append(obj)
        for v in obj.values():
            out += _specs(v)
    elif isinstance(obj, list):
        for v in obj:
            out += _specs(v)
    return out


def _xor_basis(spec: dict[str, Any]) -> bool:
    return spec.get("kind") == "shared_linear" and any(
        sum(bin(int(c)).count("1") for c in basis) > 1 for basis in spec.get("offset", [])
    )


def known_family(params: dict[str, Any]) -> str | None:
    """Return the known family whose pattern ``params`` match on their release, if any."""
    release = str(params.get("triton", ""))
    steps = params.get("steps", [])
    dots = [s for s in steps if s.get("op") == "dot"]
    v3 = [d for d in dots if (d.get("mma") or {}).get("version") == 3]
    types = {params.get("input", {}).get("dtype")} | {
        s.get("dtype") for s in steps if s.get("op") == "cast"
    }
    converts_8bit = bool(types & _EIGHT_BIT) and any(s.get("op") == "convert" for s in steps)
    # an 8-bit MMA v2 dot converts its operands into dot-operand layouts
    dots_8bit = params.get("input", {}).get("dtype") in _EIGHT_BIT and any(
        (d.get("mma") or {}).get("version") == 2 for d in dots
    )
    found = None
    if len(v3) >= 2:
        found = "wgmma-operand-reuse"
    elif any(_xor_basis(s) for s in _specs(steps)):
        found = "shared-linear-xor"
    elif converts_8bit or dots_8bit:
        found = "8bit-convert"
    if found and release in family_releases(found):
        return found
    return None
