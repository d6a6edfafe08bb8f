"""transformers integration: attn_implementation="fmhactl".

transformers calls an attention implementation as
    fn(module, query, key, value, attention_mask, scaling=..., dropout=..., **kwargs) -> (out, weights)
with query (batch, heads, seq_q, dim), key/value (batch, heads_kv, seq_k, dim) (not repeated for
GQA) and expects out as (batch, seq_q, heads, dim). It first asks the registered mask function
(once per forward, not per layer) what to hand every layer as `attention_mask`:

* None: no padding, a plain causal (or bidirectional) mask: the op's bottom-right causal flag does
  the masking (prefill and decoding with a cache), with no host read. Where the last query is not
  at the last key (a static cache with no attention_mask: its keys run to the cache's end) the
  causal mask is a PaddedBatch of full rows with the queries' real shift instead;
* PaddedBatch: a 2-D padding mask whose every row is one interval of valid keys (left padding,
  right padding, a static cache's unfilled tail): up to 64 query tokens (decode steps, short
  prompts) run as one launch of the split-KV decode kernels with each row's interval
  (fmhactl.torch.decode); otherwise, with the queries bottom-right aligned to the keys (shift =
  seq_k - seq_q, as transformers' prefill and cache always are), as one op call with the rows'
  intervals as `key_ranges` (the SM90 feature kernels mask each row's keys, skipping tiles
  outside them); else each row runs as a slice of the batch through the op, a causal block plus,
  for right padding, a non-causal tail. Either way the padded queries of a right-padded row see
  every valid key, as they do under SDPA (causal alignment puts every valid key left of them),
  and queries that see no key get zeros. One host read of the (batch, keys) mask per forward,
  as transformers' own flash-attention path does;
* PackedBatch: packed sequences (position_ids restarting inside a row: transformers hands over
  its packed-sequence mask function, without a 2-D attention_mask or a cache). The hook builds the
  dense mask SDPA would get and checks on the device that it is exactly block-diagonal causal
  (every row a run of consecutive segments, each query seeing the keys from its segment's first
  token up to itself); then the segments' lengths (one host read of the mask's segment starts per
  forward) make every layer one call of fmhactl.torch.attention_varlen over the flattened
  tokens, causal per segment (fmhactl.torch.varlen: one op call on a padded batch with key
  ranges). Any other mask function whose dense mask is exactly that (a sliding window wider than
  the prompt, say) takes the same path;
* SlidingWindow: transformers' own sliding-window causal mask function (Mistral, Qwen2, Gemma,
  gpt-oss; recognised by its closures, not by calling it) over an unpadded batch whose last query
  sits at the last key: every layer runs the op with causal=True and window_left = W - 1 (the
  kernels skip the KV tiles outside the window). Where the window hides no key (a prompt within
  it, a sliding cache's decode step) the plain causal path serves it, padding included; over a
  padded batch it is a PaddedBatch with the window: one op call with key ranges and the window
  (SDPA with the dense mask where no kernel takes both);
* SdpaFallback: anything else the kernels cannot express (a mask with holes, other custom mask
  functions): the call runs through transformers' SDPA with
  the mask SDPA would get, and the reason is counted (`fallbacks()`) and logged once. Never
  refused, never a wrong answer.
* Attention sinks (gpt-oss's `s_aux`, one logit a query head in every softmax denominator) go to
  the op's `sinks` feature on the plain, causal and sliding-window paths; a padded or packed batch
  or an SdpaFallback with sinks runs the same math in fp32 torch (SDPA would drop the sinks). The
  op's sinks are forward-only: a call needing their gradient, or one under torch.compile's traced
  mask path, is refused with one line.
* TracedMask (only while torch.compile traces the forward, where the host cannot look at tensors):
  for a mask function other than plain causal/bidirectional (transformers hands one over for
  every compiled forward with position_ids, since it cannot rule out packed sequences while
  tracing) or a 2-D attention_mask, the dense mask SDPA would get plus 0-d device bools saying
  whether it is in fact the op's plain causal / full mask. Every layer then runs one opaque op
  (fmhactl.torch.hf_traced) that picks the fmhactl op or SDPA with that mask: the common unpacked
  case runs the op inside the compiled graph, a packed or padded batch gets SDPA's answer, with
  no graph break.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

from fmhactl.torch import op as _op  # bound once: an import statement in the per-layer call costs ~0.5 µs
from fmhactl.torch.hf_errors import UnsupportedAttentionCall

NAME = "fmhactl"
_log = logging.getLogger(__name__)
_fallbacks: Counter[str] = Counter()


@dataclass(frozen=True)
class PaddedBatch:
    """Per row, the interval [start, end) of valid key indices; `shift` is q_offset - kv_offset
    (query i sits at key index i + shift); causal or bidirectional."""

    rows: tuple[tuple[int, int], ...]
    shift: int
    causal: bool
    window_left: int = -1  # a sliding window over the padded batch: keys before each query it sees (-1: none)


@dataclass(frozen=True)
class PackedBatch:
    """Packed sequences: every batch row is consecutive segments, each causal within itself and
    blind to the others (a block-diagonal causal mask). `segments`: their lengths, row after row
    (each row's add up to `seq`, the row's length)."""

    segments: tuple[int, ...]
    seq: int

    @property
    def max_seqlen(self) -> int:
        return max(self.segments)


@dataclass(frozen=True)
class SlidingWindow:
    """transformers' sliding-window causal mask over an unpadded batch, the queries bottom-right
    aligned with the keys: each query sees itself and the `left` keys before it (a model's
    sliding_window W is left = W - 1). `q_length`/`kv_length`: the sizes the mask was made for."""

    left: int
    q_length: int
    kv_length: int


@dataclass(frozen=True)
class SdpaFallback:
    """The mask SDPA would get for this forward, and why the kernels cannot serve it."""

    mask: object
    reason: str


def fallbacks() -> dict[str, int]:
    """How many attention calls fell back to SDPA in this process, by reason."""
    return dict(_fallbacks)


def _fail(message: str) -> None:
    raise UnsupportedAttentionCall(f"attn_implementation='fmhactl': {message}")


def _note_fallback(reason: str) -> None:
    if reason not in _fallbacks:
        _log.warning("attn_implementation='fmhactl': falling back to SDPA: %s", reason)
    _fallbacks[reason] += 1


def _piece_attention(q, k, v, causal: bool, scale):
    """One slice of a padded batch through the op (tests put a CPU reference here)."""
    from fmhactl.torch.op import attention

    return attention(q, k, v, causal=causal, scale=scale, layout="bhsd")


def _whole_attention(q, k, v, causal: bool, scale, window_left: int = -1, sinks=None):
    """A whole batch through the op, (batch, seq_q, heads, dim) (tests put a CPU stand-in here);
    window_left/sinks: a sliding window's keys before each query, the layer's fp32 sinks."""
    if window_left < 0 and sinks is None:
        return _op.attention_bshd_out(q, k, v, causal, scale)  # a decode step: out made (b, s, h, d), no view
    # The window and sinks come from the model (its config and parameters): no value check (a sync).
    return _op.attention(q, k, v, causal=causal, scale=scale, layout="bhsd", window_left=window_left, sinks=sinks,
                         check_values=False).transpose(1, 2)


_ranged_kernel: dict[tuple, bool] = {}  # call signature -> whether a kernel (not the torch fallback) takes key_ranges


def _ranged_attention(q, k, v, key_ranges, causal: bool, scale, window_left: int = -1):
    """A whole padded batch through the op, each batch row seeing its keys [start, end) only,
    (batch, seq_q, heads, dim); None off CUDA or where no kernel has key ranges (SM100, hd512:
    the op would run its fp32 torch fallback; row by row keeps their kernels). Tests put a CPU
    stand-in here."""
    if not q.is_cuda:
        return None
    from fmhactl.torch import backends
    from fmhactl.torch.op import AttentionInputError, attention, backend_for

    signature = (q.shape, k.shape, v.shape, q.dtype, q.device, causal, window_left >= 0, backends.current_override())
    served = _ranged_kernel.get(signature)
    if served is None:
        if len(_ranged_kernel) >= 256:
            _ranged_kernel.clear()
        try:
            served = backend_for(q, k, v, causal=causal, key_ranges=key_ranges,
                                 window_left=window_left).mode == "native"
        except AttentionInputError:  # an override naming a variant without key ranges
            served = False
        _ranged_kernel[signature] = served
    if not served:
        return None
    # The ranges come from the mask's intervals, valid by construction: no value check (a sync).
    return attention(q, k, v, causal=causal, scale=scale, layout="bhsd", key_ranges=key_ranges,
                     window_left=window_left, check_values=False).transpose(1, 2)


_device_ints: dict[tuple, object] = {}  # (values, device) -> int32 device tensor: made once per forward, not per layer


def _device_int32(values: tuple, device):
    """`values` (a tuple of ints, or of int pairs) as an int32 tensor on `device`, cached: every
    layer of a forward gets the one made by the first."""
    import torch

    cache_key = (values, device)
    tensor = _device_ints.get(cache_key)
    if tensor is None:
        if len(_device_ints) >= 64:
            _device_ints.clear()
        tensor = torch.tensor(values, dtype=torch.int32, device=device)
        _device_ints[cache_key] = tensor
    return tensor


def _ranges_of(batch: PaddedBatch, device):
    return _device_int32(batch.rows, device)


def _one_launch(query, key, value, batch: PaddedBatch, scale):
    """A padded batch as one launch: the decode kernels for at most PADDED_MAX_SEQ_Q query tokens
    (decode steps, short prompts), else the op with the rows' key ranges when the queries are
    bottom-right aligned (the op's causal alignment); None where neither serves it (then: row by
    row)."""
    from fmhactl.torch import fastpath
    from fmhactl.torch.decode import PADDED_MAX_SEQ_Q
    from fmhactl.torch.op import _dispatcher_needed

    seq_q, seq_k = query.shape[2], key.shape[2]
    if batch.window_left >= 0:  # the decode kernels have no window; the op's feature kernels have both
        if batch.shift != seq_k - seq_q:
            return None
        return _ranged_attention(query, key, value, _ranges_of(batch, query.device), batch.causal, scale,
                                 batch.window_left)
    if seq_q <= PADDED_MAX_SEQ_Q and query.is_cuda and not _dispatcher_needed(query, key, value):
        served = fastpath.padded_decode(query, key, value, _ranges_of(batch, query.device), batch.shift,
                                        batch.causal, scale)
        if served is not None:
            return served
    if batch.causal and batch.shift != seq_k - seq_q:
        return None  # the kernels' causal diagonal is bottom-right: another alignment goes row by row
    return _ranged_attention(query, key, value, _ranges_of(batch, query.device), batch.causal, scale)


def padded_attention(query, key, value, batch: PaddedBatch, scale, attend: Callable = None):
    """(batch, seq_q, heads, dim) output of a padded batch: one launch where the decode kernels or
    the op with key ranges serve it, else row by row (see the module docstring). A windowed batch
    has no row-by-row form here: the caller checks `_one_launch` first (fmhactl_attention_forward)."""
    if attend is None:
        served = _one_launch(query, key, value, batch, scale)
        if served is not None:
            return served
    if batch.window_left >= 0:
        raise ValueError("a windowed padded batch that no kernel serves in one launch has no row-by-row form")
    attend = attend or _piece_attention
    b, heads, seq_q, dim = query.shape
    out = query.new_zeros(b, seq_q, heads, dim)
    d = batch.shift
    for row, (start, end) in enumerate(batch.rows):
        q, k, v = query[row:row + 1], key[row:row + 1], value[row:row + 1]
        if not batch.causal:
            if end > start:
                out[row] = attend(q, k[:, :, start:end], v[:, :, start:end], False, scale)[0].transpose(0, 1)
            continue
        end = min(end, seq_q + d)  # keys past the last query's position are never visible
        if end <= start:
            continue  # no query of this row sees a valid key: zeros
        first = max(0, start - d)  # queries before it see nothing: zeros
        last_causal = end - 1 - d  # the query whose causal row ends at the last valid key
        ks, vs = k[:, :, start:end], v[:, :, start:end]
        if last_causal >= first:
            piece = attend(q[:, :, first:last_causal + 1], ks, vs, True, scale)
            out[row, first:last_causal + 1] = piece[0].transpose(0, 1)
        tail = max(first, last_causal + 1)
        if tail < seq_q:  # right padding: these queries see every valid key
            out[row, tail:] = attend(q[:, :, tail:], ks, vs, False, scale)[0].transpose(0, 1)
    return out


def _varlen_attention(q, k, v, cu_seqlens, max_seqlen: int, scale):
    """Packed tokens (total, heads, dim), causal within each sequence of cu_seqlens, through
    attention_varlen: the boundaries come from the mask's segments, valid by construction, so no
    value check (a sync)."""
    from fmhactl.torch.varlen import attention_varlen

    return attention_varlen(q, k, v, cu_seqlens, cu_seqlens, max_seqlen, max_seqlen, causal=True, scale=scale,
                            check_values=False)


def packed_attention(query, key, value, batch: PackedBatch, scale):
    """(batch, seq, heads, dim) output of packed sequences: the rows' tokens flattened to
    (batch * seq, heads, dim), every segment one varlen sequence (queries and keys alike)."""
    b, heads, seq, dim = query.shape
    if key.shape[2] != seq or seq != batch.seq:
        _fail(f"a packed batch of {batch.seq} tokens a row got {seq} queries and {key.shape[2]} keys")
    cu_seqlens = _device_int32((0, *accumulate(batch.segments)), query.device)

    def tokens(t):
        return t.transpose(1, 2).reshape(b * seq, t.shape[1], dim)

    out = _varlen_attention(tokens(query), tokens(key), tokens(value), cu_seqlens, batch.max_seqlen, scale)
    return out.view(b, seq, heads, dim)


def fmhactl_attention_forward(module, query, key, value, attention_mask, scaling=None, dropout: float = 0.0,
                              **kwargs):
    if attention_mask is None and kwargs.get("s_aux") is None and not (dropout and module.training):
        # No mask, no sinks, no training dropout (every unpadded decode step, a plain prompt): none
        # of the mask kinds or fallbacks below applies, so only their shared refusals and the
        # causal flag; the same answers as the general branch below gives such a call.
        _refuse_unsupported(kwargs)
        is_causal = kwargs.get("is_causal")
        causal = bool(getattr(module, "is_causal", True) if is_causal is None else is_causal)
        return _whole_attention(query, key, value, causal, scaling), None
    fallback = None
    if attention_mask is not None and not isinstance(attention_mask, (SdpaFallback, PaddedBatch, PackedBatch,
                                                                      SlidingWindow)):
        from fmhactl.torch.hf_traced import TracedMask, traced_attention  # not on the plain path: no import cost

        if isinstance(attention_mask, TracedMask):
            if kwargs.get("s_aux") is not None:
                _fail("s_aux (attention sinks) under torch.compile: the traced mask path has no sinks")
            return traced_attention(module, query, key, value, attention_mask, scaling, dropout, kwargs,
                                    _HF["sdpa_attention_forward"]), None
    sinks = _sinks_of(kwargs.get("s_aux"), query, key, value)
    if isinstance(attention_mask, SdpaFallback):
        fallback = attention_mask
    elif attention_mask is not None and not isinstance(attention_mask, (PaddedBatch, PackedBatch, SlidingWindow)):
        fallback = SdpaFallback(attention_mask, "an attention mask tensor (a 4-D or custom mask)")
    elif dropout and module.training:
        fallback = SdpaFallback(None if attention_mask is None else _sdpa_mask_of(attention_mask, query, key),
                                f"attention dropout ({dropout}) in training")
    elif sinks is not None and isinstance(attention_mask, (PaddedBatch, PackedBatch)):
        fallback = SdpaFallback(_sdpa_mask_of(attention_mask, query, key),
                                "attention sinks (s_aux) over a padded or packed batch")
    if fallback is None and isinstance(attention_mask, PaddedBatch) and attention_mask.window_left >= 0:
        served = _one_launch(query, key, value, attention_mask, scaling)
        if served is not None:
            return served, None
        fallback = SdpaFallback(_sdpa_mask_of(attention_mask, query, key),
                                "a sliding window over a padded batch no kernel takes in one launch")
    if fallback is not None:
        _note_fallback(fallback.reason)
        if sinks is not None:  # transformers' SDPA would drop the sinks: the same math in fp32 instead
            causal = bool(getattr(module, "is_causal", True))
            return _masked_attention_with_sinks(query, key, value, fallback.mask, sinks, scaling, causal), None
        from transformers.integrations.sdpa_attention import sdpa_attention_forward

        return sdpa_attention_forward(module, query, key, value, fallback.mask, dropout=dropout, scaling=scaling,
                                      **kwargs)
    # The mask decides, as under SDPA (which ignores a sliding_window argument): transformers drew the
    # layer's window into the mask function the mask interface read (a SlidingWindow, a packed batch,
    # or None where the window hides no key, a sliding cache's decode step say).
    _refuse_unsupported(kwargs)
    if isinstance(attention_mask, PackedBatch):
        return packed_attention(query, key, value, attention_mask, scaling), None
    if isinstance(attention_mask, PaddedBatch):
        return padded_attention(query, key, value, attention_mask, scaling), None
    if isinstance(attention_mask, SlidingWindow):
        if (query.shape[2], key.shape[2]) != (attention_mask.q_length, attention_mask.kv_length):
            _fail(f"the sliding-window mask was made for {attention_mask.q_length} queries and "
                  f"{attention_mask.kv_length} keys, the layer got {query.shape[2]} and {key.shape[2]}")
        return _whole_attention(query, key, value, True, scaling, window_left=attention_mask.left, sinks=sinks), None
    is_causal = kwargs.get("is_causal")
    causal = bool(getattr(module, "is_causal", True) if is_causal is None else is_causal)
    if sinks is not None:
        return _whole_attention(query, key, value, causal, scaling, sinks=sinks), None
    return _whole_attention(query, key, value, causal, scaling), None  # (batch, seq, heads, dim), contiguous


def _refuse_unsupported(kwargs: dict) -> None:
    """What no fmhactl path does (the SDPA fallbacks excepted): a logit softcap, attention weights."""
    if kwargs.get("softcap") is not None:
        _fail("softcap is not supported")
    if kwargs.get("output_attentions"):
        _fail("output_attentions=True needs the attention weights; use attn_implementation='eager'")


def _sinks_of(s_aux, query, key, value):
    """The layer's attention sinks (transformers' s_aux: one logit a query head, joining each
    softmax denominator only) as the op's fp32 (heads,), or None. The op's sinks are
    forward-only: a call that would need their gradient is refused here, not at backward."""
    if s_aux is None:
        return None
    import torch

    heads = query.shape[1]
    if s_aux.dim() != 1 or s_aux.shape[0] != heads:
        _fail(f"s_aux must hold one sink a query head ({heads}), got shape {tuple(s_aux.shape)}")
    if torch.is_grad_enabled() and any(t.requires_grad for t in (query, key, value, s_aux)):
        _fail("s_aux (attention sinks) with gradients: the op's sinks are forward-only (use it under no_grad)")
    return s_aux.detach().float()


def _masked_attention_with_sinks(query, key, value, mask, sinks, scale, causal: bool):
    """(batch, seq_q, heads, dim) attention under a dense boolean mask (None: the plain causal one
    when `causal`, bottom-right aligned, else none) with a sink
    logit per head in every softmax denominator, in fp32: the fallback for masks the kernels
    cannot express when the layer has sinks (SDPA has none)."""
    import math

    import torch

    group = query.shape[1] // key.shape[1]
    k = key.float().repeat_interleave(group, dim=1)
    v = value.float().repeat_interleave(group, dim=1)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    s = torch.matmul(query.float(), k.transpose(-1, -2)) * scale
    if mask is None and causal:
        from fmhactl.verify.reference import visibility_mask

        mask = visibility_mask(s.shape[-2], s.shape[-1], True, s.device)
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    sink = sinks.view(1, -1, 1, 1).expand(s.shape[0], -1, s.shape[2], 1)
    probs = torch.softmax(torch.cat([s, sink], dim=-1), dim=-1)[..., :-1]
    return torch.matmul(probs, v).to(query.dtype).transpose(1, 2)


def _traced_mask(batch_size: int, q_length: int, kv_length: int, q_offset, kv_offset, mask_function,
                 attention_mask, kwargs: dict):
    """The dense mask SDPA would get, classified on the device (hf_traced; no host read: traced)."""
    from fmhactl.torch.hf_traced import traced_mask

    mask = _HF["sdpa_mask"](batch_size=batch_size, q_length=q_length, kv_length=kv_length, q_offset=q_offset,
                            kv_offset=kv_offset, mask_function=mask_function, attention_mask=attention_mask,
                            allow_is_causal_skip=False, **kwargs)
    return traced_mask(mask)


def _sdpa_mask_of(batch: PaddedBatch | PackedBatch | SlidingWindow, query, key):
    """The boolean (batch or 1, 1, seq_q, seq_k) mask SDPA needs for a PaddedBatch, PackedBatch or
    SlidingWindow (the fallbacks')."""
    import torch

    seq_q, seq_k = query.shape[2], key.shape[2]
    if isinstance(batch, SlidingWindow):
        from fmhactl.verify.reference import visibility_mask

        return visibility_mask(seq_q, seq_k, True, query.device, window_left=batch.left)[None, None]
    if isinstance(batch, PackedBatch):
        lengths = torch.tensor(batch.segments, device=query.device)
        segment = torch.repeat_interleave(torch.arange(len(batch.segments), device=query.device), lengths)
        segment = segment.view(-1, 1, batch.seq)
        i = torch.arange(seq_q, device=query.device)
        return (segment[..., :, None] == segment[..., None, :]) & (i[None, :] <= i[:, None])
    j = torch.arange(seq_k, device=query.device)
    rows = torch.tensor(batch.rows, device=query.device)
    valid = (j >= rows[:, :1]) & (j < rows[:, 1:])  # (batch, seq_k)
    mask = valid[:, None, None, :].expand(-1, 1, seq_q, -1)
    i = torch.arange(seq_q, device=query.device)
    if batch.causal:
        mask = mask & (j[None, :] <= i[:, None] + batch.shift)
    if batch.window_left >= 0:
        mask = mask & (j[None, :] >= i[:, None] + batch.shift - batch.window_left)
    return mask


_PLAIN_MASKS: list[tuple[object, bool]] = []  # (transformers' mask function, causal), filled once
_HF: dict[str, Callable] = {}  # transformers' sdpa_mask and sdpa_attention_forward, filled once


def _load_plain_masks() -> None:
    """Look transformers' plain mask functions (and the SDPA pieces the traced path calls) up once,
    outside any traced code: torch.compile cannot trace an import of transformers (a lazy module),
    and the mask function and the attention forward run traced."""
    if not _PLAIN_MASKS:
        from transformers.integrations.sdpa_attention import sdpa_attention_forward
        from transformers.masking_utils import bidirectional_mask_function, causal_mask_function, sdpa_mask

        _HF.update(sdpa_mask=sdpa_mask, sdpa_attention_forward=sdpa_attention_forward)
        _PLAIN_MASKS.extend([(causal_mask_function, True), (bidirectional_mask_function, False)])


def _mask_kind(mask_function) -> bool | None:
    """True: plain causal, False: bidirectional, None: any other pattern (the kernels cannot express it)."""
    if not _PLAIN_MASKS:
        _load_plain_masks()
    if mask_function is None:
        return True
    for known, causal in _PLAIN_MASKS:
        if mask_function is known:
            return causal
    return None


def _closure_of(function, qualname: str) -> dict | None:
    """The free variables of `function` by name when it is transformers.masking_utils' closure
    `qualname`, else None."""
    if getattr(function, "__module__", None) != "transformers.masking_utils":
        return None
    if getattr(function, "__qualname__", None) != qualname:
        return None
    cells = getattr(function, "__closure__", None) or ()
    try:
        return dict(zip(function.__code__.co_freevars, (cell.cell_contents for cell in cells)))
    except ValueError:  # an empty cell
        return None


def _sliding_window_of(mask_function) -> int | None:
    """W when mask_function is exactly transformers' sliding_window_causal_mask_function(W): the
    and_masks of its sliding_window_overlay(W) and causal_mask_function, nothing else. Read off
    the closures, never by calling the function: a custom mask that merely looks alike on some
    indices (a packed or chunked overlay on top, say) is not taken for a window."""
    outer = _closure_of(mask_function, "and_masks.<locals>.and_mask")
    functions = outer.get("mask_functions") if outer else None
    if not isinstance(functions, tuple) or len(functions) != 2:
        return None
    overlay, causal = functions
    if not _PLAIN_MASKS:
        _load_plain_masks()
    if causal is not _PLAIN_MASKS[0][0]:
        return None
    inner = _closure_of(overlay, "sliding_window_overlay.<locals>.inner_mask")
    width = inner.get("sliding_window") if inner else None
    if isinstance(width, int) and not isinstance(width, bool) and width >= 1:
        return width
    return None


def _sliding_window_mask(width: int, q_length: int, kv_length: int, q_offset, kv_offset) -> int | str:
    """The op's window_left for transformers' window of `width` keys in this forward (-1 where
    the window hides no key: the plain causal path), or the reason the kernels' bottom-right causal
    window cannot express it (offsets that are tensors or do not put the last query at the last key)."""
    if not (isinstance(q_offset, int) and isinstance(kv_offset, int)):
        return "a sliding window with tensor offsets (a static cache)"
    if q_offset + q_length != kv_offset + kv_length:
        return "a sliding window whose last query is not at the last key"
    if kv_offset > q_offset + q_length - 1 - width:  # even the last query sees every key held
        return -1
    return width - 1


def _row_intervals(valid) -> list[tuple[int, int]] | None:
    """Per row of a (batch, keys) bool mask: [first, last + 1) of its valid keys, (0, 0) for none;
    None if a row's valid keys are not one interval. One host read."""
    import torch

    keys = valid.shape[1]
    count = valid.sum(dim=1)
    first = valid.int().argmax(dim=1)
    last = keys - 1 - valid.flip(1).int().argmax(dim=1)
    facts = torch.stack([count, first, last]).tolist()
    rows = []
    for n, a, z in zip(*facts):
        if n == 0:
            rows.append((0, 0))
        elif n != z - a + 1:
            return None
        else:
            rows.append((a, z + 1))
    return rows


def _packed_batch(mask, batch_size: int) -> PackedBatch | None:
    """The PackedBatch a dense (batch or 1, 1, seq, seq) bool mask is, when it is exactly
    block-diagonal causal: every query sees the keys from its segment's first token up to itself
    and nothing else, a segment starting where a query's first key is itself. None otherwise.
    Checked on the device (O(batch * seq^2), one temporary the size of the mask); one host read
    of the verdict and the segment starts."""
    import torch

    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.dim() != 4 or mask.shape[1] != 1 or mask.shape[-1] != mask.shape[-2]:
        return None
    seq = mask.shape[-1]
    visible = mask.expand(batch_size, 1, seq, seq)[:, 0]
    i = torch.arange(seq, device=mask.device)
    first = visible.view(torch.uint8).argmax(dim=-1)  # (batch, seq): the first key each query sees (0: none)
    starts = first == i
    previous = torch.cat([torch.zeros_like(first[:, :1]), first[:, :-1]], dim=1)
    # Visible keys within [first, i] (nothing right of the diagonal), all of them, and the first key
    # either the previous query's or the query itself: exactly consecutive causal segments.
    exact = (~torch.triu(visible, diagonal=1).any()) & (visible.sum(dim=-1) == i - first + 1).all()
    exact = exact & ((first == previous) | starts).all()
    facts = torch.cat([exact.view(1), starts.flatten()]).cpu()
    if not bool(facts[0]):
        return None
    begins = facts[1:].nonzero().flatten()  # each row's position 0 is a start: segments never span rows
    lengths = torch.diff(begins, append=torch.tensor([batch_size * seq]))
    return PackedBatch(tuple(lengths.tolist()), seq)


def fmhactl_attention_mask(batch_size: int, q_length: int, kv_length: int, q_offset: int = 0, kv_offset: int = 0,
                           mask_function=None, attention_mask=None, **kwargs):
    """None, a PaddedBatch, a PackedBatch, a SlidingWindow, an SdpaFallback or (traced) a TracedMask
    for every layer of this forward (see the module docstring)."""
    import torch

    causal = _mask_kind(mask_function)  # also fills _HF
    kwargs.pop("allow_is_causal_skip", None)
    # Traced: the host cannot look at a mask or at a static cache's tensor offsets (the alignment
    # check below reads them).
    if torch.compiler.is_compiling() and (causal is None or attention_mask is not None
                                          or not (isinstance(q_offset, int) and isinstance(kv_offset, int))):
        return _traced_mask(batch_size, q_length, kv_length, q_offset, kv_offset, mask_function, attention_mask,
                            kwargs)
    reason = None
    window_left = -1
    width = _sliding_window_of(mask_function) if causal is None else None
    if width is not None:
        window = _sliding_window_mask(width, q_length, kv_length, q_offset, kv_offset)
        if isinstance(window, str):
            reason = window
        else:
            causal, window_left = True, window
    plain = None if window_left < 0 else SlidingWindow(window_left, q_length, kv_length)
    if causal and window_left < 0 and not _queries_end_at_last_key(q_length, kv_length, q_offset, kv_offset):
        # A static cache without a mask: the keys run to the cache's end, past the last query, so
        # the op's bottom-right diagonal would show each query the keys after it (and the unfilled
        # tail). Said as a padded batch with the real shift, every key valid (found by
        # tests/torch/test_integrations_random_gpu.py).
        plain = PaddedBatch(((0, kv_length),) * batch_size, int(q_offset) - int(kv_offset), True)
    if causal is None:
        reason = reason or f"mask function {getattr(mask_function, '__qualname__', mask_function)!r} (not plain causal)"
    elif attention_mask is None:
        return plain
    elif attention_mask.shape[-1] >= kv_length + kv_offset and bool(
            attention_mask[:, kv_offset:kv_offset + kv_length].all()):
        # Every key valid (generate's all-ones mask, every decode step): one reduction and one
        # host read, as SDPA's own mask spends on the same question; the intervals below cost ~9
        # launches a forward, which showed in host-bound greedy decoding.
        return plain
    else:
        valid = attention_mask.to(torch.bool)
        if valid.shape[-1] < kv_length + kv_offset:  # a static cache's unfilled tail: invalid keys
            valid = torch.nn.functional.pad(valid, (0, kv_length + kv_offset - valid.shape[-1]))
        valid = valid[:, kv_offset:kv_offset + kv_length]
        rows = _row_intervals(valid)
        if rows is None:
            reason = "an attention_mask row whose valid tokens are not one interval"
        elif all(row == (0, kv_length) for row in rows):
            return plain
        else:
            return PaddedBatch(tuple(rows), int(q_offset) - int(kv_offset), causal, window_left)
    from transformers.masking_utils import sdpa_mask

    mask = sdpa_mask(batch_size=batch_size, q_length=q_length, kv_length=kv_length, q_offset=q_offset,
                     kv_offset=kv_offset, mask_function=mask_function, attention_mask=attention_mask,
                     allow_is_causal_skip=False, **kwargs)
    if causal is None and width is None and q_length == kv_length and _is_zero(q_offset) and _is_zero(kv_offset):
        packed = _packed_batch(mask, batch_size)  # packed sequences, or any mask function that draws them
        if packed is not None:
            return packed
    return SdpaFallback(mask, reason)


def _queries_end_at_last_key(q_length: int, kv_length: int, q_offset, kv_offset) -> bool:
    """Whether the last query sits at the last key (the op's causal alignment). Ints: no cost; a
    static cache's tensor offset: one host read."""
    return int(q_offset) + q_length == int(kv_offset) + kv_length


def _is_zero(offset) -> bool:
    """A mask offset that is 0 without a host read (a static cache hands a tensor: never packing)."""
    return isinstance(offset, int) and offset == 0


def register_transformers() -> str:
    """Register "fmhactl" with transformers' AttentionInterface (and its mask interface); return the name."""
    try:
        from transformers import AttentionInterface
    except ImportError as exc:
        raise ImportError("register_transformers needs transformers >= 4.50: pip install 'fmhactl[hf]'") from exc
    import fmhactl.torch.hf_traced  # noqa: F401 - registers torch.ops.fmhactl.attention_or_masked
    import fmhactl.torch.op  # noqa: F401 - registers torch.ops.fmhactl.attention

    AttentionInterface.register(NAME, fmhactl_attention_forward)
    try:
        from transformers.masking_utils import AttentionMaskInterface
    except ImportError:  # older transformers build masks per model; a 4-D mask then reaches the forward: SDPA serves it
        pass
    else:
        _load_plain_masks()
        AttentionMaskInterface.register(NAME, fmhactl_attention_mask)
    return NAME
