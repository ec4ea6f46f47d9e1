#!/usr/bin/env python3
"""Compile the kernels in tests/oracle/kernels/ with an installed Triton wheel
and keep the TTGIR it emits.

No GPU is needed: every compile is given an explicit target
(GPUTarget("cuda", 80 or 90, 32)) and runs the whole pipeline down to a cubin
with the ptxas that the wheel ships.  The TTGIR is `compiled.asm["ttgir"]`.

Usage (run with the python of a venv made by tests/oracle/venv.sh):

    PY=target/oracle/venv-3.9.0/bin/python
    $PY tests/oracle/emit_ttgir.py emit --out-dir tests/data/ttgir/triton-3.9.0

    # a summary of the layout attributes found in a corpus (any python3)
    python3 tests/oracle/emit_ttgir.py summary tests/data/ttgir/triton-3.9.0

`emit` compiles each (kernel, config) in a child process of its own, so that
a failed C++ assertion (which aborts the process) costs only that one
compile.  It writes `<case>-sm<arch>-w<warps>-s<stages>.ttgir` for every
compile that succeeds and `index.json` with the outcome of every one
(ok / abort / error / timeout / skipped, with the message line).  Absolute paths of the
kernel sources inside `loc(...)` are rewritten relative to the repository
root so that the files do not depend on where the checkout lives.

Exit status: 0 when every compile ran (failures are data, recorded in the
index), 1 when some written file has no layout attribute definitions, 2 on a
usage or setup error.
"""

import argparse
import concurrent.futures
import fnmatch
import json
import os
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep tests/oracle/kernels/ free of __pycache__

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from harness import child as children  # noqa: E402


def version_tuple(v):
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


# ---------------------------------------------------------------- child side


def load_cases():
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    from kernels import all_cases
    return all_cases()


def find_case(name):
    for c in load_cases():
        if c.name == name:
            return c
    raise SystemExit(f"no case named {name}")


def make_source(case):
    """The ASTSource for `case`, in the form the installed release expects."""
    import triton
    from kernels import Const
    from triton.compiler import ASTSource

    ver = version_tuple(triton.__version__)
    aligned = []  # indices of arguments to mark tt.divisibility = 16
    for i, (name, spec) in enumerate(case.args):
        if isinstance(spec, str) and (spec.startswith("*") or name in case.div16):
            aligned.append(i)
    if ver < (3, 3):
        # 3.2: the signature lists the runtime arguments only; constants are
        # keyed by name; attributes go in an AttrsDescriptor built from
        # {argument index: value} hints (16 selects tt.divisibility).
        from triton.backends.compiler import AttrsDescriptor
        signature = {n: s for n, s in case.args if not isinstance(s, Const)}
        constants = {n: s.value for n, s in case.args if isinstance(s, Const)}
        attrs = AttrsDescriptor.from_hints({i: 16 for i in aligned})
        return ASTSource(case.fn, signature=signature, constants=constants, attrs=attrs)
    # 3.3 and later: the signature lists every argument, constexpr ones as
    # "constexpr"; their values go in `constexprs`; attributes are a dict from
    # an argument path (a tuple of indices) to [[name, value], ...].
    signature = {n: ("constexpr" if isinstance(s, Const) else s) for n, s in case.args}
    constexprs = {n: s.value for n, s in case.args if isinstance(s, Const)}
    attrs = {(i, ): [["tt.divisibility", 16]] for i in aligned}
    return ASTSource(case.fn, signature, constexprs=constexprs, attrs=attrs)


def hook_stages(status_path):
    """Wrap every backend's compilation stages so that the name of the stage
    being run is written to `status_path` before it starts (an abort then
    tells us where it happened), and the TTGIR is saved next to it as soon as
    it exists."""
    import triton.compiler.compiler as cc

    orig_make_backend = cc.make_backend

    def make_backend(target):
        backend = orig_make_backend(target)
        orig_add_stages = backend.add_stages

        def add_stages(stages, *rest, **kw):
            orig_add_stages(stages, *rest, **kw)
            for ext, fn in list(stages.items()):

                def wrapped(src, metadata, _fn=fn, _ext=ext):
                    with open(status_path, "w") as f:
                        f.write(_ext)
                    out = _fn(src, metadata)
                    if _ext == "ttgir":
                        with open(status_path + ".ttgir", "w") as f:
                            f.write(str(out))
                    return out

                stages[ext] = wrapped

        backend.add_stages = add_stages
        return backend

    cc.make_backend = make_backend


def normalise(text):
    return text.replace(f'"{REPO}/', '"')


def child(args):
    case = find_case(args.case)
    import triton
    from triton.backends.compiler import GPUTarget

    hook_stages(args.status)
    src = make_source(case)
    target = GPUTarget("cuda", args.arch, 32)
    compiled = triton.compile(src, target=target, options=dict(num_warps=args.warps, num_stages=args.stages, num_ctas=args.ctas))
    ttgir = compiled.asm["ttgir"]
    with open(args.out, "w") as f:
        f.write(normalise(ttgir))
    return 0


# --------------------------------------------------------------- parent side

