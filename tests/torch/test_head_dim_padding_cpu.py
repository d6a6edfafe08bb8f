"""Head-dim padding on a CPU: which kernel and padded head dim backends.choose picks for every head
dim 8..512 on sm_90 and sm_100 (plain, causal, with features), its reason line, that an override
never pads, and that fmhactl.torch.padding's pad / run / narrow is exact against the unpadded
reference with the caller's scale and leaves the output stored as the fake implementation declares.
The GPU side (the op's paths) is tests/torch/test_head_dim_padding_gpu.py."""

from __future__ import annotations

import math

import pytest
import torch

from fmhactl.config import AttnConfig
from fmhactl.registry import load_registry
from fmhactl.torch import backends, padding
from fmhactl.torch.op import _attention_fake
from fmhactl.verify.reference import attention as reference

REG = load_registry()
HEAD_DIMS = range(8, 513, 8)
SM90, SM100 = (9, 0), (10, 0)


def _cfg(head_dim: int, **kw) -> AttnConfig:
    base = dict(batch=2, heads=8, heads_kv=2, seq_q=256, seq_k=300, head_dim=head_dim, dtype="bf16")
    return AttnConfig(**{**base, **kw})


def _target(head_dim: int) -> int:
    """The SM90 family's head dims (64/128 persistent, 256 ping-pong, 512 gather): the smallest >= d."""
    return next(t for t in (64, 128, 256, 512) if t >= head_dim)


# Per SM90 call kind: the variant that serves each of its head dims (None: no kernel at that head dim).
SM90_PLAIN = {64: "sm90_persistent", 128: "sm90_persistent", 256: "sm90_pingpong", 512: "sm90_mqa_gather"}
SM90_FEAT = {64: "sm90_persistent_feat", 128: "sm90_persistent_feat", 256: "sm90_pingpong_feat",
             512: "sm90_mqa_gather"}
SM90_KINDS = {
    "plain": ({}, SM90_PLAIN),
    "causal": (dict(causal=True), SM90_PLAIN),
    "window-sinks": (dict(causal=True, window_left=127, window_right=0, sink=True), SM90_FEAT),
    "kv-shared": (dict(kv_shared=True), SM90_FEAT),
    "key-ranges": (dict(causal=True, key_ranges=True), {**SM90_FEAT, 512: None}),
    "topk": (dict(causal=True, topk=64, kv_shared=True), dict.fromkeys((64, 128, 256, 512), "sm90_mqa_gather")),
}


@pytest.mark.parametrize("kind", list(SM90_KINDS))
def test_sm90_pads_to_the_smallest_head_dim_a_native_variant_takes(kind):
    extra, served_by = SM90_KINDS[kind]
    for d in HEAD_DIMS:
        chosen = backends.choose(SM90, _cfg(d, **extra), REG)
        target = _target(d)
        want = served_by[target]
        if want is None:  # no kernel has these features at any head dim >= d: the torch fallback, unpadded
            assert (chosen.variant, chosen.mode, chosen.padded_head_dim) == (backends.FALLBACK, "fallback", None), d
            continue
        assert (chosen.variant, chosen.mode) == (want, "native"), (kind, d, str(chosen))
        assert chosen.padded_head_dim == (None if d == target else target), (kind, d, str(chosen))


def test_sm90_padded_choice_is_the_padded_calls_own_choice():
    for d in HEAD_DIMS:
        for extra, _ in SM90_KINDS.values():
            chosen = backends.choose(SM90, _cfg(d, **extra), REG)
            if chosen.padded_head_dim:
                at_padded = backends.choose(SM90, _cfg(chosen.padded_head_dim, **extra), REG)
                assert (at_padded.variant, at_padded.padded_head_dim) == (chosen.variant, None), (d, extra)


@pytest.mark.parametrize("extra", [{}, dict(causal=True), dict(causal=True, window_left=127, window_right=0,
                                                                   sink=True, kv_shared=True)],
                         ids=["plain", "causal", "window-sinks-kv"])
def test_sm100_family_takes_every_head_dim_itself(extra):
    """The SM100 kernels run any multiple of 8 on their power-of-two tiles: the op never pads there."""
    for d in HEAD_DIMS:
        chosen = backends.choose(SM100, _cfg(d, **extra), REG)
        assert (chosen.variant, chosen.mode, chosen.padded_head_dim) == ("sm100_tma_s2_tmem", "native", None), d


def test_sm100_feature_no_kernel_has_stays_on_the_fallback():
    chosen = backends.choose(SM100, _cfg(96, causal=True, key_ranges=True), REG)
    assert (chosen.variant, chosen.padded_head_dim) == (backends.FALLBACK, None)


