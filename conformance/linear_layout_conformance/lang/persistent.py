"""Persistent matmul loops: a few programs walk every tile (``tl.range(..., flatten=True)``).

``M x N`` (not multiples of the tile) is cut into ``BM x BN`` tiles visited
in grouped order by ``P`` programs, each looping over its tiles and over K;
with ``flatten`` the pipeliner fuses the two loops, so the accumulator is
reset and stored in the middle of one software-pipelined loop (the epilogue
of one tile overlaps the loads of the next).  Loads by pointers or through
TMA descriptors.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .matmul import acc_dtype, draw_tile, exact_operands
from .spec import TL, Arg, Kernel

NAME = "persistent"
MIN_RELEASE = (3, 4)


def draw(rng: random.Random, release: str) -> dict[str, Any]:
    """Return random parameters of one case."""
    dtype = rng.choice(["fp16", "fp16", "bf16", "fp8e4nv", "int8", "fp32"])
    warps = rng.choice([4, 4, 8])
    stages = rng.choice([2, 3, 4])
    bm, bn, bk = draw_tile(rng, dtype, stages, warps)
    bm = min(bm, 128)
    tiles_m, tiles_n = rng.randint(1, 4), rng.randint(1, 4)
    return {
        "family": NAME,
        "dtype": dtype,
        "BM": bm,
        "BN": bn,
        "BK": bk,
        "M": bm * tiles_m - rng.choice([0, 0, rng.randint(1, bm - 1) if bm > 1 else 0]),
        "N": bn * tiles_n,
        "K": bk * rng.choice([1, 2, 3, 4]),
        "group": rng.choice([1, 2, 4]),
        "programs": rng.randint(1, tiles_m * tiles_n),
        "flatten": rng.random() < 0.6,
        "tma": rng.random() < 0.3 and dtype != "fp32",
        "num_warps": warps,
        "num_stages": stages,
    }


def kernel(p: dict[str, Any]) -> Kernel:
    """Return the kernel of ``p``."""
    if p["tma"]:
        setup = (
            "a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])\n"
            "    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])\n    "
        )
        a = "a = a_desc.load([pid_m * BM, k])"
        b = "b = b_desc.load([k, pid_n * BN])"
    else:
        setup = ""
        a = "a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M)"
        b = "b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])"
    src = f"""import triton
import triton.language as tl


@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           GROUP: tl.constexpr, P: tl.constexpr, ACC: tl.constexpr):
    start = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    rk = tl.arange(0, BK)
    {setup}for tile in tl.range(start, tiles_m * tiles_n, P, flatten={p["flatten"]}):
        group = tile // (GROUP * tiles_n)
        first_m = group * GROUP
        size_m = min(tiles_m - first_m, GROUP)
        pid_m = first_m + (tile % size_m)
        pid_n = (tile % (GROUP * tiles_n)) // size_m
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=ACC)
        for k in range(0, K, BK):
            {a}
            {b}
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=rm[:, None] < M)
"""
    m, n, k = p["M"], p["N"], p["K"]
    return Kernel(
        source=src,
        args=[
            Arg("in", "a_ptr", p["dtype"], (m, k)),
            Arg("in", "b_ptr", p["dtype"], (k, n)),
            Arg("out", "c_ptr", acc_dtype(p["dtype"]), (m * n,)),
            Arg("int", "M", value=m),
            Arg("int", "N", value=n),
            Arg("int", "K", value=k),
        ],
        constexprs={
            "BM": p["BM"],
            "BN": p["BN"],
            "BK": p["BK"],
            "GROUP": p["group"],
            "P": p["programs"],
            "ACC": TL[acc_dtype(p["dtype"])],
        },
        grid=(p["programs"],),
        num_warps=p["num_warps"],
        num_stages=p["num_stages"],
    )


def inputs(p: dict[str, Any], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Return exact operands."""
    a, b = exact_operands(rng, (p["M"], p["K"]), (p["K"], p["N"]), acc_dtype(p["dtype"]))
    return {"a_ptr": a, "b_ptr": b}


def expected(p: dict[str, Any], ins: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Return the exact product."""
    return {"c_ptr": (ins["a_ptr"] @ ins["b_ptr"]).ravel()}
