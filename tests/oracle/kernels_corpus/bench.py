#!/usr/bin/env python3
"""Speed of `scan` against a full compile, per configuration and release,
on one grid in one run (a benchmark, not a test).

For the first --per-case configurations of every case of cases.py, each
release's worker (scan/src/worker.py, warm: triton and the kernel's module
already imported, as in a scan) runs, for the same configuration:
  front_end  the front end up to the TTGIR handed to the lowering (scan's part)
  compile    the full compile down to PTX (ptxas skipped, as the corpus is recorded)
  ptxas      the full compile through ptxas to a cubin
each in a forked child, and the model's check of the TTGIR is timed with
`linear-layout check-ttgir` (minus the binary's start-up, measured on an
empty module). Prints a markdown table of medians per release.

    python3 tests/oracle/kernels_corpus/bench.py --scratch DIR --triton 3.2.0 ... \
        --binary target/release/linear-layout [--per-case 3]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402
import record  # noqa: E402


def check_seconds(binary, release, texts, repeat=3):
    """Median seconds the model takes on each module (start-up subtracted)."""
    d = tempfile.mkdtemp(prefix="bench-check-")
    empty = os.path.join(d, "empty.ttgir")
    with open(empty, "w") as f:
        f.write('module attributes {"ttg.num-warps" = 4 : i32} {\n}\n')

    def run(path):
        best = None
        for _ in range(repeat):
            t0 = time.perf_counter()
            subprocess.run([binary, "check-ttgir", path, "--triton", release], capture_output=True)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        return best

    base = run(empty)
    out = []
    for i, t in enumerate(texts):
        p = os.path.join(d, f"m{i}.ttgir")
        with open(p, "w") as f:
            f.write(t)
        out.append(max(0.0, run(p) - base))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--triton", action="append", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--per-case", type=int, default=3)
    args = ap.parse_args()
    rows = []
    for version in args.triton:
        py = record.venv_python(version)
        fe, full, ptx, chk = [], [], [], []
        for c in cases.CASES:
            cfgs = cases.configs(c)[: args.per_case]
            by_arch = {}
            for cfg in cfgs:
                by_arch.setdefault(cfg[4], []).append(cfg)
            for arch, jobs in by_arch.items():
                tripled = [j for j in jobs for _ in range(3)]
                ops = ["front_end", "compile", "ptxas"] * len(jobs)
                worker, _ = record.serve(py, args.scratch, c, arch, 600)
                texts = []
                for i, ((label, a, kw, opts, _), op) in enumerate(zip(tripled, ops)):
                    job = {"id": i, "op": "compile" if op == "ptxas" else op, "args": a, "kwargs": kw,
                           "options": opts, "ptxas": op == "ptxas"}
                    r = record.answer(worker, job, 600)
                    ok = r["status"] in ("ttgir", "ok")
                    if op == "front_end":
                        keep = ok
                        if ok:
                            fe.append(r["seconds"])
                            texts.append(r["ttgir"])
                    elif keep and op == "compile" and ok:
                        full.append(r["seconds"])
                    elif keep and op == "ptxas" and ok:
                        ptx.append(r["seconds"])
                worker.close()
                model = ".".join(version.split(".")[:2])  # each wheel's own modelled release
                chk.extend(check_seconds(args.binary, model, texts))
        med = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
        scan_s = med(fe) + med(chk)
        rows.append((version, len(fe), med(fe), med(chk) * 1000, med(full), med(ptx), med(full) / scan_s,
                     med(ptx) / scan_s))
        print(f"{version}: {len(fe)} configurations done", file=sys.stderr, flush=True)
    print("| release | configs | front end (s) | check (ms) | compile to PTX (s) | compile with ptxas (s) "
          "| PTX / scan | ptxas / scan |")
    print("|---|---|---|---|---|---|---|---|")
    for v, n, f, c, full, ptx, r1, r2 in rows:
        print(f"| {v} | {n} | {f:.2f} | {c:.1f} | {full:.2f} | {ptx:.2f} | {r1:.1f}x | {r2:.1f}x |")


if __name__ == "__main__":
    sys.exit(main())
