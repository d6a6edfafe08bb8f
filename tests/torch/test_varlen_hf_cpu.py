"""Packed sequences through attn_implementation="fmhactl" on a CPU (fmhactl.torch.hf PackedBatch):
the mask hook tells an exactly block-diagonal causal mask from everything else, and a random
Llama's logits and gradients on packed position_ids match SDPA's with every layer one varlen call
(the op replaced by the fp32 reference of its contract: the kernels need a GPU)."""

from __future__ import annotations

import pytest
import torch

from fmhactl.torch import hf, varlen
from fmhactl.verify.reference import attention as reference

transformers = pytest.importorskip("transformers")
masking = pytest.importorskip("transformers.masking_utils")


def block_causal(segments_per_row):
    """(rows, 1, seq, seq) bool: each row's segments causal within themselves, blind to the others."""
    rows = []
    for segments in segments_per_row:
        ids = torch.repeat_interleave(torch.arange(len(segments)), torch.tensor(segments))
        seq = len(ids)
        rows.append((ids[:, None] == ids[None, :]) & torch.ones(seq, seq, dtype=torch.bool).tril())
    return torch.stack(rows)[:, None]


def packed_mask_function(position_ids):
    """The mask function transformers' create_causal_mask builds for packed position_ids."""
    from transformers.masking_utils import (and_masks, causal_mask_function, find_packed_sequence_indices,
                                            packed_sequence_mask_function, remap_positions_for_packed_sequence)

    indices = find_packed_sequence_indices(position_ids)
    assert indices is not None, "not packed"
    return and_masks(remap_positions_for_packed_sequence(causal_mask_function, position_ids),
                     packed_sequence_mask_function(indices))


def test_block_causal_masks_become_packed_batches():
    segments = ((3, 1, 4), (8,), (1, 1, 1, 5))
    got = hf._packed_batch(block_causal(segments), 3)
    assert got == hf.PackedBatch((3, 1, 4, 8, 1, 1, 1, 5), 8) and got.max_seqlen == 8
    one_row = block_causal([(2, 4)])  # a mask broadcast over the batch
    assert hf._packed_batch(one_row, 2) == hf.PackedBatch((2, 4, 2, 4), 6)


def _not_block_causal():
    base = block_causal([(3, 5)])
    sees_other_segment = base.clone()
    sees_other_segment[0, 0, 5, 2] = True  # segment 2's third query sees segment 1's last key
    hole = base.clone()
    hole[0, 0, 6, 4] = False  # a key inside the query's own segment hidden
    no_diagonal = base.clone()
    no_diagonal[0, 0, 4, 4] = False
    future = base.clone()
    future[0, 0, 1, 2] = True  # a key right of the diagonal
    window = torch.ones(8, 8, dtype=torch.bool).tril() & torch.ones(8, 8, dtype=torch.bool).triu(-2)
    empty_row = base.clone()
    empty_row[0, 0, 3] = False
    bidirectional = base | base.transpose(-1, -2)
    return {"other segment": sees_other_segment, "hole": hole, "no diagonal": no_diagonal, "future": future,
            "sliding window": window[None, None], "bidirectional blocks": bidirectional, "empty row": empty_row,
            "float mask": base.float()}


@pytest.mark.parametrize("name", list(_not_block_causal()))
def test_anything_else_stays_with_sdpa(name):
    assert hf._packed_batch(_not_block_causal()[name], 1) is None


def test_mask_hook_serves_transformers_packed_mask_as_a_packed_batch():
    from transformers.masking_utils import sdpa_mask, sliding_window_causal_mask_function

    positions = torch.tensor([[0, 1, 2, 0, 1, 2, 3, 4, 5, 0], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]])
    function = packed_mask_function(positions)
    got = hf.fmhactl_attention_mask(2, 10, 10, mask_function=function, device="cpu")
    assert got == hf.PackedBatch((3, 6, 1, 10), 10)
    dense = sdpa_mask(batch_size=2, q_length=10, kv_length=10, mask_function=function, allow_is_causal_skip=False)
    q, k = torch.zeros(2, 4, 10, 8), torch.zeros(2, 2, 10, 8)
    assert torch.equal(hf._sdpa_mask_of(got, q, k), dense)  # the dropout fallback's mask is SDPA's
    # transformers' own sliding window is the op's window feature; wider than the prompt it hides
    # nothing: plain causal.
    narrow = hf.fmhactl_attention_mask(2, 10, 10, mask_function=sliding_window_causal_mask_function(3), device="cpu")
    assert narrow == hf.SlidingWindow(2, 10, 10)
    wide = hf.fmhactl_attention_mask(2, 10, 10, mask_function=sliding_window_causal_mask_function(16), device="cpu")
    assert wide is None
    # Any other mask function that draws one causal segment a row is still read as a packed batch.
    causal_twice = masking.and_masks(masking.causal_mask_function, masking.causal_mask_function)
    assert hf.fmhactl_attention_mask(2, 10, 10, mask_function=causal_twice, device="cpu") == hf.PackedBatch((10, 10), 10)


