"""`fmhactl bench --model dsv4`: a small random model with DeepSeek-V4's attention, timed with
fmhactl's kernels beside SDPA (explicit mask) and FlexAttention on the same weights.

The attention of each layer (docs/features.md for the rules): MQA, 64 query heads to one KV head
of dim 512 whose buffer is both K and V (RoPE on its last 64 dims), a per-head fp32 sink, and two
key segments per query token i:

- the **window**: the 128 keys i-127 .. i (causal);
- the **top-k**: up to 512 keys older than the window (j < i - 127), chosen by a tiny indexer (a
  rank-64 score of the token embeddings, computed once per forward and shared by every layer and
  every implementation), -1 padded when fewer are older.

The segments are disjoint, so the layer attends their union once each, with the sink joining the
denominator once. fmhactl computes each segment with one op call (window + sink: `_feat`/gather
kernel; top-k: sm90_mqa_gather) and merges them by LSE (`merge_by_lse`); SDPA gets the union as an
additive mask (0 / -inf) and the sink as an extra key column (K = V = 0, its score the sink), in
chunks of 8 heads; flex gets a block mask of the union and applies the sink from its LSE. Off the
GPU the fmhactl path runs the op's torch fallback (the same rules), so a CPU test checks its math.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass

from fmhactl.errors import BadInput

IMPLEMENTATIONS = ("fmhactl", "sdpa", "flex")
MAX_PROMPT = 16384  # SDPA's explicit mask: 8 heads x T x S per chunk (4 GiB bf16 at 16k)
MAX_CONTEXT = 65536
MAX_DECODE = 1024
SDPA_HEAD_CHUNK = 8
PREFILL_CHUNK = 8192  # the decode bench fills its KV cache in chunks of this many tokens


@dataclass(frozen=True)
class Dsv4Spec:
    name: str = "dsv4"
    hidden_size: int = 4096
    num_hidden_layers: int = 4
    num_attention_heads: int = 64
    head_dim: int = 512
    rope_dim: int = 64
    q_lora_rank: int = 1024
    window: int = 128
    topk: int = 512
    index_rank: int = 64
    intermediate_size: int = 8192
    vocab_size: int = 32000
    max_position_embeddings: int = MAX_CONTEXT


SPEC = Dsv4Spec()
TINY = Dsv4Spec(name="dsv4-tiny", hidden_size=64, num_hidden_layers=2, num_attention_heads=4, head_dim=64,
                rope_dim=16, q_lora_rank=32, window=8, topk=6, index_rank=8, intermediate_size=96, vocab_size=97,
                max_position_embeddings=512)


def _torch():
    import torch
    return torch


def build_model(spec: Dsv4Spec, dtype=None, device: str = "cpu", seed: int = 0):
    """The model, random weights from `seed`, eval mode; `model.impl` picks the attention."""
    torch = _torch()
    from torch import nn

    class RMSNorm(nn.Module):
        def __init__(self, dim: int):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim))

        def forward(self, x):
            x32 = x.float()
            return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight.float()).to(x.dtype)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            h, d, heads = spec.hidden_size, spec.head_dim, spec.num_attention_heads
            self.attn_norm, self.mlp_norm = RMSNorm(h), RMSNorm(h)
            self.wq_a, self.q_norm = nn.Linear(h, spec.q_lora_rank, bias=False), RMSNorm(spec.q_lora_rank)
            self.wq_b = nn.Linear(spec.q_lora_rank, heads * d, bias=False)
            self.wkv, self.kv_norm = nn.Linear(h, d, bias=False), RMSNorm(d)
            self.wo = nn.Linear(heads * d, h, bias=False)
            self.gate, self.up = nn.Linear(h, spec.intermediate_size, bias=False), nn.Linear(h, spec.intermediate_size, bias=False)
            self.down = nn.Linear(spec.intermediate_size, h, bias=False)
            # fp32 sinks in the softmax's units, around ln(window) so they matter
            # (rounded to bf16 values, so SDPA's bf16 mask column holds the same sinks exactly)
            sinks = torch.rand(heads) * 4.0 + math.log(spec.window) - 2.0
            self.register_buffer("sinks", sinks.to(torch.bfloat16).float())

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.spec = spec
            self.impl = "fmhactl"
            self.embed = nn.Embedding(spec.vocab_size, spec.hidden_size)
            self.index_q = nn.Linear(spec.hidden_size, spec.index_rank, bias=False)
            self.index_k = nn.Linear(spec.hidden_size, spec.index_rank, bias=False)
            self.layers = nn.ModuleList(Layer() for _ in range(spec.num_hidden_layers))
            self.norm = RMSNorm(spec.hidden_size)
            self.lm_head = nn.Linear(spec.hidden_size, spec.vocab_size, bias=False)

        def forward(self, ids, attention_mask=None, use_cache=False, cache=None, start: int = 0):
            if attention_mask is not None:
                raise ValueError("the dsv4 model takes no padding mask")
            return forward(self, ids, cache, start)

    torch.manual_seed(seed)
    model = Model()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 2:  # 1/sqrt(fan_in) scale: activations stay O(1) through the layers
                p.normal_(0.0, 1.0 / math.sqrt(p.shape[1]) if "embed" not in name else 1.0)
    model = model.eval().to(device=device)
    if dtype is not None:
        model = model.to(dtype)
        for layer in model.layers:
            layer.sinks = layer.sinks.float()
    return model


def new_cache(model, batch: int, length: int):
    """The KV cache: per layer one (batch, length, 1, head_dim) buffer (K = V), and the indexer's keys."""
    torch = _torch()
    spec = model.spec
    p = model.embed.weight
    return {"kv": [torch.zeros(batch, length, 1, spec.head_dim, dtype=p.dtype, device=p.device)
                   for _ in model.layers],
            "index": torch.zeros(batch, length, spec.index_rank, dtype=p.dtype, device=p.device)}


