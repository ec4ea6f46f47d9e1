"""Warp-specialized K loops (``tl.range(..., warp_specialize=True)``; triton #8311).

The tile kernel of :mod:`.wgmma` with its loop marked for automatic warp
specialization: the pipeline splits it into a producer partition (loads, by
pointers or through TMA descriptors) and consumer warpgroups (wgmma), with
barriers between them.  Releases that do not specialize on Hopper compile the
loop as an ordinary pipelined one, which must give the same answer.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from . import wgmma
from .matmul import draw_tile
from .spec import Kernel

NAME = "wsloop"
MIN_RELEASE = (3, 4)


def draw(rng: random.Random, release: str) -> dict[str, Any]:
    """Return random parameters of one case."""
    dtype = rng.choice(["fp16", "fp16", "bf16", "fp8e4nv", "fp32"])
    warps = rng.choice([4, 4, 8])
    stages = rng.choice([2, 3, 4])
    bm, bn, bk = draw_tile(rng, dtype, stages, warps)
    bm = max(bm, 64)
    p = {
        "family": NAME,
        "dtype": dtype,
        "BM": bm,
        "BN": max(bn, 16),
        "BK": bk,
        "K": bk * rng.choice([1, 2, 4, 8]),
        "grid_m": rng.choice([1, 2]),
        "grid_n": rng.choice([1, 2]),
        "m_cut": 0,
        "a_trans": False,
        "b_trans": rng.random() < 0.5,
        "acc_form": "arg",
        "epilogue": rng.choice(["store", "bias", "cast_fp16"]),
        "tma": rng.random() < 0.5,
        "num_warps": warps,
        "num_stages": stages,
    }
    return p


def kernel(p: dict[str, Any]) -> Kernel:
    """Return the kernel of ``p``."""
    if p["tma"]:
        b_desc = (
            "tl.make_tensor_descriptor(b_ptr, [N_TOT, K], [K, 1], [BN, BK])"
            if p["b_trans"]
            else "tl.make_tensor_descriptor(b_ptr, [K, N_TOT], [N_TOT, 1], [BK, BN])"
        )
        setup = (
            "a_desc = tl.make_tensor_descriptor(a_ptr, [M_TOT, K], [K, 1], [BM, BK])\n"
            f"    b_desc = {b_desc}\n    "
        )
        a = "a = a_desc.load([pid_m * BM, k])"
        b = (
            "b = tl.trans(b_desc.load([pid_n * BN, k]))"
            if p["b_trans"]
            else "b = b_desc.load([k, pid_n * BN])"
        )
    else:
        setup = ""
        a, b = wgmma.loads(p)
    src = f"""import triton
import triton.language as tl


@triton.jit
def kernel(a_ptr, b_ptr, bias_ptr, c_ptr, m_real, K, M_TOT: tl.constexpr, N_TOT: tl.constexpr,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ACC: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    {setup}acc = tl.zeros((BM, BN), dtype=ACC)
    for k in tl.range(0, K, BK, warp_specialize=True):
        {a}
        {b}
        {wgmma.dot(p)}
    {wgmma.epilogue(p)}
"""
    return Kernel(source=src, **wgmma.launch(p))


def inputs(p: dict[str, Any], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """As :func:`.wgmma.inputs`."""
    return wgmma.inputs(p, rng)


def expected(p: dict[str, Any], ins: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """As :func:`.wgmma.expected`."""
    return wgmma.expected(p, ins)
