"""The decode path on a CPU: split choice, the DecodeSplit ABI, the plan's per-call bookkeeping
(recording driver), routing, the kernels' build, and the kernels' register-fragment mapping
replayed lane by lane against the PTX layouts of mma.m16n8k16 (the GPU tests run the real thing)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import pytest
import torch

from fmhactl import paths
from fmhactl.plans import sm90_split_decode as split_plan
from fmhactl.torch import decode


@pytest.mark.parametrize("batch, heads_kv, groups, seq_k, sms", [
    (1, 4, 1, 2048, 132), (1, 8, 1, 32768, 132), (8, 8, 1, 8192, 132), (1, 1, 1, 1, 132), (1, 1, 1, 65, 132),
    (1, 4, 4, 32768, 132), (64, 32, 8, 4096, 132), (1, 1, 1, 10 ** 6, 132), (1, 2, 1, 1000, 1),
])
def test_splits_cover_every_key_once_and_none_is_empty(batch, heads_kv, groups, seq_k, sms):
    n, per = decode.choose_splits(batch, heads_kv, groups, seq_k, sms)
    assert 1 <= n <= decode.MAX_SPLITS and per % decode.SPLIT_KEY_MULTIPLE == 0
    assert n * per >= seq_k > (n - 1) * per  # covered, and the last split has a key
    if n > 1:
        assert per >= decode.MIN_SPLIT_KEYS


def test_split_count_follows_the_sm_count_and_the_cache_length():
    few_heads = decode.choose_splits(1, 4, 1, 32768, 132)[0]
    many_heads = decode.choose_splits(64, 8, 1, 32768, 132)[0]
    short = decode.choose_splits(1, 4, 1, 256, 132)[0]
    assert few_heads * 4 >= 0.9 * 132  # a 4-KV-head step still puts a CTA on (almost) every SM
    assert many_heads == 1 and short <= -(-256 // decode.MIN_SPLIT_KEYS)  # no split shorter than the minimum


def test_balance_caps_the_splits_of_few_kv_heads_over_a_long_cache():
    """The merge's cost per split (balanced_splits): a step with 1-2 KV heads at 16k-32k keys stops
    near sqrt(seq_k / (2 max(rows, 8))) splits instead of 2 CTAs a SM (session 26, H200: b1 h16:2
    S16k 128 splits 38 us, 32 splits 23 us), fewer rows counting as 8; a step with many (batch, KV
    head) pairs keeps its cap; a short cache keeps MIN_SPLIT_KEYS-long splits."""
    assert decode.balanced_splits(16384, 8) == 32 and decode.balanced_splits(16384, 2) == 32
    assert decode.balanced_splits(16384, 16) == 23 and decode.balanced_splits(16385, 8) == 33
    assert decode.choose_splits(1, 2, 1, 16384, 132, 2, rows=8) == (32, 512)
    assert decode.choose_splits(1, 1, 1, 32768, 132, 0, rows=8) == (43, 768)  # 46 asked, 768-key splits; 256 before
    assert decode.choose_splits(8, 8, 1, 8192, 132, 2, rows=4)[0] == 4  # the wave cap binds first
    assert decode.choose_splits(1, 8, 1, 2048, 132, 2, rows=4) == (11, 192)  # 12 asked (16 by length alone)
    assert decode.choose_splits(1, 8, 1, 1024, 132, 2, rows=4) == (8, 128)  # by length
    for seq_k in (1, 2, 15, 16, 17, 10 ** 6):
        m = decode.balanced_splits(seq_k, 8)
        assert m * m * 16 >= seq_k and (m - 1) ** 2 * 16 < seq_k


def test_split_count_keeps_the_grid_in_one_wave_of_resident_ctas():
    # b8 x 8 KV heads: rounding up asks for 5 splits (320 CTAs); at 2 resident CTAs a SM (hd128's
    # ring) 56 of them would form a second wave, so 4 splits (256 CTAs) of twice the keys
    assert decode.choose_splits(8, 8, 1, 8192, 132)[0] == 5
    assert decode.choose_splits(8, 8, 1, 8192, 132, resident=2) == (4, 2048)
    assert decode.choose_splits(8, 8, 1, 8192, 132, resident=3)[0] == 5  # hd64: 320 fit in one wave
    assert decode.choose_splits(1, 8, 1, 32768, 132, resident=2) == decode.choose_splits(1, 8, 1, 32768, 132)
    assert decode.choose_splits(64, 32, 8, 4096, 132, resident=2)[0] == 1  # more than a wave anyway: no split


def test_row_groups_pack_query_heads_and_tokens():
    assert decode.row_groups(1, 32, 8) == 1  # 4 heads -> 4 of 16 rows
    assert decode.row_groups(16, 32, 8) == 4  # 64 rows
    assert decode.row_groups(3, 8, 8) == 1 and decode.row_groups(17, 8, 1) == 9


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a host C compiler")
def test_decode_split_ctypes_matches_the_c_header(tmp_path):
    names = [name for name, _ in decode.DecodeSplit._fields_]
    prints = "\n".join(f'    printf("{n} %zu\\n", offsetof(struct DecodeSplit, {n}));' for n in names)
    program = tmp_path / "abi.c"
    # every compiled head dim the .cu instantiates (the header's X-macro list), with its ring and residency
    program.write_text('#include <stdio.h>\n#include <stddef.h>\n#include "sm90/fmha_decode_split.h"\n'
                       '#define PRINT_DIM(D) printf("stages%d %d\\nctas%d %d\\n", D, FMHA_DECODE_STAGES_D##D, D, '
                       'FMHA_DECODE_CTAS_D##D);\n'
                       f"int main(void) {{\n{prints}\n"
                       '    printf("sizeof %zu\\n", sizeof(struct DecodeSplit));\n'
                       '    FMHA_DECODE_KERNEL_HEAD_DIMS(PRINT_DIM)\n'
                       '    printf("min_dim %d\\nstep %d\\n", FMHA_DECODE_MIN_HEAD_DIM, FMHA_DECODE_HEAD_DIM_STEP);\n'
                       '    return 0;\n}\n')
    exe = tmp_path / "abi"
    subprocess.run(["gcc", "-std=c11", "-I", str(paths.kernels_dir()), str(program), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    printed = dict(line.split() for line in out.splitlines())
    for name in names:
        assert int(printed[name]) == getattr(decode.DecodeSplit, name).offset, name
    assert int(printed["sizeof"]) == ctypes.sizeof(decode.DecodeSplit)
    compiled = sorted(int(key[len("stages"):]) for key in printed if key.startswith("stages"))
    assert tuple(compiled) == split_plan.KERNEL_HEAD_DIMS
    for d in decode.HEAD_DIMS:  # the ring the host sizes the dynamic SMEM for, the residency it splits for
        kd = decode.kernel_head_dim(d)
        assert int(printed[f"stages{kd}"]) == decode.RING_STAGES[d]
        assert int(printed[f"ctas{kd}"]) == decode.RESIDENT_CTAS[d]
    assert decode.HEAD_DIMS == tuple(range(int(printed["min_dim"]), compiled[-1] + 1, int(printed["step"])))


def test_served_head_dims_map_to_the_next_compiled_kernel():
    assert {32, 64, 80, 96, 128, 256} <= set(decode.HEAD_DIMS)
    assert all(d % 16 == 0 and 32 <= d <= 256 for d in decode.HEAD_DIMS)
    for d in decode.HEAD_DIMS:
        kd = decode.kernel_head_dim(d)
        assert kd in split_plan.KERNEL_HEAD_DIMS and d <= kd
        assert not any(d <= x < kd for x in split_plan.KERNEL_HEAD_DIMS)  # the narrowest that fits
        # the registry's {head_dim_pow2} entry of the variant names the kernel the host loads
        assert decode.variant().entry("bf16", d) == f"fmha_decode_split_bf16_d{kd}"
        assert decode.ring_smem_bytes(d) == decode.ring_smem_bytes(kd)
        assert decode.serves(1, d, (9, 0), torch.bfloat16) and decode.serves(16, d, (9, 0), torch.float16)
    assert [decode.kernel_head_dim(d) for d in (32, 48, 64, 80, 96, 112, 128, 144, 192, 256)] == \
        [64, 64, 64, 128, 128, 128, 128, 256, 256, 256]
    for d in (16, 40, 72, 264, 512):  # not multiples of 16 in 32..256: the other paths
        assert not decode.serves(1, d, (9, 0), torch.bfloat16)
    assert not decode.serves(17, 96, (9, 0), torch.bfloat16) and not decode.serves(1, 96, (10, 0), torch.bfloat16)
    assert decode.RING_STAGES[256] == 3 and decode.RESIDENT_CTAS[256] == 1
    assert decode.ring_smem_bytes(256) == 4 * 3 * 2 * 16 * 256 * 2  # 192 KiB: one CTA a SM


class RecordingDriver:
    def __init__(self) -> None:
        self.launches: list[tuple] = []
        self.smem: list[int] = []

    def launch(self, function, grid, block, dynamic_smem, stream, kernel_params) -> None:
        from fmhactl.runtime.params import FmhaParams

        ptrs = ctypes.cast(kernel_params, ctypes.POINTER(ctypes.c_void_p))
        params = FmhaParams.from_buffer_copy(ctypes.string_at(ptrs[0], ctypes.sizeof(FmhaParams)))
        split = decode.DecodeSplit.from_buffer_copy(ctypes.string_at(ptrs[1], ctypes.sizeof(decode.DecodeSplit)))
        self.launches.append((function, grid, block, stream, params, split))
        self.smem.append(dynamic_smem)

    def enqueue(self, head, stream, kernel_params) -> None:
        """RawDriver.enqueue: the plan's launch_head() unpacked, then as launch()."""
        from fmhactl.runtime.driver import unpack_head

        self.launch(*unpack_head(head), stream, kernel_params)


