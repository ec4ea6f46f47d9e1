"""Element encodings and float formats."""

from __future__ import annotations

import itertools
import math
import struct

from linear_layout_conformance import data


def test_digits_round_trip():
    for digit, n in ((7, 300), (14, 20000), (6, 5000), (24, 70000)):
        nd = data.digits_needed(n - 1, digit)
        launches = max(2, nd)
        vals = [
            [data.encode_id(g, launch, digit, nd) for g in range(n)] for launch in range(launches)
        ]
        assert all(0 <= v < (1 << digit) for row in vals for v in row)
        assert data.decode_ids(vals, digit, nd) == list(range(n))
    # a value out of the digit range (the all-ones sentinel) does not decode
    vals = [[data.encode_id(g, launch, 7, 2) for g in range(10)] for launch in range(2)]
    vals[0][3] = 0xFF
    assert data.decode_ids(vals, 7, 2)[3] is None


def test_exact_digits_are_exact():
    for dt, bits in data.EXACT_DIGIT.items():
        for x in range(1 << bits):
            assert data.decode_value(dt, data.encode_value(dt, x)) == x, (dt, x)


def test_bit_digits_avoid_nan_and_sentinel():
    for dt, bits in data.BITS_DIGIT.items():
        for x in range(0, 1 << bits, max(1, (1 << bits) // 4096)):
            assert x != data.sentinel(dt)
            if dt.startswith("f") and dt != "f32":
                assert not math.isnan(data.decode_float(dt, x)), (dt, hex(x))


def test_float_formats():
    assert data.encode_float("f16", 0.1) == 0x2E66
    assert data.encode_float("bf16", 1.0) == 0x3F80
    assert data.encode_float("bf16", 1.0 + 2**-8) == 0x3F80  # tie to even
    assert data.encode_float("bf16", 1.0 + 3 * 2**-9) == 0x3F81
    assert data.decode_float("f8e4", 0x7E) == 448.0
    assert data.encode_float("f8e4", 1000.0) == 0x7E  # saturates
    assert data.decode_float("f8e5", 0x7B) == 57344.0
    assert data.encode_float("f8e4", 2**-9) == 0x01  # smallest subnormal
    assert data.encode_float("f8e5", -1.5) == 0xBE
    for b in range(256):
        for dt in ("f8e4", "f8e5"):
            x = data.decode_float(dt, b)
            if not math.isnan(x) and not math.isinf(x):
                assert data.encode_float(dt, x) == b or x == 0, (dt, b)
    for x, dt in itertools.product([0.0, 1.0, -2.5, 3.0e-5], ["f32", "f16"]):
        fmt = "<f" if dt == "f32" else "<e"
        assert (
            data.decode_float(dt, data.encode_float(dt, x))
            == struct.unpack(fmt, struct.pack(fmt, x))[0]
        )
