"""run, verify, bench and dump: the kernel family launched in the isolated worker."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.progress import CancelToken, ProgressCallback, notify
from fmhactl.records import BenchMetrics, DumpMetrics, RunMetrics, VerifyMetrics
from fmhactl.registry import Variant, load_registry
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.runtime import dumpfile  # noqa: F401 - the TUI reads dump files the CLI wrote
from fmhactl.verify.grids import available_grids, load_grid  # noqa: F401 - the grids the TUI offers
from fmhactl.services import common

FAILING = ("FAIL", "CRASH", "HANG", "ERROR")


def require_gpu() -> None:
    """MissingEnvironment (exit 3) at once when the driver sees no usable GPU, before a worker starts."""
    from fmhactl.runtime import device

    device.require_gpu()


def list_variants(*, selftest: bool = False) -> list[Variant]:
    """The registry (kernels/family.toml); self-test kernels only when asked for."""
    return [v for v in load_registry().values() if selftest or not v.selftest]


@dataclass
class RunOutcome:
    row: ResultRow

    @property
    def metrics(self) -> RunMetrics:
        return RunMetrics.from_dict(self.row.metrics)

    @property
    def ok(self) -> bool:
        return self.row.status == "OK"


def run(variant: str, shape: str, *, timeout_s: float = 30.0, seed: int | None = None,
        store: ResultStore | None = None) -> RunOutcome:
    """One launch on fresh random inputs: finished? every output written? NaNs? (no reference)."""
    from fmhactl.runtime.jobs import require_supported
    from fmhactl.runtime.single import run_once

    chosen, cfg = common.variant(variant), common.shapes([shape])[0]
    require_supported(chosen, [cfg])
    timeout_s, seed = common.timeout(timeout_s), common.seed(seed)
    require_gpu()
    with _store(store) as s:
        return RunOutcome(run_once(chosen, cfg, store=s, timeout_s=timeout_s, seed=seed))


@dataclass
class VerifyOutcome:
    session: str
    rows: list[ResultRow]
    store_path: Path
    random_seed: int | None = None  # --random: the seed its configs were drawn from

    def metrics(self, row: ResultRow) -> VerifyMetrics:
        return VerifyMetrics.from_dict(row.metrics)

    @property
    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.status] = out.get(r.status, 0) + 1
        return out

    @property
    def ok(self) -> bool:
        return not any(r.status in FAILING for r in self.rows)

    def closing_line(self) -> str:
        from fmhactl.verify.sweep import closing_line

        return closing_line(self.counts)


def verify(variants: Sequence[str], *, grid: str | None = None, shapes: Sequence[str] | None = None,
           seed: int | None = None, timeout_s: float = 30.0, store: ResultStore | None = None,
           progress: ProgressCallback | None = None, cancel: CancelToken | None = None,
           placement=None, on_run=None, random_count: int | None = None) -> VerifyOutcome:
    """Check variants on a grid, shapes or random_count random configs (each one a named variant
    runs, drawn from the seed: VerifyOutcome.random_seed replays them) against the independent
    reference; one event per config.

    placement (fmhactl.sweep.service.Placement, from --gpus/--ray): one worker per GPU or Ray
    actors instead of the one local worker; on_run(run) then receives the sweep's throughput."""
    from fmhactl.runtime.jobs import fresh_seed
    from fmhactl.verify.sweep import run_verify

    if not variants:
        raise BadInput("name at least one variant")
    chosen = common.variants(variants)
    timeout_s, seed = common.timeout(timeout_s), common.seed(seed)
    if random_count is not None:
        seed = fresh_seed(seed)  # the draw and the inputs share it, so the one recorded seed replays both
    configs = common.configs(grid, shapes, random_count, chosen, seed)
    if shapes:
        _require_someone_runs_each(chosen, configs)
    if placement is None:  # a placement finds its own devices (and says when there are none)
        require_gpu()
    with _store(store) as s:
        if placement is not None:
            from fmhactl.sweep.service import sweep_verify

            landed: list = []

            def each(row) -> None:
                landed.append(row)
                notify(progress, "config", len(landed), len(chosen) * len(configs),
                       f"{row.status} {row.variant} {row.config_key}", row)

            summary, run = sweep_verify(chosen, configs, store=s, placement=placement, timeout_s=timeout_s, seed=seed,
                                        on_result=each, cancel=cancel)
            if on_run is not None:
                on_run(run)
        else:
            summary = run_verify(chosen, configs, store=s, timeout_s=timeout_s, seed=seed, progress=progress,
                                 cancel=cancel)
        return VerifyOutcome(summary.session, summary.rows, s.path, seed if random_count is not None else None)


