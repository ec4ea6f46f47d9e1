#!/usr/bin/env python3
"""Record the public-kernel corpus: every configuration of `cases.py`,
compiled in full (down to PTX; ptxas is skipped, as run_grid.py does) by each
Triton release on the CPU through `linear-layout scan`'s own worker
(scan/src/worker.py), keeping the outcome and the TTGIR the front end handed
to the lowering.

    python3 tests/oracle/kernels_corpus/record.py fetch --scratch DIR
        pip-download the pinned packages of cases.py into DIR (wheels, unpacked)
    python3 tests/oracle/kernels_corpus/record.py record --scratch DIR \
        --triton 3.2.0 [--triton ...] [--out-dir tests/data/kernels] [--jobs 2]
        write tests/data/kernels/triton-VERSION.jsonl.gz per release

The kernels' source is never copied into the repository: each worker imports
it from the scratch directory. Records (kind `public-kernel-compiles`):
{"name", "case", "kernel", "package", "family", "arch", "args", "kwargs",
 "options", "outcome": "ok" | "error" | "abort" | "timeout", "message",
 "exception", "stage", "seconds", "ttgir" (null when the front end failed)}.
The TTGIR is kept without its locations (`loc(...)` and the `#loc`
definitions: a third of the text, paths of the scratch directory, and read by
no check) and each file is gzipped (data_header.py's `.jsonl.gz`): 1300
modules of up to 60 KB each would otherwise be ~28 MB.
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import cases  # noqa: E402
import data_header  # noqa: E402
from harness import child as children, venvs  # noqa: E402

WORKER = os.environ.get("SCAN_WORKER") or os.path.join(REPO, "scan", "src", "worker.py")


def strip_locations(ttgir):
    """The module without `#loc` definitions and `loc(...)` references (the
    rule of scan/src/reduce.rs's strip_locations: a `loc(` after a space, a
    `(` or the line's start, to its matching parenthesis outside strings)."""
    out = []
    for line in ttgir.split("\n"):
        t = line.lstrip()
        if t.startswith("#loc") and "= loc(" in t:
            continue
        kept, rest = "", line
        while (at := rest.find("loc(")) >= 0:
            before = rest[:at]
            if before and not before.endswith((" ", "(")):
                kept += rest[:at + 4]
                rest = rest[at + 4:]
                continue
            depth, end, in_str = 0, None, False
            for i, ch in enumerate(rest[at:]):
                if ch == '"':
                    in_str = not in_str
                elif ch == "(" and not in_str:
                    depth += 1
                elif ch == ")" and not in_str:
                    depth -= 1
                    if depth == 0:
                        end = at + i + 1
                        break
            if end is None:
                break
            kept += before.rstrip(" ")
            rest = rest[end:]
        out.append((kept + rest).rstrip())
    return "\n".join(out)


def fetch(args):
    os.makedirs(args.scratch, exist_ok=True)
    wheels = os.path.join(args.scratch, "wheels")
    reqs = [req for req, _ in cases.PACKAGES.values()] + list(cases.DEPS)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", wheels, *reqs], check=True)
    import zipfile
    for whl in os.listdir(wheels):
        if not whl.endswith(".whl"):
            continue
        name = whl.split("-py3")[0].split("-cp3")[0]
        dest = os.path.join(args.scratch, "deps" if not any(d == name for _, d in cases.PACKAGES.values()) else name)
        with zipfile.ZipFile(os.path.join(wheels, whl)) as z:
            z.extractall(dest)
    return 0


venv_python = venvs.python


def serve(py, scratch, c, arch, timeout):
    """A `worker.py serve` of (case, arch), and its hello line."""
    pkg_dir = os.path.join(scratch, cases.PACKAGES[c["package"]][1])
    cmd = [py, WORKER, "serve", "--kernel", c["kernel"], "--target", "cuda:" + arch[2:], "--path", pkg_dir,
           "--path", os.path.join(scratch, "deps"), "--timeout", str(timeout)]
    worker = children.Worker(cmd, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    return worker, answer(worker, None, timeout)


def answer(worker, job, timeout):
    """The worker's answer to `job` (its hello line for None); SystemExit if it died."""
    # the worker bounds each job by `timeout` itself; the margin is its start-up
    got = worker.receive(timeout + 120) if job is None else worker.ask(job, timeout + 120)
    if got is None:
        raise SystemExit(f"{WORKER} ended (exit {worker.wait()}): {worker.stderr_tail()}")
    return got


def run_group(py, scratch, c, arch, jobs, op="compile", timeout=300):
    """One worker for (case, arch): every configuration of the case on that arch."""
    worker, hello = serve(py, scratch, c, arch, timeout)
    out = []
    for i, job in enumerate(jobs):
        label, a, kw, opts, _ = job
        out.append(answer(worker, {"id": i, "op": op, "args": a, "kwargs": kw, "options": opts}, timeout))
    worker.close()
    return hello, out


def record(args):
    os.makedirs(args.out_dir, exist_ok=True)
    for version in args.triton:
        py = venv_python(version)
        groups = []
        for c in [c for c in cases.CASES if not args.case or c["name"] in args.case]:
            by_arch = {}
            for cfg in cases.configs(c):
                by_arch.setdefault(cfg[4], []).append(cfg)
            for arch, jobs in by_arch.items():
                groups.append((c, arch, jobs))
        records = []
        lock = threading.Lock()
        t0 = time.time()

        def work(g):
            c, arch, jobs = g
            hello, results = run_group(py, args.scratch, c, arch, jobs)
            recs = []
            for (label, a, kw, opts, _), r in zip(jobs, results):
                outcome = "ok" if r["status"] in ("ok", "ttgir") else r["status"]
                recs.append({
                    "case": c["name"], "label": label, "kernel": c["kernel"], "package": cases.PACKAGES[c["package"]][0],
                    "family": c["family"], "arch": arch, "args": a, "kwargs": kw, "options": opts, "outcome": outcome,
                    "message": r.get("message", ""), "exception": r.get("exception"), "stage": r.get("stage"),
                    "seconds": r.get("seconds"), "torch": hello.get("torch"),
                    "ttgir": strip_locations(r["ttgir"]) if r.get("ttgir") else None})
            with lock:
                records.extend(recs)
                counts = {}
                for x in recs:
                    counts[x["outcome"]] = counts.get(x["outcome"], 0) + 1
                print(f"[{version} {time.time() - t0:5.0f}s] {c['name']} {arch}: {counts}", file=sys.stderr,
                      flush=True)
            return recs

        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
            list(ex.map(work, groups))
        order = {(c["name"], label): i for i, c in enumerate(cases.CASES) for i2, (label, *_r) in
                 enumerate(cases.configs(c))}
        records.sort(key=lambda r: (order.get((r["case"], r["label"]), 0), r["case"], r["label"]))
        out = os.path.join(args.out_dir, f"triton-{version}.jsonl.gz")
        if args.case and os.path.exists(out):
            # the other cases' records stay as recorded
            _, before = data_header.read_jsonl(out)
            records = [{k: v for k, v in r.items() if k != "name"} for r in before
                       if r["case"] not in args.case] + records
        what = (f"Outcomes of compiling {len(records)} configurations of public Triton kernels "
                f"(tests/oracle/kernels_corpus/cases.py: {', '.join(sorted({r['package'] for r in records}))}) "
                f"with the triton {version} wheel on the CPU down to PTX, with the TTGIR its front end handed to "
                f"the lowering, locations stripped (`{data_header.command()}`).")
        data_header.write_jsonl(out, {"what": what, "release": version, "kind": "public-kernel-compiles"}, records)
        print(f"{version}: {len(records)} records -> {out}", file=sys.stderr)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch")
    f.add_argument("--scratch", required=True)
    r = sub.add_parser("record")
    r.add_argument("--scratch", required=True)
    r.add_argument("--triton", action="append", required=True)
    r.add_argument("--out-dir", default=os.path.join(REPO, "tests", "data", "kernels"))
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--case", action="append", help="only this case (its records replace the file's)")
    args = ap.parse_args()
    return {"fetch": fetch, "record": record}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