def rope(x, positions, rope_dim: int):
    """RoPE (rotate-half, theta 1e4) on the last rope_dim dims of x (batch, seq, heads, dim)."""
    torch = _torch()
    half = rope_dim // 2
    freq = 1.0 / (10000.0 ** (torch.arange(half, device=x.device, dtype=torch.float32) / half))
    angle = positions.float().view(-1, 1) * freq.view(1, -1)  # (seq, half)
    cos, sin = angle.cos().view(1, -1, 1, half), angle.sin().view(1, -1, 1, half)
    keep, rot = x[..., :-rope_dim], x[..., -rope_dim:].float()
    a, b = rot[..., :half], rot[..., half:]
    return torch.cat([keep, torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)], dim=-1)


def select_topk(index_q, index_keys, start: int, spec: Dsv4Spec, rows_per_pass: int = 1024):
    """int32 (batch, T, 1, topk): per query token (position start + t) the indexer's best keys
    older than its window (j <= pos - window), -1 padded; the same for every layer and implementation."""
    torch = _torch()
    batch, seq_q, _ = index_q.shape
    seq_k = index_keys.shape[1]
    k = min(spec.topk, seq_k)
    out = torch.full((batch, seq_q, 1, spec.topk), -1, dtype=torch.int32, device=index_q.device)
    cols = torch.arange(seq_k, device=index_q.device).view(1, -1)
    for r0 in range(0, seq_q, rows_per_pass):
        r1 = min(seq_q, r0 + rows_per_pass)
        dt = torch.float64 if index_q.dtype == torch.float64 else torch.float32
        scores = torch.matmul(index_q[:, r0:r1].to(dt), index_keys.to(dt).transpose(1, 2))  # (b, n, S)
        pos = torch.arange(start + r0, start + r1, device=index_q.device).view(-1, 1)
        older = cols <= pos - spec.window
        scores = scores.masked_fill(~older, float("-inf"))
        values, idx = scores.topk(k, dim=-1)
        idx = torch.where(torch.isneginf(values), torch.full_like(idx, -1), idx)
        out[:, r0:r1, 0, :k] = idx.to(torch.int32)
    return out


