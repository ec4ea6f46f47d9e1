"""The reproducer of a failed compile: what its failing stage received, and the script.

After a contained compile failed in a stage, a second child re-runs the
same compile up to the entry of that stage and writes what the stage
receives (the module as Triton prints it, or the LLVM IR / PTX text, or the
binary) and the compile's metadata there, then stops: a hang or a crash in
the stage is never reached. ``_repro`` turns that into a standalone script,
written next to the failures file (``reproducers/<id>/repro.py``). A
failure before the first stage gets the script that compiles the kernel
from its source file instead.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import _failure, _repro, _worker

if TYPE_CHECKING:
    from ._contain import Request

logger = logging.getLogger("linear_layout.triton")


class _StageCaptured(Exception):  # noqa: N818 (a signal, not an error)
    """Raised in a capturing child once the stage's input is written."""


# child only: (stage, file prefix) whose input to write before stopping
_capture: tuple[str, str] | None = None
_serial = itertools.count()  # names the capture files of this process


def at_stage(name: str, previous: str | None, src: Any, metadata: dict[str, Any]) -> None:
    """Child, at the entry of stage ``name``: when it is the one captured, write its input, stop."""
    if _capture is None or _capture[0] != name:
        return
    prefix = _capture[1]
    if isinstance(src, (bytes, bytearray)):
        with open(prefix + ".input", "wb") as fb:
            fb.write(bytes(src))
    else:
        with open(prefix + ".input", "w", encoding="utf-8") as ft:
            ft.write(str(src))

    def plain(o: Any) -> Any:
        return vars(o) if hasattr(o, "__dict__") else repr(o)

    with open(prefix + ".json", "w", encoding="utf-8") as fj:
        json.dump({"kind": _input_kind(src, previous), "metadata": metadata}, fj, default=plain)
    raise _StageCaptured


def _input_kind(src: Any, previous: str | None) -> str:
    """Say how ``parse()`` reads a stage's input back: its extension."""
    if isinstance(src, (bytes, bytearray)):
        return "cubin"
    if isinstance(src, str):
        return previous or "llir"
    return previous if previous in ("ttir", "ttgir", "glir") else "ttir"


def stage_input(
    call: Callable[[], Any], stage: str, timeout: float | None
) -> _repro.StageInput | None:
    """Re-run ``call`` (the compile) in a child up to ``stage``; return what the stage receives."""
    prefix = os.path.join(_worker.scratch_dir(), f"capture-{os.getpid()}-{next(_serial)}")
    try:
        child = _worker.fork(lambda: _capture_job(call, stage, prefix), timeout)
    except _worker.ForkRefusedError:
        return None
    outcome = child.wait()
    try:
        if not (outcome.ok and outcome.payload == {"captured": True}):
            return None
        with open(prefix + ".json", encoding="utf-8") as f:
            info = json.load(f)
        kind = str(info.get("kind"))
        text: str | None = None
        data: bytes | None = None
        if kind in ("cubin", "hsaco"):
            with open(prefix + ".input", "rb") as fb:
                data = fb.read()
        else:
            with open(prefix + ".input", encoding="utf-8") as ft:
                text = ft.read()
        metadata = info.get("metadata") if isinstance(info.get("metadata"), dict) else {}
        return _repro.StageInput(stage, kind, text, data, metadata)
    except (OSError, ValueError):
        return None
    finally:
        for suffix in (".input", ".json"):
            with contextlib.suppress(OSError):
                os.unlink(prefix + suffix)


def _capture_job(call: Callable[[], Any], stage: str, prefix: str) -> dict[str, Any]:
    global _capture
    _capture = (stage, prefix)  # in the child only
    try:
        call()
    except _StageCaptured:
        return {"captured": True}
    return {"captured": False}


def _language(req: Request) -> str | None:
    """Name the source language, for releases whose ``add_stages`` takes one (3.4+)."""
    lang = getattr(req.src, "language", None)
    return getattr(lang, "name", None) if lang is not None else None


def write_reproducer(
    req: Request, failure: _failure.CompileFailure, timeout: float | None, failures_file: str
) -> None:
    """Capture, write and attach the reproducer of ``failure`` (best effort: none on error)."""
    from . import _hooks

    facts = [
        ("triton", f"{failure.triton_version} (modelled release {failure.release})"),
        ("target", f"{failure.target.get('backend')} {failure.target.get('arch')}"),
        ("kernel", failure.kernel or "?"),
        ("config", _failure.format_config(failure.config)),
        (
            "ended",
            f"{failure.ending} in stage {failure.stage!r}"
            if failure.stage
            else f"{failure.ending} before the first stage",
        ),
        ("Triton said", failure.message.replace("\n", " ")[:300] or "(nothing)"),
    ]
    target = (
        str(getattr(req.target, "backend", "cuda")),
        getattr(req.target, "arch", 90),
        int(getattr(req.target, "warp_size", 32)),
    )
    options = dict(req.options or {})
    with contextlib.suppress(Exception):
        options.update(req.src.parse_options())
    script = None
    if failure.stage is not None:
        captured = stage_input(req.call, failure.stage, timeout)
        if captured is not None:
            script = _repro.stage_script(
                facts=facts,
                version=_hooks.triton_version(),
                target=target,
                options=options,
                language=_language(req),
                captured=captured,
            )
            if captured.kind == "ttgir" and captured.text:
                # explain reads the module's layouts too (and so does
                # `linear-layout explain` on the failures file)
                failure.ttgir = captured.text
                failure.explain = _failure.explain_log(failure.explain_text())
    if script is None and hasattr(req.src, "fn"):
        script = _repro.source_script(
            facts=facts,
            version=_hooks.triton_version(),
            target=target,
            options=options,
            src=req.src,
        )
    if script is None:
        return
    failure.reproducer_script = script
    directory = os.path.join(
        os.path.dirname(os.path.abspath(failures_file)), "reproducers", failure.id
    )
    try:
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "repro.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(script)
        failure.reproducer = path
    except OSError as e:
        logger.warning("linear_layout.triton: cannot write a reproducer in %s: %s", directory, e)
