"""sm90_mqa_decode without a GPU: both entries build for sm_90a with no spills and no local
memory and are wgmma (HGMMA: 16 SS m64n32k16 for QK^T + 2 RS m64n256k16 for PV) fed by cp.async
and mbarriers; the plan header is the plan's; the registry takes every dsv4-long config and says
why it refuses others; launch geometry; the wgmma descriptors the kernel builds read exactly the
bytes the producer's SW128 gather wrote (the layout model of fmhactl/layout); and a step model of
the producer/consumer mbarrier protocol (parities, arrivals on landing) finishes for every block
count without a stage being overwritten while a consumer may still read it."""

import re

import pytest

from fmhactl.build.compiler import PERFORMANCE_LOSS, BuildTarget
from fmhactl.build.entry import build
from fmhactl.build.sass import instruction_mix, opcode_counts, sass
from fmhactl.config import parse_shape
from fmhactl.errors import MissingEnvironment
from fmhactl.layout.canonical import desc_offset
from fmhactl.plans import sm90_decode
from fmhactl.plans.hardware import MAX_DYNAMIC_SMEM
from fmhactl.plans.launch import launch_shape
from fmhactl.registry import load_registry
from fmhactl.verify.grids import load_grid

NAME = "sm90_mqa_decode"
VARIANT = load_registry()[NAME]
ENTRIES = [f"fmha_mqa_decode_{dt}_d512" for dt in ("bf16", "f16")]
TOPK = "h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"


@pytest.fixture(scope="module")
def built():
    try:
        return build(VARIANT, BuildTarget("sm_90a"))
    except MissingEnvironment as exc:
        pytest.skip(str(exc))


def test_every_entry_builds_without_spills_or_local_memory(built):
    assert sorted(k.kernel for k in built.kernels) == sorted(ENTRIES)
    for k in built.kernels:
        assert k.spill_stores == 0 and k.spill_loads == 0 and k.stack_bytes == 0, k
        # __launch_bounds__(384, 1): 168 a thread at launch; setmaxnreg moves them to the consumers.
        assert 0 < k.registers <= 168, k
        assert k.static_smem == 0, "SMEM is all dynamic: the launcher sizes it"
    ops = opcode_counts(built.cubin_path)
    assert ops["LDL"] + ops["STL"] == 0, "local-memory traffic (spills or indexed arrays)"
    # no wgmma serialised by this NVRTC's ptxas (nvcc's: tests/sm90/test_wgmma_not_serialised.py)
    assert not [w for w in built.warnings if PERFORMANCE_LOSS in w], built.warnings


def test_sass_is_wgmma_fed_by_cp_async_and_mbarriers(built):
    mix = instruction_mix(built.cubin_path, ("HGMMA", "LDGSTS", "SYNCS", "HMMA", "LDSM", "UTMALDG"))
    assert sorted(mix) == sorted(ENTRIES)
    for entry, counts in mix.items():
        # QK^T: 256 / 16 K steps a warpgroup; PV: 32 keys / 16. The software pipeline: QK^T of the
        # prologue, QK^T + PV in each of the loop's two unrolled steps, PV of the last block in
        # either of two branches (which of P's two buffers holds it)
        qk, pv = 512 // 2 // 16, sm90_decode.BLOCK_N // 16
        assert counts["HGMMA"] == qk + 2 * (qk + pv) + 2 * pv, (entry, counts)
        assert counts["LDGSTS"] > 0 and counts["SYNCS"] > 0, (entry, counts)
        assert counts["HMMA"] == 0 and counts["LDSM"] == 0 and counts["UTMALDG"] == 0, (entry, counts)


def test_registers_follow_setmaxnreg(built):
    """The consumer code never names a register past CONSUMER_REGS (ptxas honours setmaxnreg)."""
    text = sass(built.cubin_path)
    assert "USETMAXREG" in text
    top = max(int(r) for r in re.findall(r"\bR(\d+)\b", text))
    assert top < sm90_decode.CONSUMER_REGS


