"""The checkpoint dump file that `fmhactl dump ... --out FILE` writes and `fmhactl tui` reads.

Format (JSON, one document; docs/tui.md describes it for people):

    {"schema": "fmhactl.dump/1",
     "variant": "sm100_tma_s2_smem", "arch": "sm_90a", "mode": "emulated",
     "config_key": "b1h1t100s300d128bf16c", "config": {...AttnConfig...},
     "checkpoint": "S",                    # Q, K, V (shared memory) or S, P, O (TMEM)
     "space": "tmem",                      # "tmem": rows are TMEM lanes, cols TMEM columns
                                           # "smem": rows/cols are the operand tile's (row, k)
     "row_name": "lane", "col_name": "column",
     "rows": 128, "cols": 128,
     "threshold": 0.001,                   # |got - want| > threshold is a mismatch (0: exact)
     "layout": {"major": "K", "swizzle": "128B", "dtype": "bf16", "rows": 128, "cols": 128},  # smem only
     "got":  [[...], ...],                 # rows x cols numbers (NaN/Infinity as Python's json writes them)
     "want": [[...], ...]}

For shared-memory checkpoints the kernel's raw image is turned into the tile's elements with the
layout model (element (row, k) is read at the byte the layout puts it), so `got[row][k]` is what
the MMA would read as element (row, k). V is an MN-major operand: its rows are head-dim indices
and its k runs over keys.
"""

from __future__ import annotations

import json
import math
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fmhactl.errors import BadInput
from fmhactl.paths import create_parent

SCHEMA = "fmhactl.dump/1"
MAX_CELLS = 512 * 512
MAX_FILE_BYTES = 64 << 20
SPACES = {"tmem": ("lane", "column"), "smem": ("row", "k")}


@dataclass(frozen=True)
class DumpFile:
    variant: str
    arch: str
    mode: str
    config_key: str
    checkpoint: str
    space: str
    rows: int
    cols: int
    threshold: float
    got: list[list[float]]
    want: list[list[float]]
    layout: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def row_name(self) -> str:
        return SPACES[self.space][0]

    @property
    def col_name(self) -> str:
        return SPACES[self.space][1]

    @property
    def tolerance(self) -> float:
        return self.threshold

    def abs_errors(self) -> list[list[float]]:
        out = []
        for g_row, w_row in zip(self.got, self.want):
            out.append([0.0 if _same(g, w) else (abs(g - w) if math.isfinite(g - w) else math.inf)
                        for g, w in zip(g_row, w_row)])
        return out

    def mismatch(self, row: int, col: int) -> bool:
        g, w = self.got[row][col], self.want[row][col]
        if _same(g, w):
            return False
        diff = abs(g - w)
        return not math.isfinite(diff) or diff > self.threshold

    def mismatches(self) -> int:
        return sum(self.mismatch(r, c) for r in range(self.rows) for c in range(self.cols))

    def first_mismatch(self) -> tuple[int, int] | None:
        return next(((r, c) for r in range(self.rows) for c in range(self.cols) if self.mismatch(r, c)), None)


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def write_dump(path: str | Path, *, variant: str, arch: str, mode: str, config_key: str, config: dict[str, Any],
               checkpoint: str, space: str, got: list[list[float]], want: list[list[float]], threshold: float,
               layout: dict[str, Any] | None = None) -> None:
    """Write the document atomically (a reader never sees half a file)."""
    rows, cols = len(got), len(got[0]) if got else 0
    doc = {"schema": SCHEMA, "variant": variant, "arch": arch, "mode": mode, "config_key": config_key,
           "config": config, "checkpoint": checkpoint, "space": space, "row_name": SPACES[space][0],
           "col_name": SPACES[space][1], "rows": rows, "cols": cols, "threshold": threshold,
           "layout": layout or {}, "got": got, "want": want}
    target = create_parent(path, "--out")  # proved creatable before the run (paths.check_output_path)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(doc))
    os.replace(tmp, target)


