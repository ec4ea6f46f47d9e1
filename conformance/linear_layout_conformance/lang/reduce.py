"""Reductions and their epilogues (triton #11614: an unpredicated cross-warp store).

A tile of ``M x N`` (rows or columns masked off at run time) is reduced along
axis 0, 1 or both by ``sum`` (optionally accumulated in fp32), ``max``,
``min``, ``xor_sum`` or ``argmax``/``argmin``, then an epilogue uses the
result the way kernels do: stores it, stores it under a mask, keeps its
dimension, broadcasts it back over the tile (``x - max``), or reduces it
again.  The reduced value lives replicated across warps after the cross-warp
step, which is where a store without its predicate writes twice or wrong.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .spec import TL, Arg, Kernel, exact_sum_bound, small_ints

NAME = "reduce"
MIN_RELEASE = (3, 2)
OPS = ("sum", "sum_f32", "max", "min", "xor_sum", "argmax", "argmin")
EPILOGUES = ("store", "masked_store", "keep_dims", "broadcast", "again")


def draw(rng: random.Random, release: str) -> dict[str, Any]:
    """Return random parameters of one case."""
    dtype = rng.choice(["fp32", "fp16", "bf16", "int32", "int16", "int8"])
    ops = [o for o in OPS if not (o == "xor_sum" and dtype.startswith(("fp", "bf")))]
    op = rng.choice(ops)
    m = 1 << rng.randint(0, 8)
    n = 1 << rng.randint(0, 9)
    while m * n > 1 << 14:
        n //= 2
    axis = rng.choice([0, 1, 1, None])
    epi = rng.choice(EPILOGUES)
    if op.startswith("arg") and axis is None:
        axis = 1
    if op.startswith("arg") and dtype == "int8":
        dtype = "int16"  # distinct values along a line of up to 512
    if op.startswith("arg") and epi in ("broadcast", "again"):
        epi = "store"
    return {
        "family": NAME,
        "dtype": dtype,
        "op": op,
        "M": m,
        "N": n,
        "m_real": rng.randint(1, m) if rng.random() < 0.3 else m,
        "n_real": rng.randint(1, n) if rng.random() < 0.3 else n,
        "axis": axis,
        "epilogue": epi,
        "programs": rng.choice([1, 1, 2, 3]),
        "num_warps": rng.choice([1, 2, 4, 4, 8, 8, 16]),
    }


def _acc_dtype(p: dict[str, Any]) -> str:
    if p["op"] == "sum_f32" or (p["op"] == "sum" and p["dtype"].startswith(("fp", "bf"))):
        return "fp32" if p["op"] == "sum_f32" else p["dtype"]
    if p["op"].startswith("arg"):
        return "int32"
    if p["dtype"].startswith("int") and p["op"] in ("sum", "xor_sum"):
        return "int32"
    return p["dtype"]


def _out_dtype(p: dict[str, Any]) -> str:
    """Return the stored type: the result's own (``tl.sum`` widens narrow ints to int32)."""
    return _acc_dtype(p)


def _identity(p: dict[str, Any]) -> str:
    """Return the ``other`` of the masked load: the op's identity (never read by a right kernel)."""
    big = {"argmax": "-30000", "argmin": "30000", "max": "-100", "min": "100"}
    return big.get(p["op"], "0")


def _out_shape(p: dict[str, Any]) -> tuple[int, ...]:
    m, n, axis, epi = p["M"], p["N"], p["axis"], p["epilogue"]
    if epi == "broadcast":
        return (m, n)
    if epi == "again" or axis is None:
        return (1,)
    return (m,) if axis == 1 else (n,)


def kernel(p: dict[str, Any]) -> Kernel:
    """Return the kernel of ``p``."""
    op, axis, epi = p["op"], p["axis"], p["epilogue"]
    ax = "None" if axis is None else str(axis)
    call = {
        "sum": f"tl.sum(x, axis={ax}, keep_dims=KEEP)",
        "sum_f32": f"tl.sum(x, axis={ax}, keep_dims=KEEP, dtype=tl.float32)",
        "max": f"tl.max(x, axis={ax}, keep_dims=KEEP)",
        "min": f"tl.min(x, axis={ax}, keep_dims=KEEP)",
        "xor_sum": f"tl.xor_sum(x, axis={ax}, keep_dims=KEEP)",
        "argmax": f"tl.argmax(x, axis={ax}, keep_dims=KEEP)",
        "argmin": f"tl.argmin(x, axis={ax}, keep_dims=KEEP)",
    }[op]
    keep = epi == "keep_dims" and axis is not None
    if epi == "broadcast":
        r = "r" if axis is None else ("r[:, None]" if axis == 1 else "r[None, :]")
        store = f"y = x.to(OUT) - {r}.to(OUT)\n    tl.store(out_ptr + pid * M * N + offs, y)"
    elif epi == "again":
        again = call.split("(")[0] + "(r, axis=0)" if axis is not None else "r"
        store = f"s = {again}\n    tl.store(out_ptr + pid, s.to(OUT))"
    elif axis is None:
        store = "tl.store(out_ptr + pid, r.to(OUT))"
    else:
        length, idx = ("M", "rows") if axis == 1 else ("N", "cols")
        if keep:
            ptr = (
                f"out_ptr + pid * {length} + rows[:, None]"
                if axis == 1
                else (f"out_ptr + pid * {length} + cols[None, :]")
            )
            store = f"tl.store({ptr}, r.to(OUT))"
        elif epi == "masked_store":
            store = f"tl.store(out_ptr + pid * {length} + {idx}, r.to(OUT), mask={idx} % 2 == 0)"
        else:
            store = f"tl.store(out_ptr + pid * {length} + {idx}, r.to(OUT))"
    src = f"""import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, out_ptr, m_real, n_real, M: tl.constexpr, N: tl.constexpr,
           KEEP: tl.constexpr, OUT: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    offs = rows[:, None] * N + cols[None, :]
    mask = (rows[:, None] < m_real) & (cols[None, :] < n_real)
    x = tl.load(x_ptr + pid * M * N + offs, mask=mask, other={_identity(p)})
    r = {call}
    {store}
"""
    g = p["programs"]
    out_n = g * int(np.prod(_out_shape(p)))
    return Kernel(
        source=src,
        args=[
            Arg("in", "x_ptr", p["dtype"], (g, p["M"], p["N"])),
            Arg("out", "out_ptr", _out_dtype(p), (out_n,)),
            Arg("int", "m_real", value=p["m_real"]),
            Arg("int", "n_real", value=p["n_real"]),
        ],
        constexprs={"M": p["M"], "N": p["N"], "KEEP": keep, "OUT": TL[_out_dtype(p)]},
        grid=(g,),
        num_warps=p["num_warps"],
    )


