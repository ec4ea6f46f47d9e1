"""What the matmul families share: operand types, tile limits, exact data, the reference.

Operands are small integers (``[-v, v]``) every operand type holds; the
accumulator (fp32, or int32 for int8) stays below ``2**24``, and a result
cast to fp16 below 2048, so any order of summation gives the one exact value.
"""

from __future__ import annotations

import random

import numpy as np

from .spec import exact_sum_bound, small_ints

OPERANDS = ("fp16", "fp16", "bf16", "fp8e4nv", "fp8e5", "int8", "fp32")
SHARED_BYTES = 200 * 1024  # below the H100/H200's 227 KB, leaving the epilogue's scratch
BYTES = {"fp16": 2, "bf16": 2, "fp8e4nv": 1, "fp8e5": 1, "int8": 1, "fp32": 4}


def acc_dtype(dtype: str) -> str:
    """Return the accumulator type ``tl.dot`` gives for operands of ``dtype``."""
    return "int32" if dtype == "int8" else "fp32"


def draw_tile(rng: random.Random, dtype: str, stages: int, warps: int) -> tuple[int, int, int]:
    """``(BM, BN, BK)`` whose pipeline fits shared memory and whose accumulator fits registers."""
    bm = rng.choice([64, 64, 128, 128, 256])
    bn = rng.choice([16, 32, 64, 128, 128, 256])
    bk = rng.choice([16, 32, 64, 64, 128])
    if dtype in ("fp8e4nv", "fp8e5", "int8"):
        bk = max(bk, 32)  # 8-bit wgmma reads K in 32s
    while bm * bn > 2048 * warps:  # at most 64 fp32 accumulator registers a thread
        if bn > 16:
            bn //= 2
        else:
            bm //= 2
    while stages * (bm + bn) * bk * BYTES[dtype] > SHARED_BYTES and bk > 32:
        bk //= 2
    while stages * (bm + bn) * bk * BYTES[dtype] > SHARED_BYTES:
        bn //= 2
    return bm, bn, bk


def exact_operands(
    rng: np.random.Generator, a_shape: tuple[int, ...], b_shape: tuple[int, ...], out: str
) -> tuple[np.ndarray, np.ndarray]:
    """Return operands ``A [.., K]``, ``B [K, ..]`` whose partial dots are exact in ``out``.

    Entries in ``[-2, 2]``; where ``4 K`` could pass the bound, each row of A
    keeps only as many nonzeros as the bound allows.
    """
    a_shape[-1]
    bound = min(exact_sum_bound(out), 2.0**24)
    a, b = small_ints(rng, a_shape, -2, 2), small_ints(rng, b_shape, -2, 2)
    return sparse_rows(a, int(bound // 4), rng), b


def sparse_rows(x: np.ndarray, keep: int, rng: np.random.Generator) -> np.ndarray:
    """Zero all but ``keep`` entries of each row (the K dimension of an A operand)."""
    k = x.shape[-1]
    if keep >= k:
        return x
    out = x.copy()
    for row in out.reshape(-1, k):
        row[rng.permutation(k)[keep:]] = 0
    return out
