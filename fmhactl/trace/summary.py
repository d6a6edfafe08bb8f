"""The summary of a modeled schedule: time per KV tile, tensor-core busy fraction, the longest
waits by barrier, the critical path, and the projection checked against the FA4 B200 anchor."""

from __future__ import annotations

from fmhactl.trace import cost_model as cm
from fmhactl.trace.schedule import Geometry, Schedule, steady_tile_cycles


def summarize(sched: Schedule, geo: Geometry, tiles: int) -> dict:
    """Numbers of one CTA's schedule (cycles are modeled B200 SM cycles)."""
    span = max(sched.end, 1e-9)
    waits = []
    for (barrier, role), cycles in sorted(sched.waits.items(), key=lambda kv: -kv[1]):
        warps = max(1, sched.role_warps.get(role, 1))
        waits.append({"barrier": barrier, "role": role, "cycles": round(cycles, 1),
                      "fraction_of_role_time": round(cycles / (span * warps), 4)})
    critical_total = sum(sched.critical.values()) or 1.0
    critical = {k: round(v / critical_total, 4) for k, v in sorted(sched.critical.items(), key=lambda kv: -kv[1])}
    steady = steady_tile_cycles(sched)
    per_tile = span / max(1, tiles)
    projection = project(geo, steady if steady is not None else per_tile, sched.resource_per_tile)
    return {"label": cm.MODEL_LABEL, "cta": sched.block, "kv_tiles": tiles, "cycles": round(span, 1),
            "modeled_us": round(cm.cycles_to_us(span), 3), "cycles_per_kv_tile": round(per_tile, 1),
            "steady_cycles_per_kv_tile": round(steady, 1) if steady is not None else None,
            "tensor_busy_fraction": round(sched.tensor_busy / span, 4), "longest_waits": waits[:6],
            "critical_path": critical, "bottleneck": bottleneck(sched, critical, waits),
            "projection": projection}


def bottleneck(sched: Schedule, critical: dict[str, float], waits: list[dict]) -> str:
    """The critical-path sentence."""
    if not critical:
        return "no modeled work"
    top = next(iter(critical))
    parts = ", ".join(f"{k} {v:.0%}" for k, v in list(critical.items())[:3])
    text = f"critical path: {parts} (bottleneck: {top})"
    if waits:
        w = waits[0]
        text += (f"; {w['role']} warps waited on {w['barrier']} {w['fraction_of_role_time']:.0%} of the time")
    return text


def project(geo: Geometry, cta_tile_cycles: float, resources: dict[str, float]) -> dict:
    """Whole-B200 throughput from one CTA's steady KV tile: with c co-resident CTAs an SM finishes a
    tile every max(cta_tile / c, busiest shared resource per tile) cycles."""
    c = max(1, geo.ctas_per_sm)
    sm_tile = max([cta_tile_cycles / c, *resources.values()])
    limiter = "CTA pipeline latency" if sm_tile == cta_tile_cycles / c else max(resources, key=resources.get)
    flops = 2.0 * geo.block_m * geo.block_n * (geo.head_dim + geo.d_part)
    tflops = flops / sm_tile * cm.value("sms") * cm.value("clock_ghz") * 1e9 / 1e12
    return {"ctas_per_sm": c, "sm_cycles_per_tile": round(sm_tile, 1), "limited_by": limiter,
            "resource_cycles_per_tile": {k: round(v, 1) for k, v in resources.items()},
            "tflops": round(tflops, 1)}


def anchor_check(head_dim: int, causal: bool, tflops: float) -> dict | None:
    """The model against the published FA4 B200 number for this head dim (None: no anchor)."""
    anchor = cm.ANCHORS.get((head_dim, causal))
    if anchor is None:
        return None
    published, source = anchor
    ratio = tflops / published
    band = cm.value("error_band")
    return {"modeled_tflops": tflops, "fa4_tflops": published, "ratio": round(ratio, 3),
            "error_band": band, "within_band": abs(ratio - 1) <= band, "source": source,
            "note": "our kernel is not FA4's design (1-CTA MMA, one Q tile per CTA, no 2-CTA mode): "
                    "the ratio compares the model of OUR variant with FA4's measurement"}


def render(summary: dict, variant: str) -> list[str]:
    """Human lines for stderr."""
    s = summary
    lines = [f"{variant}: CTA {s['cta']}, {s['kv_tiles']} KV tiles, {s['cycles']:.0f} cycles "
             f"= {s['modeled_us']} us ({cm.MODEL_LABEL})",
             f"  per KV tile: {s['cycles_per_kv_tile']:.0f} cycles"
             + (f" (steady state {s['steady_cycles_per_kv_tile']:.0f})" if s["steady_cycles_per_kv_tile"] else ""),
             f"  tensor core busy {s['tensor_busy_fraction']:.0%}",
             f"  {s['bottleneck']}"]
    for w in s["longest_waits"][:4]:
        lines.append(f"  wait {w['barrier']:<12} {w['role']:<8} {w['cycles']:>10.0f} cycles "
                     f"({w['fraction_of_role_time']:.0%} of that role's time)")
    p = s["projection"]
    lines.append(f"  projected B200: {p['tflops']:.0f} TFLOP/s at {p['ctas_per_sm']} CTA/SM, "
                 f"{p['sm_cycles_per_tile']:.0f} cycles/tile/SM, limited by {p['limited_by']}")
    a = s.get("anchor")
    if a:
        lines.append(f"  FA4 anchor: model {a['modeled_tflops']:.0f} / published {a['fa4_tflops']:.0f} TFLOP/s "
                     f"= {a['ratio']:.2f} ({'inside' if a['within_band'] else 'OUTSIDE'} the ±{a['error_band']:.0%} band)")
    return lines