def test_features_and_plan_header():
    source = (VARIANT.source_path.parent / "fmha_mqa_decode.cuh").read_text()
    reads = {"causal": "p.causal", "gqa": "p.heads_kv", "lse": "p.lse", "window": "p.window_left",
             "sink": "p.sinks", "kv_shared": "K = V", "topk": "p.topk_idx"}
    for feature, needle in reads.items():
        assert feature in VARIANT.features and needle in source, feature
    assert set(VARIANT.features) == set(reads) | {"gather", "wgmma"}
    assert VARIANT.head_dims == sm90_decode.HEAD_DIMS
    assert VARIANT.launcher == "sm90_decode" and VARIANT.archs == ("sm_90a",)
    header = (VARIANT.source_path.parent / "fmha_mqa_decode_plan.h").read_text()
    assert header.splitlines()[1:] == sm90_decode.render_plan_header()


def test_every_dsv4_long_config_is_supported():
    configs = load_grid("dsv4-long").configs
    assert configs and [c.key for c in configs if VARIANT.unsupported_reason(c) is not None] == []


@pytest.mark.parametrize("shape,reason", [
    ("b=1,h=64,hkv=1,t=1,s=4096,d=512,topk=512,sink", "needs K = V"),
    ("b=1,h=64,hkv=1,t=1,s=4096,d=128,topk=512,kvshared", "head_dim 128"),
    ("b=200,h=64,hkv=1,t=1,s=9000,d=512,topk=4096,kvshared", "2048-entry SMEM list"),
])
def test_unsupported_reasons(shape, reason):
    got = VARIANT.unsupported_reason(parse_shape(shape))
    assert got is not None and reason in got, got


@pytest.mark.parametrize("shape,grid,splits", [
    (f"b=64,{TOPK}", (1, 1, 64), 1),   # 64 CTAs: 2 splits would fill more than half the 132 SMs
    (f"b=16,{TOPK}", (4, 1, 16), 4),   # 16 x 4 = 64 CTAs <= 66: 4 splits of 128 entries
    (f"b=1,{TOPK}", (4, 1, 1), 4),     # at most 512 / MIN_SPLIT_KEYS = 4 splits
    (f"b=4,{TOPK}", (4, 1, 4), 4),
    (f"b=4,{TOPK.replace('h=64', 'h=128')}", (8, 1, 4), 4),  # 2 head chunks x 4 splits
    ("b=160,h=64,hkv=1,t=1,s=8192,d=512,kvshared,sink,topk=512", (1, 1, 160), 1),  # >= 132 CTAs: no split
    ("b=1,h=64,hkv=1,t=1,s=32768,d=512,kvshared,causal,wl=127", (1, 1, 1), 1),  # window 128: one split
    ("b=1,h=64,hkv=1,t=1,s=32768,d=512,kvshared,causal", (32, 1, 1), 32),  # a long causal range: MAX_SPLITS
    ("b=2,h=64,hkv=1,t=16,s=4096,d=512,kvshared,causal,wl=255", (32, 1, 2), 2),  # 16 tokens, 256 keys: 2 splits
])
def test_launch_geometry(shape, grid, splits, monkeypatch):
    monkeypatch.delenv(sm90_decode.SPLITS_ENV, raising=False)
    cfg = parse_shape(shape)
    launch = launch_shape("sm90_decode", cfg, VARIANT.switches, 132)
    plan = sm90_decode.plan_for_config(cfg, 132)
    assert launch.grid == grid and plan.splits == splits
    assert launch.block == (384, 1, 1) and launch.dynamic_smem <= MAX_DYNAMIC_SMEM
    assert launch.dynamic_smem == plan.smem_bytes
    off = sm90_decode.offsets(512)
    assert all(off[k] % 1024 == 0 for k in ("q", "x", "ring"))  # SW128 tiles: 1024-aligned
    assert plan.entries_per_split <= sm90_decode.LIST_CAP