def forward(model, ids, cache=None, start: int = 0):
    """Logits (batch, T, vocab) of tokens at positions start .. start+T-1 over cache[:start+T]
    (a fresh cache of T when none is given); writes the new keys into the cache."""
    torch = _torch()
    spec = model.spec
    batch, seq = ids.shape
    if cache is None:
        cache = new_cache(model, batch, seq)
    end = start + seq
    positions = torch.arange(start, end, device=ids.device)
    x = model.embed(ids)
    cache["index"][:, start:end] = model.index_k(x)
    topk_idx = select_topk(model.index_q(x), cache["index"][:, :end], start, spec)
    heads, dim = spec.num_attention_heads, spec.head_dim
    for layer, kv_cache in zip(model.layers, cache["kv"]):
        h = layer.attn_norm(x)
        q = layer.wq_b(layer.q_norm(layer.wq_a(h))).view(batch, seq, heads, dim)
        q = rope(q, positions, spec.rope_dim)
        kv = rope(layer.kv_norm(layer.wkv(h)).view(batch, seq, 1, dim), positions, spec.rope_dim)
        kv_cache[:, start:end] = kv
        o = attend(model.impl, q, kv_cache[:, :end], layer.sinks, topk_idx, spec)
        x = x + layer.wo(o.reshape(batch, seq, heads * dim))
        h = layer.mlp_norm(x)
        x = x + layer.down(torch.nn.functional.silu(layer.gate(h)) * layer.up(h))
    return _Output(model.lm_head(model.norm(x)))


class _Output:
    def __init__(self, logits):
        self.logits = logits


def attend(impl: str, q, kv, sinks, topk_idx, spec: Dsv4Spec):
    """(batch, T, heads, dim): the union of the window and top-k segments with the sink, `impl`'s way."""
    scale = 1.0 / math.sqrt(spec.head_dim)
    if impl == "fmhactl":
        return _fmhactl(q, kv, sinks, topk_idx, spec, scale)
    if impl == "sdpa":
        return _sdpa(q, kv, sinks, topk_idx, spec, scale)
    if impl == "flex":
        return _flex(q, kv, sinks, topk_idx, spec, scale)
    raise ValueError(f"unknown attention implementation {impl!r} (known: {', '.join(IMPLEMENTATIONS)})")


def _segment(q, kv, scale: float, **features):
    """One op call (bshd, K = V, causal, LSE); off the GPU the op's torch fallback (the same rules)."""
    if q.is_cuda:
        import fmhactl.torch as ft

        return ft.attention(q, kv, kv, causal=True, scale=scale, return_lse=True, layout="bshd", kv_shared=True,
                            check_values=False, **features)
    from fmhactl.torch.features import Features, fallback

    f = Features(window_left=features.get("window", (-1, -1))[0], window_right=features.get("window", (-1, -1))[1],
                 sinks=features.get("sinks"), topk_idx=features.get("topk_idx"), kv_shared=True)
    return fallback(q, kv, kv, f, True, scale, "bshd")


def _fmhactl(q, kv, sinks, topk_idx, spec: Dsv4Spec, scale: float):
    from fmhactl.torch.merge import merge_by_lse

    window = _segment(q, kv, scale, window=(spec.window - 1, 0), sinks=sinks)
    sparse = _segment(q, kv, scale, topk_idx=topk_idx)
    out, _ = merge_by_lse([window[0], sparse[0]], [window[1], sparse[1]], check=False)
    return out


def visible_keys(seq_q: int, seq_k: int, topk_idx, spec: Dsv4Spec):
    """bool (batch, seq_q, seq_k): the union of each token's window and its top-k keys."""
    from fmhactl.verify.reference import topk_counts, visibility_mask

    window = visibility_mask(seq_q, seq_k, True, topk_idx.device, spec.window - 1)
    return (topk_counts(topk_idx, seq_k, 1)[:, 0] > 0) | window.unsqueeze(0)


