"""Shared-memory services: canonical tiles, bank conflicts per phase, the SMEM-P map."""

from __future__ import annotations

from fmhactl.records import envelope

from dataclasses import dataclass, field

from fmhactl.layout import banks as _banks
from fmhactl.layout import mapping as _mapping
from fmhactl.layout import smem as _smem
from fmhactl.layout.common import LayoutError, Problem, dtype_bytes, errors_of
from fmhactl.services.layout_limits import (
    MAX_REPEAT,
    MAX_SMEM_ADDR,
    MAX_TILE_COLS,
    MAX_TILE_ELEMENTS,
    MAX_TILE_ROWS,
    _problems,
    _range,
)

# ---------------------------------------------------------------------------------------------
# Shared-memory tiles (spec §5) and bank conflicts of access patterns


@dataclass(frozen=True)
class MmaDescriptorSlice:
    kb: int
    k0: int
    start: int
    descriptor: int

    def as_dict(self) -> dict[str, object]:
        return {"kb": self.kb, "k0": self.k0, "start": self.start, "descriptor": f"0x{self.descriptor:016x}"}


@dataclass(frozen=True)
class SmemTile:
    layout: _smem.TileLayout
    elements: tuple[_smem.ElementPlace, ...]  # row-major: elements[row * cols + k]
    mma: tuple[MmaDescriptorSlice, ...]
    footprint: int
    problems: tuple[Problem, ...]

    @property
    def rows(self) -> int:
        return self.layout.rows

    @property
    def cols(self) -> int:
        return self.layout.cols

    @property
    def ok(self) -> bool:
        return not errors_of(list(self.problems))

    def element(self, row: int, k: int) -> _smem.ElementPlace:
        _range("row", row, 0, self.rows - 1)
        _range("k", k, 0, self.cols - 1)
        return self.elements[row * self.cols + k]

    def element_at(self, addr: int) -> tuple[int, int] | None:
        return self.layout.element_at(addr)

    def as_dict(self) -> dict[str, object]:
        t = self.layout
        return {**envelope("fmhactl.layout.smem", 1), "major": t.major, "swizzle": t.swizzle.name, "dtype": t.dtype,
                "rows": t.rows, "cols": t.cols, "lbo": t.lbo, "sbo": t.sbo, "k_atom_stride": t.k_atom_stride,
                "base": t.base, "footprint": self.footprint, "notes": list(t.notes),
                "problems": [p.as_dict() for p in self.problems], "mma": [s.as_dict() for s in self.mma]}


def check_tile_size(rows: int, cols: int) -> None:
    _range("rows", rows, 1, MAX_TILE_ROWS)
    _range("cols", cols, 1, MAX_TILE_COLS)
    if rows * cols > MAX_TILE_ELEMENTS:
        raise LayoutError(f"a {rows} x {cols} tile has {rows * cols} elements; the limit is {MAX_TILE_ELEMENTS} "
                          "(shared memory holds 227 KiB)")


def smem_tile(major: str = "K", swizzle: str = "128B", rows: int = 128, cols: int = 64, dtype: str = "bf16",
              lbo: int | None = None, sbo: int | None = None, k_atom_stride: int | None = None,
              base: int = 0) -> SmemTile:
    """A canonical UMMA/GMMA operand tile: every element's byte, core matrix and bank, and the
    descriptor of every MMA along K."""
    check_tile_size(rows, cols)
    for what, v in (("LBO", lbo), ("SBO", sbo), ("K atom stride", k_atom_stride)):
        if v is not None:
            _range(what, v, 0, MAX_SMEM_ADDR)
    _range("base address", base, 0, MAX_SMEM_ADDR)
    tile = _smem.make_tile(major, swizzle, rows, cols, dtype, lbo, sbo, k_atom_stride, base)
    problems = tile.problems()
    slices = tuple(MmaDescriptorSlice(s.kb, s.k0, s.start, _safe_descriptor(s)) for s in tile.mma_slices())
    return SmemTile(tile, tuple(tile.places()), slices, tile.footprint(), _problems(problems))


