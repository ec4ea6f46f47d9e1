"""Our crate's answers: the release table, attribute texts and layouts.

The fuzzer writes no TTGIR attribute and knows no release itself: for each
layout it asks the crate how the case's release spells it (the crate's
printer) and which linear layout that release builds from it for a shape.
An attribute the crate rejects for a shape is not drawn (it does not fit),
and the layouts say where each element lives, which the fuzzer needs to
write the result types of shape ops and to name wrong elements by thread
and register. How the release spells the rest of a module (dialects,
memdesc types, which attributes and ops exist) is its row of the crate's
release table (``linear-layout releases --json``).

Answers come from, in order of preference: a table of answers (case files
carry theirs, so that the GPU machine needs no crate), the Python extension
``linear_layout`` if it is installed, or the CLI binary (``releases
--json``, ``print-attr --batch`` kept running, ``convert --batch``).
Layouts are fetched in batches: :class:`MissingLayoutsError` lets a builder
say which answers it is missing, the caller fetches them all at once and
builds again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from .ll import Layout

Request = tuple[str, tuple[int, ...], int]  # (attribute text, shape, element bits)
Row = dict[str, Any]  # a row of the crate's release table


class MissingLayoutsError(Exception):
    """Raised by a builder that needs answers the oracle does not have yet."""

    def __init__(self, requests: Iterable[Request]) -> None:
        self.requests = list(requests)
        super().__init__(f"{len(self.requests)} layouts needed")


class LayoutRejectedError(Exception):
    """The crate has no layout for this attribute and shape (does not fit)."""


class NoCrateError(RuntimeError):
    """Neither the extension nor the CLI binary can answer, and no table does."""


def default_binary() -> str | None:
    """Return the CLI binary.

    That is ``$LINEAR_LAYOUT_BIN``, ``target/release/linear-layout`` of this
    checkout, or ``linear-layout`` on ``PATH``.
    """
    env = os.environ.get("LINEAR_LAYOUT_BIN")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for up in (2, 3, 4):
        root = here
        for _ in range(up):
            root = os.path.dirname(root)
        cand = os.path.join(root, "target", "release", "linear-layout")
        if os.access(cand, os.X_OK):
            return cand
    return shutil.which("linear-layout")


def _extension() -> Any:
    """Return the ``linear_layout`` extension, if it is installed (and not turned off)."""
    if os.environ.get("LINEAR_LAYOUT_NO_EXTENSION"):
        return None
    try:
        import linear_layout

        linear_layout.ttgir_attr  # noqa: B018  (an older extension lacks it: use the CLI)
    except Exception:
        return None
    return linear_layout


def _binary(binary: str | None) -> str:
    exe = binary or default_binary()
    if not exe:
        raise NoCrateError(
            "no crate to ask: install the linear_layout extension, build the CLI "
            "(cargo build --release) or set LINEAR_LAYOUT_BIN"
        )
    return exe


# ------------------------------------------------------------ the release table


@cache
def release_table(binary: str | None = None) -> tuple[Row, ...]:
    """Return the crate's release table, oldest first (``releases --json``'s rows)."""
    ext = _extension()
    if ext is not None:
        return tuple(r.to_dict() for r in ext.releases())
    p = subprocess.run(
        [_binary(binary), "releases", "--json"], capture_output=True, text=True, check=False
    )
    if p.returncode != 0:
        raise NoCrateError(f"releases --json failed: {p.stderr.strip()[-500:]}")
    rows: list[Row] = json.loads(p.stdout)["releases"]
    return tuple(rows)


def release_row(release: str, table: Iterable[Row]) -> Row:
    """Return the row of ``table`` for a release name or version (``"3.6"``, ``"3.6.0"``)."""
    m = re.match(r"\s*(\d+)\.(\d+)", release)
    minor = f"{m.group(1)}.{m.group(2)}" if m else release
    rows = list(table)
    for row in rows:
        if release == row["name"] or minor in row["minors"]:
            return row
    if release in ("newest", "latest") and rows:
        return rows[-1]
    names = ", ".join(r["name"] for r in rows)
    raise ValueError(f"Triton {release} is not a modelled release ({names})")


@cache
def site_table(binary: str | None = None) -> tuple[Row, ...]:
    """Return the crate's failure sites (``sites --json``'s ``sites``)."""
    ext = _extension()
    if ext is not None:
        return tuple(s.to_dict() for s in ext.sites())
    p = subprocess.run(
        [_binary(binary), "sites", "--json"], capture_output=True, text=True, check=False
    )
    if p.returncode != 0:
        raise NoCrateError(f"sites --json failed: {p.stderr.strip()[-500:]}")
    sites: list[Row] = json.loads(p.stdout)["sites"]
    return tuple(sites)


# ------------------------------------------------------------ printing


class _PrintProcess:
    """``linear-layout print-attr --batch``, kept running: one line in, one line out."""

    def __init__(self, binary: str) -> None:
        self.proc = subprocess.Popen(
            [binary, "print-attr", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.lock = threading.Lock()

    def ask(self, attr: dict[str, Any], release: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        with self.lock:
            self.proc.stdin.write(json.dumps({"attr": attr, "triton": release}) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        if not line:
            raise NoCrateError("print-attr --batch ended without an answer")
        answer: dict[str, Any] = json.loads(line)
        return answer


_PRINTERS: dict[str, _PrintProcess] = {}


def print_attr(attr: dict[str, Any], release: str, binary: str | None = None) -> str:
    """Return the crate's text of the attribute JSON ``attr`` as ``release`` spells it."""
    ext = _extension()
    if ext is not None:
        text: str = ext.ttgir_attr(attr, release=release)
        return text
    exe = _binary(binary)
    proc = _PRINTERS.get(exe)
    if proc is None or proc.proc.poll() is not None:
        proc = _PRINTERS[exe] = _PrintProcess(exe)
    answer = proc.ask(attr, release)
    if "ok" not in answer:
        raise ValueError(f"the crate cannot print {json.dumps(attr)[:300]}: {answer}")
    return str(answer["ok"])


