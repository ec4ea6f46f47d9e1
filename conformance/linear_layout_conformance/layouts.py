"""Layout attributes as data: printing them as TTGIR and drawing them at random.

A *spec* is a plain JSON-able dict, ``{"kind": ..., params}``, so that cases
can be saved, shrunk and replayed.  Distributed kinds: ``blocked``, ``slice``,
``linear`` (explicit bases, with its shape), ``mma`` (NVIDIA v2 or v3
accumulator), ``dot_op``.  Shared kinds: ``swizzled``, ``nvmma``, ``padded``,
``shared_linear``.  The crate prints them in a release's spelling
(:meth:`Dialect.layout`; :func:`crate_attr` is the spec as the crate's
attribute JSON), and :class:`Dialect` writes the rest of a module the way
the release's row of the crate's table says.

The random draws only propose; whether a layout fits a shape is decided by
our crate (:mod:`.oracle`), and the caller draws again when it does not.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .ll import Layout, log2

Spec = dict[str, Any]

# MLIR element types by our short names, and their widths.
MLIR_TYPE = {
    "i8": "i8",
    "i16": "i16",
    "i32": "i32",
    "f16": "f16",
    "bf16": "bf16",
    "f32": "f32",
    "f8e4": "f8E4M3FN",
    "f8e5": "f8E5M2",
}
BITS = {"i8": 8, "i16": 16, "i32": 32, "f16": 16, "bf16": 16, "f32": 32, "f8e4": 8, "f8e5": 8}
FLOAT = {"f16", "bf16", "f32", "f8e4", "f8e5"}

DISTRIBUTED = {"blocked", "slice", "linear", "mma", "dot_op"}
SHARED = {"swizzled", "nvmma", "padded", "shared_linear"}


def crate_attr(spec: Spec) -> dict[str, Any]:
    """Return ``spec`` as the crate's attribute JSON: its TTGIR kind and parameter names.

    The crate prints it (``linear-layout print-attr``, see :meth:`Dialect.layout`).
    """
    k = spec["kind"]
    if k == "blocked":
        return {
            "kind": "blocked",
            "sizePerThread": spec["spt"],
            "threadsPerWarp": spec["tpw"],
            "warpsPerCTA": spec["wpc"],
            "order": spec["order"],
        }
    if k == "slice":
        return {"kind": "slice", "dim": spec["dim"], "parent": crate_attr(spec["parent"])}
    if k == "linear":
        b = spec["bases"]
        return {
            "kind": "linear",
            "register": b["register"],
            "lane": b["lane"],
            "warp": b["warp"],
            "block": [],
        }
    if k == "mma":
        return {
            "kind": "nvidia_mma",
            "versionMajor": spec["version"],
            "versionMinor": 0,
            "warpsPerCTA": spec["wpc"],
            "instrShape": spec["instr"],
        }
    if k == "dot_op":
        out = {"kind": "dot_op", "opIdx": spec["idx"], "parent": crate_attr(spec["parent"])}
        if spec.get("k_width"):
            out["kWidth"] = spec["k_width"]
        return out
    if k == "swizzled":
        return {
            "kind": "swizzled_shared",
            "vec": spec["vec"],
            "perPhase": spec["per_phase"],
            "maxPhase": spec["max_phase"],
            "order": spec["order"],
        }
    if k == "nvmma":
        return {
            "kind": "nvmma_shared",
            "swizzlingByteWidth": spec["swizzle"],
            "transposed": bool(spec["transposed"]),
            "elementBitWidth": spec["bits"],
            "rank": spec.get("rank", 2),
        }
    if k == "padded":
        return {
            "kind": "padded_shared",
            "intervals": spec["intervals"],
            "order": spec["order"],
            "shape": spec["shape"],
        }
    if k == "shared_linear":
        return {
            "kind": "shared_linear",
            "offset": spec["offset"],
            "alignment": spec.get("alignment", 16),
        }
    raise ValueError(f"unknown layout kind {k}")


class Dialect:
    """How one Triton release spells TTGIR: its row of the crate's release table.

    Layout attributes are printed by the crate (``oracle.attr``); the rest
    of a module (dialect prefixes, memdesc types, the module's attributes)
    is written here from the row's ``ttgir`` spelling.
    """

    def __init__(self, oracle: Any) -> None:
        self.oracle = oracle
        self.row = oracle.row
        self.release = str(self.row["name"])
        t = self.row["ttgir"]
        self.ttgir = t
        # Before 3.3's rewrite: legacy shared layouts, the triton_gpu
        # dialects, no linear layout for most dot operands.
        self.old = bool(t["legacy_shared"])
        self.d = str(t["dialect"])
        self.ng = str(t["nvidia_dialect"])

    # ------------------------------------------------------------ features

    def has(self, feature: str) -> bool:
        """Whether this release's TTGIR has ``feature``."""
        t = self.ttgir
        has = {
            "linear": t["linear"],
            "nvmma": not t["legacy_shared"],
            # 3.5 reads padded_shared but cannot lower it
            "padded": t["padded_shared"] and t["padded_lowers"],
            "shared_linear": t["shared_linear"],
            "gather": t["gather"],
            "memdesc_trans": t["memdesc_trans"],
            "f8e4": t["f8e4m3fn"],
        }
        return bool(has[feature])

    # ------------------------------------------------------------ layouts

    def layout(self, spec: Spec) -> str:
        """Return the attribute text of a distributed or shared ``spec`` (the crate's)."""
        return str(self.oracle.attr(crate_attr(spec)))

    def slice_of(self, alias: str, dims: Sequence[int]) -> str:
        """Return the attribute ``#alias`` sliced along ``dims``, innermost first."""
        attr: dict[str, Any] = {"kind": "alias", "name": alias}
        for dim in dims:
            attr = {"kind": "slice", "dim": dim, "parent": attr}
        return str(self.oracle.attr(attr))

    def memdesc(self, shape: Sequence[int], dtype: str, alias: str, mutable: bool) -> str:
        """Return a shared memory descriptor type whose encoding is ``#alias``."""
        t = self.ttgir
        dims = "x".join(map(str, shape))
        mut = ", mutable" if mutable else ""
        space = ""
        if t["memory_space"]:
            space = f", #{self.d}.shared_memory" if self.old else ", #smem"
        return f"!{t['memdesc_dialect']}.memdesc<{dims}x{MLIR_TYPE[dtype]}, #{alias}{space}{mut}>"

    def header(self, warps: int, cap: int) -> str:
        """Return the module's opening line (and the shared memory alias)."""
        d = self.d
        smem = "" if self.old else f"#smem = #{d}.shared_memory\n"
        return (
            smem
            + f'module attributes {{"{d}.num-ctas" = 1 : i32, "{d}.num-warps" = {warps} : i32, '
            f'{d}.target = "cuda:{cap}", "{d}.threads-per-warp" = 32 : i32}} {{\n'
        )


def _l(xs: Sequence[Any]) -> str:
    return "[" + ", ".join(_l(x) if isinstance(x, (list, tuple)) else str(x) for x in xs) + "]"


# ------------------------------------------------------------ linear specs


def linear_spec(layout: Layout) -> Spec:
    """Return a ``linear`` spec holding ``layout`` (a distributed linear layout)."""
    return {
        "kind": "linear",
        "shape": list(layout.shape),
        "bases": {k: [list(b) for b in layout.get(k)] for k in ("register", "lane", "warp")},
    }


def linear_of(spec: Spec) -> Layout:
    """Return the layout of a ``linear`` spec."""
    b = spec["bases"]
    return Layout.make(
        {"register": b["register"], "lane": b["lane"], "warp": b["warp"], "block": []},
        spec["shape"],
    )


def spec_rank(spec: Spec) -> int:
    """Return the tensor rank a distributed or shared spec is for (``None`` if any)."""
    k = spec["kind"]
    if k in ("blocked",):
        return len(spec["order"])
    if k == "slice":
        return spec_rank(spec["parent"]) - 1
    if k == "linear":
        return len(spec["shape"])
    if k == "mma":
        return len(spec["wpc"])
    if k == "dot_op":
        return spec_rank(spec["parent"])
    if k in ("swizzled", "padded"):
        return len(spec["order"])
    if k == "nvmma":
        return spec.get("rank", 2)
    if k == "shared_linear":
        return len(spec["offset"][0])
    raise ValueError(k)


def spec_warps(spec: Spec) -> int:
    """Return the number of warps a distributed spec is written for."""
    k = spec["kind"]
    if k in ("blocked", "mma"):
        n = 1
        for w in spec["wpc"]:
            n *= w
        return n
    if k in ("slice", "dot_op"):
        return spec_warps(spec["parent"])
    if k == "linear":
        return 1 << len(spec["bases"]["warp"])
    raise ValueError(k)


def describe(spec: Spec) -> str:
    """Return a short human name of a spec: ``blocked``, ``mma_v3``, ``dot_op0<mma_v2>``..."""
    k = spec["kind"]
    if k == "mma":
        return f"mma_v{spec['version']}"
    if k == "dot_op":
        return f"dot_op{spec['idx']}<{describe(spec['parent'])}>"
    if k == "slice":
        return f"slice{spec['dim']}<{describe(spec['parent'])}>"
    if k == "nvmma":
        return f"nvmma{spec['swizzle']}{'T' if spec['transposed'] else ''}"
    return k


# ------------------------------------------------------------ random draws


def split_pow2(
    rng: random.Random, total: int, rank: int, weights: Sequence[float] | None = None
) -> list[int]:
    """Return a random factorisation of the power of two ``total`` over ``rank`` dims."""
    out = [1] * rank
    for _ in range(log2(total)):
        d = rng.choices(range(rank), weights=weights)[0] if weights else rng.randrange(rank)
        out[d] *= 2
    return out


def fitted_split(
    rng: random.Random, total: int, room: Sequence[int], order: Sequence[int]
) -> list[int]:
    """Split ``total`` over dims, filling ``room`` along ``order`` first.

    That is the default blocked builder's way; half of the time the split is random instead.
    """
    if rng.random() < 0.5:
        return split_pow2(rng, total, len(room))
    out = [1] * len(room)
    left = total
    for d in order:
        take = min(max(room[d], 1), left)
        out[d] = take
        left //= take
    out[order[-1]] *= left
    return out


def draw_blocked(rng: random.Random, shape: Sequence[int], warps: int) -> Spec:
    """Draw a random blocked layout for ``shape`` and ``warps``."""
    rank = len(shape)
    order = list(range(rank))
    rng.shuffle(order)
    if rng.random() < 0.5:
        order = list(reversed(range(rank)))
    spt = [1] * rank
    spt[order[0]] = min(rng.choice([1, 1, 2, 4, 8, 16]), max(shape[order[0]], 1))
    if rank > 1 and rng.random() < 0.25:
        spt[order[1]] = rng.choice([1, 2, 4])
    room = [max(s // p, 1) for s, p in zip(shape, spt)]
    tpw = fitted_split(rng, 32, room, order)
    room2 = [max(r // t, 1) for r, t in zip(room, tpw)]
    wpc = fitted_split(rng, warps, room2, order)
    return {"kind": "blocked", "spt": spt, "tpw": tpw, "wpc": wpc, "order": order}


def draw_linear(
    rng: random.Random, shape: Sequence[int], warps: int, broadcast: float = 0.3, max_regs: int = 64
) -> Spec:
    """Draw a random distributed linear layout onto ``shape``.

    Every coordinate bit is one basis of some register, lane or warp bit (so
    it is surjective); spare lane and warp bits, and with probability
    ``broadcast`` some extra ones, are zero (several threads hold the same
    element).
    """
    coord_bits = [[0] * len(shape) for _ in range(sum(log2(s) for s in shape))]
    i = 0
    for d, s in enumerate(shape):
        for k in range(log2(s)):
            coord_bits[i][d] = 1 << k
            i += 1
    if rng.random() < 0.5:
        rng.shuffle(coord_bits)
    else:  # mostly in order: neighbour swaps only
        for j in range(len(coord_bits) - 1):
            if rng.random() < 0.3:
                coord_bits[j], coord_bits[j + 1] = coord_bits[j + 1], coord_bits[j]
        # registers take the low bits, as usual; lanes and warps the next ones
    zero = [0] * len(shape)
    n_lane, n_warp = 5, log2(warps)
    thread_slots = n_lane + n_warp
    bases: list[list[int]] = []
    pool = list(coord_bits)
    n_reg = max(len(pool) - thread_slots, 0)
    if rng.random() < broadcast and pool:
        n_reg = min(len(pool), n_reg + rng.randint(1, 2))
    n_reg = min(n_reg, log2(max_regs))
    regs, pool = pool[:n_reg], pool[n_reg:]
    slots: list[list[int]] = []
    for _ in range(thread_slots):
        slots.append(pool.pop(0) if pool else list(zero))
    rng.shuffle(slots) if rng.random() < 0.3 else None
    regs += pool  # whatever did not fit in threads goes to registers
    if rng.random() < 0.1:
        regs.insert(rng.randrange(len(regs) + 1), list(zero))  # a duplicated register
    bases = slots
    return {
        "kind": "linear",
        "shape": list(shape),
        "bases": {"register": regs, "lane": bases[:n_lane], "warp": bases[n_lane:]},
    }


def draw_mma(
    rng: random.Random, shape: Sequence[int], warps: int, version: int, bits: int = 16
) -> Spec:
    """Draw a random NVIDIA MMA accumulator layout (rank 2)."""
    if version == 3:
        groups = warps // 4
        w1 = rng.choice([x for x in (1, 2, 4) if x <= groups])
        wpc = [4 * groups // w1, w1]
        n_max = max(8, min(256, shape[1] // w1 if len(shape) > 1 else 8))
        ns = [n for n in (8, 16, 32, 64, 128, 256) if n <= n_max] or [8]
        n = rng.choice(ns)
        k = 256 // max(bits, 8) if bits != 32 else 8
        return {"kind": "mma", "version": 3, "wpc": wpc, "instr": [16, n, k]}
    wpc = split_pow2(rng, warps, 2)
    return {"kind": "mma", "version": 2, "wpc": wpc, "instr": [16, 8]}


def default_k_width(bits: int, version: int) -> int:
    """Return the kWidth Triton gives a dot operand of ``bits``-bit elements."""
    del version  # the same for MMA v2 and v3 operands
    return max(32 // bits, 1)


def draw_dot_op(rng: random.Random, shape: Sequence[int], warps: int, bits: int, cap: int) -> Spec:
    """Draw a random dot operand layout (MMA v2 or v3 parent, or blocked)."""
    r = rng.random()
    if r < 0.15:
        return {
            "kind": "dot_op",
            "idx": rng.randrange(2),
            "parent": draw_blocked(rng, shape, warps),
        }
    if cap >= 90 and warps >= 4 and r < 0.45:
        parent = draw_mma(rng, shape, warps, 3, bits)
        return {"kind": "dot_op", "idx": 0, "parent": parent, "k_width": default_k_width(bits, 3)}
    parent = draw_mma(rng, shape, warps, 2, bits)
    kw = default_k_width(bits, 2)
    if rng.random() < 0.2:
        kw = kw * 2
    return {"kind": "dot_op", "idx": rng.randrange(2), "parent": parent, "k_width": kw}


def draw_distributed(
    rng: random.Random,
    shape: Sequence[int],
    warps: int,
    bits: int,
    cap: int,
    dialect: Dialect,
    kinds: Sequence[str] | None = None,
) -> Spec:
    """Draw a random distributed layout for ``shape`` (kind drawn from ``kinds``)."""
    rank = len(shape)
    choices = list(
        kinds or ["blocked", "blocked", "linear", "slice", "mma", "mma", "dot_op", "dot_op"]
    )
    if not dialect.has("linear"):
        choices = [c for c in choices if c != "linear"] or ["blocked"]
    if rank == 1:
        choices = [c for c in choices if c in ("blocked", "linear", "slice")] + ["slice", "slice"]
    elif rank != 2:
        choices = [c for c in choices if c in ("blocked", "linear", "slice")] or ["blocked"]
    kind = rng.choice(choices)
    if kind == "blocked":
        return draw_blocked(rng, shape, warps)
    if kind == "linear":
        return draw_linear(rng, shape, warps)
    if kind == "slice":
        dim = rng.randrange(rank + 1)
        pshape = list(shape)
        pshape.insert(dim, rng.choice([1, 2, 4, 8]))
        pkinds = (
            ["blocked", "blocked", "mma", "linear", "dot_op"]
            if rank + 1 == 2
            else ["blocked", "linear"]
        )
        if not dialect.has("linear"):
            pkinds = [k for k in pkinds if k != "linear"]
        pk = rng.choice(pkinds)
        if pk == "dot_op":
            parent = draw_dot_op(rng, pshape, warps, bits, cap)
        elif pk == "mma":
            version = 3 if cap >= 90 and warps >= 4 and rng.random() < 0.5 else 2
            parent = draw_mma(rng, pshape, warps, version, bits)
        elif pk == "linear":
            parent = draw_linear(rng, pshape, warps)
        else:
            parent = draw_blocked(rng, pshape, warps)
        return {"kind": "slice", "dim": dim, "parent": parent}
    if kind == "mma":
        version = 3 if cap >= 90 and warps >= 4 and rng.random() < 0.5 else 2
        return draw_mma(rng, shape, warps, version, bits)
    return draw_dot_op(rng, shape, warps, bits, cap)


def draw_shared(
    rng: random.Random,
    shape: Sequence[int],
    bits: int,
    dialect: Dialect,
    kinds: Sequence[str] | None = None,
) -> Spec:
    """Draw a random shared memory layout for ``shape``."""
    rank = len(shape)
    choices = list(
        kinds
        or ["swizzled", "swizzled", "nvmma", "nvmma", "nvmma", "nvmma", "padded", "shared_linear"]
    )
    choices = [c for c in choices if c == "swizzled" or dialect.has(c)] or ["swizzled"]
    kind = rng.choice(choices)
    if kind == "swizzled":
        order = list(reversed(range(rank)))
        if rng.random() < 0.4:
            rng.shuffle(order)
        return {
            "kind": "swizzled",
            "vec": rng.choice([1, 2, 4, 8, 16]),
            "per_phase": rng.choice([1, 1, 2, 4, 8]),
            "max_phase": rng.choice([1, 2, 4, 8, 16]),
            "order": order,
        }
    if kind == "nvmma":
        transposed = rng.random() < 0.4
        contig = shape[-2] if transposed and rank >= 2 else shape[-1]
        fits = [w for w in (32, 64, 128) if w <= contig * bits // 8]
        swizzle = (
            rng.choice([0, *fits, *fits[-1:]])
            if fits and rng.random() < 0.9
            else rng.choice([0, 32, 64, 128])
        )
        return {
            "kind": "nvmma",
            "swizzle": swizzle,
            "transposed": transposed,
            "bits": bits,
            "rank": rank,
        }
    if kind == "padded":
        order = list(reversed(range(rank)))
        if rng.random() < 0.3:
            rng.shuffle(order)
        n = 1
        for s in shape:
            n *= s
        intervals = []
        for _ in range(rng.choice([1, 1, 2])):
            iv = rng.choice([x for x in (4, 8, 16, 32, 64, 128, 256) if x <= max(n, 4)])
            if any(i == iv for i, _ in intervals):
                continue
            intervals.append([iv, rng.choice([1, 2, 4, 8])])
        intervals.sort()
        # no padding under the widest vector Triton may use (see
        # program.padded_min_padding): smaller ones give misaligned accesses
        lo = min(min(iv for iv, _ in intervals), 128 // bits)
        intervals = [[iv, max(pad, lo)] for iv, pad in intervals]
        return {"kind": "padded", "intervals": intervals, "order": order, "shape": list(shape)}
    # shared_linear: a random invertible map of the offset bits onto the shape
    coord = []
    for d, s in enumerate(shape):
        for k in range(log2(s)):
            v = [0] * rank
            v[d] = 1 << k
            coord.append(v)
    if rng.random() < 0.5:
        rng.shuffle(coord)
    for _ in range(rng.randrange(4)):  # swizzle-like XOR of one basis into another
        if len(coord) >= 2:
            i, j = rng.sample(range(len(coord)), 2)
            coord[i] = [a ^ b for a, b in zip(coord[i], coord[j])]
    return {"kind": "shared_linear", "offset": coord, "alignment": 16}
