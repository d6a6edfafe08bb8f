"""Strict PTX path: bulk stores are tracked through their bulk async-groups.

Per the PTX ISA (cp.async.bulk.commit_group / wait_group) groups are per thread and a
`wait_group{.read} N` retires every group but the N most recent. The rewriter calls
tc5ptx_bulk_store_tensor / tc5ptx_bulk_store before each `.bulk_group` store (its source is
fingerprinted), tc5ptx_bulk_commit after each commit_group and tc5ptx_bulk_wait after each
wait_group; a retired store whose source changed is tma-store-source-overwritten, a store no
wait_group retired when the CTA exits is tma-store-pending-at-exit (host check).

The hook, rewrite, link and host tests run on the CPU; the launch tests need a GPU (sm_90 runs them):
    pytest -q tests/ptx/test_bulk_groups.py -m gpu -p no:cacheprovider
"""

from __future__ import annotations

import ctypes

import pytest

from fmhactl.errors import BadInput
from fmhactl.layout.tensormap import make_params
from fmhactl.plans.tcgen05_abi import ERROR_CODES, OP_CODES, PTX_PATH_ERRORS, STRICT_BULK, TMA_BOXES
from fmhactl.ptx import linker, parser, rewriter
from fmhactl.ptx.strict_hooks import (BULK_COMMIT, BULK_STORE, BULK_STORE_TENSOR, BULK_WAIT, TMA_STORE_CHECK,
                                      hooks_of)
from fmhactl.runtime import emulation as emu
from tests.ptx.test_rewrite_link import kernel, rewritten_block, strict_build

RULES = ("tma-store-source-overwritten", "tma-store-pending-at-exit")


def calls(line: str, site: int = 7) -> tuple[list, list, str | None]:
    hooked = hooks_of(line, site)
    assert hooked is not None, line
    return ([(c.entry, c.args) for c in hooked.before], [(c.entry, c.args) for c in hooked.after],
            hooked.guard.entry if hooked.guard else None)


# ---- which lines get which hook (no compiler) ------------------------------------------------------------------
@pytest.mark.parametrize("line, before, guard", [
    # a tile store: the negative-coordinate guard first, then the tracking call with the map register
    ("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, %r2}], [%r3];",
     [(BULK_STORE_TENSOR, ("%rd1", "[%r3]", "7"))], TMA_STORE_CHECK),
    ("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group.L2::cache_hint [%rd4, {%r5, %r6, %r7, %r8}], "
     "[%r3+1024], %rd2;", [(BULK_STORE_TENSOR, ("%rd4", "[%r3+1024]", "7"))], TMA_STORE_CHECK),
    ("cp.async.bulk.tensor.1d.global.shared::cluster.bulk_group [%rd1, {%r1}], [tile];",
     [(BULK_STORE_TENSOR, ("%rd1", "[tile]", "7"))], TMA_STORE_CHECK),
    # a reduction into global memory reads its source the same way (no negative-coordinate probe: no guard)
    ("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1, %r2}], [%r3];",
     [(BULK_STORE_TENSOR, ("%rd1", "[%r3]", "7"))], None),
    # im2col footprint is not the map's tile box, and a map symbol has no generic address at hand: map 0
    ("cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r1, %r2, %r3}], [%r6];",
     [(BULK_STORE_TENSOR, ("0", "[%r6]", "7"))], None),
    ("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tmap_o, {%r1, %r2}], [%r3];",
     [(BULK_STORE_TENSOR, ("0", "[%r3]", "7"))], TMA_STORE_CHECK),
    # non-tensor copies carry their size
    ("cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 4096;", [(BULK_STORE, ("[%r2]", "4096", "7"))], None),
    ("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [%r2+64], %r4, %rd5;",
     [(BULK_STORE, ("[%r2+64]", "%r4", "7"))], None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r2], %r4;",
     [(BULK_STORE, ("[%r2]", "%r4", "7"))], None),
])
def test_each_bulk_group_store_is_tracked(line, before, guard):
    assert calls(line) == (before, [], guard)