def attr_key(attr: dict[str, Any]) -> str:
    """Return the key of an attribute JSON in the text cache (its canonical JSON)."""
    return json.dumps(attr, sort_keys=True, separators=(",", ":"))


# ------------------------------------------------------------ the oracle


class Oracle:
    """Cached answers of our crate for one release.

    ``triton`` is the release (a name of the crate's table, or a version it
    stands for, ``"3.6.0"``); a ``table`` saved by :meth:`table` brings the
    answers, attribute texts and release row it holds (give ``triton`` too
    for a table that holds no row: the case's release).
    """

    def __init__(
        self,
        triton: str | None = None,
        binary: str | None = None,
        table: dict[str, Any] | None = None,
    ) -> None:
        self.binary = binary
        self.cache: dict[Request, dict[str, Any]] = {}
        self.texts: dict[str, str] = {}
        self.calls = 0
        self._row: Row | None = None
        self._release = triton
        if table:
            self.load_table(table)
        elif triton is not None:
            self._row = release_row(triton, release_table(binary))

    # ------------------------------------------------------------ the release

    @property
    def row(self) -> Row:
        """The row of the crate's release table for this oracle's release."""
        if self._row is None:
            if self._release is None:
                raise ValueError("an oracle without a release (and a table without one)")
            self._row = release_row(self._release, release_table(self.binary))
        return self._row

    @property
    def triton(self) -> str:
        """The crate's name of this oracle's release (``"3.6"``)."""
        return str(self.row["name"])

    # ------------------------------------------------------------ attribute texts

    def attr(self, attr: dict[str, Any]) -> str:
        """Return the text of the attribute JSON ``attr`` in this release's spelling."""
        key = attr_key(attr)
        text = self.texts.get(key)
        if text is None:
            text = self.texts[key] = print_attr(attr, self.triton, self.binary)
        return text

    # ------------------------------------------------------------ layouts

    def lookup(self, attr: str, shape: Iterable[int], bits: int) -> Layout:
        """Return the layout of ``attr`` for ``shape``.

        Raises :class:`MissingLayoutsError` if not fetched yet, or
        :class:`LayoutRejectedError` if the crate has none.
        """
        key = (attr, tuple(shape), bits)
        ans = self.cache.get(key)
        if ans is None:
            raise MissingLayoutsError([key])
        if "ok" in ans:
            return Layout.from_json(ans["ok"])
        raise LayoutRejectedError(json.dumps(ans)[:300])

    def answer(self, key: Request) -> dict[str, Any] | None:
        """Return the raw cached answer for ``key`` (``None`` if not fetched)."""
        return self.cache.get(key)

    def fetch(self, requests: Iterable[Request]) -> None:
        """Fetch every request not cached yet, in one batch."""
        todo = sorted({r for r in requests if r not in self.cache})
        if not todo:
            return
        self.calls += 1
        answers = self._ask_extension(todo)
        if answers is None:
            answers = self._ask_cli(todo)
        for key, ans in zip(todo, answers):
            self.cache[key] = ans

    def _ask_extension(self, todo: list[Request]) -> list[dict[str, Any]] | None:
        """Ask ``linear_layout.to_linear_layout`` (``None`` if it is not there)."""
        ext = _extension()
        if ext is None:
            return None
        out: list[dict[str, Any]] = []
        for attr, shape, bits in todo:
            try:
                res = ext.to_linear_layout(attr, list(shape), release=self.triton, elem_bits=bits)
            except ext.NoLayoutError as e:
                out.append({"none": str(e)})
                continue
            except ext.LayoutError as e:
                out.append(
                    {"error": {"kind": getattr(e, "kind", "layout_error"), "message": str(e)}}
                )
                continue
            out.append(
                {
                    "ok": {
                        "bases": [[k, [list(b) for b in v]] for k, v in res.bases],
                        "out_dims": [[k, n] for k, n in res.out_dims],
                    }
                }
            )
        return out

    def _ask_cli(self, todo: list[Request]) -> list[dict[str, Any]]:
        lines = "".join(
            json.dumps({"attr": a, "shape": list(s), "elem_bits": b, "triton": self.triton}) + "\n"
            for a, s, b in todo
        )
        p = subprocess.run(
            [_binary(self.binary), "convert", "--batch"],
            input=lines,
            capture_output=True,
            text=True,
            check=False,
        )
        out = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
        if len(out) != len(todo):
            raise RuntimeError(
                f"convert --batch answered {len(out)} of {len(todo)}: {p.stderr[-500:]}"
            )
        return out

    # ------------------------------------------------------------ tables

    def table(self, keys: Iterable[Request] | None = None) -> dict[str, Any]:
        """Return the cached answers (all, or those of ``keys``) as JSON-able data.

        With them go what a build reads of the release's row (name,
        minors, ``ttgir`` spelling) and the attribute texts the answers are
        for, so that a build from the table needs no crate.
        """
        ks = list(self.cache.keys() if keys is None else keys)
        used = {a for a, _, _ in ks}
        # what a build reads of the release's row: its name and spelling
        release = {k: self.row[k] for k in ("name", "minors", "ttgir")}
        return {
            "triton": self.triton,
            "release": release,
            "texts": sorted([k, t] for k, t in self.texts.items() if t in used),
            "answers": [[a, list(s), b, self.cache[(a, tuple(s), b)]] for a, s, b in ks],
        }

    def load_table(self, table: dict[str, Any]) -> None:
        """Add answers saved by :meth:`table`.

        A table written before tables held the release's row (and texts)
        names the release its answers were made for only (``"3.7"`` stood
        for 3.5 and 3.6 then): its row comes from the crate when needed.
        """
        if table.get("release"):
            self._row = table["release"]
        elif self._release is None:
            self._release = table.get("triton")
        for key, text in table.get("texts", []):
            self.texts[key] = text
        for a, s, b, ans in table.get("answers", []):
            self.cache[(a, tuple(s), b)] = ans


