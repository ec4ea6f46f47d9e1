"""What a Python-language case is: its kernel, its arguments, its exact data.

A family returns a :class:`Kernel`: the source of one ``@triton.jit``
function named ``kernel``, its arguments in order (input and output tensors
with their element type and shape, integers), its ``constexpr`` values, the
grid and the launch options.  Data are numpy arrays of float64 (or int64)
holding values every type on the path represents exactly (checked by
:func:`representable`), so the expected output is the one exact answer.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# element type -> (Triton pointer signature, torch dtype name, bits, is_float)
DTYPES: dict[str, tuple[str, str, int, bool]] = {
    "fp32": ("*fp32", "float32", 32, True),
    "fp16": ("*fp16", "float16", 16, True),
    "bf16": ("*bf16", "bfloat16", 16, True),
    "fp8e4nv": ("*fp8e4nv", "float8_e4m3fn", 8, True),
    "fp8e5": ("*fp8e5", "float8_e5m2", 8, True),
    "int8": ("*i8", "int8", 8, False),
    "uint8": ("*u8", "uint8", 8, False),
    "int16": ("*i16", "int16", 16, False),
    "int32": ("*i32", "int32", 32, False),
}

# Triton language spelling of each element type (for casts written in kernels)
TL: dict[str, str] = {
    "fp32": "tl.float32",
    "fp16": "tl.float16",
    "bf16": "tl.bfloat16",
    "fp8e4nv": "tl.float8e4nv",
    "fp8e5": "tl.float8e5",
    "int8": "tl.int8",
    "uint8": "tl.uint8",
    "int16": "tl.int16",
    "int32": "tl.int32",
}

# The value an output is filled with before the launch: never a right answer
# (every expected value is a small finite number), so one left means unwritten.
SENTINEL_INT = {"int8": -128, "uint8": 255, "int16": -32768, "int32": -(2**31)}
GUARD = 64  # sentinel elements on each side of every output


@dataclass
class Arg:
    """One kernel argument: a tensor (``in`` / ``out``) or an integer (``int``)."""

    kind: str
    name: str
    dtype: str = "int32"
    shape: tuple[int, ...] = ()
    value: int = 0

    @property
    def numel(self) -> int:
        """Elements of the tensor."""
        return math.prod(self.shape)


@dataclass
class Kernel:
    """Return a kernel, how it is launched, and what it needs of the release."""

    source: str
    args: list[Arg]
    constexprs: dict[str, Any] = field(default_factory=dict)
    grid: tuple[int, ...] = (1,)
    num_warps: int = 4
    num_stages: int = 3

    def constants(self) -> dict[str, Any]:
        """Return the constexpr values, element types (``"tl.float16"``) as Triton's."""
        import triton.language as tl

        return {
            k: getattr(tl, v[3:]) if isinstance(v, str) and v.startswith("tl.") else v
            for k, v in self.constexprs.items()
        }

    def signature(self) -> dict[str, str]:
        """Return the ``ASTSource`` signature (constexprs last, as the source declares them)."""
        sig = {}
        for a in self.args:
            sig[a.name] = DTYPES[a.dtype][0] if a.kind in ("in", "out") else "i32"
        for k in self.constexprs:
            sig[k] = "constexpr"
        return sig

    def attrs(self) -> dict[tuple[int, ...], list[list[Any]]]:
        """Return the specialization a launch gets (aligned pointers, integers divisible by 16)."""
        out: dict[tuple[int, ...], list[list[Any]]] = {}
        for i, a in enumerate(self.args):
            if a.kind in ("in", "out") or (a.kind == "int" and a.value % 16 == 0):
                out[(i,)] = [["tt.divisibility", 16]]
        return out