def _require_someone_runs_each(chosen: Sequence[Variant], configs: Sequence[AttnConfig]) -> None:
    """Shapes given by hand (not a grid) must be runnable: one no chosen variant can run is bad input
    (exit 2, with the variant's rule) before the GPU is probed; where some can, the others record
    UNSUPPORTED as they do on a grid."""
    for cfg in configs:
        reasons = [v.unsupported_reason(cfg) for v in chosen]
        if all(reasons):
            raise BadInput(f"{chosen[0].name} cannot run {cfg.key}: {reasons[0]}")


@dataclass
class BenchPoint:
    """One implementation on one config, for tables and plots."""

    config_key: str
    implementation: str  # the variant, sdpa/<backend> or a peer library (BaselineTiming.label)
    tflops: float
    median_ms: float
    ratio_ours_over_it: float | None = None
    config: AttnConfig | None = None  # the plot draws decode shapes in GB/s from it


@dataclass
class BenchOutcome:
    variant: str
    rows: list[ResultRow]
    plot: dict | None = None
    notes: list[str] = field(default_factory=list)

    def metrics(self, row: ResultRow) -> BenchMetrics:
        return BenchMetrics.from_dict(row.metrics)

    @property
    def ok(self) -> bool:
        return all(r.status == "OK" for r in self.rows)

    def points(self) -> list[BenchPoint]:
        out = []
        for row in self.rows:
            m = self.metrics(row)
            if row.status != "OK" or m.kernel is None:
                continue
            cfg = AttnConfig.from_dict(row.config) if row.config else None
            out.append(BenchPoint(row.config_key, self.variant, m.kernel.tflops, m.kernel.median_ms, config=cfg))
            for b in m.baselines:
                if b.available and b.timing is not None:
                    out.append(BenchPoint(row.config_key, b.label, b.timing.tflops, b.timing.median_ms,
                                          b.ratio, config=cfg))
        return out


