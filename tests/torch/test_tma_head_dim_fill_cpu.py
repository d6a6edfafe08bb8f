"""TMA zero fill on a CPU: which calls backends.choose runs on a wider SM90 kernel through the TMA
loads' zero fill (Backend.tma_fill) and which keep the copy padding, the reason line, the one
helper that says which kernel head dim runs a call, the family's declaration, and what the launch
would be for a d=96 call: the d128 entry, tile plan, launch geometry and SMEM, with tensor maps
and the parameter block over the caller's own 96-column tensors (the real Executor.launch_args,
its driver calls recorded), through the cached path's plan builder and the general path alike.
The GPU side is tests/torch/test_tma_head_dim_fill_gpu.py."""

from __future__ import annotations

import contextlib
import ctypes
import math

import pytest
import torch

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.layout.tensormap import validate
from fmhactl.plans.launch import launch_shape, sm90_plan
from fmhactl.registry import load_registry
from fmhactl.runtime import tma_maps
from fmhactl.runtime.params import FmhaParams
from fmhactl.torch import backends, decode, fastpath, op, padding
from fmhactl.torch import features as _features
from fmhactl.torch import launch as _launch
from fmhactl.torch.inputs import Problem, config_of, to_bshd
from tests.test_registry import GOOD

REG = load_registry()
SM90, SM100 = (9, 0), (10, 0)
SM_COUNT = 132
FILL_VARIANTS = {"sm90_pipelined", "sm90_overlap", "sm90_pingpong", "sm90_pingpong_rescale0", "sm90_persistent",
                 "sm90_persistent_m192", "sm90_persistent_m192_feat", "sm90_pingpong_feat",
                 "sm90_persistent_feat"}


def _cfg(head_dim: int, **kw) -> AttnConfig:
    base = dict(batch=2, heads=8, heads_kv=2, seq_q=256, seq_k=300, head_dim=head_dim, dtype="bf16")
    return AttnConfig(**{**base, **kw})


# ---- the declaration ------------------------------------------------------------------------------

def test_the_sm90_launchers_variants_declare_the_fill_and_no_other():
    assert {name for name, v in REG.items() if v.tma_head_dim_fill} == FILL_VARIANTS
    assert all(REG[name].launcher == "sm90" for name in FILL_VARIANTS)
    assert {name for name, v in REG.items() if v.launcher == "sm90"} == FILL_VARIANTS
    assert REG["sm90_persistent"].to_dict()["tma_head_dim_fill"] is True
    assert REG["sm100_tma_s2_tmem"].to_dict()["tma_head_dim_fill"] is False


def test_the_fill_on_another_launcher_is_refused(tmp_path):
    bad = tmp_path / "family.toml"
    bad.write_text(GOOD.replace("launcher='ref'", "launcher='sm90_gather'") + "tma_head_dim_fill = true\n")
    with pytest.raises(BadInput, match="tma_head_dim_fill needs launcher 'sm90'"):
        load_registry(bad)


# ---- the choice -----------------------------------------------------------------------------------

