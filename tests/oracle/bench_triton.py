#!/usr/bin/env python3
"""Times Triton's LinearLayout (Python binding) against our criterion benches,
and Gluon's to_linear_layout against our attribute conversions.

    PY=$(bash tests/oracle/venv.sh 3.9.0)
    "$PY" tests/oracle/bench_triton.py            # check inputs, time Triton, run cargo bench, tables
    "$PY" tests/oracle/bench_triton.py --no-cargo-bench   # reuse target/criterion/**/new/estimates.json
    "$PY" tests/oracle/bench_triton.py --only gluon       # just the conversions

Both sides build the same layouts from the same xorshift generator (see
benches/algebra.rs). Before timing anything the script runs the bench in its
dump mode (ALGEBRA_BENCH_DUMP=1), checks that the Rust inputs equal the ones
built here, and that every result of ours equals Triton's answer.

Triton is timed with timeit (best of several repeats). The cost of a trivial
binding call (reading the `num_in_dims` property) is measured the same way and
subtracted. Our numbers are criterion's median estimates. The comparison runs
in `--rounds` rounds (default 3), each timing Triton and then running
criterion, and each side keeps its best round per cell, so both are sampled
over the same stretch of time.

Conversions: benches/finder.rs dumps its attribute texts, shapes and our
layouts (FINDER_BENCH_DUMP=1). Each text is parsed by Triton's MLIR parser (as
the type of a function argument), read back as a Gluon layout, and converted
with `GluonOpBuilder.to_linear_layout`; the script checks the layout equals
ours before timing. The overhead subtracted there is a trivial builder call
(`get_int8_ty`).

Exit status: 0 on success, 1 when the inputs or results disagree, 2 when
Triton cannot be imported or the bench cannot be run.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import timeit

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIZES = [8, 16, 32, 64]
OPS = ["apply", "product", "compose", "invert_and_compose", "pseudoinvert",
       "reshape_outs", "from_bases"]
M64 = (1 << 64) - 1

# ---------------------------------------------------------------------------
# The generator: keep in step with benches/algebra.rs.
# ---------------------------------------------------------------------------


class XorShift:
    """xorshift64 (13, 7, 17), as in benches/algebra.rs."""

    def __init__(self, seed: int):
        s = (seed * 0x9E3779B97F4A7C15 + 1) & M64
        self.s = s or 1

    def next(self) -> int:
        x = self.s
        x ^= (x << 13) & M64
        x ^= x >> 7
        x ^= (x << 17) & M64
        self.s = x
        return x

    def below(self, n: int) -> int:
        return self.next() % n

    def permutation(self, n: int):
        p = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            p[i], p[j] = p[j], p[i]
        return p


def generate(seed, ins, outs, zeros):
    """A random surjective permutation-like layout, in the binding's JSON
    shape. ins/outs: [(name, log2 size)]."""
    rng = XorShift(seed)
    total_in = sum(w for _, w in ins)
    total_out = sum(w for _, w in outs)
    assert total_in == total_out + zeros, "bad spec"
    in_perm = rng.permutation(total_in)
    is_zero = [False] * total_in
    for i in in_perm[:zeros]:
        is_zero[i] = True
    out_perm = rng.permutation(total_out)
    nxt = 0
    cols = []
    for zero in is_zero:
        if zero:
            cols.append(0)
            continue
        p = out_perm[nxt]
        nxt += 1
        col = 1 << p
        if p > 0 and rng.below(4) == 0:
            col |= 1 << rng.below(p)
        cols.append(col)

    def unpack(c):
        comps = []
        for _, w in outs:
            comps.append(c & ((1 << w) - 1))
            c >>= w
        return comps

    bases, k = [], 0
    for name, n in ins:
        bases.append([name, [unpack(c) for c in cols[k:k + n]]])
        k += n
    return {"bases": bases, "out_dims": [[name, 1 << w] for name, w in outs]}


def spec(n):
    q = n // 4
    ins = [("register", q), ("lane", q), ("warp", q), ("block", q)]
    zeros = 2 if n <= 16 else 4
    o = n - zeros
    outs = [("dim0", o // 2), ("dim1", o - o // 2)]
    return ins, outs, zeros


def make_inputs(n):
    def seed(purpose):
        return n * 16 + purpose

    ins, outs, zeros = spec(n)
    a = generate(seed(1), ins, outs, zeros)
    rng = XorShift(seed(2))
    apply_input = [[name, rng.next() & ((1 << w) - 1)] for name, w in ins]
    hins, houts, hzeros = spec(n // 2)
    p1 = generate(seed(3), hins, houts, hzeros)
    p2 = generate(seed(4), hins, houts, hzeros)
    b = generate(seed(5), outs, outs, 0)
    o = sum(w for _, w in outs)
    s = generate(seed(6), [("offset", o)], outs, 0)
    reshape = [[outs[0][0], 1 << (outs[0][1] + 1)], [outs[1][0], 1 << (outs[1][1] - 1)]]
    return {"a": a, "apply_input": apply_input, "p1": p1, "p2": p2, "b": b, "s": s,
            "reshape_outs": reshape}


def in_bits(lay):
    return sum(len(bs) for _, bs in lay["bases"])


# ---------------------------------------------------------------------------
# Triton side
# ---------------------------------------------------------------------------


def import_triton():
    try:
        import triton
        from triton._C.libtriton.linear_layout import LinearLayout as LL
    except Exception as e:
        print(f"bench_triton.py: cannot import Triton's LinearLayout binding: "
              f"{type(e).__name__}: {e}", file=sys.stderr)
        print("run it with the venv python: PY=$(bash tests/oracle/venv.sh 3.9.0)",
              file=sys.stderr)
        sys.exit(2)
    return triton, LL


def build(LL, lay):
    return LL.from_bases([(n, bs) for n, bs in lay["bases"]],
                         [n for n, _ in lay["out_dims"]],
                         [s for _, s in lay["out_dims"]],
                         require_surjective=False)


def to_json(lay):
    return {"bases": [[n, [list(v) for v in bs]] for n, bs in lay.bases],
            "out_dims": [[n, s] for n, s in lay.out_dims]}


def triton_cases(LL, inp):
    """op -> (zero-argument callable, why-not or None). Triton has no
    reshape_outs binding; invert_and_compose packs [outer | self] columns in
    one 64-bit word per row, so more than 64 columns make it abort."""
    a = build(LL, inp["a"])
    p1, p2 = build(LL, inp["p1"]), build(LL, inp["p2"])
    b, s = build(LL, inp["b"]), build(LL, inp["s"])
    x = {n: v for n, v in inp["apply_input"]}
    bases = [(n, bs) for n, bs in inp["a"]["bases"]]
    names = [n for n, _ in inp["a"]["out_dims"]]
    sizes = [sz for _, sz in inp["a"]["out_dims"]]
    solve_iac = in_bits(inp["a"]) + in_bits(inp["s"])
    solve_pinv = in_bits(inp["a"]) + sum(sz.bit_length() - 1 for sz in sizes)
    cases = {
        "apply": (lambda: a.apply(x), None),
        "product": (lambda: p1 * p2, None),
        "compose": (lambda: a.compose(b), None),
        "invert_and_compose": (lambda: a.invert_and_compose(s),
                               None if solve_iac <= 64 else f"{solve_iac} solve columns > 64"),
        "pseudoinvert": (lambda: a.pseudoinvert(),
                         None if solve_pinv <= 64 else f"{solve_pinv} solve columns > 64"),
        "reshape_outs": (None, "not in the Python binding"),
        "from_bases": (lambda: LL.from_bases(bases, names, sizes, require_surjective=True),
                       None),
    }
    return a, cases


PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import bench_triton as bt
_, LL = bt.import_triton()
_, cases = bt.triton_cases(LL, bt.make_inputs(int(sys.argv[2])))
fn, _ = cases[sys.argv[3]]
r = fn()
print(json.dumps(bt.to_json(r)))
"""


