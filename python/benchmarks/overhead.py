"""Per-call time of a few operations: this package against Triton's binding.

Run with a Python that imports both ``linear_layout`` and ``triton==3.9.0``
(``python/ci.sh`` makes one; see the README)::

    python python/benchmarks/overhead.py [--number N] [--repeat R]

Prints the best of ``R`` runs of ``N`` calls each, in nanoseconds per call,
for both implementations on the same inputs in the same process.
"""

from __future__ import annotations

import argparse
import timeit
from typing import Any, Callable


def cases(ll: Any) -> dict[str, Callable[[], Any]]:
    """Build the measured calls on ``ll`` (either ``LinearLayout`` class)."""
    regs = ll.identity_1d(4, "register", "dim1")
    lanes = ll.identity_1d(8, "lane", "dim1") * ll.identity_1d(4, "lane", "dim0")
    warps = ll.identity_1d(4, "warp", "dim0")
    tile = regs * lanes * warps  # a 16 x 32 distributed layout
    other = ll.from_bases(
        [
            ("register", [[0, 1], [0, 2], [1, 0]]),
            ("lane", [[0, 4], [0, 8], [0, 16], [2, 0], [4, 0]]),
            ("warp", [[8, 0], [0, 0]]),
        ],
        ["dim0", "dim1"],
    )
    bases = [
        ("register", [[1, 0], [2, 0]]),
        ("lane", [[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]]),
        ("warp", [[0, 4], [0, 8]]),
    ]
    names = ["dim0", "dim1"]
    inputs = {"register": 3, "lane": 17, "warp": 2}
    swap = ll.identity_1d(32, "dim1", "dim1") * ll.identity_1d(16, "dim0", "dim0")
    flipped = tile.compose(swap)
    return {
        "identity_1d(32)": lambda: ll.identity_1d(32, "lane", "dim0"),
        "from_bases (9 bases, 2 outs)": lambda: ll.from_bases(bases, names),
        "a * b": lambda: regs * lanes,
        "compose": lambda: tile.compose(swap),
        "invert_and_compose": lambda: other.invert_and_compose(tile),
        "apply": lambda: tile.apply(inputs),
        "is_surjective": lambda: tile.is_surjective(),
        "== (equal)": lambda: tile == flipped,
        "get_in_dim_names": lambda: tile.get_in_dim_names(),
        "bases": lambda: tile.bases,
        "str()": lambda: str(tile),
    }


def best_ns(fn: Callable[[], Any], number: int, repeat: int) -> float:
    """Return the best time per call of ``fn``, in nanoseconds."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e9


def main() -> None:
    """Measure both implementations and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    import triton
    from triton._C.libtriton.linear_layout import LinearLayout as TritonLayout

    import linear_layout

    ours = cases(linear_layout.LinearLayout)
    theirs = cases(TritonLayout)
    print(f"ns per call, best of {args.repeat} x {args.number} (triton {triton.__version__})")
    print(f"{'operation':<30}{'linear_layout':>15}{'triton':>12}{'ratio':>8}")
    for name in ours:
        a = best_ns(ours[name], args.number, args.repeat)
        b = best_ns(theirs[name], args.number, args.repeat)
        print(f"{name:<30}{a:>15.0f}{b:>12.0f}{b / a:>7.1f}x")


if __name__ == "__main__":
    main()