def _sdpa(q, kv, sinks, topk_idx, spec: Dsv4Spec, scale: float):
    torch = _torch()
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    batch, seq_q, heads, dim = q.shape
    seq_k = kv.shape[1]
    bias = torch.zeros(batch, 1, seq_q, seq_k, dtype=q.dtype, device=q.device)
    bias.masked_fill_(~visible_keys(seq_q, seq_k, topk_idx, spec).unsqueeze(1), float("-inf"))
    kvh = torch.cat([kv.transpose(1, 2), kv.new_zeros(batch, 1, 1, dim)], dim=2)  # (b, 1, S+1, d): the sink key
    outs = []
    for h0 in range(0, heads, SDPA_HEAD_CHUNK):
        h1 = min(heads, h0 + SDPA_HEAD_CHUNK)
        column = sinks[h0:h1].to(q.dtype).view(1, -1, 1, 1).expand(batch, -1, seq_q, 1)
        mask = torch.cat([bias.expand(batch, h1 - h0, seq_q, seq_k), column], dim=-1)
        k = kvh.expand(batch, h1 - h0, seq_k + 1, dim)
        outs.append(sdpa(q[:, :, h0:h1].transpose(1, 2), k, k, attn_mask=mask, scale=scale))
    return torch.cat(outs, dim=1).transpose(1, 2)


_flex_compiled: dict = {}


def _flex(q, kv, sinks, topk_idx, spec: Dsv4Spec, scale: float):
    torch = _torch()
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    batch, seq_q, heads, dim = q.shape
    seq_k = kv.shape[1]
    visible = visible_keys(seq_q, seq_k, topk_idx, spec)

    def mask_mod(b, h, q_idx, kv_idx):
        return visible[b, q_idx, kv_idx]

    block_mask = create_block_mask(mask_mod, batch, None, seq_q, seq_k, device=q.device)
    if "fn" not in _flex_compiled:
        _flex_compiled["fn"] = torch.compile(flex_attention, dynamic=False) if q.is_cuda else flex_attention
    try:  # torch >= 2.9 asks for the LSE through AuxRequest
        from torch.nn.attention.flex_attention import AuxRequest

        lse_request: dict = {"return_aux": AuxRequest(lse=True)}
    except ImportError:
        lse_request = {"return_lse": True}
    kvh = kv.transpose(1, 2)
    out, lse = _flex_compiled["fn"](q.transpose(1, 2), kvh, kvh, block_mask=block_mask, scale=scale,
                                    enable_gqa=True, **lse_request)
    lse = getattr(lse, "lse", lse)
    keep = torch.sigmoid(lse.float() - sinks.view(1, heads, 1))  # sum / (sum + e^sink)
    return (out * keep.unsqueeze(-1).to(out.dtype)).transpose(1, 2)


# ---- the benchmark --------------------------------------------------------------------------------

def check_lengths(prompts, decode_tokens: int, context: int, batch: int) -> None:
    """One BadInput line for the first bad length (before any work)."""
    if batch < 1:
        raise BadInput(f"--batch must be >= 1, got {batch}")
    if not prompts or any(not 1 <= t <= MAX_PROMPT for t in prompts):
        raise BadInput(f"every --prompt length must be in 1..{MAX_PROMPT} for dsv4, got {list(prompts)}")
    if not 0 <= decode_tokens <= MAX_DECODE:
        raise BadInput(f"--greedy must be in 0..{MAX_DECODE}, got {decode_tokens}")
    if decode_tokens and not 1 <= context <= MAX_CONTEXT - decode_tokens:
        raise BadInput(f"--context must be in 1..{MAX_CONTEXT - decode_tokens} (the cache and {decode_tokens} decode "
                       f"tokens fit dsv4's {MAX_CONTEXT} positions), got {context}")


def _timed(fn, warmup: int, iters: int) -> list[float]:
    torch = _torch()
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)


def _skip_reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