@pytest.mark.parametrize("line, after", [
    ("cp.async.bulk.commit_group;", [(BULK_COMMIT, ("7",))]),
    ("cp.async.bulk.wait_group 0;", [(BULK_WAIT, ("0", "7"))]),
    ("cp.async.bulk.wait_group.read 2;", [(BULK_WAIT, ("2", "7"))]),
    ("\tcp.async.bulk.wait_group.read 0; // epilogue", [(BULK_WAIT, ("0", "7"))]),
])
def test_commit_and_wait_are_hooked_after_the_line(line, after):
    assert calls(line) == ([], after, None)


@pytest.mark.parametrize("line", [
    # no .bulk_group: not in any bulk async-group (PTX ISA, commit_group), so only the guard
    "cp.async.bulk.tensor.3d.global.shared::cta [%rd1, {%r1, %r2, %r3}], [%r6];",
    # loads complete through an mbarrier, prefetches have no completion, cp_mask does not link for sm_90a
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd1, {%r1, %r2}], [%r6];",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2], 4096, [%r3];",
    "cp.async.bulk.prefetch.L2.global [%rd1], 4096;",
    "cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%r2], 4096, %rs1;",
    "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r1], [%r2], 64, [%r3];",
    "cp.async.wait_group 0;",          # the non-bulk cp.async groups are another mechanism
    "cp.async.commit_group;",
])
def test_other_copies_are_not_tracked(line):
    hooked = hooks_of(line, 3)
    tracked = {BULK_STORE_TENSOR, BULK_STORE, BULK_COMMIT, BULK_WAIT}
    assert hooked is None or not {c.entry for c in (*hooked.before, *hooked.after)} & tracked


def test_label_and_predicate_are_kept():
    hooked = hooks_of("$L__BB0_9: @!%p2 cp.async.bulk.wait_group.read 1;", 5)
    assert hooked is not None and hooked.label == "$L__BB0_9" and hooked.predicate == "!%p2"
    assert [(c.entry, c.args) for c in hooked.after] == [(BULK_WAIT, ("1", "5"))]
    hooked = hooks_of("@%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r2], 512;", 6)
    assert hooked is not None and hooked.predicate == "%p1" and hooked.before[0].entry == BULK_STORE


# ---- one strict module with every form: rewritten, assembled, linked --------------------------------------------
TENSOR_STORE = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, %r2}], [%r3];"
BODY = [
    TENSOR_STORE,
    "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1, %r2}], [%r3+1024];",
    "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 4096;",
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r2], %r4;",
    "cp.async.bulk.commit_group;",
    "@%p1 cp.async.bulk.wait_group.read 1;",
    "cp.async.bulk.wait_group 0;",
]


@pytest.fixture(scope="module")
def strict_bulk() -> tuple[linker.PtxBuild, list[int]]:
    return strict_build(BODY, "bulk-strict.ptx")


def _call_index(block: list[str], entry: str) -> int:
    return next(i for i, text in enumerate(block) if text.startswith(f"call {entry},"))


def test_bulk_hooks_assemble_and_link_for_sm90(strict_bulk):
    built, _ = strict_bulk
    assert built.cubin[:4] == b"\x7fELF"
    assert {BULK_STORE_TENSOR, BULK_STORE, BULK_COMMIT, BULK_WAIT} <= set(built.rewritten.functions)
    assert f".extern .func {BULK_STORE_TENSOR}(.param .b64 " in built.rewritten.text  # the map: a 64-bit address


@pytest.mark.parametrize("index, entry", [(0, BULK_STORE_TENSOR), (1, BULK_STORE_TENSOR), (2, BULK_STORE),
                                          (3, BULK_STORE)])
def test_stores_are_fingerprinted_before_they_issue(strict_bulk, index, entry):
    built, numbers = strict_bulk
    block = rewritten_block(built, numbers[index])
    track, store = _call_index(block, entry), block.index(BODY[index])
    assert track < store
    assert f"st.param.b32 [tc5p2], {numbers[index]};" in block[:track]  # site: the store's PTX line
    if entry == BULK_STORE_TENSOR:
        assert "st.param.b64 [tc5p0], %rd1;" in block[:track]
    if index == 0:  # the negative-coordinate guard runs first and skips the tracking with the store
        guard = next(i for i, text in enumerate(block) if text.startswith(f"call (tc5r), {TMA_STORE_CHECK},"))
        skip = f"$tc5ptx_hook{numbers[0]}g"
        assert guard < track and f"@%tc5skip bra {skip};" in block[guard:track] and block[store + 1] == f"{skip}:"


