"""Cases: a load, a chain of layout-sensitive steps, a store.

A case is JSON data (``params``): the input tensor (shape, element type,
layout) and a list of *steps*, each applied to the current value:

``convert``    ``convert_layout`` to another distributed layout
``shared``     ``local_alloc`` (or ``local_store``) into a shared layout, an
               optional ``memdesc_trans``, ``local_load`` into a layout
``trans``      ``tt.trans``; ``reshape``: ``tt.reshape`` (row-major)
``join``       ``tt.join`` with a second input in the same layout
``split``      ``tt.split``, keeping one half
``broadcast``  ``tt.broadcast`` of a size-1 dim
``expand``     ``tt.expand_dims`` of a slice layout into its parent
``gather``     ``tt.gather`` along an axis with an index input
``dot``        ``tt.dot`` (MMA v2) or ``ttng.warp_group_dot`` (v3) with the
               current value as operand A or B and an identity (exact
               launches) or random (random launches) second operand
``cast``       an element type conversion (only in dot chains)

:func:`build` checks a case and turns it into a :class:`Program`: every
value's type and layout (shape ops get the layout Triton infers, computed
from our crate's layouts and written as ``#ttg.linear``), the inputs, and the
ops.  :func:`interpret` computes what the kernel must store, from the ops'
meaning alone, without layouts.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .layouts import BITS, FLOAT, Dialect, Spec, linear_of, linear_spec, spec_rank, spec_warps
from .ll import Layout, log2
from .oracle import LayoutRejectedError, Oracle, Recorder, release_row

MAX_REGS_32 = 128  # 32-bit registers one tensor may take per thread
MAX_SHARED = {80: 160 * 1024, 86: 96 * 1024, 89: 96 * 1024, 90: 224 * 1024}


class InvalidCaseError(Exception):
    """The case is not a valid kernel (the generator draws again)."""


@dataclass
class Value:
    """A tensor (``layout``) or a shared memory descriptor (``shared``)."""

    shape: list[int]
    dtype: str
    layout: Spec | None = None
    ll: Layout | None = None
    shared: Spec | None = None
    mutable: bool = False

    @property
    def numel(self) -> int:
        """The number of elements."""
        n = 1
        for s in self.shape:
            n *= s
        return n


@dataclass
class Program:
    """A case ready to emit and to interpret."""

    params: dict[str, Any]
    warps: int
    cap: int
    values: dict[str, Value] = field(default_factory=dict)
    inputs: list[dict[str, Any]] = field(default_factory=list)
    ops: list[dict[str, Any]] = field(default_factory=list)
    output: str = ""
    mode: str = "bits"

    def data_inputs(self) -> list[dict[str, Any]]:
        """Return the inputs holding element ids (data), in order."""
        return [i for i in self.inputs if i["role"] == "data"]


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


class _Builder:
    def __init__(self, params: dict[str, Any], oracle: Oracle | Recorder, dialect: Dialect) -> None:
        self.p = params
        self.oracle = oracle
        self.dialect = dialect
        self.prog = Program(params=params, warps=params["warps"], cap=params["cap"])
        self.n = 0

    def name(self, base: str) -> str:
        self.n += 1
        return f"{base}{self.n}"

    def ll(self, spec: Spec, shape: Sequence[int], dtype: str) -> Layout:
        if spec_rank(spec) != len(shape):
            raise InvalidCaseError(f"layout rank {spec_rank(spec)} for a rank-{len(shape)} tensor")
        if (
            spec["kind"] in ("blocked", "mma", "slice", "dot_op", "linear")
            and spec_warps(spec) != self.prog.warps
        ):
            raise InvalidCaseError("layout warps differ from the kernel's")
        if spec["kind"] == "linear":
            lay = linear_of(spec)
            if list(lay.shape) != list(shape):
                raise InvalidCaseError("linear layout shape differs from the tensor's")
            if len(lay.get("lane")) != 5:
                raise InvalidCaseError("linear layout needs 5 lane bases")
            for _, bs in lay.bases:
                for b in bs:
                    if sum(1 for x in b if x) > 1 or any(x and not _pow2(x) for x in b):
                        raise InvalidCaseError(
                            "linear bases must be zero or a power of two in one dim"
                        )
            if not lay.is_surjective():
                raise InvalidCaseError("linear layout is not surjective")
            return lay
        attr = self.dialect.layout(spec)
        try:
            lay = self.oracle.lookup(attr, shape, BITS[dtype])
        except LayoutRejectedError as e:
            raise InvalidCaseError(f"crate rejects {attr} for {list(shape)}: {e}") from e
        return lay

    def check_regs(self, v: Value) -> None:
        if v.ll is None:
            return
        regs = 1 << len(v.ll.get("register"))
        words = (
            regs * max(BITS[v.dtype], 32) // 32
            if BITS[v.dtype] >= 32
            else regs * BITS[v.dtype] // 32
        )
        if max(words, regs // 4) > MAX_REGS_32:
            raise InvalidCaseError(f"{regs} elements per thread is past the register limit")

    def tensor(self, shape: Sequence[int], dtype: str, spec: Spec, ll: Layout | None = None) -> str:
        if any(not _pow2(s) for s in shape):
            raise InvalidCaseError(f"shape {list(shape)} is not powers of two")
        if dtype == "f8e4" and not self.dialect.has("f8e4"):
            raise InvalidCaseError("this release has no f8E4M3FN tensors")
        lay = ll if ll is not None else self.ll(spec, shape, dtype)
        v = Value(list(shape), dtype, spec, lay)
        self.check_regs(v)
        name = self.name("v")
        self.prog.values[name] = v
        return name

    def add_input(
        self, shape: Sequence[int], dtype: str, spec: Spec, role: str, **extra: Any
    ) -> str:
        name = self.tensor(shape, dtype, spec)
        self.prog.inputs.append({"name": name, "role": role, **extra})
        return name

    def derived(self, lay: Layout, dtype: str) -> str:
        if not self.dialect.has("linear"):
            raise InvalidCaseError("this release has no #linear layout for derived results")
        return self.tensor(list(lay.shape), dtype, linear_spec(lay), lay)

    # ------------------------------------------------------------ steps

    def run(self) -> Program:
        p = self.p
        inp = p["input"]
        if inp["dtype"] not in BITS:
            raise InvalidCaseError(f"unknown dtype {inp['dtype']}")
        cur = self.add_input(inp["shape"], inp["dtype"], inp["layout"], "data")
        for step in p["steps"]:
            cur = getattr(self, "step_" + step["op"])(cur, step)
        self.prog.output = cur
        out = self.prog.values[cur]
        if out.shared is not None:
            raise InvalidCaseError("the result must be a tensor")
        if self.dialect.old:
            # 3.2 cannot index (load, store, make_range) tensors in dot operand layouts
            for name in [i["name"] for i in self.prog.inputs] + [cur]:
                if _has_kind(self.prog.values[name].layout, "dot_op"):
                    raise InvalidCaseError("3.2 cannot load or store a dot operand layout")
        self.prog.mode = (
            "numeric" if any(s["op"] in ("dot", "cast") for s in p["steps"]) else "bits"
        )
        total = sum(
            self.prog.values[i["name"]].numel for i in self.prog.inputs if i["role"] == "data"
        )
        if total > (1 << 16):
            raise InvalidCaseError("too many input elements")
        smem = 0
        for op in self.prog.ops:
            if op["op"] in ("local_alloc",):
                v = self.prog.values[op["out"]]
                smem += v.numel * BITS[v.dtype] // 8
        if smem > MAX_SHARED.get(self.prog.cap, 96 * 1024) // 2:
            raise InvalidCaseError("too much shared memory")
        return self.prog

    def step_convert(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        out = self.tensor(v.shape, v.dtype, s["layout"])
        self.prog.ops.append({"op": "convert", "args": [cur], "out": out})
        return out

    def shared_value(self, shape: Sequence[int], dtype: str, spec: Spec, mutable: bool) -> str:
        k = spec["kind"]
        if k in ("padded", "shared_linear") and not self.dialect.has(k):
            raise InvalidCaseError(f"no {k} in this release")
        if k == "nvmma" and spec["bits"] != BITS[dtype]:
            raise InvalidCaseError("nvmma elementBitWidth differs from the element type")
        if spec_rank(spec) != len(shape):
            raise InvalidCaseError("shared layout rank differs from the tensor's")
        if k == "padded":
            if list(spec["shape"]) != list(shape):
                raise InvalidCaseError("padded layout shape differs")
            for iv, pad in spec["intervals"]:
                if not (_pow2(iv) and _pow2(pad)):
                    raise InvalidCaseError("padded intervals must be powers of two")
            lo = padded_min_padding(spec, BITS[dtype])
            if any(pad < lo for _, pad in spec["intervals"]):
                raise InvalidCaseError(
                    f"padding under {lo} elements misaligns Triton's shared vector accesses"
                )
            lay = None
        else:
            attr = self.dialect.layout(spec)
            try:
                lay = self.oracle.lookup(attr, shape, BITS[dtype])
            except LayoutRejectedError as e:
                raise InvalidCaseError(f"crate rejects {attr} for {list(shape)}: {e}") from e
        name = self.name("m")
        self.prog.values[name] = Value(list(shape), dtype, shared=spec, ll=lay, mutable=mutable)
        return name

    def step_shared(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        store = s.get("mode", "alloc") == "store"
        mem = self.shared_value(v.shape, v.dtype, s["layout"], store)
        if store:
            self.prog.ops.append({"op": "local_alloc_empty", "args": [], "out": mem})
            self.prog.ops.append({"op": "local_store", "args": [cur, mem], "out": None})
        else:
            self.prog.ops.append({"op": "local_alloc", "args": [cur], "out": mem})
        shape = v.shape
        if s.get("trans"):
            order = s["trans"]
            if sorted(order) != list(range(len(shape))):
                raise InvalidCaseError("bad memdesc_trans order")
            spec = transposed_shared(s["layout"], order)
            if spec is None:
                raise InvalidCaseError("no transposed form of this shared layout")
            shape = [shape[o] for o in order]
            t = self.name("m")
            mv = self.prog.values[mem]
            view = mv.ll.transpose(order) if mv.ll else None
            if view is not None:
                self.check_trans_view(spec, shape, v.dtype, view)
            self.prog.values[t] = Value(
                shape,
                v.dtype,
                shared=spec,
                mutable=mv.mutable,
                ll=view,
            )
            self.prog.ops.append({"op": "memdesc_trans", "args": [mem], "out": t, "order": order})
            mem = t
        out = self.tensor(shape, v.dtype, s["dst"])
        self.prog.ops.append({"op": "local_load", "args": [mem], "out": out})
        return out

    def check_trans_view(self, spec: Spec, shape: Sequence[int], dtype: str, view: Layout) -> None:
        """Reject a ``memdesc_trans`` whose result type does not describe its view.

        The result's encoding (:func:`transposed_shared`, as Triton infers it)
        is what ``local_load`` lowers with.  When our crate says that its
        layout is not the transposed layout of the source buffer, the
        release reads the wrong addresses: a known Triton bug, not something
        to find again: up to 3.7 an NVMMA layout without swizzling ignores
        ``transposed`` (triton-lang/triton#10453, which our crate models as
        fixed from 3.8; smoke cases 100-136, 100-329).
        """
        attr = self.dialect.layout(spec)
        try:
            inferred = self.oracle.lookup(attr, shape, BITS[dtype])
        except LayoutRejectedError as e:
            raise InvalidCaseError(f"crate rejects {attr} for {list(shape)}: {e}") from e
        if inferred.bases != view.bases or list(inferred.shape) != list(view.shape):
            raise InvalidCaseError(
                "memdesc_trans result layout is not the transposed view (known Triton bug)"
            )

    def cur_ll(self, cur: str) -> Layout:
        v = self.prog.values[cur]
        if v.ll is None:
            raise InvalidCaseError("no layout")
        return v.ll

    def step_trans(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        order = s["order"]
        if sorted(order) != list(range(len(v.shape))):
            raise InvalidCaseError("bad trans order")
        out = self.derived(self.cur_ll(cur).transpose(order), v.dtype)
        self.prog.ops.append({"op": "trans", "args": [cur], "out": out, "order": order})
        return out

    def step_reshape(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        if _numel(s["shape"]) != v.numel:
            raise InvalidCaseError("reshape changes the element count")
        out = self.derived(self.cur_ll(cur).reshape(s["shape"]), v.dtype)
        self.prog.ops.append({"op": "reshape", "args": [cur], "out": out})
        return out

    def step_join(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        other = self.add_input(v.shape, v.dtype, v.layout, "data")
        out = self.derived(self.cur_ll(cur).join(), v.dtype)
        self.prog.ops.append({"op": "join", "args": [cur, other], "out": out})
        return out

    def step_split(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        if v.shape[-1] != 2:
            raise InvalidCaseError("split needs a minor dim of 2")
        try:
            lay = self.cur_ll(cur).split()
        except ValueError as e:
            raise InvalidCaseError(str(e)) from e
        a = self.derived(lay, v.dtype)
        b = self.derived(lay, v.dtype)
        self.prog.ops.append({"op": "split", "args": [cur], "out": [a, b]})
        return [a, b][s.get("take", 0)]

    def step_broadcast(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        if v.layout["kind"] == "linear":
            raise InvalidCaseError("a linear layout cannot be broadcast (its shape is fixed)")
        shape = list(s["shape"])
        if len(shape) != len(v.shape) or any(a != b and a != 1 for a, b in zip(v.shape, shape)):
            raise InvalidCaseError("broadcast shape does not extend the input's")
        if shape == v.shape:
            raise InvalidCaseError("broadcast changes nothing")
        out = self.tensor(shape, v.dtype, v.layout)
        self.prog.ops.append({"op": "broadcast", "args": [cur], "out": out})
        return out

    def step_expand(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        lay = v.layout
        if lay["kind"] != "slice" or lay["dim"] != s["axis"]:
            raise InvalidCaseError("expand_dims needs a slice layout along its axis")
        shape = list(v.shape)
        shape.insert(s["axis"], 1)
        out = self.tensor(shape, v.dtype, lay["parent"])
        self.prog.ops.append({"op": "expand", "args": [cur], "out": out, "axis": s["axis"]})
        return out

    def step_gather(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        axis = s["axis"]
        ishape = list(s["index_shape"])
        if len(ishape) != len(v.shape) or any(
            a != b for d, (a, b) in enumerate(zip(ishape, v.shape)) if d != axis
        ):
            raise InvalidCaseError("gather index shape must match the source off the axis")
        if not self.dialect.has("gather"):
            raise InvalidCaseError("no gather in this release")
        idx = self.add_input(ishape, "i32", s["index_layout"], "gindex", bound=v.shape[axis])
        iv = self.prog.values[idx]
        out = self.tensor(ishape, v.dtype, s["index_layout"], iv.ll)
        self.prog.ops.append({"op": "gather", "args": [cur, idx], "out": out, "axis": axis})
        return out

    def step_cast(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        to = s["dtype"]
        if to == v.dtype:
            raise InvalidCaseError("cast to the same type")
        if (to in FLOAT) != (v.dtype in FLOAT):
            raise InvalidCaseError("casts stay within floats or within integers")
        out = self.tensor(v.shape, to, v.layout, v.ll)
        self.prog.ops.append({"op": "cast", "args": [cur], "out": out})
        return out

    def step_dot(self, cur: str, s: dict[str, Any]) -> str:
        v = self.prog.values[cur]
        if len(v.shape) != 2:
            raise InvalidCaseError("dots are rank 2")
        dt = v.dtype
        if dt not in ("f16", "bf16", "f32", "f8e4", "f8e5", "i8"):
            raise InvalidCaseError(f"no dot on {dt}")
        mma = s["mma"]
        version = mma["version"]
        if s["as"] == "A":
            m, k = v.shape
            n = s["other"]
            aux_shape = [k, n]
        else:
            k, n = v.shape
            m = s["other"]
            aux_shape = [m, k]
        if not all(_pow2(x) for x in (m, n, k)):
            raise InvalidCaseError("dot dims must be powers of two")
        kmin = (
            256 // BITS[dt] if version == 3 else max(16, 256 // BITS[dt]) if BITS[dt] != 32 else 8
        )
        if k < kmin or n < 8 or m < 16:
            raise InvalidCaseError("dot too small for the instruction")
        if version == 3:
            if self.prog.cap < 90 or self.prog.warps % 4:
                raise InvalidCaseError("wgmma needs sm90 and whole warp groups")
            if m < 16 * mma["wpc"][0] or n < mma["instr"][1] * mma["wpc"][1]:
                raise InvalidCaseError("wgmma tile larger than the dot")
            if mma["instr"][2] != (256 // BITS[dt] if BITS[dt] != 32 else 8):
                raise InvalidCaseError("wgmma instruction K does not match the element type")
        aux = self.add_input(aux_shape, dt, s["aux_layout"], "aux", aux="identity")
        a, b = (cur, aux) if s["as"] == "A" else (aux, cur)
        acc_dt = "i32" if dt == "i8" else "f32"
        kw = s.get("k_width")
        ops = self.prog.ops
        if version == 2:
            a_op = self.operand(a, 0, mma, kw, s.get("a_smem"))
            b_op = self.operand(b, 1, mma, kw, s.get("b_smem"))
        else:
            if s.get("a_smem"):
                a_op = self.smem_operand(a, s["a_smem"])
            else:
                a_op = self.operand(a, 0, mma, kw, None)
            if not s.get("b_smem"):
                # a shrink candidate may drop it: wgmma reads B only from shared memory
                raise InvalidCaseError("wgmma takes operand B from shared memory")
            b_op = self.smem_operand(b, s["b_smem"])
        acc = self.tensor([m, n], acc_dt, mma)
        ops.append({"op": "zeros", "args": [], "out": acc})
        out = self.tensor([m, n], acc_dt, mma)
        ops.append(
            {
                "op": "dot",
                "args": [a_op, b_op, acc],
                "out": out,
                "version": version,
                "tf32": dt == "f32",
            }
        )
        return out

    def operand(self, x: str, idx: int, mma: Spec, kw: int | None, via: Spec | None) -> str:
        v = self.prog.values[x]
        spec: Spec = {"kind": "dot_op", "idx": idx, "parent": mma}
        if kw:
            spec["k_width"] = kw
        if via:
            mem = self.shared_value(v.shape, v.dtype, via, False)
            self.prog.ops.append({"op": "local_alloc", "args": [x], "out": mem})
            out = self.tensor(v.shape, v.dtype, spec)
            self.prog.ops.append({"op": "local_load", "args": [mem], "out": out})
            return out
        out = self.tensor(v.shape, v.dtype, spec)
        self.prog.ops.append({"op": "convert", "args": [x], "out": out})
        return out

    def smem_operand(self, x: str, spec: Spec) -> str:
        v = self.prog.values[x]
        if spec["kind"] != "nvmma":
            raise InvalidCaseError("wgmma operands in shared memory need an nvmma layout")
        mem = self.shared_value(v.shape, v.dtype, spec, False)
        self.prog.ops.append({"op": "local_alloc", "args": [x], "out": mem})
        return mem


def _has_kind(spec: Any, kind: str) -> bool:
    if not isinstance(spec, dict):
        return False
    return spec.get("kind") == kind or _has_kind(spec.get("parent"), kind)


def padded_min_padding(spec: Spec, bits: int) -> int:
    """Return the smallest padding (elements) that keeps a padded layout's accesses aligned.

    Triton lowers ``local_alloc`` / ``local_store`` / ``local_load`` of a
    ``padded_shared`` layout with vectors of up to the smallest interval and
    up to 16 bytes (``lowerLocalLdSt``: ``maybeMaxVecElems = minInterval``)
    but adds the padding to the vector's address unchecked: a padding
    smaller than the vector puts vectors at misaligned addresses, which an
    NVIDIA GPU faults on ("misaligned address"; smoke cases 100-55, 100-163,
    100-185, 100-221, 100-228, 100-335, 100-346).  Triton's NVIDIA pipeline
    never makes padded layouts (they are AMD's), so the fuzzer keeps to the
    paddings whose every vector stays aligned.
    """
    min_interval = min(iv for iv, _ in spec["intervals"])
    return max(1, min(min_interval, 128 // bits))


def transposed_shared(spec: Spec, order: Sequence[int]) -> Spec | None:
    """Return the shared layout ``memdesc_trans`` infers, for the kinds it supports."""
    k = spec["kind"]
    if k == "nvmma":
        if list(order) != [1, 0]:
            return None
        out = dict(spec)
        out["transposed"] = not spec["transposed"]
        return out
    if k == "swizzled":
        out = dict(spec)
        inv = [list(order).index(d) for d in range(len(order))]
        out["order"] = [inv[d] for d in spec["order"]]
        return out
    if k == "shared_linear":
        out = dict(spec)
        out["offset"] = [[b[o] for o in order] for b in spec["offset"]]
        return out
    return None


def build(
    params: dict[str, Any], oracle: Oracle | Recorder, dialect: Dialect | None = None
) -> Program:
    """Check ``params`` and make its :class:`Program`.

    Raises :class:`InvalidCaseError`, or :class:`~.oracle.MissingLayoutsError` when the oracle
    must be asked first.
    """
    d = dialect or Dialect(oracle)
    release_row(params["triton"], [d.row])  # the case's release, or a ValueError
    return _Builder(copy.deepcopy(params), oracle, d).run()


# ------------------------------------------------------------ meaning


def _strides(shape: Sequence[int]) -> list[int]:
    out = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        out[i] = out[i + 1] * shape[i + 1]
    return out


def transpose_flat(xs: list[Any], shape: Sequence[int], order: Sequence[int]) -> list[Any]:
    """Row-major ``xs`` of ``shape`` transposed so that out dim i is dim order[i]."""
    st = _strides(shape)
    new_shape = [shape[o] for o in order]
    nst = [st[o] for o in order]
    out = [None] * len(xs)
    rank = len(shape)
    idx = [0] * rank
    src = 0
    for i in range(len(xs)):
        out[i] = xs[src]
        # increment idx in new_shape row-major, maintain src offset
        d = rank - 1
        while d >= 0:
            idx[d] += 1
            src += nst[d]
            if idx[d] < new_shape[d]:
                break
            src -= nst[d] * new_shape[d]
            idx[d] = 0
            d -= 1
    return out


def _matmul_backend() -> Any:
    try:
        import numpy

        return lambda a, b, m, k, n: (
            (
                numpy.array(a, dtype=numpy.float64).reshape(m, k)
                @ numpy.array(b, dtype=numpy.float64).reshape(k, n)
            )
            .ravel()
            .tolist()
        )
    except ImportError:
        pass
    try:
        import torch

        return lambda a, b, m, k, n: (
            (
                torch.tensor(a, dtype=torch.float64).view(m, k)
                @ torch.tensor(b, dtype=torch.float64).view(k, n)
            )
            .view(-1)
            .tolist()
        )
    except ImportError:
        return None


_FAST_MATMUL: list[Any] = []


def matmul(
    a: Sequence[Any], b: Sequence[Any], m: int, k: int, n: int, fast: bool = True
) -> list[Any]:
    """Multiply row-major ``a (m x k)`` by ``b (k x n)`` in float64.

    Exact on the small integers the plans use; numpy or torch do it when
    importable.
    """
    if fast:
        if not _FAST_MATMUL:
            _FAST_MATMUL.append(_matmul_backend())
        f = _FAST_MATMUL[0]
        if f is not None:
            try:
                return f(a, b, m, k, n)
            except (TypeError, ValueError):  # symbolic values (the self-check): pure Python
                pass
    nz = [[(r, b[r * n + j]) for r in range(k) if b[r * n + j]] for j in range(n)]
    out: list[Any] = []
    for i in range(m):
        row = a[i * k : (i + 1) * k]
        for j in range(n):
            out.append(sum([row[r] * v for r, v in nz[j]]))
    return out


def interpret(
    prog: Program, inputs: dict[str, list[Any]], numeric: bool, exact_ints: bool = False
) -> list[Any]:
    """Return what the kernel must store, given row-major input values.

    With ``numeric`` false, values are opaque (element ids) and casts and
    dots are exact integer arithmetic (``exact_ints``: dots of ids with an
    identity operand give ids back); with it true, values are floats, dots
    are float64 matrix products and casts round as the element type does.
    """
    from .data import round_to

    env: dict[str, list[Any]] = dict(inputs)
    vals = prog.values
    for op in prog.ops:
        kind = op["op"]
        a = [env.get(x) for x in op["args"]]
        if kind in ("convert", "local_alloc", "local_load", "expand"):
            env[op["out"]] = a[0]
        elif kind == "local_alloc_empty":
            env[op["out"]] = [None] * vals[op["out"]].numel
        elif kind == "local_store":
            env[op["args"][1]] = a[0]
        elif kind in ("trans", "memdesc_trans"):
            env[op["out"]] = transpose_flat(a[0], vals[op["args"][0]].shape, op["order"])
        elif kind == "reshape":
            env[op["out"]] = a[0]
        elif kind == "join":
            out = [None] * (2 * len(a[0]))
            out[0::2] = a[0]
            out[1::2] = a[1]
            env[op["out"]] = out
        elif kind == "split":
            env[op["out"][0]] = a[0][0::2]
            env[op["out"][1]] = a[0][1::2]
        elif kind == "broadcast":
            src = vals[op["args"][0]]
            dst = vals[op["out"]]
            sst = _strides(src.shape)
            out = []
            for i in range(dst.numel):
                rem, off = i, 0
                for d in range(len(dst.shape) - 1, -1, -1):
                    c = rem % dst.shape[d]
                    rem //= dst.shape[d]
                    if src.shape[d] != 1:
                        off += c * sst[d]
                out.append(a[0][off])
            env[op["out"]] = out
        elif kind == "gather":
            src = vals[op["args"][0]]
            idxv = vals[op["args"][1]]
            axis = op["axis"]
            sst = _strides(src.shape)
            out = []
            for i in range(idxv.numel):
                rem, off = i, 0
                for d in range(len(idxv.shape) - 1, -1, -1):
                    c = rem % idxv.shape[d]
                    rem //= idxv.shape[d]
                    off += (a[1][i] if d == axis else c) * sst[d]
                out.append(a[0][off])
            env[op["out"]] = out
        elif kind == "zeros":
            env[op["out"]] = [0] * vals[op["out"]].numel
        elif kind == "cast":
            to = vals[op["out"]].dtype
            env[op["out"]] = [round_to(to, x) for x in a[0]] if numeric else list(a[0])
        elif kind == "dot":
            m, k = vals[op["args"][0]].shape
            n = vals[op["args"][1]].shape[1]
            out = matmul(a[0], a[1], m, k, n)
            out = [c + x for c, x in zip(a[2], out)]
            if numeric and vals[op["out"]].dtype == "f32":
                out = [round_to("f32", x) for x in out]
            elif not numeric:
                out = [int(x) for x in out]
            env[op["out"]] = out
        else:
            raise ValueError(f"unknown op {kind}")
    return env[prog.output]


def shape_signature(prog: Program) -> str:
    """Return a short description of the program: op names and shapes."""
    parts = []
    for op in prog.ops:
        out = op["out"][0] if isinstance(op["out"], list) else op["out"]
        if out is None:
            continue
        v = prog.values[out]
        parts.append(f"{op['op']}:{'x'.join(map(str, v.shape))}")
    return " ".join(parts)


__all__ = [
    "InvalidCaseError",
    "Program",
    "Value",
    "build",
    "interpret",
    "log2",
    "transposed_shared",
]