def _fa_rule(ours, low, ref32) -> dict:
    """FlashAttention's rule: max|ours - fp32| <= 2 max|sdpa - fp32| + atol."""
    from fmhactl.bench.greedy import ATOL

    err = float((ours - ref32).abs().max())
    low_err = float((low - ref32).abs().max())
    return {"max_abs_err_vs_fp32": err, "sdpa_err_vs_fp32": low_err, "tolerance": 2 * low_err + ATOL,
            "passed": err <= 2 * low_err + ATOL}


def run_dsv4_bench(prompts, *, batch: int = 1, decode_tokens: int = 0, context: int = 32768, warmup: int = 2,
                   iters: int = 5, seed: int = 0, implementations=IMPLEMENTATIONS) -> dict:
    """Prefill tokens/s at each prompt length and decode tokens/s over a `context` KV cache, each
    implementation on the same weights, logits compared (vs sdpa; the FA rule against fp32 at the
    shortest prompt and in decode)."""
    check_lengths(prompts, decode_tokens, context, batch)
    if warmup < 0 or iters < 1:
        raise BadInput("--warmup must be >= 0 and --iters >= 1")
    from fmhactl.runtime.device import require_gpu

    require_gpu()
    torch = _torch()
    from fmhactl.torch import backend_for

    model = build_model(SPEC, torch.bfloat16, "cuda", seed)
    gen = torch.Generator(device="cuda").manual_seed(seed)
    spec = SPEC
    probe_q = torch.empty(batch, 1, spec.num_attention_heads, spec.head_dim, dtype=torch.bfloat16, device="cuda")
    probe_kv = torch.empty(batch, 1024, 1, spec.head_dim, dtype=torch.bfloat16, device="cuda")
    sinks = model.layers[0].sinks
    idx = torch.full((batch, 1, 1, spec.topk), -1, dtype=torch.int32, device="cuda")
    backends = {"window+sink": str(backend_for(probe_q, probe_kv, probe_kv, causal=True, layout="bshd",
                                               window=(spec.window - 1, 0), sinks=sinks, kv_shared=True)),
                "topk": str(backend_for(probe_q, probe_kv, probe_kv, causal=True, layout="bshd", topk_idx=idx,
                                        kv_shared=True))}
    skipped: dict[str, str] = {}
    rows = []
    ref32 = None
    with torch.inference_mode():
        for n, length in enumerate(sorted(prompts)):
            ids = torch.randint(0, spec.vocab_size, (batch, length), generator=gen, device="cuda")
            entry: dict = {"prompt_length": length, "batch": batch}
            logits = {}
            for impl in implementations:
                if impl in skipped:
                    entry[impl] = {"skipped": skipped[impl]}
                    continue
                model.impl = impl
                try:
                    logits[impl] = model(ids).logits.float()
                    times = _timed(lambda: model(ids), warmup, iters)
                except Exception as exc:  # noqa: BLE001 - a baseline that cannot run says why (flex at hd512)
                    skipped[impl] = _skip_reason(exc)
                    entry[impl] = {"skipped": skipped[impl]}
                    logits.pop(impl, None)
                    torch.cuda.empty_cache()
                    continue
                median = statistics.median(times)
                entry[impl] = {"median_ms": median, "p10_ms": times[len(times) // 10],
                               "p90_ms": times[(9 * len(times)) // 10],
                               "tokens_per_s": batch * length / (median * 1e-3) if median > 0 else 0.0}
            if "sdpa" in logits:
                entry["max_logit_diff_vs_sdpa"] = {impl: float((v - logits["sdpa"]).abs().max())
                                                   for impl, v in logits.items() if impl != "sdpa"}
            if n == 0 and {"sdpa", "fmhactl"} <= set(logits):
                ref32 = ref32 or build_model(SPEC, torch.float32, "cuda", seed)
                ref32.impl = "sdpa"
                want = ref32(ids).logits.float()
                entry["fa_rule"] = {impl: _fa_rule(v, logits["sdpa"], want) for impl, v in logits.items()
                                    if impl != "sdpa"}
            for impl in ("sdpa", "flex"):
                if "tokens_per_s" in entry.get(impl, {}) and "tokens_per_s" in entry.get("fmhactl", {}):
                    entry[f"fmhactl_speedup_vs_{impl}"] = entry[impl]["median_ms"] / entry["fmhactl"]["median_ms"]
            rows.append(entry)
            del logits
            torch.cuda.empty_cache()
        decode = None
        if decode_tokens:
            decode = _decode(model, ref32 if ref32 is not None else build_model(SPEC, torch.float32, "cuda", seed),
                             batch, context, decode_tokens, gen, implementations, skipped)
    return {"model": asdict(spec), "implementations": list(implementations), "backends": backends,
            "dtype": "bf16", "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "warmup": warmup,
            "iters": iters, "results": rows, "decode": decode, "skipped": skipped}


def _decode(model, ref32, batch: int, context: int, tokens: int, gen, implementations, skipped) -> dict:
    """Greedy decode of `tokens` tokens over a `context`-token KV cache (filled once by fmhactl in
    chunks, then copied for each implementation); every implementation is fed fmhactl's greedy
    tokens, so each runs the same steps and their logits compare step by step."""
    torch = _torch()
    spec = model.spec
    ids = torch.randint(0, spec.vocab_size, (batch, context), generator=gen, device="cuda")
    cache = new_cache(model, batch, context + tokens)
    model.impl = "fmhactl"
    for s0 in range(0, context, PREFILL_CHUNK):
        last = model(ids[:, s0:s0 + PREFILL_CHUNK], cache=cache, start=s0).logits[:, -1]
    first = last.float().argmax(-1, keepdim=True)

    def run(m, impl, feed=None):
        m.impl = impl
        own = {"kv": [t.clone().to(m.embed.weight.dtype) for t in cache["kv"]],
               "index": cache["index"].clone().to(m.embed.weight.dtype)}
        tok, fed, steps = first, [], []
        for step in range(tokens):
            out = m(tok, cache=own, start=context + step).logits[:, -1].float()
            steps.append(out)
            fed.append(tok)
            tok = out.argmax(-1, keepdim=True) if feed is None else feed[step + 1] if step + 1 < tokens else tok
        return torch.stack(steps, 1), torch.cat(fed, 1), own

    entry: dict = {"context": context, "new_tokens": tokens, "batch": batch}
    ours, fed, _ = run(model, "fmhactl")
    feed = [fed[:, i:i + 1] for i in range(tokens)]
    logits = {"fmhactl": ours}
    for impl in implementations:
        if impl in skipped and impl != "fmhactl":
            entry[impl] = {"skipped": skipped[impl]}
            continue
        try:
            if impl != "fmhactl":
                logits[impl] = run(model, impl, feed)[0]
            torch.cuda.synchronize()
            times = _timed(lambda: run(model, impl, feed), 1, 3)
        except Exception as exc:  # noqa: BLE001
            entry[impl] = {"skipped": _skip_reason(exc)}
            logits.pop(impl, None)
            torch.cuda.empty_cache()
            continue
        median = statistics.median(times)
        entry[impl] = {"median_s": median * 1e-3, "tokens_per_s": batch * tokens / (median * 1e-3)}
    if "sdpa" in logits:
        want = run(ref32, "sdpa", feed)[0]
        entry["max_logit_diff_vs_sdpa"] = {impl: float((v - logits["sdpa"]).abs().max()) for impl, v in logits.items()
                                           if impl != "sdpa"}
        entry["fa_rule"] = {impl: _fa_rule(v, logits["sdpa"], want) for impl, v in logits.items() if impl != "sdpa"}
        entry["greedy_agreement_vs_fmhactl"] = {
            impl: float((v.argmax(-1) == ours.argmax(-1)).float().mean()) for impl, v in logits.items()}
    for impl in ("sdpa", "flex"):
        if "tokens_per_s" in entry.get(impl, {}) and "tokens_per_s" in entry.get("fmhactl", {}):
            entry[f"fmhactl_speedup_vs_{impl}"] = entry["fmhactl"]["tokens_per_s"] / entry[impl]["tokens_per_s"]
    return entry
