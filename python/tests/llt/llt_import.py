"""Import ``linear_layout.triton`` for the tests: the source tree's, or the installed one.

By default ``python/`` goes first on ``sys.path``, so the tests run the
source tree (its native extension built in place: ``python/ci.sh`` or
``maturin develop``). With ``LLT_INSTALLED=1`` (``run_all.sh --wheel``) the
installed package is imported instead, and importing the source tree's is an
error. Either way a missing native extension fails the import: the package
has no pure-Python fallback.
"""

from __future__ import annotations

import importlib
import os
import sys
import types

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INSTALLED_ENV = "LLT_INSTALLED"


def installed() -> bool:
    """Whether the tests run the installed package (``LLT_INSTALLED=1``)."""
    return os.environ.get(INSTALLED_ENV) == "1"


def prepare_path() -> None:
    """Put ``python/`` first on ``sys.path``, or (``LLT_INSTALLED=1``) take it off."""
    if installed():
        while PYTHON_DIR in sys.path:
            sys.path.remove(PYTHON_DIR)
    elif PYTHON_DIR not in sys.path:
        sys.path.insert(0, PYTHON_DIR)


def ensure() -> types.ModuleType:
    """Import and return ``linear_layout.triton``."""
    prepare_path()
    module = importlib.import_module("linear_layout.triton")
    import linear_layout

    from_tree = os.path.abspath(linear_layout.__file__).startswith(PYTHON_DIR + os.sep)
    if installed() and from_tree:
        raise RuntimeError(
            f"{INSTALLED_ENV}=1, but linear_layout was imported from the source tree "
            f"({linear_layout.__file__}): run from outside python/"
        )
    return module
