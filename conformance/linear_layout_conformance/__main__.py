"""Command line: ``python -m linear_layout_conformance [run|generate|shrink|replay] ...``.

``run`` (the default)
    generate ``--count`` cases of ``--seed`` (or read ``--cases FILE``),
    compile them in ``--jobs`` worker processes and, unless ``--dry-run``,
    run them on the GPU; results in ``--out DIR`` (see :mod:`.runner`).
``generate``
    only write a case file (needs our crate: the CLI binary or the
    extension); the GPU machine then needs no crate.
``shrink CASE.json``
    the smallest case failing the same way, and a reproducer script.
``replay RESULTS.jsonl``
    re-derive the expected outputs of recorded results and check that
    every recorded verdict follows from the recorded outputs (no GPU).
``campaign [--check | --update]``
    make the pre-generated case files of ``campaign/`` (not in git) from
    ``campaign/MANIFEST.json``, or check them (see :mod:`.manifest`).

Also runs as a plain script (``python .../linear_layout_conformance/__main__.py``),
for machines where the package is not installed (the GPU machine: a Triton
venv with torch).
"""

from __future__ import annotations

import argparse
import os
import sys

if __package__ in (None, ""):  # run as a script: import the package from its parent directory
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))
    __package__ = "linear_layout_conformance"

from .generate import FAMILIES

COMMANDS = (
    "run",
    "generate",
    "shrink",
    "repro",
    "emulate",
    "pack",
    "xrun",
    "replay",
    "bundle",
    "campaign",
    "lang",
)


def _common_case_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--count", type=int, default=100, help="cases to generate (default 100)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--start", type=int, default=0, help="index of the first case (default 0)")
    ap.add_argument("--triton", default="3.6", help="release whose TTGIR to write (default 3.6)")
    ap.add_argument(
        "--cap", type=int, default=90, help="compute capability, e.g. 80 or 90 (default 90)"
    )
    ap.add_argument(
        "--families",
        default=",".join(FAMILIES),
        help=f"comma-separated families (default {','.join(FAMILIES)})",
    )
    ap.add_argument("--binary", help="our CLI binary (default: target/release/linear-layout)")


def _make_or_read(args: argparse.Namespace) -> list[dict]:
    from .cases import make_cases
    from .oracle import Oracle
    from .runner import progress_printer, read_cases

    if getattr(args, "cases", None):
        cases = read_cases(args.cases)
        if args.count and args.count < len(cases) and getattr(args, "count_given", False):
            cases = cases[: args.count]
        return cases
    fams = [f for f in args.families.split(",") if f]
    bad = [f for f in fams if f not in FAMILIES]
    if bad:
        raise SystemExit(f"unknown families {bad}; choose from {FAMILIES}")
    oracle = Oracle(args.triton, binary=args.binary)
    return make_cases(
        args.count,
        args.seed,
        args.triton,
        args.cap,
        fams,
        oracle,
        start=args.start,
        progress=progress_printer(),
    )


def cmd_generate(args: argparse.Namespace) -> int:
    """Write a case file."""
    from .runner import write_cases

    cases = _make_or_read(args)
    write_cases(args.out, cases)
    print(f"conformance: wrote {len(cases)} cases to {args.out}", file=sys.stderr)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """Generate (or read) cases, compile, run, classify."""
    from .runner import PASSING, run_cases, write_cases

    os.makedirs(args.out, exist_ok=True)
    cases = _make_or_read(args)
    write_cases(os.path.join(args.out, "cases.jsonl.gz"), cases)
    records = run_cases(
        cases,
        args.out,
        jobs=args.jobs,
        python=args.python,
        gpu=not args.dry_run,
        cache=args.cache,
        max_seconds=args.max_seconds,
        compile_timeout=args.compile_timeout,
        run_timeout=args.run_timeout,
    )
    bad = [r for r in records if r.get("verdict") not in PASSING]
    return 1 if bad else 0


def cmd_shrink(args: argparse.Namespace) -> int:
    """Shrink a failing case (see :mod:`.shrink`)."""
    from .shrink import main as shrink_main

    return shrink_main(args)


def cmd_repro(args: argparse.Namespace) -> int:
    """Write the reproducer of a shrunk case, with a workaround (see :mod:`.workaround`)."""
    import json

    from .oracle import Oracle
    from .program import build
    from .shrink import reproducer

    with open(args.shrunk) as f:
        obj = json.load(f)
    case = obj.get("case", obj)
    prog = build(case["params"], Oracle(case["params"]["triton"], table=case["table"]))
    text = reproducer(case, prog, obj.get("record"), workaround=args.workaround)
    with open(args.out, "w") as f:
        f.write(text)
    return 0


def cmd_emulate(args: argparse.Namespace) -> int:
    """Run data-movement cases through this Triton's PTX on CPU (see :mod:`.ptxemu`)."""
    from .ptxemu import main as emulate_main

    return emulate_main(args)


def cmd_pack(args: argparse.Namespace) -> int:
    """Compile cases with this Triton into cubins for ``xrun`` (see :mod:`.xrelease`)."""
    from .xrelease import pack

    return pack(args)


def cmd_xrun(args: argparse.Namespace) -> int:
    """Run packed cubins of any release on this GPU (see :mod:`.xrelease`)."""
    from .xrelease import xrun

    return xrun(args)


