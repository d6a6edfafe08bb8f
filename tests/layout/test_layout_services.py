"""fmhactl.services.layout / services.tma: the typed entry points the CLI and the TUI share."""

from __future__ import annotations

import pytest

from fmhactl.errors import BadInput
from fmhactl.layout.common import LayoutError
from fmhactl.services import layout as L
from fmhactl.services import tma as T


def test_tmem_cell_names_owner_and_lane_quarter_rule():
    acc = L.tmem_access("32x32b", 8, warp=1)
    assert acc.ok and acc.allowed_lanes == (32, 63)
    info = L.tmem_cell(acc, 40, 3)
    assert info.allowed and [(c.thread, c.reg, c.cta_thread) for c in info.owners] == [(8, 3, 40)]
    wrong = L.tmem_access("32x32b", 8, warp=1, taddr=0)
    assert [p.code for p in wrong.problems] == ["lane-quarter"]
    cell = L.tmem_cell(wrong, 5, 0)
    assert not cell.allowed and cell.violation.startswith("lane-quarter: warp 1")


def test_col_base_and_cells_of_a_thread():
    acc = L.tmem_access("16x256b", 1, warp=2, col_base=64)
    assert acc.cols == tuple(range(64, 72)) and acc.lanes == tuple(range(64, 80))
    # 16x256b.x1 is the mma.sync m16n8 C fragment: thread 5 holds rows 1 and 9, columns 2 and 3
    assert {(c.lane - 64, c.col - 64) for c in acc.cells_of(5)} == {(1, 2), (1, 3), (9, 2), (9, 3)}


def test_accumulator_layouts():
    d = L.accumulator_layout(128, 64)
    assert d.layout == "D" and d.entry(40, 3).lane == 40 and d.alloc_columns == 64
    f = L.accumulator_layout(64, 32, d_tmem=16 << 16)
    assert f.layout == "F" and f.entry(17, 0).lane == 16 + 1 + 32
    pair = L.accumulator_layout(256, 16, cta_group=2)
    assert pair.entry(200, 3) == L.AccumEntry(200, 3, 1, 72, 3) and pair.at(72, 3, cta=1).m == 200
    for bad in ((256, 16, 1), (128, 16, 2), (96, 16, 1), (128, 12, 1)):
        with pytest.raises(BadInput):
            L.accumulator_layout(*bad)


def test_smem_tile_caps_before_work():
    with pytest.raises(LayoutError, match="rows must be in 1..4096"):
        L.smem_tile(rows=1_000_000)
    with pytest.raises(LayoutError, match="elements"):
        L.smem_tile(rows=4096, cols=4096)


def test_descriptor_reach_shows_the_full_d_bug():
    tile = L.smem_tile("K", "none", 128, 64, "bf16")
    for s in tile.mma:  # the right descriptor for each k-block reads exactly that k-block
        assert L.descriptor_reach(tile, s.descriptor, s.k0).wrong == 0
    # seed 000: the descriptor always starts at the tile base while the MMA should consume k 16..31
    stale = L.descriptor_reach(tile, tile.mma[0].descriptor, k0=16)
    assert stale.wrong == len(stale.elements) == 128 * 16
    # editing the start field to the k-block's start fixes it
    fixed = L.edit_descriptor("smem", tile.mma[0].descriptor, "start", tile.mma[1].start >> 4)
    assert L.descriptor_reach(tile, fixed.value, k0=16).wrong == 0


def test_descriptor_views_come_from_the_tables():
    v = L.decode_descriptor("idesc", "0x08400010")
    assert v.ok and v.hex == "0x08400010"
    assert [(f.name, f.bits) for f in v.fields if f.name in ("n", "m")] == [("n", "17-22"), ("m", "24-28")]
    bad = L.edit_descriptor("idesc", v.value, "reserved_23", 1)
    assert not bad.ok and any(f.bad for f in bad.fields if f.name == "reserved_23")
    w = L.decode_descriptor("wgmma", "0x4000004000010000")
    assert w.ok
    for text in ("", "0xZZ", "-1", "0x1" + "0" * 16):
        with pytest.raises(LayoutError, match="shared-memory descriptor"):
            L.decode_descriptor("smem", text)


def test_bank_phases_of_a_conflicting_pattern():
    tile = L.smem_tile("K", "none", 256, 64, "bf16")
    p = L.warp_access(tile, "8*t", "0", 16, 1)  # first rows of core matrices: 128 B apart, same banks
    phases = p.instructions[0].phases
    assert len(phases) == 4 and all(ph.wavefronts == 8 and ph.conflicts == 7 for ph in phases)
    sw = L.warp_access(L.smem_tile("K", "128B", 128, 64, "bf16"), "t", "0", 16, 1)
    assert sw.conflict_free


def test_smem_p_map_both_ends():
    mp = L.smem_p_map("tmem:32x32b:num=8", "smem:K:128B", 128, 128)
    (rec,) = mp.find(row=5, k=70)
    assert rec.thread == 5 and rec in mp.find(thread=5)
    assert mp.stores is not None and mp.stores.conflict_free


def test_column_plans_overlap_and_sm100_provider():
    ok = L.tmem_column_plan(L.TmemColumnPlan("x", (L.TmemRegion("S", "S", 0, 128),
                                                    L.TmemRegion("P", "P", 0, 64, aliases=("S",)),
                                                    L.TmemRegion("O", "O", 128, 128))))
    assert ok.fits and ok.alloc_columns == 256 and ok.column_owners[0] == ("S", "P")
    clash = L.tmem_column_plan(L.TmemColumnPlan("y", (L.TmemRegion("S", "S", 0, 128), L.TmemRegion("O", "O", 64, 512))))
    assert {p.code for p in clash.problems} == {"overlap", "tmem-columns"}
    sm100 = L.tmem_column_plan(L.column_plan_providers()["sm100"]("sm100_tma_s2_tmem", 128))
    assert sm100.fits and sm100.columns_used == 256


def test_tma_fields_name_the_broken_parameter():
    p = T.preset_params("seed002", box_dim=(300, 128, 1))
    result = T.check_tensor_map(p)
    fields = {f.name: f for f in T.tensor_map_fields(result)}
    assert not result.valid and "box-dim-range" in fields["boxDim"].rules and not fields["globalDim"].rules
    with pytest.raises(LayoutError, match="at most 5"):
        T.tensor_map_params("bf16", [1] * 6, None, [16])
