"""Packed sequences (FlashAttention's varlen layout) through the op: `attention_varlen`.

    out = attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, causal=True)

q is (total_q, heads, dim), k/v (total_k, heads_kv, dim): sequence i's queries are rows
cu_seqlens_q[i]..cu_seqlens_q[i+1]-1, its keys rows cu_seqlens_k[i]..cu_seqlens_k[i+1]-1, as
flash_attn_varlen_func takes them. Causal is bottom-right aligned per sequence (query j of
sequence i sees keys m <= j + len_k_i - len_q_i), the window likewise.

How (no kernel of its own): the sequences are scattered into a padded batch, one batch row per
sequence, RIGHT-aligned (sequence i's queries at rows max_q - len_q_i .. max_q - 1, its keys at
max_k - len_k_i .. max_k - 1), with key_ranges[i] = [max_k - len_k_i, max_k). The op's
bottom-right causal diagonal over the whole padded tensors then is exactly each sequence's own
bottom-right diagonal, and the key ranges hide the padding keys, so one op call (the SM90 `_feat`
kernels skip the tiles outside each range) computes every sequence; the valid query rows are
gathered back. The scatter and gather indices are built on the device from cu_seqlens (no host
read, no per-sequence launch); autograd flows through the scatter, the op's fp32 recompute
backward (which masks the same key ranges) and the gather. The padding costs n * max_q query rows
and n * max_k key rows of memory and work.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from fmhactl.torch.inputs import AttentionInputError, host_reads_allowed


def _fail(message: str) -> None:
    raise AttentionInputError(f"fmhactl.attention_varlen: {message}")


@dataclass(frozen=True)
class VarlenLayout:
    """Where each packed row sits in the padded batch (built on cu_seqlens' device, no host read).

    q_rows/k_rows: int64 (total_q,)/(total_k,), the row of each packed token in the flattened
    (sequences * padded_q) / (sequences * padded_k) padded tensors; key_ranges: int32
    (sequences, 2), each sequence's keys [padded_k - len_k, padded_k)."""

    sequences: int
    padded_q: int
    padded_k: int
    q_rows: torch.Tensor
    k_rows: torch.Tensor
    key_ranges: torch.Tensor

    def pad(self, packed: torch.Tensor, rows: torch.Tensor, padded_len: int) -> torch.Tensor:
        """(total, heads, dim) -> (sequences, padded_len, heads, dim), zeros outside the sequences.
        index_copy is differentiable in `packed`: its gradient gathers the same rows back."""
        flat = packed.new_zeros((self.sequences * padded_len, *packed.shape[1:]))
        return flat.index_copy(0, rows, packed).view(self.sequences, padded_len, *packed.shape[1:])

    def unpad_out(self, out: torch.Tensor) -> torch.Tensor:
        """The op's (sequences, padded_q, heads, dim) output -> (total_q, heads, dim)."""
        return out.reshape(self.sequences * self.padded_q, *out.shape[2:]).index_select(0, self.q_rows)

    def unpad_lse(self, lse: torch.Tensor) -> torch.Tensor:
        """The op's (sequences, heads, padded_q) LSE -> (heads, total_q), flash_attn_varlen_func's layout."""
        heads = lse.shape[1]
        return lse.transpose(0, 1).reshape(heads, self.sequences * self.padded_q).index_select(1, self.q_rows)


def _rows_of(cu_seqlens: torch.Tensor, total: int, padded_len: int) -> torch.Tensor:
    """The padded row of each packed token: sequence s's last token lands on its block's last row,
    so the row of token t is (s + 1) * padded_len - cu[s + 1] + t."""
    cu = cu_seqlens.long()
    tokens = torch.arange(total, device=cu.device)
    # The sequence whose [start, end) holds t: the last cu entry <= t (empty sequences repeat an
    # entry, right=True skips past them). Searched in cu itself, not in a slice cu[1:]: Inductor
    # (torch 2.11, CUDA) cannot lower searchsorted over a sliced computed buffer.
    seq = torch.searchsorted(cu, tokens, right=True) - 1
    return (seq + 1) * padded_len - cu[seq + 1] + tokens


def varlen_layout(cu_seqlens_q: torch.Tensor, cu_seqlens_k: torch.Tensor, max_seqlen_q: int, max_seqlen_k: int,
                  total_q: int, total_k: int) -> VarlenLayout:
    """The padded batch of a checked varlen call. The padded key length is at least 1 (the op
    needs a key): when every sequence has no key, each range is the empty [1, 1) and every query
    gets O = 0, LSE = -inf, as a query that sees no key does."""
    sequences = cu_seqlens_q.shape[0] - 1
    padded_q, padded_k = max_seqlen_q, max(max_seqlen_k, 1)
    len_k = cu_seqlens_k[1:] - cu_seqlens_k[:-1]
    key_ranges = torch.stack([padded_k - len_k, torch.full_like(len_k, padded_k)], dim=1).to(torch.int32)
    return VarlenLayout(sequences, padded_q, padded_k, _rows_of(cu_seqlens_q, total_q, padded_q),
                        _rows_of(cu_seqlens_k, total_k, padded_k), key_ranges)


def check_varlen(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                 max_seqlen_k) -> tuple[int, int]:
    """The O(1) rules (ranks, shapes, dtypes, devices; no host read): one AttentionInputError
    line. Returns (max_seqlen_q, max_seqlen_k) as ints. The op checks dtypes, heads and head dim."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 3:
            _fail(f"{name} must be 3-D (total, heads, dim) (packed sequences), got shape {tuple(t.shape)}")
    if tuple(k.shape) != tuple(v.shape):
        _fail(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    for name, cu in (("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k)):
        if not isinstance(cu, torch.Tensor) or cu.dtype != torch.int32 or cu.dim() != 1 or cu.shape[0] < 1:
            got = (f"{str(cu.dtype).removeprefix('torch.')} {tuple(cu.shape)}" if isinstance(cu, torch.Tensor)
                   else type(cu).__name__)
            _fail(f"{name} must be an int32 1-D tensor (sequences + 1,), got {got}")
        if cu.device != q.device:
            _fail(f"{name} is on {cu.device}, q on {q.device}")
    if cu_seqlens_q.shape[0] != cu_seqlens_k.shape[0]:
        _fail(f"cu_seqlens_q and cu_seqlens_k must describe the same number of sequences, got "
              f"{cu_seqlens_q.shape[0] - 1} and {cu_seqlens_k.shape[0] - 1}")
    maxima = []
    for name, value in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
        try:
            number = None if isinstance(value, bool) else operator.index(value)
        except TypeError:
            number = None
        if number is None or number < 0:
            _fail(f"{name} must be an int >= 0, got {value!r}")
        maxima.append(number)
    return maxima[0], maxima[1]


def _first_bad_boundary(name: str, cu: Sequence[int], total: int, max_seqlen: int, total_name: str) -> str | None:
    if cu[0] != 0:
        return f"{name}[0] = {cu[0]}; it must start at 0"
    for i in range(len(cu) - 1):
        if cu[i + 1] < cu[i]:
            return f"{name} must be non-decreasing: {name}[{i + 1}] = {cu[i + 1]} < {name}[{i}] = {cu[i]}"
    if cu[-1] != total:
        return f"{name}[-1] = {cu[-1]}; it must equal {total_name} ({total})"
    lengths = [b - a for a, b in zip(cu, cu[1:])]
    longest = max(lengths, default=0)
    if longest > max_seqlen:
        what, side = ("queries", "q") if name.endswith("_q") else ("keys", "k")
        return f"sequence {lengths.index(longest)} has {longest} {what} > max_seqlen_{side} ({max_seqlen})"
    return None


def check_varlen_values(cu_seqlens_q: torch.Tensor, cu_seqlens_k: torch.Tensor, total_q: int, total_k: int,
                        max_seqlen_q: int, max_seqlen_k: int) -> None:
    """The host checks of the boundaries (one read of both tensors: a device sync): each starts at
    0, never decreases, ends at its total, and no sequence is longer than its max_seqlen (a longer
    one would be scattered onto its neighbour's rows)."""
    both = torch.cat([cu_seqlens_q, cu_seqlens_k]).tolist()
    cu_q, cu_k = both[:cu_seqlens_q.shape[0]], both[cu_seqlens_q.shape[0]:]
    for bad in (_first_bad_boundary("cu_seqlens_q", cu_q, total_q, max_seqlen_q, "q.shape[0]"),
                _first_bad_boundary("cu_seqlens_k", cu_k, total_k, max_seqlen_k, "k.shape[0]")):
        if bad is not None:
            _fail(bad)


def _padded_attention(q, k, v, key_ranges, *, causal, scale, return_lse, window, window_left, window_right, sinks,
                      check_values):
    """The one op call on the padded batch (bshd): (out (n, max_q, heads, dim), lse (n, heads,
    max_q) or None). Tests put a CPU stand-in here."""
    from fmhactl.torch.op import attention

    served = attention(q, k, v, causal=causal, scale=scale, return_lse=return_lse, layout="bshd", window=window,
                       window_left=window_left, window_right=window_right, sinks=sinks, key_ranges=key_ranges,
                       check_values=check_values)
    return served if return_lse else (served, None)


def attention_varlen(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
                     cu_seqlens_k: torch.Tensor, max_seqlen_q: int, max_seqlen_k: int, *, causal: bool = False,
                     scale: float | None = None, return_lse: bool = False, window=None, window_left: int = -1,
                     window_right: int = -1, sinks: torch.Tensor | None = None, check_values: bool = True):
    """Attention over packed sequences; `out` (total_q, heads, dim) in q's dtype, or `(out, lse)`
    when return_lse, lse fp32 (heads, total_q) (natural log; flash_attn_varlen_func's layout).

    q (total_q, heads, dim), k/v (total_k, heads_kv, dim) (GQA/MQA as the op), bf16/fp16 on one
    CUDA device; cu_seqlens_q/cu_seqlens_k int32 (sequences + 1,) on that device: 0, the running
    totals, total_q/total_k; max_seqlen_q/max_seqlen_k ints >= every sequence's length (they size
    the padded batch: no host read of cu_seqlens is needed). Causal and the window
    (window=(left, right) or window_left/window_right) are bottom-right aligned per sequence;
    sinks fp32 (heads,) as the op's. A sequence with queries but no key gives O = 0 and
    LSE = -inf (with sinks: the head's sink, the op's rule); one with no query contributes
    nothing. Autograd: the op's fp32 recompute backward (causal and key ranges; the window and
    sinks are forward-only there).

    With check_values (eager calls only, outside compile and CUDA-graph capture) the host reads
    cu_seqlens once (a device sync) and checks the boundaries (start at 0, non-decreasing, end at
    the totals, lengths <= max_seqlen); the op's own value checks (sinks, and the key ranges made
    here) run too, a second sync. A loop that built its boundaries itself passes
    check_values=False. Every refusal is one
    AttentionInputError line, as the op's."""
    max_q, max_k = check_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k)
    total_q, total_k = q.shape[0], k.shape[0]
    if check_values and host_reads_allowed(q):
        check_varlen_values(cu_seqlens_q, cu_seqlens_k, total_q, total_k, max_q, max_k)
    if total_q == 0:  # nothing to compute (the op would be handed an empty query); its rules still hold
        # The op's O(1) feature rules (window, sinks), which a call with no query never reaches
        from fmhactl.torch.inputs import Problem
        from fmhactl.torch.op import _checked_features

        _checked_features(q[None], k[None], v[None], Problem(1, q.shape[1], k.shape[1], 0, k.shape[0], q.shape[2]),
                          causal, "bshd", window, window_left, window_right, sinks, None, False)
        out = q.new_empty((0, *q.shape[1:]))
        return (out, q.new_empty((q.shape[1], 0), dtype=torch.float32)) if return_lse else out
    layout = varlen_layout(cu_seqlens_q, cu_seqlens_k, max_q, max_k, total_q, total_k)
    # v is padded on its own even when it is k: one padded buffer would make the op's call K = V
    # (kv_shared), which has no backward.
    out, lse = _padded_attention(layout.pad(q, layout.q_rows, layout.padded_q),
                                 layout.pad(k, layout.k_rows, layout.padded_k),
                                 layout.pad(v, layout.k_rows, layout.padded_k),
                                 layout.key_ranges, causal=causal, scale=scale, return_lse=return_lse, window=window,
                                 window_left=window_left, window_right=window_right, sinks=sinks,
                                 check_values=check_values)
    out = layout.unpad_out(out)
    return (out, layout.unpad_lse(lse)) if return_lse else out
