"""Where each value a thread holds must go: producer layout -> consumer layout (seed 001's SMEM-P).

Producer: an M x N accumulator (S of QK^T) in TMEM, read by the four warps of a warpgroup with a
tcgen05.ld shape (`tmem:32x32b:num=8`). Consumer: the same values as the A operand (M x K with
K = N) of the next MMA: in shared memory in a canonical layout (`smem:K:128B`), or in TMEM for the
TS form (`tmem`: over S, as the SM100 plan; `tmem:col=128`: beside it). Every record pairs (thread, register) with S[m][n] and the
destination of P[m][n].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from fmhactl.layout import accum, tmem
from fmhactl.layout.banks import WavefrontReport, wavefronts
from fmhactl.layout.common import ELEMENT_BITS, LayoutError, Problem, canonical_dtype, parse_int
from fmhactl.layout.smem import TileLayout, make_tile


def _options(parts: list[str]) -> tuple[list[str], dict[str, str]]:
    positional, opts = [], {}
    for part in parts:
        if "=" in part:
            key, value = part.split("=", 1)
            opts[key.strip().lower()] = value.strip()
        elif part.strip():
            positional.append(part.strip())
    return positional, opts


@dataclass(frozen=True)
class Producer:
    shape: str
    num: int
    pack: bool
    m: int
    n: int
    d_col: int = 0
    d_lane: int = 0
    acc_dtype: str = "f32"


@dataclass(frozen=True)
class Consumer:
    kind: str  # "smem" or "tmem"
    tile: TileLayout | None = None
    a_col: int = 0
    dtype: str = "bf16"


def parse_producer(spec: str, m: int, n: int) -> Producer:
    """`tmem:SHAPE[:num=N][:pack][:col=C][:lane=L][:acc=f32|f16]`."""
    parts = spec.split(":")
    if parts[0].strip().lower() != "tmem":
        raise LayoutError(f"producer {spec!r}: only TMEM accumulators are modelled (tmem:SHAPE:num=N)")
    pos, opts = _options(parts[1:])
    if not pos:
        raise LayoutError(f"producer {spec!r} needs a tcgen05.ld shape, e.g. tmem:32x32b:num=8")
    shape = pos[0]
    pack = "pack" in pos[1:]
    extra = [p for p in pos[1:] if p != "pack"]
    if extra:
        raise LayoutError(f"producer {spec!r}: unknown option(s) {', '.join(extra)}")
    unknown = set(opts) - {"num", "col", "lane", "acc"}
    if unknown:
        raise LayoutError(f"producer {spec!r}: unknown option(s) {', '.join(sorted(unknown))}")
    num = parse_int(opts.get("num", "8"), "num")
    tmem.check_shape(shape, num)
    acc = canonical_dtype(opts.get("acc", "f32"))
    if acc not in ("f32", "f16"):
        raise LayoutError(f"accumulator type must be f32 or f16; got {acc}")
    col = _tmem_coordinate(opts.get("col", "0"), f"producer {spec!r}: col", tmem.COLUMNS - 1)
    lane = _tmem_coordinate(opts.get("lane", "0"), f"producer {spec!r}: lane", tmem.LANES - 1)
    _fits_columns(col, n * ELEMENT_BITS[acc] // 32, f"producer {spec!r}: S ({m} x {n} {acc})")
    return Producer(shape, num, pack, m, n, col, lane, acc)


def _tmem_coordinate(text: str, what: str, highest: int) -> int:
    """A TMEM lane or column given in a --from/--to spec: inside the 128 x 512 TMEM, or LayoutError."""
    value = parse_int(text, what)
    if not 0 <= value <= highest:
        raise LayoutError(f"{what} must be in 0..{highest} (TMEM has {tmem.LANES} lanes x {tmem.COLUMNS} "
                          f"columns); got {value}")
    return value


def _fits_columns(first: int, columns: int, what: str) -> None:
    if first + columns > tmem.COLUMNS:
        raise LayoutError(f"{what} needs columns {first}..{first + columns - 1}, past TMEM's last column "
                          f"{tmem.COLUMNS - 1}")


def parse_consumer(spec: str, m: int, n: int, dtype: str = "bf16", s_col: int = 0) -> Consumer:
    """`smem:MAJOR:SWIZZLE[:lbo=B][:sbo=B][:base=B][:dtype=T]` or `tmem[:col=C][:dtype=T]`.

    P in TMEM without `col=` is written over S from S's first column `s_col`, as the SM100 plan
    (fmhactl.plans.sm100) puts it: keys c..c+31 -> columns c/2..c/2+15."""
    parts = spec.split(":")
    kind = parts[0].strip().lower()
    pos, opts = _options(parts[1:])
    dt = canonical_dtype(opts.pop("dtype", dtype))
    if kind == "smem":
        if len(pos) != 2:
            raise LayoutError(f"consumer {spec!r}: write smem:MAJOR:SWIZZLE, e.g. smem:K:128B")
        unknown = set(opts) - {"lbo", "sbo", "base", "katom"}
        if unknown:
            raise LayoutError(f"consumer {spec!r}: unknown option(s) {', '.join(sorted(unknown))}")
        get = lambda key: parse_int(opts[key], key) if key in opts else None  # noqa: E731
        tile = make_tile(pos[0], pos[1], m, n, dt, lbo=get("lbo"), sbo=get("sbo"), k_atom_stride=get("katom"),
                         base=get("base") or 0)
        return Consumer("smem", tile=tile, dtype=dt)
    if kind == "tmem":
        if pos and pos != ["ts"]:
            raise LayoutError(f"consumer {spec!r}: write tmem[:col=C] for P in TMEM (TS form)")
        if ELEMENT_BITS[dt] not in (16, 32):
            raise LayoutError(f"A in TMEM holds 16- or 32-bit elements; {dt} has {ELEMENT_BITS[dt]} bits")
        unknown = set(opts) - {"col"}
        if unknown:
            raise LayoutError(f"consumer {spec!r}: unknown option(s) {', '.join(sorted(unknown))}")
        a_col = _tmem_coordinate(opts.get("col", str(s_col)), f"consumer {spec!r}: col", tmem.COLUMNS - 1)
        _fits_columns(a_col, n * ELEMENT_BITS[dt] // 32, f"consumer {spec!r}: P ({m} x {n} {dt})")
        return Consumer("tmem", a_col=a_col, dtype=dt)
    raise LayoutError(f"consumer {spec!r}: expected smem:MAJOR:SWIZZLE or tmem[:col=C]")


class MapRecord(NamedTuple):
    thread: int  # 0..127 within the warpgroup
    load: int  # which tcgen05.ld of the thread's sequence
    reg: int
    reg_bit_lo: int
    m: int
    n: int
    addr: int = -1  # shared-memory consumer: physical byte address
    tmem_lane: int = -1  # TMEM consumer: cell and bit offset of the element
    tmem_col: int = -1
    tmem_bit: int = -1

    @property
    def warp(self) -> int:
        return self.thread // 32

    @property
    def dest(self) -> dict[str, int]:
        if self.addr >= 0:
            return {"addr": self.addr, "bank": (self.addr >> 2) & 31, "chunk": (self.addr >> 4) & 7}
        return {"tmem_lane": self.tmem_lane, "tmem_col": self.tmem_col, "tmem_bit": self.tmem_bit}

    def as_dict(self) -> dict[str, object]:
        return {"thread": self.thread, "warp": self.warp, "lane": self.thread % 32, "load": self.load,
                "reg": self.reg, "reg_bit_lo": self.reg_bit_lo, "m": self.m, "n": self.n, **self.dest}

    def json_line(self) -> str:
        """as_dict() as compact JSON, built directly (the map command writes tens of thousands)."""
        t = self.thread
        if self.addr >= 0:
            dest = f'"addr": {self.addr}, "bank": {(self.addr >> 2) & 31}, "chunk": {(self.addr >> 4) & 7}'
        else:
            dest = f'"tmem_lane": {self.tmem_lane}, "tmem_col": {self.tmem_col}, "tmem_bit": {self.tmem_bit}'
        return (f'{{"thread": {t}, "warp": {t >> 5}, "lane": {t & 31}, "load": {self.load}, "reg": {self.reg}, '
                f'"reg_bit_lo": {self.reg_bit_lo}, "m": {self.m}, "n": {self.n}, {dest}}}')


@dataclass(frozen=True)
class LoadInstr:
    index: int
    taddr: int


def producer_loads(p: Producer, warp: int) -> list[LoadInstr]:
    """The tcgen05.ld sequence warp `warp` issues to read all N columns of its lane quarter."""
    probe = tmem.ld_map(p.shape, p.num, p.pack, 0)
    lane_span = max(a.lane for a in probe) + 1
    col_span = max(a.col for a in probe) + 1
    lanes_in_quarter = 32 if p.m == 128 else 16
    # a 16-lane shape on an M=64 accumulator aims at the rows' 16 lanes; 32x32b reads the whole quarter
    lane_base = 32 * (warp % 4) + (p.d_lane if p.m == 64 and lane_span == 16 else 0)
    loads, idx = [], 0
    for lane_off in range(0, max(lanes_in_quarter, lane_span), lane_span):
        for c in range(0, p.n, col_span):
            loads.append(LoadInstr(idx, tmem.join_addr(lane_base + lane_off, p.d_col + c)))
            idx += 1
    return loads


def map_values(p: Producer, c: Consumer, warps: list[int] | None = None) -> tuple[list[MapRecord], list[Problem]]:
    """Every value the producer's threads hold, with its destination in the consumer layout."""
    problems = [pr for pr in accum.check_mn(p.m, p.n)]
    if any(pr.severity == "error" for pr in problems):
        raise LayoutError("; ".join(pr.message for pr in problems))
    if p.pack and p.acc_dtype == "f32":
        problems.append(Problem("pack-f32", ".pack::16b on an f32 accumulator keeps the low 16 bits of each "
                                "element: the values are garbage", "warning"))
    p_cols = -(-p.n * ELEMENT_BITS[c.dtype] // 32)
    if c.kind == "tmem" and c.a_col == p.d_col and p_cols <= p.n:
        problems.append(Problem("p-over-s", f"P is written over S from column {c.a_col} (the SM100 plan's TMEM-P): "
                                f"P[m][k] lands in column {c.a_col}+k*{ELEMENT_BITS[c.dtype]}/32, never right of "
                                "S[m][k], so it overwrites only S values already read", "note"))
    elif c.kind == "tmem" and (c.a_col < p.d_col + p.n and p.d_col < c.a_col + p_cols):
        problems.append(Problem("p-overlaps-s", f"P at column {c.a_col} overlaps S (columns {p.d_col}.."
                                f"{p.d_col + p.n - 1}): it is fine only if every S value is read before it is "
                                "overwritten", "warning"))
    records: list[MapRecord] = []
    table = c.tile._table if c.kind == "smem" and c.tile is not None else None
    a_bits = ELEMENT_BITS[c.dtype]
    a_lane0 = p.d_lane if p.m == 64 else 0  # TS: A rows use D's lanes (layout F keeps the lane offset)
    make = tuple.__new__  # NamedTuple's own constructor is several times slower; these are built by the ten thousand
    for t, load, reg, bit_lo, m, n, *_ in producer_values(p, warps):
        if table is not None:
            records.append(make(MapRecord, (t, load, reg, bit_lo, m, n, table[m][n], -1, -1, -1)))
        else:
            bit = n * a_bits
            records.append(make(MapRecord, (t, load, reg, bit_lo, m, n, -1, accum.row_lane(p.m, m, a_lane0),
                                            c.a_col + bit // 32, bit % 32)))
    if p.m == 64 and p.shape == "32x32b":
        problems.append(Problem("m64-32x32b", "M=64 keeps 16 rows per lane quarter: with 32x32b the lanes 16-31 "
                                "(or 0-15 for lane=16) of each warp read no element of this accumulator", "note"))
    return records, problems


def producer_values(p: Producer, warps: list[int] | None = None) -> list[MapRecord]:
    """What each thread of the warpgroup holds after reading the accumulator (no destination yet)."""
    out: list[MapRecord] = []
    make = tuple.__new__
    rows = [_row_of_lane(p, lane) for lane in range(128)]
    for w in warps if warps is not None else [0, 1, 2, 3]:
        for load in producer_loads(p, w):
            for t, reg, lane, col, bit_lo, tmem_bit, _ in tmem.ld_map(p.shape, p.num, p.pack, load.taddr):
                n = col - p.d_col
                m = rows[lane] if lane < 128 else None
                if tmem_bit != 0 or m is None or not 0 <= n < p.n:
                    continue
                out.append(make(MapRecord, (32 * w + t, load.index, reg, bit_lo, m, n, -1, -1, -1, -1)))
    return out


def _row_of_lane(p: Producer, lane: int) -> int | None:
    if p.m == 128:
        return lane if lane < 128 else None
    q, r = divmod(lane, 32)
    r -= p.d_lane
    return 16 * q + r if 0 <= r < 16 else None


@dataclass(frozen=True)
class StorePlan:
    vector_bytes: int  # widest st.shared every thread can use (0 for TMEM consumers)
    per_warp: dict[int, WavefrontReport]
    instructions: int
    note: str


def plan_smem_stores(records: list[MapRecord], c: Consumer) -> StorePlan:
    """Widest uniform vector store and the bank conflicts of storing P group by group."""
    if c.kind != "smem":
        raise LayoutError("store planning applies to shared-memory consumers")
    esize = ELEMENT_BITS[c.dtype] // 8
    by_thread: dict[int, list[MapRecord]] = {}
    for r in records:
        by_thread.setdefault(r.thread, []).append(r)
    for values in by_thread.values():
        values.sort(key=lambda r: (r.load, r.reg, r.reg_bit_lo))
    width = esize
    for v in (16, 8, 4, 2, 1):
        if v < esize:
            continue
        group = v // esize
        if all(_contiguous_groups(vals, group, esize, v) for vals in by_thread.values()):
            width = v
            break
    group = width // esize
    per_warp: dict[int, WavefrontReport] = {}
    steps = 0
    for w in sorted({t // 32 for t in by_thread}):
        total = ideal = 0
        worst_bank, worst = None, 0
        count = max(len(by_thread.get(32 * w + t, [])) for t in range(32)) // group
        steps = max(steps, count)
        for g in range(count):
            addrs = []
            for t in range(32):
                vals = by_thread.get(32 * w + t, [])
                addrs.append(vals[g * group].addr if g * group < len(vals) else None)
            rep = wavefronts(addrs, width)
            total, ideal = total + rep.wavefronts, ideal + rep.ideal
            if rep.worst_degree > worst:
                worst, worst_bank = rep.worst_degree, rep.worst_bank
        per_warp[w] = WavefrontReport(total, ideal, worst_bank, worst)
    note = (f"each thread stores {group} consecutive {c.dtype} values ({width} B) per st.shared"
            + ("" if width >= 16 else "; wider stores would split across non-contiguous addresses"))
    return StorePlan(width, per_warp, steps, note)


def _contiguous_groups(vals: list[MapRecord], group: int, esize: int, width: int) -> bool:
    if len(vals) % group:
        return False
    for g in range(0, len(vals), group):
        first = vals[g].addr
        if first % width:
            return False
        if any(vals[g + j].addr != first + j * esize for j in range(group)):
            return False
    return True


def tmem_store_plan(records: list[MapRecord], p: Producer, c: Consumer) -> str:
    """For P in TMEM: can each thread write its own values with tcgen05.st 32x32b (no shuffles)?"""
    own = all(r.tmem_lane == 32 * r.warp + (r.thread % 32) for r in records)
    per_col = 32 // ELEMENT_BITS[c.dtype]
    if own:
        return (f"every thread's values belong to its own TMEM lane: tcgen05.st.32x32b.x{p.n // per_col} at "
                f"column {c.a_col} writes P with no data exchange ({per_col} {c.dtype} per 32-bit register, "
                "even k in the low half)")
    return ("threads hold rows that live in other TMEM lanes: exchange values (shuffles) or read S with "
            "32x32b first")


@dataclass(frozen=True)
class ValueRun:
    """Consecutive registers of one thread whose values land next to each other."""

    thread: int
    load: int
    reg_first: int
    reg_last: int
    m: int
    n_first: int
    n_last: int
    where: str
    banks: tuple[int, ...] = ()


def value_runs(records: list[MapRecord], c: Consumer) -> list[ValueRun]:
    """One thread's records (sorted by load, register) grouped into runs of contiguous destinations."""
    esize = ELEMENT_BITS[c.dtype] // 8
    out, i = [], 0
    while i < len(records):
        j = i
        while j + 1 < len(records) and records[j + 1].load == records[i].load and records[j + 1].m == records[i].m \
                and ((c.kind == "smem" and records[j + 1].addr == records[j].addr + esize)
                     or (c.kind == "tmem" and records[j + 1].n == records[j].n + 1)):
            j += 1
        a, b = records[i], records[j]
        if c.kind == "smem":
            lo, hi = a.addr, b.addr + esize - 1
            banks = tuple(sorted({(x.addr >> 2) & 31 for x in records[i:j + 1]}))
            where = f"smem 0x{lo:05x}-0x{hi:05x} ({hi - lo + 1} B)"
        else:
            cols = sorted({x.tmem_col for x in records[i:j + 1]})
            banks = ()
            where = f"TMEM lane {a.tmem_lane} cols {cols[0]}-{cols[-1]}"
        out.append(ValueRun(a.thread, a.load, a.reg, b.reg, a.m, a.n, b.n, where, banks))
        i = j + 1
    return out
