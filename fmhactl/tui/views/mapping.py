"""The Map and Checkpoints screens' views: S in TMEM -> P in shared memory (SMEM-P) or TMEM (TS) as two
linked grids, and a checkpoint dump laid out as an error heat map."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fmhactl.errors import BadInput
from fmhactl.services.layout_views import Problem
from fmhactl.tui.gridmodel import GridCell, GridModel

# --------------------------------------------------------------------------------------------
# Map: S in TMEM -> P in shared memory (SMEM-P) or TMEM (TS) (services.layout.smem_p_map)
# --------------------------------------------------------------------------------------------

@dataclass
class MapView:
    header: str
    problems: list[Problem]
    tmem_grid: GridModel
    dest_grid: GridModel
    tmem_to_dest: dict[tuple[int, int], tuple[int, int]]
    dest_to_tmem: dict[tuple[int, int], tuple[int, int]]
    store_lines: list[str]
    records_by_cell: dict[tuple[int, int], Any]


def map_p_side(view: MapView, key: tuple[int, int]) -> str:
    """Where the S value at grid cell `key` goes as P: the element itself, not its chunk's first one."""
    r = view.records_by_cell.get(key)
    if r is None:
        return "P side: -"
    if r.addr >= 0:
        return (f"P side: P[{r.m}][{r.n}] at byte {r.addr:#x} (bank {(r.addr >> 2) & 31}); "
                f"its 16-B chunk starts with {view.dest_grid.cell(*view.tmem_to_dest[key]).label}")
    return f"P side: P[{r.m}][{r.n}] -> {view.dest_grid.cell(r.tmem_lane, r.tmem_col).detail}"


def map_specs(src: str, dst: str, m: int = 128, n: int = 128) -> dict[str, Any]:
    """`--from tmem:SHAPE:num=N --to smem:MAJOR:SWIZZLE|tmem` (as `fmhactl layout map`) as Map options."""
    from fmhactl.services import layout as svc

    pmap = svc.smem_p_map(src, dst, m, n, warps=[0])
    if any(part.startswith(("col=", "lane=", "acc=")) or part == "pack" for part in src.split(":")[2:]):
        raise BadInput(f"--from {src!r}: the Map screen takes tmem:SHAPE:num=N only")
    parts = src.split(":")
    num = next((int(p.split("=", 1)[1]) for p in parts[2:] if p.startswith("num=")), 8)
    out: dict[str, Any] = {"shape": parts[1], "num": num, "to_tmem": pmap.store_plan is None}
    if pmap.store_plan is not None:
        d = dst.split(":")
        out.update(major=d[1].upper(), swizzle=d[2])
    return out


def map_view(shape: str = "32x32b", num: int = 8, major: str = "K", swizzle: str = "128B", m: int = 128,
             n: int = 128, dtype: str = "bf16", to_tmem: bool = False) -> MapView:
    """Both ends of `fmhactl layout map --from tmem:SHAPE:num=N --to DEST` as two linked grids; the
    store lines are the CLI's (report.map_plan_lines)."""
    from fmhactl.services.layout_views import accum
    from fmhactl.present.report import map_plan_lines
    from fmhactl.services import layout as svc

    dest_spec = "tmem" if to_tmem else f"smem:{major}:{swizzle}"
    pmap = svc.smem_p_map(f"tmem:{shape}:num={num}", dest_spec, m, n, dtype)
    src: dict[tuple[int, int], GridCell] = {}
    by_cell: dict[tuple[int, int], Any] = {}
    for r in pmap.records:
        lane, col = accum.row_lane(m, r.m), r.n
        src[(lane, col)] = GridCell(f"t{r.thread}.r{r.reg}", r.thread % 32, r.thread,
                                    f"S[{r.m}][{r.n}] at lane {lane}, column {col}: thread {r.thread} "
                                    f"(warp {r.thread // 32}, lane {r.thread % 32}) r[{r.reg}] of load #{r.load}"
                                    + (f" -> P at byte {r.addr:#x} (bank {(r.addr >> 2) & 31})" if r.addr >= 0
                                       else f" -> P at TMEM lane {r.tmem_lane}, column {r.tmem_col}"))
        by_cell[(lane, col)] = r
    tmem_grid = GridModel(f"S in TMEM read with tcgen05.ld.{shape}.x{num}: cell = thread.register",
                          sorted({k[0] for k in src}), sorted({k[1] for k in src}), src,
                          lambda r: f"L{r:<3}w{r // 32}", lambda c: f"c{c}", 32, "lane")
    dest: dict[tuple[int, int], GridCell] = {}
    to_dest: dict[tuple[int, int], tuple[int, int]] = {}
    back: dict[tuple[int, int], tuple[int, int]] = {}
    if not to_tmem:
        for key_src, r in sorted(by_cell.items(), key=lambda item: (item[1].m, item[1].n)):
            key = r.addr // 128, (r.addr // 16) % 8
            to_dest[key_src] = key
            if key not in dest:  # the chunk is named by its first value
                back[key] = key_src
                dest[key] = GridCell(f"{r.m},{r.n}", r.thread % 32, r.thread,
                                     f"bytes {r.addr - r.addr % 16:#x}..+15 (banks {(r.addr >> 2) & 28}.."
                                     f"{((r.addr >> 2) & 28) + 3}): P[{r.m}][{r.n}..] (this chunk's first value), written by thread "
                                     f"{r.thread} (warp {r.thread // 32}, lane {r.thread % 32})")
        dest_grid = GridModel(f"P in shared memory ({major}-major {swizzle}): one cell per 16-B chunk (m,n of its "
                              "first value), colour = writing thread", sorted({k[0] for k in dest}), list(range(8)),
                              dest, lambda line: f"{line * 128:05x}", lambda c: f"b{4 * c}-{4 * c + 3}", 32, "byte")
    else:
        held: dict[tuple[int, int], list[Any]] = {}
        for key_src, r in sorted(by_cell.items(), key=lambda item: (item[1].m, item[1].n)):
            key = (r.tmem_lane, r.tmem_col)
            to_dest[key_src] = key
            back.setdefault(key, key_src)  # the column is named by its first (lowest-bit) value
            held.setdefault(key, []).append(r)
        for key, values in held.items():
            first = values[0]
            dest[key] = GridCell(f"{first.m},{first.n}", first.thread % 32, first.thread,
                                 f"TMEM lane {key[0]}, column {key[1]} holds "
                                 + ", ".join(f"P[{r.m}][{r.n}] (bits {r.tmem_bit}..{r.tmem_bit + 32 // len(values) - 1}, "
                                             f"thread {r.thread})" for r in values))
        dest_grid = GridModel(f"P in TMEM (TS form), columns {min(k[1] for k in dest)}..{max(k[1] for k in dest)}: "
                              "cell = m,n of its first value", sorted({k[0] for k in dest}),
                              sorted({k[1] for k in dest}), dest, lambda r: f"L{r:<3}", lambda c: f"c{c}", 32, "lane")
    header = (f"tmem:{shape}:num={num} -> {dest_spec}  S is {m}x{n} f32 in TMEM; P[m][n] = A[m][k=n] of the PV "
              f"MMA ({pmap.dtype})")
    return MapView(header, list(pmap.problems), tmem_grid, dest_grid, to_dest, back, map_plan_lines(pmap), by_cell)


