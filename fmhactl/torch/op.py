"""torch.ops.fmhactl.attention: the fmhactl kernel family as a PyTorch operator.

    out, lse = torch.ops.fmhactl.attention(q, k, v, causal=False, scale=None, return_lse=False,
                                            layout="bhsd")

* q: (batch, heads, seq_q, dim) for layout "bhsd" (SDPA's), or (batch, seq_q, heads, dim) for
  "bshd" (FlashAttention's); k/v the same with seq_k and heads_kv (GQA when heads_kv divides
  heads, MQA when it is 1). bf16 or fp16, all three the same; dim a multiple of 8 up to 512
  (the chosen kernel may narrow this: the SM100 family takes 64/128/256/512). Any strides:
  tensors are copied only when the chosen kernel cannot read them (see launch.needs_copy).
* causal masks bottom-right aligned (query i sees keys j <= i + seq_k - seq_q), as FlashAttention.
* out has q's logical shape and is stored (batch, seq, heads, dim) in memory, so for "bhsd" it
  is a transposed view; lse is fp32 (batch, heads, seq_q) (natural log) when return_lse, else an
  empty tensor. The schema always returns both; fmhactl.torch.attention returns just `out`
  unless asked for the LSE.
* Autograd: gradients are computed by recomputing attention in fp32 PyTorch math (O(T·S)
  memory per head): correct, not fast. The forward is the fmhactl kernel either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.torch import backends
from fmhactl.torch import launch as _launch

LAYOUTS = ("bhsd", "bshd")
_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16"}
HEAD_DIM_MULTIPLE, MAX_HEAD_DIM = 8, 512


class AttentionInputError(BadInput, ValueError):
    """A call the op cannot serve; the message is one line naming the input and the rule."""


@dataclass(frozen=True)
class Problem:
    batch: int
    heads: int
    heads_kv: int
    seq_q: int
    seq_k: int
    head_dim: int


def _fail(message: str) -> None:
    raise AttentionInputError(f"fmhactl.attention: {message}")


def to_bshd(t: torch.Tensor, layout: str) -> torch.Tensor:
    return t.transpose(1, 2) if layout == "bhsd" else t


def check_inputs(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: str, scale: float | None) -> Problem:
    """Shape, dtype and device rules every backend shares (the fake implementation runs them too)."""
    if layout not in LAYOUTS:
        _fail(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 4:
            _fail(f"{name} must be 4-D ({'batch, heads, seq, dim' if layout == 'bhsd' else 'batch, seq, heads, dim'}),"
                  f" got shape {tuple(t.shape)}")
        if t.dtype not in _DTYPES:
            _fail(f"{name} has dtype {t.dtype}; supported: torch.bfloat16, torch.float16")
        if t.device.type not in ("cuda", "meta"):
            _fail(f"{name} is on {t.device}; the kernels need CUDA tensors")
    if not (q.dtype == k.dtype == v.dtype):
        _fail(f"q, k, v must share one dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if not (q.device == k.device == v.device):
        _fail(f"q, k, v must be on one device, got {q.device}, {k.device}, {v.device}")
    b, sq, h, d = to_bshd(q, layout).shape
    kb, sk, hkv, kd = to_bshd(k, layout).shape
    if tuple(k.shape) != tuple(v.shape):
        _fail(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    if kb != b:
        _fail(f"batch of k/v ({kb}) differs from q's ({b})")
    if kd != d:
        _fail(f"head dim of k/v ({kd}) differs from q's ({d})")
    if d % HEAD_DIM_MULTIPLE or d > MAX_HEAD_DIM or d <= 0:
        _fail(f"head dim {d} not supported (multiples of {HEAD_DIM_MULTIPLE} up to {MAX_HEAD_DIM})")
    if hkv <= 0 or h % hkv:
        _fail(f"q heads ({h}) must be a multiple of k/v heads ({hkv})")
    if sk <= 0:
        _fail("k/v have no keys (seq_k = 0)")
    if scale is not None and not (math.isfinite(scale) and scale > 0):
        _fail(f"scale must be a positive finite number, got {scale!r}")
    return Problem(b, h, hkv, sq, sk, d)


def _outputs(q: torch.Tensor, p: Problem, layout: str, return_lse: bool) -> tuple[torch.Tensor, torch.Tensor]:
    out = q.new_empty((p.batch, p.seq_q, p.heads, p.head_dim))
    if layout == "bhsd":
        out = out.transpose(1, 2)
    if return_lse:
        lse = q.new_empty((p.batch, p.heads, p.seq_q), dtype=torch.float32)
    else:
        lse = q.new_empty((0,), dtype=torch.float32)
    return out, lse


def config_of(p: Problem, dtype: torch.dtype, causal: bool) -> AttnConfig:
    return AttnConfig(batch=p.batch, heads=p.heads, heads_kv=p.heads_kv, seq_q=max(p.seq_q, 1), seq_k=p.seq_k,
                      head_dim=p.head_dim, dtype=_DTYPES[dtype], causal=bool(causal))


def _capability(device: torch.device) -> tuple[int, int]:
    from fmhactl.runtime.device import torch_device_capability  # the one GPU probe, cached per device

    index = device.index if device.index is not None else torch.cuda.current_device()
    return torch_device_capability(index)


def backend_for(q: torch.Tensor, k: torch.Tensor | None = None, v: torch.Tensor | None = None, *,
                causal: bool = False, layout: str = "bhsd") -> backends.Backend:
    """The kernel a call with these tensors would run now (k/v default to q's shape)."""
    k = q if k is None else k
    v = k if v is None else v
    p = check_inputs(q, k, v, layout, None)
    if q.device.type != "cuda":
        _fail(f"q is on {q.device}; the kernels need CUDA tensors")
    try:
        return backends.choose(_capability(q.device), config_of(p, q.dtype, causal), _launch.registry(),
                               backends.current_override())
    except backends.NoBackend as exc:
        _fail(str(exc))
        raise  # unreachable: _fail raises


@torch.library.custom_op("fmhactl::attention", mutates_args=())
def attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool = False,
                 scale: float | None = None, return_lse: bool = False,
                 layout: str = "bhsd") -> tuple[torch.Tensor, torch.Tensor]:
    p = check_inputs(q, k, v, layout, scale)
    out, lse = _outputs(q, p, layout, return_lse)
    if p.seq_q == 0:
        return out, lse
    backend = backend_for(q, k, v, causal=causal, layout=layout)
    cfg = config_of(p, q.dtype, causal)
    launcher = _launch.registry()[backend.variant].launcher
    views = []
    for t in (q, k, v):
        view = to_bshd(t, layout)
        views.append(view.contiguous() if _launch.needs_copy(launcher, view) else view)
    with torch.cuda.device(q.device):
        _launch.launch(backend, cfg, *views, to_bshd(out, layout), lse if return_lse else None,
                       scale if scale is not None else 1.0 / math.sqrt(p.head_dim), q.device.index or 0)
    return out, lse


