"""A small interpreter of straight-line PTX, to replay a release's code on CPU.

The GPU machine has one Triton release; the wheels of the others compile the
same TTGIR here, on CPU, but cannot run it. Data-movement kernels of one
CTA (loads, shuffles, byte permutes, shared-memory stores and loads,
``stmatrix``, stores) have no loops and no branches, so running every thread
of the CTA in lockstep, one instruction at a time, gives exactly what the GPU
computes. :func:`run_ptx` does that; :func:`emulate_case` runs a conformance
case's launches through it and returns the outputs the way the GPU worker
does, for :func:`.classify.check`. Checked against the H100: the recorded GPU
outputs of the 3.6.0 reproducers are reproduced bit for bit (the CPU tests).

Anything outside the supported subset (a branch, an unknown opcode, an
address outside every buffer) raises :class:`PtxError`; nothing is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


class PtxError(Exception):
    """The PTX uses something this interpreter does not model."""


class IllegalAddressError(PtxError):
    """An access outside the kernel's shared memory or its buffers: the GPU faults there."""


_WIDTH = {"8": 8, "16": 16, "32": 32, "64": 64}


def _bits(ty: str) -> int:
    if ty == "pred":  # predicates: and/or/mov of one bit (reductions' combines)
        return 1
    m = re.search(r"(\d+)$", ty)
    if not m or m.group(1) not in _WIDTH:
        raise PtxError(f"no width in type {ty!r}")
    return _WIDTH[m.group(1)]


