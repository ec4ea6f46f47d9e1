"""TMA loads and stores through tensor descriptors (``tl.make_tensor_descriptor``).

A ``R x C`` array (neither a multiple of the block) is walked block by block:
each program loads its block through a descriptor (out-of-bounds elements
read as zero), copies, adds a second block, transposes or sums it, and stores
through a descriptor (out-of-bounds elements not written) or through masked
pointers.  The shared-memory layout of the TMA box and the register layout
the pipeline picks for its consumer meet here.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .spec import TL, Arg, Kernel, exact_sum_bound, small_ints

NAME = "tma"
MIN_RELEASE = (3, 4)
MODES = ("copy", "add", "trans", "rowsum")
BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8e4nv": 1, "int8": 1, "int32": 4}


def draw(rng: random.Random, release: str) -> dict[str, Any]:
    """Return random parameters of one case."""
    dtype = rng.choice(list(BYTES))
    min_c = max(16 // BYTES[dtype], 1)  # a TMA box row is at least 16 bytes
    bc = 1 << rng.randint(max(min_c.bit_length() - 1, 0), 7)
    br = 1 << rng.randint(0, 7)
    while br * bc > 1 << 13:
        br //= 2
    mode = rng.choice(MODES)
    if mode == "trans":
        br = max(br, min_c)  # the transposed box's rows are the block's columns
    if mode in ("add", "rowsum") and dtype.startswith("fp8"):
        mode = "copy"  # fp8 adds and sums round
    # global row strides must be 16-byte multiples: C a multiple of 16 bytes
    cols = min_c * rng.randint(1, max(1, (bc * 3) // min_c))
    rows = rng.randint(1, br * 3)
    if mode == "trans":
        rows = min_c * max(1, rows // min_c)
    return {
        "family": NAME,
        "dtype": dtype,
        "R": rows,
        "C": cols,
        "BR": br,
        "BC": bc,
        "mode": mode,
        "num_warps": rng.choice([1, 2, 4, 4, 8]),
    }


def grid(p: dict[str, Any]) -> tuple[int, int]:
    """Return the blocks along rows and columns (the last ones partly out of bounds)."""
    return -(-p["R"] // p["BR"]), -(-p["C"] // p["BC"])


def kernel(p: dict[str, Any]) -> Kernel:
    """Return the kernel of ``p``."""
    mode = p["mode"]
    body = {
        "copy": "o_desc.store([r0, c0], x)",
        "add": ("y = y_desc.load([r0, c0])\n    o_desc.store([r0, c0], x + y)"),
        "trans": "t_desc.store([c0, r0], tl.trans(x))",
        "rowsum": (
            "s = tl.sum(x, axis=1)\n"
            "    rows = r0 + tl.arange(0, BR)\n"
            "    tl.store(out_ptr + pid_c * R + rows, s, mask=rows < R)"
        ),
    }[mode]
    descs = {
        "copy": "o_desc = tl.make_tensor_descriptor(out_ptr, [R, C], [C, 1], [BR, BC])\n    ",
        "add": (
            "y_desc = tl.make_tensor_descriptor(y_ptr, [R, C], [C, 1], [BR, BC])\n    "
            "o_desc = tl.make_tensor_descriptor(out_ptr, [R, C], [C, 1], [BR, BC])\n    "
        ),
        "trans": "t_desc = tl.make_tensor_descriptor(out_ptr, [C, R], [R, 1], [BC, BR])\n    ",
        "rowsum": "",
    }[mode]
    src = f"""import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, out_ptr, R, C, BR: tl.constexpr, BC: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    r0 = pid_r * BR
    c0 = pid_c * BC
    x_desc = tl.make_tensor_descriptor(x_ptr, [R, C], [C, 1], [BR, BC])
    {descs}x = x_desc.load([r0, c0])
    {body}
"""
    gr, gc = grid(p)
    out_dtype = "fp32" if mode == "rowsum" and p["dtype"].startswith(("fp", "bf")) else p["dtype"]
    if mode == "rowsum" and not p["dtype"].startswith(("fp", "bf")):
        out_dtype = "int32"
    n_out = gc * p["R"] if mode == "rowsum" else p["R"] * p["C"]
    return Kernel(
        source=src.replace("s = tl.sum(x, axis=1)", f"s = tl.sum(x, axis=1).to({TL[out_dtype]})"),
        args=[
            Arg("in", "x_ptr", p["dtype"], (p["R"], p["C"])),
            Arg("in", "y_ptr", p["dtype"], (p["R"], p["C"])),
            Arg("out", "out_ptr", out_dtype, (n_out,)),
            Arg("int", "R", value=p["R"]),
            Arg("int", "C", value=p["C"]),
        ],
        constexprs={"BR": p["BR"], "BC": p["BC"]},
        grid=(gr, gc),
        num_warps=p["num_warps"],
    )


def inputs(p: dict[str, Any], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Return small integers; sums along a block row stay exact in the input type."""
    shape = (p["R"], p["C"])
    lim = 2 if p["mode"] == "rowsum" else 7
    if p["mode"] == "rowsum":
        lim = max(1, min(2, int(exact_sum_bound(p["dtype"]) // p["BC"])))
    return {"x_ptr": small_ints(rng, shape, -lim, lim), "y_ptr": small_ints(rng, shape, -7, 7)}


def expected(p: dict[str, Any], ins: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Return the exact output."""
    x, y = ins["x_ptr"], ins["y_ptr"]
    mode = p["mode"]
    if mode == "copy":
        return {"out_ptr": x.ravel()}
    if mode == "add":
        return {"out_ptr": (x + y).ravel()}
    if mode == "trans":
        return {"out_ptr": x.T.ravel()}
    _, gc = grid(p)
    pad = np.zeros((p["R"], gc * p["BC"]))
    pad[:, : p["C"]] = x
    return {"out_ptr": pad.reshape(p["R"], gc, p["BC"]).sum(axis=2).T.ravel()}
