"""The cached launch path for calls with attention features, on a CPU: the key separates what the
feature checks read, a plan writes this call's sinks/topk_idx pointers (and K's for V under
kv_shared) as make_params does, sm90_mqa_gather's GatherSplit follows the stream, bad features
raise before anything is cached, non-contiguous feature tensors take the general path, and the
op and the eager wrapper hand feature calls to the cached path. The driver is a recorder."""

from __future__ import annotations

import ctypes

import pytest
import torch

import fmhactl.torch as ft
from fmhactl.config import AttnConfig
from fmhactl.runtime.driver import unpack_head
from fmhactl.runtime.params import FmhaParams, GatherSplit, make_params
from fmhactl.torch import fastpath, op
from fmhactl.torch import features as _features

from tests.torch.test_fastpath_cpu import _bshd, driver  # noqa: F401 - driver is a fixture


class RecordingDriver:
    def __init__(self, second=None) -> None:
        self.launches: list[tuple] = []
        self.second = second

    def launch(self, function, grid, block, dynamic_smem, stream, kernel_params) -> None:
        """Copy the by-value arguments as the driver would (the block, and the second one if any)."""
        ptrs = ctypes.cast(kernel_params, ctypes.POINTER(ctypes.c_void_p))
        block = FmhaParams.from_buffer_copy(ctypes.string_at(ptrs[0], ctypes.sizeof(FmhaParams)))
        second = None
        if self.second is not None:
            second = self.second.from_buffer_copy(ctypes.string_at(ptrs[1], ctypes.sizeof(self.second)))
        self.launches.append((stream, block, second))

    def enqueue(self, head, stream, kernel_params) -> None:
        """RawDriver.enqueue: the plan's launch_head() unpacked, then as launch()."""
        self.launch(*unpack_head(head), stream, kernel_params)

    def replace_address(self, tensor_map: int, address: int) -> None:
        raise AssertionError("no maps in these plans")


@pytest.fixture
def rec(driver):
    """A recorder of both by-value arguments (the plain tests' `driver` fixture pins the stream at 7)."""
    return RecordingDriver()


def _cfg(q, k, topk=0, sink=False, kv_shared=False):
    return AttnConfig(batch=q.shape[0], heads=q.shape[2], heads_kv=k.shape[2], seq_q=q.shape[1], seq_k=k.shape[1],
                      head_dim=q.shape[3], dtype="bf16", causal=True, window_left=127, window_right=0, sink=sink,
                      topk=topk, kv_shared=kv_shared)


def _plan(q, k, v, sinks, idx, *, kv_shared, second=None, split_for=None):
    cfg = _cfg(q, k, topk=0 if idx is None else idx.shape[-1], sink=sinks is not None, kv_shared=kv_shared)
    out = torch.empty(q.shape, dtype=q.dtype)
    params = make_params(cfg, q, k, k if kv_shared else v, out, None, scale=0.125, sinks=sinks, topk_idx=idx)
    kept = [params] + ([second] if second is not None else [])
    kernel_params = (ctypes.c_void_p * len(kept))(*[ctypes.addressof(a) for a in kept])
    return fastpath.LaunchPlan(
        variant="sm90_mqa_gather", device_index=0, function=99, grid=(8, 1, 1), block=(128, 1, 1),
        dynamic_smem=1000, params=params, maps=second, map_slots=(), map_addresses=[], out_size=tuple(out.shape),
        out_stride=tuple(out.stride()), lse_size=None, dtype=q.dtype, device=torch.device("cpu"), align_mask=15,
        counter_for=None, stream=7, kernel_params=kernel_params, with_sinks=sinks is not None,
        with_topk=idx is not None, kv_shared=kv_shared, split_for=split_for)


def _features_of(k, v, window=(127, 0), sinks=None, idx=None, kv_shared=False):
    return _features.make(k, v, window[0], window[1], sinks, idx, kv_shared)


def test_feature_key_differs_from_plain_and_separates_what_the_feature_checks_read():
    q, k = _bshd(1, 4, 8), _bshd(1, 32, 2)
    sinks, idx = torch.zeros(8), torch.zeros(1, 4, 2, 16, dtype=torch.int32)
    plain = fastpath.call_key(q, k, k, True, None, True, "bshd")
    base = fastpath.call_key(q, k, k, True, None, True, "bshd", _features_of(k, k, sinks=sinks, idx=idx))
    assert base != plain and fastpath.call_key(q, k, k, True, None, True, "bshd", _features.NONE) == plain
    # addresses are not in it
    assert fastpath.call_key(q, k, k, True, None, True, "bshd",
                             _features_of(k, k, sinks=sinks.clone(), idx=idx.clone())) == base
    others = [
        _features_of(k, k, window=(63, 0), sinks=sinks, idx=idx),  # window bound
        _features_of(k, k, window=(127, -1), sinks=sinks, idx=idx),
        _features_of(k, k, sinks=sinks, idx=torch.zeros(1, 4, 2, 32, dtype=torch.int32)),  # top-k length
        _features_of(k, k, sinks=None, idx=idx),  # sinks given or not
        _features_of(k, k, sinks=sinks, idx=None),
        _features_of(k, k.clone(), sinks=sinks, idx=idx),  # kv_shared (v is k implies it)
        _features_of(k, k, sinks=torch.zeros(16)[::2], idx=idx),  # sinks' strides (non-contiguous)
        _features_of(k, k, sinks=sinks.double(), idx=idx),  # dtypes
        _features_of(k, k, sinks=sinks, idx=idx.long()),
    ]
    keys = {fastpath.call_key(q, k, k, True, None, True, "bshd", f) for f in others}
    assert len(keys) == len(others) and base not in keys and plain not in keys
    assert _features_of(k, k.clone(), sinks=sinks, idx=idx).kv_shared is False


