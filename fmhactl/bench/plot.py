"""`fmhactl bench --plot FILE.png`: the kernel beside each baseline across the shapes run.

Prefill shapes (many queries: compute-bound) are drawn in TFLOP/s on a linear axis; decode shapes
(a few queries against a long KV cache: memory-bound) get their own panel in GB/s, the bytes every
implementation must move once (Q, K, V, O and the f32 LSE) over the median time. One log axis for
both squashed the 280-650 TFLOP/s comparisons to make room for a 3 TFLOP/s decode bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fmhactl.results.store import ResultRow

DECODE_MAX_SEQ_Q = 64  # at most this many queries per head: memory-bound, drawn in GB/s
COLOURS = ["#d21e1e", "#e08a00", "#7a3db8", "#00897b", "#1f4e9c", "#555555"]
ELEMENT_BYTES = {"bf16": 2, "f16": 2}
LSE_BYTES = 4


MAX_BENCH_ROWS = 10000


def read_bench_json(path: Path) -> list[ResultRow]:
    """The rows of a `fmhactl bench --json` document (scripts/redraw_bench_plot.py draws them
    again), each checked before anything is drawn: BadInput naming the file, the row and the rule.
    The rows of kind bench that ran (status OK) must carry a config and finite, non-negative
    timings: a NaN there would be drawn as nothing, or break the axes."""
    from fmhactl.errors import BadInput
    from fmhactl.results.store import ResultRow
    from fmhactl.schemas import read_json

    doc = read_json(path, "bench JSON")
    if not isinstance(doc, list) or not doc or len(doc) > MAX_BENCH_ROWS:
        raise BadInput(f"{path}: a bench JSON document is a list of 1..{MAX_BENCH_ROWS} rows "
                       "(what `fmhactl bench --json` prints)")
    rows = []
    for index, item in enumerate(doc):
        where = f"{path}: [{index}]"
        if not isinstance(item, dict):
            raise BadInput(f"{where}: a row is a JSON object")
        text = {key: item.get(key, "") for key in ("kind", "variant", "arch", "mode", "status", "config_key", "gpu")}
        bad = next((key for key, value in text.items() if not isinstance(value, str)), None)
        if bad is not None or not text["variant"] or not text["config_key"]:
            raise BadInput(f"{where}: {bad or 'variant and config_key'} must be "
                           f"{'text' if bad else 'non-empty text'}")
        config, metrics = item.get("config", {}), item.get("metrics", {})
        if not isinstance(config, dict) or not isinstance(metrics, dict):
            raise BadInput(f"{where}: config and metrics must be JSON objects")
        row = ResultRow(**text, config=config, metrics=metrics)
        if row.kind in ("bench", "") and row.status == "OK":
            _check_timed_row(row, where)
        rows.append(row)
    return rows


def _check_timed_row(row: ResultRow, where: str) -> None:
    import math

    from fmhactl.config import AttnConfig
    from fmhactl.errors import BadInput, FmhactlError
    from fmhactl.records import BenchMetrics

    if row.config:
        try:
            AttnConfig.from_dict(row.config)
        except (FmhactlError, TypeError, ValueError) as exc:
            raise BadInput(f"{where}: config: {exc}") from None
    m = BenchMetrics.from_dict(row.metrics)
    timings = [("kernel", m.kernel)] + [(f"baselines.{b.name}", b.timing) for b in m.baselines if b.available]
    for name, timing in timings:
        if timing is None:
            continue
        for field_name in ("median_ms", "tflops"):
            value = getattr(timing, field_name)
            if not (math.isfinite(value) and value >= 0):
                raise BadInput(f"{where}: metrics.{name}.{field_name} must be a finite number >= 0, got {value}")


def plain(text: str) -> str:
    """text as matplotlib shows it literally: a `$` would start mathtext, and an unbalanced
    formula in a config key or a GPU name makes savefig raise."""
    return str(text).replace("$", r"\$")


def require_matplotlib():
    from fmhactl.profile.roofline import require_matplotlib as _require

    return _require()


def is_decode(cfg: Any) -> bool:
    return cfg is not None and cfg.seq_q <= DECODE_MAX_SEQ_Q


def bytes_moved(cfg: Any) -> int:
    """Q + K + V + O + LSE, each read or written once: the least any implementation moves."""
    elem = ELEMENT_BYTES.get(cfg.dtype, 2)
    heads_kv = cfg.heads_kv or cfg.heads
    q_and_o = 2 * cfg.batch * cfg.heads * cfg.seq_q * cfg.head_dim * elem
    k_and_v = 2 * cfg.batch * heads_kv * cfg.seq_k * cfg.head_dim * elem
    return q_and_o + k_and_v + cfg.batch * cfg.heads * cfg.seq_q * LSE_BYTES


def gb_per_s(point: Any) -> float:
    return bytes_moved(point.config) / (point.median_ms * 1e-3) / 1e9 if point.median_ms > 0 else 0.0


def _bars(ax: Any, points: Sequence[Any], configs: list[str], impls: list[str], value) -> None:
    n = len(impls)
    width = 0.8 / max(n, 1)
    upright = n * len(configs) > 12  # narrow bars: value labels stand up so neighbours do not collide
    for i, impl in enumerate(impls):
        by_cfg = {p.config_key: value(p) for p in points if p.implementation == impl}
        xs = [c + (i - (n - 1) / 2) * width for c in range(len(configs))]
        ys = [by_cfg.get(c, 0.0) for c in configs]
        bars = ax.bar(xs, ys, width=width * 0.95, color=COLOURS[i % len(COLOURS)], label=plain(impl))
        for rect, y in zip(bars, ys):
            if y:
                ax.annotate(f"{y:.0f}" if y >= 10 else f"{y:.2g}", (rect.get_x() + rect.get_width() / 2, y),
                            xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=7,
                            rotation=90 if upright else 0)
    top = max((value(p) for p in points), default=0.0)
    ax.set_ylim(0, top * 1.15 if top > 0 else 1)  # room above the tallest bar for its value label
    ax.set_xticks(range(len(configs)))
    ax.set_xticklabels([plain(c) for c in configs], rotation=20, ha="right", fontsize=8)
    ax.grid(True, axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)


def draw_bench(points: Sequence[Any], path: Path, *, title: str, subtitle: str = "",
               width: int = 1100, height: int = 620) -> dict:
    """points: BenchPoint-like records (config_key, implementation, tflops, median_ms, config)."""
    from fmhactl.errors import CheckFailed

    if not points:
        raise CheckFailed("cannot draw the bench plot: no configuration produced a timing")
    plt = require_matplotlib()
    impls = list(dict.fromkeys(p.implementation for p in points))
    prefill = [p for p in points if not is_decode(p.config)]
    decode = [p for p in points if is_decode(p.config)]
    prefill_cfgs = list(dict.fromkeys(p.config_key for p in prefill))
    decode_cfgs = list(dict.fromkeys(p.config_key for p in decode))
    panels = [(prefill, prefill_cfgs), (decode, decode_cfgs)]
    panels = [(pts, cfgs) for pts, cfgs in panels if cfgs]
    dpi = 100
    fig, axes = plt.subplots(1, len(panels), figsize=(width / dpi, height / dpi), dpi=dpi, squeeze=False,
                             gridspec_kw={"width_ratios": [max(len(cfgs), 2.5) for _, cfgs in panels]})
    for ax, (pts, cfgs) in zip(axes[0], panels):
        if pts is decode:
            _bars(ax, pts, cfgs, impls, gb_per_s)
            ax.set_ylabel("memory throughput (GB/s)")
            ax.set_title(f"decode (T <= {DECODE_MAX_SEQ_Q}, memory-bound)\nbytes: Q+K+V+O+LSE once / median time",
                         fontsize=9)
        else:
            _bars(ax, pts, cfgs, impls, lambda p: p.tflops)
            ax.set_ylabel("throughput (TFLOP/s, 4·B·H·T·S·D / median time)")
            if decode:
                ax.set_title("prefill (compute-bound)\n ", fontsize=9)
        ax.set_xlabel("shape (batch, heads, T queries, s keys, head dim, dtype)", fontsize=9)
    fig.suptitle(plain(title + (f"\n{subtitle}" if subtitle else "")))
    # One legend for all panels, outside the axes on the right: inside it covered the first bars.
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0, 0.84, 1))
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(0.85, 0.5), fontsize=9, frameon=True)
    fig.savefig(path, format="png")
    plt.close(fig)
    return {"png": str(path), "configs": prefill_cfgs + decode_cfgs, "implementations": impls,
            "decode_configs": decode_cfgs}