def probe_unsupported(n, op):
    """Runs an op Triton is expected to reject in a child process (it may
    abort the interpreter) and describes what happened."""
    proc = subprocess.run([sys.executable, "-c", PROBE, os.path.dirname(os.path.abspath(__file__)),
                           str(n), op], capture_output=True, text=True, timeout=120)
    if proc.returncode == 0:
        return "ran (unexpectedly)"
    lines = [l for l in proc.stderr.strip().splitlines() if l.strip()]
    last = lines[-1] if lines else ""
    if proc.returncode < 0:
        what = "assertion" if "Assertion" in proc.stderr else f"signal {-proc.returncode}"
        return f"aborts ({what})"
    return f"fails ({last[:80]})"


def best_time(fn, budget=0.25, repeat=5):
    """Best per-call time in seconds over `repeat` runs of about `budget` s."""
    timer = timeit.Timer(fn)
    number, elapsed = 1, 0.0
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= budget / 10 or number >= 1 << 24:
            break
        number *= 10 if elapsed < budget / 100 else 2
    number = max(1, int(number * budget / max(elapsed, 1e-9)))
    return min(timer.repeat(repeat=repeat, number=number)) / number


# ---------------------------------------------------------------------------
# Our side
# ---------------------------------------------------------------------------


def cargo_env():
    env = dict(os.environ)
    env.pop("ALGEBRA_BENCH_DUMP", None)
    return env


