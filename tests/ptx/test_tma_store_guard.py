"""Strict PTX path: every TMA tile store is guarded by tc5ptx_tma_store_check, which names a box
that starts at a negative coordinate (tma-store-negative) and skips the store; on sm_90 that
store is an illegal instruction that kills the context (scripts/device/tma_negative_probe.cu).

The hook, rewrite and link tests run on the CPU; the launch tests need a GPU (sm_90 runs them)."""

from __future__ import annotations

import ctypes

import pytest

from fmhactl.plans.tcgen05_abi import ERROR_CODES, OP_CODES, PTX_PATH_ERRORS
from fmhactl.ptx import linker, parser, rewriter
from fmhactl.ptx.strict_hooks import BULK_STORE_TENSOR, TMA_STORE_CHECK, hooks_of
from fmhactl.runtime import emulation as emu
from tests.ptx.test_rewrite_link import kernel, rewritten_block, strict_build

STORE_2D = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, %r2}], [%r3];"


@pytest.mark.parametrize("line, coords", [
    (STORE_2D, ("%r1", "%r2", "0", "0", "0", "2")),
    ("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group.L2::cache_hint [%rd4, {%r5, %r6, %r7, %r8}], "
     "[%r3+1024], %rd2;", ("%r5", "%r6", "%r7", "%r8", "0", "4")),
    ("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {0, -32}], [%r3];",
     ("0", "-32", "0", "0", "0", "2")),
    ("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r1}], [%r3];", ("%r1", "0", "0", "0", "0", "1")),
    ("cp.async.bulk.tensor.5d.global.shared::cluster.bulk_group [%rd1, {%r1, %r2, %r3, %r4, %r5}], [%r6];",
     ("%r1", "%r2", "%r3", "%r4", "%r5", "5")),
    ("cp.async.bulk.tensor.3d.global.shared::cta [%rd1, {%r1, %r2, %r3}], [%r6];",
     ("%r1", "%r2", "%r3", "0", "0", "3")),
])
def test_tma_store_gets_the_negative_coordinate_guard(line, coords):
    hooked = hooks_of(line, 9)
    assert hooked is not None and hooked.guard is not None
    assert (hooked.guard.entry, hooked.guard.args) == (TMA_STORE_CHECK, (*coords, "9"))
    # a .bulk_group store is also tracked through its async-group (tests/ptx/test_bulk_groups.py)
    tracked = [BULK_STORE_TENSOR] if ".bulk_group" in line else []
    assert [c.entry for c in hooked.before] == tracked and hooked.after == ()


def test_guarded_store_keeps_its_label_and_predicate():
    hooked = hooks_of(f"$L__BB0_7: @!%p1 {STORE_2D}", 4)
    assert hooked is not None and hooked.label == "$L__BB0_7" and hooked.predicate == "!%p1"
    assert hooked.guard is not None and hooked.guard.args[-1] == "4"


@pytest.mark.parametrize("line", [
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd1, {%r1, %r2}], [%r6];",
    "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [%r4], [%rd1, {%r1, %r2}], [%r6];",
    "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r1, %r2, %r3}], [%r6];",
    "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 4096;",   # plain bulk copy: no box
    "cp.async.bulk.commit_group;",
])
def test_loads_and_other_bulk_copies_get_no_guard(line):
    hooked = hooks_of(line, 3)
    assert hooked is None or hooked.guard is None


def test_store_check_is_a_ptx_path_rule():
    assert ERROR_CODES["tma-store-negative"] in range(31, emu.ERROR_COUNT)
    assert "tma-store-negative" in emu.STRICT_ERRORS and "tma-store-negative" in PTX_PATH_ERRORS
    rec = emu.ViolationRecord(ERROR_CODES["tma-store-negative"], OP_CODES["tma_store"], 0, 0, 0, 12, 1,
                              0xFFFFFFE0, 0, 0, 0, 0)
    text = str(emu.Violation.from_record(rec))
    assert text.startswith("tcgen05 tma-store-negative: tma_store at line 12")
    assert "coordinate -32 in dimension 1" in text and "skipped" in text


