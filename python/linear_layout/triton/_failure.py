"""A contained compile failure: the record, the exception, and the failures file.

Every failure of a contained compile (``_contain``) becomes a
:class:`CompileFailure`: the release and target, the kernel and its
configuration, the stage it was in, how it ended (an exception, a signal, an
exit status, a timeout), Triton's log, ``explain``'s answer (the crate's
matching of the log against every failure site: a site, or unknown), and a
standalone reproducer (``_repro``). It is raised as a
:class:`ContainedCompileError` that the installed release's autotuner skips.

Each failure the layout model did not predict is also appended, as one JSON
object a line, to the failures file (``failures.jsonl``), which a user can
read, send, or give to ``linear-layout explain``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

#: The ``schema`` of every line of the failures file.
SCHEMA = "linear-layout/compile-failure/1"
LOG_KEEP = 64 * 1024  # characters of Triton's log kept in a record (the tail)

_lock = threading.Lock()


def _new_lock_after_fork() -> None:
    # a forked compile child must not wait on a lock another thread of the
    # parent held at the fork
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)


def default_failures_path() -> str:
    """``$LINEAR_LAYOUT_FAILURES``, else ``$XDG_CACHE_HOME/linear_layout/failures.jsonl``."""
    env = os.environ.get("LINEAR_LAYOUT_FAILURES")
    if env:
        return env
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "linear_layout", "failures.jsonl")


@dataclass
class CompileFailure:
    """One compile that failed inside its contained child.

    Attributes:
        id: a short digest of the release, the kernel's compile request and
            the ending (the same failure gets the same id).
        release: the modelled release (``"3.2"``...).
        triton_version: the installed ``triton.__version__``.
        target: ``{"backend", "arch", "warp_size"}``.
        kernel: the kernel's name, when known.
        config: ``num_warps``, ``num_stages``, ``num_ctas`` and the constexpr
            arguments of the compile.
        stage: the pipeline stage it ended in (``ttgir``, ``llir``...), or
            ``None`` before the first one (Triton's code generator).
        ending: ``SIGABRT``, ``SIGSEGV``, ``exit status 1``, ``timeout
            (killed after 600 s)``, ``exception RuntimeError``...
        exception: ``Type: message`` of a Python exception, if one was raised.
        message: the line that says what failed (an assertion, ``LLVM
            ERROR``, the exception), as well as it can be told.
        log: the tail of what the compile printed (Triton's log).
        predicted: whether the layout model predicted it (a
            ``LayoutCompileError``: not written to the failures file).
        explain: ``explain``'s answer on the log: ``known``, ``site``,
            ``title``, ``fixed_in``, ``workaround``, ``nearest``.
        reproducer: the path of the standalone script, if one was written.
        reproducer_script: the script itself.
        ttgir: the failing stage's input when it is a TTGIR module (the
            reproducer holds it too), for ``linear-layout explain`` to check
            with the model.
        seconds: how long the compile ran before it ended.
        recorded_in: the failures file the record was appended to, if any.

    """

    id: str
    release: str
    triton_version: str
    target: dict[str, Any]
    kernel: str | None
    config: dict[str, Any]
    stage: str | None
    ending: str
    exception: str | None
    message: str
    log: str
    predicted: bool = False
    explain: dict[str, Any] = field(default_factory=dict)
    reproducer: str | None = None
    reproducer_script: str | None = None
    ttgir: str | None = None
    seconds: float = 0.0
    recorded_in: str | None = None
    time: str = ""

    @property
    def site(self) -> str | None:
        """The failure site ``explain`` names, or None (unknown)."""
        site = self.explain.get("site")
        return site if isinstance(site, str) else None

    def describe(self) -> str:
        """Say in a few lines what failed, where, what ``explain`` says, and the reproducer."""
        name = f"kernel {self.kernel!r}" if self.kernel else "a kernel"
        where = f" in stage {self.stage!r}" if self.stage else " before the first stage"
        arch = self.target.get("arch")
        lines = [
            f"linear_layout: Triton {self.triton_version} failed compiling {name} for "
            f"{self.target.get('backend', '?')} {arch}: {self.ending}{where}. The compile "
            "ran in a child process; this process goes on.",
            f"  config: {format_config(self.config)}",
            f"  Triton: {self.message or '(no message)'}",
        ]
        if self.site:
            fixed_in = self.explain.get("fixed_in")
            fixed = f"; fixed in Triton {fixed_in}" if fixed_in else ""
            lines.append(f"  explain: site {self.site}: {self.explain.get('title') or ''}{fixed}")
            if self.explain.get("workaround"):
                lines.append(f"  workaround: {self.explain['workaround']}")
        elif self.explain.get("front_end"):
            lines.append(f"  explain: a front-end rejection: {self.explain['front_end']}")
        else:
            lines.append("  explain: unknown (no modelled failure site prints this)")
        if self.reproducer:
            lines.append(f"  reproducer: {self.reproducer}")
        if self.recorded_in:
            lines.append(
                f"  recorded in: {self.recorded_in} (`linear-layout explain {self.recorded_in}`)"
            )
        return "\n".join(lines)

    def explain_text(self) -> str:
        """Return the log ``explain`` reads for this failure (as ``linear-layout explain`` does).

        The version, the configuration and the target, then Triton's log, the
        key line and the failing stage's TTGIR: what ``explain/records.rs``
        makes of a line of the failures file.
        """
        lines = [f"triton=={self.triton_version}"]
        lines += [f"{k}={v}" for k, v in self.config.items()]
        if isinstance(self.target.get("arch"), int):
            lines.append(f"capability={self.target['arch']}")
        lines += [self.log, self.message]
        if self.ttgir:
            lines.append(self.ttgir)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """Return the record as the failures file holds it (``from_json`` reads it back)."""
        d = asdict(self)
        d["schema"] = SCHEMA
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CompileFailure:
        """Read one line of the failures file."""
        fields = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**fields)


def format_config(config: dict[str, Any]) -> str:
    """``num_warps=8, num_stages=3, BLOCK_M=128`` (in that order: options first)."""
    return ", ".join(f"{k}={v}" for k, v in config.items()) or "?"


def failure_id(release: str, request: str, ending: str) -> str:
    """Return a short digest naming the failure."""
    return hashlib.sha256(f"{release}\0{request}\0{ending}".encode()).hexdigest()[:16]


def explain_log(text: str) -> dict[str, Any]:
    """``linear_layout.explain`` on a log, reduced to what a record keeps."""
    from linear_layout import explain

    try:
        e = explain(text)
    except Exception as err:  # explain never raises on a str; say so if it ever does
        return {"known": False, "error": str(err)}
    site = e.site
    out: dict[str, Any] = {
        "known": bool(e.known),
        "site": site.site if site is not None else None,
        "title": site.title if site is not None else None,
        "releases": list(site.releases) if site is not None else [],
        "fixed_in": site.fixed_in if site is not None else None,
        "workaround": site.workaround if site is not None else None,
        "front_end": e.front_end["message"] if e.front_end is not None else None,
        "generic": e.generic,
        "others": [o.site for o in e.others],
        "key_lines": list(e.key_lines),
        "nearest": [n["site"] for n in e.nearest][:3],
    }
    return out


def append(failure: CompileFailure, path: str) -> None:
    """Append ``failure`` as one line to the failures file at ``path`` (created as needed)."""
    line = json.dumps(failure.to_json(), default=str) + "\n"
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with _lock:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            if sys.platform != "win32":
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)  # other processes append too
            os.write(fd, line.encode())
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)


def read(path: str) -> list[CompileFailure]:
    """Read every record of a failures file (lines of other kinds are skipped)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and d.get("schema") == SCHEMA:
                out.append(CompileFailure.from_json(d))
    return out


def now() -> str:
    """Return the time as a record writes it (UTC, ISO 8601)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# ----------------------------------------------------------------- the error


class ContainedCompileError(Exception):
    """A Triton compile that failed in its contained child; this process goes on.

    What is raised is an instance of a subclass made per failure
    (:func:`error_class`): of this class, of the installed release's
    exception that ``triton.autotune`` skips a configuration on (so the
    autotune goes on), and, where the compile raised one, of that
    exception's own class (so ``except CompilationError`` still catches a
    front-end error). Catch this class to handle every release alike.

    Attributes:
        failure: the :class:`CompileFailure` (configuration, stage, ending,
            Triton's log, ``explain``'s answer, the reproducer).
        original: the compile's own exception, when it raised one that could
            be brought back from the child.

    """

    failure: CompileFailure
    original: BaseException | None

    def __init__(self, failure: CompileFailure, original: BaseException | None = None) -> None:
        self.failure = failure
        self.original = original
        text = failure.describe()
        Exception.__init__(self, text)
        # what Triton's own exception classes print or read
        self.error_message = text
        self.message = text
        self.src = None
        self.node = None
        self.required = None
        self.limit = None
        self.name = "compile"

    def __str__(self) -> str:
        return self.message

    #: the compile's own exception class a made class stands for (module, name)
    _original: tuple[str, str] = ("", "")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.failure.to_json(), self._original))


_CLASSES: dict[tuple[str, str], type[ContainedCompileError]] = {}


def error_class(original: type[BaseException] | None = None) -> type[ContainedCompileError]:
    """Return the class to raise: ContainedCompileError, what is skipped, ``original``."""
    from ._errors import skip_bases

    key = (original.__module__, original.__qualname__) if original is not None else ("", "")
    with _lock:
        cls = _CLASSES.get(key)
    if cls is not None:
        return cls
    skip = skip_bases()
    bases: list[type] = [ContainedCompileError]
    if (
        original is not None
        and issubclass(original, Exception)
        and not issubclass(original, ContainedCompileError)
        and not any(issubclass(s, original) for s in skip)
    ):
        bases.append(original)
    bases += [s for s in skip if not any(issubclass(b, s) for b in bases)]
    # ContainedRuntimeError, ContainedCompilationError...; SkippableContainedCompileError
    name = "SkippableContainedCompileError"
    if original is not None:
        name = f"Contained{original.__name__}"
    doc = (
        "A failed Triton compile, contained; also what the installed release's autotuner "
        "skips" + (f", and a {original.__name__}" if original is not None else "") + "."
    )
    try:
        attrs = {"__module__": "linear_layout.triton", "__doc__": doc, "_original": key}
        cls = type(name, tuple(bases), attrs)
    except TypeError:  # an exception class that cannot be combined (its layout)
        if original is None:
            raise
        return error_class(None)
    with _lock:
        _CLASSES[key] = cls
    return cls


def _rebuild(record: dict[str, Any], original: tuple[str, str]) -> ContainedCompileError:
    module = sys.modules.get(original[0]) if original[0] else None
    cls = getattr(module, original[1], None) if module is not None else None
    base = cls if isinstance(cls, type) and issubclass(cls, BaseException) else None
    return error_class(base)(CompileFailure.from_json(record))
