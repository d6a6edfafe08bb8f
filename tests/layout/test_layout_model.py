"""The pure-Python layout model: spec anchors, properties and refusals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmhactl.layout import accum, banks, descriptors, idesc, smem, tmem, wgmma
from fmhactl.layout.common import LayoutError

# ---------------------------------------------------------------- TMEM

SHAPE_NUMS = [(s, n) for s in tmem.SHAPES for n in tmem.NUMS if tmem.REGS_PER_REP[s] * n <= 128]


def test_address_split_and_join():
    assert tmem.split_addr(0x0040_0010) == (64, 16)
    assert tmem.join_addr(96, 300) == 0x0060_012C


@pytest.mark.parametrize("shape,num", [("16x256b", 64), ("16x128b", 128), ("32x32b", 3), ("32x32b", 256),
                                       ("8x32b", 1)])
def test_impossible_shape_num_is_refused(shape, num):
    with pytest.raises(LayoutError):
        tmem.ld_map(shape, num)


def test_register_counts_follow_table_49():
    assert tmem.regs_per_thread("32x32b", 128) == 128
    assert tmem.regs_per_thread("16x128b", 64) == 128
    assert tmem.regs_per_thread("16x256b", 32) == 128
    assert tmem.regs_per_thread("16x256b", 1) == 4


def test_16x64b_is_not_the_obvious_map():
    cells = {a.thread: (a.lane, a.col) for a in tmem.ld_map("16x64b", 1)}
    assert [cells[t] for t in range(5)] == [(0, 0), (8, 0), (0, 1), (8, 1), (1, 0)]


def test_16x256b_x1_is_the_mma_sync_c_fragment():
    for a in tmem.ld_map("16x256b", 1):
        row = a.thread // 4 + 8 * (a.reg >> 1)
        col = 2 * (a.thread % 4) + (a.reg & 1)
        assert (a.lane, a.col) == (row, col)


def test_16x32bx2_second_half_uses_the_immediate():
    default = tmem.register_cells("16x32bx2", 4, 20, 1)
    assert default[0].lane == 4 and default[0].col == 4 + 1
    lane_offset = tmem.register_cells("16x32bx2", 4, 20, 1, imm=16 << 16)  # Triton-style lane split
    assert (lane_offset[0].lane, lane_offset[0].col) == (20, 1)


def test_pack_puts_even_column_in_low_half():
    lo, hi = tmem.register_cells("32x32b", 2, 5, 1, pack=True, taddr=tmem.join_addr(0, 10))
    assert (lo.col, lo.reg_bit_lo, lo.nbits) == (12, 0, 16)
    assert (hi.col, hi.reg_bit_lo, hi.nbits) == (13, 16, 16)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SHAPE_NUMS), st.booleans(), st.integers(0, 3), st.integers(0, 64))
def test_ld_map_is_a_bijection_onto_its_cells(shape_num, pack, quarter, col0):
    shape, num = shape_num
    accesses = tmem.ld_map(shape, num, pack, tmem.join_addr(32 * quarter, col0))
    owners = tmem.cell_owners(accesses)
    assert len(owners) == len(accesses)  # no two registers share a cell half
    regs = tmem.regs_per_thread(shape, num)
    assert {(a.thread, a.reg) for a in accesses} == {(t, i) for t in range(32) for i in range(regs)}
    bits = sum(a.nbits for a in accesses)
    assert bits == 32 * 32 * regs
    fits = max(a.col for a in accesses) < 512
    assert bool(tmem.access_problems(accesses, quarter)) == (not fits)


def test_lane_quarter_rule():
    problems = tmem.access_problems(tmem.ld_map("32x32b", 1, taddr=0), warp=5)
    assert [p.code for p in problems] == ["lane-quarter"]
    assert not tmem.access_problems(tmem.ld_map("32x32b", 1, taddr=tmem.join_addr(32, 0)), warp=5)


def test_allocation_rules():
    assert not tmem.alloc_problems(128)
    assert [p.code for p in tmem.alloc_problems(96)] == ["alloc-columns"]
    assert [p.code for p in tmem.alloc_problems(256, previous=128)] == ["alloc-increasing"]
    assert [p.code for p in tmem.alloc_problems(32, relinquished=True)] == ["alloc-after-relinquish"]
    assert tmem.min_alloc_columns(65) == 128
    with pytest.raises(LayoutError):
        tmem.min_alloc_columns(600)


# ---------------------------------------------------------------- accumulators

def test_m128_n64_accumulator_is_contiguous():
    cells = accum.accumulator_map(128, 64, tmem.join_addr(0, 64))
    assert {(c.m, c.n): (c.lane, c.col) for c in cells}[(37, 33)] == (37, 97)
    cols = sorted({c.col for c in cells})
    assert cols == list(range(64, 128))  # no holes at 32-35 or 48-51


def test_m64_layout_f_uses_half_of_each_quarter():
    assert accum.d_cell(64, 17, 3) == (33, 3)
    assert accum.d_cell(64, 17, 3, tmem.join_addr(16, 0)) == (49, 3)
    lanes = {c.lane for c in accum.accumulator_map(64, 8)}
    assert lanes == {q * 32 + i for q in range(4) for i in range(16)}


@pytest.mark.parametrize("m,n,addr", [(128, 64, tmem.join_addr(16, 0)), (64, 64, tmem.join_addr(8, 0)),
                                      (96, 64, 0), (128, 260, 0), (128, 12, 0), (128, 256, 300)])
def test_bad_accumulators_are_refused(m, n, addr):
    with pytest.raises(LayoutError):
        accum.accumulator_map(m, n, addr)


def test_ts_a_is_packed_along_k():
    assert accum.a_cell(128, 5, 0) == (5, 0, 0)
    assert accum.a_cell(128, 5, 3) == (5, 1, 16)
    assert accum.a_cell(128, 5, 3, tmem.join_addr(0, 64), 32) == (5, 67, 0)
    assert [p.code for p in accum.check_mn(128, 24, ts=True)] == ["ts-n16"]


# ---------------------------------------------------------------- shared memory

def test_swizzle_functions_match_spec_5_3():
    assert smem.swizzle_addr(0x80, "32B") == 0x90
    assert smem.swizzle_addr(0x190, "64B") == 0x1A0  # line 3: chunk 1 -> chunk 1 ^ 3 = 2
    assert smem.swizzle_addr(0x380, "128B") == 0x380 ^ 0x70
    assert smem.swizzle_addr(0x180, "128B_base32B") == 0x180 ^ 0x60
    for swz in smem.SWIZZLES:
        for a in range(0, 4096, 16):
            assert swz.apply(swz.apply(a)) == a


def test_k_major_sw128_rows_and_k_advance():
    tile = smem.make_tile("K", "128B", 128, 64, "bf16")
    assert (tile.lbo, tile.sbo) == (16, 1024)
    assert tile.offset(1, 0) == 128 + 16  # row 1's first chunk is XORed to chunk 1
    assert [s.start for s in tile.mma_slices()] == [0, 32, 64, 96]
    assert tile.element_at(tile.offset(77, 45)) == (77, 45)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["K", "MN"]), st.sampled_from(smem.SWIZZLES), st.sampled_from(["bf16", "tf32", "e4m3"]),
       st.integers(1, 4), st.integers(1, 4), st.sampled_from([0, 1024, 2048]))
def test_tiles_are_bijective_and_mma_slices_agree_with_descriptors(major, swz, dtype, rmul, cmul, base):
    if major == "K" and swz is smem.SW128_BASE32B:
        with pytest.raises(LayoutError):
            smem.make_tile(major, swz, 8, 64, dtype)
        return
    e = {"bf16": 2, "tf32": 4, "e4m3": 1}[dtype]
    if major == "K":
        rows, cols = 8 * rmul, (swz.width // e if swz.swizzled else 32 // e) * cmul
    else:
        rows = ((128 if swz is smem.SW128_BASE32B else swz.width) // e) * rmul
        cols = max(8, 32 // e) * cmul
    tile = smem.make_tile(major, swz, rows, cols, dtype, base=base)
    assert not [p for p in tile.problems() if p.severity == "error"]
    for sl in tile.mma_slices():
        for mn in range(rows):
            for k in range(min(tile.mma_k, cols - sl.k0)):
                want = tile.offset(mn, sl.k0 + k)
                assert smem.element_address(sl.descriptor(), major, e, mn, k) == want


def test_overlapping_strides_are_reported():
    tile = smem.make_tile("K", "none", 16, 16, "bf16", lbo=16, sbo=128)
    assert "overlap" in [p.code for p in tile.problems()]


@pytest.mark.parametrize("args", [("K", "128B", 128, 16, "bf16"), ("K", "96B", 128, 64, "bf16"),
                                  ("X", "none", 8, 8, "bf16"), ("K", "none", 12, 8, "bf16"),
                                  ("K", "none", 8, 8, "f64"), ("MN", "64B", 16, 8, "bf16")])
def test_bad_tiles_are_refused(args):
    with pytest.raises(LayoutError):
        smem.make_tile(*args)


# ---------------------------------------------------------------- descriptors

FIELD = st.integers(0, (1 << 14) - 1).map(lambda v: v << 4)


@settings(deadline=None)
@given(FIELD, FIELD, FIELD, st.sampled_from(smem.SWIZZLES))
def test_smem_desc_round_trip(start, lbo, sbo, swz):
    value = descriptors.encode_smem_desc(start, lbo, sbo, swz)
    d = descriptors.decode_smem_desc(value)
    assert (d.start, d.lbo, d.sbo, d.swizzle, d.fixed_46_48) == (start, lbo, sbo, swz, 1)
    assert not [p for p in d.problems if p.code in ("fixed-46-48", "layout-type", "base-offset")]


@settings(deadline=None)
@given(st.integers(0, (1 << 64) - 1))
def test_smem_desc_decode_is_total_and_reencodes(value):
    d = descriptors.decode_smem_desc(value)
    rebuilt = (d.start >> 4 | d.reserved_14_15 << 14 | d.lbo >> 4 << 16 | d.reserved_30_31 << 30 | d.sbo >> 4 << 32
               | d.fixed_46_48 << 46 | d.base_offset << 49 | d.lbo_mode << 52 | d.reserved_53_60 << 53
               | d.layout_code << 61)
    assert rebuilt == value


def test_smem_desc_named_problems():
    good = descriptors.encode_smem_desc(0, 16, 1024, "128B")
    assert descriptors.decode_smem_desc(good).ok
    assert good == 0x4000404000010000
    codes = lambda v: {p.code for p in descriptors.decode_smem_desc(v).problems}  # noqa: E731
    assert "fixed-46-48" in codes(good & ~(1 << 46))
    assert "base-offset" in codes(good | 3 << 49)
    assert "lbo-mode" in codes(good | 1 << 52)
    assert "reserved-53-60" in codes(good | 1 << 55)
    assert "layout-type" in codes((good & ~(7 << 61)) | 3 << 61)
    assert "reserved-14-15" in codes(good | 1 << 14)
    hopper = wgmma.encode_wgmma_desc(0, 16, 1024, "128B")
    assert any("Hopper" in p.message for p in descriptors.decode_smem_desc(hopper).problems)
    k_base32 = descriptors.encode_smem_desc(0, 16, 512, "128B_base32B")
    assert "base32b-k-major" in {p.code for p in descriptors.decode_smem_desc(k_base32, "K").problems}


@pytest.mark.parametrize("kwargs", [dict(start=8, lbo=16, sbo=16), dict(start=1 << 18, lbo=16, sbo=16),
                                    dict(start=0, lbo=16, sbo=16, swizzle="96B"),
                                    dict(start=0, lbo=16, sbo=16, base_offset=8)])
def test_smem_desc_encode_refuses_out_of_range(kwargs):
    with pytest.raises(LayoutError):
        descriptors.encode_smem_desc(**kwargs)


def test_advance_adds_to_the_start_field():
    d = descriptors.encode_smem_desc(0, 16, 1024, "128B")
    new, problems = descriptors.advance_smem_desc(d, 32)
    assert descriptors.decode_smem_desc(new).start == 32 and not problems
    _, problems = descriptors.advance_smem_desc(descriptors.encode_smem_desc((1 << 18) - 16, 16, 1024), 32)
    assert [p.code for p in problems] == ["start-carry"]


def test_wgmma_and_sm100_codes_relate_by_bit_46():
    for name in ("none", "32B", "64B", "128B"):
        h = wgmma.encode_wgmma_desc(1024, 16, 1024, name)
        b = descriptors.encode_smem_desc(1024, 16, 1024, name)
        assert wgmma.sm100_from_wgmma(h) == b
        assert wgmma.wgmma_from_sm100(b) == h
    with pytest.raises(LayoutError):
        wgmma.encode_wgmma_desc(0, 16, 512, "128B_base32B")


def test_idesc_golden_values():
    assert idesc.encode("f16", "f16", "f32", 128, 256) == 0x08400010
    d = idesc.decode(0x08400010)
    assert (d.kind, d.m, d.n, d.k, d.ok) == ("f16", 128, 256, 16, True)
    assert idesc.encode("bf16", m=128, n=64) == 0x08100490
    assert idesc.encode("tf32", d="f32", m=64, n=8) == 0x04020910


@settings(deadline=None)
@given(st.sampled_from([("f16", "f16"), ("f16", "f32"), ("bf16", "f32"), ("tf32", "f32")]),
       st.sampled_from([64, 128]), st.integers(1, 32).map(lambda v: 8 * v), st.sampled_from(["K", "MN"]),
       st.sampled_from(["K", "MN"]), st.booleans(), st.booleans())
def test_idesc_round_trip(types, m, n, am, bm, na, nb):
    value = idesc.encode(types[0], None, types[1], m, n, am, bm, na, nb)
    d = idesc.decode(value)
    assert d.ok and (d.m, d.n, d.a_major, d.b_major, d.negate_a, d.negate_b) == (m, n, am == "MN", bm == "MN", na, nb)


def test_idesc_named_problems():
    codes = lambda v: {p.code for p in idesc.decode(v).problems}  # noqa: E731
    m_at_bit_23 = 0x10 | 1 << 7 | 1 << 10 | 8 << 17 | 8 << 23  # M>>4 shifted by 23: decodes as M=64 + bit 23
    assert idesc.decode(m_at_bit_23).m == 64
    assert codes(0x08100490 | 1 << 23) == {"reserved-23"}
    assert "mixed-ab" in codes(0x08100010 | 1 << 7)
    assert "d-format" in codes(0x08100000 | 1 << 7 | 1 << 10)
    assert "m" in codes(0x10 << 24 | 0x10 | 8 << 17)
    assert "n" in codes(0x08000010)
    assert "sparse" in codes(0x08400010 | 1 << 2)
    probs = {p.code for p in idesc.operand_problems(0x08400010 | 1 << 15, a_from_tmem=True)}
    assert "ts-a-major" in probs
    tf32_mn = idesc.encode("tf32", a_major="MN", n=64)
    assert "a-tf32-mn" in {p.code for p in idesc.operand_problems(tf32_mn, "128B", "128B")}
    assert not idesc.operand_problems(tf32_mn, "128B_base32B", "128B")


@pytest.mark.parametrize("kwargs", [dict(a="f16", b="bf16"), dict(a="bf16", d="f16"), dict(m=256), dict(n=260),
                                    dict(n=12), dict(a="e4m3"), dict(a="f16", d="tf32")])
def test_idesc_encode_refuses(kwargs):
    with pytest.raises(LayoutError):
        idesc.encode(**kwargs)


# ---------------------------------------------------------------- banks

def test_wavefront_model():
    rows = [t * 128 for t in range(32)]  # every lane hits bank 0 of a different word
    assert banks.wavefronts(rows, 4).wavefronts == 32
    assert banks.wavefronts([t * 4 for t in range(32)], 4).wavefronts == 1
    assert banks.wavefronts([0] * 32, 4).wavefronts == 1  # broadcast
    assert banks.wavefronts([t * 16 for t in range(32)], 16).wavefronts == 4
    tile = smem.make_tile("K", "128B", 128, 64, "bf16")
    swizzled = [tile.offset(t % 8, 0) for t in range(8)] + [None] * 24
    assert banks.wavefronts(swizzled, 16).conflicts == 0
    plain = smem.make_tile("K", "none", 128, 64, "bf16", lbo=16, sbo=1024)
    assert banks.wavefronts([plain.offset(t * 8, 0) for t in range(8)] + [None] * 24, 16).wavefronts == 8


def test_index_expressions_are_restricted():
    tree = banks.compile_index_expr("(t // 4) * 8 + (t % 4) * 2 + i")
    assert banks.eval_index_expr(tree, t=6, i=1) == 13
    for bad in ("__import__('os')", "t / 2", "t.real", "x + 1", "1.5"):
        with pytest.raises(LayoutError):
            banks.compile_index_expr(bad)


@settings(deadline=None)
@given(FIELD, FIELD, FIELD, st.sampled_from([smem.NONE, smem.SW32, smem.SW64, smem.SW128]), st.integers(0, 7))
def test_wgmma_desc_round_trip(start, lbo, sbo, swz, base):
    d = wgmma.decode_wgmma_desc(wgmma.encode_wgmma_desc(start, lbo, sbo, swz, base))
    assert (d.start, d.lbo, d.sbo, d.swizzle, d.base_offset, d.unused_bits) == (start, lbo, sbo, swz, base, 0)


@given(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF))
def test_tmem_address_round_trip(lane, col):
    assert tmem.split_addr(tmem.join_addr(lane, col)) == (lane, col)


@settings(deadline=None, max_examples=200)
@given(st.integers(-2, 20), st.integers(-1, 7), st.integers(0, 1 << 70),
       st.lists(st.integers(0, 1 << 34), max_size=6), st.lists(st.integers(0, 1 << 41), max_size=6),
       st.lists(st.integers(0, 300), max_size=6), st.lists(st.integers(0, 10), max_size=6),
       st.integers(-1, 3), st.integers(-1, 8), st.integers(-1, 4), st.integers(-1, 2))
def test_tensormap_validator_is_total(dtype, rank, addr, dims, strides, box, es, inter, swz, l2, oob):
    from fmhactl.layout import tensormap as tm

    p = tm.TensorMapParams(dtype, rank, addr, tuple(dims), tuple(strides), tuple(box), tuple(es), inter, swz, l2, oob)
    results = tm.check_rules(p)
    assert {r.status for r in results} <= {"ok", "violated", "warning", "n/a"}
    if tm.is_valid(p):
        assert 1 <= rank <= 5 and len(dims) == rank and all(1 <= b <= 256 for b in box)
