#!/usr/bin/env python3
"""Compile flash-linear-attention's real chunked delta-rule kernel with each
Triton release, on CPU, and record what happens.

The kernel is `chunk_gated_delta_rule_fwd_kernel_h_blockdim64` from
`fla/ops/common/chunk_delta_h.py` of the flash-linear-attention 0.2.0 wheel
(the kernel of fla-org/flash-linear-attention#196).  Its source is NOT in
this repository: it is read, at run time, from the package installed with

    pip install --no-deps --target target/oracle/fla-0.2.0 flash-linear-attention==0.2.0

(`fla.py` does that itself when the directory is missing).  The function is
cut out of the file with `ast`, and written to a scratch module whose line
numbers match the original file, after a header that supplies the two names
it uses besides triton and tl (`exp` = tl.exp, FLA's default without
FLA_USE_FAST_OPS).  The package itself is never imported: it needs torch.

Arguments are those FLA's wrapper `chunk_gated_delta_rule_fwd_h` passes for
#196's call (k, w, u bf16 with K = V = 256, g fp32, chunk size 64, no
initial state, no final state, values saved, fixed-length sequences):
pointers k, v, d, v_new, h: *bf16 and g: *fp32, all 16-byte aligned;
h0, ht, cu_seqlens, chunk_offsets: None; T = 8192 at run time (not
specialized); constexprs H = 36, K = V = 256, BT = 64, NT = 128, BV as
configured, and the heuristics USE_G = 1, USE_INITIAL_STATE = 0,
STORE_FINAL_STATE = 0, SAVE_NEW_VALUE = 1, IS_VARLEN = 0.

Subcommands (parent side under any python3):

  record --releases WHEEL... [--out tests/data/compile/fla-0.2.0.jsonl]
      (the wheels of `linear-layout releases --wheels`; the recorded file's
      header names those it holds), num_warps {2,4,8,16} x BV {16,32,64} x {sm80, sm90}, num_stages 2,
      per release; a header line (tests/oracle/data_header.py, kind
      "fla-compiles") and one JSON line per compile in run_grid.py's format
      with config {"pattern": "fla-chunk-delta-h", "bv", "num_warps",
      "num_stages", "arch", "triton"}, named from it
      (`fla-chunk-delta-h-bv16-w2-s2-sm80-triton3.1`).
  dump-ttgir --triton 3.2.0 --warps 8 --out FILE [--bv 64 --arch sm90 --stages 2]
      the TTGIR that the release hands to the lowering to LLVM (the output
      of its last TTGIR pass), also when the lowering then aborts; loc()
      paths point at fla/ops/common/chunk_delta_h.py.
"""

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_grid  # noqa: E402
import data_header  # noqa: E402  (run_grid put tests/oracle on the path)
from harness import child as children  # noqa: E402

REPO = run_grid.REPO
FLA_VERSION = "0.2.0"
FLA_DIR = os.path.join(REPO, "target", "oracle", f"fla-{FLA_VERSION}")
FLA_FILE = os.path.join("fla", "ops", "common", "chunk_delta_h.py")
KERNEL = "chunk_gated_delta_rule_fwd_kernel_h_blockdim64"
PATTERN = "fla-chunk-delta-h"
CONFIG_KEYS = ("pattern", "bv", "num_warps", "num_stages", "arch", "triton")

# what chunk_gated_delta_rule_fwd_h passes for fla#196's shapes
SHAPE = dict(T=8192, H=36, K=256, V=256, BT=64)
FLAGS = dict(USE_G=True, USE_INITIAL_STATE=False, STORE_FINAL_STATE=False, SAVE_NEW_VALUE=True, IS_VARLEN=False)


def ensure_fla(fla_dir, py):
    if os.path.exists(os.path.join(fla_dir, FLA_FILE)):
        return
    print(f"fla.py: installing flash-linear-attention=={FLA_VERSION} into {fla_dir}", file=sys.stderr)
    subprocess.run([
        py, "-m", "pip", "install", "--disable-pip-version-check", "--no-deps", "--target", fla_dir,
        f"flash-linear-attention=={FLA_VERSION}"
    ], check=True, stdout=subprocess.DEVNULL)


# ---------------------------------------------------------------- child side

HEADER = ("import triton\n"
          "import triton.language as tl\n"
          "exp = tl.exp  # fla.ops.utils.op.exp without FLA_USE_FAST_OPS\n")


