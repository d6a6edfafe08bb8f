"""Random configs that named variants declare they run: `fmhactl verify VARIANT --random N`.

A grid holds the shapes someone thought of; a kernel's bugs sit where nobody looked (a head dim of
40, T > S under causal, a window of 0 beside a sink of -inf, a top-k list longer than the cache).
This draws N configs from the space each variant declares in its entry (dtypes, head dims,
features, limits) and keeps a draw only where `Variant.unsupported_reason` has no objection, so
every row is a real check, not an UNSUPPORTED line. The draw is a pure function of (variants, N,
seed): the recorded seed replays it, and every row's config key is its `--shape`.

Sizes follow how the variant runs here: an sm_100a-only variant runs under strict emulation on
Hopper (seconds per config), so its draws stay small; a native variant's go to a few thousand
keys. Both stay within what the fp32 reference holds comfortably.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from fmhactl.config import MAX_TOPK, UNBOUNDED, AttnConfig
from fmhactl.errors import BadInput, FmhactlError
from fmhactl.registry import Variant

MAX_RANDOM_CONFIGS = 5000
DRAWS_PER_CONFIG = 400  # rejection sampling: a variant that takes almost nothing is reported, not looped on
NATIVE_ARCHS = ("sm_80", "sm_90a")
COMMON_HEAD_DIMS = (64, 128, 256, 512)


@dataclass(frozen=True)
class SizeLimits:
    """Bounds of one variant's draws."""

    max_seq: int
    max_batch: int
    max_heads: int
    max_operand_elements: int  # Q/O or K/V, batch x seq x heads x head_dim
    max_score_work: int  # batch x heads x seq_q x seq_k x head_dim: the reference's and the kernel's work


EMULATED = SizeLimits(max_seq=384, max_batch=2, max_heads=8, max_operand_elements=2**19, max_score_work=2**28)
NATIVE = SizeLimits(max_seq=2048, max_batch=4, max_heads=32, max_operand_elements=2**23, max_score_work=2**34)


def limits_for(variant: Variant) -> SizeLimits:
    """Small draws for a variant that runs only as sm_100a code (emulated on Hopper)."""
    return NATIVE if set(variant.archs) & set(NATIVE_ARCHS) else EMULATED


def random_configs(variants: Sequence[Variant], count: int, seed: int) -> list[AttnConfig]:
    """`count` distinct configs, drawn in turn for each variant (config i for variants[i % n]), each
    one that variant can run. BadInput when a variant takes almost none of its declared space."""
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_RANDOM_CONFIGS:
        raise BadInput(f"--random must be a count from 1 to {MAX_RANDOM_CONFIGS}, got {count!r}")
    if not variants:
        raise BadInput("name at least one variant")
    rng = random.Random(f"fmhactl-random-grid-{seed}")
    drawn: dict[AttnConfig, None] = {}
    for index in range(count):
        variant = variants[index % len(variants)]
        drawn[_draw_supported(rng, variant, drawn)] = None
    return list(drawn)


def _draw_supported(rng: random.Random, variant: Variant, taken: dict[AttnConfig, None]) -> AttnConfig:
    limits = limits_for(variant)
    last_reason = "no draw"
    for _ in range(DRAWS_PER_CONFIG):
        try:
            cfg = draw_config(rng, variant, limits)
        except FmhactlError as exc:  # a combination AttnConfig refuses: draw again
            last_reason = str(exc)
            continue
        reason = variant.unsupported_reason(cfg)
        if reason is None and cfg not in taken:
            return cfg
        last_reason = reason or "drawn twice"
    raise BadInput(f"--random: variant {variant.name} accepted none of {DRAWS_PER_CONFIG} configs drawn from "
                   f"its declared dtypes, head dims and features (last: {last_reason})")


