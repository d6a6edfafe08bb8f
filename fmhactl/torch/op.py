"""torch.ops.fmhactl.attention: the fmhactl kernel family as a PyTorch operator.

    out, lse = torch.ops.fmhactl.attention(q, k, v, causal=False, scale=None, return_lse=False,
                                            layout="bhsd")

* q: (batch, heads, seq_q, dim) for layout "bhsd" (SDPA's), or (batch, seq_q, heads, dim) for
  "bshd" (FlashAttention's); k/v the same with seq_k and heads_kv (GQA when heads_kv divides
  heads, MQA when it is 1). bf16 or fp16, all three the same; dim a multiple of 8 up to 512
  (a dim no native kernel takes runs zero-padded to the smallest one a native kernel takes:
  exact, the scale 1/sqrt of the unpadded dim by default; on the SM90 family through the TMA
  loads' zero fill where no row can be keyless, else copies, fmhactl.torch.padding). Any strides:
  tensors are copied only when the chosen kernel cannot read them (see launch.needs_copy).
* causal masks bottom-right aligned (query i sees keys j <= i + seq_k - seq_q), as FlashAttention.
* out has q's logical shape and is stored (batch, seq, heads, dim) in memory, so for "bhsd" it
  is a transposed view; lse is fp32 (batch, heads, seq_q) (natural log) when return_lse, else an
  empty tensor. The schema always returns both; fmhactl.torch.attention returns just `out`
  unless asked for the LSE.
* Autograd: gradients are computed by recomputing attention in fp32 PyTorch math (O(T·S)
  memory per head): correct, not fast. The forward is the fmhactl kernel either way.
* Features (docs/features.md, docs/torch.md): window_left/window_right (-1 unbounded, bottom-right
  aligned; causal is window_right 0), sinks fp32 (heads,), topk_idx int32 (batch, seq_q,
  heads_kv, topk) -1 padded, kv_shared (v is k), key_ranges int32 (batch, 2) [start, end) of the
  keys each batch row sees (a padded batch in one launch). A call with any of them runs a variant whose
  `features` cover it (sm90: the `_feat` kernels, sm90_mqa_gather for top-k and hd512), else the
  torch reference in fp32 (backend "torch"); kernel calls take the cached launch path like plain
  ones (fmhactl.torch.fastpath). No backward for them, except key_ranges alone (the fp32 recompute
  masks the same keys).
"""

from __future__ import annotations

import math

import torch

from fmhactl.torch import backends, fastpath, padding
from fmhactl.torch import features as _features
from fmhactl.torch import launch as _launch
from fmhactl.torch.inputs import (LAYOUTS, AttentionInputError, Problem, check_inputs, choose_backend, config_of,
                                  host_reads_allowed, to_bshd)

__all__ = ["LAYOUTS", "AttentionInputError", "Problem", "attention", "attention_op", "backend_for", "check_inputs",
           "to_bshd"]

# The feature tensors are positional (with defaults): register_autograd refuses keyword-only tensors.
SCHEMA = ('attention(Tensor q, Tensor k, Tensor v, Tensor? sinks=None, Tensor? topk_idx=None, '
          'Tensor? key_ranges=None, *, bool causal=False, float? scale=None, bool return_lse=False, '
          'str layout="bhsd", int window_left=-1, int window_right=-1, bool kv_shared=False) -> (Tensor, Tensor)')


def _outputs(q: torch.Tensor, p: Problem, layout: str, return_lse: bool) -> tuple[torch.Tensor, torch.Tensor]:
    out = q.new_empty((p.batch, p.seq_q, p.heads, p.head_dim))
    if layout == "bhsd":
        out = out.transpose(1, 2)
    if return_lse:
        lse = q.new_empty((p.batch, p.heads, p.seq_q), dtype=torch.float32)
    else:
        lse = q.new_empty((0,), dtype=torch.float32)
    return out, lse