LAYOUT_DEF = re.compile(r"^#[\w.]+ = #(triton_gpu|ttg|triton_nvidia_gpu|ttng)\.", re.M)


def message_line(text):
    """The most telling line of a child's stderr."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    pats = [r"Assertion .* failed", r"LLVM ERROR", r"error:", r"^\w*(Error|Exception)\b.*:", r"unsupported",
            r"not supported"]
    for pat in pats:
        for l in lines:
            if re.search(pat, l):
                return l[:400]
    return (lines[-1] if lines else "")[:400]


def run_one(py, case, cfg, out_dir, work, timeout):
    stem = f"{case.name}-{cfg.tag()}"
    out = os.path.join(out_dir, stem + ".ttgir")
    status = os.path.join(work, stem + ".status")
    cmd = [
        py, os.path.abspath(__file__), "child", "--case", case.name, "--arch",
        str(cfg.arch), "--warps",
        str(cfg.warps), "--stages",
        str(cfg.stages), "--ctas",
        str(case.ctas), "--out", out, "--status", status
    ]
    env = dict(os.environ)
    env["TRITON_CACHE_DIR"] = os.path.join(work, "cache-" + stem)
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # 3.9's default; silences its warning
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    t0 = time.time()
    rec = {
        "case": case.name, "kernel": case.fn.__name__, "arch": f"sm{cfg.arch}", "warps": cfg.warps, "stages":
        cfg.stages
    }
    if case.ctas != 1:
        rec["ctas"] = case.ctas
    ended = children.run(cmd, env=env, timeout=timeout)
    rc, err = ended.returncode, ended.stderr
    secs = time.time() - t0
    stage = open(status).read().strip() if os.path.exists(status) else None
    if rc == 0 and os.path.exists(out):
        rec.update(outcome="ok", file=os.path.basename(out))
    else:
        if os.path.exists(out):
            os.remove(out)
        if rc is None:
            rec["outcome"] = "timeout"
            rec["message"] = f"no result after {timeout} s"
        elif rc < 0:
            rec["outcome"] = "abort"
            rec["message"] = message_line(err) or f"killed by signal {-rc}"
        else:
            rec["outcome"] = "error"
            rec["message"] = message_line(err)
        rec["stage"] = stage  # the stage that was running when it failed
        rec["reached_ttgir"] = os.path.exists(status + ".ttgir")
        with open(os.path.join(work, stem + ".stderr"), "w") as f:
            f.write(err)
    return rec, secs, err


def emit(args):
    import triton
    version = triton.__version__
    cases = load_cases()
    jobs, skipped = [], []
    for case in cases:
        for cfg in case.configs:
            stem = f"{case.name}-{cfg.tag()}"
            if args.only and not any(fnmatch.fnmatch(stem, pat) for pat in args.only):
                continue
            if case.min_version and version_tuple(version) < case.min_version:
                need = ".".join(map(str, case.min_version))
                skipped.append({
                    "case": case.name, "kernel": case.fn.__name__, "arch": f"sm{cfg.arch}", "warps": cfg.warps,
                    "stages": cfg.stages, "outcome": "skipped", "message": f"needs triton >= {need}"
                })
                continue
            jobs.append((case, cfg))
    out_dir = args.out_dir
    os.makedirs(out_dir, exist_ok=True)
    if not args.only:  # a full run replaces the whole corpus
        for f in os.listdir(out_dir):
            if f.endswith(".ttgir"):
                os.remove(os.path.join(out_dir, f))
    work = tempfile.mkdtemp(prefix="emit_ttgir-")
    print(f"triton {version}: {len(jobs)} compiles, {args.jobs} at a time, into {out_dir}", file=sys.stderr)
    t0 = time.time()
    results = [None] * len(jobs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {
            ex.submit(run_one, sys.executable, case, cfg, out_dir, work, args.timeout): i
            for i, (case, cfg) in enumerate(jobs)
        }
        for fut in concurrent.futures.as_completed(futs):
            i = futs[fut]
            rec, secs, err = fut.result()
            results[i] = rec
            extra = "" if rec["outcome"] == "ok" else f"  [{rec.get('stage')}] {rec['message']}"
            print(f"  {rec['outcome']:7} {secs:5.1f}s {jobs[i][0].name}-{jobs[i][1].tag()}{extra}", file=sys.stderr)
    total = time.time() - t0
    results += skipped

    index_path = os.path.join(out_dir, "index.json")
    if args.only and os.path.exists(index_path):  # merge into the existing index
        old = json.load(open(index_path))["compiles"]
        keyf = lambda r: (r["case"], r["arch"], r["warps"], r["stages"])
        merged = {keyf(r): r for r in old}
        merged.update({keyf(r): r for r in results})
        results = list(merged.values())
    order = {c.name: i for i, c in enumerate(cases)}
    results.sort(key=lambda r: (order.get(r["case"], 1 << 30), r["arch"], r["warps"], r["stages"]))
    index = {
        "triton": version,
        "produced_by": "tests/oracle/emit_ttgir.py emit --out-dir " + os.path.relpath(out_dir, REPO),
        "target": "GPUTarget('cuda', arch, 32)",
        "compiles": results,
    }
    with open(index_path, "w") as f:  # one line per compile: short diffs
        head = json.dumps({k: v for k, v in index.items() if k != "compiles"}, indent=1)
        f.write(head[:-2] + ',\n "compiles": [\n')
        f.write(",\n".join("  " + json.dumps(r) for r in results))
        f.write("\n ]\n}\n")
    if os.path.isdir(work) and not args.keep_work:
        shutil.rmtree(work)
    elif args.keep_work:
        print(f"work dir kept: {work}", file=sys.stderr)

    counts = {}
    for r in results:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    bad = [r["file"] for r in results if r["outcome"] == "ok" and not check_file(os.path.join(out_dir, r["file"]))]
    for b in bad:
        print(f"NO LAYOUT ATTRIBUTES: {b}", file=sys.stderr)
    print(f"triton {version}: {counts} in {total:.0f} s", file=sys.stderr)
    return 1 if bad else 0


def check_file(path):
    return bool(LAYOUT_DEF.search(open(path).read()))


# ------------------------------------------------------------------ summary

ATTR_START = re.compile(r"#(triton_gpu|ttg|triton_nvidia_gpu|ttng)\.(\w+)")
ALIAS_DEF = re.compile(r"^(#[\w.]+) = (#(?:triton_gpu|ttg|triton_nvidia_gpu|ttng)\..*?)\s*$", re.M)


def attr_occurrences(text):
    """Every '#dialect.kind' or '#dialect.kind<...>' in text, with its body
    (the balanced '<...>' part, or '' when there is none)."""
    for m in ATTR_START.finditer(text):
        i, body = m.end(), ""
        if i < len(text) and text[i] == "<":
            depth = 0
            for j in range(i, len(text)):
                if text[j] == "<":
                    depth += 1
                elif text[j] == ">" and text[j - 1] != "-":  # skip '->'
                    depth -= 1
                    if depth == 0:
                        body = text[i:j + 1]
                        break
        yield f"#{m.group(1)}.{m.group(2)}", body


def fields_of(body):
    """Top-level field names of an attribute body '<{a = .., b = ..}>'."""
    if not body:
        return ()
    s = body[1:-1].strip()
    if s.startswith("{") and s.endswith("}"):
        s = s[1:-1]
    names, depth, tok = [], 0, ""
    for ch in s + ",":
        if ch in "<[{(":
            depth += 1
        elif ch in ">]})":
            depth -= 1
        if ch == "," and depth == 0:
            m = re.match(r"\s*([\w.\-]+)\s*=", tok)
            names.append(m.group(1) if m else tok.strip())
            tok = ""
        else:
            tok += ch
    return tuple(names)


def summary(args):
    """Per attribute kind: each distinct set of top-level fields, with the
    first example found (the whole alias line when the attribute is defined
    as an alias at the top of the module, else the attribute itself)."""
    kinds = {}  # kind -> {fields -> (file, example)}
    nfiles = 0
    for d in args.dirs:
        for f in sorted(os.listdir(d)):
            if not f.endswith(".ttgir"):
                continue
            nfiles += 1
            text = open(os.path.join(d, f)).read()
            if not check_file(os.path.join(d, f)):
                print(f"NO LAYOUT ATTRIBUTES: {f}")
            aliases = {}
            for m in ALIAS_DEF.finditer(text):
                aliases.setdefault(m.group(2), m.group(0))
            for kind, body in attr_occurrences(text):
                variants = kinds.setdefault(kind, {})
                key = fields_of(body)
                if key not in variants:
                    whole = kind + body
                    variants[key] = (f, aliases.get(whole, whole))
    print(f"{nfiles} files")
    for kind in sorted(kinds):
        print(f"\n{kind}")
        for fields, (f, ex) in sorted(kinds[kind].items()):
            print(f"  fields: {', '.join(fields) or '(none)'}")
            print(f"    {f}: {ex}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("emit", help="compile every case and write the corpus")
    e.add_argument("--out-dir", required=True)
    e.add_argument("--jobs", type=int, default=2, help="compiles run at once (default 2)")
    e.add_argument("--timeout", type=int, default=600, help="seconds allowed per compile (default 600)")
    e.add_argument("--only", nargs="*", help="glob(s) on <case>-sm<arch>-w<warps>-s<stages>; merges into index")
    e.add_argument("--keep-work", action="store_true", help="keep the temp dir with stderr of failures")
    c = sub.add_parser("child", help="(internal) one compile")
    c.add_argument("--case", required=True)
    c.add_argument("--arch", type=int, required=True)
    c.add_argument("--warps", type=int, required=True)
    c.add_argument("--stages", type=int, required=True)
    c.add_argument("--ctas", type=int, default=1)
    c.add_argument("--out", required=True)
    c.add_argument("--status", required=True)
    s = sub.add_parser("summary", help="list the layout attribute kinds and field sets in corpus dirs")
    s.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    if args.cmd == "emit":
        return emit(args)
    if args.cmd == "child":
        return child(args)
    return summary(args)


if __name__ == "__main__":
    sys.exit(main())
