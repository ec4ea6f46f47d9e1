"""The pre-generated campaign case files, and making them again.

``campaign/MANIFEST.json`` lists every case file of ``campaign/`` with the
seed, count, release and target it was generated with, its families and
the sha256 of its bytes (:func:`~.runner.write_cases` writes the same bytes
for the same cases).  The case files themselves are not kept in git
(``campaign/.gitignore``): generation is deterministic and takes about a
minute for the 24,400 cases here, so

``campaign``            makes every listed file that is missing or differs,
                        and fails if what it makes is not what the manifest
                        says (the generator changed: see ``--update``);
``campaign --check``    only verifies the files present (exit 1 on a mismatch);
``campaign --update``   generates every file anew and rewrites the manifest.

``generator`` in the manifest is a hash of the sources that decide a case
record (:data:`GENERATOR_SOURCES`) and of the CLI's version: when it differs
from the current one, ``campaign`` says so before it generates.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import time
from collections import Counter
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
CAMPAIGN = os.path.join(HERE, "campaign")
MANIFEST = os.path.join(CAMPAIGN, "MANIFEST.json")
ABOUT = (
    "Pre-generated conformance cases: TTGIR for Triton {triton}, sm{cap}, printed and laid "
    "out by our crate for that release. Not in git: make them with `python "
    "conformance/linear_layout_conformance/__main__.py campaign` (deterministic; about a minute)."
)


# the modules whose code decides a case record (parameters, layouts, module text)
GENERATOR_SOURCES = (
    "cases.py",
    "emit.py",
    "generate.py",
    "layouts.py",
    "ll.py",
    "oracle.py",
    "program.py",
)


def file_sha256(path: str) -> str:
    """Return the sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def generator_id(binary: str | None = None) -> str:
    """Return a hash of the generator: this package's sources and the CLI's version."""
    from .oracle import default_binary

    h = hashlib.sha256()
    for name in GENERATOR_SOURCES:
        with open(os.path.join(HERE, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    exe = binary or default_binary()
    if exe:
        try:
            v = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
            h.update(v.stdout.strip().encode())
        except OSError:
            pass
    return h.hexdigest()[:16]


def read_manifest(path: str = MANIFEST) -> dict[str, Any]:
    """Return the manifest."""
    with open(path) as f:
        man: dict[str, Any] = json.load(f)
    return man


def families(path: str) -> dict[str, int]:
    """Count the cases of each family in a case file."""
    c: Counter[str] = Counter()
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.strip():
                c[json.loads(line)["params"]["family"]] += 1
    return dict(c)


def make_file(name: str, entry: dict[str, Any], dest: str, binary: str | None) -> str:
    """Generate the case file ``name`` of a manifest ``entry`` into ``dest``; return its path."""
    from .cases import make_cases
    from .oracle import Oracle
    from .runner import write_cases

    oracle = Oracle(entry["triton"], binary=binary)
    t0 = time.time()
    cases = make_cases(entry["count"], entry["seed"], entry["triton"], entry["cap"], oracle=oracle)
    path = os.path.join(dest, name)
    write_cases(path, cases)
    print(
        f"campaign: {name}: {len(cases)} cases of seed {entry['seed']} in {time.time() - t0:.0f} s",
        file=sys.stderr,
    )
    return path


def main(args: argparse.Namespace) -> int:
    """Run ``campaign [--check | --update] [--only NAME]``."""
    man = read_manifest(args.manifest)
    dest = os.path.dirname(os.path.abspath(args.manifest))
    names = [n for n in man["files"] if not args.only or n in args.only.split(",")]
    gen = generator_id(args.binary)
    if man.get("generator") and man["generator"] != gen and not args.update:
        print(
            f"campaign: the generator changed since the manifest was written "
            f"({man['generator']} -> {gen}); files made now may differ (--update rewrites it)",
            file=sys.stderr,
        )
    bad = 0
    for name in names:
        entry = man["files"][name]
        path = os.path.join(dest, name)
        have = os.path.exists(path) and file_sha256(path) == entry.get("sha256")
        if args.check:
            if not os.path.exists(path):
                print(f"campaign: {name}: missing", file=sys.stderr)
            elif not have:
                print(f"campaign: {name}: sha256 differs from the manifest", file=sys.stderr)
                bad += 1
            else:
                print(f"campaign: {name}: ok", file=sys.stderr)
            continue
        if have and not args.update:
            print(f"campaign: {name}: ok", file=sys.stderr)
            continue
        make_file(name, entry, dest, args.binary)
        sha = file_sha256(path)
        if args.update:
            entry["sha256"] = sha
            entry["families"] = families(path)
        elif sha != entry.get("sha256"):
            print(
                f"campaign: {name}: made {sha[:16]}, the manifest says "
                f"{str(entry.get('sha256'))[:16]} (generator changed? --update)",
                file=sys.stderr,
            )
            bad += 1
    if args.update:
        first = man["files"][names[0]] if names else {"triton": "3.6", "cap": 90}
        man["about"] = ABOUT.format(triton=first["triton"], cap=first["cap"])
        man["generator"] = gen
        with open(args.manifest, "w") as f:
            json.dump(man, f, indent=1)
            f.write("\n")
        print(f"campaign: wrote {args.manifest}", file=sys.stderr)
    return 1 if bad else 0


def add_parser(sub: Any) -> None:
    """Add the ``campaign`` subcommand to an argparse subparsers object."""
    c = sub.add_parser("campaign", help="make (or check) the pre-generated campaign case files")
    c.add_argument("--check", action="store_true", help="only verify the files present")
    c.add_argument("--update", action="store_true", help="regenerate all, rewrite the manifest")
    c.add_argument("--only", help="comma-separated file names of the manifest")
    c.add_argument("--manifest", default=MANIFEST, help="the manifest (default campaign/)")
    c.add_argument("--binary", help="our CLI binary (default: target/release/linear-layout)")
