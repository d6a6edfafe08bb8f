"""Peer libraries as `bench` baselines: FlashAttention 4 and FlashInfer, where they are installed.

- `fa4`: the flash-attn-4 wheel's CuTe DSL kernels (`flash_attn.cute.flash_attn_func`; SM80, SM90,
  SM100/110 and SM120 forward). Causal and the window are its `window_size=(left, right)` (bottom-
  right aligned, as here), sinks its `learnable_sink` (one natural-log logit per query head in the
  denominator only, as here).
- `flashinfer`: FlashInfer's batch prefill wrapper on a ragged KV layout, its decode wrapper for one
  query token, its attention-sink wrapper (paged) for sinks; `backend="auto"` (FA3 kernels on
  SM90). Causal is bottom-right aligned there too; the window has a left side only (`window_left`),
  so a right window other than causal (0) or none is refused.

Both read the bench's inputs where they lie: q (batch, seq_q, heads, dim), k and v (batch, seq_k,
heads_kv, dim), contiguous. That is FA4's own layout, and FlashInfer's NHD ragged rows (batch *
seq tokens) and pages (one page of seq_k keys per batch row) are views of the same memory, so no
copy is made; GQA is native in both (K/V are never repeated), and K = V (kv_shared) passes one
buffer twice. Top-k lists and key ranges have no counterpart in either (their varlen lengths
start at key 0): such configs are refused.

`prepare` builds everything input-independent (wrapper plans, which JIT-compile FlashInfer's
kernels on first use, index arrays) and returns a `Peer`: `inputs` lays one input set out (views
and an output buffer, outside any timing), calling the peer on that runs the attention only.
`check` compares one output with the reference by FlashAttention's rule (verify.compare): a peer
that computes something else is never quoted. Every refusal is `PeerUnavailable` with one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fmhactl.config import AttnConfig
from fmhactl.records import PEER_BASELINES

PACKAGES = {"fa4": "flash-attn-4 (flash_attn.cute)", "flashinfer": "flashinfer-python (flashinfer)"}
FA4_ARCH_MAJORS = (8, 9, 10, 11, 12)  # flash_attn.cute.interface asserts these
FLASHINFER_WORKSPACE_BYTES = 128 << 20  # the size FlashInfer's docs recommend
REASON_CHARS = 200


class PeerUnavailable(Exception):
    """A peer that cannot run a config here; str() is the one-line reason."""


@dataclass
class Peer:
    """A prepared peer: `inputs(q, k, v)` -> one input set laid out for it (no timing), then
    `peer(*that)` -> O (batch, seq_q, heads, dim)."""

    name: str
    inputs: Callable[..., tuple]
    run: Callable[..., Any]

    def __call__(self, *laid_out):
        return self.run(*laid_out)


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:REASON_CHARS]


def unsupported_reason(name: str, cfg: AttnConfig) -> str | None:
    """Why `name` cannot compute cfg's attention (features only: package, GPU and shape are found
    out by `prepare`), or None."""
    if name not in PEER_BASELINES:
        return f"unknown peer baseline {name!r} (known: {', '.join(PEER_BASELINES)})"
    label = "FA4" if name == "fa4" else "FlashInfer"
    if cfg.topk:
        return f"{label} has no top-k index lists"
    if cfg.key_ranges:
        return f"{label} has no per-row key ranges [start, end) (its variable lengths start at key 0)"
    if name == "flashinfer" and cfg.right_bound > 0:
        return (f"FlashInfer's window has a left side only (window_left); window_right={cfg.window_right} "
                "is neither causal (0) nor unbounded")
    return None


def prepare(name: str, cfg: AttnConfig, features=None, device: str = "cuda") -> Peer:
    """The peer set up for cfg (plans made, kernels compiled where the library compiles at plan
    time); raises PeerUnavailable where it cannot run cfg."""
    reason = unsupported_reason(name, cfg)
    if reason:
        raise PeerUnavailable(reason)
    if cfg.sink and (features is None or features.sinks is None):
        raise PeerUnavailable("a sink config needs its drawn sinks (fmhactl.runtime.features)")
    try:
        if name == "fa4":
            return _prepare_fa4(cfg, features, device)
        return _prepare_flashinfer(cfg, features, device)
    except PeerUnavailable:
        raise
    except Exception as exc:  # a peer's own refusal (assert, NotImplementedError, a JIT build): one line
        raise PeerUnavailable(one_line(exc)) from exc


def _import(name: str, module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except Exception as exc:  # ImportError, or a broken install failing at import
        raise PeerUnavailable(f"{PACKAGES[name]} is not importable here ({one_line(exc)})") from exc


def _torch_dtype(cfg: AttnConfig):
    import torch

    return {"bf16": torch.bfloat16, "f16": torch.float16}[cfg.dtype]


def _prepare_fa4(cfg: AttnConfig, features, device: str) -> Peer:
    import torch

    from fmhactl.runtime.device import torch_device_capability

    interface = _import("fa4", "flash_attn.cute.interface")
    index = torch.device(device).index
    major, minor = torch_device_capability(torch.cuda.current_device() if index is None else index)
    if major not in FA4_ARCH_MAJORS:
        raise PeerUnavailable(f"FA4 has no kernels for sm_{major}{minor} (it has SM80/90/100/110/120)")
    # (left, right) keys beside the bottom-right diagonal, None unbounded; (None, 0) is causal
    window = (None if cfg.window_left < 0 else cfg.window_left, None if cfg.right_bound < 0 else cfg.right_bound)
    sinks = features.sinks.to(device=device, dtype=torch.float32).contiguous() if cfg.sink else None

    def run(q, k, v):
        out, _ = interface.flash_attn_func(q, k, v, window_size=window, learnable_sink=sinks)
        return out

    return Peer("fa4", lambda q, k, v: (q, k, v), run)


def _prepare_flashinfer(cfg: AttnConfig, features, device: str) -> Peer:
    import torch

    flashinfer = _import("flashinfer", "flashinfer")
    dtype = _torch_dtype(cfg)
    b, t, s, h, hkv, d = cfg.batch, cfg.seq_q, cfg.seq_k, cfg.heads, cfg.heads_kv, cfg.head_dim
    causal = cfg.right_bound == 0
    workspace = torch.zeros(FLASHINFER_WORKSPACE_BYTES, dtype=torch.uint8, device=device)
    rows = torch.arange(b + 1, dtype=torch.int32)
    pages = (rows, torch.arange(b, dtype=torch.int32), torch.full((b,), s, dtype=torch.int32))  # one page a row
    types = {"q_data_type": dtype, "kv_data_type": dtype}

    def out_like(q):
        return torch.empty(b * t, h, d, dtype=dtype, device=q.device)

    if cfg.sink:  # the sink variant is a paged prefill wrapper; pages of seq_k keys are K and V as they lie
        wrapper = flashinfer.BatchAttentionWithAttentionSinkWrapper(
            workspace, "NHD", q_data_type=dtype, kv_data_type=dtype, head_dim_qk=d, head_dim_vo=d,
            window_left=cfg.window_left)
        wrapper.plan(rows * t, *pages, h, hkv, d, s, causal=causal, window_left=cfg.window_left, **types)
        sinks = features.sinks.to(device=device, dtype=torch.float32).contiguous()

        def inputs(q, k, v):
            return q.view(b * t, h, d), k, v, out_like(q)

        def run(q, k, v, out):
            return wrapper.run(q, (k, v), sinks, out=out).view(b, t, h, d)

        return Peer("flashinfer", inputs, run)
    if t == 1:  # a decode step: the decode wrapper (tensor cores for wide GQA groups, as FlashInfer advises)
        wrapper = flashinfer.BatchDecodeWithPagedKVCacheWrapper(workspace, "NHD", use_tensor_cores=h // hkv >= 4)
        wrapper.plan(*pages, h, hkv, d, s, window_left=cfg.window_left, **types)

        def inputs(q, k, v):
            return q.view(b, h, d), k, v, out_like(q).view(b, h, d)

        def run(q, k, v, out):
            return wrapper.run(q, (k, v), out=out).view(b, t, h, d)

        return Peer("flashinfer", inputs, run)
    wrapper = flashinfer.BatchPrefillWithRaggedKVCacheWrapper(workspace, "NHD")
    wrapper.plan(rows * t, rows * s, h, hkv, d, causal=causal, window_left=cfg.window_left, **types)

    def inputs(q, k, v):
        return q.view(b * t, h, d), k.view(b * s, hkv, d), v.view(b * s, hkv, d), out_like(q)

    def run(q, k, v, out):
        return wrapper.run(q, k, v, out=out).view(b, t, h, d)

    return Peer("flashinfer", inputs, run)


def reference(cfg: AttnConfig, q, k, v, features=None) -> tuple:
    """(fp32 reference, reference in the inputs' dtype) of cfg's attention on q, k, v."""
    import torch

    from fmhactl.verify.reference import attention_for

    ref32, _ = attention_for(cfg, q, k, v, features, compute_dtype=torch.float32)
    ref_low, _ = attention_for(cfg, q, k, v, features, compute_dtype=q.dtype)
    return ref32, ref_low


def check(out, ref: tuple) -> str | None:
    """None when out (batch, seq_q, heads, dim) passes FlashAttention's rule against ref
    (`reference`), else the reason."""
    from fmhactl.verify.compare import compare

    result = compare(out, None, ref[0], ref[1], None, None)
    return None if result.passed else f"wrong output: {'; '.join(result.reasons)}"[:REASON_CHARS]


def checked(name: str, cfg: AttnConfig, q, k, v, features=None, ref: Callable[[], tuple] | None = None) -> Peer:
    """`prepare`, then one untimed call on (q, k, v) checked against the reference (`ref()`, or
    `reference` computed here, only once the peer runs): a peer that fails is
    PeerUnavailable("wrong output: ...")."""
    import torch

    peer = prepare(name, cfg, features, str(q.device))
    try:
        out = peer(*peer.inputs(q, k, v))
        torch.cuda.synchronize()
    except Exception as exc:  # the first call compiles (FA4) and checks the arguments
        raise PeerUnavailable(one_line(exc)) from exc
    wrong = check(out, ref() if ref is not None else reference(cfg, q, k, v, features))
    if wrong:
        raise PeerUnavailable(wrong)
    return peer
