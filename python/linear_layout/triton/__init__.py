"""Layout checks inside the installed Triton's compiler (3.1 to 3.9).

Triton 3.1 and 3.2 abort the whole Python process on some layouts (a C++
assertion); from 3.3 most of those become ``RuntimeError: PassManager::run
failed``, which ``triton.autotune`` does not skip. This module checks each
kernel's TTGIR, just before Triton lowers it to LLVM IR, against the
modelled release and stops a compile that would fail with an exception the
release's autotuner skips::

    import linear_layout.triton as llt

    llt.install()                   # every compile of this process, or:
    with llt.guard(): kernel[grid](...)
    @triton.autotune(configs, key=[...], prune_configs_by={"early_config_prune": llt.prune})

Public names:

- :func:`release`: the modelled release the installed wheel maps to.
- :func:`guard`, :func:`install`, :func:`uninstall`, :func:`installed`.
- :func:`prune`, :func:`prune_for`: drop failing autotuning configurations.
- :func:`check_ttgir`: the check itself, on TTGIR text.
- :class:`LayoutCompileError`: catch this. What is raised is an instance of
  ``SkippableLayoutCompileError``, a subclass of it and of the installed
  release's exceptions that its autotuner skips (``CompileTimeAssertionFailure``
  and ``OutOfResources`` on 3.1 and 3.2, ``PTXASError`` from 3.3); looking that
  name up imports Triton.
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

from . import _check, _hooks
from ._check import CheckerError
from ._errors import Finding, LayoutCompileError, LayoutWarning, error_class
from ._prune import prune, prune_for
from ._release import UnsupportedTritonError, release

__all__ = [
    "CheckerError",
    "Finding",
    "LayoutCompileError",
    "LayoutWarning",
    "SkippableLayoutCompileError",
    "UnsupportedTritonError",
    "check_ttgir",
    "guard",
    "install",
    "installed",
    "prune",
    "prune_for",
    "release",
    "uninstall",
]


def _mode(mode: str) -> str:
    if mode not in _hooks.MODES:
        raise ValueError(f"mode must be one of {_hooks.MODES}, not {mode!r}")
    return mode


@contextlib.contextmanager
def guard(mode: str = "raise") -> Iterator[None]:
    """Check every Triton compile while the block runs.

    A compile whose TTGIR the installed release is predicted to fail on is
    stopped before its LLVM lowering: ``mode="raise"`` raises a
    :class:`LayoutCompileError` that ``triton.autotune`` skips (like a config
    that runs out of shared memory); ``mode="warn"`` issues a
    :class:`LayoutWarning` and lets the compile go on (on 3.1 and 3.2 it then
    aborts the process). Compiles that pass are untouched: the same code
    (and, but for the 3.7+ JIT's own ``custom_pipeline`` key, which any
    inspection hook sets, the same Triton cache key).

    The hook is process-wide while any guard is open (Triton's pipeline has
    no per-thread hook); nested guards use the innermost mode.

    Raises:
        UnsupportedTritonError: the installed Triton is not a modelled release.

    """
    _mode(mode)
    _hooks.acquire()
    _hooks.push_mode(mode)
    try:
        yield
    finally:
        _hooks.pop_mode(mode)
        _hooks.release_hooks()


_installed_globally = False


def install(mode: str = "raise") -> None:
    """Check every Triton compile of this process from now on (see :func:`guard`).

    Calling it again changes the mode. :func:`uninstall` undoes it.

    Raises:
        UnsupportedTritonError: the installed Triton is not a modelled release.

    """
    global _installed_globally
    _mode(mode)
    with _hooks._lock:
        if not _installed_globally:
            _hooks.acquire()
            _installed_globally = True
        _hooks.set_global_mode(mode)


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