def test_source_offsets_and_sizes_are_passed(strict_bulk):
    built, numbers = strict_bulk
    reduce_tensor = rewritten_block(built, numbers[1])
    assert "add.u32 %tc5t0, %r3, 1024;" in reduce_tensor and "st.param.b32 [tc5p1], %tc5t0;" in reduce_tensor
    assert ["st.param.b32 [tc5p0], %r2;", "st.param.b32 [tc5p1], 4096;"] == [
        text for text in rewritten_block(built, numbers[2]) if text.startswith(("st.param.b32 [tc5p0]", "st.param.b32 [tc5p1]"))]
    assert "st.param.b32 [tc5p1], %r4;" in rewritten_block(built, numbers[3])


def test_commit_and_wait_hooks_follow_their_line(strict_bulk):
    built, numbers = strict_bulk
    commit = rewritten_block(built, numbers[4])
    assert commit.index(BODY[4]) < _call_index(commit, BULK_COMMIT)
    for index, n in ((5, "1"), (6, "0")):
        block = rewritten_block(built, numbers[index])
        wait = block.index(BODY[index])
        call = _call_index(block, BULK_WAIT)
        assert wait < call and f"st.param.b32 [tc5p0], {n};" in block[wait:call]
        assert f"st.param.b32 [tc5p1], {numbers[index]};" in block[wait:call]
    predicated = rewritten_block(built, numbers[5])  # a false predicate skips the hook with the wait
    label = f"$tc5ptx_hook{numbers[5]}a"
    assert predicated[predicated.index(BODY[5]) + 1] == f"@!%p1 bra {label};" and predicated[-1] == f"{label}:"


def test_fast_rewrite_leaves_bulk_lines_as_written():
    rewritten = rewriter.rewrite(parser.parse(kernel(BODY)), {}, (9, 0), "bulk-fast.ptx")
    assert not [f for f in rewritten.functions if f.startswith("tc5ptx_bulk")]
    kept = [line.strip() for line in rewritten.text.splitlines()]
    assert all(line in kept for line in BODY)


# ---- host side: codes, report text, exit check, declared maps ---------------------------------------------------
def test_rules_are_strict_ptx_path_rules():
    assert [ERROR_CODES[r] for r in RULES] == [32, 33] and emu.ERROR_COUNT == max(ERROR_CODES.values()) + 1 >= 34
    assert set(RULES) <= emu.STRICT_ERRORS and set(RULES) <= PTX_PATH_ERRORS
    assert OP_CODES["bulk_store"] == 20 and OP_CODES["bulk_wait"] == 21


def test_overwritten_source_names_the_store_and_the_wait():
    rec = emu.ViolationRecord(ERROR_CODES["tma-store-source-overwritten"], OP_CODES["tma_store"], 3, 1, 0, 40,
                              0x400, 4096, OP_CODES["bulk_wait"], 44, 1, 0)
    text = str(emu.Violation.from_record(rec))
    assert text.startswith("tcgen05 tma-store-source-overwritten: tma_store at line 40, block 3 warp 1")
    assert "SMEM 0x400..0x1400 (4096 bytes checked)" in text
    assert text.endswith("other operation: bulk_wait at line 44 (warp 1)")


def test_store_no_wait_retired_is_pending_at_exit():
    trackers = (emu.StrictCta * 2)()
    trackers[1].bulk[3] = emu.StrictBulkStore(thread=34, commits=1, src=0x800, bytes=4096, site=71,
                                              op=OP_CODES["tma_store"])
    trackers[1].bulk[5] = emu.StrictBulkStore(thread=34, commits=0, src=0x1800, bytes=512, site=80,
                                              op=OP_CODES["bulk_store"])
    out = emu.in_flight_at_exit(trackers)
    assert [(v.name, v.block, v.warp, v.lane, v.site, v.op, v.other_op) for v in out] == [
        ("tma-store-pending-at-exit", 1, 1, 1, 71, "tma_store", "exit")]  # one report per CTA: the first slot
    assert "SMEM 0x800 (committed, 1 commit_group(s) ago)" in out[0].detail
    trackers[1].bulk[3] = emu.StrictBulkStore()
    assert "never committed" in emu.in_flight_at_exit(trackers)[0].detail


