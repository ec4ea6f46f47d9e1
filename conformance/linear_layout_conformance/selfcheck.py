"""Independent checks of the expected outputs (no GPU needed).

:func:`selfcheck` cross-checks a case's plan three ways:

1. decoding: the expected outputs of the exact launches decode back to the
   source map (so a right output names its source, and the digit widths are
   exact for every element type on the path);
2. arithmetic: for dot chains, interpreting the kernel numerically on the
   exact launches' actual input values (float64, casts rounded as the types
   do) gives exactly the bits the plan expects;
3. layouts: for the ops Triton lowers without moving data between registers
   (``trans``, ``reshape``, ``join``, ``split``, ``expand_dims``), the
   element each hardware position holds after the op, computed from our
   crate's layouts, is the element the op's meaning puts there.
"""

from __future__ import annotations

from typing import Any

from .data import decode_ids, decode_value
from .ll import Layout
from .plan import Plan, decode_output
from .program import Program, interpret

NO_MOVE = ("trans", "reshape", "join", "split", "expand")


def _by_layout(
    op: dict[str, Any], prog: Program, src_vals: list[list[Any]]
) -> list[list[Any]] | None:
    """Return the op's outputs as the layouts say registers hold them."""
    vals = prog.values
    ins = [vals[a] for a in op["args"]]
    outs = [vals[o] for o in (op["out"] if isinstance(op["out"], list) else [op["out"]])]
    lin: Layout | None = ins[0].ll
    if lin is None or any(o.ll is None for o in outs):
        return None
    res: list[list[Any]] = []
    kind = op["op"]
    src_table = lin.table()
    for k, o in enumerate(outs):
        lout = o.ll
        assert lout is not None
        out: list[Any] = [None] * o.numel
        table = lout.table()
        nin = lin.num_in_bits()
        for hw, idx in enumerate(table):
            if kind == "join":
                # register bit 0 picks the operand, the other bits are the operands' own
                which = hw & 1
                src_hw = _drop_bit(hw, 0, lout, lin)
                out[idx] = src_vals[which][src_table[src_hw]]
            elif kind == "split":
                pos = _split_bit(lin)
                src_hw = _insert_bit(hw, pos, k)
                out[idx] = src_vals[0][src_table[src_hw]]
            else:
                if hw >= len(src_table) or lout.num_in_bits() != nin:
                    return None
                out[idx] = src_vals[0][src_table[hw]]
        res.append(out)
    return res


def _drop_bit(hw: int, bit: int, lout: Layout, lin: Layout) -> int:
    low = hw & ((1 << bit) - 1)
    return low | (hw >> (bit + 1) << bit)


def _insert_bit(hw: int, pos: int, value: int) -> int:
    low = hw & ((1 << pos) - 1)
    return low | (value << pos) | (hw >> pos << (pos + 1))


def _split_bit(lin: Layout) -> int:
    """Return the position of the register bit that selects the minor dim.

    Positions count in :meth:`Layout.in_bits` order.
    """
    i = 0
    for name, bases in lin.bases:
        for b in bases:
            if name == "register" and b[-1] == 1 and not any(b[:-1]):
                return i
            i += 1
    raise ValueError("no register bit on the minor dim")


def selfcheck(prog: Program, plan: Plan) -> list[str]:
    """Problems found in ``plan`` (empty if none)."""
    problems: list[str] = []
    exact = plan.exact
    # 1. decoding
    digits = [decode_output(plan, launch, list(launch.expected)) for launch in exact]
    dec = decode_ids(digits, plan.digit, plan.ndigits)
    for i, (s, d) in enumerate(zip(plan.source, dec)):
        if s >= 0 and s != d:
            problems.append(f"output {i}: expected source {s} decodes as {d}")
            break
    # 2. arithmetic on the exact launches
    if plan.numeric:
        for li, launch in enumerate(exact):
            values = {}
            for inp in prog.inputs:
                name = inp["name"]
                dt = prog.values[name].dtype
                values[name] = (
                    launch.inputs[name]
                    if inp["role"] == "gindex"
                    else [decode_value(dt, b) for b in launch.inputs[name]]
                )
            got = interpret(prog, values, numeric=True)
            want = [decode_value(plan.out_dtype, b) for b in launch.expected]
            bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
            if bad:
                problems.append(
                    f"launch {li}: numeric meaning differs at {len(bad)} outputs "
                    f"(first {bad[0]}: {got[bad[0]]} != {want[bad[0]]})"
                )
    # 3. layouts of the ops that do not move data
    ids: dict[str, list[Any]] = {}
    for inp in prog.inputs:
        v = prog.values[inp["name"]]
        ids[inp["name"]] = [(inp["name"], i) for i in range(v.numel)]
    env = dict(ids)
    for op in prog.ops:
        if op["op"] in NO_MOVE:
            srcs = [env[a] for a in op["args"]]
            by_layout = _by_layout(op, prog, srcs)
            if by_layout is not None:
                sub = Program(
                    params={},
                    warps=prog.warps,
                    cap=prog.cap,
                    values=prog.values,
                    inputs=[{"name": a, "role": "data"} for a in op["args"]],
                    ops=[op],
                    output=op["out"][0] if isinstance(op["out"], list) else op["out"],
                )
                outs = op["out"] if isinstance(op["out"], list) else [op["out"]]
                for k, o in enumerate(outs):
                    sub.output = o
                    meaning = interpret(sub, {a: env[a] for a in op["args"]}, numeric=False)
                    if meaning != by_layout[k]:
                        first = next(
                            i for i, (x, y) in enumerate(zip(meaning, by_layout[k])) if x != y
                        )
                        problems.append(
                            f"{op['op']}: layouts put {by_layout[k][first]} where the op "
                            f"puts {meaning[first]} (output {o}, element {first})"
                        )
        # advance the symbolic environment
        sub = Program(
            params={},
            warps=prog.warps,
            cap=prog.cap,
            values=prog.values,
            inputs=[],
            ops=[op],
            output="",
        )
        outs = op["out"] if isinstance(op["out"], list) else [op["out"]]
        for o in outs:
            if o is None:
                if op["op"] == "local_store":
                    env[op["args"][1]] = env[op["args"][0]]
                continue
            sub.output = o
            try:
                env[o] = interpret(sub, {a: env[a] for a in op["args"] if a in env}, numeric=False)
            except (TypeError, KeyError):
                env[o] = [None] * prog.values[o].numel  # arithmetic on tuples: stop tracking
    return problems
