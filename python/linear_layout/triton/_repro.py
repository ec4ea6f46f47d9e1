"""Standalone reproducers of a failed compile: a Python script per failure.

Two kinds, by where the compile ended:

- in a stage of Triton's pipeline (``ttir``, ``ttgir``, ``llir``, ``ptx``,
  ``cubin``): the script holds that stage's input (the module printed as
  Triton prints it, or the LLVM IR / PTX text), the compile's options and its
  metadata at the stage's entry, and runs exactly that stage of the
  installed release's backend on it. It needs nothing of the program that
  failed, and runs on a CPU;
- before the first stage (Triton's code generator, ``make_ir``): the script
  imports the kernel from its source file and compiles it with
  ``triton.compile`` and the same signature, constants and specialisation
  (carried pickled, as Triton's own objects).

Every script says what it expects, exits 0 when the compile goes through
("did not reproduce") and otherwise fails as the compile did.
"""

from __future__ import annotations

import ast
import base64
import inspect
import pickle
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass
class StageInput:
    """What a failing stage received, captured by re-running the compile up to it."""

    stage: str  # the failing stage
    kind: str  # how to read it back: ttir, ttgir, llir, ptx (parse()'s extension)
    text: str | None  # the module or text
    data: bytes | None  # binary input (cubin)
    metadata: dict[str, Any]  # the compile's metadata at the stage's entry


