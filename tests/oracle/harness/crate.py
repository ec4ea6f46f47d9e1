"""Our crate, asked through its CLI: the release table and the attribute printer.

No oracle script keeps a list of releases: the wheels, names and TTGIR
spelling of each release are its row of the table (``linear-layout releases
--json``). Every layout attribute the scripts compile, NVIDIA's and AMD's, is
given as data and printed by the crate in the release's spelling
(``linear-layout print-attr``, kept running as a :class:`~harness.child.Worker`).
"""

from __future__ import annotations

import json
import os
import re
import threading

from . import child

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def default_binary():
    """``$LINEAR_LAYOUT_BIN``, else this checkout's ``target/release/linear-layout``."""
    return os.environ.get("LINEAR_LAYOUT_BIN") or os.path.join(REPO, "target", "release", "linear-layout")


class Crate:
    """The CLI binary ``binary``: its release table and its printer."""

    TIMEOUT = 60

    def __init__(self, binary=None):
        self.binary = binary or default_binary()
        self._rows = None
        self._printer = None
        self._lock = threading.Lock()  # one request at a time on the printer

    def releases(self):
        """Every row of the release table, oldest first."""
        if self._rows is None:
            ended = child.run([self.binary, "releases", "--json"], timeout=self.TIMEOUT)
            if ended.returncode != 0:
                raise SystemExit(f"{self.binary} releases --json failed: {ended.stderr.strip()[-500:]}")
            self._rows = json.loads(ended.stdout)["releases"]
        return self._rows

    def row(self, release):
        """The row of a release name or version (``"3.6"``, ``"3.6.0"``, ``"newest"``)."""
        rows = self.releases()
        if release in ("newest", "latest"):
            return rows[-1]
        m = re.match(r"(\d+)\.(\d+)", release)
        minor = f"{m.group(1)}.{m.group(2)}" if m else release
        for row in rows:
            if release == row["name"] or minor in row["minors"]:
                return row
        raise SystemExit(f"Triton {release} is not a modelled release "
                         f"({', '.join(r['name'] for r in rows)})")

    def print_attr(self, attr, release):
        """The text of the attribute JSON ``attr`` as ``release`` spells it."""
        with self._lock:
            if self._printer is None or not self._printer.alive:
                self._printer = child.Worker([self.binary, "print-attr", "--batch"])
            answer = self._printer.ask({"attr": attr, "triton": release}, self.TIMEOUT)
        if answer is None:
            raise SystemExit(f"print-attr --batch ended: {self._printer.stderr_tail()}")
        if "ok" not in answer:
            raise ValueError(f"the crate cannot print {json.dumps(attr)[:300]}: {answer}")
        return answer["ok"]

    def close(self):
        if self._printer is not None:
            self._printer.close()
            self._printer = None
