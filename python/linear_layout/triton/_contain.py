"""Containment: a Triton compile that fails in any way becomes an exception the autotuner skips.

The layout model (``_hooks``) stops the compiles it predicts will fail.
Under it, every compile that is not already in Triton's cache runs in a
forked child (``_worker``); this process then loads the result from
Triton's on-disk cache, where the child left it. Whatever ends the child (an
exception from a pass, SIGABRT, SIGSEGV, ``LLVM ERROR``, a hang past the
time limit) becomes a :class:`~._failure.ContainedCompileError` here,
carrying Triton's log, ``explain``'s answer and a reproducer (``_failure``,
``_capture``); a failure the model did not predict is also appended to the
failures file.

How it reaches every compile: ``triton.compiler.compiler.compile`` is the
one function every compile goes through (the JIT, ``triton.compile``,
Inductor's ``triton.compile`` calls), but the JIT keeps its own reference to
it (``JITFunction.compile``, set when a kernel first runs), so replacing the
module attribute would miss every kernel that already ran. Instead the
function's code is replaced by a trampoline to :func:`compile_contained`,
which calls a copy of the original. Each backend compiler's ``add_stages``
is wrapped too: it is the first thing every release's ``compile()`` does
after finding no cached kernel, so a *probe* (the real ``compile()`` with a
flag set) returns a cached kernel at no cost and stops at ``add_stages``
otherwise, before any stage has run; in the child it reports each stage as
the stage starts.

A compile that failed once is not run again in this process: its failure is
kept (per source, target, options and mode) and raised again. Its
reproducer is ``_capture``'s.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import sys
import threading
import types
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import _capture, _failure, _worker
from ._failure import CompileFailure, ContainedCompileError

logger = logging.getLogger("linear_layout.triton")

DEFAULT_TIMEOUT = 600.0  # seconds; Triton compiles of large kernels take minutes


def _env_float(name: str, default: float | None) -> float | None:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 else None


@dataclass
class Settings:
    """What :func:`~linear_layout.triton.install` and ``guard`` configure."""

    #: seconds a compile may take before it counts as hung (None: no limit)
    timeout: float | None = field(
        default_factory=lambda: _env_float("LINEAR_LAYOUT_COMPILE_TIMEOUT", DEFAULT_TIMEOUT)
    )
    #: the failures file (JSON Lines)
    failures: str = field(default_factory=_failure.default_failures_path)
    #: compiles ``prune`` runs at once
    workers: int = field(
        default_factory=lambda: int(
            _env_float("LINEAR_LAYOUT_COMPILE_WORKERS", float(min(16, os.cpu_count() or 1))) or 1
        )
    )


settings = Settings()


class CacheMiss(Exception):  # noqa: N818 (a signal, not an error)
    """Raised by the probe when Triton's cache has no kernel for the compile."""


class Deferred(Exception):  # noqa: N818 (a signal, not an error)
    """Raised to a pruner's ``run`` call: the compile was started in a child of the batch."""


_PROBE: contextvars.ContextVar[bool] = contextvars.ContextVar("linear_layout_probe", default=False)
_BATCH: contextvars.ContextVar[Batch | None] = contextvars.ContextVar(
    "linear_layout_batch", default=None
)

_lock = threading.RLock()


def _new_lock_after_fork() -> None:
    # a forked compile child must not wait on a lock another thread of the
    # parent held at the fork
    global _lock
    _lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)
_original: Callable[..., Any] | None = None  # a copy of the untouched compile()
_TRAMPOLINE_NAME = "_linear_layout_compile"


# ------------------------------------------------------------------ requests