def read_dump(path: str | Path) -> DumpFile:
    """Parse and check a dump file; anything wrong is a BadInput naming the file and the rule."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise BadInput(f"dump file {path}: not found (or not a file)")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise BadInput(f"dump file {path}: larger than {MAX_FILE_BYTES >> 20} MiB")
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"dump file {path}: unreadable ({type(exc).__name__})") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"dump file {path}: not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise BadInput(f"dump file {path}: schema must be {SCHEMA!r} (written by `fmhactl dump ... --out FILE`)")
    space = doc.get("space")
    if not isinstance(space, str) or space not in SPACES:
        raise BadInput(f"dump file {path}: space must be tmem or smem; got {space!r}")
    rows, cols = doc.get("rows"), doc.get("cols")
    if not (_is_int(rows) and _is_int(cols) and rows > 0 and cols > 0 and rows * cols <= MAX_CELLS):
        raise BadInput(f"dump file {path}: rows and cols must be positive integers with rows x cols <= {MAX_CELLS}")
    grids = {}
    for key in ("got", "want"):
        grid = doc.get(key)
        if (not isinstance(grid, list) or len(grid) != rows
                or any(not isinstance(r, list) or len(r) != cols for r in grid)):
            raise BadInput(f"dump file {path}: {key} must be {rows} rows of {cols} numbers")
        if any(not _is_number(x) for r in grid for x in r):  # "1" or true is not a number the kernel wrote
            raise BadInput(f"dump file {path}: {key} holds something that is not a number")
        try:
            grids[key] = [[float(x) for x in r] for r in grid]
        except OverflowError:
            raise BadInput(f"dump file {path}: {key} holds an integer too large for a float") from None
    threshold = doc.get("threshold", 0.0)
    if not _is_number(threshold) or not 0 <= threshold < math.inf:  # a NaN threshold would hide every mismatch
        raise BadInput(f"dump file {path}: threshold must be a finite number >= 0")
    layout, config = doc.get("layout", {}), doc.get("config", {})
    if not isinstance(layout, dict) or not isinstance(config, dict):
        raise BadInput(f"dump file {path}: layout and config must be JSON objects")
    if space == "smem":
        _check_smem_layout(layout, path)
    return DumpFile(str(doc.get("variant", "?")), str(doc.get("arch", "?")), str(doc.get("mode", "?")),
                    str(doc.get("config_key", "?")), str(doc.get("checkpoint", "?")), space, rows, cols,
                    float(threshold), grids["got"], grids["want"], dict(layout), dict(config))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_smem_layout(layout: dict[str, Any], path: str | Path) -> None:
    """A shared-memory dump's tile as the viewer draws it: a major-ness, a swizzle and an element type
    the layout model knows, and positive rows/cols where given."""
    from fmhactl.layout.common import LayoutError, canonical_dtype
    from fmhactl.layout.swizzle import parse_major, parse_swizzle

    if not {"major", "swizzle", "dtype"} <= set(layout):
        raise BadInput(f"dump file {path}: a shared-memory dump needs layout.major, layout.swizzle, layout.dtype")
    try:
        if not all(isinstance(layout[k], str) for k in ("major", "swizzle", "dtype")):
            raise LayoutError("layout.major, layout.swizzle and layout.dtype must be strings")
        parse_major(layout["major"])
        parse_swizzle(layout["swizzle"])
        canonical_dtype(layout["dtype"])
    except LayoutError as exc:
        raise BadInput(f"dump file {path}: {exc}") from None
    for key in ("rows", "cols"):
        if key in layout and not (_is_int(layout[key]) and 0 < layout[key] <= MAX_CELLS):
            raise BadInput(f"dump file {path}: layout.{key} must be a positive integer")


def bits_to_float(bits: int, dtype: str) -> float:
    """A 16-bit pattern (as stored in shared memory) as the number it encodes."""
    bits &= 0xFFFF
    if dtype == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def smem_tile_layout(checkpoint: str, head_dim: int, rows: int, dtype: str) -> dict[str, Any]:
    """The operand tile a Q/K/V checkpoint holds, in the terms of `fmhactl layout smem`."""
    if checkpoint == "V":  # MN-major: MN = head dim, K = keys
        return {"major": "MN", "swizzle": "128B", "dtype": dtype, "rows": head_dim, "cols": rows}
    return {"major": "K", "swizzle": "128B", "dtype": dtype, "rows": rows, "cols": head_dim}


def smem_elements(image: list[int], layout: dict[str, Any]) -> list[list[float]]:
    """Element (row, k) of the tile read from a raw 16-bit image at the byte the layout puts it."""
    from fmhactl.layout.smem import make_tile

    tile = make_tile(layout["major"], layout["swizzle"], layout["rows"], layout["cols"], layout["dtype"])
    return [[bits_to_float(image[tile.offset(r, k) // 2], layout["dtype"]) for k in range(tile.cols)]
            for r in range(tile.rows)]


def write_from_worker(path: str, job: dict[str, Any], at: str, got: Any, want: Any, report: dict[str, Any],
                      head_dim: int, dtype: str) -> None:
    """Called by the kernel worker with the checkpoint tensors (torch, on the CPU)."""
    if at in ("Q", "K", "V"):
        rows = got.numel() // head_dim
        layout = smem_tile_layout(at, head_dim, rows, dtype)
        g, w = smem_elements(got.tolist(), layout), smem_elements(want.tolist(), layout)
        space, threshold = "smem", 0.0
    else:
        layout, space = {}, "tmem"
        g, w = got.tolist(), want.tolist()
        tol = float(report.get("tolerance", 0.0))
        scale = max((abs(x) for row in w for x in row if math.isfinite(x)), default=1.0) or 1.0
        threshold = tol if at == "P" else tol * max(1.0, scale)
    write_dump(path, variant=str(job.get("variant", "?")), arch=str(job.get("arch", "")),
               mode=str(job.get("mode", "")), config_key=str(job.get("config_key", "")),
               config=dict(job.get("config", {})), checkpoint=at, space=space, got=g, want=w,
               threshold=threshold, layout=layout)