def build_with(oracle: Oracle, fn: Callable[..., Any], *args: Any, rounds: int = 8) -> Any:
    """Call ``fn(*args)`` until it stops raising :class:`MissingLayoutsError`.

    What it asks for is fetched in between.
    """
    for _ in range(rounds):
        try:
            return fn(*args)
        except MissingLayoutsError as need:
            oracle.fetch(need.requests)
    return fn(*args)


class Recorder:
    """An oracle view that remembers which answers a build used."""

    def __init__(self, base: Oracle) -> None:
        self.base = base
        self.keys: list[Request] = []
        self._seen: set[Request] = set()

    @property
    def row(self) -> Row:
        """The base oracle's release row."""
        return self.base.row

    def attr(self, attr: dict[str, Any]) -> str:
        """As :meth:`Oracle.attr`."""
        return self.base.attr(attr)

    def lookup(self, attr: str, shape: Iterable[int], bits: int) -> Layout:
        """As :meth:`Oracle.lookup`, recording the request."""
        key = (attr, tuple(shape), bits)
        if key not in self._seen:
            self._seen.add(key)
            self.keys.append(key)
        return self.base.lookup(attr, shape, bits)

    def table(self) -> dict[str, Any]:
        """Return the answers used so far (for a case file)."""
        return self.base.table([k for k in self.keys if k in self.base.cache])
