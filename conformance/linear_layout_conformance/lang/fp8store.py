"""Narrow-type converts and transposed stores (triton #11111: fp8 through a transposed store).

A tile of a wide type is converted to a narrow one (fp8 e4m3 / e5m2, fp16,
bf16, int8), sometimes back again, and stored transposed: through
``tl.trans``, through pointers laid out column-major, or through a 3-D
``permute``.  Byte-sized elements are where the packing of 4 values a
register meets the transposition.  The values are exactly representable in
every type on the path, so the conversion has one right answer.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .spec import FP8, TL, Arg, Kernel

NAME = "fp8store"
MIN_RELEASE = (3, 2)
STORES = ("plain", "trans", "strided", "trans_strided", "permute")


def draw(rng: random.Random, release: str) -> dict[str, Any]:
    """Return random parameters of one case."""
    narrow = rng.choice(["fp8e4nv", "fp8e4nv", "fp8e5", "fp8e5", "int8", "fp16", "bf16"])
    src = rng.choice(["fp32", "fp16", "bf16"] if narrow != "int8" else ["fp32", "fp16"])
    m = 1 << rng.randint(0, 8)
    n = 1 << rng.randint(0, 8)
    while m * n > 1 << 14:
        m //= 2
    store = rng.choice(STORES)
    if store == "permute" and (m < 2 or n < 2):
        store = "trans"
    return {
        "family": NAME,
        "src": src,
        "narrow": narrow,
        "back": rng.random() < 0.3,  # convert back to the source type before storing
        "both": rng.random() < 0.5,  # also store the tile plainly (#11111 needs both stores)
        "M": m,
        "N": n,
        "store": store,
        "num_warps": rng.choice([1, 2, 4, 4, 8]),
    }


def _out_dtype(p: dict[str, Any]) -> str:
    return p["src"] if p["back"] else p["narrow"]


def kernel(p: dict[str, Any]) -> Kernel:
    """Return the kernel of ``p``."""
    conv = "y = x.to(NARROW)" + ("\n    y = y.to(SRC)" if p["back"] else "")
    store = {
        "plain": "tl.store(out_ptr + rows[:, None] * N + cols[None, :], y)",
        "trans": "tl.store(out_ptr + cols[:, None] * M + rows[None, :], tl.trans(y))",
        "strided": "tl.store(out_ptr + cols[None, :] * M + rows[:, None], y)",
        "trans_strided": "tl.store(out_ptr + rows[None, :] * N + cols[:, None], tl.trans(y))",
        "permute": (
            "z = tl.reshape(y, (M, 2, N // 2))\n"
            "    z = tl.permute(z, (1, 2, 0))\n"
            "    h = tl.arange(0, 2)[:, None, None]\n"
            "    c = tl.arange(0, N // 2)[None, :, None]\n"
            "    r = tl.arange(0, M)[None, None, :]\n"
            "    tl.store(out_ptr + h * (N // 2) * M + c * M + r, z)"
        ),
    }[p["store"]]
    both = "\n    tl.store(out2_ptr + rows[:, None] * N + cols[None, :], y)" if p["both"] else ""
    src = f"""import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, out_ptr, out2_ptr, M: tl.constexpr, N: tl.constexpr, NARROW: tl.constexpr,
           SRC: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    {conv}
    {store}{both}
"""
    return Kernel(
        source=src,
        args=[
            Arg("in", "x_ptr", p["src"], (p["M"], p["N"])),
            Arg("out", "out_ptr", _out_dtype(p), (p["M"] * p["N"],)),
            Arg("out", "out2_ptr", _out_dtype(p), (p["M"] * p["N"] if p["both"] else 1,)),
        ],
        constexprs={"M": p["M"], "N": p["N"], "NARROW": TL[p["narrow"]], "SRC": TL[p["src"]]},
        num_warps=p["num_warps"],
    )


def _values(narrow: str) -> np.ndarray:
    """Return the values drawn: the narrow type's, up to 64 in magnitude."""
    if narrow == "int8":
        return np.arange(-127, 128, dtype=np.float64)
    if narrow in FP8:
        vals = sorted(v for v in FP8[narrow] if abs(v) <= 64 and (v == 0 or abs(v) >= 2**-6))
        return np.array(vals, dtype=np.float64)
    return np.arange(-64, 65, dtype=np.float64) / 4  # quarters up to 16: exact in fp16 and bf16


def inputs(p: dict[str, Any], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Return values the narrow type (and the source type) hold exactly."""
    return {"x_ptr": rng.choice(_values(p["narrow"]), size=(p["M"], p["N"]))}


def expected(p: dict[str, Any], ins: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Return the tile laid out as the store writes it (the conversion changes no value)."""
    x = ins["x_ptr"]
    m, n = p["M"], p["N"]
    if p["store"] == "plain":
        out = x
    elif p["store"] in ("trans", "strided"):
        out = x.T
    elif p["store"] == "trans_strided":
        out = x  # trans, then column-major pointers: row-major again
    else:
        out = x.reshape(m, 2, n // 2).transpose(1, 2, 0)
    plain = x.ravel() if p["both"] else np.array([np.nan])  # unused: left alone
    return {"out_ptr": np.ascontiguousarray(out).ravel(), "out2_ptr": plain}
