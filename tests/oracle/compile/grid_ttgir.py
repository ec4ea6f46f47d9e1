#!/usr/bin/env python3
"""Kernel-level compiles of grid configurations with the TTGIR each release
hands to its lowering: what `check-ttgir` and `scan` see of a kernel, next
to how the real compile ends.

    python3 tests/oracle/compile/grid_ttgir.py record --triton 3.9.0 \\
        --configs tests/data/compile/ctas-configs.jsonl \\
        --out tests/data/compile/ctas-ttgir-triton-3.9.0.jsonl.gz [--jobs 2]

Each configuration is compiled in a child of its own, as `run_grid.py`
compiles it (ptxas skipped), with `dump_ttgir.py`'s hook writing the module
`make_llir` gets before lowering it. Records (kind `grid-ttgir-compiles`,
named by the configuration as in `run_grid.py`): {"config", "outcome",
"message", "signal", "seconds", "stage", "exception" (errors only), "ttgir"
(without locations; null when the compile ended before the lowering: the
front end or a TTGIR pass failed)}. `cargo test` checks every module with
`scan`'s checks and requires the recorded outcome (tests/grid_ttgir.rs).
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "kernels_corpus"))
import run_grid  # noqa: E402
import data_header  # noqa: E402  (run_grid put tests/oracle on the path)


def strip_locations(text):
    from record import strip_locations as strip  # kernels_corpus/record.py's rule
    return strip(text)


def child(args):
    try:
        import dump_ttgir  # a fresh Triton cache, and the hook that writes the module
        dump_ttgir.hook(args.dump)
        if args.status:
            run_grid.hook_stages(args.status, False)
    except Exception as e:
        print(run_grid.EXC_MARK + run_grid.exception_summary(e), file=sys.stderr, flush=True)
        return run_grid.SETUP_FAILED
    return run_grid.child(argparse.Namespace(config=args.config, status=None, ptxas=False))


def record(args):
    py = run_grid.resolve_python(args)
    configs = run_grid.read_configs(args.configs)
    short = run_grid.triton_short(args.triton)

    def job(work, i):
        cfg = configs[i]
        dump = os.path.join(work, f"case{i}.ttgir")
        rec = run_grid.run_child(py, cfg, work, script=os.path.abspath(__file__), extra=("--dump", dump))
        rec.pop("stderr_tail", None)
        text = None
        if os.path.exists(dump):
            with open(dump) as f:
                text = strip_locations(f.read())
            os.remove(dump)
        return {"config": run_grid.ordered(cfg, short), **rec, "ttgir": text}

    def describe(i, rec):
        return data_header.config_name(configs[i])

    records, _ = run_grid.run_pool(len(configs), job, args.jobs, short, describe, prefix="grid_ttgir-")
    what = data_header.existing_what(args.out, "grid-ttgir-compiles", args.triton, len(records)) or (
        f"{len(records)} kernel configurations of {os.path.basename(args.configs)} compiled by the triton "
        f"{args.triton} wheel on the CPU (ptxas skipped), with the TTGIR handed to the lowering "
        f"(`{data_header.command()}`).")
    data_header.write_jsonl(args.out, {"what": what, "release": args.triton, "kind": "grid-ttgir-compiles",
                                       "configs": os.path.basename(args.configs)}, records)
    counts = {}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    print(f"triton {args.triton}: {counts} -> {args.out}", file=sys.stderr)
    return 1 if counts.get("broken") or counts.get("timeout") else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--triton", required=True)
    r.add_argument("--configs", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--python")
    c = sub.add_parser("child")
    c.add_argument("--config", required=True)
    c.add_argument("--status")
    c.add_argument("--dump", required=True)
    args = ap.parse_args()
    return {"record": record, "child": child}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