def _safe_descriptor(s: _smem.MmaSlice) -> int:
    try:
        return s.descriptor()
    except LayoutError:
        return 0  # a stride that does not fit the 14-bit field: problems() already names it


@dataclass(frozen=True)
class LaneAccess:
    lane: int
    row: int
    k: int
    addr: int
    banks: tuple[int, ...]

    def as_dict(self) -> dict[str, object]:
        return {"lane": self.lane, "row": self.row, "k": self.k, "addr": self.addr, "banks": list(self.banks)}


@dataclass(frozen=True)
class InstructionBanks:
    index: int
    lanes: tuple[LaneAccess, ...]
    phases: tuple[_banks.PhaseReport, ...]

    @property
    def wavefronts(self) -> int:
        return sum(p.wavefronts for p in self.phases)

    @property
    def ideal(self) -> int:
        return sum(1 for p in self.phases if p.wavefronts)

    def as_dict(self) -> dict[str, object]:
        return {"index": self.index, "wavefronts": self.wavefronts, "ideal": self.ideal,
                "phases": [p.as_dict() for p in self.phases], "lanes": [a.as_dict() for a in self.lanes]}


@dataclass(frozen=True)
class AccessPattern:
    """Bank conflicts of a sequence of warp-wide shared-memory instructions, per phase."""

    description: str
    vec: int
    instructions: tuple[InstructionBanks, ...]
    problems: tuple[Problem, ...] = field(default=())

    @property
    def wavefronts(self) -> int:
        return sum(i.wavefronts for i in self.instructions)

    @property
    def ideal(self) -> int:
        return sum(i.ideal for i in self.instructions)

    @property
    def conflict_free(self) -> bool:
        return self.wavefronts == self.ideal

    def as_dict(self) -> dict[str, object]:
        return {**envelope("fmhactl.layout.banks", 1), "description": self.description, "vec": self.vec,
                "wavefronts": self.wavefronts, "ideal": self.ideal,
                "instructions": [i.as_dict() for i in self.instructions],
                "problems": [p.as_dict() for p in self.problems]}