def backend_for(q: torch.Tensor, k: torch.Tensor | None = None, v: torch.Tensor | None = None, *,
                causal: bool = False, layout: str = "bhsd", window=None, window_left: int = -1,
                window_right: int = -1, sinks: torch.Tensor | None = None, topk_idx: torch.Tensor | None = None,
                kv_shared: bool = False, key_ranges: torch.Tensor | None = None) -> backends.Backend:
    """The kernel a call with these tensors and features would run now (k/v default to q's shape)."""
    k = q if k is None else k
    v = k if v is None else v
    p = check_inputs(q, k, v, layout, None)
    f = _checked_features(q, k, v, p, causal, layout, window, window_left, window_right, sinks, topk_idx, kv_shared,
                          key_ranges)
    return choose_backend(q, p, causal, f)


def _checked_features(q, k, v, p, causal, layout, window, window_left, window_right, sinks, topk_idx, kv_shared,
                      key_ranges=None):
    left, right = _features.resolve_window(window, window_left, window_right)
    f = _features.make(k, v, left, right, sinks, topk_idx, kv_shared, key_ranges)
    if f.any:
        _features.check_features(f, p, q, k, v, causal, layout)
    return f


def _general(q, k, v, causal: bool, scale: float | None, return_lse: bool, layout: str,
             f: _features.Features = _features.NONE):
    """Every check on every call, copies where the kernel cannot read a tensor, any backend (emulated too)."""
    p = check_inputs(q, k, v, layout, scale)
    if f.any:
        _features.check_features(f, p, q, k, v, causal, layout)
    if p.seq_q == 0:
        return _outputs(q, p, layout, return_lse)
    backend = choose_backend(q, p, causal, f)
    if backend.padded_head_dim and not backend.tma_fill:  # TMA zero fill: the wider kernel reads q/k/v as they are
        return _general_padded(q, k, v, causal, scale, return_lse, layout, f, backend.padded_head_dim)
    out, lse = _outputs(q, p, layout, return_lse)
    if backend.mode == "fallback":
        o, l = _features.fallback(q, k, v, f, causal, scale, layout)
        to_bshd(out, layout).copy_(o)
        if return_lse:
            lse.copy_(l)
        return out, lse
    cfg = config_of(p, q.dtype, causal, f)
    launcher = _launch.registry()[backend.variant].launcher
    views = []
    for t in (q, k, v):
        view = to_bshd(t, layout)
        views.append(_launch.readable(launcher, view))
    if f.kv_shared:
        views[2] = views[1]  # one buffer, read once (a copy made for k serves v)
    extra = None
    if f.any:
        from fmhactl.runtime.features import FeatureInputs

        extra = FeatureInputs(sinks=None if f.sinks is None else f.sinks.contiguous(),
                              topk_idx=None if f.topk_idx is None else f.topk_idx.contiguous(),
                              key_ranges=None if f.key_ranges is None else f.key_ranges.contiguous())
    with torch.cuda.device(q.device):
        _launch.launch(backend, cfg, *views, to_bshd(out, layout), lse if return_lse else None,
                       scale if scale is not None else 1.0 / math.sqrt(p.head_dim), q.device.index or 0,
                       features=extra)
    return out, lse


