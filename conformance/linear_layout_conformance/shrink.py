"""Shrinking a failing case, and writing a standalone reproducer.

:func:`candidates` proposes smaller variants of a case's parameters: drop
a step, halve a dim of the input (adjusting the steps), halve
``num_warps`` (adjusting every layout), replace a layout with a simpler one
(linear -> blocked, dot operand -> its parent, MMA v3 -> v2, padded / shared
linear -> swizzled, swizzle parameters -> 1), use 32-bit integers.
:func:`shrink` evaluates every valid candidate of a round in parallel
(:func:`~.runner.run_cases`: compile and run on the GPU, or any predicate),
keeps the smallest one that fails *the same way* (:func:`same_failure`),
and repeats until no candidate fails.  The result is written with a
reproducer script (:func:`reproducer`) that needs only triton and torch.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .layouts import BITS, Spec
from .oracle import MissingLayoutsError, Oracle
from .program import InvalidCaseError, Program, build

Params = dict[str, Any]


# ------------------------------------------------------------ size and sameness


def _layout_cost(spec: Any) -> int:
    if not isinstance(spec, dict):
        return 0
    k = spec.get("kind")
    own = {
        "blocked": 1,
        "swizzled": 1,
        "slice": 2,
        "mma": 3,
        "dot_op": 3,
        "nvmma": 2,
        "linear": 4,
        "shared_linear": 4,
        "padded": 3,
    }.get(k, 1)
    if k == "mma" and spec.get("version") == 3:
        own += 1
    return own + sum(_layout_cost(v) for v in spec.values() if isinstance(v, dict))


def size(params: Params) -> tuple[int, ...]:
    """Return how big a case is (compared lexicographically; smaller is simpler)."""
    n = 1
    for s in params["input"]["shape"]:
        n *= s
    cost = _layout_cost(params["input"]["layout"])
    for st in params["steps"]:
        cost += sum(_layout_cost(v) for v in st.values() if isinstance(v, dict))
        cost += (st.get("mode") == "store") + bool(st.get("trans"))
    return (len(params["steps"]), n, params["warps"], cost, BITS[params["input"]["dtype"]])


def _norm_message(msg: str) -> str:
    lines = [ln for ln in (msg or "").splitlines() if "error" in ln.lower() or "Assertion" in ln]
    text = lines[0] if lines else (msg or "").splitlines()[0] if msg else ""
    text = re.sub(r"loc\([^)]*\)", "", text)
    text = re.sub(r"[#%][\w.]+", "", text)
    text = re.sub(r"tensor<[^>]*>", "tensor", text)
    return re.sub(r"\d+", "N", text).strip()[:120]


def failure_signature(rec: dict[str, Any]) -> tuple[str, str]:
    """Return what "failing the same way" compares.

    That is the verdict and, for wrong values, the kinds of wrong elements;
    for compile failures, the first diagnostic with numbers and names blanked.
    """
    v = rec.get("verdict", "?")
    if v == "wrong":
        return v, str(rec.get("kind", ""))
    if v in ("compile_error", "compile_crash"):
        # the same assertion kills the process or, caught by MLIR's crash
        # recovery, raises: one class
        return "compile_failure", _norm_message(rec.get("message", ""))
    if v == "invalid_ir":
        return v, _norm_message(rec.get("message", ""))
    return v, ""


def same_failure(original: dict[str, Any], rec: dict[str, Any]) -> bool:
    """Whether ``rec`` fails the way ``original`` did."""
    a, b = failure_signature(original), failure_signature(rec)
    if a[0] != b[0]:
        return False
    if a[0] == "wrong":
        # any overlap of the kinds of wrong elements (misplaced, unwritten, ...)
        return bool(set(a[1].split("+")) & set(b[1].split("+")))
    return a[1] == b[1]


# ------------------------------------------------------------ layout rewrites


def _halve_warps_spec(spec: Spec) -> Spec | None:
    k = spec["kind"]
    s = copy.deepcopy(spec)
    if k == "blocked":
        i = max(range(len(s["wpc"])), key=lambda j: s["wpc"][j])
        if s["wpc"][i] == 1:
            return None
        s["wpc"][i] //= 2
        return s
    if k == "mma":
        w0, w1 = s["wpc"]
        if s["version"] == 3:
            if w1 > 1:
                s["wpc"][1] //= 2
            elif w0 >= 8:
                s["wpc"][0] //= 2
            else:
                return None
        elif w0 >= w1 and w0 > 1:
            s["wpc"][0] //= 2
        elif w1 > 1:
            s["wpc"][1] //= 2
        else:
            return None
        return s
    if k in ("slice", "dot_op"):
        p = _halve_warps_spec(s["parent"])
        if p is None:
            return None
        s["parent"] = p
        return s
    if k == "linear":
        b = s["bases"]
        if not b["warp"]:
            return None
        last = b["warp"].pop()
        if any(last):
            b["register"].append(last)
        return s
    return s  # shared layouts do not depend on warps


def _map_specs(params: Params, fn: Callable[[Spec], Spec | None]) -> Params | None:
    """Apply ``fn`` to every distributed layout spec of ``params``."""
    p = copy.deepcopy(params)

    def go(obj: Any) -> Any:
        if isinstance(obj, dict):
            if obj.get("kind") in ("blocked", "mma", "slice", "dot_op", "linear"):
                r = fn(obj)
                if r is None:
                    raise InvalidCaseError("no rewrite")
                return r
            return {k: go(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [go(x) for x in obj]
        return obj

    try:
        p["input"] = go(p["input"])
        p["steps"] = go(p["steps"])
    except InvalidCaseError:
        return None
    return p


def _halve_linear(spec: Spec, dim: int) -> Spec | None:
    """Return a linear spec for the shape with ``dim`` halved (its top bit dropped)."""
    shape = list(spec["shape"])
    if shape[dim] < 2:
        return None
    top = shape[dim] // 2
    s = copy.deepcopy(spec)
    s["shape"][dim] = top
    for k in ("register", "lane", "warp"):
        new = []
        for b in s["bases"][k]:
            if b[dim] == top and sum(1 for x in b if x) == 1:
                if k != "register":
                    new.append([0] * len(b))
                continue
            new.append(b)
        s["bases"][k] = new
    return s


def _simpler(spec: Spec, shape: Sequence[int], warps: int) -> list[Spec]:
    """Simpler layouts to try in place of ``spec``."""
    k = spec["kind"]
    rank = len(shape)
    out: list[Spec] = []
    if k in ("linear", "mma", "slice", "dot_op"):
        w = [1] * rank
        w[0] = warps
        tpw = [1] * rank
        tpw[-1] = 32
        out.append(
            {
                "kind": "blocked",
                "spt": [1] * rank,
                "tpw": tpw,
                "wpc": w,
                "order": list(reversed(range(rank))),
            }
        )
    if k == "dot_op":
        out.append(spec["parent"])
    if k == "mma" and spec["version"] == 3:
        w0, w1 = spec["wpc"]
        out.append({"kind": "mma", "version": 2, "wpc": [w0, w1], "instr": [16, 8]})
    if k == "blocked":
        if any(x != 1 for x in spec["spt"]):
            s = copy.deepcopy(spec)
            s["spt"] = [1] * rank
            out.append(s)
        if spec["order"] != list(reversed(range(rank))):
            s = copy.deepcopy(spec)
            s["order"] = list(reversed(range(rank)))
            out.append(s)
    if k in ("padded", "shared_linear", "nvmma"):
        out.append(
            {
                "kind": "swizzled",
                "vec": 1,
                "per_phase": 1,
                "max_phase": 1,
                "order": list(reversed(range(rank))),
            }
        )
    if k == "nvmma" and spec["swizzle"]:
        s = copy.deepcopy(spec)
        s["swizzle"] = 0
        out.append(s)
    if k == "swizzled" and (spec["vec"], spec["per_phase"], spec["max_phase"]) != (1, 1, 1):
        s = copy.deepcopy(spec)
        s.update(vec=1, per_phase=1, max_phase=1)
        out.append(s)
    return out


# ------------------------------------------------------------ candidates


def _step_shapes(params: Params, oracle: Oracle) -> list[list[int]] | None:
    """Return the shape of the current value before each step (``None`` if invalid)."""
    shapes = []
    for i in range(len(params["steps"])):
        trial = dict(params)
        trial["steps"] = params["steps"][:i]
        try:
            prog = build(trial, oracle)
        except (InvalidCaseError, MissingLayoutsError):
            return None
        shapes.append(prog.values[prog.output].shape)
    return shapes


def candidates(params: Params, oracle: Oracle) -> Iterator[Params]:
    """Smaller variants of ``params`` (not checked for validity)."""
    steps = params["steps"]
    # drop a step
    for i in range(len(steps)):
        c = copy.deepcopy(params)
        del c["steps"][i]
        yield c
    # halve a dim of the input
    shape = params["input"]["shape"]
    for d in range(len(shape)):
        if shape[d] < 2:
            continue
        c = copy.deepcopy(params)
        c["input"]["shape"][d] //= 2
        lay = c["input"]["layout"]
        if lay["kind"] == "linear":
            h = _halve_linear(lay, d)
            if h is None:
                continue
            c["input"]["layout"] = h
        ok = True
        dim = d
        for st in c["steps"]:
            op = st["op"]
            if op == "trans":
                dim = st["order"].index(dim)
            elif op == "reshape":
                if dim != 0 or st["shape"][0] < 2:
                    ok = False
                    break
                st["shape"][0] //= 2
            elif op == "broadcast":
                if st["shape"][dim] != 1:
                    st["shape"][dim] //= 2 if st["shape"][dim] > 1 else 1
            elif op == "gather":
                if dim != st["axis"]:
                    st["index_shape"][dim] //= 2
            elif op == "expand":
                if dim >= st["axis"]:
                    dim += 1
            elif op == "dot":
                ok = False
                break
            for key in ("layout", "dst", "index_layout"):
                if isinstance(st.get(key), dict) and st[key].get("kind") == "linear":
                    h = _halve_linear(st[key], dim)
                    if h is None:
                        ok = False
                        break
                    st[key] = h
        if ok:
            yield c
    # fewer warps
    if params["warps"] > 1:
        c = _map_specs(params, _halve_warps_spec)
        if c is not None:
            c["warps"] //= 2
            yield c
    # simpler layouts, one at a time
    shapes = _step_shapes(params, oracle)
    w = params["warps"]
    for alt in _simpler(params["input"]["layout"], shape, w):
        c = copy.deepcopy(params)
        c["input"]["layout"] = alt
        yield c
    if shapes is not None:
        for i, st in enumerate(steps):
            for key in ("layout", "dst", "index_layout", "a_smem", "b_smem", "aux_layout"):
                spec = st.get(key)
                if not isinstance(spec, dict):
                    continue
                sh = st.get("index_shape") if key == "index_layout" else shapes[i]
                if key in ("aux_layout", "a_smem", "b_smem"):
                    if key != "aux_layout":
                        c = copy.deepcopy(params)
                        del c["steps"][i][key]
                        yield c
                    continue
                if st["op"] == "shared" and key == "dst" and st.get("trans"):
                    sh = [sh[o] for o in st["trans"]]
                for alt in _simpler(spec, sh, w):
                    c = copy.deepcopy(params)
                    c["steps"][i][key] = alt
                    yield c
    # plainer shared memory steps: local_alloc of the value, no memdesc_trans
    for i, st in enumerate(steps):
        if st["op"] == "shared" and st.get("mode") == "store":
            c = copy.deepcopy(params)
            c["steps"][i]["mode"] = "alloc"
            yield c
        if st["op"] == "shared" and st.get("trans"):
            c = copy.deepcopy(params)
            del c["steps"][i]["trans"]
            yield c
    # plainer element type
    if params["input"]["dtype"] != "i32" and not any(s["op"] in ("dot", "cast") for s in steps):
        c = copy.deepcopy(params)
        c["input"]["dtype"] = "i32"
        c = _map_specs(c, lambda s: s)  # copy
        if c is not None:
            for st in c["steps"]:
                if isinstance(st.get("layout"), dict) and st["layout"].get("kind") == "nvmma":
                    st["layout"]["bits"] = 32
            yield c


def valid_candidates(params: Params, oracle: Oracle) -> list[tuple[Params, Program]]:
    """Return the candidates that build, smallest first, without duplicates."""
    out, seen = [], set()
    for c in candidates(params, oracle):
        key = json.dumps(c, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        for _ in range(6):
            try:
                prog = build(c, oracle)
                out.append((c, prog))
                break
            except MissingLayoutsError as e:
                oracle.fetch(e.requests)
            except InvalidCaseError:
                break
    out.sort(key=lambda cp: size(cp[0]))
    return out


def shrink(
    params: Params,
    fails: Callable[[Sequence[Params]], list[bool]],
    oracle: Oracle,
    max_tries: int = 300,
    log: Callable[[str], None] | None = None,
) -> tuple[Params, int]:
    """Return the smallest variant of ``params`` for which ``fails`` holds.

    ``fails`` gets a batch of candidates and says which of them fail the
    same way (so that a round can be run in parallel).  Returns the result
    and the number of candidates tried.
    """
    best = params
    tried = 0
    while tried < max_tries:
        cands = [c for c, _ in valid_candidates(best, oracle) if size(c) < size(best)]
        cands = cands[: max_tries - tried]
        if not cands:
            break
        verdicts = fails(cands)
        tried += len(cands)
        hits = [c for c, f in zip(cands, verdicts) if f]
        if not hits:
            break
        best = min(hits, key=size)
        if log:
            log(f"shrink: {size(best)} after {tried} tries")
    return best, tried


# ------------------------------------------------------------ reproducer


_TORCH = {
    "i8": "torch.int8",
    "i16": "torch.int16",
    "i32": "torch.int32",
    "f16": "torch.int16",
    "bf16": "torch.int16",
    "f32": "torch.int32",
    "f8e4": "torch.int8",
    "f8e5": "torch.int8",
}
_TORCH_FLOAT = {
    "f16": "torch.float16",
    "bf16": "torch.bfloat16",
    "f32": "torch.float32",
    "f8e4": "torch.float8_e4m3fn",
    "f8e5": "torch.float8_e5m2",
    "i8": "torch.int8",
    "i32": "torch.int32",
}


def reproducer(
    case: dict[str, Any],
    prog: Program,
    rec: dict[str, Any] | None = None,
    workaround: str | None = None,
) -> str:
    """Return a standalone reproducer script that needs only triton and torch.

    It compiles the case's module, launches it once and compares with a
    torch reference of the ops. With ``workaround`` (a name of
    :data:`.workaround.WORKAROUNDS`) the script also holds the module so
    rewritten, and runs that one when given ``--workaround``.
    """
    from .plan import make_plan

    plan = make_plan(prog, case["id"])
    vals = prog.values
    numeric = prog.mode == "numeric"
    digit = plan.digit
    lines = []
    ref = []
    names = {}
    for i, inp in enumerate(prog.inputs):
        v = vals[inp["name"]]
        shape = tuple(v.shape)
        n = v.numel
        var = f"x{i}"
        names[inp["name"]] = var
        if inp["role"] == "data":
            off = next(k for k, (nm, _) in enumerate(plan.id_owner) if nm == inp["name"])
            if numeric:
                tdt = _TORCH_FLOAT[v.dtype]
                lines.append(
                    f"{var} = ((torch.arange({n}) + {off}) % {1 << digit}).to({tdt}).reshape{shape}"
                )
            else:
                lines.append(
                    f"{var} = ((torch.arange({n}) + {off}) % {1 << digit}).to({_TORCH[v.dtype]})"
                    f".reshape{shape}  # element ids (bit patterns)"
                )
        elif inp["role"] == "gindex":
            lines.append(
                f"{var} = torch.randint(0, {inp['bound']}, {shape}, dtype=torch.int32, "
                f"generator=torch.Generator().manual_seed({i}))"
            )
        else:
            lines.append(f"{var} = torch.eye({shape[0]}, {shape[1]}).to({_TORCH_FLOAT[v.dtype]})")
    env = dict(names)
    for op in prog.ops:
        k = op["op"]
        a = [env.get(x, "?") for x in op["args"]]
        o = op["out"]
        if k in ("convert", "local_alloc", "local_load"):
            env[o] = a[0]
        elif k == "local_alloc_empty":
            env[o] = "None"
        elif k == "local_store":
            env[op["args"][1]] = a[0]
        elif k == "expand":
            env[o] = f"{a[0]}.unsqueeze({op['axis']})"
        elif k in ("trans", "memdesc_trans"):
            env[o] = f"{a[0]}.permute{tuple(op['order'])}"
        elif k == "reshape":
            env[o] = f"{a[0]}.reshape{tuple(vals[o].shape)}"
        elif k == "join":
            env[o] = f"torch.stack([{a[0]}, {a[1]}], dim=-1)"
        elif k == "split":
            env[o[0]], env[o[1]] = f"{a[0]}[..., 0]", f"{a[0]}[..., 1]"
        elif k == "broadcast":
            env[o] = f"{a[0]}.expand{tuple(vals[o].shape)}"
        elif k == "gather":
            env[o] = f"torch.gather({a[0]}, {op['axis']}, {a[1]}.long())"
        elif k == "zeros":
            env[o] = "0"
        elif k == "cast":
            env[o] = f"{a[0]}.to({_TORCH_FLOAT[vals[o].dtype]})"
        elif k == "dot":
            acc = "torch.int32" if vals[o].dtype == "i32" else "torch.float32"
            env[o] = f"({a[0]}.double() @ {a[1]}.double()).to({acc})"
        if isinstance(o, str) and k not in ("local_alloc_empty",):
            ref.append(f"{o} = {env[o]}")
            env[o] = o
        elif isinstance(o, list):
            for x in o:
                ref.append(f"{x} = {env[x]}")
                env[x] = x
    out_v = vals[prog.output]
    out_t = _TORCH[out_v.dtype] if not numeric else _TORCH_FLOAT.get(out_v.dtype, "torch.float32")
    summary = ""
    if rec:
        from .classify import summary_line

        summary = (
            summary_line(rec) if rec.get("verdict") == "wrong" else (rec.get("message") or "")[:300]
        )
    header = (
        f'"""Conformance case {case["id"]} ({case["params"].get("family")}): '
        f"Triton {case['params']['triton']}, sm{case['params']['cap']}, num_warps={prog.warps}.\n\n"
        f"Observed: {rec.get('verdict') if rec else '?'}: {summary}\n\n"
        "Loads each input in its layout, runs the ops below (layouts fixed in the TTGIR),\n"
        "stores the result; compares with the same ops in torch. Needs only triton and torch.\n"
    )
    inputs_ptrs = ", ".join(f"x{i}" for i in range(len(prog.inputs)))
    ttgir = case.get("ttgir") or ""
    pick = ""
    if workaround:
        from .workaround import WORKAROUNDS

        fixed = WORKAROUNDS[workaround](ttgir, case["params"]["triton"])
        if fixed == ttgir:
            raise ValueError(f"workaround {workaround} does not apply to case {case['id']}")
        header += (
            f"\nWith --workaround: the same module rewritten by {workaround!r}, which\n"
            "must print OK.\n"
        )
        pick = (
            f'\nTTGIR_WORKAROUND = r"""\n{fixed}"""\n\n'
            'if "--workaround" in sys.argv[1:]:\n    TTGIR = TTGIR_WORKAROUND\n'
        )
    header += '"""\n'
    return (
        header
        + f'''
import sys
import tempfile

import torch
import triton
from triton.backends.compiler import GPUTarget

TTGIR = r"""
{ttgir}"""
{pick}
with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
    f.write(TTGIR)
kernel = triton.compile(f.name, target=GPUTarget("cuda", {case["params"]["cap"]}, 32))

torch.manual_seed(0)
{chr(10).join(lines)}

# reference: the meaning of each op
{chr(10).join(ref)}
expected = {env[prog.output]}.contiguous().reshape(-1)

ins = [t.contiguous().cuda() for t in ({inputs_ptrs},)]
out = torch.full(({out_v.numel},), -1, dtype={out_t}, device="cuda")
kernel[(1, 1, 1)](*[t.data_ptr() for t in ins], out.data_ptr())
torch.cuda.synchronize()
got = out.cpu()
bits = {{torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32}}
if got.dtype in bits:
    same = got.view(bits[got.dtype]) == expected.to(got.dtype).view(bits[got.dtype])
elif got.dtype.itemsize == 1 and got.dtype != torch.int8:
    same = got.view(torch.int8) == expected.to(got.dtype).view(torch.int8)
else:
    same = got == expected.to(got.dtype)
bad = (~same).nonzero().flatten()
shape = {tuple(out_v.shape)}
if len(bad) == 0:
    print("OK: output matches the reference")
    sys.exit(0)
i = int(bad[0])
coords = []
for s in reversed(shape):
    coords.append(i % s)
    i //= s
coords = tuple(reversed(coords))
print(f"WRONG: {{len(bad)}} of {{got.numel()}} elements differ; first at {{coords}}: "
      f"got {{got[int(bad[0])].item()}}, expected {{expected[int(bad[0])].item()}}")
sys.exit(1)
'''
    )


