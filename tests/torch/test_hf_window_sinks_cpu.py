"""Sliding windows and attention sinks through attn_implementation="fmhactl" on a CPU.

transformers' sliding-window layers (Mistral, Qwen2, Gemma, gpt-oss) and gpt-oss's sinks (s_aux)
run on the op's window and sinks features instead of falling back to SDPA (or being refused):
the mask interface recognises transformers' own sliding-window mask function by its closures,
and the layers' outputs and whole models' logits match SDPA's (gpt-oss: eager's, which has the
sinks). The op's kernels need a GPU, so its calls are replaced by the fp32 verify reference of
the same bottom-right contract; tests/torch/test_hf_window_sinks_gpu.py runs the kernels.
"""

from __future__ import annotations

import pytest
import torch

from fmhactl.torch import hf
from fmhactl.verify.reference import attention as reference

transformers = pytest.importorskip("transformers")
masking = pytest.importorskip("transformers.masking_utils")


def whole_reference(calls: list):
    """The op's whole-batch call (bhsd in, (batch, seq, heads, dim) out) by the fp32 reference."""

    def whole(q, k, v, causal, scale, window_left=-1, sinks=None):
        calls.append((causal, window_left, sinks is not None))
        out, _ = reference(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal, scale=scale,
                           compute_dtype=torch.float32, window_left=window_left, sinks=sinks)
        return out.to(q.dtype)

    return whole


def test_recognises_transformers_sliding_window_function_only():
    assert hf._sliding_window_of(masking.sliding_window_causal_mask_function(7)) == 7
    assert hf._sliding_window_of(masking.causal_mask_function) is None
    assert hf._sliding_window_of(lambda b, h, q, kv: kv <= q) is None
    assert hf._sliding_window_of(masking.and_masks(masking.sliding_window_overlay(7))) is None  # no causal part
    # A packed or chunked overlay on top is not a plain window, even where it agrees on most indices.
    packed = masking.and_masks(masking.sliding_window_causal_mask_function(7), masking.causal_mask_function)
    assert hf._sliding_window_of(packed) is None
    chunked = masking.and_masks(masking.chunked_overlay(7, torch.zeros(1, dtype=torch.long)),
                                masking.causal_mask_function)
    assert hf._sliding_window_of(chunked) is None


@pytest.mark.parametrize("q_length, kv_length, q_offset, kv_offset, want", [
    (10, 10, 0, 0, hf.SlidingWindow(3, 10, 10)),  # prefill: the window hides keys
    (4, 4, 0, 0, None),                           # a prompt within the window: plain causal
    (1, 4, 20, 17, None),                         # a decode step on transformers' sliding cache: it holds the window
    (1, 21, 20, 0, hf.SlidingWindow(3, 1, 21)),   # a decode step over the whole cache
    (3, 10, 0, 0, "last query"),                  # queries not bottom-right aligned with the keys
])
def test_mask_interface_turns_a_window_into_the_op_feature(q_length, kv_length, q_offset, kv_offset, want):
    got = hf.fmhactl_attention_mask(1, q_length, kv_length, q_offset=q_offset, kv_offset=kv_offset,
                                    mask_function=masking.sliding_window_causal_mask_function(4), device="cpu")
    if isinstance(want, str):
        assert isinstance(got, hf.SdpaFallback) and want in got.reason
        assert not bool(got.mask[0, 0, 2, 9]) and bool(got.mask[0, 0, 2, 2])  # SDPA's mask, top-left aligned
    else:
        assert got == want


