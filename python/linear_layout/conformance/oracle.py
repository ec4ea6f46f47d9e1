"""Our crate's answer to "which linear layout does this attribute give".

The fuzzer asks it for every layout attribute it writes into a kernel: an
attribute the crate rejects for a shape is not drawn (it does not fit), and
the layouts it returns say where each element lives, which the fuzzer needs
to write the result types of shape ops and to name wrong elements by thread
and register.

Answers come from, in order of preference: a table of precomputed answers
(case files carry theirs to the GPU machine), the Python extension
``linear_layout`` if it is installed and offers ``to_linear_layout``, or the
CLI binary's ``convert --batch`` (JSON Lines).  The CLI answers only at end
of input, so requests are batched: :class:`MissingLayoutsError` lets a builder say
which answers it is missing, the caller fetches them all at once and builds
again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from typing import Any

from .ll import Layout

Request = tuple[str, tuple[int, ...], int]  # (attribute text, shape, element bits)


class MissingLayoutsError(Exception):
    """Raised by a builder that needs answers the oracle does not have yet."""

    def __init__(self, requests: Iterable[Request]) -> None:
        self.requests = list(requests)
        super().__init__(f"{len(self.requests)} layouts needed")


class LayoutRejectedError(Exception):
    """The crate has no layout for this attribute and shape (does not fit)."""


def default_binary() -> str | None:
    """Return the CLI binary.

    That is ``$LINEAR_LAYOUT_BIN``, ``target/release/linear-layout`` of this
    checkout, or ``linear-layout`` on ``PATH``.
    """
    env = os.environ.get("LINEAR_LAYOUT_BIN")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for up in (3, 4):
        root = here
        for _ in range(up):
            root = os.path.dirname(root)
        cand = os.path.join(root, "target", "release", "linear-layout")
        if os.access(cand, os.X_OK):
            return cand
    return shutil.which("linear-layout")


class Oracle:
    """Cached answers of our crate for ``(attribute, shape, element bits)``.

    ``triton`` is the release whose conversions to model, in the CLI's
    spelling (``3.7`` covers 3.5 and 3.6).
    """

    def __init__(
        self, triton: str = "3.7", binary: str | None = None, table: dict | None = None
    ) -> None:
        self.triton = triton
        self.binary = binary
        self.cache: dict[Request, dict[str, Any]] = {}
        self.calls = 0
        if table:
            self.load_table(table)

    # ------------------------------------------------------------ answers

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
        if os.environ.get("LINEAR_LAYOUT_NO_EXTENSION"):
            return None
        try:
            import linear_layout  # type: ignore[import-not-found]

            convert = linear_layout.to_linear_layout
            no_layout = linear_layout.NoLayoutError
            layout_error = linear_layout.LayoutError
        except Exception:
            return None
        out: list[dict[str, Any]] = []
        for attr, shape, bits in todo:
            try:
                res = convert(attr, list(shape), release=self.triton, elem_bits=bits)
            except no_layout as e:
                out.append({"none": str(e)})
                continue
            except layout_error as e:
                out.append(
                    {"error": {"kind": getattr(e, "kind", "layout_error"), "message": str(e)}}
                )
                continue
            except Exception:
                return None  # not the interface this module knows: use the CLI
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
        binary = self.binary or default_binary()
        if not binary:
            raise RuntimeError(
                "no layout oracle: build the CLI (cargo build --release) or set LINEAR_LAYOUT_BIN"
            )
        lines = "".join(
            json.dumps({"attr": a, "shape": list(s), "elem_bits": b, "triton": self.triton}) + "\n"
            for a, s, b in todo
        )
        p = subprocess.run(
            [binary, "convert", "--batch"], input=lines, capture_output=True, text=True, check=False
        )
        out = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
        if len(out) != len(todo):
            raise RuntimeError(
                f"convert --batch answered {len(out)} of {len(todo)}: {p.stderr[-500:]}"
            )
        return out

    # ------------------------------------------------------------ tables

    def table(self, keys: Iterable[Request] | None = None) -> dict[str, Any]:
        """Return the cached answers (all, or those of ``keys``) as JSON-able data."""
        ks = self.cache.keys() if keys is None else keys
        return {
            "triton": self.triton,
            "answers": [[a, list(s), b, self.cache[(a, tuple(s), b)]] for a, s, b in ks],
        }

    def load_table(self, table: dict[str, Any]) -> None:
        """Add answers saved by :meth:`table`."""
        for a, s, b, ans in table.get("answers", []):
            self.cache[(a, tuple(s), b)] = ans


def build_with(oracle: Oracle, fn: Any, *args: Any, rounds: int = 8) -> Any:
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
