"""Hooking the installed Triton's compile pipeline between TTGIR and LLVM IR.

Every release builds its pipeline as a dict of stages (``ttir``, ``ttgir``,
``llir``, ``ptx``, ``cubin``; Gluon kernels start at ``glir``) in its
backend's ``add_stages``. The check runs on the input of the ``llir`` stage:
the TTGIR exactly as the lowering receives it (after a
``TRITON_KERNEL_OVERRIDE`` or ``ir_override`` replaced it, and also when a
``.ttgir`` file is compiled). How the stages are reached differs:

- 3.6 and later: the official ``knobs.runtime.add_stages_inspection_hook``,
  which the backend's ``add_stages`` calls with the stage dict. It is one
  slot; a hook that was there is chained (called first, its key kept).
  From 3.7 ``compile()`` and the JIT also call it without arguments for a
  ``(key, hash)`` pair: ours is ``("", "")``, so ``triton.compile`` keeps
  its cache key. The 3.7+ JIT, however, appends ``("custom_pipeline",
  hash)`` to its specialisation whenever any hook is set, and that string
  reaches the source's attributes: a JIT-compiled kernel gets a different
  key (the same code) while the hook is in place. That is Triton's choice
  for custom pipelines; the cost is one recompile of kernels cached
  without the guard.
- 3.1 to 3.5: no stage hook exists, so the NVIDIA backend class's
  ``add_stages`` is wrapped (every backend instance, wherever made); cache
  keys are unchanged.

Only CUDA targets are checked; other backends pass through untouched.

The same hooks also put containment in place (``_contain``): every compile
not already in Triton's cache runs in a forked child, so a failure the model
does not predict cannot end the process either.
"""

from __future__ import annotations

import contextvars
import hashlib
import logging
import os
import re
import sys
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from . import _check, _contain
from ._errors import Finding, LayoutWarning, error_class
from ._release import installed_version, release

logger = logging.getLogger("linear_layout.triton")

MODES = ("raise", "warn")

_lock = threading.RLock()


def _new_lock_after_fork() -> None:
    # a forked compile child must not wait on a lock another thread of the
    # parent held at the fork
    global _lock
    _lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)
_users = 0  # guards, install() and running prunes holding the hooks
_undo: Callable[[], None] | None = None
_modes: list[tuple[str, bool]] = []  # (mode, contain) of the open guard() blocks, innermost last
_global_mode: tuple[str, bool] | None = None  # install()'s (mode, contain)
_release_name: str | None = None
_triton_version: str | None = None

# Set while prune() compiles its configurations: the check's mode and
# containment apply whatever install() and guard() say.
PRUNING: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "linear_layout_pruning", default=False
)


class _Lru:
    """A small bounded map (least recently used entries leave first)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[str, tuple[Finding, ...]] = OrderedDict()
        self.journal: list[tuple[str, tuple[Finding, ...]]] | None = None  # a child's new entries

    def get(self, key: str | None) -> tuple[Finding, ...] | None:
        if key is None:
            return None
        with _lock:
            v = self.data.get(key)
            if v is not None:
                self.data.move_to_end(key)
            return v

    def put(self, key: str | None, value: tuple[Finding, ...]) -> None:
        if key is None:
            return
        with _lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)
            if self.journal is not None:
                self.journal.append((key, value))


# Findings per Triton cache key (metadata["hash"]: what Triton stores the
# compiled kernel under), and per TTGIR text, so that two keys giving the same
# code (a constexpr the code ignores) are checked once.
by_key = _Lru(4096)
by_text = _Lru(4096)


class Stats:
    """Counters, for tests and measurements."""

    checks = 0  # checker runs
    check_seconds = 0.0  # wall time in str(module) + the checker
    check_cpu_seconds = 0.0  # CPU time of the same
    key_hits = 0  # answers from by_key
    text_hits = 0  # answers from by_text


_STAT_NAMES = ("checks", "check_seconds", "check_cpu_seconds", "key_hits", "text_hits")
_stats_at_start: dict[str, float] = {}


def start_journal() -> None:
    """Child: keep what the checks learn from now on, for the parent (:func:`journal`)."""
    by_key.journal = []
    by_text.journal = []
    _stats_at_start.update({n: getattr(Stats, n) for n in _STAT_NAMES})


def journal() -> dict[str, Any]:
    """Child: the checks' answers and counters since :func:`start_journal`, as JSON."""

    def entries(lru: _Lru) -> list[Any]:
        return [[k, [f.to_json() for f in v]] for k, v in lru.journal or []]

    return {
        "by_key": entries(by_key),
        "by_text": entries(by_text),
        "stats": {n: getattr(Stats, n) - _stats_at_start.get(n, 0) for n in _STAT_NAMES},
    }


