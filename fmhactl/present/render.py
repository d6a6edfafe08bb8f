"""Colour grids for the terminal (rich) and hand-written SVG pictures of layouts.

A grid is a dict {(row, col): Cell}; rows and columns carry their own labels. Colours come from
a key (a thread, a bank, a core matrix) so equal keys share a colour. Plain data and SVG only:
the terminal rendering (rich) lives in fmhactl/cli/common.py (the TUI draws grids itself).
"""

from __future__ import annotations

import colorsys
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Cell:
    label: str
    key: int  # colour key
    title: str = ""  # SVG tooltip


def colour(key: int, n: int = 32) -> str:
    """A light, well-separated colour for key (golden-ratio hue walk for large n)."""
    n = max(n, 1)
    hue = (key % n) / n if n <= 32 else (key * 0.6180339887) % 1.0
    light = 0.80 if (key // max(n, 1)) % 2 == 0 else 0.70
    r, g, b = colorsys.hls_to_rgb(hue, light, 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def svg_grid(title: str, rows: list[int], cols: list[int], cells: dict[tuple[int, int], Cell],
             row_label: Callable[[int], str], col_label: Callable[[int], str], n_keys: int = 32,
             subtitle: str = "", cell_w: int = 0, cell_h: int = 22) -> str:
    """A self-contained SVG document of the grid, one labelled rectangle per cell."""
    longest = max([len(c.label) for c in cells.values()] + [len(col_label(c)) for c in cols] + [3])
    cw = cell_w or max(30, 7 * longest + 10)
    left = max(48, 8 * max([len(row_label(r)) for r in rows] + [2]) + 12)
    top = 70 if subtitle else 56
    width = max(left + cw * len(cols), left + int(9.5 * len(title)), left + int(7 * len(subtitle))) + 20
    height = top + cell_h * len(rows) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans Mono, Menlo, monospace" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{left}" y="22" font-size="15" font-weight="bold">{escape(title)}</text>']
    if subtitle:
        out.append(f'<text x="{left}" y="40" font-size="11" fill="#444">{escape(subtitle)}</text>')
    for j, c in enumerate(cols):
        x = left + j * cw + cw / 2
        out.append(f'<text x="{x:.1f}" y="{top - 6}" text-anchor="middle" fill="#333">{escape(col_label(c))}</text>')
    for i, r in enumerate(rows):
        y = top + i * cell_h
        out.append(f'<text x="{left - 6}" y="{y + cell_h * 0.68:.1f}" text-anchor="end" fill="#333">'
                   f'{escape(row_label(r))}</text>')
        for j, c in enumerate(cols):
            cell = cells.get((r, c))
            x = left + j * cw
            fill = "#f4f4f4" if cell is None else colour(cell.key, n_keys)
            tip = f"<title>{escape(cell.title or cell.label)}</title>" if cell is not None else ""
            out.append(f'<g><rect x="{x}" y="{y}" width="{cw}" height="{cell_h}" fill="{fill}" '
                       f'stroke="#ffffff" stroke-width="1"/>{tip}')
            if cell is not None:
                out.append(f'<text x="{x + cw / 2:.1f}" y="{y + cell_h * 0.68:.1f}" text-anchor="middle">'
                           f'{escape(cell.label)}</text>')
            out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_svg(path: str | Path, text: str) -> None:
    from fmhactl.paths import create_parent

    create_parent(path, "--svg").write_text(text)


def json_document(meta: dict[str, Any], records: list[dict[str, Any]] | None = None,
                  lines: list[str] | None = None) -> str:
    """JSON text with the metadata indented and one record per line (fast for many records).

    `lines` are records already rendered as JSON objects (for the biggest outputs)."""
    import json

    marker = "__fmhactl_records__"
    head = json.dumps({**meta, "records": marker}, indent=2, sort_keys=True, default=str)
    if lines is None:
        # flat dicts of numbers and plain strings: encode them in one C-speed call, then break the
        # line between records
        body = json.dumps(records or [], default=str, separators=(", ", ": "))[1:-1].replace("}, {", "},\n    {")
    else:
        body = ",\n    ".join(lines)
    return head.replace(f'"{marker}"', "[\n    " + body + "\n  ]" if body else "[]", 1) + "\n"


@dataclass(frozen=True)
class TextTable:
    """A table as plain strings: the CLI prints it with rich on a terminal and as TSV in a pipe."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def tsv(self) -> str:
        clean = lambda s: str(s).replace("\t", " ").replace("\n", " ")  # noqa: E731
        lines = [f"# {self.title}"] if self.title else []
        lines.append("\t".join(clean(h) for h in self.headers))
        lines.extend("\t".join(clean(c) for c in row) for row in self.rows)
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class BitField:
    lo: int
    width: int
    name: str
    value: str
    bad: bool = False


def svg_bitfield(title: str, total_bits: int, fields: list[BitField], subtitle: str = "") -> str:
    """A register diagram: most significant bit on the left, one box per field, bad fields in red."""
    bit_w, left, top, height = 22, 20, 66 if subtitle else 50, 64
    width = left * 2 + bit_w * total_bits
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + height + 30}" '
           f'font-family="DejaVu Sans Mono, Menlo, monospace" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{left}" y="22" font-size="15" font-weight="bold">{escape(title)}</text>']
    if subtitle:
        out.append(f'<text x="{left}" y="40" fill="#444">{escape(subtitle)}</text>')
    for i, f in enumerate(sorted(fields, key=lambda f: -f.lo)):
        x = left + bit_w * (total_bits - f.lo - f.width)
        w = bit_w * f.width
        fill = "#f28b82" if f.bad else ("#dbe9f6", "#e6f2d9", "#f4ecd8")[i % 3]
        stroke = 'stroke="#c5221f" stroke-width="3"' if f.bad else 'stroke="#333"'
        out.append(f'<g><rect x="{x}" y="{top}" width="{w}" height="{height}" fill="{fill}" {stroke}/>'
                   f'<title>{escape(f.name)} bits {f.lo}..{f.lo + f.width - 1} = {escape(f.value)}</title></g>')
        out.append(f'<text x="{x + w / 2:.1f}" y="{top + 24}" text-anchor="middle" font-weight="bold">'
                   f'{escape(f.name if len(f.name) * 7 < w else f.name[:max(1, w // 7 - 1)] + ".")}</text>')
        out.append(f'<text x="{x + w / 2:.1f}" y="{top + 44}" text-anchor="middle">'
                   f'{escape(f.value if len(f.value) * 7 < w else f.value[:max(1, w // 7 - 1)] + ".")}</text>')
        out.append(f'<text x="{x + 3}" y="{top + height + 14}" fill="#555">{f.lo + f.width - 1}</text>')
        if f.width > 1:
            out.append(f'<text x="{x + w - 3}" y="{top + height + 14}" text-anchor="end" fill="#555">{f.lo}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
