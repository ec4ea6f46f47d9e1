#!/usr/bin/env python3
"""Compile-outcome grids: which kernel configurations each Triton release
compiles, aborts on, or rejects.

No GPU is needed.  Each configuration is compiled with
`triton.compile(ASTSource(...), target=GPUTarget("cuda", 80 or 90, 32))`
down to a cubin, in a child process of its own (a failed C++ assertion
aborts the whole process), two children at a time, 120 s each.

Subcommands (the parent side runs under any python3; the compiles run under
the python of `tests/oracle/venv.sh VERSION`, or --python):

  sample  --sample N --seed S --out FILE [--append]
        write N configurations (JSON lines) chosen by the seeded sampler;
        --append adds them to the list already in FILE
  record  --triton VERSION --out FILE [--configs FILE | --sample N --seed S]
        compile each configuration, one JSON line of outcome per config
  check   --binary PATH --triton VERSION --sample N --seed S
        compile a fresh sample and compare with `PATH predict --batch`
  replay  --binary PATH --in FILE
        compare a recorded grid with `PATH predict --batch` (no Triton needed)
  child   (internal) compile one configuration

Files (tests/oracle/data_header.py): a header line {"header": {"what",
"release", "count", "kind", "configs"}}, kind "configs" (sample) or
"kernel-compiles" (record; "configs" names the list recorded), then one
record per line, each with a "name" derived from its configuration
(`chain-b-64x64x64-x64-bf16-w8-s2-sm90`).  Record lines:
  {"name", "config": {"pattern", "m", "n", "k", "x", "dtype", "num_warps",
              "num_stages", "arch", ["num_ctas",] "triton"},
   "outcome": "ok" | "abort" | "error" | "timeout" | "broken",
   "message": the key line (see key_line), "signal": N or null,
   "seconds": t, "stage": the compiler stage running at the end,
   "exception": the Python exception's last line (errors only),
   "stderr_tail": the last lines of the child's stderr}

check / replay print disagreements to stderr and end with the line
`N passed, M failed[, K undecided]`; the exit status is 0 when all agree,
1 otherwise (a disagreement, a timeout in Triton's passes, or anything
that could not run). Undecided: a compile that ran out of time in LLVM's back end (PTX or
AMDGCN), after every Triton pass, where the model answered `ok`; the
status is 1 only when these outnumber the agreements.
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
import data_header  # noqa: E402  (the data files' header and record names)
from harness import child as children, venvs  # noqa: E402

CONFIG_KEYS = ("pattern", "m", "n", "k", "x", "dtype", "num_warps", "num_stages", "arch", "triton")
# Written (after "arch") only when a configuration list gives it: lists and
# grids recorded before it existed stay as they are, with one CTA.
OPTIONAL_KEYS = ("num_ctas", )
TIMEOUT = 120
TAIL_LINES = 5

# ------------------------------------------------------------------ sampling

PATTERNS = ("dot", "chain-a", "chain-b", "inductor-3d")
CHAINS = ("chain-a", "chain-b")
# Patterns without a dot: sizes from 1, no K for a scan, 16- and 32-bit
# element types (`--spread` draws them).
NO_DOT = ("scan", "gather")
NO_K = ("scan", )
SMALL_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
NO_DOT_DTYPES = ("fp16", "bf16", "fp32")
# Flash-attention's loop and the descriptor matmul (AMD targets only):
# 16-bit operands.
ATTENTION = ("attention", "attention-bias", "desc-dot")
ATTENTION_DTYPES = ("fp16", "bf16")
SIZES = (16, 32, 64, 128, 256)
WARPS = (1, 2, 4, 8, 16, 32)
STAGES = (1, 2, 3, 4)
DTYPES = ("fp16", "bf16", "fp32", "fp8e4nv")
# Every target a configuration can name: NVIDIA compute capabilities, and
# AMD's CDNA (gfx90a MI200, gfx942 MI300, gfx950 MI350: wave 64) and RDNA
# (gfx1100 RX 7900, gfx1201 RX 9070, gfx1250: wave 32) processors.
ARCHS = ("sm80", "sm86", "sm89", "sm90", "sm100", "sm120", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201",
         "gfx1250")


def make_config(pattern, m, n, k, x, dtype, warps, stages, arch, num_ctas=None):
    cfg = {
        "pattern": pattern, "m": m, "n": n, "k": None if pattern in NO_K else k,
        "x": x if pattern in CHAINS else None, "dtype": dtype, "num_warps": warps, "num_stages": stages, "arch": arch
    }
    if num_ctas is not None:
        cfg["num_ctas"] = num_ctas
    return cfg


def config_key(cfg):
    return tuple(cfg.get(k) for k in CONFIG_KEYS if k != "triton") + (cfg.get("num_ctas") or 1, )


def pinned_configs():
    """Configurations every sample contains: the known trouble spots."""
    out = []
    # FLA's shape and its mirror on Hopper: 64x64 products with 8/16 warps
    # give wgmma instruction N = 32/16 (< the 64-column swizzle chunk);
    # 4 warps (N = 64) for contrast.
    for pat in ("chain-b", "chain-a"):
        for dt in ("bf16", "fp16"):
            for w in (4, 8, 16):
                out.append(make_config(pat, 64, 64, 64, 64, dt, w, 2, "sm90"))
    out.append(make_config("chain-b", 64, 64, 64, 64, "bf16", 8, 1, "sm90"))
    out.append(make_config("chain-b", 64, 64, 64, 64, "bf16", 8, 3, "sm90"))
    out.append(make_config("chain-b", 64, 128, 64, 64, "bf16", 8, 2, "sm90"))
    out.append(make_config("chain-a", 64, 128, 64, 64, "fp16", 8, 2, "sm90"))
    # 3.1's Hopper conversion: instruction N = 8 (128x32 with 32 warps; a
    # chain with N = 16 and 16 warps)
    out.append(make_config("dot", 128, 32, 64, None, "fp16", 32, 1, "sm90"))
    out.append(make_config("dot", 128, 32, 64, None, "bf16", 32, 2, "sm90"))
    out.append(make_config("chain-b", 64, 16, 64, 64, "fp16", 16, 2, "sm90"))
    out.append(make_config("chain-a", 64, 16, 64, 64, "bf16", 16, 2, "sm90"))
    out.append(make_config("chain-b", 64, 16, 64, 64, "bf16", 8, 2, "sm90"))
    # triton #5882: XBLOCK = YBLOCK = 128, R0_BLOCK = 32, fp16, 4 warps
    for arch in ("sm80", "sm90"):
        for st in (1, 2):
            out.append(make_config("inductor-3d", 128, 128, 32, None, "fp16", 4, st, arch))
    # fp8 on Ampere: should be rejected
    out.append(make_config("dot", 64, 64, 64, None, "fp8e4nv", 4, 1, "sm80"))
    out.append(make_config("chain-b", 64, 64, 64, 64, "fp8e4nv", 4, 2, "sm80"))
    return out


def wchoice(rng, values, weights):
    return rng.choices(values, weights=weights, k=1)[0]


def draw(rng):
    """One configuration.  Four regions: Hopper chained products (the
    stmatrix / instruction-N family), Hopper single products (instruction
    N = 8), the inductor-3d loop (pipeliner, rank-3 shared orders), and a
    sparse sweep of everything else."""
    region = wchoice(rng, ("hchain", "hdot", "ind", "broad"), (30, 15, 15, 40))
    if region == "hchain":
        pat = wchoice(rng, CHAINS, (2, 3))
        dt = wchoice(rng, DTYPES, (45, 40, 8, 7))
        mid = (16, 32, 64, 128, 256)
        mw = (1, 4, 6, 4, 1)
        m, n, k, x = (wchoice(rng, mid, mw) for _ in range(4))
        w = wchoice(rng, WARPS, (0, 1, 4, 5, 4, 1))
        st = wchoice(rng, STAGES, (2, 4, 2, 1))
        return make_config(pat, m, n, k, x, dt, w, st, "sm90")
    if region == "hdot":
        dt = wchoice(rng, DTYPES, (40, 35, 13, 12))
        m = wchoice(rng, SIZES, (1, 2, 4, 4, 2))
        n = wchoice(rng, SIZES, (4, 4, 4, 3, 1))
        k = wchoice(rng, SIZES, (2, 4, 5, 3, 1))
        w = wchoice(rng, WARPS, (0, 1, 4, 4, 4, 3))
        st = wchoice(rng, STAGES, (3, 3, 1, 1))
        return make_config("dot", m, n, k, None, dt, w, st, "sm90")
    if region == "ind":
        arch = wchoice(rng, ("sm80", "sm90"), (7, 3))
        dt = wchoice(rng, DTYPES, (50, 30, 15, 5 if arch == "sm90" else 1))
        m = wchoice(rng, SIZES, (1, 4, 5, 4, 1))
        n = wchoice(rng, SIZES, (1, 4, 5, 4, 1))
        k = wchoice(rng, SIZES, (4, 5, 4, 1, 0))
        w = wchoice(rng, WARPS, (1, 3, 5, 4, 1, 0))
        st = wchoice(rng, STAGES, (2, 5, 3, 2))
        return make_config("inductor-3d", m, n, k, None, dt, w, st, arch)
    arch = wchoice(rng, ("sm80", "sm90"), (1, 1))
    pat = wchoice(rng, PATTERNS, (3, 2, 2, 2))
    dt = wchoice(rng, DTYPES, (35, 30, 22, 13 if arch == "sm90" else 3))
    m, n, k, x = (wchoice(rng, SIZES, (3, 4, 5, 4, 1)) for _ in range(4))
    w = wchoice(rng, WARPS, (2, 2, 4, 4, 3, 1))
    st = wchoice(rng, STAGES, (1, 1, 1, 1))
    return make_config(pat, m, n, k, x, dt, w, st, arch)


def draw_spread(rng, patterns, archs, ctas):
    """One configuration spread evenly over the given patterns, targets and
    CTA counts (one CTA below sm90, where Triton 3.5 and later refuse more),
    every dtype, size, warp count and stage count equally likely; patterns
    without a dot take sizes from 1 and 16- or 32-bit elements."""
    pat = rng.choice(patterns)
    arch = rng.choice(archs)
    n_ctas = rng.choice(ctas) if arch.startswith("sm") and int(arch[2:]) >= 90 else 1
    sizes = SMALL_SIZES if pat in NO_DOT else SIZES
    dt = rng.choice(NO_DOT_DTYPES if pat in NO_DOT else ATTENTION_DTYPES if pat in ATTENTION else DTYPES)
    m, n, k, x = (rng.choice(sizes) for _ in range(4))
    w = rng.choice(WARPS)
    st = rng.choice(STAGES)
    return make_config(pat, m, n, k, x, dt, w, st, arch, n_ctas)


def draw_uniform(rng):
    """One configuration with every pattern, target, dtype, size, warp
    count and stage count equally likely: the regions `draw` weights
    toward the known failures get no more than their share."""
    pat = rng.choice(PATTERNS)
    arch = rng.choice(("sm80", "sm90"))
    dt = rng.choice(DTYPES)
    m, n, k, x = (rng.choice(SIZES) for _ in range(4))
    w = rng.choice(WARPS)
    st = rng.choice(STAGES)
    return make_config(pat, m, n, k, x, dt, w, st, arch)


MAX_ELEMS_PER_THREAD = 1024


def too_heavy(cfg):
    """Tiles far beyond what a kernel would use (more than 1024 elements of
    some operand or result per thread) make LLVM and ptxas take minutes;
    the sampler redraws them."""
    m, n, k, x = cfg["m"], cfg["n"], cfg["k"] or 1, cfg["x"] or 1
    tiles = [m * k, k * n, m * n]
    if cfg["pattern"] == "chain-a":
        tiles += [n * x, m * x]
    if cfg["pattern"] == "chain-b":
        tiles += [x * m, x * n]
    if cfg["pattern"] in ATTENTION:
        # a pipelined loop of dots: every tile at most 128 elements a thread
        # (LLVM takes minutes over bigger ones on AMD)
        lanes = 64 if cfg["arch"].startswith("gfx9") else 32
        return max(m * n, m * k, n * k) > 128 * lanes * cfg["num_warps"]
    if cfg["pattern"] not in NO_DOT and rdna_fma(cfg):
        # the dot stays on FMA, M*N*K multiply-adds unrolled over the
        # threads, which LLVM takes minutes over: at most 4096 a thread
        dots = [(m, n, k)]
        if cfg["pattern"] == "chain-a":
            dots.append((m, x, n))
        if cfg["pattern"] == "chain-b":
            dots.append((x, n, m))
        return max(a * b * c for a, b, c in dots) > 4096 * 32 * cfg["num_warps"]
    return max(tiles) > MAX_ELEMS_PER_THREAD * 32 * cfg["num_warps"]


def rdna_fma(cfg):
    """Whether a dot of `cfg` runs on FMA on an RDNA target: no fp32 WMMA
    anywhere, no fp8 WMMA on gfx11."""
    arch, dtype = cfg["arch"], cfg["dtype"]
    return arch.startswith("gfx1") and (dtype == "fp32" or (arch.startswith("gfx11") and dtype.startswith("fp8")))


def sample_configs(n, seed, pinned=True, uniform=False, dtype=None, arch=None, spread=None):
    """`n` distinct configurations drawn with `seed`.  With `dtype` (or
    `arch`), every drawn configuration takes that dtype (or target) instead
    (the draws themselves, and so every other parameter, are those of the
    same seed without it), and the pinned ones are left out.  `spread`
    (patterns, targets, CTA counts) draws with `draw_spread` instead, and
    leaves the pinned ones out."""
    rng = random.Random(seed)
    sampler = draw_uniform if uniform else draw
    if spread is not None:
        sampler = lambda r: draw_spread(r, *spread)
        pinned = False

    def drawn(rng):
        cfg = sampler(rng)
        if dtype is not None:
            cfg["dtype"] = dtype
        if arch is not None:
            cfg["arch"] = arch
        return cfg

    if dtype is not None or arch is not None:
        pinned = False
    out, seen = [], set()
    for cfg in (pinned_configs() if pinned else []):
        if config_key(cfg) not in seen:
            seen.add(config_key(cfg))
            out.append(cfg)
    tries = 0
    while len(out) < n:
        tries += 1
        if tries > 100 * n + 1000:
            raise SystemExit("sampler: cannot find enough distinct configurations")
        cfg = drawn(rng)
        if config_key(cfg) in seen or too_heavy(cfg):
            continue
        seen.add(config_key(cfg))
        out.append(cfg)
    return out[:n]


def read_configs(path):
    """The configurations of a configuration list or a recorded grid (a
    header, if any, and names are skipped; a hand-written list needs
    neither)."""
    _, records = data_header.read_jsonl(path, require_header=False)
    return [{k: v for k, v in r.get("config", r).items() if k != "name"} for r in records]


def triton_short(version):
    return ".".join(version.split(".")[:2])


def ordered(cfg, triton):
    """The config with exactly CONFIG_KEYS, in that order, and `num_ctas`
    (after `arch`) if the configuration gives it."""
    d = {k: cfg.get(k) for k in CONFIG_KEYS if k != "triton"}
    for k in OPTIONAL_KEYS:
        if cfg.get(k) is not None:
            d[k] = cfg[k]
    d["triton"] = triton
    if d["pattern"] not in CHAINS:
        d["x"] = None
    if d["pattern"] in NO_K:
        d["k"] = None
    return d


# ---------------------------------------------------------------- child side


def hook_stages(status_path, ptxas):
    """Write the name of each compiler stage to status_path before it runs.
    Unless `ptxas`, the last stage (PTX -> cubin by ptxas) is replaced by
    one that returns no binary: layout decisions are all made before it,
    and ptxas alone takes minutes on the largest tiles. On an AMD target the
    last stage (AMDGCN -> hsaco, linked by ROCm's `ld.lld`, which this
    machine need not have) is always replaced, and so is the backend's
    cache key, which 3.4 asks that linker for."""
    import triton.compiler.compiler as cc
    orig = cc.make_backend

    def make_backend(target):
        backend = orig(target)
        orig_add = backend.add_stages
        if target.backend == "hip":
            backend.hash = lambda: f"{target}"

        def add_stages(stages, *rest, **kw):
            orig_add(stages, *rest, **kw)
            if not ptxas and "cubin" in stages:
                stages["cubin"] = lambda src, metadata: b""
            if "hsaco" in stages:
                stages["hsaco"] = lambda src, metadata: b""
            for ext, fn in list(stages.items()):

                def run(src, metadata, _fn=fn, _ext=ext):
                    with open(status_path, "w") as f:
                        f.write(_ext)
                    return _fn(src, metadata)

                stages[ext] = run

        backend.add_stages = add_stages
        return backend

    cc.make_backend = make_backend


def child(args):
    try:  # a failure here is ours, not the compiler's: exit SETUP_FAILED
        cfg = json.loads(args.config)
        if HERE not in sys.path:
            sys.path.insert(0, HERE)
        import grid_kernels
        import triton
        from triton.backends.compiler import GPUTarget
        if args.status:
            hook_stages(args.status, args.ptxas)
            with open(args.status, "w") as f:
                f.write("ast")  # until the first stage starts: building the TTIR from Python
        fn, spec = grid_kernels.kernel_spec(cfg)
        src = grid_kernels.make_ast_source(fn, spec)
        target = GPUTarget(*grid_kernels.gpu_target(cfg["arch"]))
        opts = dict(num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
        if cfg.get("num_ctas") is not None:
            opts["num_ctas"] = cfg["num_ctas"]
    except Exception as e:
        import traceback
        traceback.print_exc()
        print(EXC_MARK + exception_summary(e), file=sys.stderr, flush=True)
        return SETUP_FAILED
    try:
        triton.compile(src, target=target, options=opts)
    except Exception as e:
        import traceback
        traceback.print_exc()
        print(EXC_MARK + exception_summary(e), file=sys.stderr, flush=True)
        return 1
    return 0


EXC_MARK = "RUN_GRID_EXCEPTION: "
SETUP_FAILED = 3  # the child's exit status when it could not even start compiling


def exception_summary(e):
    """'Type: message' of the innermost cause of `e` (a CompilationError
    wraps the real error as __cause__ in some releases), the message cut to
    its last telling line."""
    while e.__cause__ is not None:
        e = e.__cause__
    lines = [l.rstrip() for l in str(e).splitlines() if l.strip() and not l.strip().startswith("^")]
    msg = lines[-1].strip() if lines else ""
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


# --------------------------------------------------------------- parent side

PY_EXC = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)|AssertionError|KeyError)\b(: .*)?$")


def strip_path(line):
    """'python: /abs/path/lib/Tools/LinearLayout.cpp:562: ...' ->
    'LinearLayout.cpp:562: ...' (the first absolute path before a
    file:line is cut to its base name)."""
    line = re.sub(r"^(?:[^\s:]+: )?/(?:[^\s:]*/)?([^\s/:]+:\d+:)", r"\1", line)
    # other absolute source paths with a line number (MLIR quotes the file
    # in `loc("/abs/k.py":63:18)`): base name only
    return re.sub(r"/(?:[\w.+-]+/)+([\w.+-]+\"?:\d+)", r"\1", line)


def python_exception(lines):
    """The last line of the last Python traceback in `lines` (a list of
    stripped stderr lines), or None."""
    start = None
    for i, l in enumerate(lines):
        if l.startswith("Traceback (most recent call last)"):
            start = i
    if start is None:
        return None
    # the exception line is the first line after the frames that looks like
    # 'SomeError: ...'; a multi-line message ends at the end of stderr, and
    # its last line is the telling one.
    exc_at = None
    for i in range(start + 1, len(lines)):
        if PY_EXC.match(lines[i]) and not lines[i].startswith("File "):
            exc_at = i
    if exc_at is None:
        return lines[-1] if lines else None
    first = lines[exc_at]
    rest = [l for l in lines[exc_at + 1:] if l.strip() and not l.strip().startswith("^")]
    if first.endswith(":") or (rest and first.split(":", 1)[0].endswith("CompilationError")):
        # CompilationError: 'at 12:8:' + source lines + the real message last
        return (first.split(":", 1)[0] + ": " + rest[-1].strip()) if rest else first
    return first


def marked_exception(lines):
    for l in reversed(lines):
        if l.startswith(EXC_MARK):
            return l[len(EXC_MARK):].strip()
    return None


def key_line(outcome, stderr):
    """The line that says what went wrong: a failed assertion if one was
    printed, else an 'LLVM ERROR', else an uncaught C++ exception
    ('terminate called after throwing ...'), else an MLIR 'error:'
    diagnostic, else the Python exception's last line, else the last line
    of stderr."""
    lines = [l.rstrip() for l in stderr.splitlines() if l.strip()]
    for i, l in enumerate(lines):
        if l.startswith("UNREACHABLE executed at"):
            # llvm_unreachable prints its message on the line before
            before = lines[i - 1].strip() + " -- " if i > 0 else ""
            return (before + strip_path(l.strip()))[:500]
    for pat in (r"Assertion .* failed", r"LLVM ERROR", r"terminate called after throwing", r"(^|\s)error: "):
        for l in lines:
            if re.search(pat, l):
                return strip_path(l.strip())[:500]
    exc = marked_exception(lines) or python_exception(lines)
    if exc:
        return exc[:500]
    return (lines[-1].strip() if lines else "")[:500]


def stderr_tail(lines):
    """The last TAIL_LINES lines of stderr, without Python traceback frames
    (kept: the 'Traceback' header's exception line) or our marker line, with
    absolute paths of the repository made relative."""
    keep, in_tb = [], False
    for l in lines:
        if l.startswith(EXC_MARK):
            continue
        if l.startswith("Traceback (most recent call last)"):
            in_tb = True
            continue
        if in_tb and (l.startswith(" ") or l.startswith("\t")):
            continue
        in_tb = False
        keep.append(strip_path(l).replace(REPO + "/", "")[:500])
    return keep[-TAIL_LINES:]


def run_child(py, cfg, work, timeout=TIMEOUT, ptxas=False, script=None, extra=()):
    """Compile one config in a child (`script child --config JSON ...`,
    run_grid.py by default); return the record (without config)."""
    tag = "-".join(str(v) for v in cfg.values())
    status = os.path.join(work, tag + ".status")
    cache = os.path.join(work, "cache-" + tag)
    env = dict(os.environ)
    env["TRITON_CACHE_DIR"] = cache
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("MLIR_ENABLE_DUMP", None)
    cmd = [py, script or os.path.abspath(__file__), "child", "--config", json.dumps(cfg), "--status", status, *extra]
    if ptxas:
        cmd.append("--ptxas")
    # a timeout also ends ptxas (a grandchild): harness.child.run kills the group
    ended = children.run(cmd, env=env, timeout=timeout, preexec=None)
    rc, err = ended.returncode, ended.stderr
    secs = round(ended.seconds, 2)
    stage = open(status).read().strip() if os.path.exists(status) else None
    for path in (status, ):
        if os.path.exists(path):
            os.remove(path)
    shutil.rmtree(cache, ignore_errors=True)
    lines = [l.rstrip() for l in err.splitlines() if l.strip()]
    rec = {"outcome": None, "message": "", "signal": None, "seconds": secs, "stage": stage}
    if rc == 0:
        rec["outcome"] = "ok"
    elif rc is None:
        rec["outcome"] = "timeout"
        rec["message"] = f"no result after {timeout} s"
    elif rc == SETUP_FAILED:
        rec["outcome"] = "broken"
        rec["message"] = "the child could not set up the compile: " + (marked_exception(lines) or "")
    elif rc < 0:
        rec["outcome"] = "abort"
        rec["signal"] = -rc
        rec["message"] = key_line("abort", err) or f"killed by signal {-rc}"
    else:
        rec["outcome"] = "error"
        rec["message"] = key_line("error", err)
        rec["exception"] = marked_exception(lines) or python_exception(lines) or (lines[-1] if lines else "")
    if rc != 0:
        rec["stderr_tail"] = stderr_tail(lines)
    else:
        rec["stage"] = None
    return rec


def resolve_python(args):
    if getattr(args, "python", None):
        return args.python
    return venvs.python(args.triton)


installed_version = venvs.installed_version


def run_pool(count, job, jobs, label, describe, on_result=None, prefix="run_grid-"):
    """Run job(work, i) -> record for every i in range(count), `jobs` at a
    time, in a scratch directory `work` removed afterwards. Print one line
    per finished job (with describe(i, record)) and call on_result(i,
    record) as each finishes, so that nothing is lost on an interrupt.
    Return the records in order and the seconds taken."""
    work = tempfile.mkdtemp(prefix=prefix)
    t0 = time.time()
    records = [None] * count
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = {ex.submit(job, work, i): i for i in range(count)}
            for done, fut in enumerate(concurrent.futures.as_completed(futs), 1):
                i = futs[fut]
                rec = records[i] = fut.result()
                if on_result:
                    on_result(i, rec)
                extra = "" if rec["outcome"] == "ok" else "  " + rec["message"][:160]
                eta = (time.time() - t0) / done * (count - done)
                print(f"[{label} {done}/{count} eta {eta/60:.0f}m] {rec['outcome']:7} {rec['seconds']:5.1f}s "
                      f"{describe(i, rec)}{extra}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return records, time.time() - t0


def compile_all(py, configs, jobs, timeout, on_result, label="", ptxas=False):
    """Compile every config (each with its 'triton' key set) in children,
    `jobs` at a time; call on_result(index, record) as each one finishes."""
    def job(work, i):
        return {"config": configs[i], **run_child(py, configs[i], work, timeout, ptxas)}

    def describe(i, _rec):
        c = configs[i]
        return (data_header.config_name(c))

    records, secs = run_pool(len(configs), job, jobs, label, describe, on_result)
    counts = {}
    for rec in records:
        counts[rec["outcome"]] = counts.get(rec["outcome"], 0) + 1
    return counts, secs


def config_list(configs, out):
    """The header's `configs` for a grid recorded from the file `configs`
    into `out`: the configuration list's path from `out`'s directory (that
    of the list a recorded grid names, when `configs` is one), or None for
    a list without a header."""
    try:
        header, _ = data_header.read_jsonl(configs, require_header=False)
    except (OSError, ValueError, data_header.DataError):
        return None
    if header is None:
        return None
    if header["kind"] == "kernel-compiles" and header.get("configs"):
        configs = os.path.join(os.path.dirname(os.path.abspath(configs)), header["configs"])
    elif header["kind"] != "configs":
        return None
    return os.path.relpath(os.path.abspath(configs), os.path.dirname(os.path.abspath(out)))


def record(args):
    py = resolve_python(args)
    version = installed_version(py)
    if args.triton and version != args.triton:
        raise SystemExit(f"run_grid: {py} has triton {version}, not {args.triton}")
    short = triton_short(version)
    if args.configs:
        configs = read_configs(args.configs)
    elif args.sample:
        configs = sample_configs(args.sample, args.seed, uniform=args.uniform, dtype=args.dtype, arch=args.arch,
                                 spread=spread_of(args))
    else:
        raise SystemExit("record: give --configs FILE or --sample N")
    configs = [ordered(c, short) for c in configs]
    done = {}
    partial = args.out + ".partial"
    if args.resume and os.path.exists(partial):
        for line in open(partial):
            if line.strip():
                r = json.loads(line)
                done[config_key(r["config"])] = r
    todo = [c for c in configs if config_key(c) not in done]
    print(f"triton {version} ({py}): {len(configs)} configs, {len(configs) - len(todo)} already done, "
          f"{args.jobs} at a time", file=sys.stderr, flush=True)
    with open(partial, "a" if args.resume else "w") as pf:

        def on_result(i, rec):
            done[config_key(rec["config"])] = rec
            pf.write(json.dumps(rec) + "\n")
            pf.flush()

        counts, secs = compile_all(py, todo, args.jobs, args.timeout, on_result, label=short,
                                    ptxas=args.ptxas)
    listed = config_list(args.configs, args.out) if args.configs else None
    source = (f"the {len(configs)} kernel configurations of {listed or os.path.basename(args.configs)}"
              if args.configs else f"{len(configs)} kernel configurations drawn by the sampler")
    what = data_header.existing_what(args.out, "kernel-compiles", version, len(configs)) or (
        f"Outcomes (ok / abort / error, with the key message) of compiling {source} with the triton {version} "
        f"wheel on the CPU, {depth(configs, args.ptxas)} (`{data_header.command()}`).")
    data_header.write_jsonl(args.out, {"what": what, "release": version, "kind": "kernel-compiles", "configs": listed},
                            [done[config_key(c)] for c in configs])
    os.remove(partial)
    total = {}
    for r in done.values():
        total[r["outcome"]] = total.get(r["outcome"], 0) + 1
    print(f"triton {version}: {total} ({len(todo)} compiled in {secs:.0f} s) -> {args.out}", file=sys.stderr)
    if total.get("broken") or total.get("timeout"):
        print("record: some configurations did not give a result (broken/timeout)", file=sys.stderr)
        return 1
    return 0


def depth(configs, ptxas):
    """How far the compiles of `configs` go, in words."""
    if all(c["arch"].startswith("gfx") for c in configs):
        return "down to AMDGCN (no code object linked)"
    return "through ptxas" if ptxas else "down to PTX"


def spread_of(args):
    """(patterns, targets, CTA counts) for `--spread`, or None."""
    if not getattr(args, "spread", False):
        return None
    patterns = tuple(args.patterns.split(",")) if args.patterns else PATTERNS
    archs = tuple(args.archs.split(",")) if args.archs else ("sm90", "sm100", "sm120")
    ctas = tuple(int(c) for c in args.num_ctas.split(",")) if args.num_ctas else (1, 2, 4)
    return patterns, archs, ctas


def write_sample(args):
    configs = sample_configs(args.sample, args.seed, uniform=args.uniform, dtype=args.dtype, arch=args.arch,
                             spread=spread_of(args))
    configs = [{k: v for k, v in ordered(c, None).items() if k != "triton"} for c in configs]
    what = f"{len(configs)} kernel configurations drawn by the seeded sampler (`{data_header.command()}`)."
    if args.append:
        # A list made of several draws: the earlier ones, then these.
        header, before = data_header.read_jsonl(args.out)
        if header["kind"] != "configs":
            raise SystemExit(f"sample --append: {args.out} is a {header['kind']} file, not a configuration list")
        taken = {config_key(c) for c in before}
        again = [c for c in configs if config_key(c) in taken]
        if again:
            raise SystemExit(f"sample --append: {len(again)} of these configurations are already in {args.out}")
        what = f"{header['what']} Then {len(configs)} more (`{data_header.command()}`)."
        configs = [{k: v for k, v in c.items() if k != "name"} for c in before] + configs
    else:
        what = data_header.existing_what(args.out, "configs", None, len(configs)) or what
    data_header.write_jsonl(args.out, {"what": what, "release": None, "kind": "configs"}, configs)
    print(f"{len(configs)} configs -> {args.out}", file=sys.stderr)
    return 0


def predict(binary, configs):
    """Run `binary predict --batch` on the configs; a list of answers, or
    raise RuntimeError."""
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise RuntimeError(f"no executable binary at {binary}")
    inp = "".join(json.dumps(ordered(c, c["triton"])) + "\n" for c in configs)
    p = children.run([binary, "predict", "--batch"], input=inp, timeout=600)
    if p.timed_out:
        raise RuntimeError(f"{binary} predict --batch gave no answer in 600 s")
    # 1 means that some configuration is predicted to fail (the binary's
    # "found a failure"); 2 and anything else, that it could not answer.
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{binary} predict --batch exited with {p.returncode}: {p.stderr.strip()[-2000:]}")
    out = [l for l in p.stdout.splitlines() if l.strip()]
    if len(out) != len(configs):
        raise RuntimeError(f"{binary} predict --batch gave {len(out)} answers for {len(configs)} configs")
    answers = []
    for l in out:
        a = json.loads(l)
        if a.get("verdict") not in ("ok", "abort", "error"):
            raise RuntimeError(f"bad answer from {binary}: {l}")
        answers.append(a)
    return answers


# The stages that turn LLVM IR into machine code (NVPTX's and AMDGPU's
# instruction selection, scheduling and register allocation): they run after
# every pass of Triton's own, so a compile that runs out of time there has
# built and lowered every layout without failing.
BACKEND_STAGES = ("ptx", "amdgcn")


def undecided(rec, ans):
    """Why Triton gave no verdict the model's answer can be held to, or None.
    Only a timeout in LLVM's back end against an `ok` answer: Triton's own
    passes all succeeded, as the model said, and whether LLVM would have
    finished is not a layout question (3.6.0's gfx1250 VOPD pairing ran more
    than ten minutes on one fp8 tile, notes/finder-agreement.md). A predicted
    failure, or a timeout in Triton's own passes, stays a disagreement."""
    if rec["outcome"] == "timeout" and rec.get("stage") in BACKEND_STAGES and ans["verdict"] == "ok":
        return f"no result after {rec['seconds']} s in stage {rec['stage']} (LLVM's back end), every Triton pass done"
    return None


def compare(records, answers):
    """Print each disagreement and each undecided configuration to stderr;
    return (passed, failed, undecided) counts."""
    passed = failed = unknown = 0
    for rec, ans in zip(records, answers):
        if rec["outcome"] == ans["verdict"]:
            passed += 1
            continue
        name = (f"{rec['name']} " if rec.get("name") else "") + json.dumps(rec["config"])
        why = undecided(rec, ans)
        if why:
            unknown += 1
            print(f"UNDECIDED {name}\n  triton: {why}\n  ours:   ok", file=sys.stderr)
            continue
        failed += 1
        print(
            f"DISAGREE {name}" +
            f"\n  triton: {rec['outcome']}: {rec.get('message', '')}" +
            f"\n  ours:   {ans['verdict']}: {(ans.get('failure') or {}).get('site')} "
            f"{(ans.get('failure') or {}).get('triton_message')}", file=sys.stderr)
    return passed, failed, unknown


def summary(passed, failed, unknown):
    """The last line of check and replay, and their exit status: 1 for any
    disagreement, and when most of the sample gave no verdict (a check that
    mostly could not run has not passed)."""
    line = f"{passed} passed, {failed} failed" + (f", {unknown} undecided" if unknown else "")
    print(line)
    return 0 if failed == 0 and unknown <= passed else 1


def check(args):
    try:
        py = resolve_python(args)
        version = installed_version(py)
        short = triton_short(version)
        configs = [ordered(c, short) for c in sample_configs(args.sample, args.seed, pinned=False, uniform=args.uniform,
                                                            dtype=args.dtype, arch=args.arch, spread=spread_of(args))]
        answers = predict(args.binary, configs)  # first: a broken binary fails fast
    except (RuntimeError, SystemExit, ValueError) as e:
        print(f"check: cannot run: {e}", file=sys.stderr)
        print(f"0 passed, {args.sample} failed")
        return 1
    records = [None] * len(configs)

    def on_result(i, rec):
        records[i] = rec

    compile_all(py, configs, args.jobs, args.timeout, on_result, label=short, ptxas=args.ptxas)
    return summary(*compare(records, answers))


def replay(args):
    try:
        header, records = data_header.read_jsonl(args.inp)
        if header["kind"] != "kernel-compiles":
            raise data_header.DataError(f"a {header['kind']} file, not kernel-compiles")
    except (OSError, ValueError, data_header.DataError) as e:
        print(f"replay: cannot read {args.inp}: {e}", file=sys.stderr)
        print("0 passed, 0 failed")
        return 1
    try:
        answers = predict(args.binary, [r["config"] for r in records])
    except (RuntimeError, ValueError) as e:
        print(f"replay: cannot run: {e}", file=sys.stderr)
        print(f"0 passed, {len(records)} failed")
        return 1
    return summary(*compare(records, answers))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("sample", help="write a seeded sample of configurations")
    s.add_argument("--sample", type=int, required=True)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--out", required=True)
    s.add_argument("--append", action="store_true", help="add the draws to the configuration list already in OUT")

    def common(p):
        p.add_argument("--triton", required=True, help="release, e.g. 3.2.0 (venv from tests/oracle/venv.sh)")
        p.add_argument("--python", help="use this python instead of venv.sh's")
        p.add_argument("--jobs", type=int, default=2, help="children at a time (default 2)")
        p.add_argument("--timeout", type=int, default=TIMEOUT, help=f"seconds per compile (default {TIMEOUT})")
        p.add_argument("--ptxas", action="store_true", help="also assemble the PTX with ptxas (slow on big tiles)")

    r = sub.add_parser("record", help="compile configurations, write outcomes")
    common(r)
    r.add_argument("--out", required=True)
    r.add_argument("--configs", help="JSON lines of configs (or of records)")
    r.add_argument("--sample", type=int)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--resume", action="store_true", help="keep results from OUT.partial of an interrupted run")

    c = sub.add_parser("check", help="fresh sample: Triton against PATH predict --batch")
    common(c)
    c.add_argument("--binary", required=True)
    c.add_argument("--sample", type=int, required=True)
    c.add_argument("--seed", type=int, required=True)

    p = sub.add_parser("replay", help="recorded grid against PATH predict --batch")
    p.add_argument("--binary", required=True)
    p.add_argument("--in", dest="inp", required=True)

    ch = sub.add_parser("child", help="(internal) compile one config")
    ch.add_argument("--config", required=True)
    ch.add_argument("--status")
    ch.add_argument("--ptxas", action="store_true", help="run ptxas too")

    for p in (s, r, c):
        p.add_argument("--uniform", action="store_true",
                       help="draw every parameter uniformly instead of around the known failures")
        p.add_argument("--dtype", choices=DTYPES + ("fp8e5", "int8"),
                       help="give every drawn configuration this dtype (fp8e5 and int8 are drawn only this way)")
        p.add_argument("--arch", choices=ARCHS,
                       help="give every drawn configuration this target (the samplers draw only sm80 and sm90)")
        p.add_argument("--spread", action="store_true",
                       help="draw evenly over --patterns, --archs and --num-ctas (every other parameter uniform; "
                       "patterns without a dot take sizes from 1)")
        p.add_argument("--patterns", help="with --spread: comma-separated patterns (default the four dot patterns)")
        p.add_argument("--archs", help="with --spread: comma-separated targets (default sm90,sm100,sm120)")
        p.add_argument("--num-ctas", help="with --spread: comma-separated CTA counts (default 1,2,4)")
    args = ap.parse_args()
    return {"sample": write_sample, "record": record, "check": check, "replay": replay, "child": child}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