def test_mask_hook_keeps_sdpa_with_offsets():
    """A query offset (a cache): never packing in transformers, and the segments would not be
    square: the fallback as before."""
    causal_twice = masking.and_masks(masking.causal_mask_function, masking.causal_mask_function)
    got = hf.fmhactl_attention_mask(1, 4, 10, q_offset=6, mask_function=causal_twice, device="cpu")
    assert isinstance(got, hf.SdpaFallback)


def varlen_stand_in(calls: list):
    """varlen's one op call by the fp32 reference (differentiable), recording the sequence count."""

    def padded_attention(q, k, v, key_ranges, *, causal, scale, return_lse, window, window_left, window_right,
                         sinks, check_values):
        calls.append((q.shape[0], q.shape[1], causal))
        out, lse = reference(q, k, v, causal=causal, scale=scale, compute_dtype=torch.float32, key_ranges=key_ranges)
        return out.to(q.dtype), (lse if return_lse else None)

    return padded_attention


def test_forward_runs_a_packed_batch_as_one_varlen_call(monkeypatch):
    from types import SimpleNamespace

    calls = []
    monkeypatch.setattr(varlen, "_padded_attention", varlen_stand_in(calls))
    module = SimpleNamespace(is_causal=True, training=False, num_key_value_groups=2)
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(2, 4, 7, 16, generator=gen)
    k, v = torch.randn(2, 2, 7, 16, generator=gen), torch.randn(2, 2, 7, 16, generator=gen)
    batch = hf.PackedBatch((3, 4, 2, 2, 3), 7)
    mask = block_causal([(3, 4), (2, 2, 3)])
    out, weights = hf.fmhactl_attention_forward(module, q, k, v, batch, scaling=0.25, sliding_window=4096)
    assert weights is None and out.shape == (2, 7, 4, 16) and calls == [(5, 4, True)]
    s = q @ k.repeat_interleave(2, 1).transpose(-1, -2) * 0.25  # GQA: 2 query heads a KV head
    want = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1) @ v.repeat_interleave(2, 1)
    torch.testing.assert_close(out, want.transpose(1, 2), atol=1e-5, rtol=1e-5)
    with pytest.raises(hf.UnsupportedAttentionCall, match="softcap"):
        hf.fmhactl_attention_forward(module, q, k, v, batch, softcap=30.0)
    before = hf.fallbacks().get("attention dropout (0.5) in training", 0)
    module.training = True
    out, _ = hf.fmhactl_attention_forward(module, q, k, v, batch, scaling=0.25, dropout=0.5)
    assert out.shape == (2, 7, 4, 16) and hf.fallbacks()["attention dropout (0.5) in training"] == before + 1


def _models():
    from fmhactl.bench.model import ModelSpec, build_models

    spec = ModelSpec("tiny", 128, 2, 4, 2, 256, 1000, 512)
    return build_models(spec, ("sdpa", "fmhactl"), torch.float32, device="cpu")


PACKED = torch.tensor([[0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6, 0, 1], [0, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])


def test_packed_llama_logits_and_gradients_match_sdpa(monkeypatch):
    calls = []
    monkeypatch.setattr(varlen, "_padded_attention", varlen_stand_in(calls))
    models = _models()
    ids = torch.randint(0, 1000, PACKED.shape, generator=torch.Generator().manual_seed(5))
    before = sum(hf.fallbacks().values())
    with torch.no_grad():
        want = models["sdpa"](ids, position_ids=PACKED, use_cache=False).logits
        got = models["fmhactl"](ids, position_ids=PACKED, use_cache=False).logits
        unpacked = models["sdpa"](ids, use_cache=False).logits
    torch.testing.assert_close(got, want, atol=2e-4, rtol=2e-4)
    assert not torch.allclose(unpacked, want, atol=1e-2), "packing changes the answer: the mask really applied"
    assert calls == [(5, 11, True)] * 2  # one varlen call (5 sequences, longest 11) per layer
    assert sum(hf.fallbacks().values()) == before, "no SDPA fallback"
    grads = {}
    for name, model in models.items():
        model.zero_grad()
        model(ids, position_ids=PACKED, use_cache=False).logits.square().mean().backward()
        grads[name] = model.model.layers[0].self_attn.q_proj.weight.grad.clone()
    torch.testing.assert_close(grads["fmhactl"], grads["sdpa"], atol=1e-5, rtol=1e-4)
    assert grads["sdpa"].abs().max() > 0