def rust_dump():
    env = cargo_env()
    env["ALGEBRA_BENCH_DUMP"] = "1"
    proc = subprocess.run(["cargo", "bench", "--bench", "algebra"], cwd=REPO, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        print("bench_triton.py: `ALGEBRA_BENCH_DUMP=1 cargo bench --bench algebra` failed",
              file=sys.stderr)
        sys.exit(2)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def criterion_dir():
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")
    return os.path.join(target, "criterion")


def run_criterion(extra):
    cmd = ["cargo", "bench", "--bench", "algebra", "--",
           "--warm-up-time", "1", "--measurement-time", "2"] + extra
    print("running: " + " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, cwd=REPO, env=cargo_env(), stdout=sys.stderr)
    if proc.returncode != 0:
        print("bench_triton.py: cargo bench failed", file=sys.stderr)
        sys.exit(2)


def read_estimates(since=None):
    """(op, n) -> median ns, from criterion's estimates.json files (only those
    written after `since`, when given)."""
    out = {}
    for path in glob.glob(os.path.join(criterion_dir(), "*", "*", "new", "estimates.json")):
        parts = path.split(os.sep)
        op, n = parts[-4], parts[-3]
        if op not in OPS or not n.isdigit():
            continue
        if since is not None and os.path.getmtime(path) < since:
            continue
        with open(path) as f:
            est = json.load(f)
        out[(op, int(n))] = est["median"]["point_estimate"]
    return out


# ---------------------------------------------------------------------------


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cpus, {model}, {platform.system()} {platform.release()}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-cargo-bench", action="store_true",
                    help="do not run criterion; read the estimates already in target/criterion")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds of the algebra comparison, each timing Triton and running "
                         "criterion once; each side takes its best round per cell (default 3)")
    ap.add_argument("--budget", type=float, default=0.25,
                    help="seconds per timeit repeat for Triton (default 0.25)")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)),
                    help="comma-separated input bit counts (default 8,16,32,64)")
    ap.add_argument("--only", choices=["algebra", "gluon"],
                    help="run one of the two comparisons (default: both)")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    status = 0 if args.only == "gluon" else algebra_report(args)
    if args.only != "algebra":
        status = max(status, gluon_report(args))
    return status


