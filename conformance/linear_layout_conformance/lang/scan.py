"""Scans and their epilogues: ``tl.cumsum``, ``tl.cumprod``, ``tl.associative_scan``.

A 1-D or 2-D tile is scanned along an axis (forwards or in reverse, rows
masked off at run time), then stored, or its last element picked out by a
masked sum, or reduced again: the scan's cross-warp carry and the layout of its
result are what the pipeline chooses.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .spec import TL, Arg, Kernel, exact_sum_bound, small_ints

NAME = "scan"
MIN_RELEASE = (3, 2)
OPS = ("cumsum", "cumsum_f32", "cumprod", "scan_max", "scan_xor")
EPILOGUES = ("store", "last", "reduce")


def draw(rng: random.Random, release: str) -> dict[str, Any]:
    """Return random parameters of one case."""
    dtype = rng.choice(["int32", "fp32", "fp16", "bf16", "int16"])
    ops = [o for o in OPS if not (o == "scan_xor" and not dtype.startswith("int"))]
    m = 1 << rng.randint(0, 7)
    n = 1 << rng.randint(0, 9)
    while m * n > 1 << 13:
        n //= 2
    return {
        "family": NAME,
        "dtype": dtype,
        "op": rng.choice(ops),
        "M": m,
        "N": n,
        "m_real": rng.randint(1, m) if rng.random() < 0.3 else m,
        "axis": rng.choice([0, 1, 1]),
        "reverse": rng.random() < 0.3,
        "epilogue": rng.choice(EPILOGUES),
        "num_warps": rng.choice([1, 2, 4, 4, 8, 16]),
    }


def _out_dtype(p: dict[str, Any]) -> str:
    if p["op"] == "cumsum_f32":
        return "fp32"
    if p["dtype"] == "int16" and p["op"] in ("cumsum", "cumprod"):
        return "int32"  # tl.cumsum / tl.cumprod widen narrow integers
    return p["dtype"]


def kernel(p: dict[str, Any]) -> Kernel:
    """Return the kernel of ``p``."""
    ax, rev = p["axis"], p["reverse"]
    call = {
        "cumsum": f"tl.cumsum(x, axis={ax}, reverse={rev})",
        "cumsum_f32": f"tl.cumsum(x, axis={ax}, reverse={rev}, dtype=tl.float32)",
        "cumprod": f"tl.cumprod(x, axis={ax}, reverse={rev})",
        "scan_max": f"tl.associative_scan(x, {ax}, _max, reverse={rev})",
        "scan_xor": f"tl.associative_scan(x, {ax}, _xor, reverse={rev})",
    }[p["op"]]
    length = "N" if ax == 1 else "M"
    idx = "cols[None, :]" if ax == 1 else "rows[:, None]"
    end = "0" if rev else f"{length} - 1"
    epi = {
        "store": "tl.store(out_ptr + offs, s.to(OUT))",
        "last": (
            f"t = tl.sum(tl.where({idx} == {end}, s.to(OUT), 0), axis={ax})\n"
            f"    tl.store(out_ptr + tl.arange(0, {'M' if ax == 1 else 'N'}), t)"
        ),
        "reduce": (
            f"t = tl.max(s.to(OUT), axis={ax})\n"
            f"    tl.store(out_ptr + tl.arange(0, {'M' if ax == 1 else 'N'}), t)"
        ),
    }[p["epilogue"]]
    src = f"""import triton
import triton.language as tl


@triton.jit
def _max(a, b):
    return tl.maximum(a, b)


@triton.jit
def _xor(a, b):
    return a ^ b


@triton.jit
def kernel(x_ptr, out_ptr, m_real, M: tl.constexpr, N: tl.constexpr, OUT: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=rows[:, None] < m_real, other={_other(p)})
    s = {call}
    {epi}
"""
    n_out = p["M"] * p["N"] if p["epilogue"] == "store" else (p["M"] if ax == 1 else p["N"])
    return Kernel(
        source=src,
        args=[
            Arg("in", "x_ptr", p["dtype"], (p["M"], p["N"])),
            Arg("out", "out_ptr", _out_dtype(p), (n_out,)),
            Arg("int", "m_real", value=p["m_real"]),
        ],
        constexprs={"M": p["M"], "N": p["N"], "OUT": TL[_out_dtype(p)]},
        num_warps=p["num_warps"],
    )


def _other(p: dict[str, Any]) -> str:
    return {"cumprod": "1", "scan_max": "-100"}.get(p["op"], "0")


def inputs(p: dict[str, Any], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Return small integers; products of +-1 and sparse sums keep every prefix exact."""
    m, n = p["M"], p["N"]
    if p["op"] == "cumprod":
        x = rng.choice([-1.0, 1.0], size=(m, n))
        x[rng.random((m, n)) < 0.5] = 1.0
        return {"x_ptr": x}
    if p["op"] == "scan_max":
        return {"x_ptr": small_ints(rng, (m, n), -99, 99)}
    if p["op"] == "scan_xor":
        return {"x_ptr": small_ints(rng, (m, n), 0, 255)}
    v = 2
    x = small_ints(rng, (m, n), -v, v)
    bound = min(exact_sum_bound(_out_dtype(p)), exact_sum_bound(p["dtype"]))
    line = n if p["axis"] == 1 else m
    keep = int(bound // v)
    if keep < line:  # at most `keep` nonzeros along each scanned line
        lines = x if p["axis"] == 1 else x.T
        for row in lines:
            row[rng.permutation(line)[keep:]] = 0
    return {"x_ptr": x}


def _scan(x: np.ndarray, op: str, axis: int, reverse: bool) -> np.ndarray:
    if reverse:
        x = np.flip(x, axis)
    if op in ("cumsum", "cumsum_f32"):
        s = np.cumsum(x, axis=axis)
    elif op == "cumprod":
        s = np.cumprod(x, axis=axis)
    elif op == "scan_max":
        s = np.maximum.accumulate(x, axis=axis)
    else:
        s = np.bitwise_xor.accumulate(x.astype(np.int64), axis=axis).astype(np.float64)
    return np.flip(s, axis) if reverse else s


def expected(p: dict[str, Any], ins: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Return the exact output (masked rows hold the load's ``other``)."""
    x = ins["x_ptr"].copy()
    x[p["m_real"] :, :] = float(_other(p))
    ax = p["axis"]
    s = _scan(x, p["op"], ax, p["reverse"])
    if p["epilogue"] == "store":
        out = s.ravel()
    elif p["epilogue"] == "last":
        out = s.take(0 if p["reverse"] else -1, axis=ax)
    else:
        out = s.max(axis=ax)
    return {"out_ptr": np.asarray(out, dtype=np.float64).ravel()}
