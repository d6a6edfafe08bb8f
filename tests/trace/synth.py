"""A synthetic SM100 FMHA event stream for CPU tests: a tiny cooperative simulator of the kernel's
six warps that emits raw Tc5TraceEvent tuples exactly as the strict emulator would (kind codes
from fmhactl.runtime.emulation.TRACE_EVENTS, one event per warp-level call, mbarrier phases that
complete only when their arrivals are in, commit arrives as emulator-side events).

It mirrors kernels/sm100/fmha_sm100.cuh's protocol (q_full, kv_full/kv_empty ring, s_full,
p_full (4 x 32 arrivals), o_ready) with D=128, BlockN=128, P inside S.
"""

from __future__ import annotations

from fmhactl.runtime.emulation import TRACE_EVENTS as K

SOURCE = """// synthetic kernel source for the trace tests
constexpr int kMmaWarp = 4;
constexpr int kLoadWarp = 5;
        mbar::init(bar.q_full, 1);
        mbar::init(bar.s_full, 1);
        mbar::init(bar.p_full, 4 * 32);
        mbar::init(bar.o_ready, 1);
            mbar::init(&bar.kv_full[s], 1);
            mbar::init(&bar.kv_empty[s], 1);
"""
INIT_SITE = {"q_full": 4, "s_full": 5, "p_full": 6, "o_ready": 7, "kv_full": 8, "kv_empty": 9}
ADDR = {"q_full": 0x100, "s_full": 0x108, "p_full": 0x110, "o_ready": 0x118}
D, BLOCK_N, COL_S, COL_O = 128, 128, 0, 128
Q_BYTES, KV_BYTES = 128 * D * 2, 2 * BLOCK_N * D * 2


def kv_addr(kind: str, stage: int, stages: int) -> int:
    """The kernel's layout: one block of 8-byte barriers, q_full s_full p_full o_ready, then
    kv_full[stages], then kv_empty[stages] (fmhactl.plans.sm100.barrier_roles)."""
    return 0x120 + 8 * (stage if kind == "kv_full" else stages + stage)


class _Bar:
    def __init__(self, count: int) -> None:
        self.count, self.arrived, self.tx, self.phase = count, 0, 0, 0

    def settle(self) -> None:
        if self.arrived >= self.count and self.tx == 0:
            self.arrived -= self.count
            self.phase += 1


def synth_events(n_tiles: int = 4, stages: int = 1, block: int = 0) -> list[tuple]:
    out: list[tuple] = []
    bars: dict[int, _Bar] = {}
    mma_seq = [0]

    def ev(kind: str, warp: int, site: int, a: int = 0, b: int = 0) -> None:
        out.append((1000 + len(out), K[kind], block, warp, site, a, b))

    def arrive(addr: int, warp: int, tx: int = 0, lanes: int = 1) -> None:
        ev("arrive", warp, 50, addr, tx)  # one event per warp-level call, as the emulator records
        bars[addr].arrived += lanes
        bars[addr].tx += tx
        bars[addr].settle()

    def commit(addr: int, warp: int) -> None:
        ev("commit", warp, 60, addr, mma_seq[0])
        ev("commit_arrive", warp, 60, addr, mma_seq[0])  # eager: the MMAs ran at the commit
        bars[addr].arrived += 1
        bars[addr].settle()

    def wait(addr: int, phase: int, warp: int):
        if bars[addr].phase <= phase:
            ev("wait_begin", warp, 70, addr)
            while bars[addr].phase <= phase:
                yield
        ev("wait_end", warp, 70, addr)

    def mmas(col: int, warp: int) -> None:
        for _ in range(D // 16 if col == COL_S else BLOCK_N // 16):
            ev("mma_issue", warp, 80, mma_seq[0], col)
            mma_seq[0] += 1

    def load_warp():
        w = 5
        arrive(ADDR["q_full"], w, Q_BYTES)
        ev("tma_issue", w, 90, 0x1000, ADDR["q_full"])
        bars[ADDR["q_full"]].tx -= Q_BYTES
        bars[ADDR["q_full"]].settle()
        for j in range(n_tiles):
            s = j % stages
            if j >= stages:
                yield from wait(kv_addr("kv_empty", s, stages), j // stages - 1, w)
            arrive(kv_addr("kv_full", s, stages), w, KV_BYTES)
            for half in range(2):
                ev("tma_issue", w, 91, 0x8000 + half, kv_addr("kv_full", s, stages))
                yield
            bars[kv_addr("kv_full", s, stages)].tx -= KV_BYTES
            bars[kv_addr("kv_full", s, stages)].settle()

    def mma_warp():
        w = 4
        yield from wait(ADDR["q_full"], 0, w)
        yield from wait(kv_addr("kv_full", 0, stages), 0, w)
        mmas(COL_S, w)
        commit(ADDR["s_full"], w)
        for j in range(n_tiles):
            s = j % stages
            yield from wait(ADDR["p_full"], j, w)
            mmas(COL_O, w)
            commit(ADDR["o_ready"], w)
            commit(kv_addr("kv_empty", s, stages), w)
            if j + 1 < n_tiles:
                yield from wait(kv_addr("kv_full", (j + 1) % stages, stages), (j + 1) // stages, w)
                mmas(COL_S, w)
                commit(ADDR["s_full"], w)

    def softmax_warp(w: int):
        # fmha_sm100.cuh: S read twice in 32-column chunks (row max, then exp2 + P store), O rescaled.
        for j in range(n_tiles):
            yield from wait(ADDR["s_full"], j, w)
            for c in range(0, BLOCK_N, 32):
                ev("ld", w, 100, COL_S + c, COL_S + c + 32)
                ev("wait_ld", w, 101)
            yield
            if j > 0:
                yield from wait(ADDR["o_ready"], j - 1, w)
                for c in range(0, D, 32):
                    ev("ld", w, 102, COL_O + c, COL_O + c + 32)
                    ev("wait_ld", w, 103)
                    ev("st", w, 104, COL_O + c, COL_O + c + 32)
                ev("wait_st", w, 105)
            for c in range(0, BLOCK_N, 32):
                ev("ld", w, 106, COL_S + c, COL_S + c + 32)
                ev("wait_ld", w, 107)
                ev("st", w, 108, COL_S + c // 2, COL_S + c // 2 + 16)
            ev("wait_st", w, 109)
            arrive(ADDR["p_full"], w, lanes=32)
        yield from wait(ADDR["o_ready"], n_tiles - 1, w)
        for c in range(0, D, 32):
            ev("ld", w, 110, COL_O + c, COL_O + c + 32)
            ev("wait_ld", w, 111)

    for name, count in (("q_full", 1), ("s_full", 1), ("p_full", 128), ("o_ready", 1)):
        bars[ADDR[name]] = _Bar(count)
        ev("mbar_init", 4, INIT_SITE[name], ADDR[name], count)
    for s in range(stages):
        for kind in ("kv_full", "kv_empty"):
            bars[kv_addr(kind, s, stages)] = _Bar(1)
            ev("mbar_init", 4, INIT_SITE[kind], kv_addr(kind, s, stages), 1)
    ev("alloc", 4, 20, 0, 256)
    warps = [softmax_warp(w) for w in range(4)] + [mma_warp(), load_warp()]
    live = list(range(6))
    guard = 0
    while live:
        guard += 1
        assert guard < 100_000, "synthetic kernel deadlocked"
        for w in list(live):
            try:
                next(warps[w])
            except StopIteration:
                live.remove(w)
    ev("dealloc", 4, 21, 0, 256)
    return out