@dataclass
class Request:
    """One call of ``compile()``."""

    src: Any
    target: Any
    options: dict[str, Any] | None
    rest: tuple[Any, ...]
    kwargs: dict[str, Any]

    def call(self) -> Any:
        assert _original is not None
        return _original(self.src, self.target, self.options, *self.rest, **self.kwargs)

    def identity(self) -> str:
        """Say what the compile depends on: the source's hash, the target and the options.

        The check's mode too: a failure predicted under ``raise`` is a
        compile that goes on under ``warn``.
        """
        from . import _hooks

        try:
            source = str(self.src.hash())
        except Exception:
            source = f"{type(self.src).__name__}:{self.src!r}"
        options = sorted((str(k), repr(v)) for k, v in (self.options or {}).items())
        return f"{source}|{self.target!r}|{options!r}|{_hooks.current_mode()}"

    def kernel(self) -> str | None:
        name = getattr(self.src, "name", None)
        if isinstance(name, str):
            return name
        return os.path.basename(self.src) if isinstance(self.src, str) else None

    def config(self) -> dict[str, Any]:
        """Return the options people tune, then the constexpr arguments by name."""
        out: dict[str, Any] = {}
        opts = self.options or {}
        for k in ("num_warps", "num_stages", "num_ctas", "maxnreg"):
            if opts.get(k) is not None:
                out[k] = opts[k]
        constants = getattr(self.src, "constants", None)
        names = list(getattr(getattr(self.src, "fn", None), "arg_names", None) or [])
        if isinstance(constants, dict):
            for key, value in constants.items():
                i = key[0] if isinstance(key, tuple) and len(key) == 1 else key
                name = names[i] if isinstance(i, int) and 0 <= i < len(names) else str(key)
                if isinstance(value, (int, float, bool, str)) or value is None:
                    out[name] = value
                else:
                    out[name] = str(value)
        return out

    def target_dict(self) -> dict[str, Any]:
        t = self.target
        return {
            "backend": getattr(t, "backend", None),
            "arch": getattr(t, "arch", None),
            "warp_size": getattr(t, "warp_size", None),
        }


class _Memo:
    """Failures per request identity, so a failing compile is not run twice."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.data: OrderedDict[str, Callable[[], BaseException]] = OrderedDict()

    def get(self, key: str) -> Callable[[], BaseException] | None:
        with _lock:
            return self.data.get(key)

    def put(self, key: str, raise_again: Callable[[], BaseException]) -> None:
        with _lock:
            self.data[key] = raise_again
            while len(self.data) > self.size:
                self.data.popitem(last=False)


memo = _Memo()
_failures: list[CompileFailure] = []  # this process's contained failures, oldest first


def failures() -> list[CompileFailure]:
    """Every failure contained in this process so far (predicted ones included)."""
    with _lock:
        return list(_failures)


class Stats:
    """Counters, for tests and measurements."""

    forks = 0  # compile children started
    probe_hits = 0  # compiles found in Triton's cache by the probe
    memo_hits = 0  # failures raised again without a compile


# --------------------------------------------------------------- installing


def hook() -> Callable[[], None]:
    """Route every ``compile()`` through :func:`compile_contained`; return the undo."""
    global _original
    from triton.compiler import compiler as triton_compiler

    fn = triton_compiler.compile
    code = fn.__code__
    if fn.__closure__ or code.co_freevars:
        raise RuntimeError("linear_layout.triton: this Triton's compile() cannot be contained")
    original = types.FunctionType(
        code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    original.__kwdefaults__ = fn.__kwdefaults__
    original.__qualname__ = fn.__qualname__
    with _lock:
        _original = original
    fn.__globals__[_TRAMPOLINE_NAME] = compile_contained
    fn.__code__ = _trampoline.__code__
    undo_stages = _wrap_add_stages()

    def undo() -> None:
        undo_stages()
        fn.__code__ = code
        fn.__globals__.pop(_TRAMPOLINE_NAME, None)

    return undo


def _trampoline(src: Any, target: Any = None, options: Any = None, *rest: Any, **kw: Any) -> Any:
    # Becomes the code of Triton's compile(): the name is looked up in
    # Triton's module, where hook() put compile_contained.
    return _linear_layout_compile(src, target, options, *rest, **kw)  # type: ignore[name-defined]  # noqa: F821


def _wrap_add_stages() -> Callable[[], None]:
    """Wrap every backend compiler's ``add_stages``: the probe, and stage reports in a child."""
    from triton.backends import backends

    undos = []
    for backend in backends.values():
        cls = getattr(backend, "compiler", None)
        inner = getattr(cls, "__dict__", {}).get("add_stages")
        if cls is None or inner is None:
            continue

        def add_stages(
            self: Any, stages: dict[str, Any], *args: Any, _inner: Any = inner, **kw: Any
        ) -> Any:
            if _PROBE.get():
                raise CacheMiss
            result = _inner(self, stages, *args, **kw)
            if _worker.IN_CHILD:
                _track(stages)
            return result

        add_stages.__wrapped__ = inner  # type: ignore[attr-defined]
        cls.add_stages = add_stages

        def undo(cls: Any = cls, mine: Any = add_stages, inner: Any = inner) -> None:
            if cls.__dict__.get("add_stages") is mine:
                cls.add_stages = inner
            else:
                logger.warning(
                    "linear_layout.triton: %s.add_stages was replaced after containment was "
                    "installed; leaving the replacement in place",
                    cls.__name__,
                )

        undos.append(undo)

    def undo_all() -> None:
        for u in reversed(undos):
            u()

    return undo_all