def draw_config(rng: random.Random, variant: Variant, limits: SizeLimits) -> AttnConfig:
    """One config inside the variant's declared dtypes, head dims and features (its limits and the
    launcher's rules are checked by the caller)."""
    features = set(variant.features)
    head_dim = _head_dim(rng, variant)
    heads_kv = rng.choice((1, 1, 2, 4))
    group = rng.choice((1, 2, 4, 8)) if "gqa" in features else 1
    heads = min(heads_kv * group, limits.max_heads)
    heads -= heads % heads_kv
    batch = rng.randint(1, limits.max_batch)
    seq_k = log_uniform(rng, 1, limits.max_seq)
    shape_of_q = rng.random()
    if shape_of_q < 0.25:
        seq_q = rng.randint(1, min(16, limits.max_seq))  # decode steps
    elif shape_of_q < 0.5:
        seq_q = seq_k  # prefill
    else:
        seq_q = log_uniform(rng, 1, limits.max_seq)
    batch, heads, heads_kv, seq_q, seq_k = _fit(limits, batch, heads, heads_kv, seq_q, seq_k, head_dim)
    causal = "causal" in features and rng.random() < 0.5
    fields = dict(batch=batch, heads=heads, heads_kv=heads_kv, seq_q=seq_q, seq_k=seq_k, head_dim=head_dim,
                  dtype=rng.choice(tuple(variant.dtypes)), causal=causal)
    if "window" in features and rng.random() < 0.4:
        fields.update(_window(rng, causal, seq_k))
    if "sink" in features and rng.random() < 0.4:
        fields["sink"] = True
    if "kv_shared" in features and rng.random() < 0.3:
        fields["kv_shared"] = True
    if "topk" in features and rng.random() < 0.35:
        fields["topk"] = min(MAX_TOPK, rng.choice((1, rng.randint(1, seq_k), rng.randint(seq_k, 2 * seq_k + 1))))
    if "key_ranges" in features and rng.random() < 0.35:
        fields["key_ranges"] = True
    return AttnConfig(**fields)


def _head_dim(rng: random.Random, variant: Variant) -> int:
    if variant.head_dims:
        return rng.choice(tuple(variant.head_dims))
    multiple, largest = variant.head_dim_multiple, variant.max_head_dim
    common = [d for d in COMMON_HEAD_DIMS if d % multiple == 0 and d <= largest]
    if common and rng.random() < 0.5:
        return rng.choice(common)
    return multiple * rng.randint(1, max(1, largest // multiple))


def _window(rng: random.Random, causal: bool, seq_k: int) -> dict[str, int]:
    """Left and right edges: 0 (the diagonal alone), inside the sequence, wider than it, or open;
    causal fixes the right edge at the diagonal."""
    def edge() -> int:
        return rng.choice((0, rng.randint(0, max(0, seq_k)), seq_k + rng.randint(1, 1000), UNBOUNDED))

    left = edge()
    right = rng.choice((UNBOUNDED, 0)) if causal else edge()
    if left == UNBOUNDED and right == UNBOUNDED:
        left = rng.randint(0, max(0, seq_k))
    return {"window_left": left, "window_right": right}


def log_uniform(rng: random.Random, low: int, high: int) -> int:
    """An integer in [low, high], log-uniformly (low >= 1)."""
    return min(high, max(low, int(math.exp(rng.uniform(math.log(low), math.log(high + 1))))))


def _fit(limits: SizeLimits, batch: int, heads: int, heads_kv: int, seq_q: int, seq_k: int,
         head_dim: int) -> tuple[int, int, int, int, int]:
    """Halve the largest of batch and the lengths until the operands and the work fit the limits."""
    def too_big() -> bool:
        operand = max(seq_q * heads, seq_k * heads_kv) * batch * head_dim
        return (operand > limits.max_operand_elements
                or batch * heads * seq_q * seq_k * head_dim > limits.max_score_work)

    while too_big():
        if batch > 1:
            batch = max(1, batch // 2)
        elif seq_k >= seq_q and seq_k > 1:
            seq_k = max(1, seq_k // 2)
        elif seq_q > 1:
            seq_q = max(1, seq_q // 2)
        elif heads > heads_kv:
            heads = max(heads_kv, heads // 2 - (heads // 2) % heads_kv)
        else:
            break
    return batch, heads, heads_kv, seq_q, seq_k
