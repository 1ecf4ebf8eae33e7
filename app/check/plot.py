"""busbw against message size as a PNG, written with zlib and struct only.

matplotlib is not a dependency of the images; this chart needs lines, axes and a few labels, which a
60-line rasteriser with a 3x5 pixel font draws. Log2 size on x, linear busbw on y, one line per
(scope, collective), the legend in the same colours.
"""

from __future__ import annotations

import itertools
import math
import struct
import zlib
from collections.abc import Mapping, Sequence

WIDTH, HEIGHT, MARGIN = 800, 500, 60
PALETTE = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
]
# 3x5 glyphs, rows top to bottom, 3 bits each.
FONT = {
    "0": "111101101101111",
    "1": "010110010010111",
    "2": "111001111100111",
    "3": "111001111001111",
    "4": "101101111001001",
    "5": "111100111001111",
    "6": "111100111101111",
    "7": "111001001001001",
    "8": "111101111101111",
    "9": "111101111001111",
    ".": "000000000000010",
    " ": "000000000000000",
    "K": "101101110101101",
    "M": "101111111101101",
    "G": "111100101101111",
    "B": "110101110101110",
    "/": "001001010100100",
    "s": "000011110001110",
    "b": "100100110101110",
    "u": "000101101101111",
    "w": "000101101111111",
    ":": "000010000010000",
    "-": "000000111000000",
    "_": "000000000000111",
    "a": "000110011101111",
    "l": "110010010010111",
    "r": "000110101100100",
    "e": "000111111100011",
    "d": "001001011101011",
    "c": "000011100100011",
    "t": "010111010010011",
    "g": "000111101011110",
    "h": "100100110101101",
    "n": "000110101101101",
    "i": "010000010010010",
    "o": "000010101101010",
    "v": "000101101101010",
    "k": "100101110110101",
    "p": "000110101110100",
    "x": "000101010101101",
    "y": "000101111001110",
    "z": "000111001100111",
    "m": "000111111101101",
    "f": "011010111010010",
    "(": "010100100100010",
    ")": "010001001001010",
    ",": "000000000010100",
    "=": "000111000111000",
}


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray([255] * (width * height * 3))

    def dot(self, x: int, y: int, color: tuple[int, int, int], size: int = 1) -> None:
        for dx in range(size):
            for dy in range(size):
                px, py = x + dx, y + dy
                if 0 <= px < self.width and 0 <= py < self.height:
                    i = (py * self.width + px) * 3
                    self.pixels[i : i + 3] = bytes(color)

    def line(self, x0: float, y0: float, x1: float, y1: float, color: tuple[int, int, int], size: int = 1) -> None:
        steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        for s in range(steps + 1):
            t = s / steps
            self.dot(round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t), color, size)

    def text(self, x: int, y: int, text: str, color: tuple[int, int, int] = (0, 0, 0), scale: int = 2) -> None:
        for char in text:
            glyph = FONT.get(char, FONT.get(char.lower(), FONT[" "]))
            for row in range(5):
                for col in range(3):
                    if glyph[row * 3 + col] == "1":
                        self.dot(x + col * scale, y + row * scale, color, scale)
            x += 4 * scale

    def png(self) -> bytes:
        raw = b"".join(
            b"\x00" + bytes(self.pixels[y * self.width * 3 : (y + 1) * self.width * 3]) for y in range(self.height)
        )

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
        )


def human(size: float) -> str:
    for unit, factor in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= factor:
            return f"{size / factor:g}{unit}"
    return f"{size:g}"


def write_busbw_plot(path: str, tables: Mapping[str, Sequence]) -> None:
    """`tables`: scope title -> rows with .collective, .size, .busbw (report.BandwidthRow)."""
    series: dict[str, list[tuple[int, float]]] = {}
    for scope, rows in tables.items():
        for row in rows:
            series.setdefault(f"{scope.split(' (')[0]}: {row.collective}", []).append((row.size, row.busbw))
    points = [p for s in series.values() for p in s]
    canvas = Canvas(WIDTH, HEIGHT)
    left, right, top, bottom = MARGIN, WIDTH - 270, 30, HEIGHT - MARGIN
    xs = [math.log2(size) for size, _ in points] or [0.0, 1.0]
    x_min, x_max = min(xs), max(max(xs), min(xs) + 1)
    y_max = max([bw for _, bw in points] + [1e-9]) * 1.1

    def to_px(size: int, bw: float) -> tuple[float, float]:
        return (
            left + (math.log2(size) - x_min) / (x_max - x_min) * (right - left),
            bottom - bw / y_max * (bottom - top),
        )

    grey = (200, 200, 200)
    for i in range(5):
        y = bottom - i * (bottom - top) / 4
        canvas.line(left, y, right, y, grey)
        canvas.text(4, int(y) - 5, f"{y_max * i / 4:.3g}")
    for exp in range(math.ceil(x_min), math.floor(x_max) + 1, max(1, round((x_max - x_min) / 8))):
        x = left + (exp - x_min) / (x_max - x_min) * (right - left)
        canvas.line(x, top, x, bottom, grey)
        canvas.text(int(x) - 8, bottom + 8, human(2**exp))
    canvas.line(left, bottom, right, bottom, (0, 0, 0))
    canvas.line(left, top, left, bottom, (0, 0, 0))
    canvas.text(left, 8, "busbw GB/s vs message size B")
    for n, (name, pts) in enumerate(sorted(series.items())):
        color = PALETTE[n % len(PALETTE)]
        pts = sorted(pts)
        for (s0, b0), (s1, b1) in itertools.pairwise(pts):
            canvas.line(*to_px(s0, b0), *to_px(s1, b1), color, 2)
        for size, bw in pts:
            x, y = to_px(size, bw)
            canvas.dot(int(x) - 2, int(y) - 2, color, 5)
        ly = top + 14 * n
        canvas.line(right + 15, ly + 4, right + 35, ly + 4, color, 3)
        canvas.text(right + 40, ly, name[:26], scale=2)
    with open(path, "wb") as file:
        file.write(canvas.png())
