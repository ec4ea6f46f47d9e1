"""Element encodings: which bits go into each input so that outputs name their source.

Inputs are filled with *element ids* (the index of the element among all
data inputs), split into digits over several launches of the same kernel:
launch ``l`` holds digit ``l`` of each id, XORed with a per-launch salt.  A
wrong output element then names the input element it came from, and a
stale value left by an earlier launch does not pass for the right one.

* ``bits`` mode (pure data movement): the digits are raw bit patterns of the
  element type, compared bit for bit.  Patterns stay below the all-ones
  sentinel the output is cleared to, and below any float NaN or infinity.
* ``numeric`` mode (kernels with dots or casts): the digits are small
  non-negative integers every float type on the path holds exactly, so
  ``x @ I == x`` exactly; extra *random* launches with small random integers
  check the arithmetic against a float64 reference with a tolerance.

Everything here is pure Python (the GPU machine may lack numpy).
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Sequence

from .layouts import BITS, FLOAT

# Digit widths of raw bit patterns, per element type (below the sentinel and
# below any NaN/Inf pattern of the float types).
BITS_DIGIT = {"i8": 7, "i16": 14, "i32": 24, "f16": 14, "bf16": 14, "f32": 24, "f8e4": 6, "f8e5": 6}
# Integers 0 .. 2**n - 1 held exactly by each type in arithmetic.
EXACT_DIGIT = {"i8": 7, "i16": 14, "i32": 24, "f16": 11, "bf16": 8, "f32": 11, "f8e4": 4, "f8e5": 3}
# Small random integers for the random launches: values in [-a, a].
RANDOM_RANGE = {"i8": 3, "i16": 3, "i32": 3, "f16": 2, "bf16": 2, "f32": 2, "f8e4": 1, "f8e5": 1}

SALTS = [0x2A5, 0x15B, 0x3C6, 0x0F9, 0x36C, 0x1D3, 0x2E8, 0x117]


def sentinel(dtype: str) -> int:
    """Return the bit pattern outputs are cleared to before a launch (all ones)."""
    return (1 << BITS[dtype]) - 1


def launches_needed(max_id: int, digit: int) -> int:
    """How many digit launches name every id up to ``max_id`` (at least 2)."""
    need = max(1, math.ceil(max(max_id, 1).bit_length() / digit))
    return max(2, need)


def digits_needed(max_id: int, digit: int) -> int:
    """How many digits ``max_id`` has."""
    return max(1, math.ceil(max(max_id, 1).bit_length() / digit))


def encode_id(gid: int, launch: int, digit: int, ndigits: int) -> int:
    """Return the digit value of element id ``gid`` in ``launch``."""
    mask = (1 << digit) - 1
    d = launch % ndigits
    return ((gid >> (d * digit)) ^ SALTS[launch % len(SALTS)]) & mask


def decode_ids(values: Sequence[Sequence[int]], digit: int, ndigits: int) -> list[int | None]:
    """Invert :func:`encode_id` per element from the values of every launch.

    ``values[launch][element]``; gives ``None`` where launches disagree or a
    value is out of range.
    """
    mask = (1 << digit) - 1
    nl = len(values)
    out: list[int | None] = []
    for e in range(len(values[0])):
        gid = 0
        ok = True
        seen: dict[int, int] = {}
        for launch in range(nl):
            v = values[launch][e]
            if v is None or v < 0 or v > mask:
                ok = False
                break
            dig = v ^ (SALTS[launch % len(SALTS)] & mask)
            d = launch % ndigits
            if d in seen and seen[d] != dig:
                ok = False
                break
            seen[d] = dig
            gid |= dig << (d * digit)
        out.append(gid if ok and len(seen) == ndigits else None)
    return out


# ------------------------------------------------------------ float formats


def f32_bits(x: float) -> int:
    """Return the bits of ``x`` rounded to float32."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(b: int) -> float:
    """Return the float32 with bits ``b``."""
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def _minifloat_encode(x: float, exp_bits: int, man_bits: int, bias: int, fn: bool) -> int:
    """Round ``x`` to nearest-even in a small float format.

    Saturates to the largest finite value, as Triton's conversions do.
    """
    sign = 1 if (x < 0 or (x == 0 and math.copysign(1, x) < 0)) else 0
    a = abs(x)
    if math.isnan(x):
        return (1 << (exp_bits + man_bits + 1)) - 1
    # largest finite
    if fn:  # e4m3fn: exponent all-ones is finite except mantissa all-ones
        max_exp = (1 << exp_bits) - 1 - bias
        max_man = (1 << man_bits) - 2
    else:
        max_exp = (1 << exp_bits) - 2 - bias
        max_man = (1 << man_bits) - 1
    max_val = (1 + max_man / (1 << man_bits)) * 2.0**max_exp
    if a >= max_val:
        e_field = max_exp + bias
        return (sign << (exp_bits + man_bits)) | (e_field << man_bits) | max_man
    min_normal_exp = 1 - bias
    if a == 0:
        return sign << (exp_bits + man_bits)
    e = math.floor(math.log2(a))
    e = max(e, min_normal_exp)
    scale = 2.0 ** (e - man_bits)
    q = a / scale
    r = math.floor(q)
    frac = q - r
    if frac > 0.5 or (frac == 0.5 and r % 2 == 1):
        r += 1
    if r >= (2 << man_bits):  # mantissa overflow: next exponent
        r //= 2
        e += 1
    if r < (1 << man_bits):  # subnormal
        e_field = 0
        man = r
    else:
        e_field = e + bias
        man = r - (1 << man_bits)
    if e_field > max_exp + bias or (fn and e_field == max_exp + bias and man > max_man):
        e_field, man = max_exp + bias, max_man
    return (sign << (exp_bits + man_bits)) | (e_field << man_bits) | man


