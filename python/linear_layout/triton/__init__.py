"""Layout checks and crash containment for the installed Triton's compiler (3.1 to 3.9).

Triton 3.1 and 3.2 abort the whole Python process on some layouts (a C++
assertion); from 3.3 most of those become ``RuntimeError: PassManager::run
failed``, which ``triton.autotune`` does not skip; and any release can
crash, abort, exit or hang on a compile nobody has seen fail yet. This
module has two layers:

- the model: each kernel's TTGIR is checked, just before Triton lowers it to
  LLVM IR, against the modelled release; a compile it predicts will fail is
  stopped with an exception the release's autotuner skips, which says where
  and why and what fixes it;
- containment, under it: every compile that is not already in Triton's
  cache runs in a forked child, and this process loads the result from the
  cache. Whatever ends a child (an exception, SIGABRT, SIGSEGV, ``LLVM
  ERROR``, a hang past the time limit) becomes a
  :class:`ContainedCompileError` the autotuner skips, with Triton's log,
  ``explain``'s answer and a standalone reproducer; failures the model did
  not predict are appended to a JSON Lines file (``linear-layout explain``
  reads it).

::

    import linear_layout.triton as llt

    llt.install()                   # every compile of this process, or:
    with llt.guard(): kernel[grid](...)
    @triton.autotune(configs, key=[...], prune_configs_by={"early_config_prune": llt.prune})

Public names:

- :func:`release`: the modelled release the installed wheel maps to.
- :func:`guard`, :func:`install`, :func:`uninstall`, :func:`installed`.
- :func:`prune`, :func:`prune_for`: compile the configurations of an autotune
  up front, in parallel and contained, and drop those that fail.
- :func:`failures`: this process's contained failures; :func:`read_failures`
  reads a failures file.
- :func:`check_ttgir`: the check itself, on TTGIR text.
- :class:`LayoutCompileError`: a predicted failure. What is raised is an
  instance of ``SkippableLayoutCompileError``, a subclass of it and of the
  installed release's exceptions that its autotuner skips
  (``CompileTimeAssertionFailure`` and ``OutOfResources`` on 3.1 and 3.2,
  ``PTXASError`` from 3.3); looking that name up imports Triton.
- :class:`ContainedCompileError`: any other failed compile (its
  :class:`CompileFailure` record in ``.failure``), also skippable.
- :class:`LayoutWarning`, :class:`Finding`, :class:`UnsupportedTritonError`,
  :class:`CheckerError`.

The checks are the crate's, run in the native extension
(:func:`linear_layout.check_ttgir`), with the release table and site
descriptors of :func:`linear_layout.releases` and :func:`linear_layout.sites`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from . import _check, _contain, _failure, _hooks
from ._check import CheckerError
from ._errors import Finding, LayoutCompileError, LayoutWarning, error_class
from ._failure import CompileFailure, ContainedCompileError
from ._prune import prune, prune_for
from ._release import UnsupportedTritonError, release

__all__ = [
    "CheckerError",
    "CompileFailure",
    "ContainedCompileError",
    "Finding",
    "LayoutCompileError",
    "LayoutWarning",
    "SkippableLayoutCompileError",
    "UnsupportedTritonError",
    "check_ttgir",
    "failures",
    "guard",
    "install",
    "installed",
    "prune",
    "prune_for",
    "read_failures",
    "release",
    "uninstall",
]


def _mode(mode: str) -> str:
    if mode not in _hooks.MODES:
        raise ValueError(f"mode must be one of {_hooks.MODES}, not {mode!r}")
    return mode


def _configure(timeout: float | str | None, failures_file: str | None) -> None:
    if timeout != "keep":
        if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        _contain.settings.timeout = None if timeout is None else float(timeout)
    if failures_file is not None:
        _contain.settings.failures = str(failures_file)


@contextlib.contextmanager
def guard(
    mode: str = "raise",
    *,
    contain: bool = True,
    timeout: float | str | None = "keep",
    failures_file: str | None = None,
) -> Iterator[None]:
    """Check, and contain, every Triton compile while the block runs.

    A compile whose TTGIR the installed release is predicted to fail on is
    stopped before its LLVM lowering: ``mode="raise"`` raises a
    :class:`LayoutCompileError` that ``triton.autotune`` skips (like a config
    that runs out of shared memory); ``mode="warn"`` issues a
    :class:`LayoutWarning` and lets the compile go on into the failure.

    With ``contain=True`` (the default) every compile not already in
    Triton's cache runs in a forked child: a failure of any kind (an
    exception, a crash, an ``LLVM ERROR``, a compile running past
    ``timeout``) raises a :class:`ContainedCompileError` the autotuner skips,
    and is recorded (:func:`failures`; the ones the model did not predict
    also in the failures file). Compiles that pass are untouched: the same
    code and (but for the 3.7+ JIT's own ``custom_pipeline`` key, which any
    inspection hook sets) the same Triton cache key; the kernel comes from
    Triton's cache, where the child put it.

    The hooks are process-wide while any guard is open (Triton's pipeline has
    no per-thread hook); nested guards use the innermost mode.

    Args:
        mode: ``"raise"`` or ``"warn"`` (predicted failures).
        contain: run compiles in a child (``False``: in this process, as
            Triton does).
        timeout: seconds a contained compile may take before it is killed
            and counted as hung (``None``: no limit; default 600, or
            ``$LINEAR_LAYOUT_COMPILE_TIMEOUT``). Process-wide.
        failures_file: the JSON Lines file unpredicted failures are appended
            to (default ``$LINEAR_LAYOUT_FAILURES``, else
            ``~/.cache/linear_layout/failures.jsonl``). Process-wide.

    Raises:
        UnsupportedTritonError: the installed Triton is not a modelled release.

    """
    _mode(mode)
    _configure(timeout, failures_file)
    _hooks.acquire()
    _hooks.push_mode(mode, contain)
    try:
        yield
    finally:
        _hooks.pop_mode(mode, contain)
        _hooks.release_hooks()


_installed_globally = False


def install(
    mode: str = "raise",
    *,
    contain: bool = True,
    timeout: float | str | None = "keep",
    failures_file: str | None = None,
) -> None:
    """Check and contain every Triton compile of this process from now on (see :func:`guard`).

    Calling it again changes the settings. :func:`uninstall` undoes it.

    Raises:
        UnsupportedTritonError: the installed Triton is not a modelled release.

    """
    global _installed_globally
    _mode(mode)
    _configure(timeout, failures_file)
    with _hooks._lock:
        if not _installed_globally:
            _hooks.acquire()
            _installed_globally = True
        _hooks.set_global_mode(mode, contain)


def uninstall() -> None:
    """Undo :func:`install`; open :func:`guard` blocks keep their hook."""
    global _installed_globally
    with _hooks._lock:
        if _installed_globally:
            _hooks.set_global_mode(None)
            _installed_globally = False
            _hooks.release_hooks()


def installed() -> bool:
    """Whether :func:`install` is in force."""
    return _installed_globally


def failures() -> list[CompileFailure]:
    """Every compile failure contained in this process so far, oldest first.

    Predicted failures (``predicted=True``) are listed too; only the others
    go to the failures file.
    """
    return _contain.failures()


def read_failures(path: str | None = None) -> list[CompileFailure]:
    """Read a failures file (default: the one this process appends to)."""
    return _failure.read(path if path is not None else _contain.settings.failures)


def check_ttgir(text: str, release_name: str | None = None) -> list[Finding]:
    """Run the modelled checks over a TTGIR module, without compiling anything.

    :func:`linear_layout.check_ttgir` with the guard's reading of each
    finding: the site's descriptor adds its title, next recorded change and
    workaround.

    Args:
        text: TTGIR as Triton prints it.
        release_name: the release (a name of :func:`linear_layout.releases`,
            or a version such as ``"3.3.1"``); the installed Triton's when
            omitted.

    Returns:
        One :class:`Finding` per op the release fails on (empty: none).

    Raises:
        CheckerError: the text holds no TTGIR module the checker can read.

    """
    rel = release_name if release_name is not None else release()
    return [Finding.from_json(d) for d in _check._check_ttgir(text, rel)]


def __getattr__(name: str) -> Any:
    if name == "SkippableLayoutCompileError":
        return error_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