def cmd_bundle(args: argparse.Namespace) -> int:
    """Pack a run's output into a few files (see :mod:`.bundle`)."""
    from .bundle import main as bundle_main

    return bundle_main(args)


def cmd_replay(args: argparse.Namespace) -> int:
    """Check recorded results without a GPU (see :mod:`.replay`)."""
    from .replay import main as replay_main

    return replay_main(args)


def cmd_campaign(args: argparse.Namespace) -> int:
    """Make or check the campaign case files (see :mod:`.manifest`)."""
    from .manifest import main as campaign_main

    return campaign_main(args)


def parser() -> argparse.ArgumentParser:
    """Return the argument parser of every subcommand."""
    ap = argparse.ArgumentParser(
        prog="python -m linear_layout_conformance",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="cmd")
    r = sub.add_parser("run", help="generate, compile, run and classify (the default)")
    _common_case_args(r)
    r.add_argument("--out", required=True, help="output directory")
    r.add_argument("--cases", help="read cases from this file instead of generating them")
    r.add_argument("--max-seconds", type=float, help="stop handing out cases after this long")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="worker processes")
    r.add_argument(
        "--dry-run", action="store_true", help="compile only (no GPU), check expectations"
    )
    r.add_argument(
        "--python", help="python with triton (and torch) for the workers (default: this one)"
    )
    r.add_argument("--cache", help="compile cache directory (default OUT/cache)")
    r.add_argument("--compile-timeout", type=float, default=300.0, help="seconds per compile")
    r.add_argument("--run-timeout", type=float, default=30.0, help="seconds per case on the GPU")
    g = sub.add_parser("generate", help="write a case file")
    _common_case_args(g)
    g.add_argument("--out", required=True, help="case file (.jsonl or .jsonl.gz)")
    s = sub.add_parser("shrink", help="shrink a failing case and write a reproducer")
    s.add_argument(
        "case", help="a failures/ID.json file, a case record (.json), or a failures .jsonl(.gz)"
    )
    s.add_argument("--id", help="the case to take from a .jsonl(.gz) of failures (default: first)")
    s.add_argument(
        "--out", help="directory for the shrunk case and reproducer (default: next to CASE)"
    )
    s.add_argument("--python", help="python with triton (and torch) (default: this one)")
    s.add_argument(
        "--dry-run", action="store_true", help="compile-only predicate (compile failures)"
    )
    s.add_argument("--binary", help="our CLI binary, to lay out shrunk cases")
    s.add_argument("--max-tries", type=int, default=300, help="candidate cases to try at most")
    s.add_argument("--run-timeout", type=float, default=30.0)
    s.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="worker processes")
    s.add_argument("--simulate", help="no GPU: inject this synthetic fault (JSON, see fault.py)")
    s.add_argument("--compile-timeout", type=float, default=300.0)
    w = sub.add_parser("repro", help="write the reproducer of a shrunk case (with a workaround)")
    w.add_argument("shrunk", help="a shrunk.json that `shrink` wrote")
    w.add_argument("--out", required=True, help="the script to write")
    w.add_argument("--workaround", help="also hold the module rewritten so (see workaround.py)")
    e = sub.add_parser("emulate", help="replay cases through this Triton's PTX on CPU")
    e.add_argument("file", help="a shrunk.json, or a .jsonl(.gz) of {case, record} lines")
    e.add_argument("--workaround", help="rewrite each module first (see workaround.py)")
    k = sub.add_parser("pack", help="compile cases with this Triton into cubins (no GPU)")
    k.add_argument("file", help="a shrunk.json, or a .jsonl(.gz) of cases or {case, record}")
    k.add_argument("--out", required=True, help="the .jsonl to append the kernels to")
    k.add_argument("--workaround", help="rewrite each module first (see workaround.py)")
    k.add_argument("--ptxas", help="assemble this Triton's PTX with that ptxas instead")
    k.add_argument("--ptx-version", help="with --ptxas: rewrite the PTX ISA version first")
    x = sub.add_parser("xrun", help="run packed cubins of any release on this GPU")
    x.add_argument("packed", help="a .jsonl that `pack` wrote")
    x.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="processes at once")
    x.add_argument("--index", type=int, help="run only this kernel, in this process")
    b = sub.add_parser("bundle", help="pack a run's output directory into a few files")
    b.add_argument("src", help="the run's output directory")
    b.add_argument("dest", help="where to write the files")
    b.add_argument("--prefix", default="conformance", help="file name prefix")
    p = sub.add_parser("replay", help="check recorded GPU results without a GPU")
    p.add_argument("results", help="results.jsonl(.gz) of a run (cases.jsonl.gz next to it)")
    p.add_argument("--cases", help="the case file (default: cases.jsonl.gz next to RESULTS)")
    from .manifest import add_parser

    add_parser(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["lang"]:  # the Python-language families (see lang/cli.py)
        from .lang.cli import main as lang_main

        return lang_main(argv[1:])
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv = ["run", *argv]
    args = parser().parse_args(argv)
    args.count_given = any(a.startswith("--count") for a in argv)
    commands = {
        "run": cmd_run,
        "generate": cmd_generate,
        "shrink": cmd_shrink,
        "repro": cmd_repro,
        "emulate": cmd_emulate,
        "pack": cmd_pack,
        "xrun": cmd_xrun,
        "replay": cmd_replay,
        "bundle": cmd_bundle,
        "campaign": cmd_campaign,
    }
    return commands[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