# ------------------------------------------------------------ command line


def main(args: argparse.Namespace) -> int:
    """Run ``shrink CASE.json``.

    Shrinks on the GPU (or, with ``--dry-run``, compile only) and writes
    ``shrunk.json`` and ``repro.py``.
    """
    from .cases import make_record
    from .runner import run_cases

    if args.case.endswith((".jsonl", ".jsonl.gz")):
        opener = gzip.open if args.case.endswith(".gz") else open
        with opener(args.case, "rt") as f:
            objs = [json.loads(line) for line in f if line.strip()]
        objs = [o for o in objs if "case" in o and (not args.id or o["case"]["id"] == args.id)]
        if not objs:
            raise SystemExit(f"shrink: no case {args.id or ''} in {args.case}")
        obj = objs[0]
    else:
        with open(args.case) as f:
            obj = json.load(f)
    case = obj.get("case", obj)
    rec = obj.get("record")
    params = case["params"]
    oracle = Oracle(params["triton"], binary=args.binary, table=case.get("table"))
    out = args.out or os.path.join(
        os.path.dirname(os.path.abspath(args.case)), f"shrink-{case['id']}"
    )
    os.makedirs(out, exist_ok=True)
    rounds = [0]

    def run(cands: Sequence[Params]) -> list[dict[str, Any]]:
        rounds[0] += 1
        recs = [
            make_record(c, oracle, f"{case['id']}-s{rounds[0]}-{i}") for i, c in enumerate(cands)
        ]
        got = run_cases(
            recs,
            os.path.join(out, f"round-{rounds[0]}"),
            jobs=args.jobs,
            python=args.python,
            gpu=not args.dry_run and not args.simulate,
            compile_timeout=args.compile_timeout,
            run_timeout=args.run_timeout,
            quiet=True,
            simulate=args.simulate,
        )
        by_id = {r["id"]: r for r in got}
        return [by_id.get(r["id"], {"verdict": "missing"}) for r in recs]

    if rec is None:
        rec = run([params])[0]
        print(f"shrink: original case: {rec.get('verdict')}", file=sys.stderr)
    original = rec

    def fails(cands: Sequence[Params]) -> list[bool]:
        return [same_failure(original, r) for r in run(cands)]

    best, tried = shrink(
        params, fails, oracle, args.max_tries, log=lambda m: print(m, file=sys.stderr)
    )
    final = make_record(best, oracle, f"{case['id']}-min")
    final_rec = run([best])[0]
    prog = build(best, Oracle(best["triton"], table=final["table"]))
    with open(os.path.join(out, "shrunk.json"), "w") as f:
        json.dump(
            {"case": final, "record": final_rec, "original": case["id"], "tried": tried},
            f,
            indent=1,
        )
    with open(os.path.join(out, "shrunk.ttgir"), "w") as f:
        f.write(final["ttgir"])
    with open(os.path.join(out, "repro.py"), "w") as f:
        f.write(reproducer(final, prog, final_rec))
    print(
        f"shrink: {tried} candidates tried; smallest {size(best)} -> {out}/repro.py",
        file=sys.stderr,
    )
    return 0


__all__ = ["candidates", "failure_signature", "reproducer", "same_failure", "shrink", "size"]