def _minifloat_decode(b: int, exp_bits: int, man_bits: int, bias: int, fn: bool) -> float:
    sign = -1.0 if b >> (exp_bits + man_bits) & 1 else 1.0
    e_field = (b >> man_bits) & ((1 << exp_bits) - 1)
    man = b & ((1 << man_bits) - 1)
    if fn:
        if e_field == (1 << exp_bits) - 1 and man == (1 << man_bits) - 1:
            return math.nan
    elif e_field == (1 << exp_bits) - 1:
        return math.nan if man else sign * math.inf
    if e_field == 0:
        return sign * man * 2.0 ** (1 - bias - man_bits)
    return sign * (1 + man / (1 << man_bits)) * 2.0 ** (e_field - bias)


def encode_float(dtype: str, x: float) -> int:
    """Return the bits of ``x`` in float type ``dtype`` (round to nearest even)."""
    if dtype == "f32":
        return f32_bits(x)
    if dtype == "f16":
        try:
            return struct.unpack("<H", struct.pack("<e", x))[0]
        except OverflowError:
            return 0x7BFF | (0x8000 if x < 0 else 0)
    if dtype == "bf16":
        b = f32_bits(x)
        if (b & 0x7F800000) == 0x7F800000:
            return b >> 16
        lsb = (b >> 16) & 1
        return ((b + 0x7FFF + lsb) >> 16) & 0xFFFF
    if dtype == "f8e4":
        return _minifloat_encode(x, 4, 3, 7, True)
    if dtype == "f8e5":
        return _minifloat_encode(x, 5, 2, 15, False)
    raise ValueError(dtype)


def decode_float(dtype: str, b: int) -> float:
    """Return the value of bits ``b`` in float type ``dtype``."""
    if dtype == "f32":
        return bits_f32(b)
    if dtype == "f16":
        return struct.unpack("<e", struct.pack("<H", b & 0xFFFF))[0]
    if dtype == "bf16":
        return bits_f32((b & 0xFFFF) << 16)
    if dtype == "f8e4":
        return _minifloat_decode(b, 4, 3, 7, True)
    if dtype == "f8e5":
        return _minifloat_decode(b, 5, 2, 15, False)
    raise ValueError(dtype)


def round_to(dtype: str, x: float) -> float:
    """``x`` as ``dtype`` holds it (integers wrap as two's complement)."""
    if dtype in FLOAT:
        return decode_float(dtype, encode_float(dtype, x))
    bits = BITS[dtype]
    v = int(x) & ((1 << bits) - 1)
    return float(v - (1 << bits) if v >> (bits - 1) else v)


def encode_value(dtype: str, x: float) -> int:
    """Return the bits of number ``x`` in ``dtype`` (two's complement for integers)."""
    if dtype in FLOAT:
        return encode_float(dtype, x)
    return int(x) & ((1 << BITS[dtype]) - 1)


def decode_value(dtype: str, b: int) -> float:
    """Return the number held by bits ``b`` of ``dtype``."""
    if dtype in FLOAT:
        return decode_float(dtype, b)
    bits = BITS[dtype]
    b &= (1 << bits) - 1
    return float(b - (1 << bits) if b >> (bits - 1) else b)


def random_ints(seed: str, n: int, lo: int, hi: int) -> list[int]:
    """``n`` reproducible random integers in ``[lo, hi]``."""
    rng = random.Random(seed)
    return [rng.randint(lo, hi) for _ in range(n)]
