"""The modeled B200 schedule of one CTA, replayed from its decoded emulator trace.

Each warp's program (its traced events in buffer order) is replayed on its own modeled clock;
every cost comes from cost_model.B200. Asynchronous work runs on shared per-CTA engines: the
tensor core (MMAs in issue order), the TMA engine (fills in issue order). Dependencies are the
kernel's real synchronisation as the emulator recorded it: a wait_end on barrier B ends when the
phase it observed completed in the model, i.e. at the latest of that phase's arrives (plain
arrives, tcgen05.commit arrives after their MMAs, TMA bytes landing) plus barrier latency.

Softmax / correction / epilogue compute is not traced by the emulator; it is DERIVED: after a
softmax-role warp's tcgen05.wait::ld, the columns it loaded are processed at modeled MUFU/FMA
throughput. S columns loaded twice between two arrives of the warp (fmha_sm100.cuh reads S once
for the row max, once for exp2) are "softmax max" the first time and "softmax exp" the second;
S columns loaded once do both. O columns: correction, or epilogue after the warp's last S load.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from fmhactl.trace import cost_model as cm
from fmhactl.trace.events import EMULATOR_SIDE, WARP_SIZE, CtaTrace, Event

Key = tuple


@dataclass(frozen=True)
class Geometry:
    """What the model needs from the tile plan (fmhactl.plans.sm100)."""

    block_m: int
    block_n: int
    d_part: int
    col_s: int
    col_o: int
    head_dim: int
    exp2_poly_fraction: float = 0.0
    ctas_per_sm: int = 1
    barrier_roles: tuple[str, ...] = ()  # fmhactl.plans.sm100.barrier_roles: names in address order


@dataclass
class Span:
    track: str
    name: str
    start: float  # cycles
    dur: float
    cat: str
    args: dict = field(default_factory=dict)


@dataclass
class Flow:
    name: str
    src_track: str
    src_time: float
    dst_track: str
    dst_time: float


@dataclass
class Schedule:
    block: int
    spans: list[Span] = field(default_factory=list)
    flows: list[Flow] = field(default_factory=list)
    end: float = 0.0
    tensor_busy: float = 0.0
    waits: dict[tuple[str, str], float] = field(default_factory=dict)  # (barrier, role) -> cycles
    role_warps: dict[str, int] = field(default_factory=dict)
    tile_marks: list[float] = field(default_factory=list)  # modeled arrive times on s_full
    critical: dict[str, float] = field(default_factory=dict)  # category -> cycles on the critical path
    resource_per_tile: dict[str, float] = field(default_factory=dict)


def track_of_warp(warp: int, roles: dict[int, str]) -> str:
    return f"warp {warp} ({roles.get(warp, 'softmax')})"


TENSOR_TRACK = "tensor core (async MMA)"
TMA_TRACK = "TMA engine (async loads)"


class _Replay:
    def __init__(self, cta: CtaTrace, geo: Geometry, roles: dict[int, str]) -> None:
        self.cta, self.geo, self.roles = cta, geo, roles
        self.sched = Schedule(cta.block)
        self.time: dict[Key, float] = {}
        self.cause: dict[Key, tuple[Key | None, str]] = {}
        self.where: dict[Key, tuple[str, float]] = {}  # node -> (track, time inside its slice) for flows
        self.tc_free = 0.0
        self.tc_last: Key | None = None
        self.tma_free = 0.0
        self.tma_last: Key | None = None
        self.mma_end: dict[int, Key] = {}
        self.phase_members: dict[tuple[int, int], list[Key]] = defaultdict(list)
        self.phase_tx: dict[tuple[int, int], int] = defaultdict(int)
        self.phase_tmas: dict[tuple[int, int], list[int]] = defaultdict(list)
        self.wait_phase: dict[int, int] = {}
        self.tma_phase: dict[int, int] = {}
        self.commit_phase: dict[int, int] = {}  # commit event -> phase of its arrive (none: never arrived)
        self.arrive_phase: dict[int, int] = {}
        self._assign_phases()

    # ---- phases ------------------------------------------------------------------------------
    def _assign_phases(self) -> None:
        """Arrive events of each barrier, in buffer order, in groups of events_per_phase; each wait
        observed the latest phase whose last arrive precedes it; each TMA joins the phase of the
        latest arrive on its barrier before it."""
        arrives: dict[int, list[Event]] = defaultdict(list)
        for e in self.cta.events:
            if e.kind in ("arrive", "commit_arrive"):
                arrives[e.a].append(e)
        completed: dict[int, list[int]] = {}
        for bar, evs in arrives.items():
            per = self.cta.barriers[bar].events_per_phase if bar in self.cta.barriers else 1
            completed[bar] = [evs[k * per + per - 1].index for k in range(len(evs) // per)]
            for n, e in enumerate(evs):
                self.arrive_phase[e.index] = n // per
        # A commit's arrive is the emulator-side commit_arrive with the same (mbarrier, upto), in order.
        arrivals: dict[tuple[int, int], list[int]] = defaultdict(list)
        for e in self.cta.events:
            if e.kind == "commit_arrive":
                arrivals[(e.a, e.b)].append(self.arrive_phase[e.index])
        for e in self.cta.events:
            if e.kind == "commit" and arrivals.get((e.a, e.b)):
                self.commit_phase[e.index] = arrivals[(e.a, e.b)].pop(0)
        last_arrive: dict[int, int] = {}
        for e in self.cta.events:
            if e.kind == "arrive":
                last_arrive[e.a] = self.arrive_phase[e.index]
                self.phase_tx[(e.a, self.arrive_phase[e.index])] += e.b
            elif e.kind == "tma_issue":
                self.phase_tmas[(e.b, last_arrive.get(e.b, 0))].append(e.index)
                self.tma_phase[e.index] = last_arrive.get(e.b, 0)
            elif e.kind == "wait_end":
                marks = completed.get(e.a, [])
                self.wait_phase[e.index] = sum(1 for i in marks if i < e.index) - 1

    # ---- helpers -----------------------------------------------------------------------------
    def set(self, key: Key, t: float, cause: Key | None, cat: str, track: str, slice_time: float | None = None):
        self.time[key] = t
        self.cause[key] = (cause, cat)
        self.where[key] = (track, t if slice_time is None else slice_time)

    def span(self, track: str, name: str, start: float, end: float, cat: str, **args) -> None:
        if end > start:
            self.sched.spans.append(Span(track, name, start, end - start, cat, args))

    def bar_name(self, addr: int) -> str:
        b = self.cta.barriers.get(addr)
        return b.name if b else f"mbar@0x{addr:x}"

    def phase_node(self, bar: int, k: int) -> Key | None:
        key = ("phase", bar, k)
        if key in self.time:
            return key
        members = list(self.phase_members.get((bar, k), []))
        tmas = self.phase_tmas.get((bar, k), [])
        members += [("tma", i) for i in tmas if ("tma", i) in self.time]
        members = [m for m in members if m in self.time]
        if not members:
            return None
        last = max(members, key=lambda m: self.time[m])
        t = self.time[last] + cm.value("mbarrier_latency_clk")
        track, when = self.where[last]
        self.set(key, t, last, "barrier latency", track, when)
        return key

    # ---- replay ------------------------------------------------------------------------------
    def run(self) -> Schedule:
        geo, s = self.geo, self.sched
        clock: dict[int, float] = defaultdict(float)
        prev: dict[int, Key | None] = defaultdict(lambda: None)
        pending_ld: dict[int, tuple[float, list[tuple[int, int]]]] = {}
        pending_st: dict[int, float] = {}
        last_s_load: dict[int, int] = {}
        issue = cm.value("issue_clk")
        programs = self.cta.programs
        waited_cols = {w: self._waited_columns(evs) for w, evs in programs.items()}
        for w, by_wait in waited_cols.items():
            for index, cols in by_wait.items():
                if any(self._is_s(x) for x in cols):
                    last_s_load[w] = max(last_s_load.get(w, -1), index)
        s_pass = {w: self._s_passes(evs) for w, evs in programs.items()}
        s.role_warps = defaultdict(int)
        for w in programs:
            s.role_warps[self.roles.get(w, "softmax")] += 1
        for e in self.cta.events:
            if e.kind in EMULATOR_SIDE or e.warp not in programs:
                continue
            w = e.warp
            track = track_of_warp(w, self.roles)
            t0, p = clock[w], prev[w]
            key: Key = ("ev", e.index)
            if e.kind == "wait_end":
                k = self.wait_phase.get(e.index, -1)
                node = self.phase_node(e.a, k) if k >= 0 else None
                r = self.time[node] if node else t0
                if node and r > t0:
                    name = self.bar_name(e.a)
                    self.set(key, r, node, f"wait {name}", track)
                    self.span(track, f"wait {name}", t0, r, "wait", barrier=name, phase=k)
                    s.waits[(name, self.roles.get(w, "softmax"))] = s.waits.get((name, self.roles.get(w, "softmax")), 0) + r - t0
                    src_track, src_t = self.where[node]
                    # Inside the wait slice, after the arrive's slice (which ends a barrier latency before r).
                    s.flows.append(Flow(f"{name} phase {k}", src_track, src_t, track, r - min(1.0, (r - t0) / 2)))
                else:
                    self.set(key, t0 + issue, p, "issue", track)
            elif e.kind == "mma_issue":
                t = t0 + cm.value("mma_issue_clk")
                self.set(key, t, p, "issue", track)
                n = geo.d_part if (e.b & 0xFFFF) - self.cta.alloc_base == geo.col_o else geo.block_n
                dur = 2.0 * geo.block_m * n * cm.value("mma_k") / cm.value("tensor_f16_flop_per_clk_sm")
                start = max(t, self.tc_free)
                cause = key if t >= self.tc_free or self.tc_last is None else self.tc_last
                self.tc_free = start + dur
                mkey = ("mma", e.a)
                what = "PV" if n == geo.d_part and (e.b & 0xFFFF) - self.cta.alloc_base == geo.col_o else "QK"
                self.set(mkey, self.tc_free, cause, "tensor core", TENSOR_TRACK, start + dur / 2)
                self.mma_end[e.a] = mkey
                self.tc_last = mkey
                s.tensor_busy += dur
                self.span(TENSOR_TRACK, f"{what} mma #{e.a}", start, start + dur, "mma", n=n, site=e.site)
            elif e.kind == "commit":
                t = t0 + issue
                self.set(key, t, p, "issue", track)
                done = self.mma_end.get(e.b - 1) if e.b else None
                base = max(t, self.time[done]) if done else t
                ckey = ("commit", e.index)
                lat = cm.value("commit_latency_clk")
                self.set(ckey, base + lat, done if done and self.time[done] > t else key, "commit", TENSOR_TRACK,
                         base + lat / 2)
                name = self.bar_name(e.a)
                self.span(TENSOR_TRACK, f"commit -> {name}", base, base + lat, "commit", upto=e.b)
                if e.index in self.commit_phase:
                    self.phase_members[(e.a, self.commit_phase[e.index])].append(ckey)
                if name == "s_full":
                    s.tile_marks.append(base + lat)
            elif e.kind == "arrive":
                t = t0 + issue
                name = self.bar_name(e.a)
                self.set(key, t, p, "issue", track, t0 + issue / 2)
                self.span(track, f"arrive {name}" + (f" (+{e.b} B tx)" if e.b else ""), t0, t, "arrive")
                self.phase_members[(e.a, self.arrive_phase[e.index])].append(key)
            elif e.kind == "tma_issue":
                t = t0 + issue
                self.set(key, t, p, "issue", track)
                ph = self.tma_phase.get(e.index, 0)
                count = max(1, len(self.phase_tmas[(e.b, ph)]))
                nbytes = self.phase_tx.get((e.b, ph), 0) / count
                xfer = nbytes / cm.value("tma_bytes_per_clk_sm")
                start = max(t, self.tma_free)
                cause = key if t >= self.tma_free or self.tma_last is None else self.tma_last
                self.tma_free = start + xfer
                end = self.tma_free + cm.value("tma_latency_clk")
                tkey = ("tma", e.index)
                self.set(tkey, end, cause, "TMA", TMA_TRACK, start + (end - start) / 2)
                self.tma_last = tkey
                self.span(TMA_TRACK, f"TMA -> {self.bar_name(e.b)} ({nbytes:.0f} B)", start, end, "tma")
            elif e.kind in ("ld", "st"):
                nbytes = (e.b - e.a) * WARP_SIZE * 4
                xfer = nbytes / cm.value("tmem_bytes_per_clk_smsp")
                t = t0 + issue + (xfer if e.kind == "st" else 0)
                self.set(key, t, p, "tmem ld/st" if e.kind == "st" else "issue", track)
                ready = t0 + issue + xfer + cm.value("tmem_latency_clk")
                if e.kind == "ld":
                    old = pending_ld.get(w, (0.0, []))
                    pending_ld[w] = (max(old[0], ready), old[1] + [(e.a, e.b)])
                else:
                    pending_st[w] = max(pending_st.get(w, 0.0), ready)
                    self.span(track, "tcgen05.st", t0, t, "tmem")
            elif e.kind in ("wait_ld", "wait_st"):
                ready = (pending_ld.pop(w, (0.0, []))[0] if e.kind == "wait_ld" else pending_st.pop(w, 0.0))
                t = max(t0 + issue, ready)
                cols = [] if e.kind == "wait_st" else waited_cols[w].get(e.index, [])
                self.set(key, t, p, "tmem ld/st", track)
                if t > t0 + issue:
                    self.span(track, f"tcgen05.{e.kind.replace('_', '::')}", t0, t, "tmem")
                if cols and self.roles.get(w, "softmax") == "softmax":
                    what, cost = self._compute(cols, e.index > last_s_load.get(w, -1), s_pass[w].get(e.index, "full"))
                    ckey = ("compute", e.index)
                    self.set(ckey, t + cost, key, what, track)
                    self.span(track, what, t, t + cost, "compute", columns=sum(h - lo for lo, h in cols))
                    key, t = ckey, t + cost
            else:  # alloc, dealloc, mbar_init, wait_begin
                t = t0 + (0 if e.kind == "wait_begin" else issue)
                self.set(key, t, p, "issue", track)
            clock[w] = self.time[key]
            prev[w] = key
        ends = [(self.time[k], k) for k in prev.values() if k]
        ends += [(self.tc_free, self.tc_last)] if self.tc_last else []
        s.end, last = max(ends, key=lambda x: x[0]) if ends else (0.0, None)
        s.critical = self._critical(last)
        self._resources()
        return s

    @staticmethod
    def _waited_columns(evs: list[Event]) -> dict[int, list[tuple[int, int]]]:
        """wait_ld event index -> the column ranges of the tcgen05.ld calls it waits for."""
        out: dict[int, list[tuple[int, int]]] = {}
        pending: list[tuple[int, int]] = []
        for e in evs:
            if e.kind == "ld":
                pending.append((e.a, e.b))
            elif e.kind == "wait_ld":
                out[e.index] = pending
                pending = []
        return out

    def _is_s(self, cols: tuple[int, int]) -> bool:
        lo = cols[0] - self.cta.alloc_base
        return self.geo.col_s <= lo < self.geo.col_s + self.geo.block_n

    def _s_passes(self, evs: list[Event]) -> dict[int, str]:
        """wait_ld index -> 'max' / 'exp' / 'full' for the S loads it waits for (see module doc)."""
        out: dict[int, str] = {}
        segment: list[tuple[Event, list[tuple[int, int]]]] = []
        pending: list[tuple[int, int]] = []

        def close() -> None:
            seen: dict[tuple[int, int], int] = defaultdict(int)
            for _, cols in segment:
                for c in cols:
                    seen[c] += 1
            count: dict[tuple[int, int], int] = defaultdict(int)
            for wait, cols in segment:
                s_cols = [c for c in cols if self._is_s(c)]
                if not s_cols:
                    continue
                c = s_cols[0]
                count[c] += 1
                out[wait.index] = "full" if seen[c] == 1 else "max" if count[c] == 1 else "exp"
            segment.clear()

        for e in evs:
            if e.kind == "ld":
                pending.append((e.a, e.b))
            elif e.kind == "wait_ld":
                segment.append((e, pending))
                pending = []
            elif e.kind == "arrive":
                close()
        close()
        return out

    def _compute(self, cols: list[tuple[int, int]], after_last_s: bool, s_pass: str = "full") -> tuple[str, float]:
        """Derived compute span after a wait::ld: name and modeled cycles on one sub-partition."""
        s_cols = sum(h - lo for lo, h in cols if self._is_s((lo, h)))
        o_cols = sum(h - lo for lo, h in cols if not self._is_s((lo, h)))
        fma_rate, mufu_rate = cm.value("fma_f32_per_clk_sm") / 4, cm.value("mufu_ex2_per_clk_sm") / 4
        if s_cols:
            elements = s_cols * WARP_SIZE
            poly = self.geo.exp2_poly_fraction
            max_ops = cm.value("softmax_max_ops_per_element") if s_pass in ("max", "full") else 0.0
            if s_pass == "max":
                return "softmax max", elements * max_ops / fma_rate
            mufu = elements * (1 - poly) / mufu_rate
            ops = max_ops + cm.value("softmax_exp_ops_per_element") + poly * cm.value("poly_ex2_fma_ops")
            return ("softmax exp" if s_pass == "exp" else "softmax"), max(mufu, elements * ops / fma_rate)
        elements = o_cols * WARP_SIZE
        return ("epilogue" if after_last_s else "correction"), elements * cm.value("correction_ops_per_element") / fma_rate

    def _critical(self, last: Key | None) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        node, guard = last, 0
        while node is not None and guard < 10_000_000:
            cause, cat = self.cause[node]
            before = self.time[cause] if cause is not None else 0.0
            if cat.startswith("wait "):
                cat = "barrier latency"  # the wait itself adds nothing beyond the phase it waited for
            out[cat] += max(0.0, self.time[node] - before)
            node, guard = cause, guard + 1
        return dict(out)

    def _resources(self) -> None:
        """Per-KV-tile busy time of each shared SM resource (for the throughput projection)."""
        geo, s = self.geo, self.sched
        tensor = 2.0 * geo.block_m * (geo.block_n * geo.head_dim + geo.block_n * geo.d_part) / cm.value(
            "tensor_f16_flop_per_clk_sm")
        elements = geo.block_m * geo.block_n
        mufu = elements * (1 - geo.exp2_poly_fraction) / cm.value("mufu_ex2_per_clk_sm")
        fma = elements * (cm.value("softmax_max_ops_per_element") + cm.value("softmax_exp_ops_per_element") +
                          geo.exp2_poly_fraction * cm.value("poly_ex2_fma_ops")) / cm.value("fma_f32_per_clk_sm")
        tma = 2.0 * geo.block_n * geo.head_dim * 2 / cm.value("tma_bytes_per_clk_sm")
        s.resource_per_tile = {"tensor core": tensor, "MUFU.EX2": mufu, "FMA pipe": fma, "TMA": tma}


def replay(cta: CtaTrace, geo: Geometry, roles: dict[int, str]) -> Schedule:
    return _Replay(cta, geo, roles).run()


def steady_tile_cycles(sched: Schedule) -> float | None:
    """Median interval between consecutive S-ready commits (one per KV tile), None under 3 tiles."""
    marks = sorted(sched.tile_marks)
    if len(marks) < 3:
        return None
    return statistics.median(b - a for a, b in zip(marks, marks[1:]))
