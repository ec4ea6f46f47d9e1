"""Kernels written in Triton's Python language, one generator family per module.

The TTGIR families (:mod:`..generate`) fix every layout by hand, so no layout
pass runs.  These families write ``@triton.jit`` kernels instead, so the
release's whole pipeline chooses the layouts, the pipelining, the warp
specialization and the memory path: where the silent wrong results of 2026
were found (reduction epilogues, fp8 through transposed stores, multi-warpgroup
wgmma with its waits, warp-specialized loops, TMA descriptors, ``dot_scaled``,
persistent loops, dot/trans chains).

Every input is a small integer (or a value the narrow type holds exactly) and
every intermediate stays inside the range where its type is exact, so the
right output is one value, computed on the CPU (:mod:`.spec`), whatever order
the GPU sums in; the GPU must match it bit for bit.  ``FAMILIES`` maps each
family name to its module (``draw``, ``kernel``, ``inputs``, ``expected``).
"""

from __future__ import annotations

from types import ModuleType

from . import chain, dotscaled, fp8store, persistent, reduce, scan, tma, wgmma, wsloop

FAMILIES: dict[str, ModuleType] = {
    m.NAME: m for m in (reduce, scan, fp8store, wgmma, wsloop, tma, dotscaled, persistent, chain)
}

__all__ = ["FAMILIES"]
