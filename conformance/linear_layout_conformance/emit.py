"""TTGIR text of a :class:`~.program.Program`.

One kernel, one program: each input is loaded with a pointer tensor built
in its own layout (``make_range`` over slices of that layout,
``expand_dims``, ``broadcast``), the ops follow, and the result is stored
from its own layout, so no layout conversion happens that the case does not
ask for.  Layout attributes are written once, as ``#L<n>`` / ``#S<n>``
aliases.  The kernel's arguments are one pointer per input, then the
output pointer.

Compiling from TTGIR skips ``make_ttgir``: what that stage adds for the
later ones is written here, i.e. a ``fence_async_shared`` before every
``warp_group_dot`` (its fence insertion pass), so that wgmma reads the
operands ``local_alloc`` wrote.
"""

from __future__ import annotations

from collections.abc import Sequence

from .layouts import MLIR_TYPE, Dialect
from .program import Program, Value


class _Emitter:
    def __init__(self, prog: Program, dialect: Dialect) -> None:
        self.prog = prog
        self.d = dialect
        self.aliases: dict[str, str] = {}  # attribute text -> alias
        self.lines: list[str] = []
        self.n = 0

    def alias(self, text: str, shared: bool) -> str:
        if text not in self.aliases:
            prefix = "S" if shared else "L"
            self.aliases[text] = (
                f"{prefix}{sum(1 for a in self.aliases.values() if a[0] == prefix)}"
            )
        return self.aliases[text]

    def tmp(self) -> str:
        self.n += 1
        return f"%t{self.n}"

    def ttype(self, v: Value, elem: str | None = None) -> str:
        assert v.layout is not None
        a = self.alias(self.d.layout(v.layout), False)
        return self.tensor_type(v.shape, elem or MLIR_TYPE[v.dtype], a)

    @staticmethod
    def tensor_type(shape: Sequence[int], elem: str, alias: str) -> str:
        dims = "x".join(map(str, shape))
        return f"tensor<{dims}x{elem}, #{alias}>"

    def mtype(self, v: Value) -> str:
        assert v.shared is not None
        a = self.alias(self.d.layout(v.shared), True)
        return self.d.memdesc(v.shape, v.dtype, a, v.mutable)

    def type_of(self, name: str) -> str:
        v = self.prog.values[name]
        return self.mtype(v) if v.shared is not None else self.ttype(v)

    # ------------------------------------------------------------ pointers

    def slice_alias(self, base: str, keep: Sequence[int], rank: int) -> str:
        """Return the alias of ``base`` sliced down to the dims in ``keep``."""
        return self.d.slice_of(
            base, sorted((x for x in range(rank) if x not in keep), reverse=True)
        )

    def pointers(self, arg: str, v: Value) -> str:
        """Return a pointer tensor to row-major ``v`` at ``arg``, in ``v``'s layout."""
        assert v.layout is not None
        a = self.alias(self.d.layout(v.layout), False)
        shape, rank = v.shape, len(v.shape)
        elem = MLIR_TYPE[v.dtype]
        ptr = f"!tt.ptr<{elem}>"
        full_i32 = self.tensor_type(shape, "i32", a)
        full_ptr = self.tensor_type(shape, ptr, a)
        strides = [1] * rank
        for i in range(rank - 2, -1, -1):
            strides[i] = strides[i + 1] * shape[i + 1]
        acc = None
        for ax in range(rank):
            if shape[ax] == 1:
                continue
            cur_dims = [ax]
            enc = self.slice_alias(a, cur_dims, rank) if rank > 1 else f"#{a}"
            r = self.tmp()
            self.lines.append(
                f"    {r} = tt.make_range {{end = {shape[ax]} : i32, start = 0 : i32}} : "
                f"tensor<{shape[ax]}xi32, {enc}>"
            )
            cur = r
            for dim in range(rank):
                if dim == ax:
                    continue
                new_dims = sorted([*cur_dims, dim])
                old_t = "x".join(str(shape[x]) if x == ax else "1" for x in cur_dims)
                new_t = "x".join(str(shape[x]) if x == ax else "1" for x in new_dims)
                old_enc = self.slice_alias(a, cur_dims, rank)
                new_enc = self.slice_alias(a, new_dims, rank)
                e = self.tmp()
                self.lines.append(
                    f"    {e} = tt.expand_dims {cur} {{axis = {new_dims.index(dim)} : i32}} : "
                    f"tensor<{old_t}xi32, {old_enc}> -> tensor<{new_t}xi32, {new_enc}>"
                )
                cur, cur_dims = e, new_dims
            one = "x".join(str(shape[x]) if x == ax else "1" for x in range(rank))
            one_t = f"tensor<{one}xi32, #{a}>"
            if strides[ax] != 1:
                c, m = self.tmp(), self.tmp()
                self.lines.append(f"    {c} = arith.constant dense<{strides[ax]}> : {one_t}")
                self.lines.append(f"    {m} = arith.muli {cur}, {c} : {one_t}")
                cur = m
            if one != "x".join(map(str, shape)):
                b = self.tmp()
                self.lines.append(f"    {b} = tt.broadcast {cur} : {one_t} -> {full_i32}")
                cur = b
            if acc is None:
                acc = cur
            else:
                s = self.tmp()
                self.lines.append(f"    {s} = arith.addi {acc}, {cur} : {full_i32}")
                acc = s
        base = self.tmp()
        self.lines.append(f"    {base} = tt.splat {arg} : {ptr} -> {full_ptr}")
        if acc is None:
            return base
        p = self.tmp()
        self.lines.append(f"    {p} = tt.addptr {base}, {acc} : {full_ptr}, {full_i32}")
        return p

    # ------------------------------------------------------------ ops

    def emit(self, name: str) -> str:
        prog, d = self.prog, self.d
        args = []
        for i, inp in enumerate(prog.inputs):
            v = prog.values[inp["name"]]
            args.append(f"%in{i}: !tt.ptr<{MLIR_TYPE[v.dtype]}> {{tt.divisibility = 16 : i32}}")
        out_v = prog.values[prog.output]
        args.append(f"%out: !tt.ptr<{MLIR_TYPE[out_v.dtype]}> {{tt.divisibility = 16 : i32}}")
        for i, inp in enumerate(prog.inputs):
            v = prog.values[inp["name"]]
            p = self.pointers(f"%in{i}", v)
            ptrs_t = self.ttype(v, f"!tt.ptr<{MLIR_TYPE[v.dtype]}>")
            self.lines.append(f"    %{inp['name']} = tt.load {p} : {ptrs_t}")
        need_true = False
        g = d.d
        for op in prog.ops:
            k = op["op"]
            o = op["out"]
            a = op["args"]
            ta = [self.type_of(x) for x in a]
            to = self.type_of(o) if isinstance(o, str) else ""
            if k == "convert":
                self.lines.append(f"    %{o} = {g}.convert_layout %{a[0]} : {ta[0]} -> {to}")
            elif k == "local_alloc":
                self.lines.append(f"    %{o} = {g}.local_alloc %{a[0]} : ({ta[0]}) -> {to}")
            elif k == "local_alloc_empty":
                self.lines.append(f"    %{o} = {g}.local_alloc : () -> {to}")
            elif k == "local_store":
                self.lines.append(f"    {g}.local_store %{a[0]}, %{a[1]} : {ta[0]} -> {ta[1]}")
            elif k == "memdesc_trans":
                order = ", ".join(map(str, op["order"]))
                self.lines.append(
                    f"    %{o} = {g}.memdesc_trans %{a[0]} {{order = array<i32: {order}>}} : "
                    f"{ta[0]} -> {to}"
                )
            elif k == "local_load":
                self.lines.append(f"    %{o} = {g}.local_load %{a[0]} : {ta[0]} -> {to}")
            elif k == "trans":
                order = ", ".join(map(str, op["order"]))
                self.lines.append(
                    f"    %{o} = tt.trans %{a[0]} {{order = array<i32: {order}>}} : {ta[0]} -> {to}"
                )
            elif k == "reshape":
                self.lines.append(f"    %{o} = tt.reshape %{a[0]} : {ta[0]} -> {to}")
            elif k == "join":
                self.lines.append(f"    %{o} = tt.join %{a[0]}, %{a[1]} : {ta[0]} -> {to}")
            elif k == "split":
                self.lines.append(
                    f"    %{o[0]}, %{o[1]} = tt.split %{a[0]} : {ta[0]} -> {self.type_of(o[0])}"
                )
            elif k == "broadcast":
                self.lines.append(f"    %{o} = tt.broadcast %{a[0]} : {ta[0]} -> {to}")
            elif k == "expand":
                self.lines.append(
                    f"    %{o} = tt.expand_dims %{a[0]} {{axis = {op['axis']} : i32}} : "
                    f"{ta[0]} -> {to}"
                )
            elif k == "gather":
                self.lines.append(
                    f"    %{o} = tt.gather %{a[0]}[%{a[1]}] {{axis = {op['axis']} : i32}} : "
                    f"({ta[0]}, {ta[1]}) -> {to}"
                )
            elif k == "zeros":
                v = prog.values[o]
                zero = "0.000000e+00" if v.dtype == "f32" else "0"
                self.lines.append(f"    %{o} = arith.constant dense<{zero}> : {self.type_of(o)}")
            elif k == "cast":
                self.lines.append(self.cast(a[0], o))
            elif k == "dot":
                if op["version"] == 2:
                    prec = ", inputPrecision = tf32" if op["tf32"] else ""
                    self.lines.append(
                        f"    %{o} = tt.dot %{a[0]}, %{a[1]}, %{a[2]}{prec} : "
                        f"{self.type_of(a[0])} * {self.type_of(a[1])} -> {self.type_of(o)}"
                    )
                else:
                    need_true = True
                    # Triton's pipeline (make_ttgir's fence insertion, which a
                    # TTGIR input skips) puts this fence between the generic
                    # proxy's writes of the operands into shared memory
                    # (local_alloc) and wgmma's reads through the async proxy.
                    # Without it wgmma may read stale shared memory.
                    self.lines.append(f"    {d.ng}.fence_async_shared {{bCluster = false}}")
                    fp8 = prog.values[a[1]].dtype.startswith("f8")
                    imprecise = ", maxNumImpreciseAcc = 1073741824 : i32" if fp8 else ""
                    self.lines.append(
                        f"    %{o} = {d.ng}.warp_group_dot %{a[0]}, %{a[1]}, %{a[2]}, %true "
                        f"{{inputPrecision = 0 : i32{imprecise}}} : "
                        f"{self.type_of(a[0])} * {self.type_of(a[1])} -> {self.type_of(o)}"
                    )
            else:
                raise ValueError(f"cannot emit {k}")
        q = self.pointers("%out", out_v)
        out_t = self.ttype(out_v, f"!tt.ptr<{MLIR_TYPE[out_v.dtype]}>")
        self.lines.append(f"    tt.store {q}, %{prog.output} : {out_t}")
        if need_true:
            self.lines.insert(0, "    %true = arith.constant true")
        head = "".join(f"#{a} = {t}\n" for t, a in self.aliases.items())
        return (
            head
            + d.header(prog.warps, prog.cap)
            + f"  tt.func public @{name}({', '.join(args)}) {{\n"
            + "\n".join(self.lines)
            + "\n    tt.return\n  }\n}\n"
        )

    def cast(self, a: str, o: str) -> str:
        va, vo = self.prog.values[a], self.prog.values[o]
        src, dst = va.dtype, vo.dtype
        ta, to = self.type_of(a), self.type_of(o)
        if src in ("i8", "i16", "i32"):
            op = "arith.trunci" if int(src[1:]) > int(dst[1:]) else "arith.extsi"
            return f"    %{o} = {op} %{a} : {ta} to {to}"
        fp8 = src.startswith("f8") or dst.startswith("f8")
        wider = {"f32": 32, "f16": 16, "bf16": 16, "f8e4": 8, "f8e5": 8}
        if fp8 or {src, dst} == {"f16", "bf16"}:
            rnd = (
                ", rounding = rtne"
                if wider[dst] < wider[src] or {src, dst} == {"f16", "bf16"}
                else ""
            )
            return f"    %{o} = tt.fp_to_fp %{a}{rnd} : {ta} -> {to}"
        op = "arith.truncf" if wider[dst] < wider[src] else "arith.extf"
        return f"    %{o} = {op} %{a} : {ta} to {to}"


def emit(prog: Program, dialect: Dialect, name: str = "conformance") -> str:
    """Return the TTGIR module of ``prog`` in ``dialect``'s spelling."""
    return _Emitter(prog, dialect).emit(name)