def test_declared_map_box_comes_from_the_encode_parameters():
    from fmhactl.runtime.tma_maps import TmaMap

    params = make_params("bf16", [64, 128, 1, 1], [128, 16384, 16384], [64, 32, 1, 1], swizzle="128B")
    tmap = TmaMap((ctypes.c_uint64 * 16)(*range(16)))  # stands for the driver's opaque bytes
    box = emu.TensorMapBox.of(tmap, params)
    assert box.box_bytes == 64 * 32 * 2 and box.map_bytes == bytes(tmap)
    table = emu.box_table([box])
    assert (table[0].bytes, list(table[0].map)) == (4096, list(range(16)))
    strided = make_params("f32", [64, 64], [256], [8, 16], element_strides=[1, 4])
    assert emu.TensorMapBox.of(tmap, strided).box_bytes == 8 * 4 * 4  # ceil(16 / 4) rows of 8 floats
    narrow = make_params("bf16", [64, 128], [128], [32, 32], swizzle="128B")  # 64-byte rows, 128-byte swizzle
    with pytest.raises(BadInput, match="pitch is undocumented"):
        emu.TensorMapBox.of(tmap, narrow)


@pytest.mark.parametrize("boxes, message", [
    ([emu.TensorMapBox(bytes(64), 4096)], "is 64 bytes; a CUtensorMap is 128"),
    ([emu.TensorMapBox("0" * 128, 4096)], "is a str, not the map's bytes"),  # type: ignore[arg-type]
    ([emu.TensorMapBox(bytes(128), 40)], "40 bytes is not a positive multiple of 16"),
    ([emu.TensorMapBox(bytes(128), 4096)] * (TMA_BOXES + 1), f"at most {TMA_BOXES}"),
])
def test_bad_declared_maps_are_bad_input(boxes, message):
    with pytest.raises(BadInput, match=message):
        emu.box_table(boxes)


def test_the_store_table_holds_a_pipeline_of_stores():
    assert STRICT_BULK >= 8 and len(emu.StrictCta().bulk) == STRICT_BULK


