"""Dot/trans chains written as kernels (flash-linear-attention #640, #984).

A first dot's result, cast and maybe transposed or masked to its lower
triangle, feeds a second dot as operand A or B: attention's ``softmax``-free
core (``q k^T v``, over several key blocks), the ``tril(k k^T) v`` of the
linear-attention kernels, and the transposed variants where the result of a
wgmma must be re-laid out as the other operand.  Operands are -1, 0, 1, so
both dots and the cast between them are exact.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .spec import TL, Arg, Kernel, small_ints

NAME = "chain"
MIN_RELEASE = (3, 2)
VARIANTS = ("attn", "tril", "trans_a", "as_b", "trans_b")


def draw(rng: random.Random, release: str) -> dict[str, Any]:
    """Return random parameters of one case."""
    return {
        "family": NAME,
        "dtype": rng.choice(["fp16", "fp16", "bf16", "fp32"]),
        "mid": rng.choice(["fp16", "bf16", "fp32"]),
        "variant": rng.choice(VARIANTS),
        "M": rng.choice([16, 32, 64, 64, 128]),
        "N": rng.choice([16, 32, 64, 64, 128]),
        "D": rng.choice([16, 32, 64, 128]),
        "E": rng.choice([16, 32, 64, 128]),
        "blocks": rng.choice([1, 1, 2, 3]),
        "num_warps": rng.choice([4, 4, 8]),
        "num_stages": rng.choice([1, 2, 3]),
    }


def _dims(p: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Return the shapes of the stored inputs and of the output."""
    m, n, d, e, nb = p["M"], p["N"], p["D"], p["E"], p["blocks"]
    v = p["variant"]
    if v == "tril":
        return {"q": (m, d), "k": (m, d), "w": (m, e), "o": (m, e)}
    if v == "attn":
        return {"q": (m, d), "k": (nb * n, d), "w": (nb * n, e), "o": (m, e)}
    if v == "trans_a":
        return {"q": (m, d), "k": (n, d), "w": (m, e), "o": (n, e)}
    if v == "as_b":
        return {"q": (m, d), "k": (n, d), "w": (e, m), "o": (e, n)}
    return {"q": (m, d), "k": (n, d), "w": (e, n), "o": (e, m)}  # trans_b


def kernel(p: dict[str, Any]) -> Kernel:
    """Return the kernel of ``p``."""
    v = p["variant"]
    dims = _dims(p)
    load = (
        "rm = tl.arange(0, M)\n    rn = tl.arange(0, N)\n    rd = tl.arange(0, D)\n"
        "    re = tl.arange(0, E)\n"
        "    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])\n"
    )
    if v == "attn":
        body = (
            "acc = tl.zeros((M, E), dtype=tl.float32)\n"
            "    for j in tl.range(0, BLOCKS):\n"
            "        k = tl.load(k_ptr + (j * N + rn)[:, None] * D + rd[None, :])\n"
            "        w = tl.load(w_ptr + (j * N + rn)[:, None] * E + re[None, :])\n"
            "        s = tl.dot(q, tl.trans(k))\n"
            "        acc = tl.dot(s.to(MID), w.to(MID), acc)\n"
            "    tl.store(o_ptr + rm[:, None] * E + re[None, :], acc)"
        )
    elif v == "tril":
        body = (
            "a = tl.dot(q, tl.trans(q))\n"
            "    a = tl.where(rm[:, None] >= rm[None, :], a, 0)\n"
            "    w = tl.load(w_ptr + rm[:, None] * E + re[None, :])\n"
            "    o = tl.dot(a.to(MID), w.to(MID))\n"
            "    tl.store(o_ptr + rm[:, None] * E + re[None, :], o)"
        )
    else:
        body = (
            "k = tl.load(k_ptr + rn[:, None] * D + rd[None, :])\n"
            "    s = tl.dot(q, tl.trans(k))\n    "
        )
        if v == "trans_a":
            body += (
                "w = tl.load(w_ptr + rm[:, None] * E + re[None, :])\n"
                "    o = tl.dot(tl.trans(s).to(MID), w.to(MID))\n"
                "    tl.store(o_ptr + rn[:, None] * E + re[None, :], o)"
            )
        elif v == "as_b":
            body += (
                "w = tl.load(w_ptr + re[:, None] * M + rm[None, :])\n"
                "    o = tl.dot(w.to(MID), s.to(MID))\n"
                "    tl.store(o_ptr + re[:, None] * N + rn[None, :], o)"
            )
        else:
            body += (
                "w = tl.load(w_ptr + re[:, None] * N + rn[None, :])\n"
                "    o = tl.dot(w.to(MID), tl.trans(s).to(MID))\n"
                "    tl.store(o_ptr + re[:, None] * M + rm[None, :], o)"
            )
    src = f"""import triton
import triton.language as tl


@triton.jit
def kernel(q_ptr, k_ptr, w_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, D: tl.constexpr,
           E: tl.constexpr, BLOCKS: tl.constexpr, MID: tl.constexpr):
    {load}    {body}
"""
    o = dims["o"]
    return Kernel(
        source=src,
        args=[
            Arg("in", "q_ptr", p["dtype"], dims["q"]),
            Arg("in", "k_ptr", p["dtype"], dims["k"]),
            Arg("in", "w_ptr", p["dtype"], dims["w"]),
            Arg("out", "o_ptr", "fp32", (o[0] * o[1],)),
        ],
        constexprs={
            "M": p["M"],
            "N": p["N"],
            "D": p["D"],
            "E": p["E"],
            "BLOCKS": p["blocks"],
            "MID": TL[p["mid"]],
        },
        num_warps=p["num_warps"],
        num_stages=p["num_stages"],
    )


def inputs(p: dict[str, Any], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Return entries -1, 0, 1: the first dot stays within 128, exact in bf16, fp16 and tf32."""
    dims = _dims(p)
    return {f"{n}_ptr": small_ints(rng, dims[n], -1, 1) for n in ("q", "k", "w")}


def expected(p: dict[str, Any], ins: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Return the exact output."""
    q, k, w = ins["q_ptr"], ins["k_ptr"], ins["w_ptr"]
    v = p["variant"]
    if v == "attn":
        o = (q @ k.T) @ w
    elif v == "tril":
        o = np.tril(q @ q.T) @ w
    elif v == "trans_a":
        o = (q @ k.T).T @ w
    elif v == "as_b":
        o = w @ (q @ k.T)
    else:
        o = w @ (q @ k.T).T
    return {"o_ptr": np.asarray(o, dtype=np.float64).ravel()}