def test_mask_interface_with_padding():
    function = masking.sliding_window_causal_mask_function(4)
    left = torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]], dtype=torch.bool)
    narrow = hf.fmhactl_attention_mask(2, 6, 6, mask_function=function, attention_mask=left, device="cpu")
    assert narrow == hf.PaddedBatch(((2, 6), (0, 6)), 0, True, 3)  # key ranges and the window in one call
    dense = masking.sdpa_mask(batch_size=2, q_length=6, kv_length=6, mask_function=function, attention_mask=left,
                              allow_is_causal_skip=False)
    assert torch.equal(hf._sdpa_mask_of(narrow, torch.zeros(2, 4, 6, 8), torch.zeros(2, 2, 6, 8)), dense)
    holes = torch.tensor([[1, 0, 1, 1, 1, 1]], dtype=torch.bool)
    fallback = hf.fmhactl_attention_mask(1, 6, 6, mask_function=function, attention_mask=holes, device="cpu")
    assert isinstance(fallback, hf.SdpaFallback) and not bool(fallback.mask[0, 0, 5, 1])
    wide = hf.fmhactl_attention_mask(2, 6, 6, mask_function=masking.sliding_window_causal_mask_function(8),
                                     attention_mask=left, device="cpu")
    assert wide == hf.PaddedBatch(((2, 6), (0, 6)), 0, True)  # a window hiding nothing: the padded path
    full = torch.ones(2, 6, dtype=torch.bool)
    assert hf.fmhactl_attention_mask(2, 6, 6, mask_function=function, attention_mask=full,
                                     device="cpu") == hf.SlidingWindow(3, 6, 6)
    static = hf.fmhactl_attention_mask(1, 1, 6, q_offset=torch.tensor(5), mask_function=function, device="cpu")
    assert isinstance(static, hf.SdpaFallback) and "tensor offsets" in static.reason


def _layer_inputs(seed: int, t: int = 9, n: int = 9, heads: int = 4, heads_kv: int = 2, d: int = 16):
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(2, heads, t, d, generator=gen), torch.randn(2, heads_kv, n, d, generator=gen),
            torch.randn(2, heads_kv, n, d, generator=gen))


def _dense_with_sinks(q, k, v, mask, sinks, scale):
    """Attention with a sink column, as gpt-oss's eager forward computes it: (batch, seq, heads, dim)."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    s = (q @ k.transpose(-1, -2) * scale).masked_fill(~mask, float("-inf"))
    sink = sinks.view(1, -1, 1, 1).expand(s.shape[0], -1, s.shape[2], 1)
    return (torch.softmax(torch.cat([s, sink], -1), -1)[..., :-1] @ v).transpose(1, 2)


def test_forward_runs_a_window_with_sinks_as_one_op_call(monkeypatch):
    from types import SimpleNamespace

    calls = []
    monkeypatch.setattr(hf, "_whole_attention", whole_reference(calls))
    module = SimpleNamespace(is_causal=True, training=False)
    q, k, v = _layer_inputs(0)
    sinks = torch.tensor([0.5, -1.0, 2.0, float("-inf")])
    got, weights = hf.fmhactl_attention_forward(module, q, k, v, hf.SlidingWindow(3, 9, 9), scaling=0.3,
                                                sliding_window=4, s_aux=sinks.to(torch.bfloat16))
    i = torch.arange(9)
    mask = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - 4)
    want = _dense_with_sinks(q, k, v, mask, sinks.to(torch.bfloat16).float(), 0.3)
    assert weights is None and calls == [(True, 3, True)]
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_forward_with_sinks_and_a_mask_the_kernels_cannot_take_keeps_the_sinks():
    """SDPA has no sinks: the fallback is the same math in fp32, never SDPA without them."""
    from types import SimpleNamespace

    module = SimpleNamespace(is_causal=True, training=False)
    q, k, v = _layer_inputs(1)
    mask = torch.rand(2, 1, 9, 9, generator=torch.Generator().manual_seed(2)) > 0.3
    mask[..., 0] = True
    sinks = torch.tensor([0.1, 0.2, -0.3, 1.5])
    got, _ = hf.fmhactl_attention_forward(module, q, k, v, hf.SdpaFallback(mask, "a test mask"), scaling=0.25,
                                          s_aux=sinks)
    torch.testing.assert_close(got, _dense_with_sinks(q, k, v, mask, sinks, 0.25), atol=1e-5, rtol=1e-5)


def test_sinks_refused_where_they_would_be_wrong_or_need_gradients():
    from types import SimpleNamespace

    module = SimpleNamespace(is_causal=True, training=False)
    q, k, v = _layer_inputs(2)
    with pytest.raises(hf.UnsupportedAttentionCall, match="one sink a query head"):
        hf.fmhactl_attention_forward(module, q, k, v, None, s_aux=torch.zeros(3))
    with pytest.raises(hf.UnsupportedAttentionCall, match="forward-only"):
        hf.fmhactl_attention_forward(module, q, k, v, None, s_aux=torch.zeros(4, requires_grad=True))
    with pytest.raises(hf.UnsupportedAttentionCall, match="softcap"):
        hf.fmhactl_attention_forward(module, q, k, v, hf.SlidingWindow(3, 9, 9), softcap=30.0)
    with pytest.raises(hf.UnsupportedAttentionCall, match="made for 9 queries"):
        hf.fmhactl_attention_forward(module, q, k, v, hf.SlidingWindow(3, 9, 8))


def _tiny(config_class, implementations, **extra):
    from transformers import AutoModelForCausalLM

    from fmhactl.torch import register_transformers

    register_transformers()
    config = config_class(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                          intermediate_size=128, vocab_size=300, max_position_embeddings=256, **extra)
    models = {}
    for impl in implementations:
        torch.manual_seed(0)
        import copy

        models[impl] = AutoModelForCausalLM.from_config(copy.deepcopy(config), attn_implementation=impl).eval()
    state = models[implementations[0]].state_dict()
    for model in models.values():
        model.load_state_dict(state)
    return models


def ranged_reference(calls: list):
    """The op's one call over a padded batch (key ranges, window) by the fp32 reference."""

    def ranged(q, k, v, key_ranges, causal, scale, window_left=-1):
        calls.append(("ranged", window_left))
        out, _ = reference(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal, scale=scale,
                           compute_dtype=torch.float32, window_left=window_left, key_ranges=key_ranges)
        return out.to(q.dtype)

    return ranged