# ---- on a GPU: a hand-written sm_100a kernel, thread 0 stores 32-row boxes of a (1, 128, 1, 64) bf16 tensor ----
ROWS = 32
CORRECT, RACE, NO_WAIT, TWO_GROUPS, PLAIN_RACE = 1, 2, 3, 4, 5
# All 32 threads fill row t of two 4-KiB tiles (A at `tile`, B at `tile` + 4096) with bf16(t + 1);
# thread 0 then runs scenario `which` (param 1); the overwrite (param 2: its byte offset into the
# tile) writes two bf16 infinities, unlike every filled value. Marked lines are looked up by marker.
KERNEL = """\
.version 9.0
.target sm_100a
.address_size 64

.visible .entry bulk_groups(
\t.param .align 128 .b8 bulk_groups_param_0[128],
\t.param .u32 bulk_groups_param_1,
\t.param .u32 bulk_groups_param_2,
\t.param .u64 bulk_groups_param_3
)
.reqntid 32, 1, 1
{
\t.reg .pred %p<4>;
\t.reg .b32 %r<20>;
\t.reg .f32 %f<2>;
\t.reg .b64 %rd<4>;
\t.shared .align 1024 .b8 tile[8192];
\tmov.b64 %rd2, bulk_groups_param_0;
\tcvta.param.u64 %rd1, %rd2;
\tld.param.u32 %r7, [bulk_groups_param_1];
\tld.param.u32 %r12, [bulk_groups_param_2];
\tld.param.u64 %rd3, [bulk_groups_param_3];
\tmov.u32 %r1, %tid.x;
\tadd.u32 %r2, %r1, 1;
\tcvt.rn.f32.u32 %f1, %r2;
\tmov.b32 %r3, %f1;
\tshr.u32 %r3, %r3, 16;
\tshl.b32 %r4, %r3, 16;
\tor.b32 %r6, %r4, %r3;
\tmov.u32 %r8, tile;
\tmad.lo.u32 %r9, %r1, 128, %r8;
\tmov.u32 %r10, 0;
$L_fill:
\tadd.u32 %r11, %r9, %r10;
\tst.shared.u32 [%r11], %r6;
\tst.shared.u32 [%r11+4096], %r6;
\tadd.u32 %r10, %r10, 4;
\tsetp.lt.u32 %p2, %r10, 128;
\t@%p2 bra $L_fill;
\tfence.proxy.async.shared::cta;
\tbar.sync 0;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra $L_done;
\tmov.u32 %r5, 0;
\tmov.u32 %r13, 32;
\tadd.u32 %r14, %r8, 4096;
\tadd.u32 %r15, %r8, %r12;
\tadd.u32 %r16, %r14, %r12;
\tmov.u32 %r17, 0x7f807f80;
\tsetp.eq.u32 %p2, %r7, 4;
\t@%p2 bra $L_two;
\tsetp.eq.u32 %p2, %r7, 5;
\t@%p2 bra $L_plain;
\tcp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%rd1, {%r5, %r5, %r5, %r5}], [%r8]; // STORE
\tcp.async.bulk.commit_group;
\tsetp.eq.u32 %p3, %r7, 2;
\t@%p3 bra $L_race;
\tsetp.eq.u32 %p3, %r7, 3;
\t@%p3 bra $L_done;
\tcp.async.bulk.wait_group.read 0; // WAIT_THEN_WRITE
\tst.shared.u32 [%r15], %r17;
\tbra $L_done;
$L_race:
\tst.shared.u32 [%r15], %r17;
\tcp.async.bulk.wait_group.read 0; // WAIT_RACE
\tbra $L_done;
$L_two:
\tcp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%rd1, {%r5, %r5, %r5, %r5}], [%r8]; // STORE_OLDER
\tcp.async.bulk.commit_group;
\tcp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%rd1, {%r5, %r13, %r5, %r5}], [%r14]; // STORE_NEWER
\tcp.async.bulk.commit_group;
\tst.shared.u32 [%r16], %r17;
\tcp.async.bulk.wait_group.read 1; // WAIT_ONE
\tcp.async.bulk.wait_group.read 0; // WAIT_ZERO
\tbra $L_done;
$L_plain:
\tcp.async.bulk.global.shared::cta.bulk_group [%rd3], [%r8], 4096; // PLAIN_STORE
\tcp.async.bulk.commit_group;
\tst.shared.u32 [%r15], %r17;
\tcp.async.bulk.wait_group.read 0; // PLAIN_WAIT
$L_done:
\tret;
}
"""


def line_of(marker: str) -> int:
    return next(n for n, line in enumerate(KERNEL.splitlines(), 1) if line.endswith(f"// {marker}"))


def test_scenario_kernel_is_hooked_and_links():
    built = linker.build(KERNEL, "bulk_groups.ptx", optimize=0, strict=True)
    assert built.cubin[:4] == b"\x7fELF"
    text = built.rewritten.text
    for marker in ("STORE", "STORE_OLDER", "STORE_NEWER"):
        assert f"st.param.b32 [tc5p2], {line_of(marker)};" in text  # tc5ptx_bulk_store_tensor's site
    for marker in ("WAIT_THEN_WRITE", "WAIT_RACE", "WAIT_ONE", "WAIT_ZERO", "PLAIN_WAIT"):
        assert f"st.param.b32 [tc5p1], {line_of(marker)};" in text  # tc5ptx_bulk_wait's site
    assert text.count(f"call {BULK_COMMIT},") == 4


@pytest.fixture(scope="module")
def bulk_cubin(tmp_path_factory):
    path = tmp_path_factory.mktemp("bulk_groups") / "bulk_groups_strict.cubin"
    path.write_bytes(linker.build(KERNEL, "bulk_groups.ptx", strict=True).cubin)
    return path