def _lane_banks(addr: int, vec: int) -> tuple[int, ...]:
    return tuple(sorted({(w % _banks.BANKS) for w in range(addr // 4, (addr + max(vec, 1) - 1) // 4 + 1)}))


def warp_access(tile: SmemTile, row: str = "t", k: str = "0", vec: int = 16, repeat: int = 1) -> AccessPattern:
    """A warp's ld.shared/st.shared: lane t of instruction i touches element (row(t, i), k(t, i))."""
    _range("repeat", repeat, 1, MAX_REPEAT)
    _banks.threads_per_phase(vec)
    row_expr, k_expr = _banks.compile_index_expr(row), _banks.compile_index_expr(k)
    out = []
    for i in range(repeat):
        lanes = []
        for t in range(32):
            r, kk = _banks.eval_index_expr(row_expr, t=t, i=i), _banks.eval_index_expr(k_expr, t=t, i=i)
            if not (0 <= r < tile.rows and 0 <= kk < tile.cols):
                raise LayoutError(f"lane {t} of instruction {i} reads element ({r}, {kk}), outside the "
                                  f"{tile.rows} x {tile.cols} tile (--row {row!r}, --k {k!r})")
            addr = tile.layout.offset(r, kk)
            lanes.append(LaneAccess(t, r, kk, addr, _lane_banks(addr, vec)))
        phases = _banks.phase_reports([a.addr for a in lanes], vec)
        out.append(InstructionBanks(i, tuple(lanes), tuple(phases)))
    t = tile.layout
    return AccessPattern(f"warp ld/st.shared of {vec} B per lane on a {t.major}-major {t.swizzle.name} {t.dtype} "
                         f"tile; row = {row}, k = {k}", vec, tuple(out))


# ---------------------------------------------------------------------------------------------
# The TMEM -> SMEM map of the SMEM-P path (S read with tcgen05.ld, P stored to shared memory)


@dataclass(frozen=True)
class SmemPMap:
    source: str
    dest: str
    m: int
    n: int
    dtype: str
    records: tuple[_mapping.MapRecord, ...]
    store_plan: _mapping.StorePlan | None
    tmem_plan: str
    stores: AccessPattern | None
    problems: tuple[Problem, ...]

    def find(self, thread: int | None = None, row: int | None = None, k: int | None = None
             ) -> tuple[_mapping.MapRecord, ...]:
        """Both ends of the map: a thread's values, or the thread/register behind P[row][k]."""
        if thread is not None:
            _range("thread", thread, 0, 127)
        if row is not None:
            _range("row", row, 0, self.m - 1)
        if k is not None:
            _range("k", k, 0, self.n - 1)
        return tuple(r for r in self.records if (thread is None or r.thread == thread)
                     and (row is None or r.m == row) and (k is None or r.n == k))

    def as_dict(self) -> dict[str, object]:
        plan = self.store_plan
        return {**envelope("fmhactl.layout.map", 1), "from": self.source, "to": self.dest, "m": self.m, "n": self.n,
                "dtype": self.dtype, "problems": [p.as_dict() for p in self.problems],
                "store_plan": None if plan is None else {
                    "vector_bytes": plan.vector_bytes, "instructions_per_thread": plan.instructions,
                    "per_warp": {str(w): r.as_dict() for w, r in plan.per_warp.items()}, "note": plan.note},
                "tmem_plan": self.tmem_plan or None}


def smem_p_map(source: str = "tmem:32x32b:num=8", dest: str = "smem:K:128B", m: int = 128, n: int = 128,
               dtype: str = "bf16", warps: list[int] | None = None) -> SmemPMap:
    """Per thread, where each value of S goes when it becomes P (shared memory or TMEM for TS)."""
    _range("M", m, 1, 256)
    _range("N", n, 1, 256)
    if warps is not None:
        for w in warps:
            _range("warp", w, 0, 3)
    prod = _mapping.parse_producer(source, m, n)
    cons = _mapping.parse_consumer(dest, m, n, dtype, s_col=prod.d_col)
    records, problems = _mapping.map_values(prod, cons, warps)
    plan = _mapping.plan_smem_stores(records, cons) if cons.kind == "smem" else None
    tplan = _mapping.tmem_store_plan(records, prod, cons) if cons.kind == "tmem" else ""
    stores = _store_phases(records, plan, cons) if plan is not None else None
    return SmemPMap(source, dest, m, n, cons.dtype, tuple(records), plan, tplan, stores, _problems(problems))


def _store_phases(records: list[_mapping.MapRecord], plan: _mapping.StorePlan, cons: _mapping.Consumer
                  ) -> AccessPattern:
    """The P stores as warp instructions (warp 0 of the map), with their bank phases."""
    esize = dtype_bytes(cons.dtype)
    group = plan.vector_bytes // esize
    by_thread: dict[int, list[_mapping.MapRecord]] = {}
    for r in records:
        by_thread.setdefault(r.thread, []).append(r)
    for values in by_thread.values():
        values.sort(key=lambda r: (r.load, r.reg, r.reg_bit_lo))
    warp = min((t // 32 for t in by_thread), default=0)
    out = []
    for g in range(plan.instructions):
        lanes = []
        for t in range(32):
            vals = by_thread.get(32 * warp + t, [])
            if g * group < len(vals):
                r = vals[g * group]
                lanes.append(LaneAccess(t, r.m, r.n, r.addr, _lane_banks(r.addr, plan.vector_bytes)))
        addrs: list[int | None] = [None] * 32
        for a in lanes:
            addrs[a.lane] = a.addr
        out.append(InstructionBanks(g, tuple(lanes), tuple(_banks.phase_reports(addrs, plan.vector_bytes))))
    return AccessPattern(f"warp {warp}: tcgen05.ld -> st.shared of P, {plan.vector_bytes} B per lane",
                         plan.vector_bytes, tuple(out))