# Lines of one module: (store line, what the rewrite must branch on before the check, if anything).
STORES = [
    (STORE_2D, None),
    (f"@%p1 {STORE_2D}", "@!%p1 bra"),
    (f"@!%p1 {STORE_2D}", "@%p1 bra"),
    (f"$L__ST: {STORE_2D}", None),
    ("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group.L2::cache_hint [%rd1, {%r5, %r6, %r7, %r8}], "
     "[%r3+1024], %rd2;", None),
    ("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {0, -32}], [%r3];", None),
]
LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd1, {%r1, %r2}], [%r6];"
BODY = [line for line, _ in STORES] + [LOAD, "cp.async.bulk.commit_group;", "cp.async.bulk.wait_group.read 0;"]


@pytest.fixture(scope="module")
def strict_stores() -> tuple[linker.PtxBuild, list[int]]:
    return strict_build(BODY, "stores-strict.ptx")


def test_guarded_stores_assemble_for_sm90(strict_stores):
    built, _ = strict_stores
    assert built.cubin[:4] == b"\x7fELF"  # ptxas accepted the guard blocks, branches and labels
    assert TMA_STORE_CHECK in built.rewritten.functions
    assert f"(.param .b32 func_retval0) {TMA_STORE_CHECK}(" in built.rewritten.text


@pytest.mark.parametrize("index", range(len(STORES)))
def test_each_store_is_skipped_when_the_check_says_zero(strict_stores, index):
    built, numbers = strict_stores
    line, predicate_branch = STORES[index]
    block = rewritten_block(built, numbers[index])
    skip = f"$tc5ptx_hook{numbers[index]}g"
    body = line.split(": ", 1)[1] if line.startswith("$") else line
    call = next(i for i, text in enumerate(block) if text.startswith(f"call (tc5r), {TMA_STORE_CHECK},"))
    store = block.index(body)  # the store itself, as written (predicate kept)
    assert f"st.param.b32 [tc5p6], {numbers[index]};" in block  # site: the store's PTX line
    assert block[call + 1:call + 5] == ["ld.param.b32 %tc5ok, [tc5r+0];", "}", "setp.eq.u32 %tc5skip, %tc5ok, 0;",
                                        f"@%tc5skip bra {skip};"]
    assert call < store and block[store + 1] == f"{skip}:"
    if predicate_branch is not None:  # a false predicate skips the check with the store
        assert f"{predicate_branch} {skip};" in block[:call]
    if line.startswith("$"):
        assert block[0] == "$L__ST:"


def test_immediate_coordinates_are_passed_as_written(strict_stores):
    built, numbers = strict_stores
    block = rewritten_block(built, numbers[5])
    check = next(i for i, text in enumerate(block) if text.startswith(f"call (tc5r), {TMA_STORE_CHECK},"))
    assert ["st.param.b32 [tc5p0], 0;", "st.param.b32 [tc5p1], -32;", "st.param.b32 [tc5p5], 2;"] == \
        [text for text in block[:check] if text.startswith(("st.param.b32 [tc5p0]", "st.param.b32 [tc5p1]",
                                                             "st.param.b32 [tc5p5]"))]


def test_load_is_not_guarded(strict_stores):
    built, numbers = strict_stores
    block = rewritten_block(built, numbers[len(STORES)])
    assert not [text for text in block if TMA_STORE_CHECK in text]
    assert any(text.startswith("call tc5ptx_tma_load,") for text in block)


def test_fast_rewrite_leaves_stores_as_written():
    text = kernel(BODY)
    rewritten = rewriter.rewrite(parser.parse(text), {}, (9, 0), "stores-fast.ptx")
    assert TMA_STORE_CHECK not in rewritten.text and "tc5ptx_" not in "".join(rewritten.functions)
    kept = [line.strip() for line in rewritten.text.splitlines()]
    for line in BODY:
        assert line in kept