@attention_op.register_fake
def _attention_fake(q, k, v, *, causal=False, scale=None, return_lse=False, layout="bhsd"):
    p = check_inputs(q, k, v, layout, scale)
    return _outputs(q, p, layout, return_lse)


# ---- autograd: recompute in fp32 math ------------------------------------------------------------

def _reference_probs(q: torch.Tensor, k: torch.Tensor, causal: bool, scale: float) -> torch.Tensor:
    """Softmax probabilities, fp32, (batch, heads, seq_q, seq_k); rows with no visible key are 0."""
    s = torch.matmul(q, k.transpose(-1, -2)) * scale
    if causal:
        sq, sk = s.shape[-2], s.shape[-1]
        rows = torch.arange(sq, device=s.device).unsqueeze(1)
        cols = torch.arange(sk, device=s.device).unsqueeze(0)
        s = s.masked_fill(cols > rows + (sk - sq), float("-inf"))
    m = s.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(s - m)
    denom = e.sum(dim=-1, keepdim=True)
    return e / torch.where(denom > 0, denom, torch.ones_like(denom))


def _setup_context(ctx, inputs, keyword_only_inputs, output):
    q, k, v = inputs
    ctx.save_for_backward(q, k, v)
    ctx.causal = keyword_only_inputs.get("causal", False)
    ctx.scale = keyword_only_inputs.get("scale", None)
    ctx.layout = keyword_only_inputs.get("layout", "bhsd")
    ctx.return_lse = keyword_only_inputs.get("return_lse", False)


def _backward(ctx, grad_out, grad_lse):
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
    probs = _reference_probs(qh, kh, ctx.causal, scale)
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

    return back(dq, q), back(dk, k), back(dv, v)


attention_op.register_autograd(_backward, setup_context=_setup_context)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, causal: bool = False,
              scale: float | None = None, return_lse: bool = False, layout: str = "bhsd"):
    """torch.ops.fmhactl.attention returning `out`, or `(out, lse)` when return_lse."""
    out, lse = torch.ops.fmhactl.attention(q, k, v, causal=causal, scale=scale, return_lse=return_lse,
                                           layout=layout)
    return (out, lse) if return_lse else out
