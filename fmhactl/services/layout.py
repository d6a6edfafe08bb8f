"""Layout questions as typed services: what the CLI (`fmhactl layout ...`) and the TUI both call.

Every function takes plain typed arguments, checks ranges and size caps before doing any work,
raises `fmhactl.errors.BadInput` (via `LayoutError`) for impossible input, and returns a frozen
dataclass. Nothing here prints, imports typer/rich, or touches a GPU. Spec sections cited are in
docs/tcgen05-facts.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fmhactl.layout import accum as _accum
from fmhactl.layout import banks as _banks
from fmhactl.layout import mapping as _mapping
from fmhactl.layout import smem as _smem
from fmhactl.layout import tmem as _tmem
from fmhactl.layout.bitfields import BitTable, FieldRow
from fmhactl.layout.common import LayoutError, Problem, dtype_bytes, errors_of, parse_int
from fmhactl.layout.fields import INSTR_DESC, SMEM_DESC, WGMMA_DESC

# Caps checked before any work: a typo must never make a command run for minutes.
MAX_WARP = 31  # 1024 threads per CTA
MAX_TILE_ROWS = 4096
MAX_TILE_COLS = 4096
MAX_TILE_ELEMENTS = 1 << 18  # 256 Ki elements: more than 227 KiB of the smallest element type
MAX_REPEAT = 1024
MAX_U32 = 0xFFFFFFFF
MAX_SMEM_ADDR = 1 << 18  # the descriptor's start field reaches 256 KiB


def _range(what: str, value: int, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LayoutError(f"{what} must be an integer; got {value!r}")
    if not lo <= value <= hi:
        raise LayoutError(f"{what} must be in {lo}..{hi}; got {value}")
    return value


def _problems(items: list[Problem]) -> tuple[Problem, ...]:
    return tuple(items)


# ---------------------------------------------------------------------------------------------
# TMEM: tcgen05.ld / tcgen05.st maps and the lane-quarter rule (spec §1.3, §2.1-§2.3)


@dataclass(frozen=True)
class TmemCell:
    """One register (half) <-> TMEM cell pairing of a tcgen05.ld/st."""

    lane: int
    col: int
    thread: int  # lane in the warp, 0..31
    cta_thread: int
    reg: int
    reg_bit_lo: int
    tmem_bit_lo: int
    nbits: int

    @property
    def lane_quarter(self) -> int:
        return self.lane // 32

    def as_dict(self) -> dict[str, int]:
        return {"lane": self.lane, "col": self.col, "thread": self.thread, "cta_thread": self.cta_thread,
                "reg": self.reg, "reg_bit_lo": self.reg_bit_lo, "tmem_bit_lo": self.tmem_bit_lo,
                "nbits": self.nbits, "lane_quarter": self.lane_quarter}


@dataclass(frozen=True)
class TmemAccess:
    shape: str
    num: int
    pack: bool
    warp: int
    taddr: int
    imm: int | None
    instruction: str
    registers_per_thread: int
    cells: tuple[TmemCell, ...]
    problems: tuple[Problem, ...]

    @property
    def lane_quarter(self) -> int:
        """The quarter of TMEM lanes this warp may touch (warp % 4)."""
        return self.warp % 4

    @property
    def allowed_lanes(self) -> tuple[int, int]:
        return 32 * self.lane_quarter, 32 * self.lane_quarter + 31

    @property
    def ok(self) -> bool:
        return not errors_of(list(self.problems))

    @property
    def lanes(self) -> tuple[int, ...]:
        return tuple(sorted({c.lane for c in self.cells}))

    @property
    def cols(self) -> tuple[int, ...]:
        return tuple(sorted({c.col for c in self.cells}))

    def cells_at(self, lane: int, col: int) -> tuple[TmemCell, ...]:
        return tuple(c for c in self.cells if c.lane == lane and c.col == col)

    def cells_of(self, thread: int, reg: int | None = None) -> tuple[TmemCell, ...]:
        _range("thread", thread, 0, 31)
        return tuple(c for c in self.cells if c.thread == thread and (reg is None or c.reg == reg))

    def as_dict(self) -> dict[str, object]:
        return {"schema": "fmhactl.layout.tmem/1", "instruction": self.instruction, "shape": self.shape,
                "num": self.num, "pack": self.pack, "warp": self.warp, "taddr": f"0x{self.taddr:08x}",
                "registers_per_thread": self.registers_per_thread, "lane_quarter": self.lane_quarter,
                "allowed_lanes": list(self.allowed_lanes), "problems": [p.as_dict() for p in self.problems]}


def tmem_access(shape: str = "32x32b", num: int = 1, warp: int = 0, col_base: int = 0, pack: bool = False,
                taddr: int | None = None, imm: int | None = None) -> TmemAccess:
    """Which thread/register holds each TMEM cell of one warp's tcgen05.ld (tcgen05.st: same map).

    `taddr` defaults to the warp's own lane quarter at column `col_base`; give it to place the
    access anywhere (then the lane-quarter rule may be broken, and is reported as a problem).
    """
    _tmem.check_shape(shape, num)
    _range("warp", warp, 0, MAX_WARP)
    _range("column base", col_base, 0, _tmem.COLUMNS - 1)
    if taddr is None:
        taddr = _tmem.join_addr(32 * (warp % 4), col_base)
    _range("taddr", taddr, 0, MAX_U32)
    lane0, col0 = _tmem.split_addr(taddr)
    if lane0 >= _tmem.LANES or col0 >= _tmem.COLUMNS:
        raise LayoutError(f"taddr 0x{taddr:08x} names lane {lane0}, column {col0}: TMEM has lanes 0..127 and "
                          "columns 0..511")
    if imm is not None:
        if shape != "16x32bx2":
            raise LayoutError("immHalfSplitoff (imm) exists only for the 16x32bx2 shape")
        _range("immHalfSplitoff", imm, 0, MAX_U32)
    accesses = _tmem.ld_map(shape, num, pack, taddr, imm)
    problems = _tmem.access_problems(accesses, warp)
    cells = tuple(TmemCell(a.lane, a.col, a.thread, 32 * warp + a.thread, a.reg, a.reg_bit_lo, a.tmem_bit_lo,
                           a.nbits) for a in accesses)
    instr = f"tcgen05.ld.sync.aligned.{shape}.x{num}{'.pack::16b' if pack else ''}.b32"
    return TmemAccess(shape, num, pack, warp, taddr, imm, instr, _tmem.regs_per_thread(shape, num), cells,
                      _problems(problems))


@dataclass(frozen=True)
class TmemCellInfo:
    """A cell of TMEM seen from one warp: who holds it and whether the warp may touch it."""

    lane: int
    col: int
    warp: int
    owners: tuple[TmemCell, ...]
    lane_quarter: int
    allowed: bool
    violation: str | None

    def as_dict(self) -> dict[str, object]:
        return {"lane": self.lane, "col": self.col, "warp": self.warp, "lane_quarter": self.lane_quarter,
                "allowed": self.allowed, "violation": self.violation, "owners": [c.as_dict() for c in self.owners]}


def lane_quarter_rule(warp: int, lane: int) -> str | None:
    """None when warp `warp` may access TMEM lane `lane` with tcgen05.ld/st, else the rule it breaks."""
    _range("warp", warp, 0, MAX_WARP)
    _range("lane", lane, 0, _tmem.LANES - 1)
    q = warp % 4
    if lane // 32 == q:
        return None
    return (f"lane-quarter: warp {warp} (warp % 4 = {q}) may only access lanes {32 * q}..{32 * q + 31}; lane {lane} "
            f"is in quarter {lane // 32} (warps {lane // 32}, {lane // 32 + 4}, ...)")


def tmem_cell(access: TmemAccess, lane: int, col: int) -> TmemCellInfo:
    _range("lane", lane, 0, _tmem.LANES - 1)
    _range("column", col, 0, _tmem.COLUMNS - 1)
    why = lane_quarter_rule(access.warp, lane)
    return TmemCellInfo(lane, col, access.warp, access.cells_at(lane, col), lane // 32, why is None, why)


# ---------------------------------------------------------------------------------------------
# TMEM column plans: a variant-independent picture of which columns hold what (spec §1.1-§1.2)


@dataclass(frozen=True)
class TmemRegion:
    """Columns [col, col + ncols) (of lanes [lane, lane + nlanes)) used for one purpose."""

    name: str  # e.g. "S[0]", "P[0]", "O"
    role: str  # "S", "P", "O", or anything the plan's author names
    col: int
    ncols: int
    stage: int | None = None
    lane: int = 0
    nlanes: int = 128
    aliases: tuple[str, ...] = ()  # regions this one may overlap on purpose (e.g. P written over S)

    @property
    def end(self) -> int:
        return self.col + self.ncols

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "role": self.role, "col": self.col, "ncols": self.ncols, "stage": self.stage,
                "lane": self.lane, "nlanes": self.nlanes, "aliases": list(self.aliases)}


@dataclass(frozen=True)
class TmemColumnPlan:
    """What a kernel variant puts in TMEM; providers (e.g. the SM100 family) build these."""

    title: str
    regions: tuple[TmemRegion, ...]
    alloc_columns: int | None = None  # what tcgen05.alloc asks for (None: the smallest legal size)


@dataclass(frozen=True)
class ColumnPlanView:
    plan: TmemColumnPlan
    columns_used: int
    alloc_columns: int
    column_owners: tuple[tuple[str, ...], ...]  # per column 0..columns_used-1: the regions on it
    problems: tuple[Problem, ...]

    @property
    def fits(self) -> bool:
        return not errors_of(list(self.problems))

    def as_dict(self) -> dict[str, object]:
        return {"schema": "fmhactl.layout.tmem_plan/1", "title": self.plan.title,
                "regions": [r.as_dict() for r in self.plan.regions], "columns_used": self.columns_used,
                "alloc_columns": self.alloc_columns, "columns_total": _tmem.COLUMNS,
                "problems": [p.as_dict() for p in self.problems]}


def tmem_column_plan(plan: TmemColumnPlan) -> ColumnPlanView:
    """Check a plan (overlaps not declared as aliases, the 512-column limit, legal allocation) and
    say which regions sit on every column: what the TMEM plan screen draws."""
    problems: list[Problem] = []
    for r in plan.regions:
        if r.ncols <= 0 or r.col < 0 or r.lane < 0 or r.nlanes <= 0 or r.lane + r.nlanes > _tmem.LANES:
            raise LayoutError(f"region {r.name}: columns {r.col}+{r.ncols}, lanes {r.lane}+{r.nlanes} are not a "
                              "region of TMEM")
    used = max((r.end for r in plan.regions), default=0)
    if used > _tmem.COLUMNS:
        problems.append(Problem("tmem-columns", f"{plan.title}: needs {used} columns > {_tmem.COLUMNS} ("
                                + " + ".join(f"{r.name} {r.ncols}" for r in plan.regions) + ")"))
    alloc = plan.alloc_columns
    if alloc is None:
        alloc = next((n for n in _tmem.ALLOC_COLUMNS if n >= used), used)
    else:
        problems.extend(_tmem.alloc_problems(alloc))
        if used > alloc:
            problems.append(Problem("alloc-too-small", f"regions reach column {used - 1} but only {alloc} columns "
                                    "are allocated"))
    regions = list(plan.regions)
    for i, a in enumerate(regions):
        for b in regions[i + 1:]:
            cols = a.col < b.end and b.col < a.end
            lanes = a.lane < b.lane + b.nlanes and b.lane < a.lane + a.nlanes
            if cols and lanes and b.name not in a.aliases and a.name not in b.aliases:
                problems.append(Problem("overlap", f"{a.name} (columns {a.col}..{a.end - 1}) and {b.name} (columns "
                                        f"{b.col}..{b.end - 1}) overlap without being declared aliases"))
    owners = tuple(tuple(r.name for r in regions if r.col <= c < r.end) for c in range(min(used, _tmem.COLUMNS)))
    return ColumnPlanView(plan, used, alloc, owners, _problems(problems))


ColumnPlanProvider = Callable[..., TmemColumnPlan]
_PLAN_PROVIDERS: dict[str, ColumnPlanProvider] = {}


def register_column_plan(name: str, provider: ColumnPlanProvider) -> None:
    """Make a family's plan builder known to the CLI/TUI (e.g. "sm100": fn(variant, head_dim) -> plan)."""
    _PLAN_PROVIDERS[name] = provider