@pytest.mark.parametrize("kv_shared", [False, True])
def test_plan_writes_this_calls_feature_pointers(rec, kv_shared):
    q, k, v = _bshd(1, 4, 8), _bshd(1, 32, 2), _bshd(1, 32, 2)
    plan = _plan(q, k, v, torch.zeros(8), torch.zeros(1, 4, 2, 16, dtype=torch.int32), kv_shared=kv_shared)
    for _ in range(2):
        q2, k2, v2 = _bshd(1, 4, 8), _bshd(1, 32, 2), _bshd(1, 32, 2)
        sinks, idx = torch.randn(8), torch.randint(-1, 32, (1, 4, 2, 16), dtype=torch.int32)
        out, lse = plan.run(q2, k2, v2, rec, sinks, idx)
        block = rec.launches[-1][1]
        want = make_params(_cfg(q2, k2, topk=16, sink=True, kv_shared=kv_shared), q2, k2, k2 if kv_shared else v2,
                           out, None, scale=0.125, sinks=sinks, topk_idx=idx)
        assert bytes(block) == bytes(want)
        assert block.sinks == sinks.data_ptr() and block.topk_idx == idx.data_ptr() and block.topk == 16
        assert block.v == (k2.data_ptr() if kv_shared else v2.data_ptr())
    assert plan.launches == 2


def test_plan_without_topk_leaves_its_pointer_null(rec):
    q, k = _bshd(1, 4, 8), _bshd(1, 32, 2)
    plan = _plan(q, k, k, torch.zeros(8), None, kv_shared=True)
    sinks = torch.randn(8)
    plan.run(q, k, k, rec, sinks, None)
    block = rec.launches[-1][1]
    assert block.sinks == sinks.data_ptr() and not block.topk_idx and block.topk == 0


class _At:
    """Only an address (all a plan reads from a feature tensor per call)."""

    def __init__(self, address: int) -> None:
        self.address = address

    def data_ptr(self) -> int:
        return self.address


def test_misaligned_feature_address_takes_the_general_path(rec):
    q, k = _bshd(1, 4, 8), _bshd(1, 32, 2)
    plan = _plan(q, k, k, torch.zeros(8), torch.zeros(1, 4, 2, 16, dtype=torch.int32), kv_shared=True)
    assert plan.run(q, k, k, rec, _At(4098), _At(8192)) is None
    assert plan.run(q, k, k, rec, _At(4096), _At(8194)) is None and not rec.launches
    assert plan.run(q, k, k, rec, _At(4100), _At(8196)) is not None  # 4-byte elements: 4 is enough
    assert (rec.launches[-1][1].sinks, rec.launches[-1][1].topk_idx) == (4100, 8196)


def test_gather_split_follows_the_stream(monkeypatch):
    streams = iter([7, 9, 9, 7])
    monkeypatch.setattr(fastpath, "_raw_stream", lambda device_index: next(streams))
    recorder = RecordingDriver(second=GatherSplit)

    def split_for(stream: int) -> GatherSplit:
        split = GatherSplit()
        split.splits, split.o_partial, split.lse_partial, split.counters = 4, stream * 1000, stream * 1000 + 64, stream
        return split

    q, k = _bshd(1, 1, 8), _bshd(1, 64, 1)
    idx = torch.zeros(1, 1, 1, 16, dtype=torch.int32)
    plan = _plan(q, k, k, None, idx, kv_shared=True, second=split_for(7), split_for=split_for)
    for _ in range(4):
        plan.run(q, k, k, recorder, None, idx)
    got = [(stream, second.o_partial, second.counters, second.splits) for stream, _, second in recorder.launches]
    assert got == [(7, 7000, 7, 4), (9, 9000, 9, 4), (9, 9000, 9, 4), (7, 7000, 7, 4)]


def _meta(*shape, dtype=torch.bfloat16):
    return torch.empty(*shape, dtype=dtype, device="meta")


@pytest.fixture
def builds(monkeypatch):
    """_build with a stub plan maker: what it was asked to make, per key (meta tensors: no GPU)."""
    made: list[tuple] = []

    def make_plan(p, q, k, v, causal, scale, return_lse, layout, f=_features.NONE):
        made.append((f.window_left, f.window_right, f.topk, f.sinks is not None, f.kv_shared))
        return object()

    monkeypatch.setattr(fastpath, "_make_plan", make_plan)
    monkeypatch.setattr(fastpath, "_current_device", lambda: -1)
    monkeypatch.setattr(fastpath, "_plans", {})
    return made