def _fp8_values(exp_bits: int, man_bits: int, bias: int, ieee: bool) -> frozenset[float]:
    """Return every finite value of an 8-bit float format."""
    vals = set()
    for code in range(256):
        s, e, m = (
            code >> 7,
            (code >> man_bits) & ((1 << exp_bits) - 1),
            code & ((1 << man_bits) - 1),
        )
        if ieee and e == (1 << exp_bits) - 1:
            continue  # inf / nan (e5m2)
        if not ieee and e == (1 << exp_bits) - 1 and m == (1 << man_bits) - 1:
            continue  # the only nan of e4m3fn
        v = (
            (m / (1 << man_bits)) * 2.0 ** (1 - bias)
            if e == 0
            else (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
        )
        vals.add(-v if s else v)
    return frozenset(vals)


FP8 = {"fp8e4nv": _fp8_values(4, 3, 7, False), "fp8e5": _fp8_values(5, 2, 15, True)}
INT_RANGE = {
    "int8": (-128, 127),
    "uint8": (0, 255),
    "int16": (-32768, 32767),
    "int32": (-(2**31), 2**31 - 1),
}


def representable(values: Any, dtype: str) -> bool:
    """Return True if every value is held exactly by ``dtype`` (``tf32`` too: 10 mantissa bits)."""
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size == 0:
        return True
    if not np.all(np.isfinite(arr)):
        return False
    if dtype in INT_RANGE:
        lo, hi = INT_RANGE[dtype]
        return bool(np.all(arr == np.round(arr)) and arr.min() >= lo and arr.max() <= hi)
    if dtype in FP8:
        return all(float(v) in FP8[dtype] for v in np.unique(arr))
    if dtype == "fp16":
        return bool(np.all(arr.astype(np.float16).astype(np.float64) == arr))
    f32 = arr.astype(np.float32)
    if not np.all(f32.astype(np.float64) == arr):
        return False
    if dtype == "fp32":
        return True
    low = {"bf16": 16, "tf32": 13}[dtype]
    bits = f32.view(np.uint32)
    return bool(np.all(bits & np.uint32((1 << low) - 1) == 0))


def exact_sum_bound(dtype: str) -> float:
    """Return the magnitude below which every integer is exact in ``dtype``."""
    return {
        "fp32": 2.0**24,
        "tf32": 2.0**11,
        "fp16": 2048.0,
        "bf16": 256.0,
        "fp8e4nv": 16.0,
        "fp8e5": 8.0,
        "int8": 127.0,
        "uint8": 255.0,
        "int16": 32767.0,
        "int32": 2.0**31 - 1,
    }[dtype]


def small_ints(rng: np.random.Generator, shape: tuple[int, ...], lo: int, hi: int) -> np.ndarray:
    """Return uniform integers in ``[lo, hi]`` as float64."""
    return rng.integers(lo, hi + 1, size=shape).astype(np.float64)


def fp32_bits(x: float) -> int:
    """Return the bit pattern of ``x`` as a float32."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def compare(expected: np.ndarray, got: np.ndarray, dtype: str) -> dict[str, Any]:
    """Compare an output with its expectation, exactly; the record fields of what differs.

    An expected NaN means "left alone" (the sentinel must still be there).
    ``unwritten``: the sentinel is still there; ``stray_write``: an element
    the kernel must not write was written; ``misplaced``: the value is right
    for another element of the output; ``garbage``: neither.
    """
    exp = np.asarray(expected, dtype=np.float64).ravel()
    out = np.asarray(got, dtype=np.float64).ravel().copy()
    if not DTYPES[dtype][3]:
        out[out == SENTINEL_INT[dtype]] = np.nan
    left, kept = np.isnan(exp), np.isnan(out)
    bad = ~((exp == out) | (left & kept))
    n_bad = int(bad.sum())
    if n_bad == 0:
        return {"verdict": "pass"}
    idx = np.flatnonzero(bad)
    values = set(exp[~left].tolist())
    kinds = {
        "unwritten": int((kept & ~left)[idx].sum()),
        "stray_write": int((left & ~kept)[idx].sum()),
        "misplaced": int(sum(1 for i in idx if not kept[i] and not left[i] and out[i] in values)),
    }
    kinds["garbage"] = n_bad - sum(kinds.values())
    kind = max(kinds, key=lambda k: kinds[k])
    first = [[int(i), _num(out[i]), _num(exp[i])] for i in idx[:8]]
    return {
        "verdict": "wrong",
        "kind": kind,
        "wrong": n_bad,
        "of": int(exp.size),
        "kinds": kinds,
        "first": first,
    }


def _num(v: float) -> Any:
    """Return a JSON-safe number (``None`` for NaN, a string for an infinity)."""
    if math.isnan(v):
        return None
    if math.isinf(v):
        return str(v)
    return int(v) if v == int(v) and abs(v) < 2**53 else float(v)