def column_plan_providers() -> dict[str, ColumnPlanProvider]:
    return dict(_PLAN_PROVIDERS)


# ---------------------------------------------------------------------------------------------
# The accumulator D in TMEM (spec §3.4)


@dataclass(frozen=True)
class AccumEntry:
    m: int
    n: int
    cta: int  # which CTA of the pair holds the row (cta_group::2), else 0
    lane: int
    col: int

    @property
    def warp(self) -> int:
        """The warp (mod 4) whose lane quarter holds this row: the warp that must read it."""
        return self.lane // 32

    def as_dict(self) -> dict[str, int]:
        return {"m": self.m, "n": self.n, "cta": self.cta, "lane": self.lane, "col": self.col, "warp": self.warp,
                "lane_in_warp": self.lane % 32}


@dataclass(frozen=True)
class AccumLayout:
    m: int
    n: int
    cta_group: int
    d_tmem: int
    layout: str  # "D" (128 rows per CTA) or "F" (M=64: 16 rows per lane quarter)
    rows_per_cta: int
    alloc_columns: int
    entries: tuple[AccumEntry, ...]  # row-major: entries[m * n + n]
    problems: tuple[Problem, ...]

    def entry(self, m: int, n: int) -> AccumEntry:
        _range("row m", m, 0, self.m - 1)
        _range("column n", n, 0, self.n - 1)
        return self.entries[m * self.n + n]

    def at(self, lane: int, col: int, cta: int = 0) -> AccumEntry | None:
        _range("lane", lane, 0, _tmem.LANES - 1)
        _range("column", col, 0, _tmem.COLUMNS - 1)
        lane0, col0 = _tmem.split_addr(self.d_tmem)
        n = col - col0
        if not 0 <= n < self.n:
            return None
        for m in range(cta * self.rows_per_cta, (cta + 1) * self.rows_per_cta):
            e = self.entries[m * self.n + n]
            if e.lane == lane and e.cta == cta:
                return e
        return None

    def as_dict(self) -> dict[str, object]:
        return {"schema": "fmhactl.layout.accum/1", "m": self.m, "n": self.n, "cta_group": self.cta_group,
                "dtmem": f"0x{self.d_tmem:08x}", "layout": self.layout, "rows_per_cta": self.rows_per_cta,
                "alloc_columns": self.alloc_columns, "problems": [p.as_dict() for p in self.problems]}


