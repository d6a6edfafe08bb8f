"""attn_implementation="fmhactl" while torch.compile traces the forward (see fmhactl.torch.hf).

Tracing, the host cannot look at tensors, and transformers hands the mask hook a mask function it
cannot classify for every compiled forward that has position_ids (packed sequences cannot be
ruled out while tracing). The hook then returns a TracedMask: the dense mask SDPA would get and
0-d device bools saying whether it is in fact the op's plain causal / full mask. Every layer calls
`torch.ops.fmhactl.attention_or_masked`, an opaque op that runs the fmhactl op when the mask is
plain (the common, unpacked case) and SDPA with the mask otherwise (packed or padded batches).

Why an op and not `torch.cond`: inductor lowers cond to the same one host read of the predicate,
but does not give cond's operands the strides its branches were traced with (RoPE's output gets
inductor's own layout), and the compiled branch then asserts; a custom op's inputs keep their
traced strides. The choice reads the predicate on the host once per layer, so a compiled forward
that takes this path is not CUDA-graph capturable (the plain path without position_ids and with a
cache never builds a TracedMask).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class TracedMask:
    """The (batch, 1, seq_q, seq_k) bool mask SDPA would get, and 0-d bool tensors: it equals the
    op's bottom-right causal mask / it lets every query see every key."""

    mask: torch.Tensor
    plain_causal: torch.Tensor
    plain_full: torch.Tensor


def traced_mask(mask: torch.Tensor) -> TracedMask:
    """Classify a dense (batch, 1, seq_q, seq_k) bool mask on the device (traceable: no host read)."""
    q_length, kv_length = mask.shape[-2], mask.shape[-1]
    i = torch.arange(q_length, device=mask.device)
    j = torch.arange(kv_length, device=mask.device)
    op_causal = j[None, :] <= i[:, None] + (kv_length - q_length)  # the op's bottom-right causal mask
    return TracedMask(mask, (mask == op_causal).all(), mask.all())


def _op_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float | None):
    """The fmhactl op through the dispatcher (so its run counter sees it); tests put a CPU stand-in here."""
    from fmhactl.torch.op import attention_op

    return attention_op(q, k, v, causal=causal, scale=scale, layout="bhsd")[0]


@torch.library.custom_op("fmhactl::attention_or_masked", mutates_args=())
def attention_or_masked(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor,
                        plain: torch.Tensor, causal: bool, scale: float | None) -> torch.Tensor:
    """(batch, seq_q, heads, dim) contiguous from bhsd q/k/v (GQA k/v): the fmhactl op when `plain`,
    else SDPA with the bool mask (the answer transformers' SDPA path gives)."""
    if bool(plain):  # the one host read of this layer
        return _op_attention(q, k, v, causal, scale).transpose(1, 2).contiguous()
    group = q.shape[1] // k.shape[1]
    if group > 1:
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    return out.transpose(1, 2).contiguous()


@attention_or_masked.register_fake
def _(q, k, v, mask, plain, causal, scale):
    b, h, t, d = q.shape
    return q.new_empty(b, t, h, d)


def traced_attention(module, query, key, value, traced: TracedMask, scaling, dropout: float, kwargs: dict,
                     sdpa_attention_forward):
    """(batch, seq_q, heads, dim) for one layer of a traced forward (see the module docstring)."""
    if kwargs.get("output_attentions"):
        from fmhactl.torch.hf_errors import UnsupportedAttentionCall

        raise UnsupportedAttentionCall("attn_implementation='fmhactl': output_attentions=True needs the attention "
                                       "weights; use attn_implementation='eager'")
    is_causal = kwargs.get("is_causal")
    causal = bool(getattr(module, "is_causal", True) if is_causal is None else is_causal)
    unusable = (dropout and module.training) or torch.is_grad_enabled() and query.requires_grad or any(
        kwargs.get(name) is not None for name in ("sliding_window", "softcap", "s_aux"))
    if unusable:  # training or a feature the op lacks: SDPA with the mask, as transformers' own path
        sdpa_kwargs = {name: value for name, value in kwargs.items() if name != "is_causal"}
        out, _ = sdpa_attention_forward(module, query, key, value, traced.mask, dropout=dropout, scaling=scaling,
                                        **sdpa_kwargs)
        return out
    plain = traced.plain_causal if causal else traced.plain_full
    return attention_or_masked(query, key, value, traced.mask, plain, causal, scaling)