def _build(q, k, v, f, causal=True):
    key = fastpath.call_key(q, k, v, causal, None, True, "bshd", f)
    plan = fastpath._plans.get(key, False)
    return fastpath._build(key, q, k, v, causal, None, True, "bshd", f) if plan is False else plan


def test_a_changed_window_or_topk_length_makes_a_new_plan(builds):
    q, k = _meta(1, 4, 8, 512), _meta(1, 300, 1, 512)
    sinks = _meta(8, dtype=torch.float32)
    idx16, idx32 = _meta(1, 4, 1, 16, dtype=torch.int32), _meta(1, 4, 1, 32, dtype=torch.int32)
    first = _build(q, k, k, _features_of(k, k, sinks=sinks, idx=idx16))
    assert _build(q, k, k, _features_of(k, k, sinks=_meta(8, dtype=torch.float32),
                                         idx=_meta(1, 4, 1, 16, dtype=torch.int32))) is first  # served
    _build(q, k, k, _features_of(k, k, window=(63, 0), sinks=sinks, idx=idx16))
    _build(q, k, k, _features_of(k, k, sinks=sinks, idx=idx32))
    _build(q, k, k, _features.NONE)
    assert builds == [(127, 0, 16, True, True), (63, 0, 16, True, True), (127, 0, 32, True, True),
                      (-1, -1, 0, False, False)]


@pytest.mark.parametrize("kwargs,rule", [
    (dict(sinks=_meta(7, dtype=torch.float32)), "sinks must be float32 of shape"),
    (dict(idx=_meta(1, 4, 1, 16, dtype=torch.int64)), "topk_idx must be int32"),
    (dict(window=(3, 2)), "contradicts causal"),
])
def test_bad_features_raise_on_the_first_call_and_are_never_cached(builds, kwargs, rule):
    q, k = _meta(1, 4, 8, 128), _meta(1, 300, 1, 128)
    f = _features_of(k, k, **kwargs)
    for _ in range(2):  # raises every time: nothing was cached
        with pytest.raises(ft.AttentionInputError, match=rule):
            _build(q, k, k, f)
    assert not builds and not fastpath._plans


@pytest.mark.parametrize("which", ["sinks", "topk_idx"])
def test_non_contiguous_feature_tensors_are_not_served(monkeypatch, which):
    chosen = []

    def choose(q, p, causal, f=None):
        chosen.append(f)
        from fmhactl.torch.backends import FALLBACK, Backend
        return Backend(FALLBACK, "sm_90", "fallback", "no kernel here (test)")

    monkeypatch.setattr(fastpath, "choose_backend", choose)
    monkeypatch.setattr(fastpath, "_current_device", lambda: -1)
    q, k = _bshd(1, 4, 8), _bshd(1, 32, 2)
    sinks, idx = torch.zeros(8), torch.zeros(1, 4, 2, 16, dtype=torch.int32)
    p = op.Problem(1, 8, 2, 4, 32, 64)
    strided = {"sinks": (torch.zeros(16)[::2], idx),
               "topk_idx": (sinks, torch.zeros(1, 4, 2, 32, dtype=torch.int32)[..., ::2])}
    f = _features_of(k, k, sinks=strided[which][0], idx=strided[which][1])
    assert fastpath._make_plan(p, q, k, k, True, None, False, "bshd", f) is None and not chosen
    f = _features_of(k, k, sinks=sinks, idx=idx)
    assert fastpath._make_plan(p, q, k, k, True, None, False, "bshd", f) is None  # the fallback: not served either
    assert chosen == [f]


def test_op_and_eager_wrapper_hand_feature_calls_to_the_cached_path(monkeypatch):
    calls = []

    def served(q, k, v, causal, scale, return_lse, layout, f=_features.NONE):
        calls.append(f)
        out = torch.zeros(q.shape, dtype=q.dtype)
        return out, (torch.zeros(q.shape[0], q.shape[2], q.shape[1]) if return_lse else None)

    monkeypatch.setattr(fastpath, "attention", served)
    q, k = _bshd(1, 4, 8), _bshd(1, 32, 2)
    sinks = torch.zeros(8)
    op._attention_impl(q, k, k, sinks, None, causal=True, layout="bshd", window_left=127, window_right=0,
                       kv_shared=True)
    out = ft.attention(q, k, k, causal=True, layout="bshd", window=(127, 0), sinks=sinks, check_values=False)
    assert out.shape == q.shape
    assert [(f.window_left, f.window_right, f.sinks is sinks, f.kv_shared) for f in calls] == [(127, 0, True, True)] * 2


def test_feature_tensors_that_something_watches_keep_the_dispatcher():
    q = _bshd(1, 4, 8)
    sinks = torch.zeros(8)
    assert not op._dispatcher_needed(q, q, q, sinks, None)
    assert op._dispatcher_needed(q, q, q, sinks.clone().requires_grad_(), None)
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        fake = mode.from_tensor(sinks)
    assert op._dispatcher_needed(q, q, q, fake, None)

