"""Producer -> consumer maps: seed 001's SMEM-P question and P in TMEM for the TS form."""

from __future__ import annotations

import pytest

from fmhactl.layout import mapping
from fmhactl.layout.common import LayoutError


def _map(src: str, dst: str, m: int = 128, n: int = 128, warps=None):
    p = mapping.parse_producer(src, m, n)
    c = mapping.parse_consumer(dst, m, n)
    records, problems = mapping.map_values(p, c, warps)
    return p, c, records, problems


def test_every_value_is_produced_once():
    _, _, records, _ = _map("tmem:32x32b:num=8", "smem:K:128B")
    assert len(records) == 128 * 128
    assert len({(r.m, r.n) for r in records}) == 128 * 128
    assert len({r.addr for r in records}) == 128 * 128


def test_seed001_smem_p_matches_the_cute_layout_they_printed():
    # sP layout: ((128,16),1,(4,2),1):((64,1),0,(16,8192),0) in bf16 elements, swizzle in the pointer
    _, c, records, _ = _map("tmem:32x32b:num=8", "smem:K:128B")
    for m, n in [(0, 0), (5, 17), (77, 64), (127, 127), (33, 100)]:
        elems = m * 64 + (n % 16) + 16 * ((n // 16) % 4) + 8192 * (n // 64)
        assert c.tile.logical_offset(m, n) == 2 * elems
        assert c.tile.offset(m, n) == (2 * elems) ^ (((2 * elems >> 7) & 7) << 4)
    thread5 = sorted((r for r in records if r.thread == 5), key=lambda r: (r.load, r.reg))
    assert {r.m for r in thread5} == {5}  # 32x32b: thread t of warp 0 holds row t


def test_seed001_store_plan_is_16_byte_and_conflict_free():
    _, c, records, _ = _map("tmem:32x32b:num=8", "smem:K:128B")
    plan = mapping.plan_smem_stores(records, c)
    assert plan.vector_bytes == 16 and plan.instructions == 16
    assert all(rep.conflicts == 0 for rep in plan.per_warp.values())


def test_mn_major_p_cannot_be_stored_as_vectors():
    _, c, records, _ = _map("tmem:32x32b:num=8", "smem:MN:128B")
    plan = mapping.plan_smem_stores(records, c)
    assert plan.vector_bytes == 2  # consecutive n of one row sit 128 B apart in an MN-major tile
    assert plan.instructions == 128
    assert all(rep.conflicts == 0 for rep in plan.per_warp.values())  # 32 rows x 2 B = one 64-B line


def test_tmem_p_with_32x32b_needs_no_exchange():
    p, c, records, problems = _map("tmem:32x32b:num=8", "tmem:col=128")
    assert "no data exchange" in mapping.tmem_store_plan(records, p, c)
    r = next(r for r in records if r.m == 40 and r.n == 7)
    assert (r.tmem_lane, r.tmem_col, r.tmem_bit) == (40, 128 + 3, 16)
    assert not [x for x in problems if x.code == "p-overlaps-s"]
    p, c, records, problems = _map("tmem:16x256b:num=4", "tmem:col=64")
    assert "exchange values" in mapping.tmem_store_plan(records, p, c)
    assert "p-overlaps-s" in {x.code for x in problems}


def test_m64_reads_half_the_lanes():
    _, _, records, problems = _map("tmem:32x32b:num=8", "smem:K:128B", m=64, n=64)
    assert len(records) == 64 * 64
    assert {r.thread % 32 for r in records} == set(range(16))
    assert "m64-32x32b" in {p.code for p in problems}
    _, _, records, _ = _map("tmem:32x32b:num=8:lane=16", "smem:K:128B", m=64, n=64)
    assert {r.thread % 32 for r in records} == set(range(16, 32))


def test_16x_shapes_cover_the_quarter_in_two_lane_halves():
    p = mapping.parse_producer("tmem:16x256b:num=2", 128, 64)
    loads = mapping.producer_loads(p, 1)
    assert len(loads) == 2 * 4 and loads[4].taddr == (48 << 16)
    _, _, records, _ = _map("tmem:16x256b:num=2", "smem:MN:128B", n=64)
    assert len({(r.m, r.n) for r in records}) == 128 * 64


def test_value_runs_merge_contiguous_registers():
    _, c, records, _ = _map("tmem:32x32b:num=8", "smem:K:128B", warps=[0])
    runs = mapping.value_runs(sorted((r for r in records if r.thread == 1), key=lambda r: (r.load, r.reg)), c)
    assert len(runs) == 16 and (runs[0].reg_first, runs[0].reg_last) == (0, 7)


@pytest.mark.parametrize("src,dst", [("smem:K:128B", "smem:K:128B"), ("tmem", "smem:K:128B"),
                                     ("tmem:32x32b:num=3", "smem:K:128B"), ("tmem:32x32b:foo=1", "smem:K:128B"),
                                     ("tmem:32x32b", "smem:K"), ("tmem:32x32b", "gmem"),
                                     ("tmem:32x32b", "smem:K:128B:dtype=f64"), ("tmem:32x32b:acc=bf16", "tmem")])
def test_bad_specs_are_refused(src, dst):
    with pytest.raises(LayoutError):
        _map(src, dst)
