#!/usr/bin/env python3
"""Compile the 3.7-3.9 family kernels (family_kernels.py) with the real wheels on the CPU, and the
one-op family modules (3.4 – 3.9; 3.2 and 3.3: the stmatrix scratch store's only).

Each configuration is a JSON object: the kernel's `family` and parameters, and `num_warps`,
`num_stages`, `num_ctas`, `arch` (sm90, sm100, sm120). It is compiled in a child process of its
own (run_grid.py's child runner: ptxas is skipped, an abort kills only the child), and the
TTGIR handed to the LLVM lowering (`make_llir`'s input) is kept, so that a failure in the
lowering leaves the module `check-ttgir` reads.

    python3 tests/oracle/compile/families.py try --triton 3.9.0 CONFIG_JSON [...]
        compile each configuration, print outcome, stage and key line
    python3 tests/oracle/compile/families.py record --triton 3.9.0
        compile the kernel grid (`GRID`) and the one-op modules (`modules`) with that wheel and
        write tests/data/compile/families-triton-3.9.0.jsonl.gz (kind `family-compiles`: each
        record with the TTGIR handed to the lowering, locations stripped) and
        tests/data/compile/family-modules-triton-3.9.0.jsonl (kind `family-modules`)
    python3 tests/oracle/compile/families.py record --triton 3.9.0 --only kernels --missing
        the same, compiling only the kernels the file has no record of (a kernel added to the
        grid) and keeping the others as recorded
    python3 tests/oracle/compile/families.py emit --triton 3.9.0 --dir DIR
        write the one-op modules of that release, without compiling them
    python3 tests/oracle/compile/families.py child --config JSON --status PATH --ttgir PATH
        (internal) one compile
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import data_header  # noqa: E402
import op_level  # noqa: E402  (Dialect: the crate prints every layout attribute)
import run_grid  # noqa: E402
from harness import venvs  # noqa: E402

OPTION_KEYS = ("num_warps", "num_stages", "num_ctas")


def hook(status_path, ttgir_path):
    """Name each stage in `status_path` before it runs, skip ptxas, and write the module
    `make_llir` gets to `ttgir_path` first."""
    import triton.compiler.compiler as cc
    orig = cc.make_backend

    def make_backend(target):
        backend = orig(target)
        orig_add = backend.add_stages

        def add_stages(stages, *rest, **kw):
            orig_add(stages, *rest, **kw)
            if "cubin" in stages:
                stages["cubin"] = lambda src, metadata: b""
            for ext, fn in list(stages.items()):

                def run(src, metadata, _fn=fn, _ext=ext):
                    with open(status_path, "w") as f:
                        f.write(_ext)
                    if _ext == "llir" and ttgir_path:
                        with open(ttgir_path, "w") as f:
                            f.write(str(src))
                    return _fn(src, metadata)

                stages[ext] = run

        backend.add_stages = add_stages
        return backend

    cc.make_backend = make_backend


def child(args):
    try:
        cfg = json.loads(args.config)
        import family_kernels
        import grid_kernels
        import triton
        from triton.backends.compiler import GPUTarget
        hook(args.status, args.ttgir)
        with open(args.status, "w") as f:
            f.write("ast")
        fn, spec = family_kernels.spec(cfg)
        src = grid_kernels.make_ast_source(fn, spec)
        arch = int(cfg["arch"].replace("sm", ""))
        opts = {k: cfg[k] for k in OPTION_KEYS if cfg.get(k) is not None}
    except Exception as e:
        import traceback
        traceback.print_exc()
        print(run_grid.EXC_MARK + run_grid.exception_summary(e), file=sys.stderr, flush=True)
        return run_grid.SETUP_FAILED
    try:
        triton.compile(src, target=GPUTarget("cuda", arch, 32), options=opts)
    except Exception as e:
        import traceback
        traceback.print_exc()
        print(run_grid.EXC_MARK + run_grid.exception_summary(e), file=sys.stderr, flush=True)
        return 1
    return 0


WRAPPER = "Failures have been detected while processing an MLIR pass pipeline"


def pass_note(rec):
    """`rec` with, where its key line is only the pass manager's wrapper (the failing pass
    printed no diagnostic of its own), the pipeline's note naming the passes instead: the one
    line that says where it failed."""
    if WRAPPER not in (rec.get("message") or ""):
        return rec
    for line in rec.get("stderr_tail") or []:
        if "Pipeline failed while executing [" in line:
            at = line.index("Pipeline failed while executing [")
            end = line.find("]", at)
            return {**rec, "message": line[at:end + 1] if end > 0 else line[at:]}
    return rec


def compile_one(py, cfg, work, timeout=180):
    """The record of one compile: run_grid's fields and `ttgir` (null when the front end failed
    before the lowering)."""
    fd, ttgir = tempfile.mkstemp(suffix=".ttgir", dir=work)
    os.close(fd)
    os.remove(ttgir)
    rec = run_grid.run_child(py, cfg, work, timeout, script=os.path.abspath(__file__), extra=("--ttgir", ttgir))
    rec["ttgir"] = None
    if os.path.exists(ttgir):
        with open(ttgir) as f:
            rec["ttgir"] = f.read()
        os.remove(ttgir)
    return rec



# ---------------------------------------------------------------- the kernel grid


def _cfg(family, arch, warps=4, ctas=1, stages=2, **params):
    return {"family": family, **params, "num_warps": warps, "num_stages": stages, "num_ctas": ctas, "arch": arch}


def kernel_grid():
    """The kernel configurations every release compiles: each family's failing case, the
    neighbours that compile (another warp count, tile, operand order or number of CTAs), and
    the constructs current kernels use on sm90, sm100 and sm120 (persistent matmul, attention,
    TMA copies, top-k) as controls."""
    g = []
    ds = dict(m=128, n=128, k=128)
    for arch in ("sm120", "sm100"):
        g.append(_cfg("dot_scaled", arch, fa="e2m1", fb="e2m1", **ds))
        g.append(_cfg("dot_scaled", arch, fa="e2m1", fb="e2m1", pack_b=0, **ds))
        g.append(_cfg("dot_scaled", arch, fa="e2m1", fb="e2m1", batch=2, **ds))
        g.append(_cfg("dot_scaled", arch, fa="e4m3", fb="e4m3", **ds))
    # mxfp4 with 2 CTAs on sm100: the packed operand B keeps a split along K (the tcgen05
    # verifier from 3.7); 3.6 fails first at dsmem_mapa, 3.4 and 3.5 at dsmem_no_scratch (the
    # scales' conversion to a slice of a linear layout)
    g.append(_cfg("dot_scaled", "sm100", ctas=2, fa="e2m1", fb="e2m1", **ds))
    g.append(_cfg("dot_scaled", "sm120", fa="e2m1", fb="e2m1", pack_a=0, **ds))
    g.append(_cfg("dot_scaled", "sm120", fa="e4m3", fb="e2m1", **ds))
    g.append(_cfg("dot_scaled", "sm120", fa="bf16", fb="e2m1", **ds))
    g.append(_cfg("dot_scaled", "sm120", fa="e4m3", fb="e4m3", batch=2, **ds))
    g.append(_cfg("dot_scaled", "sm120", warps=8, fa="e2m1", fb="e2m1", pack_b=0, **ds))
    g.append(_cfg("dot_scaled", "sm120", fa="e2m1", fb="e2m1", pack_b=0, m=64, n=64, k=64))
    g.append(_cfg("dot_scaled", "sm90", fa="e2m1", fb="e2m1", **ds))
    # warp specialization over TMA tiles on Hopper (#11586) and its neighbours
    small = dict(m=64, n=32, k=32, stages=3)
    for dtype in ("int8", "fp8e4nv", "fp32", "fp16"):
        for tb in (0, 1):
            g.append(_cfg("ws_matmul", "sm90", dtype=dtype, desc="host", trans_b=tb, **small))
    g.append(_cfg("ws_matmul", "sm90", dtype="int8", desc="device", **small))
    g.append(_cfg("ws_matmul", "sm90", dtype="int8", desc="host", ws=0, **small))
    g.append(_cfg("ws_matmul", "sm90", dtype="fp8e4nv", desc="host", ws=0, **small))
    big = dict(m=128, n=128, k=64, stages=3)
    g.append(_cfg("ws_matmul", "sm90", dtype="fp16", desc="host", **big))
    g.append(_cfg("ws_matmul", "sm90", warps=8, dtype="fp16", desc="host", **big))
    g.append(_cfg("ws_matmul", "sm90", dtype="int8", desc="host", m=128, n=32, k=32, stages=3))
    g.append(_cfg("ws_matmul", "sm90", dtype="fp16", desc="device", **big))
    g.append(_cfg("ws_matmul", "sm90", dtype="fp16", desc="none", **big))
    g.append(_cfg("ws_matmul", "sm90", warps=8, ctas=2, dtype="fp16", desc="host", **big))
    for arch in ("sm100", "sm120"):
        g.append(_cfg("ws_matmul", arch, dtype="fp16", desc="host", **big))
        g.append(_cfg("ws_matmul", arch, dtype="int8", desc="host", **big))
    g.append(_cfg("ws_matmul", "sm100", dtype="fp8e4nv", desc="device", trans_b=1, **big))
    # warp-specialized loops without a dot (#10901)
    for warps, rows, block in ((4, 4, 512), (8, 1, 1024)):
        g.append(_cfg("ws_norm", "sm100", warps=warps, m=rows, n=block, dtype="bf16", stages=3))
    g.append(_cfg("ws_norm", "sm100", m=4, n=512, dtype="bf16", ws=0, stages=3))
    g.append(_cfg("ws_norm", "sm90", m=4, n=512, dtype="bf16", stages=3))
    # persistent matmul and attention (controls)
    g.append(_cfg("persistent", "sm100", dtype="fp16", ws=1, flat=1, stages=3, m=128, n=128, k=64))
    g.append(_cfg("persistent", "sm100", dtype="fp16", ws=1, epi_split=1, stages=3, m=128, n=256, k=64))
    g.append(_cfg("persistent", "sm90", warps=8, dtype="fp8e4nv", flat=1, stages=3, m=128, n=128, k=64))
    g.append(_cfg("persistent", "sm120", dtype="fp16", flat=1, stages=3, m=128, n=128, k=64))
    g.append(_cfg("attention", "sm100", dtype="fp16", ws=1, m=128, n=128, head=64))
    g.append(_cfg("attention", "sm100", warps=8, dtype="bf16", ws=1, m=128, n=64, head=128))
    g.append(_cfg("attention", "sm90", warps=8, dtype="fp16", ws=1, stages=3, m=128, n=128, head=64))
    g.append(_cfg("attention", "sm90", warps=8, dtype="fp16", stages=3, m=128, n=128, head=64))
    g.append(_cfg("attention", "sm120", dtype="fp16", desc="ptr", m=64, n=64, head=64))
    # several CTAs: a transpose then a store (DSMEM), join/split, rank-3 dots, reductions
    for arch in ("sm90", "sm100", "sm120"):
        for ctas in (1, 2, 4):
            g.append(_cfg("trans_store", arch, ctas=ctas, m=64, n=64, dtype="fp16"))
            g.append(_cfg("bmm", arch, ctas=ctas, b=2, m=64, n=64, k=32, dtype="fp16"))
        g.append(_cfg("join_split", arch, ctas=2, m=64, n=64, dtype="fp16"))
    g.append(_cfg("join_split", "sm90", ctas=4, m=64, n=64, dtype="fp16"))
    g.append(_cfg("join_split", "sm90", m=64, n=64, dtype="fp16"))
    for arch in ("sm90", "sm100"):
        for ctas in (2, 4):
            for m, n, axis in ((1, 256, 1), (2, 256, 1), (256, 1, 0), (4, 256, 1), (64, 4, 1)):
                g.append(_cfg("reduce", arch, ctas=ctas, m=m, n=n, axis=axis, dtype="fp32"))
    g.append(_cfg("reduce", "sm90", m=1, n=256, axis=1, dtype="fp32"))
    # TMA descriptors
    for arch in ("sm90", "sm100", "sm120"):
        g.append(_cfg("tma", arch, m=64, n=64, dtype="fp16", mode="store", desc="host"))
        g.append(_cfg("tma", arch, m=64, n=64, dtype="fp16", mode="trans", desc="device"))
        g.append(_cfg("tma", arch, ctas=2, m=64, n=64, dtype="fp16", mode="gather", desc="host"))
    g.append(_cfg("tma", "sm100", m=64, n=64, dtype="fp16", mode="gather", desc="host"))
    g.append(_cfg("tma", "sm90", m=512, n=32, dtype="fp16", mode="store", desc="host"))
    g.append(_cfg("tma", "sm90", ctas=2, m=64, n=64, dtype="fp16", mode="store", desc="host"))
    g.append(_cfg("tma", "sm90", m=64, n=64, dtype="fp16", mode="atomic", desc="host"))
    # descriptors of rank 2 to 4 loaded with their leading unit dims reshaped away (a rank-reducing
    # load) and several CTAs: 3.4 and 3.5 extend the load's CTA order wrongly to the descriptor's
    # rank (site descriptor_rank_reduce_cta); leading dims kept or not of size 1, one CTA: controls
    r3 = dict(family="tma_rank", m=64, n=64, dtype="bf16")
    for ctas in (1, 2, 4):
        g.append(_cfg(arch="sm90", ctas=ctas, **r3))
    g.append(_cfg(arch="sm100", ctas=2, **r3))
    g.append(_cfg("tma_rank", "sm90", ctas=2, m=128, n=64, dtype="fp16"))
    g.append(_cfg("tma_rank", "sm90", ctas=2, m=64, n=128, dtype="fp8e4nv"))
    g.append(_cfg("tma_rank", "sm90", ctas=2, m=64, n=32, dtype="fp32"))
    g.append(_cfg(arch="sm90", ctas=2, lead=2, **r3))
    g.append(_cfg(arch="sm90", ctas=2, flat=0, **r3))
    for ctas in (1, 2):
        g.append(_cfg(arch="sm90", ctas=ctas, rank=4, **r3))
        g.append(_cfg(arch="sm90", ctas=ctas, rank=2, **r3))
        g.append(_cfg(arch="sm90", ctas=ctas, desc="device", **r3))
        g.append(_cfg(arch="sm90", ctas=ctas, dot=1, **r3))
    g.append(_cfg("tma_rank", "sm90", ctas=2, m=64, n=128, dtype="fp8e4nv", dot=1))
    # top-k
    for arch, warps in (("sm90", 4), ("sm120", 8)):
        g.append(_cfg("topk", arch, warps=warps, m=16, n=128, topk=4, dtype="fp32"))
    return g


# ---------------------------------------------------------------- one-op modules


def _dialect(short):
    """How release `short` spells TTGIR (op_level.py's `Dialect`): its layout attributes are
    printed by the crate, so no spelling of them lives here."""
    return op_level.make_dialect(short)


def _cga(d, split, rank=2):
    """The CGA fields (attribute JSON) of `split` (per dim: how many CTAs along it; a 0 is one
    CTA broadcast), in the spelling of `d`'s release table row: the three lists, or
    `CGALayout` bases."""
    broadcast = [x == 0 for x in split]
    if d.t["cga"] == "lists":
        ctas = [max(x, 1) for x in split]
        if any(broadcast):
            ctas[broadcast.index(True)] = 2
        splitnum = [max(x, 1) for x in split]
        order = list(range(rank - 1, -1, -1))
        return {"CTAsPerCGA": ctas, "CTASplitNum": splitnum, "CTAOrder": order}
    bases = []
    for dim, x in enumerate(split):
        if x == 0:
            bases.append([0] * rank)
        step = 1
        while step < x:
            bases.append([step if i == dim else 0 for i in range(rank)])
            step *= 2
    return {"CGALayout": bases}


def _num_ctas(split):
    n = 1
    for x in split:
        n *= x if x else 2
    return n


def dsmem_module(short, p):
    """A convert_layout of a 64 × 64 fp16 tensor between two blocked (or an MMA v2 and a
    blocked) layouts split among CTAs by `p["src"]` and `p["dst"]`."""
    d = _dialect(short)
    ctas = _num_ctas(p["src"])
    src_kind = p.get("src_kind", "blocked")
    if src_kind == "mma":
        src = d.attr("nvidia_mma", versionMajor=2, versionMinor=0, warpsPerCTA=[2, 2],
                     instrShape=[16, 8], **_cga(d, p["src"]))
    else:
        src = d.attr("blocked", sizePerThread=[1, 8], threadsPerWarp=[4, 8], warpsPerCTA=[4, 1],
                     order=[1, 0], **_cga(d, p["src"]))
    dst = d.attr("blocked", sizePerThread=[p.get("dst_spt", 8), 1], threadsPerWarp=[8, 4],
                 warpsPerCTA=[1, 4], order=[0, 1], **_cga(d, p["dst"]))
    t = "tensor<64x64xf16, #src>"
    u = "tensor<64x64xf16, #dst>"
    return f"""#src = {src}
#dst = {dst}
module attributes {{"ttg.num-ctas" = {ctas} : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:{p['cap']}", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @op_level(%in: !tt.ptr<f16> {{tt.divisibility = 16 : i32}}, %out: !tt.ptr<f16> {{tt.divisibility = 16 : i32}}) {{
    %p = tt.splat %in : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #src>
    %x = tt.load %p : tensor<64x64x!tt.ptr<f16>, #src>
    %y = ttg.convert_layout %x : {t} -> {u}
    %q = tt.splat %out : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #dst>
    tt.store %q, %y : tensor<64x64x!tt.ptr<f16>, #dst>
    tt.return
  }}
}}
"""


def scratch_module(short, p):
    """A convert_layout whose two layouts split 2 CTAs alike but write their CTA layouts
    differently: a blocked tensor to the same layout with the other `CTAOrder` (only
    registers move), or, as in an mxfp4 `dot_scaled`'s scales, a `[128, 4]` i8 tensor to a
    slice of a `#ttg.linear` layout (values move within a warp); `same` writes them alike."""
    d = _dialect(short)

    def cga(order):
        if d.t["cga"] == "lists":
            return {"CTAsPerCGA": [2, 1], "CTASplitNum": [2, 1], "CTAOrder": order}
        return {"CGALayout": [[1, 0]]}

    src_order = [1, 0]
    dst_order = src_order if p["same"] else [0, 1]
    fields = {"sizePerThread": [1, 2], "threadsPerWarp": [16, 2], "warpsPerCTA": [4, 1], "order": [1, 0]}
    src = d.attr("blocked", **fields, **cga(src_order))
    if p["kind"] == "blocked":
        dst = d.attr("blocked", **fields, **cga(dst_order))
        defs, u = f"#dst = {dst}\n", "#dst"
    else:
        # registers along dim 2 then 1: CTAOrder [0, 2, 1], [0, 1] once dim 2 is sliced away
        lin = d.attr("linear", register=[[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 1, 0]],
                     lane=[[1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0], [0, 2, 0]],
                     warp=[[16, 0, 0], [32, 0, 0]], block=[[64, 0, 0]])
        defs, u = f"#lin = {lin}\n", d.text(d.slice(2, "lin"))
    return f"""#src = {src}
{defs}module attributes {{"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:{p['cap']}", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @op_level(%in: !tt.ptr<i8> {{tt.divisibility = 16 : i32}}, %out: !tt.ptr<i8> {{tt.divisibility = 16 : i32}}) {{
    %p = tt.splat %in : !tt.ptr<i8> -> tensor<128x4x!tt.ptr<i8>, #src>
    %x = tt.load %p : tensor<128x4x!tt.ptr<i8>, #src>
    %y = ttg.convert_layout %x : tensor<128x4xi8, #src> -> tensor<128x4xi8, {u}>
    %q = tt.splat %out : !tt.ptr<i8> -> tensor<128x4x!tt.ptr<i8>, {u}>
    tt.store %q, %y : tensor<128x4x!tt.ptr<i8>, {u}>
    tt.return
  }}
}}
"""


def stmatrix_scratch_module(short, p):
    """A constant in a Hopper accumulator (`p["rows"]` x `p["cols"]`, instruction N `p["n"]`,
    warps `p["warps"]`) converted to a blocked layout with order `p["order"]`, on sm90. Optional:
    the blocked layout's `dst_spt`, `dst_tpw` and `dst_warps` (default one value a thread, the 32
    lanes along dim 1, every warp along dim 0), and `cga`, a CTA split both layouts share (per
    dim: how many CTAs along it)."""
    d = _dialect(short)
    ty = {"bf16": "bf16", "fp16": "f16", "fp32": "f32", "int16": "i16"}[p["dtype"]]
    wm, wn = p["warps"]
    k = 256 // {"bf16": 16, "fp16": 16, "fp32": 32, "int16": 16}[p["dtype"]]
    cga = _cga(d, p["cga"]) if "cga" in p else {}
    ctas = _num_ctas(p["cga"]) if "cga" in p else 1
    mma = d.attr("nvidia_mma", versionMajor=3, versionMinor=0, warpsPerCTA=[wm, wn], instrShape=[16, p["n"], k],
                 **cga)
    blocked = d.attr("blocked", sizePerThread=list(p.get("dst_spt", [1, 1])),
                     threadsPerWarp=list(p.get("dst_tpw", [1, 32])),
                     warpsPerCTA=list(p.get("dst_warps", [wm * wn, 1])), order=list(p["order"]), **cga)
    t = f"tensor<{p['rows']}x{p['cols']}x{ty}"
    one = "1" if ty.startswith("i") else "1.000000e+00"
    g = d.d
    return f"""#mma = {mma}