def accumulator_layout(m: int = 128, n: int = 64, cta_group: int = 1, d_tmem: int = 0) -> AccumLayout:
    """Where tcgen05.mma leaves D[m][n]: M=64 (layout F) and M=128 (layout D) with cta_group::1;
    M=256 with cta_group::2 as two CTAs each holding 128 rows in layout D."""
    _range("cta_group", cta_group, 1, 2)
    _range("d-tmem address", d_tmem, 0, MAX_U32)
    if cta_group == 2 and m != 256:
        raise LayoutError(f"cta_group::2 is modelled for M=256 only (two CTAs x 128 rows); got M={m}")
    if m == 256 and cta_group != 2:
        raise LayoutError("M=256 needs cta_group::2 (each CTA of the pair holds 128 rows)")
    if m not in (64, 128, 256):
        raise LayoutError(f"M must be 64, 128 (cta_group::1) or 256 (cta_group::2); got {m}")
    per_cta = 128 if m == 256 else m
    problems = [p for p in _accum.check_mn(per_cta, n)]
    if errors_of(problems):
        raise LayoutError("; ".join(p.message for p in errors_of(problems)))
    cells = _accum.accumulator_map(per_cta, n, d_tmem)
    entries: list[AccumEntry] = []
    for cta in range(cta_group):
        entries.extend(AccumEntry(c.m + cta * per_cta, c.n, cta, c.lane, c.col) for c in cells)
    _, col0 = _tmem.split_addr(d_tmem)
    return AccumLayout(m, n, cta_group, d_tmem, "F" if per_cta == 64 else "D", per_cta,
                       _tmem.min_alloc_columns(col0 + n), tuple(entries), _problems(problems))


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
        return {"schema": "fmhactl.layout.smem/1", "major": t.major, "swizzle": t.swizzle.name, "dtype": t.dtype,
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
        return {"schema": "fmhactl.layout.banks/1", "description": self.description, "vec": self.vec,
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
        return {"schema": "fmhactl.layout.map/1", "from": self.source, "to": self.dest, "m": self.m, "n": self.n,
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
    cons = _mapping.parse_consumer(dest, m, n, dtype)
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


# ---------------------------------------------------------------------------------------------
# Descriptors: UMMA SMEM descriptor, wgmma descriptor, instruction descriptor (spec §4, §6)

DESCRIPTOR_KINDS = {"smem": SMEM_DESC, "wgmma": WGMMA_DESC, "idesc": INSTR_DESC}


@dataclass(frozen=True)
class DescriptorView:
    kind: str  # "smem", "wgmma" or "idesc"
    value: int
    bits: int
    fields: tuple[FieldRow, ...]
    problems: tuple[Problem, ...]
    summary: str

    @property
    def hex(self) -> str:
        return f"0x{self.value:0{self.bits // 4}x}"

    @property
    def ok(self) -> bool:
        return not errors_of(list(self.problems))

    def as_dict(self) -> dict[str, object]:
        return {"schema": f"fmhactl.layout.{'idesc' if self.kind == 'idesc' else 'desc'}/2", "kind": self.kind,
                "value": self.hex, "bits": self.bits, "ok": self.ok, "summary": self.summary,
                "fields": [f.as_dict() for f in self.fields], "problems": [p.as_dict() for p in self.problems]}


def descriptor_table(kind: str) -> BitTable:
    try:
        return DESCRIPTOR_KINDS[kind]
    except KeyError:
        raise LayoutError(f"unknown descriptor kind {kind!r} (one of {', '.join(DESCRIPTOR_KINDS)})") from None


def parse_word(text: str | int, kind: str, what: str | None = None) -> int:
    """A descriptor value from user text ("0x4000404000010000", "1234"): exit 2 naming the rule."""
    table = descriptor_table(kind)
    what = what or table.name
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        s = str(text).strip()
        if not s:
            raise LayoutError(f"{what}: empty value (write it in hex, e.g. 0x{1 << (table.bits - 2):x})")
        if len(s) > 2 + table.bits:
            raise LayoutError(f"{what}: {s[:24]!r}... is too long for a {table.bits}-bit word")
        value = parse_int(s, what)
    if not 0 <= value <= table.limit:
        raise LayoutError(f"{what}: {value:#x} does not fit in {table.bits} bits" if value >= 0
                          else f"{what}: {value} is negative; a descriptor is an unsigned {table.bits}-bit word")
    return value


def decode_descriptor(kind: str, value: str | int, major: str | None = None) -> DescriptorView:
    """The field table and named problems of a descriptor (kind: smem, wgmma or idesc)."""
    from fmhactl.layout import descriptors, idesc, wgmma

    word = parse_word(value, kind)
    table = descriptor_table(kind)
    if kind == "smem":
        d = descriptors.decode_smem_desc(word, major)
        swz = d.swizzle
        summary = (f"start {d.start} B, LBO {d.lbo} B, SBO {d.sbo} B, {swz.name if swz else 'invalid layout'}"
                   + ("; valid for tcgen05.mma" if d.ok else ""))
        problems = d.problems
    elif kind == "wgmma":
        if major is not None:
            raise LayoutError("--major applies to SM100 (tcgen05) descriptors only")
        w = wgmma.decode_wgmma_desc(word)
        swz = w.swizzle
        summary = f"start {w.start} B, LBO {w.lbo} B, SBO {w.sbo} B, {swz.name if swz else 'invalid layout'}"
        problems = w.problems
    else:
        if major is not None:
            raise LayoutError("--major applies to shared-memory descriptors, not the instruction descriptor")
        i = idesc.decode(word)
        f = i.as_dict()
        summary = (f"kind::{i.kind} {i.m}x{i.n}x{i.k} {f['a_format']}x{f['b_format']} -> {f['d_format']}, "
                   f"A {f['a_major']}-major, B {f['b_major']}-major")
        problems = i.problems
    bad = {p.code for p in problems if p.severity == "error"}
    return DescriptorView(kind, word, table.bits, tuple(table.rows(word, bad)), tuple(problems), summary)


def edit_descriptor(kind: str, value: str | int, field_name: str, raw: int) -> DescriptorView:
    """The descriptor with one field's raw contents replaced (the TUI's field editor)."""
    table = descriptor_table(kind)
    return decode_descriptor(kind, table.with_raw(parse_word(value, kind), field_name, raw))


def encode_smem_descriptor(start: int, lbo: int, sbo: int, swizzle: str = "none", base_offset: int = 0,
                           lbo_mode: int = 0) -> DescriptorView:
    from fmhactl.layout.descriptors import encode_smem_desc

    return decode_descriptor("smem", encode_smem_desc(start, lbo, sbo, swizzle, base_offset, lbo_mode))


def encode_wgmma_descriptor(start: int, lbo: int, sbo: int, swizzle: str = "none",
                            base_offset: int = 0) -> DescriptorView:
    from fmhactl.layout.wgmma import encode_wgmma_desc

    return decode_descriptor("wgmma", encode_wgmma_desc(start, lbo, sbo, swizzle, base_offset))


def encode_instr_descriptor(a: str = "bf16", b: str | None = None, d: str = "f32", m: int = 128, n: int = 256,
                            a_major: str = "K", b_major: str = "K", neg_a: bool = False,
                            neg_b: bool = False) -> DescriptorView:
    from fmhactl.layout import idesc

    return decode_descriptor("idesc", idesc.encode(a, b, d, m, n, a_major, b_major, neg_a, neg_b))


@dataclass(frozen=True)
class AddressedElement:
    """Operand element (mn, k) of one MMA, the byte the descriptor makes it read, and what is there."""

    mn: int
    k: int
    addr: int
    bank: int
    hit: tuple[int, int] | None  # the tile element stored at that byte (None: nothing of the tile)
    expected: tuple[int, int]  # the tile element the MMA should read: (mn, k0 + k)

    @property
    def correct(self) -> bool:
        return self.hit == self.expected

    def as_dict(self) -> dict[str, object]:
        return {"mn": self.mn, "k": self.k, "addr": self.addr, "bank": self.bank,
                "hit": list(self.hit) if self.hit else None, "expected": list(self.expected),
                "correct": self.correct}


@dataclass(frozen=True)
class DescriptorReach:
    descriptor: DescriptorView
    k0: int
    elements: tuple[AddressedElement, ...]

    @property
    def wrong(self) -> int:
        return sum(1 for e in self.elements if not e.correct)

    def as_dict(self) -> dict[str, object]:
        return {"schema": "fmhactl.layout.reach/1", "descriptor": self.descriptor.as_dict(), "k0": self.k0,
                "wrong": self.wrong, "elements": [e.as_dict() for e in self.elements]}


def descriptor_reach(tile: SmemTile, descriptor: str | int, k0: int = 0) -> DescriptorReach:
    """Which tile elements one MMA reads through `descriptor` when it consumes K columns k0.. of the
    tile. Editing start/LBO/SBO/layout/base offset moves the hits; a descriptor built from full-head-
    dim coordinates instead of the MMA's local k (seed 000's `full_d` bug) shows every hit wrong."""
    view = decode_descriptor("smem", descriptor, tile.layout.major)
    e = tile.layout.elem_bytes
    mma_k = _smem.MMA_K_BYTES // e
    _range("k0", k0, 0, tile.cols - 1)
    if view.problems and not view.ok:
        return DescriptorReach(view, k0, ())
    fields = {f.name: f.value for f in view.fields}
    from fmhactl.layout.swizzle import swizzle_from_umma_code

    swz = swizzle_from_umma_code(fields["layout"])
    assert swz is not None
    out = []
    for mn in range(tile.rows):
        for k in range(min(mma_k, tile.cols - k0)):
            try:
                addr = _smem.desc_offset(tile.layout.major, swz, mn, k, e, fields["lbo"], fields["sbo"],
                                         fields["start"])
            except LayoutError:
                continue
            out.append(AddressedElement(mn, k, addr, _smem.bank_of(addr), tile.element_at(addr), (mn, k0 + k)))
    return DescriptorReach(view, k0, tuple(out))