def _plan(batch=1, heads=8, heads_kv=2, seq_q=1, head_dim=128, sms=132, lse=True,
          device_index=0, cluster_fn=0, max_clusters=0) -> decode.DecodePlan:
    from fmhactl.runtime.params import FmhaParams

    params, split = FmhaParams(), decode.DecodeSplit()
    params.batch, params.heads, params.heads_kv, params.seq_q, params.head_dim = batch, heads, heads_kv, seq_q, head_dim
    kernel_params = (ctypes.c_void_p * 2)(ctypes.addressof(params), ctypes.addressof(split))
    return decode.DecodePlan(
        device_index=device_index, device=torch.device("cpu"), dtype=torch.bfloat16, split_fn=11, combine_fn=22,
        params=params,
        split=split, kernel_params=kernel_params, out_size=(batch, heads, seq_q, head_dim),
        out_stride=(seq_q * heads * head_dim, head_dim, heads * head_dim, 1),
        lse_size=(batch, heads, seq_q) if lse else None, rows_total=batch * heads * seq_q,
        base_ctas=(batch * heads_kv, decode.row_groups(seq_q, heads, heads_kv)),
        group_rows=decode.group_rows(seq_q, heads, heads_kv), head_dim=head_dim, seq_q=seq_q,
        seq_dim=2,
        sm_count=sms, cluster_fn=cluster_fn, max_clusters=max_clusters)


def _kv_cache(batch, heads_kv, length, capacity, head_dim=128):
    """K/V as a static cache's view: (batch, heads_kv, length, dim) inside a longer buffer."""
    full = torch.zeros(batch, heads_kv, capacity, head_dim, dtype=torch.bfloat16)
    return full[:, :, :length]


@pytest.mark.parametrize("fused", [True, False])
def test_a_growing_cache_changes_length_strides_and_splits_per_call(fused, monkeypatch):
    monkeypatch.setitem(decode._state, "fused", fused)
    monkeypatch.setattr(decode, "_counters", {})
    plan, driver = _plan(), RecordingDriver()
    q = torch.zeros(1, 8, 1, 128, dtype=torch.bfloat16)
    for length in (60, 4096, 4097):
        k, v = _kv_cache(1, 2, length, 8192), _kv_cache(1, 2, length, 8192)
        out, lse = plan.run(q, k, v, driver, stream=7)
        assert out.shape == (1, 8, 1, 128) and lse.shape == (1, 8, 1)
    n_splits = [decode.choose_splits(2, 1, 1, n, 132, decode.RESIDENT_CTAS[128], rows=4)[0] for n in (60, 4096, 4097)]
    assert n_splits[0] == 1 and n_splits[2] > 1
    # one launch without a split; with splits one (fused merge) or two (a merge launch)
    assert len(driver.launches) == (1 + 1 + 1 if fused else 1 + 2 + 2)
    split_launches = [x for x in driver.launches if x[0] == 11]
    counters = decode._counters.get((None, 7), [])
    for (function, grid, block, stream, params, split), length, n in zip(split_launches, (60, 4096, 4097), n_splits):
        assert grid == (1, n, 2) and block == (128, 1, 1) and stream == 7
        assert params.seq_k == length and split.n_splits == n
        assert (params.k_batch_stride, params.k_seq_stride, params.k_head_stride) == (2 * 8192 * 128, 128, 8192 * 128)
        assert (split.o_partial is None) == (n == 1)
        if fused and n > 1:  # zeroed counters of this stream, at least one per (z, row group)
            assert split.counters == counters[-1].data_ptr() and counters[-1].numel() >= 2
            assert not counters[-1].any()
        else:
            assert split.counters is None
    # the split kernel's ring: 4 warps x 3 stages x (K + V) x 16 keys x 128 d x 2 bytes; the merge
    # launch stages the partials in as much
    assert all(smem == 96 * 1024 for smem in driver.smem)
    combine = [x for x in driver.launches if x[0] == 22]
    assert all(c[1] == (1, 1, 2) for c in combine)  # one CTA per (row group, batch x KV head)
    assert len(combine) == (0 if fused else 2)


