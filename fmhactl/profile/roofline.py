"""A roofline picture as a PNG, drawn with a tiny pure-Python writer (zlib + struct, no matplotlib).

Log-log axes: arithmetic intensity (FLOP per DRAM byte, 10^-1..10^4) against TFLOP/s
(10^-1..10^4). The roof is min(tensor peak at the measured clock, intensity x DRAM peak); the
run is the red dot. Decade labels are drawn with a 3x5 bitmap font; the legend is printed by the CLI.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

from fmhactl.errors import FmhactlError, ExitCode

WHITE, BLACK, GREY, BLUE, RED, GREEN = ((255, 255, 255), (0, 0, 0), (215, 215, 215), (30, 90, 200),
                                        (210, 30, 30), (40, 150, 60))

_FONT = {  # 3x5 glyphs, rows top to bottom, bits left to right
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
    ".": ("000", "000", "000", "000", "010"), "e": ("000", "111", "111", "100", "111"),
    "-": ("000", "000", "111", "000", "000"),
}


def png_bytes(width: int, height: int, pixels: list[bytearray]) -> bytes:
    """An 8-bit RGB PNG; pixels is one bytearray of 3*width per row."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(row) for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.rows = [bytearray(WHITE * width) for _ in range(height)]

    def set(self, x: int, y: int, color: tuple[int, int, int]) -> None:
        if 0 <= x < self.width and 0 <= y < self.height:
            self.rows[y][3 * x:3 * x + 3] = bytes(color)

    def line(self, x0: float, y0: float, x1: float, y1: float, color, thick: int = 1) -> None:
        steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        for i in range(steps + 1):
            t = i / steps
            x, y = round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t)
            for dx in range(-(thick // 2), thick // 2 + 1):
                for dy in range(-(thick // 2), thick // 2 + 1):
                    self.set(x + dx, y + dy, color)

    def disk(self, cx: float, cy: float, r: int, color) -> None:
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                if dx * dx + dy * dy <= r * r:
                    self.set(round(cx) + dx, round(cy) + dy, color)

    def text(self, x: int, y: int, s: str, color, scale: int = 2) -> None:
        for ch in s:
            glyph = _FONT.get(ch)
            if glyph:
                for gy, bits in enumerate(glyph):
                    for gx, bit in enumerate(bits):
                        if bit == "1":
                            for sy in range(scale):
                                for sx in range(scale):
                                    self.set(x + gx * scale + sx, y + gy * scale + sy, color)
            x += 4 * scale

    def png(self) -> bytes:
        return png_bytes(self.width, self.height, self.rows)


def _label(exp: int) -> str:
    return {-1: "0.1", 0: "1", 1: "10", 2: "100"}.get(exp, f"1e{exp}")


def draw_roofline(summary: dict, path: Path, *, width: int = 640, height: int = 480) -> dict:
    """Write the PNG; returns the numbers drawn. Raises when the report lacks what a roofline needs."""
    peak = summary.get("tensor_peak_tflops")
    bw_gbs = summary.get("dram_peak_gbs")
    ai = summary.get("arith_intensity")
    achieved = summary.get("tflops")
    missing = [n for n, v in (("tensor peak", peak), ("DRAM peak bandwidth", bw_gbs),
                              ("DRAM bytes", ai), ("duration", achieved)) if not v]
    if missing:
        raise FmhactlError(f"cannot draw a roofline: the report lacks {', '.join(missing)}", ExitCode.VERIFY_FAILED)
    lo, hi = -1, 4
    left, right, top, bottom = 60, width - 20, 20, height - 40

    def px(x: float) -> float:
        return left + (math.log10(x) - lo) / (hi - lo) * (right - left)

    def py(y: float) -> float:
        return bottom - (math.log10(y) - lo) / (hi - lo) * (bottom - top)

    canvas = Canvas(width, height)
    for exp in range(lo, hi + 1):
        canvas.line(px(10.0 ** exp), top, px(10.0 ** exp), bottom, GREY)
        canvas.line(left, py(10.0 ** exp), right, py(10.0 ** exp), GREY)
        canvas.text(int(px(10.0 ** exp)) - 6, bottom + 8, _label(exp), BLACK)
        canvas.text(8, int(py(10.0 ** exp)) - 5, _label(exp), BLACK)
    canvas.line(left, top, left, bottom, BLACK, 2)
    canvas.line(left, bottom, right, bottom, BLACK, 2)
    bw_tbs = bw_gbs / 1e3
    ridge = peak / bw_tbs
    xs = [10.0 ** (lo + i * (hi - lo) / 400) for i in range(401)]
    prev = None
    for x in xs:
        y = min(peak, x * bw_tbs)
        y = min(max(y, 10.0 ** lo), 10.0 ** hi)
        point = (px(x), py(y))
        if prev:
            canvas.line(prev[0], prev[1], point[0], point[1], BLUE, 3)
        prev = point
    if 10.0 ** lo <= ridge <= 10.0 ** hi:
        canvas.disk(px(ridge), py(peak), 3, GREEN)
    clamp = lambda v: min(max(v, 10.0 ** lo), 10.0 ** hi)  # noqa: E731
    canvas.disk(px(clamp(ai)), py(clamp(achieved)), 6, RED)
    path.write_bytes(canvas.png())
    return {"png": str(path), "arith_intensity": ai, "tflops": achieved, "tensor_peak_tflops": peak,
            "dram_peak_tbs": bw_tbs, "ridge_flop_per_byte": ridge,
            "attainable_tflops": min(peak, ai * bw_tbs)}
