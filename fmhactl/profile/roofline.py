"""The roofline picture (matplotlib, Agg; imported only when a PNG is asked for).

Log-log axes: arithmetic intensity in FLOP per DRAM byte against TFLOP/s. The compute roof is
the dense tensor peak at the clock ncu measured, the bandwidth roof is the DRAM peak times the
intensity, they meet at the ridge point. The kernel's point uses the DRAM bytes ncu counted;
the baselines (torch SDPA cuDNN / flash, timed in the same `fmhactl profile` run) are placed at
the compulsory intensity (Q, K, V read and O written once), since ncu did not measure their
traffic: the legend says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fmhactl.errors import ExitCode, FmhactlError, MissingEnvironment


@dataclass(frozen=True)
class RooflinePoint:
    label: str
    arith_intensity_flop_per_byte: float
    tflops: float
    measured_traffic: bool = True  # False: placed at the compulsory intensity


def require_matplotlib():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingEnvironment(f"drawing a PNG needs matplotlib (pip install matplotlib): {exc}") from None
    return plt


def draw_roofline(summary: dict, path: Path, *, baselines: list[RooflinePoint] | tuple = (),
                  title: str = "", width: int = 960, height: int = 720) -> dict:
    """Write the PNG; returns the numbers drawn. Raises when the report lacks what a roofline needs."""
    peak = summary.get("tensor_peak_tflops")
    bw_gbs = summary.get("dram_peak_gbs")
    ai = summary.get("arith_intensity")
    achieved = summary.get("tflops")
    missing = [n for n, v in (("tensor peak", peak), ("DRAM peak bandwidth", bw_gbs),
                              ("DRAM bytes", ai), ("duration", achieved)) if not v]
    if missing:
        raise FmhactlError(f"cannot draw a roofline: the report lacks {', '.join(missing)}", ExitCode.CHECK_FAILED)
    plt = require_matplotlib()
    bw_tbs = bw_gbs / 1e3
    ridge = peak / bw_tbs
    kernel = RooflinePoint(summary.get("kernel") or "kernel", ai, achieved)
    points = [kernel, *baselines]
    xs = [p.arith_intensity_flop_per_byte for p in points] + [ridge]
    lo = 10 ** (int(_floor_log10(min(xs))) - 1)
    hi = 10 ** (int(_floor_log10(max(xs))) + 2)
    dpi = 100
    fig, ax = plt.subplots(figsize=(width / dpi, height / dpi), dpi=dpi)
    grid = [lo * (hi / lo) ** (i / 400) for i in range(401)]
    ax.plot(grid, [min(peak, x * bw_tbs) for x in grid], color="#1f4e9c", linewidth=2.5, label="attainable (min of roofs)")
    ax.axhline(peak, color="#1f4e9c", linestyle=":", linewidth=1,
               label=f"compute roof: dense tensor peak {peak:.0f} TFLOP/s")
    ax.plot(grid, [x * bw_tbs for x in grid], color="#6b8fd6", linestyle="--", linewidth=1,
            label=f"bandwidth roof: DRAM {bw_gbs:.0f} GB/s")
    ax.scatter([ridge], [peak], marker="D", s=60, color="#2e8b3d", zorder=5,
               label=f"ridge point: {ridge:.0f} FLOP/B")
    # The kernel (ncu traffic) and the baselines (compulsory traffic) often sit within a few percent
    # of each other: the kernel is a filled circle, each baseline a hollow marker of its own shape
    # drawn on top, and every point gets its own label with a leader line at a distinct offset.
    ax.scatter([kernel.arith_intensity_flop_per_byte], [kernel.tflops], s=110, color="#d21e1e", zorder=6,
               label=f"{kernel.label}: {kernel.tflops:.1f} TFLOP/s at {ai:.0f} FLOP/B (ncu)")
    _label(ax, kernel, "#d21e1e", (-170, -34))
    markers = ["s", "^", "v", "P"]
    colors = ["#e08a00", "#7a3db8", "#00897b", "#555555"]
    for i, b in enumerate(baselines):
        how = "ncu traffic" if b.measured_traffic else "compulsory traffic"
        ax.scatter([b.arith_intensity_flop_per_byte], [b.tflops], s=150, marker=markers[i % 4],
                   facecolors="none", edgecolors=colors[i % 4], linewidths=2, zorder=7,
                   label=f"{b.label}: {b.tflops:.1f} TFLOP/s (timed in the same run; {how})")
        _label(ax, b, colors[i % 4], (40, -26 * (i + 1)))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ymin = min([p.tflops for p in points] + [peak]) / 20
    ax.set_ylim(max(ymin, 1e-3), peak * 3)
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte)")
    ax.set_ylabel("throughput (TFLOP/s)")
    ax.set_title(title or f"Roofline: {kernel.label}")
    ax.grid(True, which="both", color="#dddddd", linewidth=0.6)
    # Below the axes: inside, the legend covered points and roofs.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
    return {"png": str(path), "arith_intensity": ai, "tflops": achieved, "tensor_peak_tflops": peak,
            "dram_peak_tbs": bw_tbs, "ridge_flop_per_byte": ridge,
            "attainable_tflops": min(peak, ai * bw_tbs),
            "baselines": [{"label": b.label, "tflops": b.tflops,
                           "arith_intensity": b.arith_intensity_flop_per_byte} for b in baselines]}


def _label(ax, point: RooflinePoint, colour: str, offset: tuple[int, int]) -> None:
    ax.annotate(f"{point.label} {point.tflops:.0f}", (point.arith_intensity_flop_per_byte, point.tflops),
                xytext=offset, textcoords="offset points", fontsize=8, color=colour,
                arrowprops={"arrowstyle": "-", "color": colour, "linewidth": 0.8})


def _floor_log10(x: float) -> float:
    import math

    return math.floor(math.log10(max(x, 1e-9)))


def compulsory_bytes(cfg) -> float:
    """Q, K, V read once and O written once, in the input dtype (2 bytes)."""
    elem = 2
    q_o = 2 * cfg.batch * cfg.seq_q * cfg.heads * cfg.head_dim
    k_v = 2 * cfg.batch * cfg.seq_k * cfg.heads_kv * cfg.head_dim
    return float(elem * (q_o + k_v))