#blocked = {blocked}
module attributes {{"{g}.num-ctas" = {ctas} : i32, "{g}.num-warps" = {wm * wn} : i32, {g}.target = "cuda:90", "{g}.threads-per-warp" = 32 : i32}} {{
  tt.func public @op_level(%out: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}) {{
    %c = arith.constant dense<{one}> : {t}, #mma>
    %y = {g}.convert_layout %c : {t}, #mma> -> {t}, #blocked>
    %q = tt.splat %out : !tt.ptr<{ty}> -> tensor<{p['rows']}x{p['cols']}x!tt.ptr<{ty}>, #blocked>
    tt.store %q, %y : tensor<{p['rows']}x{p['cols']}x!tt.ptr<{ty}>, #blocked>
    tt.return
  }}
}}
"""


WGMMA_TYPES = {  # dtype -> (MLIR element type, accumulator type, zero, instruction K)
    "int8": ("i8", "i32", "0", 32),
    "fp8e4nv": ("f8E4M3FN", "f32", "0.000000e+00", 32),
    "fp32": ("f32", "f32", "0.000000e+00", 8),
    "fp16": ("f16", "f32", "0.000000e+00", 16),
}


def wgmma_module(short, p):
    """One ttng.warp_group_dot of two shared buffers, A [64, K] and B [K, 32], each `transposed`
    or not, on sm90."""
    dialect = _dialect(short)  # `d` is the accumulator's type below
    elem, acc, zero, k = WGMMA_TYPES[p["dtype"]]
    bits = {"i8": 8, "f8E4M3FN": 8, "f32": 32, "f16": 16}[elem]
    n = 32

    def swizzle(contiguous):
        return min(128, contiguous * bits // 8)

    sw_a = swizzle(64 if p["trans_a"] else k)
    sw_b = swizzle(k if p["trans_b"] else n)
    a = f"!ttg.memdesc<64x{k}x{elem}, #sa, #smem, mutable>"
    b = f"!ttg.memdesc<{k}x{n}x{elem}, #sb, #smem, mutable>"
    d = f"tensor<64x{n}x{acc}, #mma>"
    # fp8 products summed in fp32 need the accumulation interval the front end writes
    imprecise = ", maxNumImpreciseAcc = 1073741824 : i32" if elem.startswith("f8") else ""
    mma = dialect.attr("nvidia_mma", versionMajor=3, versionMinor=0, warpsPerCTA=[4, 1], instrShape=[16, n, k])
    sa = dialect.nvmma(sw_a, bits, transposed=bool(p["trans_a"]))
    sb = dialect.nvmma(sw_b, bits, transposed=bool(p["trans_b"]))
    return f"""#mma = {mma}
