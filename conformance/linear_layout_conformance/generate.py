"""Seeded random cases, valid by construction.

``draw(family, rng, ...)`` proposes the parameters of one case (see
:mod:`.program` for their meaning); :func:`generate` draws ``count`` cases,
asks our crate (through :class:`~.oracle.Oracle`, in batches) for every
layout they use, and draws a case again, with the next attempt's seed,
when a layout does not fit its shape or the case breaks a rule of the op
(:class:`~.program.InvalidCaseError`).  Case ``i`` of seed ``s`` depends only on
``(s, i)``, so any case can be regenerated alone.

Families (``--families``):

``convert``  chains of ``convert_layout`` between random distributed layouts
             (blocked, slice, linear with broadcasting, MMA v2/v3, dot operands)
``shared``   register -> shared -> register round trips through every shared
             layout (swizzled, NVMMA of each swizzle and ``transposed``,
             padded, shared linear), optionally ``memdesc_trans``; biased to
             16-bit MMA/dot-operand layouts (stmatrix / ldmatrix paths)
``shape``    ``trans``, ``reshape``, ``join``/``split``, ``broadcast``,
             ``expand_dims``, ``gather``
``dot``      chains through tensor cores: a dot's result cast, transformed
             (trans / reshape / convert / shared round trip) and fed to a
             second dot as operand A (registers) or B (shared), with
             differing instruction shapes
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .layouts import (
    BITS,
    Dialect,
    Spec,
    draw_blocked,
    draw_distributed,
    draw_linear,
    draw_mma,
    draw_shared,
)
from .ll import log2
from .oracle import MissingLayoutsError, Oracle
from .program import InvalidCaseError, Program, build

FAMILIES = ("convert", "shared", "shape", "dot")
WEIGHTS = {"convert": 0.27, "shared": 0.28, "shape": 0.23, "dot": 0.22}
MOVE_DTYPES = ["i8", "i16", "i32", "f16", "bf16", "f32", "f8e4", "f8e5", "i16", "i32", "f16"]


def case_rng(seed: int, index: int, attempt: int) -> random.Random:
    """Return the random stream of one attempt at one case."""
    return random.Random(f"conformance-{seed}-{index}-{attempt}")


def draw_warps(rng: random.Random, at_least: int = 1) -> int:
    """``num_warps`` in 1..16, mostly 4 or 8."""
    choices = [w for w in (1, 2, 4, 4, 4, 8, 8, 16) if w >= at_least]
    return rng.choice(choices)


def draw_shape(
    rng: random.Random, rank: int, warps: int, bits: int, max_per_thread: int = 64
) -> list[int]:
    """Draw a power-of-two shape from tiny to ``max_per_thread`` elements a thread."""
    cap = 32 * warps * max_per_thread * (32 // max(bits, 8)) // 4
    hi = min(log2(cap), 14)
    total = rng.randint(rank, hi) if rng.random() < 0.8 else rng.randint(rank, max(rank, 6))
    shape = [1] * rank
    for _ in range(total):
        shape[rng.randrange(rank)] *= 2
    return shape


def _dist(
    rng: random.Random,
    shape: Sequence[int],
    warps: int,
    dtype: str,
    cap: int,
    d: Dialect,
    kinds: Sequence[str] | None = None,
) -> Spec:
    return draw_distributed(rng, shape, warps, BITS[dtype], cap, d, kinds)


def draw_convert(rng: random.Random, d: Dialect, cap: int) -> dict[str, Any]:
    """Draw a chain of layout conversions."""
    warps = draw_warps(rng)
    dtype = rng.choice(MOVE_DTYPES)
    rank = rng.choices([1, 2, 3], weights=[0.1, 0.75, 0.15])[0]
    shape = draw_shape(rng, rank, warps, BITS[dtype])
    steps = [
        {"op": "convert", "layout": _dist(rng, shape, warps, dtype, cap, d)}
        for _ in range(rng.choice([1, 1, 1, 2, 3]))
    ]
    return {
        "warps": warps,
        "input": {
            "shape": shape,
            "dtype": dtype,
            "layout": _dist(rng, shape, warps, dtype, cap, d),
        },
        "steps": steps,
    }


def draw_shared_case(rng: random.Random, d: Dialect, cap: int) -> dict[str, Any]:
    """Draw a round trip through shared memory."""
    warps = draw_warps(rng)
    mma_path = rng.random() < 0.4
    dtype = rng.choice(["f16", "bf16", "i16"]) if mma_path else rng.choice(MOVE_DTYPES)
    rank = 2 if mma_path or d.old or rng.random() < 0.8 else 3  # 3.2 lowers rank <= 2 only
    shape = draw_shape(rng, rank, warps, BITS[dtype])
    kinds_src = ["mma", "mma", "dot_op"] if mma_path else None
    kinds_dst = ["dot_op", "dot_op", "mma", "blocked"] if mma_path else None
    shared = draw_shared(rng, shape, BITS[dtype], d)
    step: dict[str, Any] = {
        "op": "shared",
        "layout": shared,
        "dst": None,
        "mode": "store" if rng.random() < 0.25 else "alloc",
    }
    out_shape = list(shape)
    if rank == 2 and d.has("memdesc_trans") and rng.random() < 0.25 and shared["kind"] != "padded":
        step["trans"] = [1, 0]
        out_shape = [shape[1], shape[0]]
    step["dst"] = _dist(rng, out_shape, warps, dtype, cap, d, kinds_dst)
    steps = [step]
    if rng.random() < 0.15:
        steps.append({"op": "convert", "layout": _dist(rng, out_shape, warps, dtype, cap, d)})
    return {
        "warps": warps,
        "input": {
            "shape": shape,
            "dtype": dtype,
            "layout": _dist(rng, shape, warps, dtype, cap, d, kinds_src),
        },
        "steps": steps,
    }


def _minor_in_register(rng: random.Random, shape: Sequence[int], warps: int) -> Spec:
    """Return a layout whose minor dim (of size 2) is held by one register bit."""
    rank = len(shape)
    if rng.random() < 0.5:
        spec = draw_linear(rng, shape, warps)
        b = spec["bases"]
        minor = [0] * rank
        minor[-1] = 1
        for k in ("register", "lane", "warp"):
            b[k] = [[0] * rank if list(x) == minor else x for x in b[k]]
        b["register"] = [x for x in b["register"] if any(x)]
        b["register"].insert(rng.randrange(len(b["register"]) + 1), minor)
        return spec
    inner = draw_blocked(rng, shape[:-1], warps)
    return {
        "kind": "blocked",
        "spt": [*inner["spt"], 2],
        "tpw": [*inner["tpw"], 1],
        "wpc": [*inner["wpc"], 1],
        "order": [rank - 1, *inner["order"]],
    }


def draw_shape_case(rng: random.Random, d: Dialect, cap: int) -> dict[str, Any]:
    """One or two shape ops, with conversions where an op needs them."""
    warps = draw_warps(rng)
    dtype = rng.choice(MOVE_DTYPES)
    bits = BITS[dtype]
    ops = ["trans", "reshape", "join", "split", "broadcast", "expand"]
    if d.has("gather"):
        ops.append("gather")
    op = rng.choice(ops)
    steps: list[dict[str, Any]] = []
    if op == "split":
        rank = rng.choice([2, 3])
        shape = [*draw_shape(rng, rank - 1, warps, bits), 2]
        layout = _minor_in_register(rng, shape, warps)
        steps.append({"op": "split", "take": rng.randrange(2)})
    elif op == "broadcast":
        rank = 2
        shape = draw_shape(rng, rank, warps, bits)
        dim = rng.randrange(rank)
        full = list(shape)
        shape[dim] = 1
        if full == shape:
            full[dim] = 8
        layout = _dist(
            rng, shape, warps, dtype, cap, d, ["blocked", "blocked", "mma", "slice", "dot_op"]
        )
        steps.append({"op": "broadcast", "shape": full})
    elif op == "expand":
        rank = rng.choice([1, 2])
        shape = draw_shape(rng, rank, warps, bits)
        axis = rng.randrange(rank + 1)
        pshape = list(shape)
        pshape.insert(axis, rng.choice([1, 2, 4]))
        parent = _dist(
            rng,
            pshape,
            warps,
            dtype,
            cap,
            d,
            ["blocked", "blocked", "mma", "linear"] if rank == 1 else ["blocked", "linear"],
        )
        layout = {"kind": "slice", "dim": axis, "parent": parent}
        steps.append({"op": "expand", "axis": axis})
        if parent["kind"] != "linear" and rng.random() < 0.7:
            full = list(shape)
            full.insert(axis, rng.choice([2, 4, 8, 16]))
            steps.append({"op": "broadcast", "shape": full})
    else:
        rank = rng.choice([2, 2, 3])
        shape = draw_shape(rng, rank, warps, bits)
        layout = _dist(rng, shape, warps, dtype, cap, d)
        if op == "trans":
            order = list(range(rank))
            while order == list(range(rank)):
                rng.shuffle(order)
            steps.append({"op": "trans", "order": order})
        elif op == "reshape":
            n = 1
            for s in shape:
                n *= s
            new_rank = rng.choice([1, 2, 2, 3])
            new = [1] * new_rank
            for _ in range(log2(n)):
                new[rng.randrange(new_rank)] *= 2
            steps.append({"op": "reshape", "shape": new})
        elif op == "join":
            steps.append({"op": "join"})
            if rng.random() < 0.5:
                steps.append({"op": "split", "take": rng.randrange(2)})
            elif rng.random() < 0.5:
                joined = [*shape, 2]
                steps.append(
                    {
                        "op": "reshape",
                        "shape": [joined[0] * 2, *joined[1:-1]] if rank > 1 else joined,
                    }
                )
        else:  # gather
            axis = rng.randrange(rank)
            ishape = list(shape)
            ishape[axis] = rng.choice([1, 2, 4, 8, 16, 32, 64])
            ilayout = _dist(rng, ishape, warps, "i32", cap, d)
            steps.append(
                {"op": "gather", "axis": axis, "index_shape": ishape, "index_layout": ilayout}
            )
    if rng.random() < 0.2:
        steps.append(
            {"op": "convert", "_late": True}
        )  # its layout is drawn once the shape is known
    return {
        "warps": warps,
        "input": {"shape": shape, "dtype": dtype, "layout": layout},
        "steps": steps,
    }


DOT_DTYPES = ["f16", "f16", "bf16", "f32", "f8e4", "f8e5", "i8"]


def draw_dot_step(
    rng: random.Random,
    cur_shape: Sequence[int],
    dtype: str,
    warps: int,
    cap: int,
    d: Dialect,
    as_: str | None = None,
) -> dict[str, Any]:
    """Draw a dot with the current value as operand A or B."""
    bits = BITS[dtype]
    v3 = cap >= 90 and warps % 4 == 0 and rng.random() < 0.6
    as_ = as_ or rng.choice(["A", "B"])
    other = rng.choice([16, 32, 64, 128] if as_ == "A" else [64, 128] if v3 else [16, 32, 64])
    m, n = (cur_shape[0], other) if as_ == "A" else (other, cur_shape[1])
    k = cur_shape[1] if as_ == "A" else cur_shape[0]
    mma = draw_mma(rng, [m, n], warps, 3 if v3 else 2, bits)
    step: dict[str, Any] = {"op": "dot", "as": as_, "other": other, "mma": mma}
    aux_shape = [k, n] if as_ == "A" else [m, k]
    step["aux_layout"] = _dist(
        rng, aux_shape, warps, dtype, cap, d, ["blocked", "blocked", "linear"]
    )
    kw = max(32 // bits, 1)
    if v3:
        step["k_width"] = kw
        step["b_smem"] = {
            "kind": "nvmma",
            "swizzle": rng.choice([32, 64, 128, 128]),
            "transposed": rng.random() < 0.5 if bits == 16 else True,
            "bits": bits,
            "rank": 2,
        }
        if rng.random() < 0.4:
            step["a_smem"] = {
                "kind": "nvmma",
                "swizzle": rng.choice([32, 64, 128, 128]),
                "transposed": rng.random() < 0.5 if bits == 16 else False,
                "bits": bits,
                "rank": 2,
            }
    else:
        step["k_width"] = kw
        for side in ("a_smem", "b_smem"):
            if rng.random() < 0.3:
                step[side] = {
                    "kind": "swizzled",
                    "vec": rng.choice([1, 2, 4, 8]),
                    "per_phase": rng.choice([1, 2, 4]),
                    "max_phase": rng.choice([1, 2, 4, 8]),
                    "order": rng.choice([[1, 0], [0, 1]]),
                }
    return step


def draw_dot_case(rng: random.Random, d: Dialect, cap: int) -> dict[str, Any]:
    """One dot, or two chained through a cast and a transformation."""
    warps = draw_warps(rng, 1)
    dtype = rng.choice(DOT_DTYPES)
    if dtype.startswith("f8") and cap < 89:
        dtype = "f16"
    as_ = rng.choice(["A", "B"])
    m = rng.choice([16, 32, 64, 128])
    k = rng.choice([16, 32, 64]) if BITS[dtype] >= 16 else rng.choice([32, 64])
    n = rng.choice([16, 32, 64, 128])
    if cap >= 90 and warps % 4 == 0:
        m = max(m, 64)
    shape = [m, k] if as_ == "A" else [k, n]
    layout = _dist(rng, shape, warps, dtype, cap, d, ["blocked", "linear", "dot_op"])
    steps = [draw_dot_step(rng, shape, dtype, warps, cap, d, as_)]
    if rng.random() < 0.7:
        # result [m', n'] of dot 1, cast back to an operand type
        dtype2 = (
            "i8"
            if dtype == "i8"
            else rng.choice([x for x in DOT_DTYPES if x not in ("i8", "f32")] + ["f32"])
        )
        if dtype2.startswith("f8") and cap < 89:
            dtype2 = "f16"
        if dtype2 != ("i32" if dtype == "i8" else "f32"):
            steps.append({"op": "cast", "dtype": dtype2})
        t = rng.choice(["none", "trans", "trans", "reshape", "convert", "shared"])
        steps.append({"op": "_transform", "kind": t, "_late": True})
        steps.append({"op": "dot", "as": rng.choice(["A", "B"]), "_late": True})
    if rng.random() < 0.3:
        steps.append({"op": "convert", "_late": True})
    return {
        "warps": warps,
        "input": {"shape": shape, "dtype": dtype, "layout": layout},
        "steps": steps,
    }


DRAW = {
    "convert": draw_convert,
    "shared": draw_shared_case,
    "shape": draw_shape_case,
    "dot": draw_dot_case,
}


def _shape_after(
    params: dict[str, Any], oracle: Oracle, d: Dialect, upto: int
) -> tuple[list[int], str]:
    """Return the shape and element type of the value after ``upto`` steps."""
    trial = dict(params)
    trial["steps"] = params["steps"][:upto]
    prog = build(trial, oracle, d)
    v = prog.values[prog.output]
    return v.shape, v.dtype


def _resolve(params: dict[str, Any], oracle: Oracle, d: Dialect) -> dict[str, Any]:
    """Fill in the steps whose parameters depend on the shape reached so far.

    These are late dots, transformations and trailing conversions.
    """
    cap, warps = params["cap"], params["warps"]
    seed, index, attempt = params["seed"]
    steps = params["steps"]
    i = 0
    while i < len(steps):
        s = steps[i]
        if not s.get("_late"):
            i += 1
            continue
        shape, dtype = _shape_after(params, oracle, d, i)
        rng = random.Random(f"resolve-{seed}-{index}-{attempt}-{i}")
        if s["op"] == "_transform":
            k = s["kind"]
            if k == "none":
                del steps[i]
                continue
            if k == "trans":
                steps[i] = {"op": "trans", "order": [1, 0]}
            elif k == "reshape":
                a, b = shape
                if a >= 2 * 16 and rng.random() < 0.5:
                    steps[i] = {"op": "reshape", "shape": [a // 2, b * 2]}
                elif b >= 2 * 16:
                    steps[i] = {"op": "reshape", "shape": [a * 2, b // 2]}
                else:
                    steps[i] = {"op": "trans", "order": [1, 0]}
            elif k == "convert":
                steps[i] = {"op": "convert", "layout": _dist(rng, shape, warps, dtype, cap, d)}
            else:
                steps[i] = {
                    "op": "shared",
                    "layout": draw_shared(rng, shape, BITS[dtype], d),
                    "dst": _dist(rng, shape, warps, dtype, cap, d),
                    "mode": "alloc",
                }
        elif s["op"] == "dot":
            steps[i] = draw_dot_step(rng, shape, dtype, warps, cap, d, s["as"])
        else:
            steps[i] = {"op": "convert", "layout": _dist(rng, shape, warps, dtype, cap, d)}
        i += 1
    return params


def draw(
    family: str, seed: int, index: int, attempt: int, release: str, cap: int, d: Dialect
) -> dict[str, Any]:
    """Draw the parameters of one case (some steps may still be unresolved)."""
    rng = case_rng(seed, index, attempt)
    params = DRAW[family](rng, d, cap)
    params.update({"family": family, "triton": release, "cap": cap, "seed": [seed, index, attempt]})
    return params


def pick_family(seed: int, index: int, families: Sequence[str]) -> str:
    """Return the family of case ``index`` (weighted, reproducible)."""
    rng = random.Random(f"family-{seed}-{index}")
    ws = [WEIGHTS[f] for f in families]
    return rng.choices(list(families), weights=ws)[0]


class Generated:
    """A generated case: its parameters and its built program."""

    def __init__(self, params: dict[str, Any], prog: Program) -> None:
        self.params = params
        self.prog = prog


def generate(
    count: int,
    seed: int,
    release: str = "3.6",
    cap: int = 90,
    families: Sequence[str] = FAMILIES,
    oracle: Oracle | None = None,
    start: int = 0,
    max_attempts: int = 40,
    progress: Any = None,
) -> list[Generated]:
    """Return ``count`` valid cases (indices ``start`` ..).

    They are drawn and checked against the crate in batches.
    """
    oracle = oracle or Oracle(release)
    d = Dialect(oracle)
    pending: dict[int, tuple[int, dict[str, Any] | None, random.Random]] = {}
    done: dict[int, Generated] = {}
    for i in range(start, start + count):
        pending[i] = (0, None, case_rng(seed, i, 0))
    rounds = 0
    while pending:
        rounds += 1
        need: list[Any] = []
        nxt: dict[int, tuple[int, dict[str, Any] | None, random.Random]] = {}
        for i, (attempt, params, _) in pending.items():
            if params is None:
                fam = pick_family(seed, i, families)
                params = draw(fam, seed, i, attempt, release, cap, d)
            try:
                if any(s.get("_late") for s in params["steps"]):
                    _resolve(params, oracle, d)
                prog = build(params, oracle, d)
                done[i] = Generated(params, prog)
            except MissingLayoutsError as e:
                need += e.requests
                nxt[i] = (attempt, params, _)
            except InvalidCaseError:
                if attempt + 1 >= max_attempts:
                    params = fallback(seed, i, release, cap)
                    nxt[i] = (attempt + 1, params, _)
                else:
                    nxt[i] = (attempt + 1, None, _)
        if need:
            oracle.fetch(need)
        pending = nxt
        if progress:
            progress(len(done), count, rounds)
        if rounds > 400:
            raise RuntimeError(f"generation did not converge: {len(pending)} cases left")
    return [done[i] for i in sorted(done)]


def fallback(seed: int, index: int, release: str, cap: int) -> dict[str, Any]:
    """Return a plain blocked-to-blocked conversion (when draws keep failing)."""
    return {
        "family": "convert",
        "triton": release,
        "cap": cap,
        "seed": [seed, index, -1],
        "warps": 4,
        "input": {
            "shape": [32, 32],
            "dtype": "i32",
            "layout": {
                "kind": "blocked",
                "spt": [1, 4],
                "tpw": [8, 4],
                "wpc": [4, 1],
                "order": [1, 0],
            },
        },
        "steps": [
            {
                "op": "convert",
                "layout": {
                    "kind": "blocked",
                    "spt": [4, 1],
                    "tpw": [4, 8],
                    "wpc": [1, 4],
                    "order": [0, 1],
                },
            }
        ],
    }