def _run(cubin, which: int, offset: int, *, declare: bool = True):
    """One launch of scenario `which`: (rows stored into the tensor, violations)."""
    import torch

    from fmhactl.runtime.driver import LoadedModule, launch, synchronize
    from fmhactl.runtime.tma_maps import encode_params, map_params

    torch.zeros(1, device="cuda")
    out = torch.zeros(1, 128, 1, 64, device="cuda", dtype=torch.bfloat16)
    params = map_params(out, ROWS)
    tmap = encode_params(params)
    module = LoadedModule(cubin)
    with emu.EmulationSession(module, 1) as session:
        assert session.strict
        session.declare_tensor_maps([emu.TensorMapBox.of(tmap, params)] if declare else [])
        stream = torch.cuda.current_stream().cuda_stream
        session.reset(stream)
        launch(module.function("bulk_groups"), (1, 1, 1), (ROWS, 1, 1), 0, stream, tmap, ctypes.c_uint32(which),
               ctypes.c_uint32(offset), ctypes.c_uint64(out.data_ptr()))
        synchronize(stream)
        violations = session.collect()
    return out[0, :, 0, :].float().cpu(), violations


def _named(violations) -> list[tuple]:
    return [(v.name, v.op, v.site, v.warp, v.other_op, v.other_site) for v in violations]


ROW5 = 5 * 128  # an overwrite past the first 16 bytes: only a declared map's box covers it


@pytest.mark.gpu
@pytest.mark.parametrize("offset", [0, ROW5])
def test_wait_then_overwrite_is_correct(bulk_cubin, offset):
    import torch

    out, violations = _run(bulk_cubin, CORRECT, offset)
    assert violations == []
    expected = torch.zeros(128, 64)
    expected[:ROWS] = torch.arange(1, ROWS + 1, dtype=torch.float32)[:, None]
    assert torch.equal(out, expected)  # the store ran as written: its read finished before the overwrite


@pytest.mark.gpu
@pytest.mark.parametrize("offset", [0, ROW5])
def test_overwrite_before_the_wait_is_named(bulk_cubin, offset):
    _, violations = _run(bulk_cubin, RACE, offset)
    assert _named(violations) == [("tma-store-source-overwritten", "tma_store", line_of("STORE"), 0, "bulk_wait",
                                   line_of("WAIT_RACE"))]
    assert "(4096 bytes checked)" in violations[0].detail  # the declared map's whole box


@pytest.mark.gpu
def test_exit_without_a_wait_is_pending_at_exit(bulk_cubin):
    _, violations = _run(bulk_cubin, NO_WAIT, 0)
    assert _named(violations) == [("tma-store-pending-at-exit", "tma_store", line_of("STORE"), 0, "exit", 0)]
    assert "committed, 1 commit_group(s) ago" in violations[0].detail


@pytest.mark.gpu
def test_wait_group_one_checks_only_the_older_group(bulk_cubin):
    # the newer group's source is overwritten before wait_group.read 1, which retires only the older
    # group (unchanged): the race is named at wait_group.read 0, which retires the newer one
    _, violations = _run(bulk_cubin, TWO_GROUPS, ROW5)
    assert _named(violations) == [("tma-store-source-overwritten", "tma_store", line_of("STORE_NEWER"), 0,
                                   "bulk_wait", line_of("WAIT_ZERO"))]


@pytest.mark.gpu
def test_non_tensor_bulk_store_is_tracked_by_its_size(bulk_cubin):
    _, violations = _run(bulk_cubin, PLAIN_RACE, ROW5)
    assert _named(violations) == [("tma-store-source-overwritten", "bulk_store", line_of("PLAIN_STORE"), 0,
                                   "bulk_wait", line_of("PLAIN_WAIT"))]


@pytest.mark.gpu
@pytest.mark.parametrize("offset, named", [(0, True), (ROW5, False)])
def test_undeclared_map_watches_the_first_16_bytes(bulk_cubin, offset, named):
    # without the host's box size the fingerprint covers only what every box starts with: an
    # overwrite past it is missed (never a false report), one inside it is named
    _, violations = _run(bulk_cubin, RACE, offset, declare=False)
    assert [v.name for v in violations] == (["tma-store-source-overwritten"] if named else [])
    if named:
        assert "(16 bytes checked)" in violations[0].detail