def _general_padded(q, k, v, causal: bool, scale: float | None, return_lse: bool, layout: str,
                    f: _features.Features, head_dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A checked call whose head dim no native kernel takes, run by the general path zero-padded to
    head_dim (fmhactl.torch.padding: exact, the caller's scale kept)."""
    def run(qp, kp, vp, s):
        return _general(qp, kp, vp, causal, s, return_lse, "bshd", f)

    served = padding.run_padded(q, k, v, head_dim, scale, layout, f.kv_shared, run)
    assert served is not None  # the general path serves every call
    return served


_kernel_runs = [0]


def kernel_runs() -> int:
    """How many calls the op's registered implementation has served in this process. Compiled
    graphs call it at run time (tracing runs the fake), so a difference around a compiled forward
    proves the op ran inside it; the eager fast path (fmhactl.torch.attention) does not count."""
    return _kernel_runs[0]


def _attention_impl(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sinks: torch.Tensor | None = None,
                    topk_idx: torch.Tensor | None = None, key_ranges: torch.Tensor | None = None, *,
                    causal: bool = False,
                    scale: float | None = None, return_lse: bool = False, layout: str = "bhsd",
                    window_left: int = -1, window_right: int = -1, kv_shared: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """The op's kernel for every backend key: the cached launch path (features too), else the
    general one."""
    _kernel_runs[0] += 1
    f = _features.make(k, v, window_left, window_right, sinks, topk_idx, kv_shared, key_ranges)
    served = fastpath.attention(q, k, v, causal, scale, return_lse, layout, f)
    if served is None:
        return _general(q, k, v, causal, scale, return_lse, layout, f)
    out, lse = served
    return out, (lse if lse is not None else q.new_empty((0,), dtype=torch.float32))


def _attention_fake(q, k, v, sinks=None, topk_idx=None, key_ranges=None, *, causal=False, scale=None,
                    return_lse=False, layout="bhsd", window_left=-1, window_right=-1, kv_shared=False):
    p = check_inputs(q, k, v, layout, scale)
    f = _features.make(k, v, window_left, window_right, sinks, topk_idx, kv_shared, key_ranges)
    if f.any:
        _features.check_features(f, p, q, k, v, causal, layout)
    return _outputs(q, p, layout, return_lse)


# A plain Library registration rather than torch.library.custom_op: the same schema, fake and
# autograd registrations (so torch.compile, export, CUDA graphs and opcheck behave the same), with
# about half of custom_op's per-call Python overhead (custom_op wraps the kernel in more layers).
_lib = torch.library.Library("fmhactl", "DEF")
_lib.define(SCHEMA)
_lib.impl("attention", _attention_impl, "CompositeExplicitAutograd")
torch.library.register_fake("fmhactl::attention", _attention_fake, lib=_lib)
attention_op = torch.ops.fmhactl.attention.default


# ---- autograd: recompute in fp32 math ------------------------------------------------------------

def _reference_probs(q: torch.Tensor, k: torch.Tensor, causal: bool, scale: float,
                     key_ranges: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax probabilities, fp32, (batch, heads, seq_q, seq_k); rows with no visible key are 0."""
    from fmhactl.verify.reference import key_range_mask, visibility_mask

    s = torch.matmul(q, k.transpose(-1, -2)) * scale
    sq, sk = s.shape[-2], s.shape[-1]
    if causal:
        s = s.masked_fill(~visibility_mask(sq, sk, True, s.device), float("-inf"))
    if key_ranges is not None:
        s = s.masked_fill(~key_range_mask(key_ranges, sk, s.device)[:, None, None, :], float("-inf"))
    m = s.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(s - m)
    denom = e.sum(dim=-1, keepdim=True)
    return e / torch.where(denom > 0, denom, torch.ones_like(denom))


def _setup_context(ctx, inputs, keyword_only_inputs, output):
    q, k, v = inputs[:3]
    ctx.save_for_backward(q, k, v)
    ctx.causal = keyword_only_inputs.get("causal", False)
    ctx.scale = keyword_only_inputs.get("scale", None)
    ctx.layout = keyword_only_inputs.get("layout", "bhsd")
    ctx.return_lse = keyword_only_inputs.get("return_lse", False)
    ctx.features = [name for name in ("window_left", "window_right") if keyword_only_inputs.get(name, -1) != -1]
    ctx.features += [name for name, t in zip(("sinks", "topk_idx"), inputs[3:5]) if t is not None]
    ctx.features += ["kv_shared"] if keyword_only_inputs.get("kv_shared", False) else []
    ctx.key_ranges = inputs[5] if len(inputs) > 5 else None  # masked by the recompute: no feature to refuse


def _backward(ctx, grad_out, grad_lse):
    features = getattr(ctx, "features", ())
    if features:
        raise NotImplementedError(f"fmhactl.attention: no backward with {', '.join(features)} "
                                  "(the features are forward-only; docs/torch.md)")
    q, k, v = ctx.saved_tensors
    layout = ctx.layout
    # Work heads-first in fp32: (batch, heads, seq, dim).
    qh = to_bshd(q, layout).transpose(1, 2).float()
    kh = to_bshd(k, layout).transpose(1, 2).float()
    vh = to_bshd(v, layout).transpose(1, 2).float()
    heads, heads_kv = qh.shape[1], kh.shape[1]
    group = heads // heads_kv
    if group > 1:
        kh, vh = kh.repeat_interleave(group, dim=1), vh.repeat_interleave(group, dim=1)
    scale = ctx.scale if ctx.scale is not None else 1.0 / math.sqrt(qh.shape[-1])
    probs = _reference_probs(qh, kh, ctx.causal, scale, getattr(ctx, "key_ranges", None))
    dout = to_bshd(grad_out, layout).transpose(1, 2).float()
    out = torch.matmul(probs, vh)
    dv = torch.matmul(probs.transpose(-1, -2), dout)
    dp = torch.matmul(dout, vh.transpose(-1, -2))
    ds = probs * (dp - (dout * out).sum(dim=-1, keepdim=True))
    if ctx.return_lse and grad_lse is not None and grad_lse.numel():
        ds = ds + probs * grad_lse.float().unsqueeze(-1)  # d lse / d s = softmax
    dq = torch.matmul(ds, kh) * scale
    dk = torch.matmul(ds.transpose(-1, -2), qh) * scale
    if group > 1:
        b, _, sk, d = dk.shape
        dk = dk.view(b, heads_kv, group, sk, d).sum(dim=2)
        dv = dv.view(b, heads_kv, group, sk, d).sum(dim=2)

    def back(grad: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
        """Heads-first fp32 gradient -> the input's layout and dtype."""
        return (grad if layout == "bhsd" else grad.transpose(1, 2)).to(like.dtype)

    return back(dq, q), back(dk, k), back(dv, v), None, None, None


torch.library.register_autograd("fmhactl::attention", _backward, setup_context=_setup_context, lib=_lib)


# The functions _dispatcher_needed asks, bound once (the same objects: torch.compile recognises
# them by identity): the attribute chains cost ~130 ns a call on a CPU.
_Tensor = torch.Tensor
_is_compiling = torch.compiler.is_compiling
_is_grad_enabled = torch.is_grad_enabled
_dispatch_modes = torch._C._len_torch_dispatch_stack
_function_modes = torch._C._is_torch_function_mode_enabled
_profiling = torch._C._autograd._profiler_enabled


def _dispatcher_needed(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *extra: torch.Tensor | None) -> bool:
    """Whether this call must go through the dispatcher (so autograd, tracing, modes and the
    profiler see the op) rather than straight to the cached launch. extra: the feature tensors
    (sinks, topk_idx, key_ranges), None where absent."""
    if _is_compiling():
        return True
    if type(q) is not _Tensor or type(k) is not _Tensor or type(v) is not _Tensor:
        return True  # fake, functional or other subclass tensors
    if _is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
        return True
    for t in extra:
        if t is not None and (type(t) is not _Tensor or (t.requires_grad and _is_grad_enabled())):
            return True
    return bool(_dispatch_modes() or _function_modes() or _profiling())


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool = False,
              scale: float | None = None, return_lse: bool = False, layout: str = "bhsd", window=None,
              window_left: int = -1, window_right: int = -1, sinks: torch.Tensor | None = None,
              topk_idx: torch.Tensor | None = None, kv_shared: bool = False,
              key_ranges: torch.Tensor | None = None, check_values: bool = True):
    """torch.ops.fmhactl.attention returning `out`, or `(out, lse)` when return_lse.

    In eager mode with nothing watching (no grad wanted, no tracing, no dispatch or function mode,
    no profiler) the call skips the dispatcher and goes straight to the cached launch path: the
    same kernel and outputs as the op, minus the dispatcher's Python layers (calls with features
    too).

    Features (docs/features.md): window=(left, right) or window_left/window_right, sinks,
    topk_idx, kv_shared (or pass v as k with another feature), key_ranges (int32 (batch, 2):
    batch row b sees keys [start_b, end_b) only). With check_values (eager calls only, outside
    compile and CUDA-graph capture) the host also checks the values: a NaN/+inf sink, an index
    outside [-1, seq_k) or a key range outside 0 <= start <= end <= seq_k is one
    AttentionInputError line; each check reads the tensors back (a device sync), so a loop that
    made its lists itself passes check_values=False."""
    # A call with every feature argument at its default builds no Features (about 0.9 µs of host
    # time a call on a CPU) nor asks Features.any. Any other call resolves them as before: one that
    # still means "no feature" (window=(-1, -1) and nothing else) ends on the plain branch below;
    # kv_shared=True alone is a feature (the feature kernels read V from K's stage).
    if not (window is None and sinks is None and topk_idx is None and key_ranges is None and window_left == -1
            and window_right == -1 and not kv_shared):
        left, right = _features.resolve_window(window, window_left, window_right)
        f = _features.make(k, v, left, right, sinks, topk_idx, kv_shared, key_ranges)
        if f.any:
            return _featured(q, k, v, f, causal, scale, return_lse, layout, check_values)
    if not _dispatcher_needed(q, k, v):
        served = fastpath.attention(q, k, v, causal, scale, return_lse, layout)
        if served is not None:
            return served if return_lse else served[0]
    out, lse = attention_op(q, k, v, causal=causal, scale=scale, return_lse=return_lse, layout=layout)
    return (out, lse) if return_lse else out


def _featured(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, f: _features.Features, causal: bool,
              scale: float | None, return_lse: bool, layout: str, check_values: bool):
    """attention() of a call with features (f.any)."""
    if check_values and q.is_cuda and host_reads_allowed(q):
        p = check_inputs(q, k, v, layout, scale)
        _features.check_features(f, p, q, k, v, causal, layout)
        _features.check_one_buffer(f, k, v)
        _features.check_values(f, p)
    if not _dispatcher_needed(q, k, v, f.sinks, f.topk_idx, f.key_ranges):
        served = fastpath.attention(q, k, v, causal, scale, return_lse, layout, f)
        if served is not None:
            return served if return_lse else served[0]
    out, lse = attention_op(q, k, v, f.sinks, f.topk_idx, f.key_ranges, causal=causal, scale=scale,
                            return_lse=return_lse, layout=layout, window_left=f.window_left,
                            window_right=f.window_right, kv_shared=f.kv_shared)
    return (out, lse) if return_lse else out


def attention_bshd_out(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
                       scale: float | None) -> torch.Tensor:
    """attention(q, k, v, causal=causal, scale=scale, layout="bhsd").transpose(1, 2): bhsd inputs,
    no feature, out as (batch, seq_q, heads, dim) (transformers' attention output). The cached
    path's decode kernels allocate out in that shape directly: a decode step skips the transpose
    view (about 0.8 µs of host time on a CPU) and attention()'s keyword handling."""
    if not _dispatcher_needed(q, k, v):
        served = fastpath.attention(q, k, v, causal, scale, False, "bhsd", out_bshd=True)
        if served is not None:
            return served[0]
    out, _ = attention_op(q, k, v, causal=causal, scale=scale, return_lse=False, layout="bhsd")
    return out.transpose(1, 2)