def literal(value: Any) -> bool:
    """Whether ``repr(value)`` reads back as the same value."""
    try:
        return bool(ast.literal_eval(repr(value)) == value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def literals(d: Mapping[str, Any]) -> dict[str, Any]:
    """Keep the entries of ``d`` whose values are Python literals (a script can hold them)."""
    return {str(k): v for k, v in d.items() if literal(v)}


def _string_constant(name: str, text: str) -> str:
    """Write ``NAME = (...)``: any text as one string literal per line."""
    lines = text.splitlines(keepends=True) or [""]
    body = "\n".join(f"    {line!r}" for line in lines)
    return f"{name} = (\n{body}\n)\n"


def _header(title: str, facts: list[tuple[str, str]], how: str, version: str) -> str:
    width = max(len(k) for k, _ in facts)
    rows = "\n".join(f"  {k.ljust(width)}  {v}" for k, v in facts)
    doc = (
        f"{title}\n\nRecorded by linear_layout.triton (install()/guard()):\n\n{rows}\n\n"
        f"Run it where triton=={version} is installed (a CPU is enough):\n\n"
        f"    python repro.py\n\n{how}\n"
    )
    return '#!/usr/bin/env python3\n"""' + doc.replace('"""', "'''") + '"""\n'


def stage_script(
    *,
    facts: list[tuple[str, str]],
    version: str,
    target: tuple[str, Any, int],
    options: Mapping[str, Any],
    language: str | None,
    captured: StageInput,
) -> str:
    """Write a script that runs the failing stage of the installed release on its input."""
    backend, arch, warp = target
    metadata = literals({k: v for k, v in captured.metadata.items() if k != "target"})
    how = (
        f"It runs stage {captured.stage!r} of Triton's own pipeline on the input that stage "
        "received (below),\nwith the compile's options and its metadata at the stage's "
        "entry. It exits 0 saying\n'did not reproduce' when the stage completes; otherwise "
        "it fails as the compile did."
    )
    parts = [
        _header(f"A Triton compile failure in stage {captured.stage!r}.", facts, how, version),
        textwrap.dedent(
            """
            import os
            import sys
            import tempfile

            import triton
            from triton._C.libtriton import ir
            from triton.backends.compiler import GPUTarget
            from triton.compiler.compiler import make_backend, parse

            """
        ).lstrip("\n"),
        f"TRITON = {version!r}\n",
        f"TARGET = GPUTarget({backend!r}, {arch!r}, {warp!r})\n",
        f"OPTIONS = {literals(options)!r}\n",
        f"METADATA = {metadata!r}\n",
        f"LANGUAGE = {language!r}  # the source language (3.4 and later)\n",
        f"STAGE = {captured.stage!r}\n",
        f"INPUT_KIND = {captured.kind!r}\n",
    ]
    if captured.data is not None:
        parts.append(f"INPUT = {base64.b64encode(captured.data).decode()!r}  # base64\n")
    else:
        parts.append(_string_constant("INPUT", captured.text or ""))
    parts.append(
        textwrap.dedent(
            """

            def main() -> int:
                if triton.__version__ != TRITON:
                    print(f"note: recorded with triton {TRITON}, running {triton.__version__}")
                backend = make_backend(TARGET)
                options = backend.parse_options(dict(OPTIONS))
                stages = {}
                if LANGUAGE is None:
                    backend.add_stages(stages, options)
                else:
                    from triton.backends.compiler import Language

                    backend.add_stages(stages, options, Language[LANGUAGE])
                context = ir.context()
                ir.load_dialects(context)
                backend.load_dialects(context)
                binary = INPUT_KIND in ("cubin", "hsaco")
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, "input." + INPUT_KIND)
                    if binary:
                        import base64

                        with open(path, "wb") as f:
                            f.write(base64.b64decode(INPUT))
                    else:
                        with open(path, "w") as f:
                            f.write(INPUT)
                    module = parse(path, INPUT_KIND, context)
                metadata = dict(METADATA, target=TARGET)
                print(f"running stage {STAGE!r} of triton {triton.__version__}", flush=True)
                stages[STAGE](module, metadata)
                print("stage completed: did not reproduce")
                return 0


            if __name__ == "__main__":
                sys.exit(main())
            """
        )
    )
    return "".join(parts)


def _kernel_location(fn: Any) -> tuple[str | None, str | None]:
    """Find the source file and qualified name of a ``JITFunction``'s Python function."""
    inner = getattr(fn, "fn", fn)
    try:
        path = inspect.getsourcefile(inner)
    except TypeError:
        path = None
    return path, getattr(inner, "__qualname__", None)


def source_script(
    *,
    facts: list[tuple[str, str]],
    version: str,
    target: tuple[str, Any, int],
    options: Mapping[str, Any],
    src: Any,
) -> str | None:
    """Write a script compiling the kernel from its source file (failures before any stage)."""
    path, qualname = _kernel_location(getattr(src, "fn", None))
    if path is None or qualname is None or "<locals>" in qualname:
        return None
    constants = getattr(src, "constants", None)
    try:
        spec = base64.b64encode(
            pickle.dumps((src.signature, constants, getattr(src, "attrs", None)))
        ).decode()
    except Exception:
        return None
    backend, arch, warp = target
    how = (
        "It imports the kernel from its source file and compiles it with triton.compile,\n"
        "the signature, constants and specialisation of the failed compile. It exits 0\n"
        "saying 'did not reproduce' when the compile succeeds."
    )
    return "".join(
        [
            _header("A Triton compile failure before its first stage.", facts, how, version),
            textwrap.dedent(
                """
                import base64
                import importlib.util
                import pickle
                import sys

                import triton
                from triton.backends.compiler import GPUTarget
                from triton.compiler import ASTSource

                """
            ).lstrip("\n"),
            f"TRITON = {version!r}\n",
            f"TARGET = GPUTarget({backend!r}, {arch!r}, {warp!r})\n",
            f"OPTIONS = {literals(options)!r}\n",
            f"KERNEL_FILE = {path!r}\n",
            f"KERNEL = {qualname!r}\n",
            f"SPEC = {spec!r}  # (signature, constants, attrs), pickled\n",
            textwrap.dedent(
                """

                def main() -> int:
                    if triton.__version__ != TRITON:
                        print(f"note: recorded with triton {TRITON}, running {triton.__version__}")
                    loader = importlib.util.spec_from_file_location("kernel_module", KERNEL_FILE)
                    module = importlib.util.module_from_spec(loader)
                    loader.loader.exec_module(module)
                    fn = module
                    for part in KERNEL.split("."):
                        fn = getattr(fn, part)
                    while not hasattr(fn, "arg_names") and hasattr(fn, "fn"):
                        fn = fn.fn  # an autotuner or heuristics wrapper
                    signature, constants, attrs = pickle.loads(base64.b64decode(SPEC))
                    src = ASTSource(fn, signature, constants, attrs)
                    triton.compile(src, target=TARGET, options=dict(OPTIONS))
                    print("compiled: did not reproduce")
                    return 0


                if __name__ == "__main__":
                    sys.exit(main())
                """
            ),
        ]
    )
