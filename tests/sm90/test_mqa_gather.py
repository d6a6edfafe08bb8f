"""sm90_mqa_gather without a GPU: every entry builds for sm_90a with no spills and no local
memory and uses mma.sync + ldmatrix + cp.async (no wgmma, no TMA); its declared features are what
the source reads; the registry sends it every dsv4/dsv4-long config and says why it refuses the
rest; the launch geometry (tiles per CTA, grid, block, SMEM, stages) of the model's shapes."""

import re

import pytest

from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.build.sass import instruction_mix, opcode_counts
from fmhactl.config import parse_shape
from fmhactl.errors import MissingEnvironment
from fmhactl.plans import sm90_gather
from fmhactl.plans.hardware import MAX_DYNAMIC_SMEM
from fmhactl.plans.launch import launch_shape, limit_reason
from fmhactl.registry import load_registry
from fmhactl.verify.grids import load_grid

NAME = "sm90_mqa_gather"
VARIANT = load_registry()[NAME]
ENTRIES = [f"fmha_mqa_gather_{dt}_d{d}" for dt in ("bf16", "f16") for d in (64, 128, 256, 512)]


@pytest.fixture(scope="module")
def built():
    try:
        return build(VARIANT, BuildTarget("sm_90a"))
    except MissingEnvironment as exc:
        pytest.skip(str(exc))