def algebra_report(args):
    """The algebra table; 0 when every result equals Triton's."""
    sizes = [int(x) for x in args.sizes.split(",")]

    triton, LL = import_triton()
    print(f"Triton {triton.__version__} binding vs linear-layout criterion benches; {machine()}")

    # 1. Same inputs, same answers.
    ours = rust_dump()
    bad = 0
    inputs = {}
    for n in sizes:
        inp = make_inputs(n)
        inputs[n] = inp
        if ours[str(n)]["inputs"] != inp:
            print(f"MISMATCH: the Rust and Python generators disagree for {n} bits",
                  file=sys.stderr)
            bad += 1
            continue
        a, cases = triton_cases(LL, inp)
        for op in OPS:
            fn, why = cases[op]
            mine = ours[str(n)]["results"][op]
            if why is not None:
                continue
            r = fn()
            if op == "apply":
                theirs = [[name, r[name]] for name in a.get_out_dim_names()]
            else:
                theirs = to_json(r)
            if theirs != mine:
                print(f"MISMATCH {op}/{n}: Triton {json.dumps(theirs)}\n  ours {json.dumps(mine)}",
                      file=sys.stderr)
                bad += 1
    if bad:
        print(f"{bad} mismatches between Triton and us; no timing done", file=sys.stderr)
        return 1
    print(f"inputs identical on both sides, all results equal to Triton's ({len(sizes)} sizes)")

    # 2 and 3, interleaved: each round times Triton on every cell (the best
    # of its timeit repeats) and then runs criterion once (each cell's
    # median); each side keeps its best round per cell. Both sides are thus
    # sampled over the same stretch of time: this VM's neighbours move whole
    # runs by up to a third now and then (notes/performance.md), and timing
    # one side in a single window and the other across several would favour
    # the second. Every round's figures are printed with each cell.
    triton_rounds = []
    overhead_rounds = []
    notes = {}
    rounds = []
    for r in range(args.rounds):
        timed, overhead_r = {}, {}
        for n in sizes:
            a, cases = triton_cases(LL, inputs[n])
            # Measured before and after this size's operations, the lower
            # kept: the first timing of a round can run slow (the 8-bit
            # overhead once read 67 ns in every round, against 35 ns for
            # the other sizes), and subtracting too much lowers the ratios.
            overhead_r[n] = best_time(lambda: a.num_in_dims, args.budget) * 1e6
            for op in OPS:
                fn, why = cases[op]
                if why is not None:
                    if op != "reshape_outs" and (op, n) not in notes:
                        why = f"{why}: {probe_unsupported(n, op)}"
                    notes.setdefault((op, n), why)
                    continue
                timed[(op, n)] = best_time(fn, args.budget) * 1e6
            overhead_r[n] = min(overhead_r[n],
                                best_time(lambda: a.num_in_dims, args.budget) * 1e6)
        triton_rounds.append(timed)
        overhead_rounds.append(overhead_r)
        print(f"round {r + 1}/{args.rounds}: timed Triton", file=sys.stderr, flush=True)
        if args.no_cargo_bench:
            if not rounds:
                rounds.append(read_estimates())
        else:
            start = time.time()
            run_criterion([])
            rounds.append(read_estimates(start - 1))
            print(f"round {r + 1}/{args.rounds}: ran criterion", file=sys.stderr, flush=True)
    triton_us = {key: min(t[key] for t in triton_rounds) for key in triton_rounds[0]}
    overhead = {n: min(o[n] for o in overhead_rounds) for n in sizes}
    est = {key: min(r[key] for r in rounds if key in r) for key in set().union(*rounds)}

    # What returning a layout adds to a binding call: a product of two empty
    # layouts does next to no C++ work but builds and drops a Python result.
    # Reported, not subtracted (subtracting it would lower the ratios of the
    # operations that return a layout; notes/performance.md).
    empty = LL.identity_1d(0, "register", "dim0")
    returning_ns = best_time(lambda: empty * empty, args.budget) * 1e9

    # 4. Table.
    ov = sorted(overhead.values())
    print(f"\nTriton: timeit, best of 5 repeats in each of {len(triton_rounds)} round(s), the "
          f"best round per cell (every round's time in the last column).")
    print(f"Triton binding overhead (timeit of `layout.num_in_dims`, best of 5, best round): "
          f"{min(ov) * 1000:.0f}-{max(ov) * 1000:.0f} ns; it is SUBTRACTED in the "
          f"'Triton - overhead' column and the ratio.")
    print(f"A call that returns a layout costs more: `empty * empty` on two empty layouts takes "
          f"{returning_ns:.0f} ns (reported, not subtracted).")
    print(f"Ours: criterion median, the best of {len(rounds)} run(s) (all runs' medians in "
          f"the last column); ratio = (Triton - overhead) / ours.\n")
    header = ["operation", "bits", "Triton µs (raw)", "Triton µs (- overhead)", "ours ns", "ratio",
              "ours ns, each run", "Triton µs, each round"]
    rows = []
    slow = []
    missing = []
    for op in OPS:
        for n in sizes:
            t = triton_us.get((op, n))
            o = est.get((op, n))
            ours_err = ours[str(n)]["results"][op]
            ours_cell = f"{o:.1f}" if o is not None else (
                "n/a (error)" if isinstance(ours_err, dict) and "error" in ours_err else "—")
            runs = " / ".join(f"{r[(op, n)]:.1f}" for r in rounds if (op, n) in r)
            theirs = " / ".join(f"{r[(op, n)]:.3f}" for r in triton_rounds if (op, n) in r)
            if t is None:
                rows.append([op, str(n), f"n/a: {notes.get((op, n), '?')}", "", ours_cell, "",
                             runs, ""])
                continue
            net = t - overhead[n]
            ratio = ""
            if o is None:
                missing.append(f"{op}/{n}")
            else:
                r = net * 1000 / o
                ratio = f"{r:,.0f}x"
                if r < 100:
                    slow.append(f"{op}/{n} ({r:.0f}x)")
            rows.append([op, str(n), f"{t:.3f}", f"{net:.3f}", ours_cell, ratio, runs, theirs])
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    print()
    if missing:
        print("no criterion estimate for: " + ", ".join(missing))
    if slow:
        print("below 100x faster than Triton's binding: " + ", ".join(slow))
    elif not missing:
        print("every operation Triton can run is at least 100x faster here than through "
              "Triton's binding (overhead subtracted)")
    return 0