def test_padded_window_is_one_ranged_call_else_sdpa_with_its_mask(monkeypatch):
    from types import SimpleNamespace

    calls = []
    module = SimpleNamespace(is_causal=True, training=False, num_key_value_groups=2)
    q, k, v = _layer_inputs(5, t=8, n=8)
    batch = hf.PaddedBatch(((3, 8), (0, 8)), 0, True, 2)
    mask = hf._sdpa_mask_of(batch, q, k)
    i = torch.arange(8)
    assert torch.equal(mask[1, 0], (i[None, :] <= i[:, None]) & (i[None, :] >= i[:, None] - 2))
    want = torch.nn.functional.scaled_dot_product_attention(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1),
                                                            attn_mask=mask, scale=0.3).transpose(1, 2)
    seen = mask.any(-1)[:, 0]  # query rows that see a key (SDPA gives NaN elsewhere)
    monkeypatch.setattr(hf, "_ranged_attention", ranged_reference(calls))
    got, _ = hf.fmhactl_attention_forward(module, q, k, v, batch, scaling=0.3)
    assert calls == [("ranged", 2)]
    torch.testing.assert_close(got[seen], want[seen], atol=1e-5, rtol=1e-5)
    monkeypatch.setattr(hf, "_ranged_attention", lambda *a: None)  # no kernel takes it: SDPA with the mask
    before = hf.fallbacks().get("a sliding window over a padded batch no kernel takes in one launch", 0)
    got, _ = hf.fmhactl_attention_forward(module, q, k, v, batch, scaling=0.3)
    torch.testing.assert_close(got[seen], want[seen], atol=1e-5, rtol=1e-5)
    assert hf.fallbacks()["a sliding window over a padded batch no kernel takes in one launch"] == before + 1