def test_split_override_for_ab_runs(monkeypatch):
    cfg = parse_shape(f"b=64,{TOPK}")
    monkeypatch.setenv(sm90_decode.SPLITS_ENV, "1")
    assert sm90_decode.plan_for_config(cfg, 132).splits == 1
    assert launch_shape("sm90_decode", cfg, VARIANT.switches, 132).grid == (1, 1, 64)
    monkeypatch.setenv(sm90_decode.SPLITS_ENV, "4")
    assert sm90_decode.plan_for_config(cfg, 132).splits == 4


# ---- the descriptors against the gather layout (kernels/common/sw128.cuh, wgmma.cuh mirrored) ----

def sw128_offset(row: int, col: int, rows: int) -> int:  # sw128::offset
    return (col // 64) * rows * 128 + row * 128 + ((((col % 64) // 8) ^ (row % 8)) * 16) + (col % 8) * 2


def kmajor_start(base: int, k0: int, rows: int) -> int:  # wg::kmajor_desc's start: sw128::kmajor_k_offset
    return base + (k0 // 64) * rows * 128 + (k0 % 64) * 2


BASE = 0x400  # any 1024-aligned SMEM address: the swizzle reads absolute address bits


@pytest.mark.parametrize("wg", [0, 1])
def test_qk_descriptors_read_the_gathered_rows(wg):
    """SS QK^T of warpgroup wg: A = Q (64 rows) and B = K (BLOCK_N rows), both K-major SW128
    (LBO 16, SBO 1024), K step kk at head dims wg*256 + 16kk; element (mn, k) must be the bytes the
    producer's cp.async wrote for (row mn, column k0 + k)."""
    off = sm90_decode.offsets(512)
    for tile, rows in ((off["q"], sm90_decode.ROWS), (off["ring"] + sm90_decode.stage_bytes(512), sm90_decode.BLOCK_N)):
        for kk in range(256 // 16):
            k0 = wg * 256 + 16 * kk
            start = kmajor_start(BASE + tile, k0, rows)
            for mn in range(rows):
                for k in range(16):
                    got = desc_offset("K", "128B", mn, k, 2, 16, 1024, start)
                    assert got == BASE + tile + sw128_offset(mn, k0 + k, rows), (rows, kk, mn, k)


@pytest.mark.parametrize("wg", [0, 1])
def test_pv_descriptor_reads_v_from_the_k_stage(wg):
    """RS PV of warpgroup wg: B = V MN-major (N = its 256 head dims, K = 16 keys) over the same
    stage bytes: start at atom column 4*wg + key0 rows, LBO = BLOCK_N*128 (next atom column),
    SBO = 1024 (next 8 keys)."""
    bn = sm90_decode.BLOCK_N
    stage = BASE + sm90_decode.offsets(512)["ring"]
    v_tile = stage + wg * 4 * bn * 128
    for kb in range(bn // 16):
        start = v_tile + kb * 16 * 128
        for n in range(256):
            for k in range(16):
                got = desc_offset("MN", "128B", n, k, 2, bn * 128, 1024, start)
                assert got == stage + sw128_offset(kb * 16 + k, wg * 256 + n, bn), (kb, n, k)


# ---- the mbarrier protocol, step by step ----

class Barrier:
    """An mbarrier: `count` arrivals complete a phase; try_wait.parity(P) passes once the phase
    of parity P has completed, i.e. while the current phase's parity differs from P."""

    def __init__(self, count: int):
        self.count, self.pending, self.phases = count, 0, 0

    def arrive(self) -> None:
        self.pending += 1
        if self.pending == self.count:
            self.pending, self.phases = 0, self.phases + 1

    def passes(self, parity: int) -> bool:
        return (self.phases & 1) != parity


def run_protocol(nblocks: int, seed: int, stages: int = sm90_decode.STAGES) -> None:
    """The kernel's loops (fmha_mqa_decode.cuh) as agents under a random interleaving: the
    producer (one thread stands for all 128: they run the same sequence, so `full` counts 1
    arrival), two consumer warpgroups (`empty` counts 2), and the memory system landing the
    producer's copies in order at random times, each landing making the arrival its
    cp.async.mbarrier.arrive.noinc registered (Q on q_full, a block on its stage's full). The
    consumers are software-pipelined: stage blk is read from iteration blk (QK^T) through
    iteration blk + 1 (P V) and released after it. Asserts every wait that passes sees the phase
    it means (no parity aliasing), a consumer reads a stage only once its block's rows landed, the
    producer refills a stage only after both consumers left it, and no interleaving deadlocks."""
    import random

    rng = random.Random(seed)
    full = [Barrier(1) for _ in range(stages)]
    empty = [Barrier(2) for _ in range(stages)]
    q_full = Barrier(1)
    groups: list[int] = []  # the producer's copies in issue order (-1: Q), each arriving once landed
    landed = 0
    content = [None] * stages  # block whose rows a stage holds (or is receiving)
    readers = [set() for _ in range(stages)]  # consumers that may still read a stage

    def land() -> None:
        nonlocal landed
        g = groups[landed]
        landed += 1
        (q_full if g < 0 else full[g % stages]).arrive()

    def producer():
        groups.append(-1)  # Q, then arrive_when_landed(q_full)
        yield
        for blk in range(nblocks):
            slot = blk % stages
            while not empty[slot].passes(((blk // stages) & 1) ^ 1):
                yield
            assert empty[slot].phases == blk // stages, "empty parity aliased"
            assert not readers[slot], "stage refilled while a consumer reads it"
            content[slot] = blk
            groups.append(blk)  # the copies, then arrive_when_landed(full[slot])
            yield
        while landed < len(groups):  # cp.async.wait_all
            yield

    def take(me: int, blk: int):
        slot = blk % stages
        while not full[slot].passes((blk // stages) & 1):
            yield
        assert full[slot].phases == blk // stages + 1, "full parity aliased"
        assert content[slot] == blk and groups.index(blk) < landed, "read before the rows landed"
        readers[slot].add(me)

    def leave(me: int, blk: int) -> None:
        readers[blk % stages].discard(me)
        empty[blk % stages].arrive()

    def consumer(me: int):
        if nblocks == 0:
            return
        while not q_full.passes(0):
            yield
        yield from take(me, 0)
        yield  # QK^T of block 0, softmax
        for blk in range(1, nblocks):
            yield from take(me, blk)
            yield  # QK^T of blk with P V of blk - 1, softmax of blk
            leave(me, blk - 1)
            yield
        yield  # P V of the last block
        leave(me, nblocks - 1)

    agents = [producer(), consumer(0), consumer(1)]
    live = list(agents)
    for _ in range(200000):
        if not live:
            return
        if landed < len(groups) and rng.random() < 0.3:
            land()
            continue
        agent = rng.choice(live)
        try:
            next(agent)
        except StopIteration:
            live.remove(agent)
    raise AssertionError(f"nblocks={nblocks}: no end (deadlock)")


@pytest.mark.parametrize("nblocks", list(range(0, 14)) + [64])
def test_mbarrier_protocol_finishes_and_never_overwrites(nblocks):
    for seed in range(20):
        run_protocol(nblocks, seed)


def test_device_script_dry_run(tmp_path):
    """scripts/device/decode27x.sh parses; DRY=1 lists its steps (the A/B ones included) and writes
    nothing to $OUT."""
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    script = root / "scripts" / "device" / "decode27x.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    env = {**os.environ, "DRY": "1", "OUT": str(tmp_path / "out"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(["bash", str(script)], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    steps = ["build", "gpu-test", "verify-decode", "verify-gather", "bench-new-decode-topk", "bench-new-decode-win",
             "bench-new-gather-topk", "bench-new-gather-win", "bench-new-decode-splits1", "bench-old-decode-topk",
             "bench-old-decode-win"]
    for step in steps:
        assert f"] {step} (cap " in done.stdout, step
    assert not (tmp_path / "out").exists()
    text = script.read_text()
    assert "set -u -o pipefail" in text and "source scripts/device/steps.sh" in text