def inputs(p: dict[str, Any], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Return the input data: small integers whose every partial result is exact.

    Sums get at most ``bound / v`` nonzero entries a tile of magnitude at most
    ``v``; arg-reductions get distinct values (no ties to break).
    """
    g, m, n = p["programs"], p["M"], p["N"]
    acc = _acc_dtype(p)
    if p["op"].startswith("arg"):
        # distinct values along each reduced line: no tie to break
        if p["axis"] == 1:
            x = np.stack([[rng.permutation(n) - n // 2 for _ in range(m)] for _ in range(g)])
        else:
            x = np.stack(
                [np.stack([rng.permutation(m) - m // 2 for _ in range(n)], 1) for _ in range(g)]
            )
        return {"x_ptr": x.astype(np.float64)}
    if p["op"] in ("max", "min"):
        lim = 50 if p["dtype"] == "int8" else 99  # x - max stays in range
        if p["dtype"] == "int8" and p["epilogue"] == "broadcast" and _masked_into_reduction(p):
            # a masked element (the identity, +-100) minus a real line's
            # extreme must stay within int8 too
            lim = 127 - abs(int(_identity(p)))
        return {"x_ptr": small_ints(rng, (g, m, n), -lim, lim)}
    v = 3 if p["op"] == "xor_sum" else 2
    x = small_ints(rng, (g, m, n), -v if p["op"] != "xor_sum" else 0, v)
    bound = min(exact_sum_bound(acc), exact_sum_bound(p["dtype"]) if p["op"] == "sum" else 1e30)
    if p["epilogue"] == "broadcast":
        bound = min(bound, exact_sum_bound(_out_dtype(p)) / 2)
    keep = int(bound // v)
    if keep < m * n:
        flat = x.reshape(g, m * n)
        for t in range(g):
            flat[t, rng.permutation(m * n)[keep:]] = 0
    return {"x_ptr": x}


def _masked_into_reduction(p: dict[str, Any]) -> bool:
    """Whether some masked element shares a reduced line with real ones.

    Its broadcast output is then the identity minus a real extreme.
    """
    rows, cols = p["m_real"] < p["M"], p["n_real"] < p["N"]
    axis = p["axis"]
    return (axis in (0, None) and rows) or (axis in (1, None) and cols)


def _reduce(x: np.ndarray, op: str, axis: int | None) -> np.ndarray:
    if op in ("sum", "sum_f32"):
        return x.sum(axis=axis)
    if op == "max":
        return x.max(axis=axis)
    if op == "min":
        return x.min(axis=axis)
    if op == "argmax":
        return x.argmax(axis=axis).astype(np.float64)
    if op == "argmin":
        return x.argmin(axis=axis).astype(np.float64)
    xi = x.astype(np.int64)
    return np.bitwise_xor.reduce(xi, axis=axis).astype(np.float64)  # type: ignore[no-any-return]


def expected(p: dict[str, Any], ins: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Return the exact output (masked elements take the load's ``other``)."""
    x = ins["x_ptr"].copy()
    other = float(_identity(p))
    x[:, p["m_real"] :, :] = other
    x[:, :, p["n_real"] :] = other
    outs = []
    for t in range(p["programs"]):
        r = _reduce(x[t], p["op"], p["axis"])
        if p["epilogue"] == "broadcast":
            rb = r if p["axis"] is None else (r[:, None] if p["axis"] == 1 else r[None, :])
            outs.append((x[t] - rb).ravel())
        elif p["epilogue"] == "again" and p["axis"] is not None:
            outs.append(np.atleast_1d(_reduce(r, p["op"], 0)))
        else:
            outs.append(np.atleast_1d(r).ravel())
    out = np.concatenate(outs)
    if p["epilogue"] == "masked_store" and p["axis"] is not None:
        # the mask is on the index within a program's vector (of length 1 too)
        keep = np.arange(out.size) % (out.size // p["programs"]) % 2 == 0
        out = np.where(keep, out, np.nan)
    return {"out_ptr": out}