def build_module(fla_dir, scratch):
    """Write the kernel, cut from FLA's file, to scratch/chunk_delta_h.py
    (same line numbers as the original) and import it."""
    path = os.path.join(fla_dir, FLA_FILE)
    text = open(path).read()
    tree = ast.parse(text)
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == KERNEL), None)
    if node is None:
        raise SystemExit(f"fla.py: no function {KERNEL} in {path}")
    lines = text.splitlines(keepends=True)
    body = "".join(lines[node.lineno - 1:node.end_lineno])  # from 'def' to its end, no decorators
    jit_line = "@triton.jit(do_not_specialize=['T'])\n"
    pad = node.lineno - 1 - HEADER.count("\n") - 1
    if pad < 0:
        raise SystemExit("fla.py: the kernel starts too early in the file to keep its line numbers")
    out = os.path.join(scratch, "chunk_delta_h.py")
    with open(out, "w") as f:
        f.write(HEADER + "\n" * pad + jit_line + body)
    import importlib.util
    spec = importlib.util.spec_from_file_location("fla_chunk_delta_h_scratch", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, KERNEL), out


def kernel_args(bv):
    p16, p32 = "*bf16", "*fp32"
    c = lambda v: ("constexpr", v)
    nt = -(-SHAPE["T"] // SHAPE["BT"])
    return [
        ("k", p16), ("v", p16), ("d", p16), ("v_new", p16), ("g", p32), ("h", p16), ("h0", c(None)),
        ("ht", c(None)), ("cu_seqlens", c(None)), ("chunk_offsets", c(None)), ("T", "i32"), ("H", c(SHAPE["H"])),
        ("K", c(SHAPE["K"])), ("V", c(SHAPE["V"])), ("BT", c(SHAPE["BT"])), ("BV", c(bv)), ("NT", c(nt)),
        ("USE_G", c(FLAGS["USE_G"])), ("USE_INITIAL_STATE", c(FLAGS["USE_INITIAL_STATE"])),
        ("STORE_FINAL_STATE", c(FLAGS["STORE_FINAL_STATE"])), ("SAVE_NEW_VALUE", c(FLAGS["SAVE_NEW_VALUE"])),
        ("IS_VARLEN", c(FLAGS["IS_VARLEN"]))
    ]


class StopAfterTTGIR(Exception):
    pass


def child(args):
    cfg = json.loads(args.config)
    import grid_kernels
    import triton
    import triton.compiler.compiler as cc
    from triton.backends.compiler import GPUTarget
    # inside the parent's work dir when there is one: an aborted child
    # never runs its atexit hooks, the parent removes that dir
    scratch = tempfile.mkdtemp(prefix="fla-kernel-", dir=os.path.dirname(args.status) if args.status else None)
    import atexit
    import shutil
    atexit.register(shutil.rmtree, scratch, True)
    try:
        fn, kernel_path = build_module(args.fla_dir, scratch)
        src = grid_kernels.make_ast_source(fn, kernel_args(cfg["bv"]))
    except Exception as e:
        import traceback
        traceback.print_exc()
        print(run_grid.EXC_MARK + run_grid.exception_summary(e), file=sys.stderr, flush=True)
        return run_grid.SETUP_FAILED
    if args.status:
        run_grid.hook_stages(args.status, args.ptxas)
        with open(args.status, "w") as f:
            f.write("ast")
    if args.dump_ttgir:
        # stop after the TTGIR stage and keep its output: the module that
        # the lowering to LLVM would be given
        orig = cc.make_backend

        def make_backend(target):
            backend = orig(target)
            orig_add = backend.add_stages

            def add_stages(stages, *rest, **kw):
                orig_add(stages, *rest, **kw)
                ttgir = stages["ttgir"]

                def run(src, metadata):
                    out = ttgir(src, metadata)
                    text = str(out).replace(kernel_path, FLA_FILE).replace(scratch + "/", "")
                    text = re.sub(r'loc\("[^"]*/site-packages/', 'loc("', text)
                    head = (f"// {KERNEL} from flash-linear-attention {FLA_VERSION}, compiled by triton "
                            f"{triton.__version__} for {cfg['arch']}: BV={cfg['bv']}, num_warps={cfg['num_warps']}, "
                            f"num_stages={cfg['num_stages']}\n// (tests/oracle/compile/fla.py dump-ttgir): the output "
                            "of the TTGIR stage, i.e. the module handed to the lowering to LLVM.\n")
                    with open(args.dump_ttgir, "w") as f:
                        f.write(head + text)
                    raise StopAfterTTGIR()

                stages["ttgir"] = run

            backend.add_stages = add_stages
            return backend

        cc.make_backend = make_backend
    arch = int(cfg["arch"].replace("sm", ""))
    opts = dict(num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
    try:
        triton.compile(src, target=GPUTarget("cuda", arch, 32), options=opts)
    except StopAfterTTGIR:
        return 0
    except Exception as e:
        import traceback
        traceback.print_exc()
        print(run_grid.EXC_MARK + run_grid.exception_summary(e), file=sys.stderr, flush=True)
        return 1
    return 0


# --------------------------------------------------------------- parent side


def python_for(version):
    ns = argparse.Namespace(triton=version, python=None)
    return run_grid.resolve_python(ns)


def record(args):
    out_recs = []
    t_all = time.time()
    for version in args.releases:
        py = python_for(version)
        ensure_fla(args.fla_dir, py)
        short = run_grid.triton_short(run_grid.installed_version(py))
        configs = [{
            "pattern": PATTERN, "bv": bv, "num_warps": w, "num_stages": args.stages, "arch": arch, "triton": short
        } for arch in ("sm80", "sm90") for w in (2, 4, 8, 16) for bv in (16, 32, 64)]
        recs = [None] * len(configs)
        work = tempfile.mkdtemp(prefix="fla-run-")
        extra = ["--fla-dir", args.fla_dir]
        import concurrent.futures
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
            futs = {
                ex.submit(run_grid.run_child, py, cfg, work, args.timeout, args.ptxas, os.path.abspath(__file__), extra):
                i
                for i, cfg in enumerate(configs)
            }
            for fut in concurrent.futures.as_completed(futs):
                i = futs[fut]
                rec = {"config": configs[i], **fut.result()}
                recs[i] = rec
                c = configs[i]
                extra_msg = "" if rec["outcome"] == "ok" else "  " + rec["message"][:150]
                print(f"[fla {short}] {rec['outcome']:7} {rec['seconds']:5.1f}s BV={c['bv']} w{c['num_warps']} "
                      f"{c['arch']}{extra_msg}", file=sys.stderr, flush=True)
        out_recs += recs
        shutil.rmtree(work, ignore_errors=True)
    release = args.releases[0] if len(args.releases) == 1 else None
    what = data_header.existing_what(args.out, "fla-compiles", release, len(out_recs)) or (
        f"{len(out_recs)} compiles of flash-linear-attention {FLA_VERSION}'s {KERNEL} (triton "
        f"{', '.join(args.releases)} x num_warps {{2, 4, 8, 16}} x BV {{16, 32, 64}} x {{sm80, sm90}}, "
        f"{args.stages} stages), with the outcomes (`{data_header.command()}`).")
    data_header.write_jsonl(args.out, {"what": what, "release": release, "kind": "fla-compiles"}, out_recs)
    print(f"{len(out_recs)} compiles in {time.time() - t_all:.0f} s -> {args.out}", file=sys.stderr)
    return 0


def dump_ttgir(args):
    py = python_for(args.triton)
    ensure_fla(args.fla_dir, py)
    cfg = {"pattern": PATTERN, "bv": args.bv, "num_warps": args.warps, "num_stages": args.stages, "arch": args.arch}
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        os.remove(out)
    work = tempfile.mkdtemp(prefix="fla-dump-")
    env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(work, "cache"), PYTHONDONTWRITEBYTECODE="1")
    try:
        p = children.run([
            py, os.path.abspath(__file__), "child", "--config",
            json.dumps(cfg), "--fla-dir", args.fla_dir, "--dump-ttgir", out, "--status",
            os.path.join(work, "status")
        ], env=env, timeout=600)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if p.returncode != 0 or not os.path.exists(out):
        sys.stderr.write(p.stderr[-3000:])
        raise SystemExit(f"fla.py: no TTGIR (exit {p.returncode})")
    print(f"TTGIR of {KERNEL} (triton {args.triton}, {cfg}) -> {args.out}", file=sys.stderr)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--out", default=os.path.join(REPO, "tests", "data", "compile", f"fla-{FLA_VERSION}.jsonl"))
    r.add_argument("--releases", nargs="+", required=True, metavar="WHEEL")
    r.add_argument("--stages", type=int, default=2)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--timeout", type=int, default=run_grid.TIMEOUT)
    r.add_argument("--ptxas", action="store_true")
    r.add_argument("--fla-dir", default=FLA_DIR)
    d = sub.add_parser("dump-ttgir")
    d.add_argument("--triton", required=True)
    d.add_argument("--warps", type=int, required=True)
    d.add_argument("--bv", type=int, default=64)
    d.add_argument("--arch", default="sm90")
    d.add_argument("--stages", type=int, default=2)
    d.add_argument("--out", required=True)
    d.add_argument("--fla-dir", default=FLA_DIR)
    c = sub.add_parser("child")
    c.add_argument("--config", required=True)
    c.add_argument("--status")
    c.add_argument("--ptxas", action="store_true")
    c.add_argument("--fla-dir", default=FLA_DIR)
    c.add_argument("--dump-ttgir")
    args = ap.parse_args()
    return {"record": record, "dump-ttgir": dump_ttgir, "child": child}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