def test_192_row_tile_takes_a_padded_head_dim_too():
    chosen = backends.choose(SM90, _cfg(48, batch=8, heads=16, heads_kv=16, seq_q=4096, seq_k=4096), REG)
    assert (chosen.variant, chosen.padded_head_dim) == ("sm90_persistent_m192", 64)


def test_reason_says_what_was_padded():
    # causal with more queries than keys: keyless rows keep the copy padding (the TMA zero fill's
    # reason is tests/torch/test_tma_head_dim_fill_cpu.py's)
    chosen = backends.choose(SM90, _cfg(96, causal=True, seq_q=400), REG)
    assert chosen.reason == "head dim 96 padded to 128: native family for sm_90"
    assert str(chosen) == "sm90_persistent (sm_90a, native): head dim 96 padded to 128: native family for sm_90"
    native = backends.choose(SM90, _cfg(128, causal=True), REG)
    assert native.padded_head_dim is None and "padded" not in str(native)


def test_other_gpus_keep_ref_unpadded():
    chosen = backends.choose((8, 0), _cfg(96), REG)
    assert (chosen.variant, chosen.padded_head_dim) == ("ref", None)


def test_an_override_never_pads():
    with pytest.raises(backends.NoBackend, match="'sm90_persistent' cannot run .*head_dim 96"):
        backends.choose(SM90, _cfg(96), REG, override="sm90_persistent")
    forced = backends.choose(SM90, _cfg(96), REG, override="ref")
    assert (forced.variant, forced.reason, forced.padded_head_dim) == ("ref", "override", None)
    emulated = backends.choose(SM90, _cfg(96), REG, override="sm100_tma_s2_tmem")
    assert (emulated.mode, emulated.padded_head_dim) == ("emulated", None)


# ---- fmhactl.torch.padding: exact, the caller's scale, the fake's strides ---------------------------

def _reference_run(causal: bool, calls: list):
    """A stand-in for the op's padded path: the fp32 reference on the padded bshd tensors."""
    def run(qp, kp, vp, scale):
        calls.append((qp, kp, vp, scale))
        return reference(qp, kp, vp, causal=causal, scale=scale, compute_dtype=torch.float32)
    return run


@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_padded_run_equals_the_unpadded_reference(layout, scale):
    gen = torch.Generator().manual_seed(0)
    b, h, hkv, t, s, d = 2, 4, 2, 9, 13, 40
    shape = (lambda heads, seq: (b, heads, seq, d)) if layout == "bhsd" else (lambda heads, seq: (b, seq, heads, d))
    q, k, v = (torch.randn(*shape(n, m), generator=gen) for n, m in ((h, t), (hkv, s), (hkv, s)))
    calls: list = []
    out, lse = padding.run_padded(q, k, v, 64, scale, layout, False, _reference_run(True, calls))
    bshd = (lambda x: x.transpose(1, 2)) if layout == "bhsd" else (lambda x: x)
    want, want_lse = reference(bshd(q), bshd(k), bshd(v), causal=True, compute_dtype=torch.float32,
                               scale=scale if scale is not None else 1 / math.sqrt(d))
    assert out.shape == q.shape and lse.shape == (b, h, t)
    torch.testing.assert_close(bshd(out), want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(lse, want_lse, rtol=1e-5, atol=1e-6)
    (qp, kp, vp, used), = calls
    assert used == (scale if scale is not None else 1 / math.sqrt(d))  # the unpadded head dim's default
    assert qp.shape[-1] == kp.shape[-1] == vp.shape[-1] == 64 and not qp[..., d:].any()


def test_kv_shared_pads_k_once_and_passes_it_as_v():
    k = torch.randn(1, 5, 2, 24)
    calls: list = []
    padding.run_padded(torch.randn(1, 3, 4, 24), k, k.clone(), 64, None, "bshd", True, _reference_run(False, calls))
    (_, kp, vp, _), = calls
    assert vp is kp


def test_run_padded_passes_a_refusal_on():
    q = torch.randn(1, 3, 4, 24)
    assert padding.run_padded(q, q, q, 64, None, "bshd", False, lambda *args: None) is None


@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
def test_narrowed_output_has_the_fake_implementations_strides(layout):
    b, h, hkv, t, s = 2, 4, 2, 9, 13

    def meta(heads, seq, d=96):
        shape = (b, heads, seq, d) if layout == "bhsd" else (b, seq, heads, d)
        return torch.empty(*shape, dtype=torch.bfloat16, device="meta")

    fake_out, _ = _attention_fake(meta(h, t), meta(hkv, s), meta(hkv, s), layout=layout)
    padded_out = torch.empty(b, t, h, 128, dtype=torch.bfloat16, device="meta")  # the padded call's (bshd)
    out = padding.narrow_output(padded_out, 96, layout)
    assert (out.shape, out.stride(), out.dtype) == (fake_out.shape, fake_out.stride(), fake_out.dtype)