def _prefill_logits(models: dict, baseline: str, ids, mask=None):
    """(baseline's, fmhactl's) logits of one forward without a cache."""
    with torch.no_grad():
        return tuple(models[impl](ids, attention_mask=mask, use_cache=False).logits for impl in (baseline, "fmhactl"))


def test_sliding_window_mistral_matches_sdpa_with_no_fallback(monkeypatch):
    """Prefill past the window, then cached decode steps: every layer a windowed op call."""
    from transformers import MistralConfig

    calls = []
    monkeypatch.setattr(hf, "_whole_attention", whole_reference(calls))
    models = _tiny(MistralConfig, ("sdpa", "fmhactl"), sliding_window=5)
    ids = torch.randint(0, 300, (2, 13), generator=torch.Generator().manual_seed(3))
    before = sum(hf.fallbacks().values())
    want, got = _prefill_logits(models, "sdpa", ids)
    torch.testing.assert_close(got, want, atol=2e-4, rtol=2e-4)
    assert calls and all(window == 4 for _, window, _ in calls)
    with torch.no_grad():
        steps = {impl: model.generate(ids, max_new_tokens=6, do_sample=False, output_logits=True,
                                      return_dict_in_generate=True) for impl, model in models.items()}
    assert torch.equal(steps["fmhactl"].sequences, steps["sdpa"].sequences)
    for a, b in zip(steps["fmhactl"].logits, steps["sdpa"].logits):
        torch.testing.assert_close(a, b, atol=2e-4, rtol=2e-4)
    assert sum(hf.fallbacks().values()) == before


def test_left_padded_sliding_window_mistral_matches_sdpa(monkeypatch):
    from transformers import MistralConfig

    from fmhactl.bench.model import padding_mask

    calls = []
    monkeypatch.setattr(hf, "_whole_attention", whole_reference(calls))
    monkeypatch.setattr(hf, "_ranged_attention", ranged_reference(calls))
    models = _tiny(MistralConfig, ("sdpa", "fmhactl"), sliding_window=5)
    mask = padding_mask((13, 9, 4, 11), "left", device="cpu")
    ids = torch.randint(0, 300, mask.shape, generator=torch.Generator().manual_seed(6))
    before = sum(hf.fallbacks().values())
    want, got = _prefill_logits(models, "sdpa", ids, mask)
    seen = mask.bool()
    torch.testing.assert_close(got[seen], want[seen], atol=2e-4, rtol=2e-4)
    assert calls == [("ranged", 4)] * 2 and sum(hf.fallbacks().values()) == before


def test_gpt_oss_sinks_and_windows_match_eager_with_no_fallback(monkeypatch):
    """gpt-oss: sinks on every layer, a 4-key window on every other one; transformers has no SDPA
    path for it (it would drop the sinks), so eager is the reference."""
    GptOssConfig = getattr(transformers, "GptOssConfig", None)
    if GptOssConfig is None:
        pytest.skip("this transformers has no gpt-oss")
    calls = []
    monkeypatch.setattr(hf, "_whole_attention", whole_reference(calls))
    models = _tiny(GptOssConfig, ("eager", "fmhactl"), sliding_window=4, num_local_experts=4,
                   num_experts_per_tok=2, head_dim=16, layer_types=["sliding_attention", "full_attention"])
    for model in models.values():  # random sinks: the zeros transformers starts them at would hide a dropped sink
        for layer in model.model.layers:
            torch.nn.init.normal_(layer.self_attn.sinks, std=1.0)
    state = models["eager"].state_dict()
    models["fmhactl"].load_state_dict(state)
    ids = torch.randint(0, 300, (2, 11), generator=torch.Generator().manual_seed(4))
    before = sum(hf.fallbacks().values())
    want, got = _prefill_logits(models, "eager", ids)
    torch.testing.assert_close(got, want, atol=2e-4, rtol=2e-4)
    assert sorted(set(calls)) == [(True, -1, True), (True, 3, True)]
    assert sum(hf.fallbacks().values()) == before
