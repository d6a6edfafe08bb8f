"""`fmhactl bench --plot FILE.png`: TFLOP/s of the kernel and each baseline across the shapes run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def require_matplotlib():
    from fmhactl.profile.roofline import require_matplotlib as _require

    return _require()


def draw_bench(points: Sequence[Any], path: Path, *, title: str, subtitle: str = "",
               width: int = 1100, height: int = 620) -> dict:
    """points: BenchPoint-like records (config_key, implementation, tflops). One line per implementation."""
    from fmhactl.errors import CheckFailed

    if not points:
        raise CheckFailed("cannot draw the bench plot: no configuration produced a timing")
    plt = require_matplotlib()
    configs = list(dict.fromkeys(p.config_key for p in points))
    impls = list(dict.fromkeys(p.implementation for p in points))
    dpi = 100
    fig, ax = plt.subplots(figsize=(width / dpi, height / dpi), dpi=dpi)
    n = len(impls)
    bar = 0.8 / max(n, 1)
    colors = ["#d21e1e", "#e08a00", "#7a3db8", "#00897b", "#1f4e9c", "#555555"]
    for i, impl in enumerate(impls):
        by_cfg = {p.config_key: p.tflops for p in points if p.implementation == impl}
        xs = [c + (i - (n - 1) / 2) * bar for c in range(len(configs))]
        ys = [by_cfg.get(c, 0.0) for c in configs]
        bars = ax.bar(xs, ys, width=bar * 0.95, color=colors[i % len(colors)], label=impl)
        for rect, y in zip(bars, ys):
            if y:
                ax.annotate(f"{y:.0f}" if y >= 10 else f"{y:.2g}", (rect.get_x() + rect.get_width() / 2, y),
                            ha="center", va="bottom", fontsize=7)
    values = [p.tflops for p in points if p.tflops > 0]
    if values and max(values) / min(values) > 50:  # a slow kernel beside fast baselines: keep both readable
        ax.set_yscale("log")
    ax.set_xticks(range(len(configs)))
    ax.set_xticklabels(configs, rotation=20, ha="right", fontsize=8)
    ax.set_xlabel("shape (batch, heads, T queries, s keys, head dim, dtype)")
    log = ax.get_yscale() == "log"
    ax.set_ylabel("throughput (TFLOP/s, 4·B·H·T·S·D / median time" + (", log scale)" if log else ")"))
    ax.set_title(title + (f"\n{subtitle}" if subtitle else ""))
    ax.grid(True, axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    # Outside the axes, to the right: inside it covered the first bars' value labels.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, borderaxespad=0.0)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
    return {"png": str(path), "configs": configs, "implementations": impls}
