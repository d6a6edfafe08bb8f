"""The pictures in docs/img, made on a GPU by `fmhactl scenario run device-plots`.

Each must be a real PNG of a sensible size. They are made on the device only; where one has not
been made yet the test says so (skip) rather than pass on nothing.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
EXPECTED = ("bench-sm90_pingpong-h100.png", "roofline-sm90_pingpong-h100.png", "bench-sm90_persistent-h100.png")


@pytest.mark.parametrize("name", EXPECTED)
def test_device_picture_is_a_png_of_sensible_size(name):
    path = IMG / name
    if not path.is_file():
        pytest.skip(f"{path.name} not made yet: `fmhactl scenario run device-plots` on a GPU makes it")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert 600 <= width <= 4000 and 400 <= height <= 4000
    assert 10_000 < len(data) < 4_000_000
