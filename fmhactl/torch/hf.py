"""transformers integration: attn_implementation="fmhactl".

transformers calls an attention implementation as
    fn(module, query, key, value, attention_mask, scaling=..., dropout=..., **kwargs) -> (out, weights)
with query (batch, heads, seq_q, dim), key/value (batch, heads_kv, seq_k, dim) (not repeated for
GQA) and expects out as (batch, seq_q, heads, dim). The kernels take no arbitrary mask, so a
mask function is registered too: it lets a causal model through with no mask (the op's
bottom-right causal flag covers prefill and decoding with a cache) and refuses padding with one
line instead of silently ignoring it.
"""

from __future__ import annotations

NAME = "fmhactl"


class UnsupportedAttentionCall(ValueError):
    pass


def _fail(message: str) -> None:
    raise UnsupportedAttentionCall(f"attn_implementation='fmhactl': {message}")


def fmhactl_attention_forward(module, query, key, value, attention_mask, scaling=None, dropout: float = 0.0,
                              **kwargs):
    from fmhactl.torch.op import attention

    if attention_mask is not None:
        _fail("attention masks (padding) are not supported; pass unpadded batches or use attn_implementation='sdpa'")
    if dropout and module.training:
        _fail(f"attention dropout ({dropout}) is not supported")
    for unsupported in ("sliding_window", "softcap", "s_aux"):
        if kwargs.get(unsupported) is not None:
            _fail(f"{unsupported} is not supported")
    if kwargs.get("output_attentions"):
        _fail("output_attentions=True needs the attention weights; use attn_implementation='eager'")
    is_causal = kwargs.get("is_causal")
    causal = bool(getattr(module, "is_causal", True) if is_causal is None else is_causal)
    out = attention(query, key, value, causal=causal, scale=scaling, layout="bhsd")
    return out.transpose(1, 2), None  # stored (batch, seq, heads, dim): this view is contiguous


def fmhactl_attention_mask(batch_size: int, q_length: int, kv_length: int, q_offset: int = 0, kv_offset: int = 0,
                           mask_function=None, attention_mask=None, **kwargs):
    """No mask for unpadded batches (the kernel's causal flag does the masking); padding is refused."""
    if attention_mask is None:
        return None
    attention_mask = attention_mask[:, -kv_length:]
    # A host read, as transformers' flash-attention mask does: only when a 2-D mask was passed.
    if attention_mask.shape[1] == kv_length and bool(attention_mask.all()):
        return None
    _fail("padded batches (an attention_mask with zeros) are not supported; use attn_implementation='sdpa'")


def register_transformers() -> str:
    """Register "fmhactl" with transformers' AttentionInterface (and its mask interface); return the name."""
    try:
        from transformers import AttentionInterface
    except ImportError as exc:
        raise ImportError("register_transformers needs transformers >= 4.50: pip install 'fmhactl[hf]'") from exc
    import fmhactl.torch.op  # noqa: F401 - registers torch.ops.fmhactl.attention

    AttentionInterface.register(NAME, fmhactl_attention_forward)
    try:
        from transformers.masking_utils import AttentionMaskInterface
    except ImportError:  # older transformers build masks per model; a 4-D mask then reaches the forward and is refused
        pass
    else:
        AttentionMaskInterface.register(NAME, fmhactl_attention_mask)
    return NAME