# ---------------------------------------------------------------------------
# Conversions: Gluon's to_linear_layout against benches/finder.rs
# ---------------------------------------------------------------------------


def finder_dump():
    env = dict(os.environ)
    env["FINDER_BENCH_DUMP"] = "1"
    proc = subprocess.run(["cargo", "bench", "--bench", "finder"], cwd=REPO, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        print("bench_triton.py: `FINDER_BENCH_DUMP=1 cargo bench --bench finder` failed", file=sys.stderr)
        sys.exit(2)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def gluon_layout_json(ll, shape):
    """A Gluon layout in our JSON form: {"bases": [[in_dim, vectors]...], "out_dims": ...}."""
    if type(ll).__name__ == "SharedLinearLayout":
        bases = [["offset", ll.offset_bases], ["block", ll.block_bases]]
    else:
        bases = [["register", ll.reg_bases], ["lane", ll.lane_bases],
                 ["warp", ll.warp_bases], ["block", ll.block_bases]]
    return {"bases": [[n, [list(map(int, v)) for v in vs]] for n, vs in bases],
            "out_dims": [[f"dim{i}", int(x)] for i, x in enumerate(shape)]}


def gluon_report(args):
    """Times Gluon's to_linear_layout on benches/finder.rs's attributes; 0 when
    every layout equals ours and the table printed."""
    from triton._C.libtriton import ir, gluon_ir, nvidia, amd
    import tempfile
    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    amd.load_dialects(ctx)
    b = gluon_ir.GluonOpBuilder(ctx, "sm100")
    cases = finder_dump()
    work = tempfile.mkdtemp(prefix="bench_gluon_")
    overhead = best_time(lambda: b.get_int8_ty(), args.budget) * 1e6
    timed, bad = {}, 0
    for case in cases:
        shape, attr_text = case["shape"], case["attr"]
        dims = "x".join(map(str, shape))
        shared = "shared" in case["name"]
        ty = (f"!ttg.memdesc<{dims}xf16, {attr_text}, #ttg.shared_memory>" if shared
              else f"tensor<{dims}xf16, {attr_text}>")
        path = os.path.join(work, case["name"] + ".mlir")
        with open(path, "w") as f:
            f.write("module {\n  tt.func @f(%a: " + ty + ") {\n    tt.return\n  }\n}\n")
        arg = ir.parse_mlir_module(path, ctx).get_function("f").args(0)
        layout = b.get_gluon_layout_from_memdesc(arg) if shared else b.get_gluon_layout_from_tensor(arg)
        attr = layout._to_ir(b)
        theirs = gluon_layout_json(b.to_linear_layout(attr, shape), shape)
        if theirs != case["layout"]:
            print(f"MISMATCH convert/{case['name']}: Gluon {json.dumps(theirs)}\n  ours "
                  f"{json.dumps(case['layout'])}", file=sys.stderr)
            bad += 1
            continue
        timed[case["name"]] = best_time(lambda: b.to_linear_layout(attr, shape), args.budget) * 1e6
    shutil.rmtree(work, ignore_errors=True)
    if bad:
        print(f"{bad} conversions differ from Gluon's; no timing done", file=sys.stderr)
        return 1
    print(f"\nconversions: the same {len(cases)} attribute texts on both sides, every layout equal to Gluon's")
    start = time.time()
    if not args.no_cargo_bench:
        cmd = ["cargo", "bench", "--bench", "finder", "--", "--warm-up-time", "1",
               "--measurement-time", "2", "^convert"]
        print("running: " + " ".join(cmd), file=sys.stderr, flush=True)
        if subprocess.run(cmd, cwd=REPO, env=cargo_env(), stdout=sys.stderr).returncode != 0:
            print("bench_triton.py: cargo bench --bench finder failed", file=sys.stderr)
            return 2

    def ours(group, name):
        path = os.path.join(criterion_dir(), group, name, "new", "estimates.json")
        if not os.path.exists(path) or (not args.no_cargo_bench and os.path.getmtime(path) < start - 1):
            return None
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"]

    print(f"Gluon overhead (timeit of `builder.get_int8_ty()`): {overhead * 1000:.0f} ns, SUBTRACTED; "
          f"ratio = (Gluon - overhead) / ours.")
    print("Triton keeps toLinearLayout results in its dialect's LinearLayoutCache, so Gluon's repeated "
          "call is a cache hit plus building the Python result; `ours, cached` is ConversionCache, the "
          "like-for-like path; `ours, built` converts from scratch every time.\n")
    print("| attribute | shape | Gluon µs (raw) | Gluon µs (- overhead) | ours, cached ns | ratio | "
          "ours, built ns | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    slow = []
    for case in cases:
        name = case["name"]
        net = timed[name] - overhead
        cells = []
        for group in ("convert_cached", "convert"):
            o = ours(group, name)
            if o is None:
                cells += ["not measured", ""]
                slow.append(f"{group}/{name} (not measured)")
                continue
            r = net * 1000 / o
            cells += [f"{o:.0f}", f"{r:,.0f}x"]
            if group == "convert_cached" and r < 100:
                slow.append(f"{group}/{name} ({r:.0f}x)")
        print(f"| {name} | {'x'.join(map(str, case['shape']))} | {timed[name]:.2f} | {net:.2f} | "
              + " | ".join(cells) + " |")
    print()
    print("below 100x faster than Gluon: " + ", ".join(slow) if slow else
          "every cached conversion is at least 100x faster here than Gluon's to_linear_layout "
          "(overhead subtracted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