# --------------------------------------------------------------------------------------------
# Checkpoint dumps
# --------------------------------------------------------------------------------------------

@dataclass
class DumpView:
    path: str
    title: str
    lines: list[str]
    heat: GridModel
    got: list[list[float]]
    want: list[list[float]]
    first: tuple[int, int] | None
    space: str  # "tmem" or "smem"
    smem_layout: dict[str, Any] = field(default_factory=dict)


def tmem_jump_options(lane: int, col: int) -> dict[str, Any]:
    """TMEM screen options that show cell (lane, col): the 32x32b.x8 load of its warp quarter that covers it."""
    return {"shape": "32x32b", "num": 8, "warp": lane // 32, "lane_base": None, "col_base": col - col % 8,
            "plan": False, "pack": False}


def smem_jump_options(layout: dict[str, Any], rows: int, cols: int, row: int, k: int) -> dict[str, Any]:
    """SMEM screen options for a dump's tile, on the MMA k-block that reads element (row, k)."""
    from fmhactl.services.layout_views import dtype_bytes
    from fmhactl.services.layout_views import MMA_K_BYTES

    return {"major": layout["major"], "swizzle": layout["swizzle"], "dtype": layout["dtype"],
            "rows": int(layout.get("rows", rows)), "cols": int(layout.get("cols", cols)), "descriptor": None,
            "kb": k // (MMA_K_BYTES // dtype_bytes(layout["dtype"])), "element": (row, k)}


def load_dump_view(path: str | Path) -> DumpView:
    """Read a dump file (`fmhactl dump ... --out FILE`) and lay it out for the viewer."""
    from fmhactl.services.kernels import dumpfile

    d = dumpfile.read_dump(Path(path))
    cells: dict[tuple[int, int], GridCell] = {}
    errs = d.abs_errors()
    peak = max((max(row) for row in errs if row), default=0.0) or 1.0
    rn, cn = d.row_name, d.col_name
    for r, row in enumerate(errs):
        for c, err in enumerate(row):
            bad = d.mismatch(r, c)
            cells[(r, c)] = GridCell("x" if bad else "", 0, -1,
                                     f"{rn} {r}, {cn} {c}: got {d.got[r][c]:.6g}, want {d.want[r][c]:.6g}, "
                                     f"|err| {err:.3g}" + (" (MISMATCH)" if bad else ""),
                                     heat=err / peak, flag=bad)
    first = d.first_mismatch()
    lines = [f"{d.variant} [{d.mode} {d.arch}] {d.config_key} at {d.checkpoint} ({d.space}: {rn} x {cn}, "
             f"{d.rows} x {d.cols})",
             f"{d.mismatches()} of {d.rows * d.cols} elements differ (tolerance {d.tolerance:g}); "
             f"max |err| {max((max(r) for r in errs if r), default=0.0):.3g}"]
    if first:
        lines.append(f"first mismatch at {rn} {first[0]}, {cn} {first[1]}: got {d.got[first[0]][first[1]]:.6g}, "
                     f"want {d.want[first[0]][first[1]]:.6g}")
    else:
        lines.append("no mismatch")
    heat = GridModel(f"|error| over ({rn}, {cn}); red x = mismatch", list(range(d.rows)), list(range(d.cols)),
                     cells, lambda r: f"{rn[0].upper()}{r}", lambda c: f"{cn[0]}{c}", 1, rn)
    return DumpView(str(path), f"{d.checkpoint} of {d.variant}", lines, heat, d.got, d.want, first, d.space,
                    dict(d.layout))
