"""profile: one launch under Nsight Compute (NVTX-filtered), stored; optionally a roofline PNG."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fmhactl.errors import BadInput, FmhactlError
from fmhactl.progress import CancelToken, ProgressCallback
from fmhactl.records import ProfileMetrics
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.services import common
from fmhactl.services.kernels import _store

CLOCK_CONTROLS = ("none", "base")


@dataclass
class ProfileOutcome:
    row: ResultRow
    summary_lines: list[str]
    report: Path
    recipe: str
    notes: list[str] = field(default_factory=list)
    roofline: dict | None = None

    @property
    def metrics(self) -> ProfileMetrics:
        return ProfileMetrics.from_dict(self.row.metrics)


def profile(variant: str, shape: str, *, recipe: str = "default", clock_control: str = "none", warmup: int = 2,
            seed: int = 0, timeout_s: float = 600.0, png: Path | None = None, store: ResultStore | None = None,
            progress: ProgressCallback | None = None, cancel: CancelToken | None = None) -> ProfileOutcome:
    """Profile one launch with ncu. With png, also time torch SDPA cuDNN and flash on the same
    config in the same run and draw all three on a roofline."""
    from fmhactl.profile.recipes import load_recipe
    from fmhactl.profile.report import summary_lines
    from fmhactl.profile.service import run_profile
    from fmhactl.schemas import int_in_range

    chosen, cfg = common.variant(variant), common.shapes([shape])[0]
    loaded = load_recipe(recipe)
    if clock_control not in CLOCK_CONTROLS:
        raise BadInput(f"--clock-control must be one of {', '.join(CLOCK_CONTROLS)}, got {clock_control!r}")
    int_in_range(warmup, "--warmup", 0, 1000)
    int_in_range(seed, "--seed", 0, common.MAX_SEED)
    timeout_s = common.timeout(timeout_s)
    png = common.output(png, "--png")
    if png is not None:
        from fmhactl.profile.roofline import require_matplotlib

        require_matplotlib()
    with _store(store) as s:
        result = run_profile(chosen, cfg, loaded, store=s, clock_control=clock_control, warmup=warmup, seed=seed,
                             timeout_s=timeout_s, progress=progress, cancel=cancel)
        outcome = ProfileOutcome(result.row, summary_lines(result.summary), result.report, loaded.name,
                                 list(result.notes))
        if png is not None:
            baselines = _baseline_points(chosen, cfg, s, seed, timeout_s, outcome.notes)
            from fmhactl.profile.roofline import draw_roofline

            common.output_folders(png, "--png")
            outcome.roofline = draw_roofline(result.summary, png, baselines=baselines,
                                             title=f"Roofline: {chosen.name} {cfg.key} ({result.row.gpu or 'GPU'}, "
                                                   f"{result.row.mode})")
    return outcome


def _baseline_points(variant, cfg, store: ResultStore, seed: int, timeout_s: float, notes: list[str]) -> list:
    """torch SDPA cuDNN and flash timed (CUDA events) on cfg now, placed at the compulsory intensity."""
    from fmhactl.bench.service import run_bench
    from fmhactl.profile.roofline import RooflinePoint, compulsory_bytes
    from fmhactl.records import BenchMetrics

    try:
        rows = run_bench(variant, [cfg], store=store, warmup=5, iters=20, baselines=("cudnn", "flash"),
                         timeout_s=timeout_s, seed=seed)
    except FmhactlError as exc:
        notes.append(f"baselines not timed for the roofline: {exc}")
        return []
    intensity = cfg.flops / compulsory_bytes(cfg)
    points = []
    for row in rows:
        m = BenchMetrics.from_dict(row.metrics)
        for b in m.baselines:
            if b.available and b.timing is not None:
                points.append(RooflinePoint(f"sdpa/{b.name}", intensity, b.timing.tflops, measured_traffic=False))
            else:
                notes.append(f"baseline sdpa/{b.name} unavailable: {b.reason}")
    return points