def _signed(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _statements(ptx: str) -> tuple[list[str], list[str], int]:
    """Return the entry's parameter names, its statements and its thread count."""
    m = re.search(r"\.visible \.entry \w+\((.*?)\)(.*?)\{(.*)\n\}", ptx, re.S)
    if not m:
        raise PtxError("no .entry")
    params = re.findall(r"\.param \.\w+(?: \.ptr \.global \.align \d+)? (\w+)", m.group(1))
    nt = re.search(r"\.reqntid (\d+)", m.group(2))
    if not nt:
        raise PtxError("no .reqntid")
    body = re.sub(r"//[^\n]*", "", m.group(3))
    # debug directives end at the line, not at a semicolon
    body = re.sub(r"^\s*\.(loc|file)\b[^\n]*$", "", body, flags=re.M)
    stmts = []
    for raw in body.split(";"):
        s = " ".join(raw.split())
        # labels and braces of inline-asm scopes carry no work
        s = re.sub(r"^(\$?[\w$]+:\s*)+", "", s).strip("{} ").strip()
        if not s or s.startswith("."):
            continue
        stmts.append(s)
    return params, stmts, int(nt.group(1))


class _Machine:
    def __init__(self, nthreads: int, buffers: dict[int, bytearray], shared: int) -> None:
        self.n = nthreads
        self.regs: list[dict[str, int]] = [{} for _ in range(nthreads)]
        self.buffers = buffers
        # The GPU grants shared memory in 128-byte units: an access past the
        # kernel's size but inside its last unit reads whatever is there (seen
        # on the H100: 6 bytes past a 32-byte buffer read stale bytes), past
        # the unit it faults (an access at 1024 of 1024 bytes). Bytes nobody
        # wrote hold a poison pattern, never a value a test could expect.
        self.smem_size = shared
        self.smem = bytearray(b"\xa5" * (-(-max(shared, 1) // 128) * 128))

    # ------------------------------------------------------------ operands

    def val(self, t: int, op: str) -> int:
        op = op.strip()
        if op.startswith("%tid.x"):
            return t
        if op in ("%tid.y", "%tid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z"):
            return 0
        if op.startswith("%"):
            if op not in self.regs[t]:
                return 0  # an undefined register: PTX leaves it unspecified
            return self.regs[t][op]
        if op == "global_smem":
            return 0
        if re.fullmatch(r"-?0[xX][0-9a-fA-F]+U?", op):
            return int(op.rstrip("U"), 16)
        if re.fullmatch(r"-?\d+U?", op):
            return int(op.rstrip("U"))
        raise PtxError(f"operand {op!r}")

    def addr(self, t: int, op: str) -> int:
        m = re.fullmatch(r"\[\s*([^\]+]+?)\s*(?:\+\s*(-?\w+))?\s*\]", op.strip())
        if not m:
            raise PtxError(f"address {op!r}")
        return self.val(t, m.group(1)) + (int(m.group(2), 0) if m.group(2) else 0)

    def mem(self, space: str, a: int) -> tuple[bytearray, int]:
        if space == "shared":
            a &= 0xFFFFFFFF  # shared addresses are 32-bit: an offset below a base wraps
            if not 0 <= a < len(self.smem):
                raise IllegalAddressError(f"shared address {a} outside {len(self.smem)} bytes")
            return self.smem, a
        for base, buf in self.buffers.items():
            if base <= a < base + len(buf):
                return buf, a - base
        raise IllegalAddressError(f"global address {a:#x} outside every buffer")

    def load(self, space: str, a: int, bits: int) -> int:
        buf, o = self.mem(space, a)
        n = bits // 8
        if o + n > len(buf):
            raise IllegalAddressError("access past the end of a buffer")
        return int.from_bytes(buf[o : o + n], "little")

    def store(self, space: str, a: int, bits: int, v: int) -> None:
        buf, o = self.mem(space, a)
        n = bits // 8
        if o + n > len(buf):
            raise IllegalAddressError("access past the end of a buffer")
        buf[o : o + n] = (v & ((1 << bits) - 1)).to_bytes(n, "little")

    # ------------------------------------------------------------ run

    def step(self, s: str, params: dict[str, int]) -> None:
        pred = None
        m = re.match(r"^@(!?)(%p\d+) (.*)$", s)
        if m:
            pred = (m.group(1) == "!", m.group(2))
            s = m.group(3)
        op, _, rest = s.partition(" ")
        args = [a.strip() for a in _split_args(rest)]
        parts = op.split(".")
        base = parts[0]
        active = [
            t
            for t in range(self.n)
            if pred is None or (bool(self.regs[t].get(pred[1], 0)) != pred[0])
        ]
        if base in ("bar", "ret", "fence", "membar"):
            return
        if base == "shfl":
            self.shfl(parts, args, active)
            return
        if base in ("stmatrix", "ldmatrix"):
            self.matrix(base, parts, args, active)
            return
        for t in active:
            self.scalar(t, base, parts, args, params)

    def scalar(
        self, t: int, base: str, parts: list[str], a: list[str], params: dict[str, int]
    ) -> None:
        r = self.regs[t]
        ty = parts[-1]
        if base == "ld" and parts[1] == "param":
            r[a[0]] = params[a[1].strip("[] ")]
            return
        if base in ("ld", "st"):
            space = "shared" if parts[1].startswith("shared") else "global"
            vec = next((int(p[1:]) for p in parts if re.fullmatch(r"v\d", p)), 1)
            bits = _bits(ty)
            regs_op, addr_op = (a[0], a[1]) if base == "ld" else (a[1], a[0])
            names = [x.strip() for x in regs_op.strip("{} ").split(",")]
            if len(names) != vec:
                raise PtxError(f"{base}: {vec} lanes, {len(names)} registers")
            at = self.addr(t, addr_op)
            for i, nm in enumerate(names):
                if base == "ld":
                    r[nm] = self.load(space, at + i * bits // 8, bits)
                else:
                    self.store(space, at + i * bits // 8, bits, self.val(t, nm))
            return
        if base == "mov" and ("{" in a[0] or "{" in a[1]):
            # pack or unpack a vector: the first element takes the low bits
            dst = [x.strip() for x in a[0].strip("{} ").split(",")]
            src = [x.strip() for x in a[1].strip("{} ").split(",")]
            total = _bits(ty)
            if len(src) > 1:
                w = total // len(src)
                r[dst[0]] = sum(
                    (self.val(t, x) & ((1 << w) - 1)) << (w * i) for i, x in enumerate(src)
                )
            else:
                w, x = total // len(dst), self.val(t, src[0])
                for i, nm in enumerate(dst):
                    r[nm] = (x >> (w * i)) & ((1 << w) - 1)
            return
        v = [self.val(t, x) for x in a[1:]]
        if base == "mov":
            out = v[0]
        elif base == "cvt":
            dst, src = parts[1], parts[2]
            x = v[0] & ((1 << _bits(src)) - 1)
            if src.startswith("s"):
                x = _signed(x, _bits(src))
            out = x & ((1 << _bits(dst)) - 1)
        elif base in ("add", "sub", "and", "or", "xor", "shl", "shr", "mul", "min", "max"):
            bits = _bits(ty)
            x, y = v[0] & ((1 << bits) - 1), v[1] & ((1 << bits) - 1)
            if base == "add":
                out = x + y
            elif base == "sub":
                out = x - y
            elif base == "and":
                out = x & y
            elif base == "or":
                out = x | y
            elif base == "xor":
                out = x ^ y
            elif base == "shl":
                out = x << y if y < bits else 0
            elif base == "shr":
                out = (_signed(x, bits) >> min(y, bits)) if ty.startswith("s") else x >> y
            elif base == "mul":
                if "wide" in parts:
                    out = (_signed(x, bits) * _signed(y, bits)) if ty.startswith("s") else x * y
                    bits *= 2
                else:
                    out = x * y
            else:
                xs, ys = (_signed(x, bits), _signed(y, bits)) if ty.startswith("s") else (x, y)
                out = min(xs, ys) if base == "min" else max(xs, ys)
            out &= (1 << bits) - 1
        elif base == "mad":
            bits = _bits(ty)
            x, y = v[0] & ((1 << bits) - 1), v[1] & ((1 << bits) - 1)
            wide = "wide" in parts
            out = (x * y + v[2]) & ((1 << (2 * bits if wide else bits)) - 1)
        elif base in ("neg", "not"):
            bits = _bits(ty)
            out = (-v[0] if base == "neg" else ~v[0]) & ((1 << bits) - 1)
        elif base == "bfe":
            bits = _bits(ty)
            pos, ln = v[1] & 0xFF, v[2] & 0xFF
            x = (v[0] & ((1 << bits) - 1)) >> pos if pos < bits else 0
            x &= (1 << ln) - 1 if ln else 0
            if ty.startswith("s") and ln and x >> (ln - 1):
                x -= 1 << ln
            out = x & ((1 << bits) - 1)
        elif base == "setp":
            cmp, bits = parts[1], _bits(ty)
            x, y = v[0] & ((1 << bits) - 1), v[1] & ((1 << bits) - 1)
            if ty.startswith("s"):
                x, y = _signed(x, bits), _signed(y, bits)
            ops = {
                "eq": x == y,
                "ne": x != y,
                "lt": x < y,
                "le": x <= y,
                "gt": x > y,
                "ge": x >= y,
                "lo": x < y,
                "ls": x <= y,
                "hi": x > y,
                "hs": x >= y,
            }
            if cmp not in ops:
                raise PtxError(f"setp.{cmp}")
            out = int(ops[cmp])
        elif base == "selp":
            out = v[0] if self.val(t, a[3]) else v[1]
        elif base == "prmt":
            if len(parts) != 2:
                raise PtxError(f"prmt mode {parts[1:-1]}")
            pool = ((v[1] & 0xFFFFFFFF) << 32) | (v[0] & 0xFFFFFFFF)
            out = 0
            for i in range(4):
                s = (v[2] >> (4 * i)) & 0xF
                byte = (pool >> (8 * (s & 7))) & 0xFF
                if s & 8:
                    byte = 0xFF if byte & 0x80 else 0
                out |= byte << (8 * i)
        else:
            raise PtxError(f"opcode {'.'.join(parts)}")
        r[a[0]] = out

    def shfl(self, parts: list[str], a: list[str], active: list[int]) -> None:
        mode = parts[2]
        new = {}
        for t in active:
            lane, w0 = t % 32, t - t % 32
            b, c = self.val(t, a[2]) & 0x1F, self.val(t, a[3])
            seg = (c >> 8) & 0x1F
            cval = c & 0x1F
            max_lane = (lane & seg) | (cval & ~seg)
            min_lane = lane & seg
            if mode == "idx":
                j = min_lane | (b & ~seg)
                ok = j <= max_lane
            elif mode == "bfly":
                j = lane ^ b
                ok = j <= max_lane
            elif mode == "down":
                j = lane + b
                ok = j <= max_lane
            elif mode == "up":
                j = lane - b
                ok = j >= min_lane
            else:
                raise PtxError(f"shfl.{mode}")
            src = w0 + (j if ok else lane)
            new[t] = self.val(src, a[1])
        dst = a[0].split("|")[0].strip()
        for t, v in new.items():
            self.regs[t][dst] = v

    def matrix(self, base: str, parts: list[str], a: list[str], active: list[int]) -> None:
        """Run ``stmatrix`` / ``ldmatrix`` ``.m8n8.xN.b16`` (``ldmatrix.trans`` too).

        Lane ``8 m + r`` gives the address of row ``r`` of matrix ``m``; lane
        ``t`` holds row ``t / 4``, columns ``2 (t % 4)`` and ``+1`` of matrix
        ``m`` in its ``m``-th register (with ``.trans``: column ``t / 4`` of
        rows ``2 (t % 4)`` and ``+1``).
        """
        trans = "trans" in parts
        if parts[-1] != "b16" or "m8n8" not in parts or (trans and base == "stmatrix"):
            raise PtxError(f"{'.'.join(parts)}")
        count = int(next(p for p in parts if re.fullmatch(r"x\d", p))[1:])
        regs_op, addr_op = (a[1], a[0]) if base == "stmatrix" else (a[0], a[1])
        regs = [x.strip() for x in regs_op.strip("{} ").split(",")]
        if len(regs) != count:
            raise PtxError(f"{base}: x{count} with {len(regs)} registers")
        for w0 in range(0, self.n, 32):
            lanes = [w0 + i for i in range(32)]
            if not all(t in active for t in lanes):
                raise PtxError(f"{base} with inactive lanes")
            for mat in range(count):
                rows = [self.addr(lanes[8 * mat + r], addr_op) for r in range(8)]
                for row in range(8):
                    at = rows[row]
                    for q in range(4):
                        t = lanes[4 * row + q]
                        if base == "stmatrix":
                            self.store("shared", at + 4 * q, 32, self.val(t, regs[mat]))
                        elif not trans:
                            self.regs[t][regs[mat]] = self.load("shared", at + 4 * q, 32)
                        else:
                            # .trans: lane t gets column t / 4 of rows 2 (t % 4) and +1
                            c, r0 = row, 2 * q
                            lo = self.load("shared", rows[r0] + 2 * c, 16)
                            hi = self.load("shared", rows[r0 + 1] + 2 * c, 16)
                            self.regs[t][regs[mat]] = lo | (hi << 16)


def _split_args(rest: str) -> list[str]:
    """Split operands at top-level commas (not inside ``{}`` or ``[]``)."""
    out, depth, cur = [], 0, ""
    for ch in rest:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def run_ptx(ptx: str, args: Sequence[bytearray], shared_bytes: int = 1 << 16) -> list[bytearray]:
    """Run the entry of ``ptx`` on one CTA with ``args`` as its pointer arguments; return them."""
    names, stmts, nthreads = _statements(ptx)
    buffers = {}
    params = {}
    for i, name in enumerate(names):
        if i < len(args):
            base = (i + 1) << 32
            buffers[base] = args[i]
            params[name] = base
        else:
            params[name] = 0  # the scratch pointers Triton appends; unused by these kernels
    m = _Machine(nthreads, buffers, shared_bytes)
    for s in stmts:
        if s.split(" ")[0].split(".")[0] in ("bra", "call"):
            raise PtxError(f"control flow: {s}")
        m.step(s, params)
    return list(args)


def emulate_case(case: dict[str, Any], ptx: str, shared_bytes: int) -> list[list[int]]:
    """Return the outputs of every launch of ``case`` when its kernel is ``ptx``.

    ``shared_bytes`` is the kernel's shared memory (``metadata.shared``): an
    access past it raises :class:`IllegalAddressError`, as the GPU faults.
    """
    from .layouts import BITS
    from .plan import make_plan
    from .worker import case_program

    prog = case_program(case)
    plan = make_plan(prog, case["id"])
    out_v = prog.values[prog.output]
    ob = BITS[out_v.dtype]
    outs = []
    for launch in plan.launches:
        bufs = []
        for inp in prog.inputs:
            v = prog.values[inp["name"]]
            b = BITS[v.dtype]
            data = launch.inputs[inp["name"]]
            bufs.append(bytearray(b"".join(int(x).to_bytes(b // 8, "little") for x in data)))
        sentinel = ((1 << ob) - 1).to_bytes(ob // 8, "little")
        bufs.append(bytearray(sentinel * out_v.numel))
        run_ptx(ptx, bufs, shared_bytes)
        raw = bufs[-1]
        n = ob // 8
        outs.append(
            [int.from_bytes(raw[i * n : (i + 1) * n], "little") for i in range(out_v.numel)]
        )
    return outs


def main(args: Any) -> int:
    """Run ``emulate FILE [--workaround NAME]``.

    Compile each data-movement case of FILE (a shrunk.json, or a .jsonl(.gz)
    of ``{"case", "record"}`` lines) with the installed Triton for its target,
    run it through :func:`emulate_case` and
    print one JSON line a case: the verdict here, and whether the outputs are
    bit for bit the recorded GPU outputs. Exit status 1 if a case could not be
    emulated (an unsupported instruction): that says nothing about Triton.
    """
    import gzip
    import json
    import os
    import tempfile

    import triton
    from triton.backends.compiler import GPUTarget

    from .classify import check
    from .plan import make_plan
    from .workaround import WORKAROUNDS
    from .worker import case_program, unpack_outputs

    path = args.file
    if path.endswith((".jsonl", ".jsonl.gz")):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            objs = [json.loads(line) for line in f if line.strip()]
    else:
        with open(path) as f:
            objs = [json.load(f)]
    bad = 0
    for obj in objs:
        case = dict(obj.get("case", obj))
        rec = obj.get("record") or {}
        if args.workaround:
            case["ttgir"] = WORKAROUNDS[args.workaround](case["ttgir"], case["params"]["triton"])
        out: dict[str, Any] = {"id": case["id"], "triton": triton.__version__}
        with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
            f.write(case["ttgir"])
        try:
            kernel = triton.compile(f.name, target=GPUTarget("cuda", case["params"]["cap"], 32))
        except Exception as e:  # a release that refuses the module says so
            out.update(verdict="compile_error", message=str(e).strip().splitlines()[-1][:300])
            print(json.dumps(out), flush=True)
            continue
        finally:
            os.unlink(f.name)
        try:
            outs = emulate_case(case, kernel.asm["ptx"], kernel.metadata.shared)
        except IllegalAddressError as e:
            out.update(verdict="illegal_access", message=str(e))
        except PtxError as e:
            out.update(verdict="not_emulated", message=str(e))
            bad += 1
        else:
            prog = case_program(case)
            res = check(prog, make_plan(prog, case["id"]), outs)
            out.update({k: res.get(k) for k in ("verdict", "kind", "wrong")})
            out["map"] = (res.get("map") or {}).get("name")
            if rec.get("outputs") and not args.workaround:
                out["same_as_gpu"] = unpack_outputs(rec["outputs"]) == outs
        out["gpu"] = {k: rec.get(k) for k in ("verdict", "kind", "wrong") if k in rec}
        print(json.dumps(out), flush=True)
    return 1 if bad else 0
