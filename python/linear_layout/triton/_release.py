"""Which modelled Triton release the installed ``triton`` wheel behaves as.

The release table is the crate's (:func:`linear_layout.releases`): each
modelled release names every ``major.minor`` it stands for, so nothing here
knows release names.
"""

from __future__ import annotations

import re
from functools import cache

from linear_layout import ReleaseInfo, releases


class UnsupportedTritonError(RuntimeError):
    """The installed Triton (or the version asked about) is not a modelled release."""


@cache
def table() -> tuple[ReleaseInfo, ...]:
    """Return the modelled releases, oldest first (the crate's release table)."""
    return tuple(releases())


def order(name: str) -> int:
    """Return the position of a release name in :func:`table` (older is smaller).

    Raises:
        KeyError: the name is not a release of the table.

    """
    for i, info in enumerate(table()):
        if info.name == name:
            return i
    raise KeyError(name)


def installed_version() -> str:
    """Return the ``__version__`` of the importable ``triton`` package.

    Raises:
        UnsupportedTritonError: ``triton`` cannot be imported.

    """
    try:
        import triton
    except ImportError as e:
        raise UnsupportedTritonError(
            "linear_layout.triton needs Triton, but `import triton` failed: " + str(e)
        ) from e
    version = getattr(triton, "__version__", None)
    if not isinstance(version, str):
        # a directory named `triton` on sys.path, not the package
        raise UnsupportedTritonError(
            f"`import triton` found {getattr(triton, '__path__', triton)!r}, which is not "
            "Triton (no __version__)"
        )
    return version


def version_tuple(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a version string such as ``"3.2.0"`` or ``"3.1.0+cf34004"``.

    Raises:
        UnsupportedTritonError: the string does not start with ``MAJOR.MINOR``.

    """
    m = re.match(r"\s*(\d+)\.(\d+)", version)
    if m is None:
        raise UnsupportedTritonError(f"cannot read a Triton version from {version!r}")
    return int(m.group(1)), int(m.group(2))


def _modelled() -> str:
    """Return the modelled minors in words, from the crate's table.

    Each minor the table lists (``3.1, 3.2, ...``), then, in parentheses, each release that
    stands for minors other than its own name (``X.Y as X.Z``).

    """
    minors = [m for info in table() for m in info.minors]
    buckets = [
        f"{' and '.join(m for m in info.minors if m != info.name)} as {info.name}"
        for info in table()
        if len(info.minors) > 1
    ]
    extra = f" ({'; '.join(buckets)})" if buckets else ""
    return ", ".join(minors) + extra


def release(version: str | None = None) -> str:
    """Return the modelled release that a Triton version maps to.

    Args:
        version: a Triton version string (``"3.2.0"``, ``"3.5.1"``,
            ``"3.1.0+cf34004"``); the installed ``triton.__version__`` when
            omitted.

    Returns:
        The name of the release in the crate's table
        (:func:`linear_layout.releases`) whose ``minors`` hold the version's
        ``major.minor``: what :func:`linear_layout.check_ttgir` and
        :func:`linear_layout.predict` take.

    Raises:
        UnsupportedTritonError: Triton is not installed, or its release is
            not one this package models.

    """
    v = installed_version() if version is None else version
    major, minor = version_tuple(v)
    key = f"{major}.{minor}"
    for info in table():
        if key in info.minors:
            return info.name
    raise UnsupportedTritonError(
        f"Triton {v} is not a release linear_layout models: it models {_modelled()}. "
        "Its layout checks would give answers for a different compiler, so none are "
        "made; use a modelled release or leave the guard and pruner out."
    )
