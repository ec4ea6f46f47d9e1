"""The one place that runs the layout checks over TTGIR text.

The checks are the crate's, through the native extension
(:func:`linear_layout.check_ttgir`): no process is started, and the
interpreter's lock is released while they run.
"""

from __future__ import annotations

import logging
from typing import Any

from linear_layout import check_ttgir

logger = logging.getLogger("linear_layout.triton")


class CheckerError(RuntimeError):
    """The layout checker gave no answer for a module (not TTGIR, or unreadable)."""


def _check_ttgir(text: str, release: str) -> list[dict[str, Any]]:
    """Run the modelled checks of ``release`` over a TTGIR module.

    Args:
        text: the module as Triton prints it.
        release: the release name (``"3.2"``...; see :func:`linear_layout.releases`).

    Returns:
        The findings, one dict per failing op: ``line``, ``op``, ``verdict``,
        ``verdict_from_source`` and ``failure`` (``check-ttgir --json``'s).

    Raises:
        CheckerError: the text holds no TTGIR module the checker can read.

    """
    try:
        report = check_ttgir(text, release)
    except (ValueError, RuntimeError) as e:  # LayoutError is a ValueError
        raise CheckerError(str(e)) from e
    for warning in report.warnings:
        logger.warning("linear_layout.triton: checker: %s", warning)
    return [f.to_dict() for f in report.findings]