def _track(stages: dict[str, Any]) -> None:
    """Child: report each stage as it starts; stop at the one whose input is captured."""
    names = list(stages)
    for i, name in enumerate(names):
        stages[name] = _tracked_stage(name, names[i - 1] if i else None, stages[name])


def _tracked_stage(
    name: str, previous: str | None, fn: Callable[[Any, dict[str, Any]], Any]
) -> Callable[[Any, dict[str, Any]], Any]:
    def stage(src: Any, metadata: dict[str, Any]) -> Any:
        _worker.send({"stage": name})
        _capture.at_stage(name, previous, src, metadata)
        return fn(src, metadata)

    return stage


# ----------------------------------------------------------------- compiling


def compile_contained(
    src: Any, target: Any = None, options: Any = None, *rest: Any, **kw: Any
) -> Any:
    """Triton's ``compile()``, contained while the guard or a pruner is active."""
    from . import _hooks

    assert _original is not None
    if _worker.IN_CHILD or not _hooks.containing() or not _worker.available():
        return _original(src, target, options, *rest, **kw)
    if target is None:
        # here, not in the child: the driver may hold a GPU context
        from triton.runtime import driver

        target = driver.active.get_current_target()
    req = Request(src, target, options, rest, kw)
    token = _PROBE.set(True)
    try:
        kernel = req.call()
    except CacheMiss:
        pass
    except Exception as e:
        # Triton's checks before any stage (options, source) failed here
        raise _conclude_failure(req, _outcome_here(e)) from None
    else:
        with _lock:
            Stats.probe_hits += 1
        return kernel
    finally:
        _PROBE.reset(token)
    known = memo.get(req.identity())
    if known is not None:
        with _lock:
            Stats.memo_hits += 1
        raise known()
    try:
        child = _fork_compile(req)
    except _worker.ForkRefusedError as e:
        # not the compiler's failure: compile here, as Triton would
        logger.warning("linear_layout.triton: %s; compiling %s uncontained", e, req.kernel())
        return req.call()
    batch = _BATCH.get()
    if batch is not None:
        batch.add(req, child)
        raise Deferred
    return finish(req, child.wait())


def _outcome_here(e: BaseException) -> _worker.Outcome:
    return _worker.Outcome(exception=_worker.ExceptionInfo.of(e))


def _fork_compile(req: Request) -> _worker.Child:
    child = _worker.fork(lambda: _child_compile(req), settings.timeout)
    with _lock:
        Stats.forks += 1
    return child


def _child_compile(req: Request) -> dict[str, Any]:
    """Child: the compile, with what the guard's checks learn sent back."""
    from . import _hooks

    _hooks.start_journal()
    try:
        kernel = req.call()
    finally:
        _worker.send({"note": {"journal": _hooks.journal()}})
    return {"hash": getattr(kernel, "hash", None)}


def _replay(outcome: _worker.Outcome) -> None:
    """Bring back what the child learnt (checks) and said (warnings, its log)."""
    from . import _hooks

    _hooks.apply_journal(outcome.notes.get("journal"))
    for module_name, name, message in outcome.notes.get("warnings") or []:
        module = sys.modules.get(module_name)
        category = getattr(module, name, None) if module is not None else None
        if not (isinstance(category, type) and issubclass(category, Warning)):
            category = UserWarning
        warnings.warn(message, category, stacklevel=4)


def finish(req: Request, outcome: _worker.Outcome) -> Any:
    """After the child: load the compiled kernel from Triton's cache, or raise its failure."""
    _replay(outcome)
    if outcome.ok:
        if outcome.stdout:
            sys.stdout.write(outcome.stdout)
        if outcome.stderr:
            sys.stderr.write(outcome.stderr)
        return req.call()  # Triton's cache has it now
    raise _conclude_failure(req, outcome)


