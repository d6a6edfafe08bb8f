"""The layout model against CUTLASS's CuTe headers compiled for the host (an independent oracle)."""

from __future__ import annotations

import random

import pytest

from fmhactl.layout import accum, descriptors, idesc, smem, tmem, wgmma

pytestmark = pytest.mark.filterwarnings("ignore")


def test_every_tmem_load_trait_matches(tmem_oracle):
    ops = tmem_oracle["ops"]
    assert len(ops) == 74  # 5 shapes x every legal .num x {plain, .16b}
    checked = 0
    for (shape, num, pack), want in ops.items():
        got = {(a.thread, a.reg, a.lane, a.col, a.reg_bit_lo, a.tmem_bit_lo, a.nbits)
               for a in tmem.ld_map(shape, num, pack)}
        assert got == want, f"{shape}.x{num} pack={pack}"
        checked += len(got)
    assert checked > 80_000


def test_every_legal_shape_num_is_a_cutlass_op(tmem_oracle):
    legal = {(s, n, p) for s in tmem.SHAPES for n in tmem.NUMS for p in (False, True)
             if tmem.REGS_PER_REP[s] * n <= 128}
    assert legal == set(tmem_oracle["ops"])


def test_store_traits_are_load_traits_swapped(tmem_oracle):
    assert len(tmem_oracle["store_same"]) == 74
    assert all(tmem_oracle["store_same"].values())


def test_accumulator_layouts_match_tmem_frg(tmem_oracle):
    rows = tmem_oracle["acc"]
    assert rows
    for m_rows, n_cols, tile, m, n, lane, col in rows:
        # CuTe's second M=64 tile (Interleaved) is the same layout at d-tmem lane 16
        assert accum.d_cell(m_rows, m, n, tmem.join_addr(16 * tile, 0)) == (lane, col)


def test_ts_a_layout_matches_tmem_frg(tmem_oracle):
    rows = tmem_oracle["tsa"]
    assert rows
    for m_rows, ebits, _tile, m, k, lane, col, bit in rows:
        assert accum.a_cell(m_rows, m, k, 0, ebits) == (lane, col, bit)


def _block_id(b: dict) -> str:
    return f"{b['major']}-{b['swizzle']}-{b['elem_bytes']}B-order{b['order']}"


def test_canonical_layouts_match_umma_atoms(canon_oracle):
    assert len(canon_oracle) >= 20
    dtype = {1: "u8", 2: "bf16", 4: "tf32"}
    for b in canon_oracle:
        swz = smem.parse_swizzle(b["swizzle"])
        e = b["elem_bytes"]
        s0 = b["slices"][0]
        assert s0["layout"] == swz.umma_code, _block_id(b)
        # the element -> byte map of each MMA's descriptor (spec §5.2 with CUTLASS's LBO/SBO/start)
        for kb, mn, k, byte in b["elements"]:
            s = b["slices"][kb]
            assert smem.desc_offset(b["major"], swz, mn, k, e, s["lbo"], s["sbo"], s["start"]) == byte, \
                (_block_id(b), kb, mn, k)
        # the whole tile; a stride one MMA never crosses is 0 in CuTe's descriptor, so take it from
        # the start of the next MMA instead
        mma_k = 32 // e
        lbo, sbo = s0["lbo"], s0["sbo"]
        if len(b["slices"]) > 1:
            step = b["slices"][1]["start"]
            if b["major"] == "K" and not swz.swizzled and lbo == 0:
                lbo = step // 2
            if b["major"] == "MN":
                groups = mma_k // (4 if swz is smem.SW128_BASE32B else 8)
                if swz.swizzled and sbo == 0:
                    sbo = step // groups
                if not swz.swizzled and lbo == 0:
                    lbo = step // groups
        k_atom = b["rows"] * swz.width if b["major"] == "K" and swz.swizzled else None
        tile = smem.make_tile(b["major"], swz, b["rows"], b["cols"], dtype[e], lbo=lbo, sbo=sbo,
                              k_atom_stride=k_atom)
        for kb, mn, k, byte in b["elements"]:
            assert tile.offset(mn, kb * mma_k + k) == byte, (_block_id(b), kb, mn, k)
        for sl in tile.mma_slices():
            assert sl.start == b["slices"][sl.kb]["start"], (_block_id(b), sl.kb)
        # the model's default strides: CuTe's MN-first tiling for K-major and unswizzled MN-major,
        # TMA's box order (K rows first, order 1) for swizzled MN-major
        tma_order = 1 if b["major"] == "MN" and swz.swizzled else 0
        if b["order"] == tma_order:
            default = smem.make_tile(b["major"], swz, b["rows"], b["cols"], dtype[e])
            got = (default.lbo, default.sbo)
            want = (lbo, sbo)
            assert got == want, (_block_id(b), got, want)


