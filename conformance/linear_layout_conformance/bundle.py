"""Packing a run's output directory into a few files.

The GPU machine's output folder returns at most 8 files of at most 16 MiB.

``bundle SRC DEST --prefix NAME`` writes, directly in ``DEST``:

``NAME-results.jsonl.gz``   every record (outputs of wrong cases as kept)
``NAME-failures.jsonl.gz``  ``{"case", "record"}`` of every case not passing, compile
                            failures included (with their module text); outputs left
                            out: they are in the results.  Wrong results first, then
                            GPU errors, then compile failures.  A line is all that
                            ``shrink`` needs (parameters, the crate's layouts, the
                            module, the verdict to reproduce)
``NAME-summary.txt``        the summary table, then ``summary.json``
``NAME-logs.txt.gz``        the end of each worker's log

Four files a run, so that two runs fit in one call.

A file that would pass the size limit keeps its first lines only and says so
in a last line ``{"truncated": N}``.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import sys

LIMIT = 15 * 1024 * 1024  # bytes of compressed output per file


class _Capped:
    """A gzip JSON Lines writer that stops before ``limit`` compressed bytes."""

    def __init__(self, path: str, limit: int = LIMIT) -> None:
        self.path = path
        self.limit = limit
        self.raw = open(path, "wb")  # noqa: SIM115 (closed in close())
        self.gz = gzip.GzipFile(fileobj=self.raw, mode="wb", compresslevel=6)
        self.left_out = 0
        self.written = 0

    def write(self, obj: object) -> None:
        """Write one line unless the file is full."""
        line = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        # the compressed size is only known after a flush: estimate with a margin
        if self.left_out or self.raw.tell() + len(line) // 3 > self.limit:
            self.left_out += 1
            return
        self.gz.write(line)
        self.written += 1
        if self.written % 200 == 0:
            self.gz.flush()

    def close(self) -> None:
        """Finish the file (noting what was left out)."""
        if self.left_out:
            self.gz.write((json.dumps({"truncated": self.left_out}) + "\n").encode())
        self.gz.close()
        self.raw.close()


def _priority(verdict: str | None) -> int:
    """Order of failures in the bundle: wrong values, then GPU errors, then compiles."""
    if verdict == "wrong":
        return 0
    if verdict in ("compile_error", "compile_crash", "compile_timeout", "invalid_ir"):
        return 2
    return 1


def bundle(src: str, dest: str, prefix: str) -> list[str]:
    """Pack the run in ``src`` into ``dest``; return the files written."""
    os.makedirs(dest, exist_ok=True)
    out = []
    p = os.path.join(dest, f"{prefix}-results.jsonl.gz")
    w = _Capped(p)
    res = os.path.join(src, "results.jsonl")
    if os.path.exists(res):
        with open(res) as f:
            for line in f:
                if line.strip():
                    w.write(json.loads(line))
    w.close()
    out.append(p)
    p = os.path.join(dest, f"{prefix}-failures.jsonl.gz")
    w = _Capped(p)
    objs = []
    for path in sorted(glob.glob(os.path.join(src, "failures", "*.json"))):
        with open(path) as f:
            obj = json.load(f)
        obj.get("record", {}).pop("outputs", None)
        objs.append(obj)
    # what the GPU got wrong first: a full file then drops compile failures (which
    # the finder can redo on CPU), not the cases to shrink on the device
    objs.sort(key=lambda o: _priority(o.get("record", {}).get("verdict")))
    for obj in objs:
        w.write(obj)
    w.close()
    out.append(p)
    p = os.path.join(dest, f"{prefix}-summary.txt")
    with open(p, "w") as f:
        for name in ("summary.txt", "summary.json"):
            if os.path.exists(os.path.join(src, name)):
                with open(os.path.join(src, name)) as g:
                    f.write(g.read() + "\n")
    out.append(p)
    p = os.path.join(dest, f"{prefix}-logs.txt.gz")
    with gzip.open(p, "wt") as g:
        for log in sorted(glob.glob(os.path.join(src, "logs", "*.log"))):
            with open(log, errors="replace") as f:
                f.seek(max(0, os.path.getsize(log) - 300_000))
                g.write(f"===== {os.path.basename(log)} (last 300 kB)\n{f.read()}\n")
    out.append(p)
    return out


def main(args: argparse.Namespace) -> int:
    """Run ``bundle SRC DEST --prefix NAME``."""
    files = bundle(args.src, args.dest, args.prefix)
    for f in files:
        print(f"bundle: {f} ({os.path.getsize(f)} bytes)", file=sys.stderr)
    return 0