#sa = {sa}
#sb = {sb}
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @op_level(%out: !tt.ptr<{acc}> {{tt.divisibility = 16 : i32}}) {{
    %a = ttg.local_alloc : () -> {a}
    %b = ttg.local_alloc : () -> {b}
    %c = arith.constant dense<{zero}> : {d}
    %d = ttng.warp_group_dot %a, %b, %c {{inputPrecision = 0 : i32{imprecise}}} : {a} * {b} -> {d}
    %p = tt.splat %out : !tt.ptr<{acc}> -> tensor<64x{n}x!tt.ptr<{acc}>, #mma>
    tt.store %p, %d : tensor<64x{n}x!tt.ptr<{acc}>, #mma>
    tt.return
  }}
}}
"""


def modules(short):
    """The one-op modules for release `short` (`3.9`): (site, params, module text, capability)."""
    out = []
    if tuple(int(x) for x in short.split(".")[:2]) < (3, 4):
        # 3.2 and 3.3 meet only the stmatrix scratch store; the other modules are 3.4+'s
        return [("stmatrix_scratch", p, stmatrix_scratch_module(short, p), 90) for p in stmatrix_scratch_cases(short)]
    for dtype in WGMMA_TYPES:
        for ta in (0, 1):
            for tb in (0, 1):
                p = {"dtype": dtype, "trans_a": ta, "trans_b": tb}
                out.append(("wgmma_operand_major", p, wgmma_module(short, p), 90))
    pairs = [([2, 1], [1, 2]), ([1, 2], [2, 1]), ([2, 1], [2, 1]), ([0, 1], [2, 1]), ([2, 1], [0, 1]),
             ([4, 1], [1, 4]), ([2, 2], [4, 1]), ([2, 2], [2, 2])]
    for src, dst in pairs:
        for cap in (90, 100):
            p = {"src": src, "dst": dst, "cap": cap}
            out.append(("dsmem_mapa", p, dsmem_module(short, p), cap))
    for src, dst in (([2, 1], [1, 2]), ([2, 1], [2, 1])):
        p = {"src": src, "dst": dst, "cap": 90, "src_kind": "mma"}
        out.append(("dsmem_mapa", p, dsmem_module(short, p), 90))
    for kind in ("blocked", "linear_slice"):
        for same in (False, True):
            if kind == "linear_slice" and same:
                continue  # a linear layout's CTA order is derived, not written
            for cap in (90, 100):
                p = {"kind": kind, "same": same, "cap": cap}
                out.append(("dsmem_no_scratch", p, scratch_module(short, p), cap))
    for p in stmatrix_scratch_cases(short):
        out.append(("stmatrix_scratch", p, stmatrix_scratch_module(short, p), 90))
    return out


def stmatrix_scratch_cases(short):
    """Hopper accumulators converted to blocked layouts around the stmatrix scratch store
    (`stmatrix_scratch`). Every release: 18 small tensors (one-row and taller, two warp splits,
    the 1 x 8 one in fp16, fp32, the other order, instruction N 16 and 8 x 1 warps). Up to 3.4,
    where the store is, 54 more written for 3.2 and 3.3 (issue 35): every warp split up to
    4 x 4, destinations reading taller tensors as rows of 8 (the padded scratch still takes
    stmatrix), with lanes or warps along either dim, a 4-column tile, int16, instruction N up to
    64, and CTA splits of 2 and 4 that both layouts share."""
    base = {"dtype": "bf16", "n": 8, "order": [1, 0]}
    cases = [{**base, "rows": r, "cols": c, "warps": w}
             for r, c in ((1, 8), (2, 8), (4, 8), (16, 8), (1, 16), (1, 32)) for w in ([4, 1], [4, 2])]
    one = {**base, "rows": 1, "cols": 8, "warps": [4, 1]}
    cases += [{**one, "dtype": "fp16"}, {**one, "dtype": "fp32"}, {**one, "order": [0, 1]},
              {**one, "n": 16}, {**one, "n": 16, "cols": 16}, {**one, "warps": [8, 1]}]
    if tuple(int(x) for x in short.split(".")[:2]) >= (3, 5):
        return cases
    more = [{**base, "rows": r, "cols": c, "warps": w}
            for r, c in ((1, 8), (1, 16), (1, 32), (1, 64), (2, 8), (16, 8), (2, 16))
            for w in ([4, 1], [4, 2], [8, 1], [4, 4])]
    wide = {"dst_spt": [1, 8], "dst_tpw": [32, 1]}
    more += [{**one, "order": [0, 1]}, {**one, "dtype": "fp16"}, {**one, "dtype": "int16"}, {**one, "dtype": "fp32"},
             {**one, "n": 16}, {**one, "n": 16, "cols": 16}, {**one, "n": 32, "cols": 32}, {**one, "n": 16, "cols": 32},
             {**one, "cols": 16, "order": [0, 1]},
             {**one, "rows": 16, **wide},
             {**one, "rows": 2, "dst_spt": [1, 8], "dst_tpw": [2, 16]},
             {**one, "rows": 2, "cols": 16, "dst_spt": [1, 8], "dst_tpw": [2, 16]},
             {**one, "dst_spt": [1, 8], "dst_tpw": [1, 32]},
             {**one, "dst_spt": [1, 2], "dst_tpw": [1, 32]},
             {**one, "dst_tpw": [32, 1]},
             {**one, "dst_tpw": [32, 1], "order": [0, 1]},
             {**one, "dst_warps": [1, 4]},
             {**one, "cols": 16, "cga": [1, 2]},
             {**one, "cols": 8, "cga": [1, 2]},
             {**one, "cols": 32, "cga": [1, 2]},
             {**one, "rows": 2, "cga": [2, 1]},
             {**one, "cols": 16, "warps": [4, 2], "cga": [1, 2]}]
    w41 = {**base, "warps": [4, 1]}
    more += [{**w41, "rows": 2, "cols": 4, "dst_spt": [1, 4], "dst_tpw": [2, 16]},
             {**w41, "warps": [4, 2], "rows": 2, "cols": 16, "dst_spt": [1, 16], "dst_tpw": [2, 16]},
             {**w41, "rows": 2, "cols": 8, "dst_spt": [1, 4], "dst_tpw": [2, 16]},
             {**w41, "rows": 32, "cols": 8, **wide}, {**w41, "rows": 128, "cols": 8, **wide},
             {**w41, "rows": 64, "cols": 8, **wide},
             {**w41, "rows": 1, "cols": 16, "warps": [4, 2], "n": 16},
             {**w41, "rows": 16, "cols": 8, "order": [0, 1], **wide},
             {**w41, "rows": 1, "cols": 16, "warps": [4, 2], "dst_warps": [1, 8], "dst_tpw": [1, 32]},
             {**w41, "rows": 1, "cols": 32, "cga": [1, 4]}, {**w41, "rows": 4, "cols": 8, "cga": [4, 1]},
             {**w41, "rows": 16, "cols": 8, "dtype": "fp16", **wide},
             {**w41, "rows": 16, "cols": 8, "dtype": "fp32", **wide},
             {**w41, "rows": 16, "cols": 16, "dst_spt": [1, 8], "dst_tpw": [16, 2]},
             {**w41, "rows": 16, "cols": 16, "warps": [4, 2], "dst_spt": [1, 8], "dst_tpw": [16, 2]},
             {**w41, "rows": 1, "cols": 8, "dst_spt": [1, 4], "dst_tpw": [1, 32]},
             {**w41, "rows": 1, "cols": 8, "dst_spt": [1, 2], "dst_tpw": [2, 16]},
             {**w41, "rows": 1, "cols": 8, "dst_tpw": [4, 8]},
             {**w41, "rows": 8, "cols": 8, "dst_spt": [1, 8], "dst_tpw": [8, 4], "dst_warps": [1, 4]},
             {**w41, "rows": 2, "cols": 32, "warps": [4, 4], "dst_spt": [1, 8], "dst_tpw": [2, 16]},
             {**w41, "rows": 1, "cols": 64, "warps": [4, 2], "n": 32},
             {**w41, "rows": 1, "cols": 128, "warps": [4, 2], "n": 64, "dst_spt": [1, 4]}]
    seen = {json.dumps(c, sort_keys=True) for c in cases}
    for c in more:
        key = json.dumps(c, sort_keys=True)
        if key not in seen:
            seen.add(key)
            cases.append(c)
    return cases


venv_python = venvs.python


def try_(args):
    py = venv_python(args.triton)
    cfgs = [json.loads(c) for c in args.config]

    def job(work, i):
        return compile_one(py, cfgs[i], work, args.timeout)

    def describe(i, rec):
        return json.dumps(cfgs[i]) + f" stage={rec['stage']} ttgir={'yes' if rec['ttgir'] else 'no'}"

    records, _ = run_grid.run_pool(len(cfgs), job, args.jobs, args.triton, describe, prefix="families-")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        for i, rec in enumerate(records):
            if rec["ttgir"]:
                with open(os.path.join(args.keep, f"{i}-{args.triton}.ttgir"), "w") as f:
                    f.write(rec["ttgir"])
    for c, rec in zip(cfgs, records):
        print(json.dumps({"config": c, "triton": args.triton, **{k: v for k, v in rec.items() if k != "ttgir"}}))
    return 0


OP_LEVEL = os.path.join(HERE, "op_level.py")


def compile_modules(py, short, cases, jobs):
    """Compile each one-op module from its file (op_level.py's child: a 4 GiB address-space
    limit, ptxas skipped); records in the `family-modules` form."""
    def job(work, i):
        site, params, text, cap = cases[i]
        path = os.path.join(work, f"case{i}.ttgir")
        with open(path, "w") as f:
            f.write(text)
        rec = run_grid.run_child(py, {"id": f"case{i}"}, work, script=OP_LEVEL,
                                 extra=("--module", path, "--cap", str(cap)))
        rec.pop("stderr_tail", None)
        for key in ("message", "exception"):
            if key in rec:
                rec[key] = rec[key].replace(path, "m.ttgir").replace(f"case{i}.ttgir", "m.ttgir")
        return {"site": site, "params": params, "triton": short, "module": text, **rec}

    def describe(i, _rec):
        return f"{cases[i][0]} {json.dumps(cases[i][1])}"

    records, _ = run_grid.run_pool(len(cases), job, jobs, short, describe, prefix="families-")
    return records


def record(args):
    py = venv_python(args.triton)
    short = run_grid.triton_short(args.triton)
    if args.only == "modules":
        return record_modules(args, py, short)
    cfgs = kernel_grid()
    out = os.path.join(args.out_dir, f"families-triton-{args.triton}.jsonl.gz")
    kept = kept_records(out) if args.missing else {}

    def job(work, i):
        if json.dumps(cfgs[i], sort_keys=True) in kept:
            return kept[json.dumps(cfgs[i], sort_keys=True)]
        rec = compile_one(py, cfgs[i], work, args.timeout)
        ttgir = rec.pop("ttgir")
        for key in ("message", "exception"):  # no scratch or repository paths in the record
            if rec.get(key):
                rec[key] = rec[key].replace(HERE + "/", "")
        rec["stderr_tail"] = [l.replace(HERE + "/", "") for l in rec.get("stderr_tail") or []]
        rec = pass_note(rec)
        return {"config": {**cfgs[i], "triton": short}, **rec,
                "ttgir": kernels_corpus_strip(ttgir) if ttgir else None}

    def describe(i, rec):
        return json.dumps(cfgs[i]) + f" stage={rec['stage']}"

    kernels, _ = run_grid.run_pool(len(cfgs), job, args.jobs, short, describe, prefix="families-")
    what = (f"{len(kernels)} kernels of tests/oracle/compile/family_kernels.py (families.py's kernel_grid: "
            f"dot_scaled, warp-specialized loops, TMA descriptors, several CTAs), each compiled with the "
            f"triton {args.triton} wheel on the CPU down to PTX, with the TTGIR handed to the LLVM lowering "
            f"(locations stripped; null when the compile stopped before it) (`{data_header.command()}`).")
    reused = sum(1 for c in cfgs if json.dumps(c, sort_keys=True) in kept)
    if reused:
        what += (f" {reused} of them were kept from the file as an earlier run recorded them, "
                 f"the others compiled by this run (`--missing`).")
    data_header.write_jsonl(out, {"what": data_header.existing_what(out, "family-compiles", args.triton,
                                                                    len(kernels)) or what,
                                  "release": args.triton, "kind": "family-compiles"}, kernels)
    counts = {}
    for r in kernels:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    print(f"triton {args.triton}: kernels {counts} -> {out}", file=sys.stderr)
    if args.only == "kernels":
        return 1 if counts.get("broken") or counts.get("timeout") else 0
    return record_modules(args, py, short) or (1 if counts.get("broken") or counts.get("timeout") else 0)


def kept_records(path):
    """The records already at `path`, by their configuration (without the release): what
    `record --missing` keeps instead of compiling again."""
    try:
        _, records = data_header.read_jsonl(path)
    except (OSError, data_header.DataError, ValueError):
        return {}
    kept = {}
    for rec in records:
        cfg = {k: v for k, v in rec["config"].items() if k != "triton"}
        kept[json.dumps(cfg, sort_keys=True)] = {k: v for k, v in rec.items() if k != "name"}
    return kept


def record_modules(args, py, short):
    cases = modules(short)
    mods = compile_modules(py, short, cases, args.jobs)
    mout = os.path.join(args.out_dir, f"family-modules-triton-{args.triton}.jsonl")
    if all(site == "stmatrix_scratch" for site, *_ in cases):
        kinds = "a small Hopper accumulator converted to a blocked layout, the stmatrix scratch store's cases"
    else:
        kinds = ("a ttng.warp_group_dot of two shared buffers in each operand order and element type; a "
                 "convert_layout between two CTA splits, or between two CTA layouts written differently that "
                 "split the CTAs alike; a small Hopper accumulator converted to a blocked layout")
    mwhat = (f"{len(mods)} one-op TTGIR modules of families.py (`modules`: {kinds}), each compiled from its "
             f"file by the triton {args.triton} wheel (`{data_header.command()}`).")
    data_header.write_jsonl(mout, {"what": data_header.existing_what(mout, "family-modules", args.triton,
                                                                     len(mods)) or mwhat,
                                   "release": args.triton, "kind": "family-modules"}, mods)
    counts = {}
    for r in mods:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    print(f"triton {args.triton}: modules {counts} -> {mout}", file=sys.stderr)
    return 1 if counts.get("broken") or counts.get("timeout") else 0


def kernels_corpus_strip(ttgir):
    """The module without its locations (kernels_corpus/record.py's rule)."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "kernels_corpus"))
    import record as corpus_record
    return corpus_record.strip_locations(ttgir)


def emit(args):
    os.makedirs(args.dir, exist_ok=True)
    short = run_grid.triton_short(args.triton)
    for i, (site, _params, text, _cap) in enumerate(modules(short)):
        with open(os.path.join(args.dir, f"{site}-{i}.ttgir"), "w") as f:
            f.write(text)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("child")
    c.add_argument("--config", required=True)
    c.add_argument("--status", required=True)
    c.add_argument("--ttgir")
    t = sub.add_parser("try")
    t.add_argument("--triton", required=True)
    t.add_argument("--jobs", type=int, default=2)
    t.add_argument("--timeout", type=int, default=180)
    t.add_argument("--keep", help="write each TTGIR here")
    t.add_argument("config", nargs="+")
    r = sub.add_parser("record")
    r.add_argument("--triton", required=True)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--timeout", type=int, default=180)
    r.add_argument("--only", choices=("kernels", "modules"), help="record only the kernels or the modules")
    r.add_argument("--missing", action="store_true",
                   help="compile only the grid's kernels the file has no record of (a kernel added to the "
                        "grid); keep the others as recorded")
    r.add_argument("--out-dir", default=os.path.join(os.path.dirname(os.path.dirname(HERE)), "data", "compile"))
    e = sub.add_parser("emit")
    e.add_argument("--triton", required=True)
    e.add_argument("--dir", required=True)
    args = ap.parse_args()
    return {"child": child, "try": try_, "record": record, "emit": emit}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