def test_instruction_descriptors_match_make_instr_desc(idesc_oracle):
    assert len(idesc_oracle) == 4 * 9 * 4
    for a, b, c, m, n, am, bm, an, bn, value in idesc_oracle:
        assert idesc.encode(a, b, c, m, n, am, bm, bool(an), bool(bn)) == value
        d = idesc.decode(value)
        assert (d.m, d.n, d.a_major, d.b_major, d.negate_a, d.negate_b) == (m, n, am == "MN", bm == "MN", an, bn)
    assert ("f16", "f16", "f32", 128, 256, "K", "K", 0, 0, 0x08400010) in idesc_oracle


def test_descriptor_bitfields_match_cutlass_unions(fields_oracle):
    rng = random.Random(7)
    requests, expect = [], []
    for _ in range(300):
        f = [rng.randrange(1 << 14), rng.randrange(1 << 14), rng.randrange(1 << 14), rng.randrange(4),
             rng.randrange(8), rng.randrange(2), rng.choice([0, 1, 2, 4, 6])]
        requests.append("S " + " ".join(map(str, f)))
        expect.append(("S", f))
        v = rng.getrandbits(64)
        requests.append(f"D {v:x}")
        expect.append(("D", v))
        g = [rng.randrange(1 << 14), rng.randrange(1 << 14), rng.randrange(1 << 14), rng.randrange(8), rng.randrange(4)]
        requests.append("G " + " ".join(map(str, g)))
        expect.append(("G", g))
        requests.append(f"H {v:x}")
        expect.append(("H", v))
        widths = (4, 2, 2, 4, 8, 8, 2, 2, 2, 2, 64, 32, 4)
        i = [rng.randrange(w) for w in widths]
        requests.append("I " + " ".join(map(str, i)))
        expect.append(("I", i))
        w = rng.getrandbits(32)
        requests.append(f"J {w:x}")
        expect.append(("J", w))
    answers = fields_oracle(requests)
    assert len(answers) == len(requests)
    for (kind, data), answer in zip(expect, answers):
        got = answer.split()
        if kind == "S":
            start, lbo, sbo, version, base, mode, layout = data
            value = int(got[1], 16)
            mine = (start | lbo << 16 | sbo << 32 | version << 46 | base << 49 | mode << 52 | layout << 61)
            assert value == mine
            if version < 8 and layout in (0, 1, 2, 4, 6):
                assert descriptors.encode_smem_desc(start << 4, lbo << 4, sbo << 4, smem.swizzle_from_umma_code(layout),
                                                    base, mode, version) == value
        elif kind == "D":
            d = descriptors.decode_smem_desc(data)
            fields = [int(x) for x in got[2:]]
            # CUTLASS's version_ is the 2-bit field at 46-47; the model reads bits 46-48
            assert fields == [d.start >> 4, d.lbo >> 4, d.sbo >> 4, d.fixed_46_48 & 3, d.base_offset, d.lbo_mode,
                              d.layout_code]
        elif kind == "G":
            start, lbo, sbo, base, layout = data
            value = int(got[1], 16)
            assert value == wgmma.encode_wgmma_desc(start << 4, lbo << 4, sbo << 4,
                                                    smem.swizzle_from_wgmma_code(layout), base)
        elif kind == "H":
            w = wgmma.decode_wgmma_desc(data)
            assert [int(x) for x in got[2:]] == [w.start >> 4, w.lbo >> 4, w.sbo >> 4, w.base_offset, w.layout_code]
        elif kind == "I":
            id2, sp, sat, c, a, b, na, nb, am, bm, n, m, shift = data
            mine = (id2 | sp << 2 | sat << 3 | c << 4 | a << 7 | b << 10 | na << 13 | nb << 14 | am << 15
                    | bm << 16 | n << 17 | m << 24 | shift << 30)
            assert int(got[1], 16) == mine
            assert idesc.decode(mine).n == n << 3 and idesc.decode(mine).m == m << 4
        else:
            d = idesc.decode(data)
            assert [int(x) for x in got[2:]] == [d.sparse_selector, d.sparse, d.saturate, d.d_format, d.a_format,
                                                 d.b_format, d.negate_a, d.negate_b, d.a_major, d.b_major, d.n >> 3,
                                                 d.m >> 4, d.max_shift]