@pytest.mark.parametrize("heads_kv, max_clusters", [(1, 30), (1, 2), (4, 30), (4, 7), (4, 3), (4, 22)])
def test_the_fused_merge_takes_the_cluster_kernel_where_it_has_enough_splits(heads_kv, max_clusters, monkeypatch):
    """With counters (the fused merge), the cluster kernel (33) runs where its own split choice
    (balance divided by CLUSTER_BALANCE_DIVISOR, capped at the clusters the GPU holds at once) has
    CLUSTER_MIN_SPLITS splits or more and a grid of at least CLUSTER_MIN_SHARE of the plain
    kernel's splits (CLUSTER_HEAVY_MIN_SHARE where the plain merge is heavy), and the plain merge
    would read CLUSTER_MIN_PARTIAL_ROWS rows or more, with grid.y rounded up to a multiple of CLUSTER and an LSE
    slot per CTA; otherwise, with no counters (a capture with no spare: the merge launch) or a
    raised threshold, the plain split kernel (11) runs with its own choice. A growing cache keeps
    each answer on the range the plan holds it for."""
    monkeypatch.setitem(decode._state, "fused", True)
    monkeypatch.setattr(decode, "_counters", {})
    monkeypatch.setattr(decode, "_spares", {})
    plan, driver = _plan(heads=8 * heads_kv, heads_kv=heads_kv, cluster_fn=33, max_clusters=max_clusters), \
        RecordingDriver()
    q = torch.zeros(1, 8 * heads_kv, 1, 128, dtype=torch.bfloat16)
    lengths = (60, 700, 2000, 4096, 4097, 4500, 20000, 32768)
    for length in lengths:
        kv = _kv_cache(1, heads_kv, length, 40000)
        plan.run(q, kv, kv, driver, stream=7)
    c, resident = decode.CLUSTER, decode.RESIDENT_CTAS[128]
    cap = max_clusters // heads_kv * c
    seen = set()
    for (function, grid, _, _, params, split), length in zip(driver.launches, lengths):
        n, per = decode.choose_splits(heads_kv, 1, 1, length, 132, resident, rows=8)
        n_c, per_c = decode.choose_splits(heads_kv, 1, 1, length, 132, resident, 8, decode.CLUSTER_BALANCE_DIVISOR,
                                          max(1, cap))
        if -(-n_c // c) * c * heads_kv < decode.CLUSTER_MIN_CTAS:  # a small grid: the short splits where more
            short_cap = min(cap, -(-decode.CLUSTER_MIN_CTAS // (heads_kv * c)) * c)
            s_n, s_per = decode.choose_splits(heads_kv, 1, 1, length, 132, resident, 8, decode.CLUSTER_SHORT_DIVISOR,
                                              max(1, short_cap), decode.CLUSTER_SHORT_SPLIT_KEYS)
            if s_n > n_c:
                n_c, per_c = s_n, s_per
                seen.add("short")
        heavy = n * 8 >= decode.CLUSTER_HEAVY_MERGE_ROWS
        share_num, share_den = decode.CLUSTER_HEAVY_MIN_SHARE if heavy else decode.CLUSTER_MIN_SHARE
        clustered = (cap >= decode.CLUSTER_MIN_SPLITS and n_c >= decode.CLUSTER_MIN_SPLITS
                     and n * 8 >= decode.CLUSTER_MIN_PARTIAL_ROWS  # 8 valid rows a row group
                     and -(-n_c // c) * c * share_den >= n * share_num)
        seen.add((n > 1, clustered))
        if clustered:
            assert function == 33 and grid == (1, -(-n_c // c) * c, heads_kv)
            assert grid[1] * heads_kv // c <= max_clusters  # every cluster resident at once
            assert (split.n_splits, split.split_keys) == (n_c, per_c)
        else:
            assert function == 11 and grid == (1, n, heads_kv) and (split.n_splits, split.split_keys) == (n, per)
        assert params.seq_k == length
        if split.n_splits > 1:  # the LSE slots follow the O partials; the counters: CLUSTER per row group
            assert split.lse_partial - split.o_partial == 4 * split.n_splits * plan.rows_total * 128
            assert split.counters == decode._counters[(None, 7)][-1].data_ptr()
            assert decode._counters[(None, 7)][-1].numel() >= c * heads_kv
    if cap < decode.CLUSTER_MIN_SPLITS:  # fewer clusters than KV heads: never the cluster kernel
        assert (True, True) not in seen
    if max_clusters >= 30:  # room for every cluster: some lengths take it, and short splits where few CTAs
        assert (True, True) in seen
        assert "short" in seen
    if (heads_kv, max_clusters) == (1, 30):  # b1 h8:1 S4k: 64 CTAs of 64 keys, not 24 of 192 (session 29)
        function, grid, _, _, _, split = driver.launches[lengths.index(4096)]
        assert (function, grid, split.n_splits, split.split_keys) == (33, (1, 64, 1), 64, 64)
    assert (False, False) in seen  # one split: no merge at all
    monkeypatch.setattr(decode, "_capturing", lambda device: True)  # a new stream, no spare: the merge launch
    kv = _kv_cache(1, heads_kv, 32768, 40000)
    plan.run(q, kv, kv, driver, stream=9)
    n, per = decode.choose_splits(heads_kv, 1, 1, 32768, 132, resident, rows=8)
    assert [x[0] for x in driver.launches[-2:]] == [11, 22] and driver.launches[-2][5].n_splits == n
    monkeypatch.setattr(decode, "_capturing", lambda device: False)
    monkeypatch.setattr(decode, "CLUSTER_MIN_SPLITS", 1 << 30)
    plan.run(q, kv, kv, driver, stream=7)
    assert driver.launches[-1][0] == 11 and driver.launches[-1][5].n_splits == n
    assert driver.launches[-1][5].counters is not None


@pytest.mark.parametrize("head_dim", [32, 64, 96, 128, 256])
@pytest.mark.parametrize("valid_rows", [1, 3, 8, 16])
def test_the_cluster_slices_cover_every_item_once_and_each_rank_merges_its_own_slots(head_dim, valid_rows):
    """cluster_merge as written: rank r of a cluster takes items [r per, (r + 1) per) of the row
    group (per = ceil(n_items / CLUSTER)), writes them to o_partial[cluster] and its LSE to slot
    blockIdx.y = cluster * CLUSTER + r; the last CTA of rank r merges that slice from slots
    i * CLUSTER + r of every cluster i (combine_rows' lse_step, lse_offset). The slices partition
    the items, and each merger reads only what CTAs of its own rank (those its counter counts) wrote."""
    c, vec = decode.CLUSTER, head_dim // 4
    n_items = valid_rows * vec
    per = -(-n_items // c)
    owner: dict[int, int] = {}
    for rank in range(c):
        lo = min(n_items, rank * per)
        hi = min(n_items, lo + per)
        for item in range(lo, hi):
            assert item not in owner
            owner[item] = rank
    assert sorted(owner) == list(range(n_items))
    for n_clusters in (2, 3, 32):
        written = {cluster * c + rank: rank for cluster in range(n_clusters) for rank in range(c)}
        for rank in range(c):
            read = [i * c + rank for i in range(n_clusters)]
            assert all(written[slot] == rank for slot in read) and len(set(read)) == n_clusters
        assert n_clusters * c <= decode.MAX_SPLITS + c  # the weights' buffer holds the clusters' count


@pytest.mark.parametrize("head_dim", [32, 48, 80, 96, 192, 256])
def test_new_head_dims_launch_their_kernel_with_the_call_s_columns(head_dim, monkeypatch):
    """A plan at a head dim beyond 64/128: the ring SMEM of its compiled kernel (64/128/256), the
    split count for that kernel's residency, the output and the partials at the call's own head dim."""
    monkeypatch.setitem(decode._state, "fused", True)
    monkeypatch.setattr(decode, "_counters", {})
    plan, driver = _plan(head_dim=head_dim), RecordingDriver()
    q = torch.zeros(1, 8, 1, head_dim, dtype=torch.bfloat16)
    k = _kv_cache(1, 2, 4099, 4099, head_dim)
    out, lse = plan.run(q, k, k, driver, stream=7)
    assert out.shape == (1, 8, 1, head_dim) and lse.shape == (1, 8, 1)
    (_, grid, _, _, params, split), = driver.launches
    n, per = decode.choose_splits(2, 1, 1, 4099, 132, decode.RESIDENT_CTAS[head_dim], rows=4)
    assert grid == (1, n, 2) and (split.n_splits, split.split_keys) == (n, per) and n > 1
    assert params.head_dim == head_dim  # the kernel's runtime column count (masked past it)
    assert split.lse_partial - split.o_partial == 4 * n * plan.rows_total * head_dim  # partial rows: head_dim floats
    assert driver.smem == [decode.ring_smem_bytes(decode.kernel_head_dim(head_dim))]
    if head_dim == 256:  # one CTA a SM: the grid stays within one wave of them
        assert n * 2 <= 132


def test_unreadable_strides_and_addresses_take_the_general_path():
    plan, driver = _plan(), RecordingDriver()
    q = torch.zeros(1, 8, 1, 128, dtype=torch.bfloat16)
    odd = torch.zeros(1, 2, 50, 129, dtype=torch.bfloat16)[..., :128]  # row stride 129: not 16-byte steps
    assert plan.run(q, odd, odd, driver, stream=7) is None
    buf = torch.zeros(1 + 2 * 50 * 128, dtype=torch.bfloat16)
    shifted = buf[1:].view(1, 2, 50, 128)  # base 2 bytes off
    assert plan.run(q, shifted, shifted, driver, stream=7) is None
    assert not driver.launches


def test_cpu_tensors_never_reach_the_decode_path():
    from fmhactl.torch import fastpath

    q = torch.zeros(1, 8, 1, 64, dtype=torch.bfloat16)
    k = torch.zeros(1, 2, 40, 64, dtype=torch.bfloat16)
    assert fastpath.attention(q, k, k, False, None, False, "bhsd") is None


def test_kernels_build_for_sm90a_without_spills(tmp_path, monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc")
    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build

    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path))
    result = build(decode.variant(), BuildTarget(decode.ARCH))
    names = {k.kernel for k in result.kernels}
    for dtype in ("bf16", "f16"):
        for d in decode.HEAD_DIMS:  # every served head dim's kernels (its own, or the next wider masked)
            kd = decode.kernel_head_dim(d)
            assert {f"fmha_decode_{kind}_{dtype}_d{kd}" for kind in ("split", "combine", "cluster")} <= names
    assert len(names) == 3 * 2 * len(split_plan.KERNEL_HEAD_DIMS)
    assert all(k.spill_stores == 0 and k.stack_bytes == 0 and k.registers <= 255 for k in result.kernels)
    # the residency the split heuristic counts on: registers and SMEM (ring + static + the 1 KiB the
    # hardware keeps per CTA, of 228 KiB a SM) for RESIDENT_CTAS, and SMEM for no more
    for k in result.kernels:
        if "_split_" in k.kernel or "_cluster_" in k.kernel:
            d = int(k.kernel.rsplit("_d", 1)[1])
            ctas, per_cta = decode.RESIDENT_CTAS[d], decode.ring_smem_bytes(d) + k.static_smem + 1024
            assert k.registers * 32 * decode.WARPS * ctas <= 65536, k
            assert ctas * per_cta <= 228 * 1024 < (ctas + 1) * per_cta, k
            assert k.static_smem <= split_plan.STATIC_SMEM, k  # the table's import-time SMEM checks hold


@pytest.mark.parametrize("head_dim", split_plan.KERNEL_HEAD_DIMS)
def test_ring_layout_reads_what_the_copies_wrote_without_bank_conflicts(head_dim):
    """fmha_decode.cuh's SMEM blocks: k_offset / v_offset (where the cp.async copies put chunk `ch`
    of row `row`) against the offsets the fragment reads compute, and the banks of each quarter
    warp's 16-byte accesses (8 lanes, 128 bytes: conflict-free when the 8 chunks differ mod 8)."""
    d2 = 2 * head_dim

    def k_offset(row, ch):
        return row * d2 + ((ch ^ ((row & 1) << 2)) << 4)

    def v_offset(row, ch):
        return row * d2 + ((ch ^ (((row >> 1) & 3) << 1)) << 4)

    def conflict_free(offsets):  # offsets[lane]
        return all(len({(o % 128) // 16 for o in offsets[8 * p:8 * p + 8]}) == 8 for p in range(4))

    chunks = head_dim // 8
    for it in range(16 * chunks // 32):  # the copies: lane -> (row, chunk)
        rows = [it * (32 // chunks) + lane // chunks for lane in range(32)]
        assert conflict_free([k_offset(r, lane % chunks) for lane, r in enumerate(rows)])
        assert conflict_free([v_offset(r, lane % chunks) for lane, r in enumerate(rows)])
    assert sorted(k_offset(r, c) for r in range(16) for c in range(chunks)) == list(range(0, 16 * d2, 16))
    assert sorted(v_offset(r, c) for r in range(16) for c in range(chunks)) == list(range(0, 16 * d2, 16))
    for i in range(2):
        for c in range(head_dim // 32):
            got = []
            for lane in range(32):
                g, q4 = lane // 4, lane % 4
                k_lane, k_swz = g * d2 + (q4 << 4), (g & 1) << 6
                got.append(k_lane + i * 8 * d2 + ((c << 6) ^ k_swz))
                assert got[-1] == k_offset(8 * i + g, 4 * c + q4)  # key 8i + g, d 32c + 8q4 .. +7
            assert conflict_free(got)
    for x in range(4):
        for e in range(head_dim // 64):
            got = []
            for lane in range(32):
                g, q4 = lane // 4, lane % 4
                v_lane = 2 * q4 * d2 + ((g ^ (2 * q4)) << 4)
                got.append(v_lane + ((x & 1) + 8 * (x >> 1)) * d2 + e * 128)
                assert got[-1] == v_offset(2 * q4 + (x & 1) + 8 * (x >> 1), 8 * e + g)  # d 64e + 8g .. +7
            assert conflict_free(got)


# ---- the register-fragment mapping, replayed lane by lane ---------------------------------------
# PTX ISA, mma.m16n8k16 with 16-bit A/B and f32 C (g = lane / 4, q = lane % 4; a "word" holds two
# 16-bit elements, the lower index in the low half):
def _a_pos(lane: int, reg: int, half: int) -> tuple[int, int]:
    return lane // 4 + 8 * (reg & 1), 2 * (lane % 4) + half + 8 * (reg >> 1)


def _b_pos(lane: int, reg: int, half: int) -> tuple[int, int]:
    return 2 * (lane % 4) + half + 8 * reg, lane // 4


def _c_pos(lane: int, i: int) -> tuple[int, int]:
    return lane // 4 + 8 * (i >> 1), 2 * (lane % 4) + (i & 1)


def _mma(a: list, b: list, c: list) -> None:
    """c[lane][i] += (A @ B) at the lane's positions; a[lane][reg], b[lane][reg] are (lo, hi) words."""
    A, B = torch.zeros(16, 16, dtype=torch.float64), torch.zeros(16, 8, dtype=torch.float64)
    for lane in range(32):
        for reg in range(4):
            for half in range(2):
                A[_a_pos(lane, reg, half)] = a[lane][reg][half]
        for reg in range(2):
            for half in range(2):
                B[_b_pos(lane, reg, half)] = b[lane][reg][half]
    C = A @ B
    for lane in range(32):
        for i in range(4):
            c[lane][i] += float(C[_c_pos(lane, i)])


def _u4(row: torch.Tensor, start: int) -> list[tuple[float, float]]:
    """A 16-byte load: 8 consecutive elements as 4 words."""
    return [(float(row[start + 2 * w]), float(row[start + 2 * w + 1])) for w in range(4)]


def _prmt(x: tuple, y: tuple, high: bool) -> tuple:
    """__byte_perm(x, y, 0x5410) = (x.lo, y.lo); 0x7632 = (x.hi, y.hi)."""
    return (x[1], y[1]) if high else (x[0], y[0])


@pytest.mark.parametrize("head_dim, dim", [(64, 64), (128, 128), (256, 256), (64, 32), (64, 48), (128, 80),
                                           (128, 96), (256, 144), (256, 192), (256, 240)])
def test_fragment_mapping_computes_q_kt_and_p_v(head_dim, dim):
    """The kernel's loads and operand choices (fmha_decode.cuh, one warp, one 16-key block) give
    S = Q K^T and O = P V with the output column map d = 64e + 8(2q + x) + j. A call at dim < the
    compiled head_dim (masked): Q's chunks past dim load as zeros, K's are zero-filled in the ring,
    V's are never copied (stale SMEM, NaN here): S and O's first dim columns are still exact."""
    gen = torch.Generator().manual_seed(0)
    Q0, K0, V0 = (torch.randn(16, dim, generator=gen, dtype=torch.float64) for _ in range(3))
    Q, K = (torch.nn.functional.pad(t, (0, head_dim - dim)) for t in (Q0, K0))
    V = torch.cat([V0, torch.full((16, head_dim - dim), float("nan"), dtype=torch.float64)], dim=1)
    P = torch.rand(16, 16, generator=gen, dtype=torch.float64)
    S = [[[0.0] * 4 for _ in range(32)] for _ in range(2)]  # per QK n-tile i: c[lane][4]
    for c in range(head_dim // 32):
        for i in range(2):
            a0, a1, b0, b1 = [], [], [], []
            for lane in range(32):
                g, q4 = lane // 4, lane % 4
                qa, qb = _u4(Q[g], c * 32 + q4 * 8), _u4(Q[g + 8], c * 32 + q4 * 8)
                kf = _u4(K[8 * i + g], c * 32 + q4 * 8)
                a0.append([qa[0], qb[0], qa[1], qb[1]]), b0.append([kf[0], kf[1]])
                a1.append([qa[2], qb[2], qa[3], qb[3]]), b1.append([kf[2], kf[3]])
            _mma(a0, b0, S[i])
            _mma(a1, b1, S[i])
    want_s = Q0 @ K0.T
    for i in range(2):
        for lane in range(32):
            for x in range(4):
                row, col = _c_pos(lane, x)
                assert S[i][lane][x] == pytest.approx(float(want_s[row, 8 * i + col]), abs=1e-9)
    # PV: P from "S accumulators" holding P, V rows kb + 2q + {0, 1, 8, 9}.
    O = torch.zeros(16, head_dim, dtype=torch.float64)
    for e in range(head_dim // 64):
        for j in range(8):
            a, b, acc = [], [], [[0.0] * 4 for _ in range(32)]
            for lane in range(32):
                g, q4 = lane // 4, lane % 4
                pr = [[float(P[g + 8 * (x >> 1), 8 * i + 2 * q4 + (x & 1)]) for x in range(4)] for i in range(2)]
                a.append([(pr[0][0], pr[0][1]), (pr[0][2], pr[0][3]), (pr[1][0], pr[1][1]), (pr[1][2], pr[1][3])])
                vf = [_u4(V[2 * q4 + (x & 1) + 8 * (x >> 1)], e * 64 + g * 8) for x in range(4)]
                b.append([_prmt(vf[0][j >> 1], vf[1][j >> 1], bool(j & 1)),
                          _prmt(vf[2][j >> 1], vf[3][j >> 1], bool(j & 1))])
            _mma(a, b, acc)
            for lane in range(32):
                g, q4 = lane // 4, lane % 4
                for r in range(2):
                    for x in range(2):
                        O[g + 8 * r, e * 64 + 8 * (2 * q4 + x) + j] = acc[lane][2 * r + x]
    assert torch.allclose(O[:, :dim], P @ V0, atol=1e-9)


def _choose_splits_as_written(batch, heads_kv, groups, seq_k, sm_count, resident=0, rows=16, divisor=1,
                              cap_limit=256, min_keys=None):
    """choose_splits as it read before split_range shared its cap (_split_cap), with the balance
    term counted up by squares (not isqrt): the sweeps' reference."""
    base = max(1, batch * heads_kv * groups)
    wanted = -(-decode.CTAS_PER_SM * max(1, sm_count) // base)
    if resident > 0:
        wanted = min(wanted, max(1, resident * max(1, sm_count) // base))
    by_length = max(1, -(-seq_k // (decode.MIN_SPLIT_KEYS if min_keys is None else min_keys)))
    balanced = 1
    while balanced * balanced * max(1, decode.BALANCE_KEYS_PER_ROW * max(rows, decode.BALANCE_MIN_ROWS) // divisor) \
            < seq_k:
        balanced += 1
    n = max(1, min(wanted, by_length, balanced, decode.MAX_SPLITS, cap_limit))
    split_keys = -(-seq_k // n)
    split_keys = -(-split_keys // decode.SPLIT_KEY_MULTIPLE) * decode.SPLIT_KEY_MULTIPLE
    return -(-seq_k // split_keys), split_keys


# (2, 100): MIN_SPLIT_KEYS not a multiple of 64 (no environment gives it; split_range holds anyway)
@pytest.mark.parametrize("knobs", [None, (4, 64), (1, 512), (3, 192), (2, 100)])
def test_split_range_holds_the_split_choice_for_every_length_in_it(knobs, monkeypatch):
    """For every KV length up to LIMIT, split_range gives choose_splits' answer and a range inside
    the run of lengths around it with that same answer (the runs read off the reference, length by
    length), under the default knobs and tuned ones; the cap (MAX_SPLITS, one wave) reached too."""
    if knobs is not None:
        monkeypatch.setattr(decode, "CTAS_PER_SM", knobs[0])
        monkeypatch.setattr(decode, "MIN_SPLIT_KEYS", knobs[1])
    limit = 6000
    # (..., divisor, cap_limit, min_keys): the cluster kernel's balance, its co-resident clusters'
    # cap and its short splits (CLUSTER_SHORT_*) too
    for batch, heads_kv, groups, sms, resident, rows, divisor, cap_limit, min_keys in [
            (1, 4, 1, 132, 3, 4, 1, 256, None), (1, 1, 1, 132, 0, 16, 1, 256, None), (1, 8, 1, 132, 2, 4, 1, 256, None),
            (8, 8, 1, 132, 2, 8, 1, 256, None), (2, 2, 9, 66, 1, 16, 1, 256, None),
            (64, 32, 8, 132, 3, 16, 1, 256, None), (1, 2, 1, 1, 0, 1, 1, 256, None),
            (3, 1, 2, 132, 1, 12, 1, 256, None), (1, 1, 1, 132, 0, 1, 1, 256, None), (1, 1, 1, 132, 2, 8, 2, 256, None),
            (1, 4, 1, 132, 2, 16, 2, 56, None), (2, 2, 1, 132, 1, 4, 4, 24, None), (1, 1, 1, 132, 2, 1, 64, 8, None),
            (1, 1, 1, 132, 2, 8, 16, 64, 64), (1, 2, 1, 132, 2, 8, 16, 32, 64), (1, 1, 2, 132, 2, 16, 16, 40, 192)]:
        answers = [None] + [_choose_splits_as_written(batch, heads_kv, groups, n, sms, resident, rows, divisor,
                                                      cap_limit, min_keys) for n in range(1, limit + 2)]
        run_start = [0] * (limit + 2)  # the first length of the run of equal answers each length is in
        for n in range(2, limit + 2):
            run_start[n] = run_start[n - 1] if answers[n] == answers[n - 1] else n
        run_start[1] = 1
        run_end = [0] * (limit + 2)
        run_end[limit + 1] = limit + 1  # runs reaching past the sweep end there
        for n in range(limit, 0, -1):
            run_end[n] = run_end[n + 1] if answers[n] == answers[n + 1] else n
        for seq_k in range(1, limit + 1):
            n_splits, split_keys, first, last = decode.split_range(batch, heads_kv, groups, seq_k, sms, resident,
                                                                   rows, divisor, cap_limit, min_keys)
            assert (n_splits, split_keys) == answers[seq_k] == decode.choose_splits(batch, heads_kv, groups, seq_k,
                                                                                   sms, resident, rows, divisor,
                                                                                   cap_limit, min_keys)
            assert run_start[seq_k] <= first <= seq_k <= last
            assert last <= run_end[seq_k] or run_end[seq_k] == limit + 1, (batch, heads_kv, groups, seq_k)
            if last > limit:  # past the sweep: the same answer up to the range's end
                assert all(_choose_splits_as_written(batch, heads_kv, groups, n, sms, resident, rows, divisor,
                                                     cap_limit, min_keys) == answers[seq_k]
                           for n in range(limit + 1, last + 1)), (batch, heads_kv, groups, seq_k, last)


def test_greedy_decoding_redoes_the_split_choice_only_when_the_length_leaves_its_range(monkeypatch):
    """A cache growing one key a call (hd64, h16:4 as llama-small's decode probe): every launch has
    choose_splits' split count, keys, grid and workspace for its length, and the choice is redone
    once per range, not per call; a changed knob (op_session7_sweep sets them) is seen at once."""
    monkeypatch.setitem(decode._state, "fused", True)
    monkeypatch.setattr(decode, "_counters", {})
    asked = []
    real_range = decode.split_range
    monkeypatch.setattr(decode, "split_range", lambda *a: asked.append(a[3]) or real_range(*a))
    plan, driver = _plan(heads=16, heads_kv=4, head_dim=64, lse=False), RecordingDriver()
    q = torch.zeros(1, 16, 1, 64, dtype=torch.bfloat16)
    full = torch.zeros(1, 4, 3000, 64, dtype=torch.bfloat16)
    lengths = range(1, 3000)
    for length in lengths:
        kv = full[:, :, :length]
        plan.run(q, kv, kv, driver, stream=7)
    resident = decode.RESIDENT_CTAS[64]
    ranges = set()
    for (function, grid, _, _, params, split), length in zip(driver.launches, lengths):
        n, per = decode.choose_splits(4, 1, 1, length, 132, resident, rows=4)
        assert function == 11 and grid == (1, n, 4) and (split.n_splits, split.split_keys) == (n, per)
        assert params.seq_k == length and (split.o_partial is None) == (n == 1)
        if n > 1:
            assert split.lse_partial - split.o_partial == 4 * n * plan.rows_total * 64
        ranges.add(real_range(4, 1, 1, length, 132, resident, 4)[2:])
    assert len(driver.launches) == len(lengths)  # fused: one launch each
    assert len(asked) == len(ranges) < len(lengths) // 20
    monkeypatch.setattr(decode, "MIN_SPLIT_KEYS", 512)
    kv = full[:, :, :2999]
    plan.run(q, kv, kv, driver, stream=7)
    split = driver.launches[-1][5]
    assert (split.n_splits, split.split_keys) == decode.choose_splits(4, 1, 1, 2999, 132, resident, rows=4) != \
        driver.launches[-2][5] and asked[-1] == 2999


def test_a_plan_keeps_its_stream_s_counters_and_asks_again_for_another_stream(monkeypatch):
    monkeypatch.setitem(decode._state, "fused", True)
    monkeypatch.setattr(decode, "_counters", {})
    monkeypatch.setattr(decode, "_spares", {})
    asked = []
    real_buffer = decode.counter_buffer
    monkeypatch.setattr(decode, "counter_buffer", lambda *a: asked.append(a[1]) or real_buffer(*a))
    plan, driver = _plan(), RecordingDriver()
    q = torch.zeros(1, 8, 1, 128, dtype=torch.bfloat16)
    k = _kv_cache(1, 2, 4096, 4096)
    for stream in (7, 7, 9, 9, 7):
        plan.run(q, k, k, driver, stream=stream)
    assert asked == [7, 9, 7]
    seven, nine = (decode._counters[(None, s)][-1].data_ptr() for s in (7, 9))
    assert [x[5].counters for x in driver.launches] == [seven, seven, nine, nine, seven] and seven != nine
    # a stream first seen in a capture with no spare left: the merge launch, and nothing kept, so
    # a call outside the capture gets counters made
    monkeypatch.setattr(decode, "_capturing", lambda device: True)
    plan.run(q, k, k, driver, stream=11)
    assert driver.launches[-1][5].counters is None and driver.launches[-1][0] == 22  # the merge launch
    monkeypatch.setattr(decode, "_capturing", lambda device: False)
    plan.run(q, k, k, driver, stream=11)
    assert driver.launches[-1][5].counters == decode._counters[(None, 11)][-1].data_ptr()
    assert driver.launches[-1][0] == 11 and asked == [7, 9, 7, 11, 11]


@pytest.mark.parametrize("seq_q", [1, 3])
def test_out_bshd_is_the_layout_s_out_transposed_in_its_own_shape(seq_q):
    """out_bshd: the same memory layout the kernel writes (the parameter block's O strides are the
    plan's, whatever the call asks), handed over as (batch, seq_q, heads, dim) with no view."""
    plan, driver = _plan(seq_q=seq_q), RecordingDriver()
    q = torch.zeros(1, 8, seq_q, 128, dtype=torch.bfloat16)
    k = _kv_cache(1, 2, 300, 300)
    out, _ = plan.run(q, k, k, driver, stream=7)
    flat, _ = plan.run(q, k, k, driver, stream=7, out_bshd=True)
    assert flat.shape == (1, seq_q, 8, 128) and flat.is_contiguous() and flat._base is None
    assert flat.stride() == out.transpose(1, 2).stride() and out.shape == (1, 8, seq_q, 128)
    strides = [(p.o_batch_stride, p.o_seq_stride, p.o_head_stride) for _, _, _, _, p, _ in driver.launches]
    assert strides[0] == strides[1]


@pytest.fixture
def cpu_decode_chain(monkeypatch):
    """The eager chain down to the decode plan on CPU tensors: CUDA-ness, the current device and
    stream and the driver stood in for (a recorder), one hand-made plan for the (1, 16, T, 64) bhsd
    query and (1, 4, S, 64) KV cache in decode._plans."""
    from fmhactl.torch import fastpath

    driver = RecordingDriver()
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    monkeypatch.setitem(fastpath._state, "enabled", True)
    monkeypatch.setitem(fastpath._state, "driver", driver)
    monkeypatch.setattr(fastpath, "_current_device", lambda: -1)
    monkeypatch.setattr(fastpath, "_raw_stream", lambda index: 7)
    monkeypatch.setattr(decode, "_plans", {})
    monkeypatch.setattr(decode, "_counters", {})

    def plan_for(q, k, causal=True, scale=None):
        plan = _plan(heads=16, heads_kv=4, seq_q=q.shape[2], head_dim=64, lse=False, device_index=-1)
        decode._plans[decode.plan_key(q, k, causal, scale, False, "bhsd")] = plan
        return plan

    return driver, plan_for


def test_transformers_decode_step_reaches_the_plan_and_gets_out_in_its_layout(cpu_decode_chain):
    """fmhactl_attention_forward's plain branch -> op.attention_bshd_out -> fastpath.attention ->
    decode.attention -> DecodePlan.run: one launch, out (batch, seq_q, heads, dim) made so; the op's
    own entry gets the bhsd view of the same layout."""
    from types import SimpleNamespace

    import fmhactl.torch as ft
    from fmhactl.torch import fastpath, op
    from fmhactl.torch.hf import fmhactl_attention_forward

    driver, plan_for = cpu_decode_chain
    q, k = torch.zeros(1, 16, 1, 64, dtype=torch.bfloat16), _kv_cache(1, 4, 2100, 4096, head_dim=64)
    plan_for(q, k, scale=0.125)
    module = SimpleNamespace(is_causal=True, training=False)
    with torch.inference_mode():
        out, weights = fmhactl_attention_forward(module, q, k, k, None, scaling=0.125, dropout=0.0,
                                                 position_ids=None, use_cache=True)
        assert weights is None and out.shape == (1, 1, 16, 64) and out.is_contiguous() and out._base is None
        flat = op.attention_bshd_out(q, k, k, True, 0.125)
        view = ft.attention(q, k, k, causal=True, scale=0.125)
        served = fastpath.attention(q, k, k, True, 0.125, False, "bhsd", out_bshd=True)
    assert flat.shape == served[0].shape == (1, 1, 16, 64) and view.shape == (1, 16, 1, 64)
    assert view.stride() == flat.transpose(1, 2).stride()
    assert len(driver.launches) == 4 and all(x[4].seq_k == 2100 for x in driver.launches)


def test_out_bshd_transposes_what_another_plan_serves(cpu_decode_chain, monkeypatch):
    """A call the decode kernels do not take (here 17 queries) keeps its plan's layout out, transposed."""
    from types import SimpleNamespace

    from fmhactl.torch import fastpath

    q, k = torch.zeros(1, 16, 17, 64, dtype=torch.bfloat16), torch.zeros(1, 4, 40, 64, dtype=torch.bfloat16)
    view = torch.zeros(1, 17, 16, 64, dtype=torch.bfloat16).transpose(1, 2)
    plan = SimpleNamespace(device_index=-1, run=lambda *args: (view, None))
    monkeypatch.setattr(fastpath, "_plans", {fastpath.call_key(q, k, k, True, None, False, "bhsd"): plan})
    out, _ = fastpath.attention(q, k, k, True, None, False, "bhsd", out_bshd=True)
    assert out.shape == (1, 17, 16, 64) and out.is_contiguous() and out._base is view._base
    assert fastpath.attention(q, k, k, True, None, False, "bhsd")[0] is view


def test_attention_bshd_out_goes_through_the_dispatcher_when_something_watches(monkeypatch):
    """Grad wanted (or tracing, modes): the op itself, its bhsd out transposed, as attention() would."""
    from fmhactl.torch import fastpath, op

    calls = []
    monkeypatch.setattr(fastpath, "attention", lambda *a, **kw: calls.append(kw) or None)
    monkeypatch.setattr(op, "_general", lambda q, k, v, causal, scale, return_lse, layout, f=None:
                        (torch.ones(1, 3, 4, 16).transpose(1, 2), q.new_empty((0,))))
    q, k = torch.zeros(1, 4, 3, 16), torch.zeros(1, 2, 3, 16)
    out = op.attention_bshd_out(q, k, k, True, None)  # nothing watches: the cached path first, then the op
    assert calls == [{"out_bshd": True}, {}] and out.shape == (1, 3, 4, 16)
    calls.clear()
    out = op.attention_bshd_out(q.requires_grad_(), k, k, True, None)
    assert calls == [{}] and out.shape == (1, 3, 4, 16) and out.requires_grad  # only the op's own ask


def test_padded_rows_pass_their_key_ranges_and_shift():
    plan, driver = _plan(batch=2), RecordingDriver()
    q = torch.zeros(2, 8, 1, 128, dtype=torch.bfloat16)
    k = _kv_cache(2, 2, 300, 300)
    ranges = torch.tensor([[0, 300], [120, 300]], dtype=torch.int32)
    plan.run(q, k, k, driver, stream=7, key_ranges=ranges, shift=299)
    plan.run(q, k, k, driver, stream=7)
    (_, _, _, _, _, padded), (_, _, _, _, params, plain) = [x for x in driver.launches if x[0] == 11]
    assert padded.key_ranges == ranges.data_ptr() and padded.shift == 299
    assert plain.key_ranges is None and plain.shift == params.seq_k - params.seq_q == 299


# ---- the kernels' control flow, replayed block by block ----------------------------------------
def _lse_merge(part_o, part_lse):
    """Partials (n, ...) of O (normalised) and base-2 LSE merged by their LSE: (O, base-2 LSE)."""
    import math

    mx = part_lse.max(dim=0).values
    w = torch.where(mx.isinf(), 0.0, torch.exp2(part_lse - torch.where(mx.isinf(), 0.0, mx)))
    total = w.sum(dim=0)
    out = (w[..., None] * part_o).sum(dim=0) / torch.where(total > 0, total, 1.0)[..., None]
    lse = torch.where(total > 0, mx + torch.log2(torch.where(total > 0, total, 1.0)), -math.inf)
    return out, lse


def _replay(q, k, v, causal: bool, sms: int, key_ranges=None, shift=None, cluster: bool = False):
    """fmha_decode.cuh's split + combine kernels as written (key ranges of each CTA, warp key
    blocks, masks, base-2 online softmax, the warp merge, the LSE combine), in float64; q, k, v
    (batch, seq, heads, dim). Returns out (batch, seq_q, heads, dim) and the natural LSE.
    cluster: the cluster kernel's merge (grid.y rounded up to CLUSTER splits, the CTAs past
    n_splits empty; each cluster's splits merged first, then the clusters' partials)."""
    import math

    b_, sq, h, d = q.shape
    sk, hkv = k.shape[1], k.shape[2]
    group = h // hkv
    rows = sq * group
    groups = decode.row_groups(sq, h, hkv)
    n, split_keys = decode.choose_splits(b_ * hkv, 1, groups, sk, sms,
                                         divisor=decode.CLUSTER_BALANCE_DIVISOR if cluster else 1)
    if cluster and n > 1:
        n = -(-n // decode.CLUSTER) * decode.CLUSTER  # grid.y: the CTAs past n_splits see no key
    shift = sk - sq if shift is None else shift
    scale2 = d ** -0.5 * math.log2(math.e)
    step = decode.WARPS * decode.KEYS_PER_WARP_STEP
    part_o = torch.zeros(n, b_, h, sq, d, dtype=torch.float64)
    part_lse = torch.full((n, b_, h, sq), -math.inf, dtype=torch.float64)
    for split in range(n):
        for b in range(b_):
            for hk in range(hkv):
                for rg in range(groups):
                    row0 = rg * decode.ROWS_PER_CTA
                    k_lo, k_hi = (0, sk) if key_ranges is None else (max(0, key_ranges[b][0]),
                                                                      min(sk, key_ranges[b][1]))
                    k_begin = split * split_keys
                    k_start = max(k_begin, k_lo)
                    k_end = min(k_hi, k_begin + split_keys)
                    if causal:
                        k_end = min(k_end, (min(row0 + decode.ROWS_PER_CTA, rows) - 1) // group + shift + 1)
                    k_first = k_begin + max(0, (k_start - k_begin) // step) * step
                    warps = []
                    for w in range(decode.WARPS):
                        m = torch.full((16,), -math.inf, dtype=torch.float64)
                        s_ = torch.zeros(16, dtype=torch.float64)
                        acc = torch.zeros(16, d, dtype=torch.float64)
                        kb = k_first + w * decode.KEYS_PER_WARP_STEP
                        while kb < k_end:
                            keys = torch.arange(kb, kb + 16)
                            ok_key = (keys >= k_start) & (keys < k_end)
                            kk = torch.where(ok_key[:, None], k[b, keys.clamp(max=sk - 1), hk].double(), 0.0)
                            vv = torch.where(ok_key[:, None], v[b, keys.clamp(max=sk - 1), hk].double(), 0.0)
                            for lr in range(16):
                                r = row0 + lr
                                t, hh = (r // group, hk * group + r % group) if r < rows else (0, hk * group)
                                qr = q[b, t, hh].double() if r < rows else torch.zeros(d, dtype=torch.float64)
                                sc = (kk @ qr) * scale2
                                last = t + shift if causal else k_end - 1
                                sc = torch.where(ok_key & (keys <= last), sc, -math.inf)
                                new = max(float(m[lr]), float(sc.max()))
                                ref = 0.0 if new == -math.inf else new
                                e = torch.exp2(sc - ref)
                                resc = 2.0 ** (float(m[lr]) - ref) if m[lr] != -math.inf else 0.0
                                s_[lr] = s_[lr] * resc + e.sum()
                                acc[lr] = acc[lr] * resc + e @ vv
                                m[lr] = new
                            kb += step
                        warps.append((m, s_, acc))
                    for lr in range(16):
                        r = row0 + lr
                        if r >= rows:
                            continue
                        mx = max(float(wm[lr]) for wm, _, _ in warps)
                        total, o = 0.0, torch.zeros(d, dtype=torch.float64)
                        if mx != -math.inf:
                            for wm, ws, wa in warps:
                                f = 2.0 ** (float(wm[lr]) - mx)
                                total += float(ws[lr]) * f
                                o += wa[lr] * f
                        t, hh = r // group, hk * group + r % group
                        part_o[split, b, hh, t] = o / total if total > 0 else 0.0
                        part_lse[split, b, hh, t] = mx + math.log2(total) if total > 0 else -math.inf
    if cluster and n > 1:  # each cluster's CTAs merged through DSMEM, then the clusters' partials
        c = decode.CLUSTER
        merged = [_lse_merge(part_o[i:i + c], part_lse[i:i + c]) for i in range(0, n, c)]
        part_o = torch.stack([o for o, _ in merged])
        part_lse = torch.stack([lse for _, lse in merged])
        n = n // c
    if n == 1:
        return part_o[0].transpose(1, 2), part_lse[0] * math.log(2)
    out, lse = _lse_merge(part_o, part_lse)
    return out.transpose(1, 2), lse * math.log(2)


def _explicit(q, k, v, causal: bool, key_ranges=None, shift=None):
    """Masked softmax attention in float64: (batch, seq_q, heads, dim) out, natural LSE."""
    b_, sq, h, d = q.shape
    sk, hkv = k.shape[1], k.shape[2]
    shift = sk - sq if shift is None else shift
    kh = k.double().repeat_interleave(h // hkv, dim=2)
    vh = v.double().repeat_interleave(h // hkv, dim=2)
    s = torch.einsum("bqhd,bkhd->bhqk", q.double(), kh) * d ** -0.5
    keys, toks = torch.arange(sk), torch.arange(sq)
    mask = torch.ones(b_, 1, sq, sk, dtype=torch.bool)
    if key_ranges is not None:
        for b, (lo, hi) in enumerate(key_ranges):
            mask[b] &= ((keys >= lo) & (keys < hi))[None, None, :]
    if causal:
        mask &= (keys[None, :] <= toks[:, None] + shift)[None, None]
    s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.where(lse.isinf()[..., None], 0.0, torch.exp(s - torch.where(lse.isinf(), 0.0, lse)[..., None]))
    return torch.einsum("bhqk,bkhd->bqhd", p, vh), lse


@pytest.mark.parametrize("b, h, hkv, sq, sk, causal, ranges, sms", [
    (1, 8, 2, 1, 300, False, None, 132),         # several splits, combine
    (1, 4, 1, 3, 200, True, None, 132),          # causal, group 4, T=3
    (2, 4, 2, 5, 70, True, None, 1),             # one split, causal
    (1, 2, 2, 8, 5, True, None, 132),            # T > S: rows that see no key
    (2, 8, 2, 1, 400, True, ((130, 400), (0, 77)), 132),  # padded rows (left, right)
    (2, 4, 1, 6, 260, True, ((3, 260), (100, 200)), 132),  # padded, 24 packed rows: 2 row groups
    (1, 4, 1, 1, 4000, False, None, 132),        # 11 splits: the cluster kernel's 2 clusters, 5 CTAs empty
    (1, 2, 1, 2, 2600, True, ((0, 2000),), 132),  # causal, padded, 9 splits
    (1, 16, 1, 1, 900, False, None, 132),        # the cluster kernel's one cluster: no global merge
])
@pytest.mark.parametrize("cluster", [False, True])
def test_kernel_control_flow_matches_masked_softmax(b, h, hkv, sq, sk, causal, ranges, sms, cluster):
    gen = torch.Generator().manual_seed(sk)
    q, k, v = (torch.randn(b, s, n, 64, generator=gen) for s, n in ((sq, h), (sk, hkv), (sk, hkv)))
    got, got_lse = _replay(q, k, v, causal, sms, ranges, cluster=cluster)
    want, want_lse = _explicit(q, k, v, causal, ranges)
    assert torch.allclose(got, want, atol=1e-9)
    assert torch.equal(got_lse.isinf(), want_lse.isinf())
    finite = want_lse.isfinite()
    assert torch.allclose(got_lse[finite], want_lse[finite], atol=1e-9)


@pytest.mark.parametrize("text, expected", [
    (None, (decode.CTAS_PER_SM, decode.MIN_SPLIT_KEYS)), ("", (decode.CTAS_PER_SM, decode.MIN_SPLIT_KEYS)),
    ("4,64", (4, 64)), ("1,512", (1, 512)),
])
def test_split_knobs_come_from_the_environment(text, expected):
    assert decode._tuned_splits(text) == expected


@pytest.mark.parametrize("text", ["4", "0,128", "2,100", "2,x", "17,128", "2,0"])
def test_bad_split_knobs_are_ignored_with_a_warning_naming_the_rule(text):
    with pytest.warns(UserWarning, match="FMHACTL_DECODE_SPLITS=.*ignored: expected 'CTAS_PER_SM,MIN_SPLIT_KEYS'"):
        assert decode._tuned_splits(text) == (decode.CTAS_PER_SM, decode.MIN_SPLIT_KEYS)


@pytest.mark.parametrize("kwargs", [{"name": "no-such-model"}, {"name": "llama-small", "tokens": 0},
                                    {"name": "llama-small", "prompt": 8192}, {"name": "llama-small", "rounds": 0}])
def test_greedy_probe_refuses_bad_input_before_any_gpu_work(kwargs):
    from fmhactl.bench.greedy_probe import run_greedy_probe
    from fmhactl.errors import BadInput

    with pytest.raises(BadInput):
        run_greedy_probe(**kwargs)


def test_a_stream_first_seen_in_a_graph_capture_gets_a_spare_or_the_merge_launch(monkeypatch):
    cpu = torch.device("cpu")
    monkeypatch.setattr(decode, "_counters", {})
    monkeypatch.setattr(decode, "_spares", {})
    monkeypatch.setattr(decode, "_capturing", lambda device: True)  # nothing may be allocated and zeroed now
    decode._make_spares(cpu)
    assert decode._spares[None] == []  # none made while capturing
    monkeypatch.setattr(decode, "_capturing", lambda device: False)
    decode._make_spares(cpu)
    spares = list(decode._spares[None])
    assert len(spares) == decode.SPARES and not any(t.any() for t in spares)
    monkeypatch.setattr(decode, "_capturing", lambda device: True)
    first = decode.counters_for(cpu, stream=5, needed=8)
    assert first == spares[-1].data_ptr() and decode.counters_for(cpu, stream=5, needed=8) == first
    assert decode.counters_for(cpu, stream=6, needed=8) == spares[0].data_ptr()
    assert decode.counters_for(cpu, stream=7, needed=8) is None  # no spare left: the merge launch
    assert decode.counters_for(cpu, stream=5, needed=decode.MIN_COUNTERS + 1) is None  # cannot grow now
    monkeypatch.setattr(decode, "_capturing", lambda device: False)
    grown = decode.counters_for(cpu, stream=5, needed=decode.MIN_COUNTERS + 1)
    assert grown != first and len(decode._counters[(None, 5)]) == 2  # the old buffer is kept (graphs)


@pytest.mark.parametrize("head_dim", [32, 64, 80, 96, 128, 192, 256])
@pytest.mark.parametrize("valid_rows, n_splits", [(1, 1), (4, 16), (4, 64), (3, 7), (8, 33), (16, 256), (5, 2)])
def test_merge_stages_every_partial_once_and_sums_every_split_once(head_dim, valid_rows, n_splits):
    """combine_rows as written: rounds of `per_round` splits (all n where the ring's SMEM holds
    them beside the [16][n] weights and the accumulators); in a round, thread (lane, slot) copies
    items slot, slot + width, ... of splits lane, lane + lanes, ... to buf[split][item], and after
    the barrier thread t adds up items t, t + 128, ... over the round's splits. Every SMEM slot of a
    round is written by one thread, the buffer stays inside the ring's SMEM, every item sums every
    split exactly once and is stored once (in the last round)."""
    threads, vec = 4 * 32, head_dim // 4
    ring_bytes = decode.ring_smem_bytes(head_dim)
    n_items = valid_rows * vec
    room = (ring_bytes - 16 * n_splits * 4) // (16 * n_items) - 1
    assert room >= 1, "the static_assert's bound: weights, accumulators and one split fit"
    per_round = min(n_splits, room)
    buf_start = 16 * n_splits * 4 + 16 * n_items  # bytes: weights [16][n], then the accumulators
    width = min(n_items, threads)
    lanes = threads // width
    summed: dict[int, list[int]] = {item: [] for item in range(n_items)}
    stores: list[int] = []
    for s0 in range(0, n_splits, per_round):
        count = min(per_round, n_splits - s0)
        writer: dict[int, int] = {}
        for tid in range(threads):
            lane, slot = tid // width, tid % width
            if lane >= lanes:
                continue
            for item in range(slot, n_items, width):
                for sp in range(lane, count, lanes):
                    offset = sp * n_items + item
                    assert offset not in writer, f"buf slot {offset} written by threads {writer[offset]} and {tid}"
                    writer[offset] = tid
                    assert buf_start + 16 * (offset + 1) <= ring_bytes
        assert sorted(writer) == list(range(count * n_items))
        for tid in range(threads):
            for item in range(tid, n_items, threads):
                summed[item] += [s0 + sp for sp in range(count)]
                if s0 + count >= n_splits:
                    stores.append(item)
    assert all(sorted(splits) == list(range(n_splits)) for splits in summed.values())
    assert sorted(stores) == list(range(n_items))


@pytest.mark.parametrize("head_dim", [64, 128, 256])
def test_the_warps_merge_slots_cover_every_row_and_column_once(head_dim):
    """The split kernel's warps' merge as written: thread (warp, lane) holds rows g, g + 8 and, for
    PV block e and x in {0, 1}, columns 64 e + 8 (2 q4 + x) + 0..7 (g = lane / 4, q4 = lane % 4);
    it stores them as float4 slots c = ((r * kVBlocks + e) * 2 + x) * 2 + h4 at o[warp][c][lane],
    and thread (warp, lane) then sums slots warp * D / 32 .. + D / 32 - 1 of lane `lane` over the
    4 warps. Each (row, 4 columns) of the 16 x D tile must be summed and stored by one thread."""
    v_blocks, slots = head_dim // 64, head_dim // 8
    assert slots == 2 * v_blocks * 2 * 2
    per_thread = slots // 4
    stored: dict[tuple[int, int], tuple[int, int]] = {}
    for warp in range(4):
        for lane in range(32):
            g, q4 = lane // 4, lane % 4
            for i in range(per_thread):
                c = warp * per_thread + i
                h4, x, e, r = c & 1, (c >> 1) & 1, (c >> 2) % v_blocks, (c >> 2) // v_blocks
                row, d = g + 8 * r, e * 64 + 8 * (2 * q4 + x) + 4 * h4
                assert (row, d) not in stored, (row, d, stored.get((row, d)), (warp, lane))
                stored[(row, d)] = (warp, lane)
    assert sorted(stored) == [(row, d) for row in range(16) for d in range(0, head_dim, 4)]


def test_the_switches_the_benches_flip_exist_and_restore_the_defaults():
    """The decode bench's and the greedy probe's switches (session 7's device call lost its decode
    bench to a missing decode.set_enabled: this runs them without a GPU)."""
    from fmhactl.bench.decode import _combine_launch, _decode_off

    assert decode._state["enabled"] and decode._state["fused"]
    with _decode_off():
        assert not decode._state["enabled"]
    with _combine_launch():
        assert not decode._state["fused"]
    assert decode._state["enabled"] and decode._state["fused"]
    decode.set_enabled(False)
    decode.set_enabled(True)
    assert decode._state["enabled"]


@pytest.mark.parametrize("stages", sorted(set(decode.RING_STAGES.values())))
@pytest.mark.parametrize("blocks", [0, 1, 2, 3, 4, 5, 9, 31])
def test_ring_schedule_reads_each_block_after_its_group_landed(stages, blocks):
    """fmha_decode.cuh's per-warp ring, step by step: the prologue fills stages 0..S-2, step n
    refills the stage step n-1 read with block n+S-1 (when it exists), commits a group (empty or
    not) and waits until at most S-1 groups are pending; the stage it then reads must hold block n,
    from a group already landed, and no stage is refilled while a later step still has to read it."""
    slots: dict[int, tuple[int, int]] = {}  # stage -> (block, group)
    groups = 0
    for st in range(stages - 1):
        if st < blocks:
            slots[st] = (st, groups)
        groups += 1
    slot = 0
    for n in range(blocks):
        fill = stages - 1 if slot == 0 else slot - 1
        ahead = n + stages - 1
        if ahead < blocks:
            assert slots.get(fill, (-1, 0))[0] < n  # the stage's previous block was already read
            slots[fill] = (ahead, groups)
        groups += 1
        landed = groups - (stages - 1)  # groups 0 .. landed-1 are complete after wait_group<S-1>
        block, group = slots[slot]
        assert block == n and group < landed
        slot = slot + 1 if slot < stages - 1 else 0


def test_a_kv_cache_of_another_head_dim_misses_the_plan_and_is_refused(cpu_decode_chain):
    """The decode plan is looked up before any input check: a K/V of another head dim than the
    query's (here 32 against the plan's 64) must not be launched through the plan made for 64
    (the kernel would read 64 d's a key from rows of 32), but reach the build's checks and be refused."""
    from fmhactl.torch import fastpath
    from fmhactl.torch.inputs import AttentionInputError

    driver, plan_for = cpu_decode_chain
    q, k = torch.zeros(1, 16, 1, 64, dtype=torch.bfloat16), _kv_cache(1, 4, 100, 128, head_dim=64)
    plan_for(q, k)
    assert fastpath.attention(q, k, k, True, None, False, "bhsd") is not None and len(driver.launches) == 1
    narrow = _kv_cache(1, 4, 100, 128, head_dim=32)
    with pytest.raises(AttentionInputError):  # on CPU tensors the build's first check answers
        fastpath.attention(q, narrow, narrow, True, None, False, "bhsd")
    assert len(driver.launches) == 1


@pytest.mark.parametrize("fused, length, kind", [(True, 32768, "cluster"), (True, 60, "one"), (True, 700, "split"),
                                                 (False, 32768, "split")])
def test_describe_launch_reports_what_the_plan_launches(fused, length, kind, monkeypatch):
    """decode.describe_launch (bench --decode's note) reads the same choice the next run launches:
    kernel, splits, keys and grid, and how the splits merge."""
    monkeypatch.setitem(decode._state, "fused", fused)
    monkeypatch.setattr(decode, "_counters", {})
    monkeypatch.setattr(decode, "_spares", {})
    plan, driver = _plan(heads=8, heads_kv=1, cluster_fn=33, max_clusters=30), RecordingDriver()
    q = torch.zeros(1, 8, 1, 128, dtype=torch.bfloat16)
    kv = _kv_cache(1, 1, length, 40000)
    monkeypatch.setitem(decode._plans, decode.plan_key(q, kv, False, None, False, "bhsd"), plan)
    told = decode.describe_launch(q, kv, False)
    plan.run(q, kv, kv, driver, stream=7)
    function, grid, _, _, _, split = driver.launches[0]
    assert told["kernel"] == {33: "cluster", 11: "split"}[function]
    assert kind == ("one" if split.n_splits == 1 else told["kernel"])  # the case reaches what it names
    assert (told["n_splits"], told["split_keys"], tuple(told["grid"])) == (split.n_splits, split.split_keys, grid)
    if split.n_splits == 1:
        assert told["merge"] == "none (one split)"
    elif function == 33:
        assert told["merge"].startswith("clusters of 8")
    else:
        assert told["merge"] == ("by the last CTA of each row group" if fused else "a second launch")
        assert [x[0] for x in driver.launches] == ([11] if fused else [11, 22])
    other = torch.zeros(1, 8, 2, 128, dtype=torch.bfloat16)  # no plan of this signature
    assert decode.describe_launch(other, kv, False) is None