# ---- on a GPU: a hand-written sm_100a kernel stores a 32-row box of a (1, 128, 1, 64) bf16 tensor --------------
ROWS = 32
# Thread t fills SMEM row t (128 bytes, the SW128 swizzle only permutes 16-byte chunks within a row)
# with bf16(t + 1); thread 0 stores the box at {0, row, 0, 0}.
STORE_KERNEL = f"""\
.version 9.0
.target sm_100a
.address_size 64

.visible .entry tma_store(
\t.param .align 128 .b8 tma_store_param_0[128],
\t.param .u32 tma_store_param_1
)
.reqntid {ROWS}, 1, 1
{{
\t.reg .pred %p<3>;
\t.reg .b32 %r<12>;
\t.reg .f32 %f<2>;
\t.reg .b64 %rd<3>;
\t.shared .align 1024 .b8 tile[{ROWS * 128}];
\tmov.b64 %rd2, tma_store_param_0;
\tcvta.param.u64 %rd1, %rd2;
\tld.param.u32 %r7, [tma_store_param_1];
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
\tadd.u32 %r10, %r10, 4;
\tsetp.lt.u32 %p2, %r10, 128;
\t@%p2 bra $L_fill;
\tfence.proxy.async.shared::cta;
\tbar.sync 0;
\tsetp.eq.u32 %p1, %r1, 0;
\tmov.u32 %r5, 0;
\t@%p1 cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%rd1, {{%r5, %r7, %r5, %r5}}], [%r8];
\t@%p1 cp.async.bulk.commit_group;
\t@%p1 cp.async.bulk.wait_group.read 0;
\tret;
}}
"""


def _store_line() -> int:
    return next(n for n, line in enumerate(STORE_KERNEL.splitlines(), 1) if "cp.async.bulk.tensor" in line)


def test_store_kernel_is_guarded_and_links():
    built = linker.build(STORE_KERNEL, "tma_store.ptx", optimize=0, strict=True)
    assert built.cubin[:4] == b"\x7fELF"
    assert f"st.param.b32 [tc5p6], {_store_line()};" in built.rewritten.text


@pytest.fixture(scope="module")
def store_cubin(tmp_path_factory):
    path = tmp_path_factory.mktemp("tma_store") / "tma_store_strict.cubin"
    path.write_bytes(linker.build(STORE_KERNEL, "tma_store.ptx", strict=True).cubin)
    return path


def _run_store(cubin, row: int):
    import torch

    from fmhactl.runtime.driver import LoadedModule, launch, synchronize
    from fmhactl.runtime.tma_maps import encode

    torch.zeros(1, device="cuda")
    out = torch.zeros(1, 128, 1, 64, device="cuda", dtype=torch.bfloat16)
    module = LoadedModule(cubin)
    with emu.EmulationSession(module, 1) as session:
        assert session.strict
        stream = torch.cuda.current_stream().cuda_stream
        session.reset(stream)
        launch(module.function("tma_store"), (1, 1, 1), (ROWS, 1, 1), 0, stream, encode(out, ROWS), ctypes.c_int32(row))
        synchronize(stream)
        violations = session.collect()
    return out[0, :, 0, :].float().cpu(), violations


@pytest.mark.gpu
@pytest.mark.parametrize("row", [-32, -64])
def test_negative_store_is_named_and_skipped(store_cubin, row):
    out, violations = _run_store(store_cubin, row)
    assert [(v.name, v.op, v.site, v.warp) for v in violations] == [("tma-store-negative", "tma_store", _store_line(), 0)]
    assert f"coordinate {row} in dimension 1" in violations[0].detail
    assert not out.any()  # skipped: nothing written, and the context survived to copy it back


@pytest.mark.gpu
def test_store_at_row_zero_runs_as_written(store_cubin):
    import torch

    out, violations = _run_store(store_cubin, 0)
    assert violations == []
    expected = torch.zeros(128, 64)
    expected[:ROWS] = torch.arange(1, ROWS + 1, dtype=torch.float32)[:, None]
    assert torch.equal(out, expected)