def test_every_entry_builds_without_spills_or_local_memory(built):
    assert sorted(k.kernel for k in built.kernels) == sorted(ENTRIES)
    for k in built.kernels:
        d = int(k.kernel.rsplit("_d", 1)[1])
        # hd512 sits at the 128-register cap: the split-K bounds cost it a few spilled scalars
        # (nvcc 13: 48 B stored, 72 B loaded, outside the MMA loop's fragments); the rest spill nothing.
        limit = 128 if d == 512 else 0
        assert k.spill_stores <= limit and k.spill_loads <= limit and k.stack_bytes <= limit, k
        # __launch_bounds__(max threads, 1): 512 threads (hd512) leave 128 registers a thread.
        assert 0 < k.registers <= min(255, 65536 // sm90_gather.max_threads(d)), k
        assert k.static_smem == 0, "SMEM is all dynamic: the launcher sizes it"
    ops = opcode_counts(built.cubin_path)
    # hd512's few spilled scalars (above; the cubin holds both dtypes; nvcc 13: 42 LDL/STL an entry
    # with the shared split merge, 21 without any merge): no indexed arrays elsewhere
    assert ops["LDL"] + ops["STL"] <= 96, "local-memory traffic (spills or indexed arrays)"


def test_sass_is_mma_sync_fed_by_ldmatrix_and_cp_async(built):
    mix = instruction_mix(built.cubin_path, ("HMMA", "LDSM", "LDGSTS", "HGMMA", "UTMALDG"))
    assert sorted(mix) == sorted(ENTRIES)
    for entry, counts in mix.items():
        assert counts["HMMA"] > 0 and counts["LDSM"] > 0 and counts["LDGSTS"] > 0, (entry, counts)
        assert counts["HGMMA"] == 0 and counts["UTMALDG"] == 0, (entry, counts)


def test_features_are_what_the_kernel_reads():
    """Each declared feature has its FmhaParams field read by the kernel; nothing more is claimed."""
    source = (VARIANT.source_path.parent / "fmha_mqa_gather.cuh").read_text()
    reads = {"causal": "p.causal", "gqa": "p.heads_kv", "lse": "p.lse", "window": "p.window_left",
             "sink": "p.sinks", "kv_shared": "p.kv_shared", "topk": "p.topk_idx"}
    for feature, field in reads.items():
        assert feature in VARIANT.features and field in source, feature
    assert set(VARIANT.features) == set(reads) | {"gather", "mma_sync"}
    assert VARIANT.head_dims == sm90_gather.HEAD_DIMS
    assert VARIANT.launcher == "sm90_gather" and VARIANT.archs == ("sm_90a",)
    # The plan header the kernel includes is the one the plan renders (python -m fmhactl.plans --check).
    header = (VARIANT.source_path.parent / "fmha_mqa_gather_plan.h").read_text()
    for d in sm90_gather.HEAD_DIMS:
        assert f"HeadDim<{d}> {{ static constexpr bool kDeclared = true; " \
               f"static constexpr int kBlockN = {sm90_gather.BLOCK_N[d]}" in header


@pytest.mark.parametrize("grid", ["dsv4", "dsv4-long"])
def test_every_dsv4_config_is_supported(grid):
    configs = load_grid(grid).configs
    assert configs
    assert [c.key for c in configs if VARIANT.unsupported_reason(c) is not None] == []


@pytest.mark.parametrize("shape, words", [
    ("b=1,h=8,hkv=1,t=4,s=64,d=96", "head_dim 96 not supported"),
    ("b=1,h=8,hkv=1,t=4,s=64,d=32", "head_dim 32 not supported"),
    ("b=70000,h=1,t=1,s=8,d=64", "batch 70000 exceeds the grid's z limit"),
    ("b=1,h=70000,t=1,s=8,d=64", "heads_kv 70000 exceeds the grid's y limit"),
])
def test_unsupported_configs_say_why(shape, words):
    reason = VARIANT.unsupported_reason(parse_shape(shape))
    assert reason is not None and words in reason, reason


def test_dtype_outside_the_declared_is_unsupported():
    from dataclasses import replace

    narrowed = replace(VARIANT, dtypes=("bf16",))
    assert "dtype f16 not supported" in narrowed.unsupported_reason(parse_shape("d=64,dtype=f16"))


def _shape(text, sm_count=132):
    return launch_shape("sm90_gather", parse_shape(text), VARIANT.switches, sm_count)


def test_decode_geometry_spreads_the_heads_and_splits_the_keys():
    """Decode at b=1 (one token): 64 heads in 4 CTAs of 16 heads x 4 D slices, each token's 512
    top-k entries in 8 splits of 64 (2 blocks each): 32 CTAs, one wave, so each keeps 6 K-only
    stages (K = V) beside Q 16 KiB, the partial-S exchange (4 warps x 2 KiB) and the list."""
    s = _shape("b=1,h=64,hkv=1,t=1,s=32768,d=512,topk=512,causal,wl=127,sink,kvshared")
    assert s.grid == (4 * 8, 1, 1) and s.block == (128, 1, 1)
    assert s.dynamic_smem == 16 * 512 * 2 + 4 * 32 * 64 + sm90_gather.LIST_BYTES + 6 * 32 * 512 * 2
    # b=16: 16 CTAs of all 64 heads split 8 ways reach the SMs: 128 CTAs of 512 threads, one
    # per SM (3 stages beside Q 64 KiB, the exchange and the list), each key row gathered once
    s16 = _shape("b=16,h=64,hkv=1,t=1,s=32768,d=512,topk=512,kvshared")
    assert s16.grid == (8, 1, 16) and s16.block == (512, 1, 1)
    assert s16.dynamic_smem == 64 * 512 * 2 + 16 * 32 * 64 + sm90_gather.LIST_BYTES + 3 * 32 * 512 * 2
    # b=64: one CTA per SM fits, so 2 splits (one wave of 128), not 4 (two waves)
    assert _shape("b=64,h=64,hkv=1,t=1,s=32768,d=512,topk=512,kvshared").grid == (2, 1, 64)
    # the 128-key window: 2 splits of 64 keys (16-head CTAs up to b=16, then 64-head ones)
    assert _shape("b=1,h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,sink,kvshared").grid == (4 * 2, 1, 1)
    assert _shape("b=16,h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,sink,kvshared").grid == (4 * 2, 1, 16)
    assert _shape("b=64,h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,sink,kvshared").grid == (2, 1, 64)
    # prefill (8k tokens) keeps 64-head CTAs unsplit
    assert _shape("b=1,h=64,hkv=1,t=8192,s=8192,d=512,causal,wl=127,sink,kvshared").grid == (8192, 1, 1)


def test_tiles_override_for_ab_runs(monkeypatch):
    """FMHACTL_GATHER_TILES forces the tiles (the profile script's A/B of the decode plans)."""
    monkeypatch.setenv(sm90_gather.TILES_ENV, "1")
    assert _shape("b=64,h=64,hkv=1,t=1,s=32768,d=512,topk=512,kvshared").grid == (4, 1, 64)
    monkeypatch.setenv(sm90_gather.TILES_ENV, "4")
    assert _shape("b=1,h=64,hkv=1,t=1,s=32768,d=512,topk=512,kvshared").block == (512, 1, 1)


def test_split_residency():
    """Splits aim at the CTAs per SM that fit: 64-head hd512 top-k CTAs fit once."""
    plan = sm90_gather.plan_for(512, 64, 1, 1, 64, True, True, 132, 512)
    assert plan.tiles == 4 and plan.resident_at_min_stages == 1 and plan.splits == 2
    assert sm90_gather.splits_for(512, 64, 32, 132, per_sm=1) == 2


@pytest.mark.parametrize("keys,ctas,block_n,sms,want", [
    (512, 4, 32, 132, 8),      # b1 top-k 512 at hd512: 2 blocks a split bound it
    (512, 16, 32, 132, 8),     # b4
    (512, 64, 32, 132, 4),     # b16: about 2 CTAs per SM
    (512, 128, 32, 132, 2),    # b32
    (512, 132, 32, 132, 1),    # the grid fills the SMs: no split
    (32768, 1, 64, 132, 32),   # a long dense range: MAX_SPLITS
    (100, 1, 64, 132, 1),      # fewer than 2 blocks of keys: no split
    (0, 1, 64, 132, 1),        # keys unknown
])
def test_split_count(keys, ctas, block_n, sms, want):
    assert sm90_gather.splits_for(keys, ctas, block_n, sms) == want


def test_keys_per_token():
    assert sm90_gather.keys_per_token(32768, 512, 127, 0) == 512  # top-k bounds it
    assert sm90_gather.keys_per_token(32768, 0, 127, 0) == 128
    assert sm90_gather.keys_per_token(100, 0, 127, 0) == 100
    assert sm90_gather.keys_per_token(32768, 0, -1, 0) == 32768  # causal only


def test_workspace_sizes():
    plan = sm90_gather.plan_for(512, 64, 1, 1, 4, True, True, 132, 512)
    assert plan.splits == 8 and plan.head_chunks == 4
    assert plan.workspace_floats(1, 64, 4) == 8 * 4 * 64 * (512 + 1)
    assert plan.counters(1, 1, 4) == 4 * 4
    one = sm90_gather.plan_for(512, 64, 1, 1, 256, True, True, 132, 512)
    assert one.splits == 1 and one.workspace_floats(1, 64, 256) == 0 and one.counters(1, 1, 256) == 0


def test_gather_split_struct_matches_its_ctypes_twin(tmp_path):
    """The generated C struct (plan header) and the runtime's ctypes class: same offsets and size."""
    import ctypes
    import shutil
    import subprocess

    from fmhactl.runtime.params import GatherSplit

    if shutil.which("g++") is None:
        pytest.skip("no host C++ compiler")
    names = [f.name for f in sm90_gather.GATHER_SPLIT.fields]
    header = VARIANT.source_path.parent / "fmha_mqa_gather_plan.h"
    prints = "\n".join(f'    printf("{n} %zu\\n", offsetof(GatherSplit, {n}));' for n in names)
    program = tmp_path / "layout.cpp"
    program.write_text(f'#include <cstddef>\n#include <cstdio>\n#include "{header}"\nint main() {{\n{prints}\n'
                       '    printf("size %zu\\n", sizeof(GatherSplit));\n}\n')
    exe = tmp_path / "layout"
    subprocess.run(["g++", "-std=c++17", str(program), "-o", str(exe)], check=True)
    got = dict(line.split() for line in subprocess.run([str(exe)], capture_output=True, text=True,
                                                         check=True).stdout.splitlines())
    want = {n: str(getattr(GatherSplit, n).offset) for n in names} | {"size": str(ctypes.sizeof(GatherSplit))}
    assert got == want


def test_kernel_reads_the_split_it_is_given():
    source = (VARIANT.source_path.parent / "fmha_mqa_gather.cuh").read_text()
    merge = (VARIANT.source_path.parent.parent / "common" / "split_merge.cuh").read_text()
    assert "const FmhaParams p, const GatherSplit s" in source
    # the shared merge: counts in once per CTA (acq_rel: no per-warp fence.sc), resets
    assert '#include "common/split_merge.cuh"' in source and "split_merge::merge_last<" in source
    assert "atom.acq_rel.gpu.global.add.u32" in merge and "*g.counter = 0u" in merge
    assert "__threadfence()" not in source + merge


def test_prefill_geometry_takes_all_64_heads_per_cta():
    s = _shape("b=1,h=64,hkv=1,t=8192,s=8192,d=512,causal,wl=127,sink,kvshared")
    assert s.grid == (8192, 1, 1) and s.block == (512, 1, 1)
    # no top-k: no list; Q 64 KiB, exchange 16 warps x 2 KiB, 4 stages of K
    assert s.dynamic_smem == 64 * 512 * 2 + 16 * 32 * 64 + 4 * 32 * 512 * 2
    # K and V apart: two stages of K + V fit beside them
    apart = _shape("b=1,h=64,hkv=1,t=8192,s=8192,d=512,causal,wl=127")
    assert apart.block == (512, 1, 1)
    assert apart.dynamic_smem == 64 * 512 * 2 + 16 * 32 * 64 + 2 * 2 * 32 * 512 * 2
    # ... but not beside a top-k list as well: 32 heads per CTA, two CTAs per token
    listed = _shape("b=1,h=64,hkv=1,t=1024,s=8192,d=512,topk=512")
    assert listed.block == (256, 1, 1) and listed.grid == (2048, 1, 1)
    assert listed.dynamic_smem <= MAX_DYNAMIC_SMEM
    # 128 heads: two CTAs per token, neighbours in the grid.
    assert _shape("b=1,h=128,hkv=1,t=8192,s=8192,d=512,causal,wl=127,kvshared").grid == (16384, 1, 1)
    # GQA 4:2 (group 2): one M tile per CTA, rows 2..15 idle.
    gqa = _shape("b=2,h=4,hkv=2,t=70,s=190,d=128,causal,wl=63,sink")
    assert gqa.grid == (70, 2, 2) and gqa.block == (32, 1, 1)


def test_small_ctas_of_a_multi_wave_grid_share_their_sm():
    """GQA 8:1 at hd128 over 130 tokens x 2 batches: 1-warp CTAs, more than one wave: 2 stages of
    K + V (69632 B: 3 CTAs per SM) instead of the 6 a lone CTA would take."""
    many = _shape("b=2,h=8,hkv=1,t=130,s=300,d=128,causal,wl=127,sink")
    assert many.block == (32, 1, 1)
    assert many.dynamic_smem == 16 * 128 * 2 + 2 * 2 * 64 * 128 * 2
    lone = _shape("b=1,h=8,hkv=1,t=100,s=300,d=128,causal,wl=127,sink")  # 100 CTAs: one wave
    assert lone.dynamic_smem == 16 * 128 * 2 + 6 * 2 * 64 * 128 * 2


def test_the_sm_count_decides_the_tiles():
    text = "b=1,h=64,hkv=1,t=100,s=300,d=256,causal"
    assert _shape(text, sm_count=132).block == (32 * 1 * 2, 1, 1)  # 100 CTAs of 64 heads < 132 SMs
    assert _shape(text, sm_count=64).block == (32 * 4 * 2, 1, 1)
    assert _shape(text, sm_count=None).block == (64, 1, 1)  # None: an H100's 132


@pytest.mark.parametrize("d", sm90_gather.HEAD_DIMS)
@pytest.mark.parametrize("group", [16, 32, 64, 128])
@pytest.mark.parametrize("kv_shared", [False, True])
@pytest.mark.parametrize("topk", [0, 512])
@pytest.mark.parametrize("seq_q", [1, 4096])
def test_every_launch_fits_and_keeps_two_stages(d, group, kv_shared, topk, seq_q):
    features = (",kvshared" if kv_shared else "") + (f",topk={topk}" if topk else "")
    cfg = parse_shape(f"b=1,h={group},hkv=1,t={seq_q},s=8192,d={d}" + features)
    keys = sm90_gather.keys_per_token(8192, topk, -1, -1)
    plan = sm90_gather.plan_for(d, group, 1, seq_q, 1, kv_shared, bool(topk), 132, keys)
    assert sm90_gather.MIN_STAGES <= plan.stages <= sm90_gather.MAX_STAGES
    assert plan.smem_bytes <= MAX_DYNAMIC_SMEM
    assert plan.threads <= sm90_gather.max_threads(d) <= 1024
    assert plan.fixed_bytes % 16 == 0 and plan.stage_bytes % 16 == 0  # cp.async 16-byte destinations
    assert limit_reason("sm90_gather", cfg, {}) is None
    shape = launch_shape("sm90_gather", cfg, {}, 132)
    assert shape.dynamic_smem == plan.smem_bytes and shape.block == (plan.threads, 1, 1)
    assert shape.grid == plan.grid(seq_q, 1, 1)
    # the merge keeps rows x splits fp32 weights in the drained ring
    assert plan.rows * sm90_gather.MAX_SPLITS * 4 <= plan.stages * plan.stage_bytes


def test_kernel_derives_the_same_stage_count_from_its_smem():
    """The kernel computes stages = min(kMaxStages, (dynamic SMEM - Q - exchange - list) / stage
    bytes): the terms must be the plan's (rows_cta * D * 2; tiles * slices * BN * 64 with several
    slices; kListBytes with top-k; BN * D * 2 per operand)."""
    source = (VARIANT.source_path.parent / "fmha_mqa_gather.cuh").read_text()
    assert "const int q_bytes = rows_cta * S::kRowBytes;" in source
    assert "const int x_bytes = S::kSlices > 1 ? tiles * S::kSlices * kBlockN * 64 : 0;" in source
    assert "const int list_bytes = sparse ? kListBytes : 0;" in source
    assert "min(kMaxStages, static_cast<int>((dyn_smem - q_bytes - x_bytes - list_bytes) / stage_bytes))" in source
    assert "kv_shared ? kv_bytes : 2 * kv_bytes" in source
    for d in sm90_gather.HEAD_DIMS:
        for topk in (False, True):
            plan = sm90_gather.GatherPlan(d, 64, 2, False, topk)
            assert (plan.smem_bytes - plan.fixed_bytes) // plan.stage_bytes == plan.stages
            assert plan.fixed_bytes == plan.q_bytes + (2 * sm90_gather.slices(d) * plan.block_n * 64
                                                       if sm90_gather.slices(d) > 1 else 0) + (
                sm90_gather.LIST_BYTES if topk else 0)
