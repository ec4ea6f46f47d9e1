"""Block-scaled dots: ``tl.dot_scaled`` (emulated on Hopper; triton #11733 on sm_120).

``A [M, K]`` and ``B [K, N]`` in e4m3, e5m2, e2m1 (two values a byte, the
first in the low nibble) or bf16, with e8m0 scales (one byte per 32 values of
K: ``2 ** (s - 127)``) or none.  Hopper has no scaled MMA: the pipeline
upcasts both operands to bf16, applies the scales and runs a wgmma, so the
unpacking of nibbles, the broadcast of scales along K and the dot operand
layouts all meet.  Values, scales and products are exact in bf16 and fp32.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .spec import Arg, Kernel

NAME = "dot_scaled"
MIN_RELEASE = (3, 4)
FORMATS = ("e4m3", "e5m2", "e2m1", "bf16")
STORED = {"e4m3": "fp8e4nv", "e5m2": "fp8e5", "e2m1": "uint8", "bf16": "bf16"}
E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def draw(rng: random.Random, release: str) -> dict[str, Any]:
    """Return random parameters of one case."""
    fa, fb = rng.choice(FORMATS), rng.choice(FORMATS)
    return {
        "family": NAME,
        "a_fmt": fa,
        "b_fmt": fb,
        "a_scaled": fa != "bf16" and rng.random() < 0.8,
        "b_scaled": fb != "bf16" and rng.random() < 0.8,
        "M": rng.choice([16, 32, 64, 128]),
        "N": rng.choice([16, 32, 64, 128]),
        "K": rng.choice([32, 64, 128, 256]),
        "num_warps": rng.choice([4, 4, 8]),
    }


def kernel(p: dict[str, Any]) -> Kernel:
    """Return the kernel of ``p``."""
    m, n, k = p["M"], p["N"], p["K"]
    ka = k // 2 if p["a_fmt"] == "e2m1" else k
    kb = k // 2 if p["b_fmt"] == "e2m1" else k
    sa = (
        "sa = tl.load(as_ptr + rm[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])"
        if p["a_scaled"]
        else "sa = None"
    )
    sb = (
        "sb = tl.load(bs_ptr + rn[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])"
        if p["b_scaled"]
        else "sb = None"
    )
    src = f"""import triton
import triton.language as tl


@triton.jit
def kernel(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
           K: tl.constexpr, KA: tl.constexpr, KB: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    a = tl.load(a_ptr + rm[:, None] * KA + tl.arange(0, KA)[None, :])
    b = tl.load(b_ptr + tl.arange(0, KB)[:, None] * N + rn[None, :])
    {sa}
    {sb}
    c = tl.dot_scaled(a, sa, "{p["a_fmt"]}", b, sb, "{p["b_fmt"]}")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)
"""
    return Kernel(
        source=src,
        args=[
            Arg("in", "a_ptr", STORED[p["a_fmt"]], (m, ka)),
            Arg("in", "as_ptr", "uint8", (m, k // 32)),
            Arg("in", "b_ptr", STORED[p["b_fmt"]], (kb, n)),
            Arg("in", "bs_ptr", "uint8", (n, k // 32)),
            Arg("out", "c_ptr", "fp32", (m * n,)),
        ],
        constexprs={"M": m, "N": n, "K": k, "KA": ka, "KB": kb},
        num_warps=p["num_warps"],
    )


def _draw_values(rng: np.random.Generator, fmt: str, shape: tuple[int, int]) -> np.ndarray:
    """Return values of ``fmt`` (e2m1: nibble codes, decoded by :func:`_decode`)."""
    if fmt == "e2m1":
        return rng.integers(0, 16, size=shape).astype(np.float64)
    return rng.integers(-4, 5, size=shape).astype(np.float64)


def _decode(codes: np.ndarray) -> np.ndarray:
    mag = np.array(E2M1)[codes.astype(np.int64) & 7]
    return np.where(codes.astype(np.int64) & 8, -mag, mag)


def _pack(codes: np.ndarray, axis: int) -> np.ndarray:
    """Return two nibbles a byte along ``axis``, the first in the low bits."""
    c = np.moveaxis(codes.astype(np.int64), axis, -1)
    packed = c[..., 0::2] | (c[..., 1::2] << 4)
    return np.moveaxis(packed, -1, axis).astype(np.float64)


def _unpack(packed: np.ndarray, axis: int) -> np.ndarray:
    c = np.moveaxis(packed.astype(np.int64), axis, -1)
    out = np.empty((*c.shape[:-1], 2 * c.shape[-1]), dtype=np.int64)
    out[..., 0::2], out[..., 1::2] = c & 15, c >> 4
    return np.moveaxis(out, -1, axis)


def inputs(p: dict[str, Any], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Return the operands as stored (e2m1 packed along K) and scales ``127 + {-1, 0, 1}``."""
    m, n, k = p["M"], p["N"], p["K"]
    a = _draw_values(rng, p["a_fmt"], (m, k))
    b = _draw_values(rng, p["b_fmt"], (k, n))
    return {
        "a_ptr": _pack(a, 1) if p["a_fmt"] == "e2m1" else a,
        "as_ptr": rng.integers(126, 129, size=(m, k // 32)).astype(np.float64),
        "b_ptr": _pack(b, 0) if p["b_fmt"] == "e2m1" else b,
        "bs_ptr": rng.integers(126, 129, size=(n, k // 32)).astype(np.float64),
    }


def operand_values(p: dict[str, Any], ins: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Return the scaled operands ``A [M, K]`` and ``B [K, N]`` as numbers."""
    a, b = ins["a_ptr"], ins["b_ptr"]
    if p["a_fmt"] == "e2m1":
        a = _decode(_unpack(a, 1))
    if p["b_fmt"] == "e2m1":
        b = _decode(_unpack(b, 0))
    if p["a_scaled"]:
        a = a * np.repeat(2.0 ** (ins["as_ptr"] - 127), 32, axis=1)
    if p["b_scaled"]:
        b = b * np.repeat(2.0 ** (ins["bs_ptr"] - 127), 32, axis=1).T
    return a, b


def expected(p: dict[str, Any], ins: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Return the exact product."""
    a, b = operand_values(p, ins)
    return {"c_ptr": (a @ b).ravel()}
