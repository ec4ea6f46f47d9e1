"""Synthetic miscompiles, to test the classifier, replay and shrinker without a GPU.

A *fault* is JSON: ``{"swap": [["register", 0], ["lane", 1]], "when": {...}}``
says "the value that hardware position ``h`` of the output layout should
store is stored by position ``h`` with those two bits swapped", applied only
to cases matching ``when``: ``op`` (the program contains this op),
``layout`` (some value has a layout of this kind), ``min_numel`` (the output
has at least this many elements), ``min_warps``, ``family``.  ``"unwritten"``
instead of ``"swap"`` leaves the positions with that bit set untouched.

Faults of the worker itself, for the runner: ``{"die": "SIGSEGV"}`` kills
the worker in the run phase, ``{"cuda_error": "CUDA error: misaligned
address"}`` fails the launch as a CUDA error does (the worker answers, then
exits); ``when`` may also name case ``id`` s.
"""

from __future__ import annotations

from typing import Any

from .data import encode_value, sentinel
from .plan import Plan
from .program import Program


def _layout_kinds(spec: Any) -> set[str]:
    if not isinstance(spec, dict):
        return set()
    out = {spec.get("kind", "")}
    for k in ("parent",):
        if k in spec:
            out |= _layout_kinds(spec[k])
    return out


def applies(prog: Program, when: dict[str, Any], case_id: str | None = None) -> bool:
    """Whether a fault's ``when`` matches ``prog`` (case ``case_id``)."""
    if "id" in when:
        ids = when["id"] if isinstance(when["id"], list) else [when["id"]]
        if case_id not in ids:
            return False
    if "family" in when and prog.params.get("family") != when["family"]:
        return False
    if "op" in when and not any(op["op"] == when["op"] for op in prog.ops):
        return False
    if "layout" in when:
        kinds: set[str] = set()
        for v in prog.values.values():
            kinds |= _layout_kinds(v.layout)
        if when["layout"] not in kinds:
            return False
    out = prog.values[prog.output]
    if out.numel < when.get("min_numel", 0):
        return False
    return prog.warps >= when.get("min_warps", 0)


def simulated_outputs(prog: Program, plan: Plan, fault: dict[str, Any]) -> list[list[int]]:
    """Return what a kernel with ``fault`` would store, for every launch."""
    out_v = prog.values[prog.output]
    outs: list[list[int]] = []
    for launch in plan.launches:
        exp = list(launch.expected)
        bits = exp if launch.kind == "exact" else [encode_value(plan.out_dtype, x) for x in exp]
        outs.append(bits)
    if not applies(prog, fault.get("when", {})) or out_v.ll is None:
        return outs
    lay = out_v.ll
    names = [f"{k}:{i}" for k, i in lay.in_bits()]
    table = lay.table()
    holder = lay.holder_of()
    if "swap" in fault:
        (d1, b1), (d2, b2) = fault["swap"]
        try:
            i, j = names.index(f"{d1}:{b1}"), names.index(f"{d2}:{b2}")
        except ValueError:
            return outs
        res = []
        for bits in outs:
            new = list(bits)
            for p in range(len(bits)):
                h = holder[p]
                x, y = h >> i & 1, h >> j & 1
                g = h & ~((1 << i) | (1 << j)) | (y << i) | (x << j)
                new[p] = bits[table[g]]
            res.append(new)
        return res
    if "unwritten" in fault:
        d1, b1 = fault["unwritten"]
        try:
            i = names.index(f"{d1}:{b1}")
        except ValueError:
            return outs
        s = sentinel(plan.out_dtype)
        return [[s if holder[p] >> i & 1 else b for p, b in enumerate(bits)] for bits in outs]
    return outs