def bench(variant: str, shapes: Sequence[str], *, suite: str | None = None, warmup: int = 10, iters: int = 50,
          baselines: Sequence[str] | None = None, timeout_s: float = 300.0, seed: int | None = None,
          plot: Path | None = None, store: ResultStore | None = None, progress: ProgressCallback | None = None,
          cancel: CancelToken | None = None, placement=None, on_run=None, on_row=None) -> BenchOutcome:
    """Time a variant (CUDA events, median, inputs rotated past L2) beside torch SDPA baselines;
    with plot, also draw TFLOP/s of the kernel and each baseline across the shapes (PNG)."""
    from fmhactl.bench.service import DEFAULT_BASELINES, KNOWN_BASELINES, run_bench
    from fmhactl.runtime.jobs import require_supported
    from fmhactl.schemas import int_in_range

    chosen = common.variant(variant)
    configs = []
    if suite is not None:  # a named suite's shapes first (scenarios/bench/NAME.toml)
        from fmhactl.bench.suites import load_suite

        configs.extend(load_suite(suite).configs)
    if shapes:
        configs.extend(common.shapes(list(shapes)))
    if not configs:
        raise BadInput("give at least one --shape or --suite NAME")
    int_in_range(warmup, "--warmup", 0, 10000)
    int_in_range(iters, "--iters", 1, 100000)
    baselines = list(baselines) if baselines else list(DEFAULT_BASELINES)
    if len(set(baselines)) != len(baselines):
        raise BadInput("--baseline: a backend named twice")
    unknown = [b for b in baselines if b not in KNOWN_BASELINES]
    if unknown:
        raise BadInput(f"unknown baseline {unknown[0]!r} (choose from {', '.join(KNOWN_BASELINES)})")
    require_supported(chosen, configs)
    timeout_s, seed = common.timeout(timeout_s), common.seed(seed)
    plot = common.output(plot, "--plot")
    if plot is not None:
        from fmhactl.bench.plot import require_matplotlib

        require_matplotlib()
    if placement is None:  # a placement finds its own devices (and says when there are none)
        require_gpu()
    with _store(store) as s:
        if placement is not None:  # configs spread over GPUs, one timed kernel per GPU at a time
            from fmhactl.sweep.service import sweep_bench

            rows, run = sweep_bench(chosen, configs, store=s, placement=placement, warmup=warmup, iters=iters,
                                    baselines=baselines, timeout_s=timeout_s, seed=seed, on_result=on_row,
                                    cancel=cancel)
            if on_run is not None:
                on_run(run)
        else:
            rows = run_bench(chosen, configs, store=s, warmup=warmup, iters=iters, baselines=baselines,
                             timeout_s=timeout_s, seed=seed, progress=progress, cancel=cancel)
    outcome = BenchOutcome(chosen.name, rows)
    if plot is not None:
        from fmhactl.bench.plot import draw_bench

        common.output_folders(plot, "--plot")
        outcome.plot = draw_bench(outcome.points(), plot, title=f"fmhactl bench {chosen.name}",
                                  subtitle=f"{rows[0].gpu} ({rows[0].mode})" if rows else "")
    return outcome


@dataclass
class DumpOutcome:
    row: ResultRow
    at: str
    saved_to: Path | None = None

    @property
    def metrics(self) -> DumpMetrics:
        return DumpMetrics.from_dict(self.row.metrics)

    @property
    def ok(self) -> bool:
        return self.row.status == "PASS"


def dump(variant: str, shape: str, at: str, *, timeout_s: float = 60.0, seed: int | None = None,
         store: ResultStore | None = None, out: str | Path | None = None) -> DumpOutcome:
    """Build with FMHA_CHECKPOINTS=1, run once, compare one checkpoint with torch + the layout model.

    `out`: also write the whole checkpoint, kernel and expected, as a dump file
    (fmhactl/runtime/dumpfile.py; the TUI's Checkpoints screen reads it)."""
    from fmhactl.runtime.checkpoints import CHECKPOINTS
    from fmhactl.runtime.dump import checkpoint_variant, run_dump
    from fmhactl.schemas import shown

    chosen, cfg = common.variant(variant), common.shapes([shape])[0]
    if not isinstance(at, str) or at.upper() not in CHECKPOINTS:
        raise BadInput(f"--at: unknown checkpoint {shown(at)} (choose from {', '.join(CHECKPOINTS)})")
    checkpoint_variant(chosen)  # BadInput for a variant without checkpoints, before any work
    if cfg.features:  # the expected S/P/O of runtime/checkpoints.py model plain attention only
        raise BadInput(f"--shape {cfg.key}: dump checks plain attention; drop the features "
                       f"({', '.join(cfg.features)})")
    from fmhactl.runtime.jobs import require_supported

    require_supported(chosen, [cfg])
    timeout_s, seed = common.timeout(timeout_s), common.seed(seed)
    target = common.output(None if out is None else Path(out), "--out")
    require_gpu()
    with _store(store) as s:
        row = run_dump(chosen, cfg, at, store=s, timeout_s=timeout_s, seed=seed,
                       out=None if target is None else str(target.resolve()))
    return DumpOutcome(row, at.upper(), target)


class _store:
    """The given store, or one opened (and closed) for this call."""

    def __init__(self, store: ResultStore | None) -> None:
        self._given = store
        self._owned: ResultStore | None = None

    def __enter__(self) -> ResultStore:
        if self._given is not None:
            return self._given
        self._owned = ResultStore()
        return self._owned

    def __exit__(self, *exc: object) -> None:
        if self._owned is not None:
            self._owned.close()
