"""Padded batches through attn_implementation="fmhactl" on a CPU: the row-by-row decomposition
against explicitly masked attention, the mask interface's decisions, and a whole random Llama's
logits on left- and right-padded batches against SDPA's (the op's pieces replaced by a CPU
reference of the same bottom-right-causal contract, since the kernels need a GPU)."""

from __future__ import annotations

import pytest
import torch

from fmhactl.torch import hf

transformers = pytest.importorskip("transformers")


def reference_piece(q, k, v, causal, scale):
    """The op's contract in fp32 math: (1, heads, T, d) bhsd, GQA, causal bottom-right aligned."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1).float(), v.repeat_interleave(group, dim=1).float()
    scale = scale if scale is not None else q.shape[-1] ** -0.5
    s = q.float() @ k.transpose(-1, -2) * scale
    if causal:
        t, n = s.shape[-2:]
        s = s.masked_fill(torch.arange(n)[None, :] > torch.arange(t)[:, None] + (n - t), float("-inf"))
    return torch.softmax(s, dim=-1).nan_to_num(0.0).matmul(v).to(q.dtype)


def masked_reference(q, k, v, valid, shift, causal, scale):
    """Full attention with the SDPA mask: key j visible to query i iff valid[b, j] and j <= i + shift."""
    b, h, t, d = q.shape
    group = h // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1).float(), v.repeat_interleave(group, dim=1).float()
    s = q.float() @ k.transpose(-1, -2) * scale
    mask = valid[:, None, None, :].expand(b, 1, t, k.shape[2])
    if causal:
        mask = mask & (torch.arange(k.shape[2])[None, :] <= torch.arange(t)[:, None] + shift)
    p = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1).nan_to_num(0.0)
    return (p @ v).transpose(1, 2)  # (b, t, h, d)


PADDED_CASES = [  # rows, seq_q, seq_k, shift
    (((3, 12), (0, 12), (7, 12), (11, 12)), 12, 12, 0),   # left padding, prefill
    (((0, 12), (0, 5), (0, 9), (0, 1)), 12, 12, 0),       # right padding: padded queries see all valid keys
    (((4, 20), (0, 20), (9, 20)), 1, 20, 19),             # decode step, left padding, cache
    (((2, 15), (0, 10), (0, 0)), 5, 20, 15),              # static-cache tail and an empty row
    (((5, 70), (0, 33), (0, 0), (20, 60)), 70, 70, 0),    # > 64 queries: both paddings, an empty row
    (((1, 7), (0, 4)), 3, 9, 2),                          # both paddings, T < S, shift != S - T
]


def ranged_reference(q, k, v, key_ranges, causal, scale, calls=None):
    """The op with key_ranges, by the verify reference (bshd, fp32): the CPU stand-in of the one call."""
    from fmhactl.verify.reference import attention

    if calls is not None:
        calls.append(key_ranges.tolist())
    assert key_ranges.dtype == torch.int32 and key_ranges.shape == (q.shape[0], 2)
    out, _ = attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal, scale=scale,
                       compute_dtype=torch.float32, key_ranges=key_ranges)
    return out.to(q.dtype)


def refuse_pieces(*args):
    raise AssertionError("row by row ran where one call with key ranges should have")


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("rows, t, n, shift", PADDED_CASES)
def test_padded_rows_match_masked_attention(causal, rows, t, n, shift, monkeypatch):
    """Row by row (a CPU reference for the op's pieces) equals explicitly masked attention; with the
    queries bottom-right aligned (shift = S - T; always so in transformers' prefill and cache) the
    batch is one op call with the rows as key_ranges, equal to both; another causal alignment keeps
    the row-by-row path."""
    calls = []
    monkeypatch.setattr(hf, "_ranged_attention", lambda *a: ranged_reference(*a, calls=calls))
    one_call = not causal or shift == n - t
    monkeypatch.setattr(hf, "_piece_attention", refuse_pieces if one_call else reference_piece)
    torch.manual_seed(0)
    b, h, hkv, d = len(rows), 4, 2, 16
    q, k, v = torch.randn(b, h, t, d), torch.randn(b, hkv, n, d), torch.randn(b, hkv, n, d)
    valid = torch.zeros(b, n, dtype=torch.bool)
    for i, (a, z) in enumerate(rows):
        valid[i, a:z] = True
    got = hf.padded_attention(q, k, v, hf.PaddedBatch(rows, shift, causal), 0.25)
    want = masked_reference(q, k, v, valid, shift, causal, 0.25)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    rowwise = hf.padded_attention(q, k, v, hf.PaddedBatch(rows, shift, causal), 0.25, attend=reference_piece)
    torch.testing.assert_close(rowwise, want, atol=1e-5, rtol=1e-5)
    assert calls == ([[list(r) for r in rows]] if one_call else [])


def test_mask_interface_decisions():
    from transformers.masking_utils import causal_mask_function, sliding_window_causal_mask_function

    ones = torch.ones(2, 6, dtype=torch.bool)
    assert hf.fmhactl_attention_mask(2, 6, 6, mask_function=causal_mask_function) is None
    assert hf.fmhactl_attention_mask(2, 6, 6, mask_function=causal_mask_function, attention_mask=ones) is None
    left = torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]], dtype=torch.bool)
    got = hf.fmhactl_attention_mask(2, 6, 6, mask_function=causal_mask_function, attention_mask=left)
    assert got == hf.PaddedBatch(((2, 6), (0, 6)), 0, True)
    # A decode step with a static cache of 10 slots: the 2-D mask covers 7 tokens; the rest are invalid.
    step = torch.tensor([[0, 1, 1, 1, 1, 1, 1]], dtype=torch.bool)
    got = hf.fmhactl_attention_mask(1, 1, 10, q_offset=6, mask_function=causal_mask_function, attention_mask=step)
    assert got == hf.PaddedBatch(((1, 7),), 6, True)
    holes = torch.tensor([[1, 0, 1, 1, 1, 1]], dtype=torch.bool)
    fallback = hf.fmhactl_attention_mask(1, 6, 6, mask_function=causal_mask_function, attention_mask=holes,
                                         device="cpu")
    assert isinstance(fallback, hf.SdpaFallback) and "one interval" in fallback.reason
    assert fallback.mask.shape == (1, 1, 6, 6) and not bool(fallback.mask[0, 0, 5, 1])
    sliding = hf.fmhactl_attention_mask(1, 6, 6, mask_function=sliding_window_causal_mask_function(2), device="cpu")
    assert sliding == hf.SlidingWindow(1, 6, 6)  # the op's window feature (test_hf_window_sinks_cpu.py)


def _models():
    from fmhactl.bench.model import ModelSpec, build_models

    spec = ModelSpec("tiny", 128, 2, 4, 2, 256, 1000, 512)
    return build_models(spec, ("sdpa", "fmhactl"), torch.float32, device="cpu")


@pytest.mark.parametrize("side", ["left", "right", "holes"])
def test_padded_llama_logits_match_sdpa(side, monkeypatch):
    monkeypatch.setattr(hf, "_piece_attention", reference_piece)
    models = _models()
    from fmhactl.bench.model import padding_mask

    mask = padding_mask((13, 9, 4, 11), "right" if side == "holes" else side, device="cpu")
    ids = torch.randint(0, 1000, mask.shape, generator=torch.Generator().manual_seed(1))
    if side == "holes":
        mask[2, 1] = 0
    before = sum(hf.fallbacks().values())
    with torch.no_grad():
        want = models["sdpa"](ids, attention_mask=mask, use_cache=False).logits
        got = models["fmhactl"](ids, attention_mask=mask, use_cache=False).logits
    seen = mask.bool()
    torch.testing.assert_close(got[seen], want[seen], atol=2e-4, rtol=2e-4)
    fell_back = sum(hf.fallbacks().values()) - before
    assert fell_back == (2 if side == "holes" else 0)  # one per layer when the mask has a hole


@pytest.mark.parametrize("side", ["left", "right"])
def test_padded_llama_logits_match_sdpa_in_one_call_per_layer(side, monkeypatch):
    """70..17 tokens: above the decode kernels' limit, each layer is one call with key ranges."""
    calls = []
    monkeypatch.setattr(hf, "_ranged_attention", lambda *a: ranged_reference(*a, calls=calls))
    monkeypatch.setattr(hf, "_piece_attention", refuse_pieces)
    models = _models()
    from fmhactl.bench.model import padding_mask

    mask = padding_mask((70, 52, 35, 17), side, device="cpu")
    ids = torch.randint(0, 1000, mask.shape, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        want = models["sdpa"](ids, attention_mask=mask, use_cache=False).logits
        got = models["fmhactl"](ids, attention_mask=mask, use_cache=False).logits
    seen = mask.bool()
    torch.testing.assert_close(got[seen], want[seen], atol=2e-4, rtol=2e-4)
    assert len(calls) == 2  # one per layer


def test_forward_serves_a_4d_mask_through_sdpa_and_still_refuses_softcap():
    from types import SimpleNamespace

    module = SimpleNamespace(is_causal=True, training=False, num_key_value_groups=2)
    q, k = torch.randn(1, 4, 3, 16), torch.randn(1, 2, 3, 16)
    mask = torch.ones(1, 1, 3, 3, dtype=torch.bool).tril()
    out, weights = hf.fmhactl_attention_forward(module, q, k, k, mask, scaling=0.25)
    assert out.shape == (1, 3, 4, 16) and weights is None
    torch.testing.assert_close(out, masked_reference(q, k, k, torch.ones(1, 3, dtype=torch.bool), 0, True, 0.25))
    with pytest.raises(hf.UnsupportedAttentionCall, match="softcap"):
        hf.fmhactl_attention_forward(module, q, k, k, None, softcap=30.0)


def test_left_padded_decode_step_matches_sdpa(monkeypatch):
    """Prefill with a cache, then one step: the step's query sits at key index `past` (shift)."""
    from fmhactl.bench.model import padding_mask

    monkeypatch.setattr(hf, "_piece_attention", reference_piece)
    models = _models()
    mask = padding_mask((10, 7, 3, 5), "left", device="cpu")
    gen = torch.Generator().manual_seed(2)
    ids = torch.randint(0, 1000, mask.shape, generator=gen)
    step = torch.randint(0, 1000, (4, 1), generator=gen)
    mask2 = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
    logits = {}
    with torch.no_grad():
        for name, model in models.items():
            cache = model(ids, attention_mask=mask, use_cache=True).past_key_values
            logits[name] = model(step, attention_mask=mask2, past_key_values=cache).logits
    torch.testing.assert_close(logits["fmhactl"], logits["sdpa"], atol=2e-4, rtol=2e-4)


def test_a_static_cache_without_a_mask_is_a_padded_batch_with_its_shift():
    """No attention_mask, keys to the static cache's end: the last query is not at the last key, so
    the op's bottom-right causal diagonal would be wrong; the queries' real position is the shift."""
    from transformers.masking_utils import causal_mask_function

    got = hf.fmhactl_attention_mask(2, 6, 10, mask_function=causal_mask_function)
    assert got == hf.PaddedBatch(((0, 10), (0, 10)), 0, True)
    got = hf.fmhactl_attention_mask(1, 1, 10, q_offset=torch.tensor(6), mask_function=causal_mask_function)
    assert got == hf.PaddedBatch(((0, 10),), 6, True)
    ones = torch.ones(1, 10, dtype=torch.bool)
    got = hf.fmhactl_attention_mask(1, 3, 10, q_offset=2, mask_function=causal_mask_function, attention_mask=ones)
    assert got == hf.PaddedBatch(((0, 10),), 2, True)
    assert hf.fmhactl_attention_mask(1, 4, 10, q_offset=6, mask_function=causal_mask_function) is None  # aligned


def _static_cache(model, batch: int, length: int):
    from transformers import StaticCache

    try:
        return StaticCache(config=model.config, max_cache_len=length)
    except TypeError:  # transformers < 4.56 sizes it up front
        return StaticCache(config=model.config, max_batch_size=batch, max_cache_len=length, device="cpu",
                           dtype=torch.float32)


def test_static_cache_without_a_mask_matches_sdpa(monkeypatch):
    """A prompt then one step into a StaticCache of 32 slots, no attention_mask (a direct forward):
    before the fix every query also saw the keys after it and the unfilled tail (the integrations
    fuzz, session 25)."""
    monkeypatch.setattr(hf, "_piece_attention", reference_piece)
    models = _models()
    gen = torch.Generator().manual_seed(4)
    ids, step = torch.randint(0, 1000, (2, 9), generator=gen), torch.randint(0, 1000, (2, 1), generator=gen)
    logits = {}
    with torch.no_grad():
        for name, model in models.items():
            cache = _static_cache(model, 2, 32)
            prompt = model(ids, past_key_values=cache, use_cache=True, cache_position=torch.arange(9)).logits
            nxt = model(step, past_key_values=cache, use_cache=True, cache_position=torch.tensor([9])).logits
            logits[name] = (prompt, nxt)
    for got, want in zip(logits["fmhactl"], logits["sdpa"]):
        torch.testing.assert_close(got, want, atol=2e-4, rtol=2e-4)


def test_mask_function_traces_under_compile_fullgraph():
    """transformers calls the mask function inside a compiled forward, so it must trace. (On the
    H100's torch 2.11 + transformers 5.17, an import of transformers inside it broke fullgraph
    compilation; this CPU's versions trace that import, so this test guards tracing in general.)"""
    from transformers.masking_utils import causal_mask_function

    import fmhactl.torch as ft

    ft.register_transformers()
    torch._dynamo.reset()

    def fn(x):
        mask = hf.fmhactl_attention_mask(1, 5, 5, mask_function=causal_mask_function, attention_mask=None)
        return x * 2 if mask is None else x

    compiled = torch.compile(fn, fullgraph=True, backend="eager")
    assert torch.equal(compiled(torch.ones(3)), torch.full((3,), 2.0))
