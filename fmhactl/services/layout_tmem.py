"""TMEM services: tcgen05.ld/st maps, the lane-quarter rule, column plans, the accumulator."""

from __future__ import annotations

from fmhactl.records import envelope

from collections.abc import Callable
from dataclasses import dataclass

from fmhactl.layout import accum as _accum
from fmhactl.layout import tmem as _tmem
from fmhactl.layout.common import LayoutError, Problem, errors_of
from fmhactl.services.layout_limits import MAX_U32, MAX_WARP, _problems, _range

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
        return {**envelope("fmhactl.layout.tmem", 1), "instruction": self.instruction, "shape": self.shape,
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
        return {**envelope("fmhactl.layout.tmem_plan", 1), "title": self.plan.title,
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
    return {"sm100": sm100_column_plan, **_PLAN_PROVIDERS}


def sm100_column_plan(variant: str, head_dim: int) -> TmemColumnPlan:
    """The SM100 family's plan (fmhactl.plans.sm100, the one the kernel's static_asserts check) as a
    generic column plan: S, P written over S (declared aliases), O, the unused rest of the alloc."""
    from fmhactl.services.layout_plan import plan_for_variant
    from fmhactl.plans.sm100_drawing import tmem_regions

    plan = plan_for_variant(variant, head_dim)
    regions = []
    drawn = [r for r in tmem_regions(plan) if r.name != "-"]
    names = {r.name for r in drawn}
    for r in drawn:
        # P overwrites S only when P lives in TMEM; with P in SMEM, S aliases nothing.
        aliases = ("S",) if r.name == "P" else (("P",) if r.name == "S" and "P" in names else ())
        regions.append(TmemRegion(r.name, r.name, r.start, r.end - r.start, aliases=aliases))
    return TmemColumnPlan(f"{variant} d{head_dim}: {plan.tmem_columns} of {plan.tmem_alloc} allocated columns",
                          tuple(regions), plan.tmem_alloc)


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
        return {**envelope("fmhactl.layout.accum", 1), "m": self.m, "n": self.n, "cta_group": self.cta_group,
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
