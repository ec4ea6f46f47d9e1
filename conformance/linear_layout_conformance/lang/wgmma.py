"""Pipelined matmul tiles: multi-warpgroup wgmma with its waits (triton #11047).

One ``BM x BN`` tile per program, a K loop of ``tl.dot`` software-pipelined
over ``num_stages`` (async wgmma, ``warpgroup.wait``), 4 to 16 warps (1 to 4
warpgroups), A or B loaded transposed (``tl.trans``), fp16 / bf16 / fp8 /
int8 / tf32 operands, rows masked off at run time, and an epilogue that adds
a bias, casts, or reduces the tile.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .matmul import OPERANDS, acc_dtype, draw_tile, exact_operands
from .spec import TL, Arg, Kernel, small_ints

NAME = "wgmma"
MIN_RELEASE = (3, 2)
EPILOGUES = ("store", "bias", "cast_fp16", "row_sum")


def draw(rng: random.Random, release: str) -> dict[str, Any]:
    """Return random parameters of one case."""
    dtype = rng.choice(OPERANDS)
    warps = rng.choice([4, 4, 8, 8, 16])
    stages = rng.choice([1, 2, 3, 3, 4])
    bm, bn, bk = draw_tile(rng, dtype, stages, warps)
    iters = rng.choice([1, 2, 3, 4, 8])
    epi = rng.choice(EPILOGUES)
    if epi == "cast_fp16" and dtype == "int8":
        epi = "store"
    return {
        "family": NAME,
        "dtype": dtype,
        "BM": bm,
        "BN": bn,
        "BK": bk,
        "K": bk * iters,
        "grid_m": rng.choice([1, 2]),
        "grid_n": rng.choice([1, 2]),
        "m_cut": rng.randint(0, bm - 1) if rng.random() < 0.25 else 0,
        "a_trans": rng.random() < 0.3,
        "b_trans": rng.random() < 0.4,
        "acc_form": rng.choice(["arg", "add"]),
        "epilogue": epi,
        "num_warps": warps,
        "num_stages": stages,
    }


def out_dtype(p: dict[str, Any]) -> str:
    """Return the stored type."""
    return "fp16" if p["epilogue"] == "cast_fp16" else acc_dtype(p["dtype"])


def loads(p: dict[str, Any], k: str = "k") -> tuple[str, str]:
    """Return the source lines loading the A and B blocks at ``k`` (maybe stored transposed)."""
    if p["a_trans"]:  # A stored [K, M_TOT]
        a = f"a = tl.trans(tl.load(a_ptr + ({k} + rk)[:, None] * M_TOT + rm[None, :]))"
    else:
        a = f"a = tl.load(a_ptr + rm[:, None] * K + ({k} + rk)[None, :], mask=rm[:, None] < m_real)"
    if p["b_trans"]:  # B stored [N_TOT, K]
        b = f"b = tl.trans(tl.load(b_ptr + rn[:, None] * K + ({k} + rk)[None, :]))"
    else:
        b = f"b = tl.load(b_ptr + ({k} + rk)[:, None] * N_TOT + rn[None, :])"
    return a, b


def epilogue(p: dict[str, Any]) -> str:
    """Return the source lines storing the accumulator ``acc`` of tile ``(rm, rn)``."""
    mask = "mask=rm[:, None] < m_real"
    if p["epilogue"] == "row_sum":
        return (
            "s = tl.sum(acc, axis=1)\n"
            "    tl.store(c_ptr + rm * (N_TOT // BN) + pid_n, s, mask=rm < m_real)"
        )
    val = {
        "store": "acc",
        "bias": "acc + tl.load(bias_ptr + rn)[None, :]",
        "cast_fp16": "acc.to(tl.float16)",
    }[p["epilogue"]]
    return f"tl.store(c_ptr + rm[:, None] * N_TOT + rn[None, :], {val}, {mask})"


def dot(p: dict[str, Any]) -> str:
    """Return the accumulating dot."""
    return "acc = tl.dot(a, b, acc)" if p["acc_form"] == "arg" else "acc += tl.dot(a, b)"


def kernel(p: dict[str, Any]) -> Kernel:
    """Return the kernel of ``p``."""
    a, b = loads(p)
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
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in range(0, K, BK):
        {a}
        {b}
        {dot(p)}
    {epilogue(p)}
"""
    return Kernel(source=src, **launch(p))


def shapes(p: dict[str, Any]) -> tuple[int, int, int]:
    """``(M_TOT, N_TOT, K)``."""
    return p["BM"] * p["grid_m"], p["BN"] * p["grid_n"], p["K"]


def launch(p: dict[str, Any]) -> dict[str, Any]:
    """Return the arguments, constexprs, grid and options of the tile kernels."""
    m, n, k = shapes(p)
    c_shape = (m * p["grid_n"],) if p["epilogue"] == "row_sum" else (m * n,)
    return {
        "args": [
            Arg("in", "a_ptr", p["dtype"], (k, m) if p["a_trans"] else (m, k)),
            Arg("in", "b_ptr", p["dtype"], (n, k) if p["b_trans"] else (k, n)),
            Arg("in", "bias_ptr", acc_dtype(p["dtype"]), (n,)),
            Arg("out", "c_ptr", out_dtype(p), c_shape),
            Arg("int", "m_real", value=m - p["m_cut"]),
            Arg("int", "K", value=k),
        ],
        "constexprs": {
            "M_TOT": m,
            "N_TOT": n,
            "BM": p["BM"],
            "BN": p["BN"],
            "BK": p["BK"],
            "ACC": TL[acc_dtype(p["dtype"])],
        },
        "grid": (p["grid_m"], p["grid_n"]),
        "num_warps": p["num_warps"],
        "num_stages": p["num_stages"],
    }


def inputs(p: dict[str, Any], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Return exact operands (A is stored transposed where the kernel loads it so)."""
    m, n, k = shapes(p)
    out = "fp16" if p["epilogue"] == "cast_fp16" else acc_dtype(p["dtype"])
    a, b = exact_operands(rng, (m, k), (k, n), out)
    if p["epilogue"] == "row_sum":  # the row sums of the tile stay exact too
        a = np.clip(a, -1, 1)
    return {
        "a_ptr": a.T.copy() if p["a_trans"] else a,
        "b_ptr": b.T.copy() if p["b_trans"] else b,
        "bias_ptr": small_ints(rng, (n,), -8, 8),
    }


def product(p: dict[str, Any], ins: dict[str, np.ndarray]) -> np.ndarray:
    """Return ``A @ B`` from the stored operands."""
    a = ins["a_ptr"].T if p["a_trans"] else ins["a_ptr"]
    b = ins["b_ptr"].T if p["b_trans"] else ins["b_ptr"]
    return np.asarray(a @ b, dtype=np.float64)


def expected(p: dict[str, Any], ins: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Return the exact output; rows past ``m_real`` are left alone."""
    c = product(p, ins)
    m, _n, _ = shapes(p)
    if p["epilogue"] == "bias":
        c = c + ins["bias_ptr"][None, :]
    if p["epilogue"] == "row_sum":
        c = c.reshape(m, p["grid_n"], p["BN"]).sum(axis=2)
    c = c.copy()
    c[m - p["m_cut"] :, :] = np.nan
    return {"c_ptr": c.ravel()}