# kind: (config changes, whether a call of that kind may take the fill)
KINDS = {
    "plain": ({}, True),
    "causal": (dict(causal=True), True),
    "causal-square": (dict(causal=True, seq_q=300), True),
    "causal-more-queries": (dict(causal=True, seq_q=301), False),  # the first row sees no key
    "noncausal-more-queries": (dict(seq_q=400), True),
    "sinks": (dict(causal=True, sink=True), True),
    "kv-shared": (dict(kv_shared=True), True),
    "window": (dict(causal=True, window_left=127, window_right=0), False),
    "window-left-only": (dict(window_left=127), False),
    "window-right-only": (dict(window_right=5), False),
    "key-ranges": (dict(causal=True, key_ranges=True), False),
    "topk": (dict(causal=True, topk=64, kv_shared=True), False),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_fill_only_where_the_variant_declares_it_and_no_row_can_be_keyless(kind):
    extra, may_fill = KINDS[kind]
    for d in range(8, 513, 8):
        chosen = backends.choose(SM90, _cfg(d, **extra), REG)
        if not chosen.padded_head_dim:
            assert not chosen.tma_fill, (kind, d, str(chosen))
            continue
        want = (may_fill and chosen.variant in FILL_VARIANTS and chosen.padded_head_dim - d < 64)
        assert chosen.tma_fill == want, (kind, d, str(chosen))
        # the fill changes how the padding is done, never which kernel or head dim
        assert chosen.padded_head_dim == next(t for t in (64, 128, 256, 512) if t >= d), (kind, d)


@pytest.mark.parametrize("d, target", [(16, 64), (32, 64), (48, 64), (80, 128), (96, 128), (112, 128),
                                       (200, 256), (248, 256)])
def test_head_dims_the_fill_serves(d, target):
    chosen = backends.choose(SM90, _cfg(d, causal=True), REG)
    assert (chosen.padded_head_dim, chosen.tma_fill) == (target, True), str(chosen)
    assert backends.kernel_head_dim(chosen, d) == target


@pytest.mark.parametrize("d", [136, 160, 192])
def test_a_box_wholly_past_the_row_keeps_the_copy_padding(d):
    """d256's fourth 64-column box would hold none of the call's columns: not taken (unmeasured)."""
    chosen = backends.choose(SM90, _cfg(d), REG)
    assert (chosen.variant, chosen.padded_head_dim, chosen.tma_fill) == ("sm90_pingpong", 256, False)
    assert backends.kernel_head_dim(chosen, d) == d  # copy padding: the kernel gets padded tensors


def test_reason_names_the_wider_kernel_and_the_fill():
    chosen = backends.choose(SM90, _cfg(96, causal=True), REG)
    assert chosen.reason == "head dim 96 run on the d128 kernel (TMA zero fill): native family for sm_90"
    assert str(chosen) == ("sm90_persistent (sm_90a, native): head dim 96 run on the d128 kernel (TMA zero fill): "
                           "native family for sm_90")
    copied = backends.choose(SM90, _cfg(96, causal=True, window_left=31, window_right=0), REG)
    assert copied.reason == "head dim 96 padded to 128: native family for sm_90" and not copied.tma_fill


def test_kernel_head_dim_is_the_calls_own_unless_filled():
    native = backends.choose(SM90, _cfg(128), REG)
    assert (native.padded_head_dim, native.tma_fill, backends.kernel_head_dim(native, 128)) == (None, False, 128)
    filled = backends.choose(SM90, _cfg(80), REG)
    assert backends.kernel_head_dim(filled, 80) == 128
    copied = backends.choose(SM90, _cfg(80, key_ranges=True), REG)
    assert backends.kernel_head_dim(copied, 80) == 80


def test_overrides_and_other_gpus_never_fill():
    with pytest.raises(backends.NoBackend, match="'sm90_persistent' cannot run .*head_dim 96"):
        backends.choose(SM90, _cfg(96), REG, override="sm90_persistent")
    for name in ("ref", "sm100_tma_s2_tmem", "sm90_persistent"):
        d = 128 if name == "sm90_persistent" else 96
        forced = backends.choose(SM90, _cfg(d), REG, override=name)
        assert (forced.padded_head_dim, forced.tma_fill) == (None, False), name
    for d in (16, 96, 200):
        assert not backends.choose(SM100, _cfg(d), REG).tma_fill
        assert not backends.choose((8, 0), _cfg(d), REG).tma_fill


def test_kernel_config_is_the_wider_head_dim_only_under_the_fill():
    cfg = _cfg(96, causal=True)
    filled = backends.choose(SM90, cfg, REG)
    assert _launch.kernel_config(filled, cfg) == AttnConfig(**{**cfg.to_dict(), "head_dim": 128})
    copied = backends.choose(SM90, _cfg(96, window_left=3), REG)
    assert _launch.kernel_config(copied, _cfg(96, window_left=3)).head_dim == 96


# ---- the launch the d=96 call would make --------------------------------------------------------

def _tensors(layout: str, b=2, h=8, hkv=2, t=200, s=333, d=96):
    def make(heads, seq):
        if layout == "bhsd":
            return torch.randn(b, heads, seq, d, dtype=torch.bfloat16)
        return torch.randn(b, seq, heads, d, dtype=torch.bfloat16)

    return make(h, t), make(hkv, s), make(hkv, s)


def _problem(q, k, v, layout, scale=None) -> Problem:
    """check_inputs' Problem for CPU tensors (the op's checks want CUDA ones)."""
    b, sq, h, d = to_bshd(q, layout).shape
    return Problem(b, h, to_bshd(k, layout).shape[2], sq, to_bshd(k, layout).shape[1], d)


class _Stream:
    cuda_stream = 7


@pytest.fixture
def cpu_launch(monkeypatch):
    """The op's launch machinery on a CPU: an sm_90 GPU of SM_COUNT SMs, no cubin, the real
    Executor.launch_args with its tensor maps recorded as their map_params instead of encoded."""
    from fmhactl.runtime import driver as cuda_driver
    from fmhactl.runtime.execute import Executor

    encoded: list = []

    def record(tensor, box_rows):
        params = tma_maps.map_params(tensor, box_rows)
        problems = [p for p in validate(params) if p.severity == "error"]
        assert not problems, problems
        encoded.append(params)
        return tma_maps.TmaMap()

    executor = Executor()
    monkeypatch.setattr(tma_maps, "encode", record)
    monkeypatch.setattr(Executor, "_sm_count", staticmethod(lambda: SM_COUNT))
    monkeypatch.setattr(Executor, "_function", lambda self, job: 4321)
    monkeypatch.setattr(Executor, "tile_counter", lambda self, job, stream: torch.zeros(2, dtype=torch.int32))
    monkeypatch.setattr(torch.cuda, "current_stream", lambda *a: _Stream())
    monkeypatch.setattr(torch.cuda, "device", lambda *a: contextlib.nullcontext())
    monkeypatch.setattr(_launch, "executor", lambda index: executor)
    monkeypatch.setattr(_launch, "cubin_for", lambda backend: "/cache/fmha_sm90.cubin")
    monkeypatch.setattr(cuda_driver, "allow_dynamic_smem", lambda fn, nbytes: None)

    def choose(q, p, causal, f=None):
        return backends.choose(SM90, config_of(p, q.dtype, causal, f), REG, backends.current_override())

    monkeypatch.setattr(fastpath, "check_inputs", _problem)
    monkeypatch.setattr(op, "check_inputs", _problem)
    monkeypatch.setattr(fastpath, "choose_backend", choose)
    monkeypatch.setattr(op, "choose_backend", choose)
    monkeypatch.setattr(fastpath, "capability", lambda device: SM90)
    monkeypatch.setattr(fastpath, "_current_device", lambda: -1)  # a CPU tensor's get_device()
    monkeypatch.setattr(fastpath, "_raw_stream", lambda index: 7)
    monkeypatch.setattr(fastpath, "_state", {**fastpath._state, "driver": object(), "enabled": True})
    return encoded


def _d128_shape(cfg: AttnConfig):
    return launch_shape("sm90", AttnConfig(**{**cfg.to_dict(), "head_dim": 128}), REG["sm90_persistent"].switches,
                        SM_COUNT)


def _check_maps(encoded, q, k, v, o, kernel_head_dim=128, o_is_the_launchs=True):
    """Four maps (Q, K, V, O) over the caller's tensors: {96, seq, heads, batch}, 64-column boxes of
    the d128 plan's rows; the 128-column kernel reads two boxes a row, the second half past 96.
    o_is_the_launchs=False: o has the launch's O layout, not its address (the plan's O was freed)."""
    plan = sm90_plan(AttnConfig(head_dim=kernel_head_dim), REG["sm90_persistent"].switches)
    assert len(encoded) == 4
    for params, tensor, rows in zip(encoded, (q, k, v, o), (plan.block_m, plan.block_n, plan.block_n,
                                                            tma_maps.SM90_STORE_ROWS)):
        b, s, h, d = tensor.shape
        assert params.global_dim == (d, s, h, b) == (96, s, h, b)
        assert params.box_dim == (tma_maps.SWIZZLE_ATOM_ELEMENTS, rows, 1, 1)
        assert params.global_address == tensor.data_ptr() or (tensor is o and not o_is_the_launchs)
        assert params.oob_fill == 0  # zeros, not NaN, past the row
        assert params.global_strides == tuple(tensor.stride(i) * 2 for i in (1, 2, 0))


@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
def test_cached_plan_of_a_d96_call_runs_the_d128_kernel_on_the_callers_tensors(cpu_launch, layout):
    q, k, v = _tensors(layout)
    copies = padding.copies()
    plan = fastpath._make_plan(_problem(q, k, v, layout, None), q, k, v, True, None, True, layout)
    assert isinstance(plan, fastpath.LaunchPlan) and plan.tma_fill and plan.variant == "sm90_persistent"
    assert padding.copies() == copies  # nothing padded
    cfg = AttnConfig(batch=2, heads=8, heads_kv=2, seq_q=200, seq_k=333, head_dim=96, causal=True)
    shape = _d128_shape(cfg)
    assert (plan.grid, plan.block, plan.dynamic_smem) == (shape.grid, shape.block, shape.dynamic_smem)
    assert plan.dynamic_smem == sm90_plan(AttnConfig(head_dim=128), REG["sm90_persistent"].switches).smem_bytes
    want_out = (2, 8, 200, 96) if layout == "bhsd" else (2, 200, 8, 96)
    assert plan.out_size == want_out and plan.lse_size == (2, 8, 200)
    assert plan.params.head_dim == 128 and plan.params.softmax_scale == pytest.approx(1 / math.sqrt(96))
    assert plan.params.scale_log2 == pytest.approx(math.log2(math.e) / math.sqrt(96))
    qb, kb, vb = (to_bshd(t, layout) for t in (q, k, v))
    assert (plan.params.q_seq_stride, plan.params.q_head_stride) == (qb.stride(1), qb.stride(2))
    assert plan.params.o_seq_stride == 8 * 96 and plan.params.o_head_stride == 96  # O stored (b, s, h, 96)
    out = torch.empty_strided(plan.out_size, plan.out_stride, dtype=torch.bfloat16)
    _check_maps(cpu_launch, qb, kb, vb, to_bshd(out, layout), o_is_the_launchs=False)


def test_the_job_of_a_filled_call_names_the_wider_entry(cpu_launch):
    backend = backends.choose(SM90, _cfg(96), REG)
    job = _launch.job_for(backend, _cfg(96))
    assert job.kernel == "fmha_sm90_bf16_d128" and job.config.head_dim == 128
    assert job.tile_plan == sm90_plan(AttnConfig(head_dim=128), REG["sm90_persistent"].switches)
    f16 = _launch.job_for(backend, _cfg(96, dtype="f16"))
    assert f16.kernel == "fmha_sm90_f16_d128"
    small = _launch.job_for(backends.choose(SM90, _cfg(48, causal=True), REG), _cfg(48, causal=True))
    assert small.kernel == "fmha_sm90_bf16_d64" and small.config.head_dim == 64


@pytest.mark.parametrize("extra, why", [
    (dict(seq_q=400, causal=True), "causal with more queries than keys"),
    (dict(window_left=15), "a window"),
])
def test_cached_path_keeps_copy_padding_where_a_row_can_be_keyless(cpu_launch, extra, why):
    q = torch.randn(1, extra.get("seq_q", 64), 4, 96, dtype=torch.bfloat16)
    k = torch.randn(1, 100, 4, 96, dtype=torch.bfloat16)
    f = _features.make(k, k, extra.get("window_left", -1), -1, None, None, False, None)
    plan = fastpath._make_plan(_problem(q, k, k, "bshd", None), q, k, k, extra.get("causal", False),
                               None, False, "bshd", f)
    assert plan == fastpath.PaddedPlan(128), why
    assert cpu_launch == []


def test_a_decode_sized_call_keeps_copy_padding_for_the_decode_kernels(cpu_launch, monkeypatch):
    q = torch.randn(1, 4, 8, 96, dtype=torch.bfloat16)  # 4 query tokens: the decode kernels at d128
    k = torch.randn(1, 500, 2, 96, dtype=torch.bfloat16)
    problem = _problem(q, k, k, "bshd", None)
    assert fastpath._make_plan(problem, q, k, k, True, None, False, "bshd") == fastpath.PaddedPlan(128)
    monkeypatch.setitem(decode._state, "enabled", False)  # no decode kernels: the fill serves it
    plan = fastpath._make_plan(problem, q, k, k, True, None, False, "bshd")
    assert isinstance(plan, fastpath.LaunchPlan) and plan.tma_fill


def test_general_path_launches_the_wider_kernel_without_copies(cpu_launch, monkeypatch):
    launched: list = []

    def record(self, job, cfg, q, k, v, o, lse, checkpoints=None, scale=None, features=None):
        launched.append((job, cfg, q, k, v, o, lse, scale))
        self.launch_args(job, cfg, q, k, v, o, lse, scale=scale, features=features)

    from fmhactl.runtime.execute import Executor

    monkeypatch.setattr(Executor, "launch", record)
    q, k, v = _tensors("bhsd", t=130, s=131, d=96)
    copies = padding.copies()
    out, lse = op._general(q, k, v, True, None, True, "bhsd")
    assert padding.copies() == copies
    (job, cfg, qv, kv, vv, ov, lv, scale), = launched
    assert job.kernel == "fmha_sm90_bf16_d128" and cfg.head_dim == 128 and scale == pytest.approx(1 / math.sqrt(96))
    assert qv.data_ptr() == q.data_ptr() and kv.data_ptr() == k.data_ptr() and vv.data_ptr() == v.data_ptr()
    assert out.shape == q.shape and ov.data_ptr() == out.data_ptr() and lv is lse
    _check_maps(cpu_launch, qv, kv, vv, ov)


def test_general_path_keeps_copy_padding_where_a_row_can_be_keyless(cpu_launch, monkeypatch):
    launched: list = []
    from fmhactl.runtime.execute import Executor

    monkeypatch.setattr(Executor, "launch", lambda self, job, cfg, q, *rest, **kw: launched.append((job, cfg, q)))
    q, k, v = _tensors("bshd", t=140, s=131, d=96)  # causal, 9 rows more than keys
    copies = padding.copies()
    out, _ = op._general(q, k, v, True, None, False, "bshd")
    assert padding.copies() == copies + 1 and out.shape == q.shape
    (job, cfg, qp), = launched
    assert job.kernel == "fmha_sm90_bf16_d128" and cfg.head_dim == 128 and qp.shape[-1] == 128


def test_status_counts_filled_plans(cpu_launch):
    q, k, v = _tensors("bshd", t=64, s=64, d=80)
    fastpath.clear()
    try:
        key = fastpath.call_key(q, k, v, False, None, False, "bshd")
        plan = fastpath._build(key, q, k, v, False, None, False, "bshd")
        assert plan.tma_fill and plan.variant == "sm90_persistent"
        status = fastpath.status()
        assert (status["plans"], status["tma_fill_plans"], status["padded_signatures"]) == (1, 1, 0)
        assert isinstance(plan.params, FmhaParams) and ctypes.sizeof(plan.maps) == ctypes.sizeof(tma_maps.Sm90TmaMaps)
    finally:
        fastpath.clear()


def test_the_fill_can_be_turned_off_for_an_a_b_timing(monkeypatch):
    monkeypatch.setenv(backends.TMA_FILL_ENV, "0")
    chosen = backends.choose(SM90, _cfg(96, causal=True), REG)
    assert (chosen.padded_head_dim, chosen.tma_fill) == (128, False)
    assert chosen.reason == "head dim 96 padded to 128: native family for sm_90"
