"""Linear layouts as plain Python data, for the conformance fuzzer.

A layout maps hardware index bits (``register``, ``lane``, ``warp``,
``block``, or ``offset`` for shared memory) to tensor coordinates; each input
bit has a *basis*: the coordinates it selects, combined by XOR.  This module
holds the few operations the fuzzer needs on layouts that our crate has
already computed (``linear-layout convert --json`` gives the JSON form read
by :meth:`Layout.from_json`): applying them, the shape ops Triton performs on
them without moving data (``trans``, ``reshape``, ``join``, ``split``).  It needs no third-party
package, so the device runner can use it with only Triton and torch
installed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

DISTRIBUTED_DIMS = ("register", "lane", "warp", "block")


def log2(n: int) -> int:
    """Return the base-2 logarithm of a power of two (an error otherwise)."""
    if n < 1 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


def flat_index(coords: Sequence[int], shape: Sequence[int]) -> int:
    """Return the row-major index of ``coords`` in ``shape`` (the last dim fastest)."""
    out = 0
    for c, s in zip(coords, shape):
        out = out * s + c
    return out


def unflat_index(index: int, shape: Sequence[int]) -> tuple[int, ...]:
    """Return the coordinates of row-major ``index`` in ``shape``."""
    out = []
    for s in reversed(shape):
        out.append(index % s)
        index //= s
    return tuple(reversed(out))


@dataclass(frozen=True)
class Layout:
    """A linear layout: per input dim, the bases of its bits, and the shape.

    ``bases[name][i]`` is the coordinate tuple selected by bit ``i`` of input
    dim ``name``; ``shape`` gives the output dims ``dim0, dim1, ...``.
    """

    bases: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]
    shape: tuple[int, ...]
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    # ------------------------------------------------------------ building

    @staticmethod
    def make(bases: dict[str, Sequence[Sequence[int]]], shape: Sequence[int]) -> Layout:
        """Return a layout from ``{in_dim: [basis, ...]}`` (dict order kept)."""
        return Layout(
            tuple((k, tuple(tuple(int(x) for x in b) for b in v)) for k, v in bases.items()),
            tuple(int(s) for s in shape),
        )

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Layout:
        """Read the JSON shape of Triton's Python binding (and of our CLI)."""
        bases = {name: list(bs) for name, bs in obj["bases"]}
        shape = [size for _, size in obj["out_dims"]]
        names = [name for name, _ in obj["out_dims"]]
        if names != [f"dim{i}" for i in range(len(names))]:
            raise ValueError(f"unexpected out dims {names}")
        return Layout.make(bases, shape)

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape :meth:`from_json` reads."""
        return {
            "bases": [[k, [list(b) for b in v]] for k, v in self.bases],
            "out_dims": [[f"dim{i}", s] for i, s in enumerate(self.shape)],
        }

    # ------------------------------------------------------------ queries

    @property
    def rank(self) -> int:
        """The number of output dims."""
        return len(self.shape)

    def in_dims(self) -> list[str]:
        """Return the input dim names, in order."""
        return [k for k, _ in self.bases]

    def get(self, name: str) -> tuple[tuple[int, ...], ...]:
        """Return the bases of input dim ``name`` (empty if absent)."""
        for k, v in self.bases:
            if k == name:
                return v
        return ()

    def in_bits(self) -> list[tuple[str, int]]:
        """Every input bit as ``(dim, bit)``, in order."""
        return [(k, i) for k, v in self.bases for i in range(len(v))]

    def num_in_bits(self) -> int:
        """Return the total number of input bits."""
        return sum(len(v) for _, v in self.bases)

    def apply_bits(self, value: int) -> tuple[int, ...]:
        """Return the coordinates of the input whose bits are ``value``.

        The bits are concatenated in :meth:`in_bits` order, first bit lowest.
        """
        out = [0] * self.rank
        i = 0
        for _, v in self.bases:
            for b in v:
                if value >> i & 1:
                    out = [o ^ x for o, x in zip(out, b)]
                i += 1
        return tuple(out)

    def apply(self, **inputs: int) -> tuple[int, ...]:
        """Return the coordinates of ``{in_dim: index}``."""
        out = [0] * self.rank
        for k, v in self.bases:
            x = inputs.get(k, 0)
            for i, b in enumerate(v):
                if x >> i & 1:
                    out = [o ^ y for o, y in zip(out, b)]
        return tuple(out)

    def table(self) -> list[int]:
        """Return, for each input value, the row-major index of the coordinate it holds.

        Input values concatenate the bits in :meth:`in_bits` order.
        """
        cols = [flat_index(b, self.shape) for b in self._flat_bases()]
        out = [0]
        for c in cols:  # Gray-free doubling: entries with this bit set
            out += [x ^ c for x in out]
        return out

    def _flat_bases(self) -> Iterator[tuple[int, ...]]:
        for _, v in self.bases:
            yield from v

    def is_surjective(self) -> bool:
        """Whether every coordinate of the shape is reached."""
        total = 1
        for s in self.shape:
            total *= s
        return len(set(self.table())) == total

    def holder_of(self) -> dict[int, int]:
        """Return, for each row-major element index, the smallest input value holding it.

        Input values concatenate the bits in :meth:`in_bits` order.
        """
        out: dict[int, int] = {}
        for hw, idx in enumerate(self.table()):
            out.setdefault(idx, hw)
        return out

    # ------------------------------------------------------------ shape ops

    def transpose(self, order: Sequence[int]) -> Layout:
        """``tt.trans``: output dim ``i`` is input dim ``order[i]``."""
        return Layout.make(
            {k: [tuple(b[o] for o in order) for b in v] for k, v in self.bases},
            [self.shape[o] for o in order],
        )

    def reshape(self, shape: Sequence[int]) -> Layout:
        """``tt.reshape`` in row-major order (no reordering)."""
        total_old = 1
        for s in self.shape:
            total_old *= s
        total_new = 1
        for s in shape:
            total_new *= s
        if total_old != total_new:
            raise ValueError(f"reshape {self.shape} -> {list(shape)} changes the element count")
        return Layout.make(
            {k: [unflat_index(flat_index(b, self.shape), shape) for b in v] for k, v in self.bases},
            shape,
        )

    def join(self) -> Layout:
        """``tt.join``: a new minor dim of size 2 held in a new first register."""
        bases = {k: [(*b, 0) for b in v] for k, v in self.bases}
        bases["register"] = [(0,) * self.rank + (1,), *bases.get("register", [])]
        return Layout.make(_dist_order(bases), (*self.shape, 2))

    def split(self) -> Layout:
        """``tt.split``: drops the register bit that selects the minor dim (size 2)."""
        if self.shape[-1] != 2:
            raise ValueError("split needs a minor dim of size 2")
        regs = list(self.get("register"))
        sel = [i for i, b in enumerate(regs) if b[-1] == 1 and not any(b[:-1])]
        others = [
            (k, b)
            for k, v in self.bases
            for b in v
            if b[-1] and not (k == "register" and b in regs)
        ]
        if len(sel) != 1 or others:
            raise ValueError("split needs the minor dim held by exactly one register bit")
        del regs[sel[0]]
        bases = {k: list(v) for k, v in self.bases}
        bases["register"] = regs
        return Layout.make({k: [b[:-1] for b in v] for k, v in bases.items()}, self.shape[:-1])

    def minor_dim_in_register(self) -> bool:
        """Whether :meth:`split` applies."""
        try:
            self.split()
        except ValueError:
            return False
        return True


def _dist_order(bases: dict[str, list[tuple[int, ...]]]) -> dict[str, list[tuple[int, ...]]]:
    return {k: bases[k] for k in DISTRIBUTED_DIMS if k in bases} | {
        k: v for k, v in bases.items() if k not in DISTRIBUTED_DIMS
    }