def _conclude_failure(req: Request, outcome: _worker.Outcome) -> BaseException:
    """Record a failed compile and return the exception to raise (kept to raise again)."""
    from ._errors import LayoutCompileError

    info = outcome.exception
    original = info.load() if info is not None else None
    if isinstance(original, LayoutCompileError):
        # the model predicted it: its own error says what and why
        pickled = info.pickled if info is not None else None
        failure = _make_failure(req, outcome, predicted=True)
        _remember(req, failure)

        def again() -> BaseException:
            import pickle

            return pickle.loads(pickled) if pickled else original

        memo.put(req.identity(), again)
        return original
    failure = _make_failure(req, outcome, predicted=False)
    _capture.write_reproducer(req, failure, settings.timeout, settings.failures)
    try:
        _failure.append(failure, settings.failures)
        failure.recorded_in = settings.failures
    except OSError as e:
        logger.warning("linear_layout.triton: cannot write %s: %s", settings.failures, e)
    _remember(req, failure)
    base = info.exception_type() if info is not None else None
    cls = _failure.error_class(base)
    logger.warning("%s", failure.describe())

    def again_contained() -> BaseException:
        return cls(failure, original)

    memo.put(req.identity(), again_contained)
    return again_contained()


def _remember(req: Request, failure: CompileFailure) -> None:
    with _lock:
        _failures.append(failure)
        del _failures[:-1000]


def _key_line(outcome: _worker.Outcome, explained: dict[str, Any]) -> str:
    """Pick the line saying what failed: the log's, else the exception's, else none."""
    lines = [ln for ln in explained.get("key_lines") or [] if "PassManager::run failed" not in ln]
    if lines:
        return str(lines[0])
    if outcome.exception is not None:
        return outcome.exception.summary()
    tail = [ln.strip() for ln in outcome.stderr.splitlines() if ln.strip()]
    return tail[-1] if tail else ""


def _make_failure(req: Request, outcome: _worker.Outcome, predicted: bool) -> CompileFailure:
    from . import _hooks

    version = _hooks.triton_version()
    info = outcome.exception
    log = outcome.log()
    if info is not None and info.traceback:
        log = (log + "\n" + info.traceback).strip("\n")
    ending = outcome.ending(settings.timeout)
    failure = CompileFailure(
        id=_failure.failure_id(_hooks.release_name(), req.identity(), ending),
        release=_hooks.release_name(),
        triton_version=version,
        target=req.target_dict(),
        kernel=req.kernel(),
        config=req.config(),
        stage=outcome.stage,
        ending=ending,
        exception=info.summary() if info is not None else None,
        message="",
        log=log[-_failure.LOG_KEEP :],
        predicted=predicted,
        seconds=round(outcome.seconds, 3),
        time=_failure.now(),
    )
    if not predicted:
        failure.explain = _failure.explain_log(failure.explain_text())
    failure.message = _key_line(outcome, failure.explain)
    return failure


# -------------------------------------------------------------------- batches


class Batch:
    """Compiles a pruner starts at once: up to ``workers`` children at a time."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self.items: list[tuple[Request, _worker.Child]] = []

    def add(self, req: Request, child: _worker.Child) -> None:
        self.items.append((req, child))
        running = [c for _, c in self.items if not c.finished]
        if len(running) >= self.workers:
            _worker.wait_any(running)

    def last(self) -> tuple[Request, _worker.Child]:
        return self.items[-1]

    def wait(self) -> None:
        _worker.wait_all([c for _, c in self.items])


@contextlib.contextmanager
def batch(workers: int | None = None) -> Iterator[Batch]:
    """Compiles started under this block run in parallel children (see :class:`Batch`)."""
    b = Batch(settings.workers if workers is None else workers)
    token = _BATCH.set(b)
    try:
        yield b
    except BaseException:
        for _, c in b.items:
            if not c.finished:
                c.kill()
        raise
    finally:
        _BATCH.reset(token)


def current_batch_last() -> tuple[Request, _worker.Child]:
    """Return the compile the current batch started last (what ``Deferred`` stands for)."""
    b = _BATCH.get()
    assert b is not None, "no batch is open"
    assert b.items, "no compile was started in the batch"
    return b.last()


def settle(req: Request, child: _worker.Child) -> BaseException | None:
    """Conclude a batch's compile: None when it compiled, else its failure (recorded)."""
    try:
        _replay_ok(req, child.outcome())
    except ContainedCompileError as e:
        return e
    except Exception as e:  # a predicted failure (LayoutCompileError)
        return e
    return None


def _replay_ok(req: Request, outcome: _worker.Outcome) -> None:
    _replay(outcome)
    if outcome.ok:
        if outcome.stderr:
            sys.stderr.write(outcome.stderr)
        return
    raise _conclude_failure(req, outcome)