def apply_journal(j: Any) -> None:
    """Parent: take in a child's :func:`journal`, as if its checks had run here."""
    if not isinstance(j, dict):
        return
    for lru, name in ((by_key, "by_key"), (by_text, "by_text")):
        for key, findings in j.get(name) or []:
            lru.put(key, tuple(Finding(**f) for f in findings))
    with _lock:
        for n, delta in (j.get("stats") or {}).items():
            if n in _STAT_NAMES:
                setattr(Stats, n, getattr(Stats, n) + delta)


def cpu_seconds() -> float:
    """Return the CPU time of this process and its finished children (Unix; else process time)."""
    if sys.platform == "win32":  # no resource module
        return time.process_time()
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def current_mode() -> str | None:
    """Return the check's mode in force: the innermost guard's, else install()'s, else None.

    A pruner's compiles are checked (``raise``) whatever the mode.
    """
    with _lock:
        mode = _modes[-1][0] if _modes else (_global_mode[0] if _global_mode else None)
    if mode is None and PRUNING.get():
        return "raise"
    return mode


def containing() -> bool:
    """Whether compiles run contained now (the innermost guard's or install()'s choice)."""
    if PRUNING.get():
        return True
    with _lock:
        if _modes:
            return _modes[-1][1]
        return _global_mode[1] if _global_mode else False


def release_name() -> str:
    """Return the modelled release of the installed Triton (cached)."""
    global _release_name, _triton_version
    if _release_name is None:
        _triton_version = installed_version()
        _release_name = release(_triton_version)
    return _release_name


def triton_version() -> str:
    """Return the installed ``triton.__version__`` (cached)."""
    release_name()
    assert _triton_version is not None
    return _triton_version


# ------------------------------------------------------------- installation


def acquire() -> None:
    """Put the stage hooks and containment in place (reference counted)."""
    global _users, _undo
    with _lock:
        if _users == 0:
            release_name()  # an unmodelled release fails here, before anything is hooked
            undo_guard = _hook_pipeline()
            try:
                undo_contain = _contain.hook()
            except BaseException:
                undo_guard()
                raise

            def undo() -> None:
                undo_contain()  # the outer one first
                undo_guard()

            _undo = undo
        _users += 1


def release_hooks() -> None:
    """Drop one reference taken by :func:`acquire`; the last one unhooks."""
    global _users, _undo
    with _lock:
        if _users == 0:
            return
        _users -= 1
        if _users == 0 and _undo is not None:
            _undo()
            _undo = None


def hooked() -> bool:
    """Whether the stage hooks are in place."""
    with _lock:
        return _users > 0


def set_global_mode(mode: str | None, contain: bool = True) -> None:
    """install()'s mode (None: no global checking) and whether it contains compiles."""
    global _global_mode
    with _lock:
        _global_mode = None if mode is None else (mode, contain)


def push_mode(mode: str, contain: bool = True) -> None:
    """Open a guard() block."""
    with _lock:
        _modes.append((mode, contain))


def pop_mode(mode: str, contain: bool = True) -> None:
    """Close a guard() block (blocks may close out of order across threads)."""
    with _lock:
        for i in range(len(_modes) - 1, -1, -1):
            if _modes[i] == (mode, contain):
                del _modes[i]
                return


def has_inspection_hook() -> bool:
    """Whether the installed release has ``knobs.runtime.add_stages_inspection_hook`` (3.6+)."""
    try:
        from triton import knobs
    except ImportError:  # 3.1 to 3.3 have no knobs
        return False
    return hasattr(getattr(knobs, "runtime", None), "add_stages_inspection_hook")


def _hook_pipeline() -> Callable[[], None]:
    """Put the hooks into the installed release's pipeline; return what takes them out."""
    if has_inspection_hook():
        return _hook_inspection()
    return _hook_add_stages()


def _hook_inspection() -> Callable[[], None]:
    """3.6+: ``knobs.runtime.add_stages_inspection_hook``, chaining a hook already there."""
    from triton import knobs

    previous = knobs.runtime.add_stages_inspection_hook

    def inspect_stages(*args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            # compile() and the JIT ask for (cache key, pipeline hash): ours
            # adds nothing, a chained hook's are kept
            return previous() if previous is not None else ("", "")
        if previous is not None:
            previous(*args, **kwargs)
        backend, stages = args[0], args[1]
        wrap_stages(backend, stages)
        return None

    inspect_stages.linear_layout = True  # type: ignore[attr-defined]
    knobs.runtime.add_stages_inspection_hook = inspect_stages

    def undo() -> None:
        if knobs.runtime.add_stages_inspection_hook is inspect_stages:
            knobs.runtime.add_stages_inspection_hook = previous
        else:
            logger.warning(
                "linear_layout.triton: add_stages_inspection_hook was replaced after the "
                "guard was installed; leaving the replacement in place"
            )

    return undo


def _hook_add_stages() -> Callable[[], None]:
    """3.1 to 3.5: wrap the NVIDIA backend class's ``add_stages``."""
    from triton.backends import backends

    if "nvidia" not in backends:
        raise RuntimeError("linear_layout.triton: this Triton has no NVIDIA backend to hook")
    cls = backends["nvidia"].compiler
    original = cls.__dict__["add_stages"]

    def add_stages(self: Any, stages: dict[str, Any], options: Any, *rest: Any, **kw: Any) -> Any:
        result = original(self, stages, options, *rest, **kw)
        wrap_stages(self, stages)
        return result

    add_stages.linear_layout = True  # type: ignore[attr-defined]
    add_stages.__wrapped__ = original  # type: ignore[attr-defined]
    cls.add_stages = add_stages

    def undo() -> None:
        if cls.__dict__.get("add_stages") is add_stages:
            cls.add_stages = original
        else:
            logger.warning(
                "linear_layout.triton: %s.add_stages was replaced after the guard was "
                "installed; leaving the replacement in place",
                cls.__name__,
            )

    return undo


# ---------------------------------------------------------------- the stages


def wrap_stages(backend: Any, stages: dict[str, Any]) -> None:
    """Wrap a CUDA pipeline's stages: fail fast before ``llir``, check at ``llir``."""
    target = getattr(backend, "target", None)
    if getattr(target, "backend", None) != "cuda" or "llir" not in stages:
        return
    names = list(stages)
    for name in names[: names.index("llir")]:
        stages[name] = _early_stage(stages[name])
    stages["llir"] = _lowering_stage(stages["llir"])


# ids of the metadata of compiles that ran a stage before llir: compiles from
# source (a .ttgir file starts at llir)
_from_source: set[int] = set()


def _early_stage(fn: Callable[[Any, dict[str, Any]], Any]) -> Callable[[Any, dict[str, Any]], Any]:
    def stage(src: Any, metadata: dict[str, Any]) -> Any:
        with _lock:
            _from_source.add(id(metadata))
        try:
            if current_mode() == "raise":
                # a key already found failing stops before its front end
                known = by_key.get(metadata.get("hash"))
                if known:
                    with _lock:
                        Stats.key_hits += 1
                    _conclude(known, None, "raise", "source")
            return fn(src, metadata)
        except BaseException:
            with _lock:
                _from_source.discard(id(metadata))
            raise

    return stage


def _lowering_stage(
    fn: Callable[[Any, dict[str, Any]], Any],
) -> Callable[[Any, dict[str, Any]], Any]:
    def stage(src: Any, metadata: dict[str, Any]) -> Any:
        with _lock:
            entry = "source" if id(metadata) in _from_source else "file"
            _from_source.discard(id(metadata))
        mode = current_mode()
        if mode is not None:
            findings, kernel = _inspect(src, metadata.get("hash"))
            _conclude(findings, kernel, mode, entry)
        return fn(src, metadata)

    return stage


_KERNEL_NAME = re.compile(r"tt\.func\s+(?:public\s+)?@([\w$.]+)")


def _inspect(module: Any, key: str | None) -> tuple[tuple[Finding, ...] | None, str | None]:
    """Check the module about to be lowered (findings None: the checker failed)."""
    known = by_key.get(key)
    if known is not None:
        with _lock:
            Stats.key_hits += 1
        return known, None
    t0, c0 = time.perf_counter(), cpu_seconds()
    text = str(module)
    m = _KERNEL_NAME.search(text)
    kernel = m.group(1) if m else None
    rel = release_name()
    text_key = hashlib.sha256((rel + "\0" + text).encode()).hexdigest()
    findings = by_text.get(text_key)
    if findings is not None:
        with _lock:
            Stats.text_hits += 1
    else:
        try:
            raw = _check._check_ttgir(text, rel)
        except _check.CheckerError as e:
            logger.warning("linear_layout.triton: no layout check for %s: %s", kernel, e)
            return None, kernel
        # A layout definition the release's parser refuses ("#name") only
        # matters when TTGIR text is parsed; this module was printed by the
        # release itself and is lowered from memory.
        findings = tuple(
            f
            for f in (Finding.from_json(r) for r in raw)
            if f.verdict not in ("ok", "") and not (f.op or "").startswith("#")
        )
        by_text.put(text_key, findings)
        with _lock:
            Stats.checks += 1
    with _lock:
        Stats.check_seconds += time.perf_counter() - t0
        Stats.check_cpu_seconds += cpu_seconds() - c0
    by_key.put(key, findings)
    return findings, kernel


def _conclude(
    findings: tuple[Finding, ...] | None,
    kernel: str | None,
    mode: str | None,
    entry: str,
) -> None:
    """Raise (``raise``), warn (``warn``) or let the compile go on."""
    if not findings:
        return
    err = error_class()(findings, release_name(), triton_version(), kernel, entry)
    if mode == "raise":
        raise err
    if mode == "warn":
        logger.info("%s", err)
        warnings.warn(str(err), LayoutWarning, stacklevel=2)
        # 3.1 and 3.2 may abort right after this: get the warning out first
        sys.stderr.flush()
