"""What build, run, verify, bench, profile and dump results are: named fields, units in the names.

The worker speaks JSON and the results store keeps a JSON `metrics` column; this module is the
one place that reads those dicts. Everything else (CLI, TUI, status, scenarios, plots) reads the
typed records below, never a metric by string key. Every JSON document fmhactl writes and every
stored row carries RECORD_SCHEMA as `schema_version`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, TypeVar

RECORD_SCHEMA = 1


def envelope(document: str, version: int) -> dict[str, Any]:
    """The one envelope of every JSON document fmhactl prints: `schema_version` (the same key the
    stored records and `list --json` carry) and, for documents with their own format (layout, tma),
    `document` naming that format."""
    return {"schema_version": version, "document": document}

T = TypeVar("T")


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an integer beyond float range (JSON allows it)
        return None


def _int(value: Any, default: int = 0) -> int:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else default


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _strs(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, (list, tuple)) else ()


def _ints(value: Any) -> tuple[int, ...]:
    """The integers of a list (anything else in it, or a value that is not a list, left out): the
    from_dict readers take any JSON a stored row or an evidence record may hold."""
    return tuple(v for v in value if isinstance(v, int) and not isinstance(v, bool)) if isinstance(value, list) else ()


def _dicts(value: Any) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def to_dict(record: Any) -> dict:
    """A record as JSON-ready data, with the schema version."""
    data = dataclasses.asdict(record)
    data["schema_version"] = RECORD_SCHEMA
    return data


@dataclass(frozen=True)
class Timing:
    """CUDA-event timings of one implementation on one config (milliseconds) and its rate."""

    median_ms: float
    p10_ms: float
    p90_ms: float
    min_ms: float
    iters: int
    tflops: float

    @classmethod
    def from_dict(cls, data: Any) -> "Timing | None":
        if not isinstance(data, dict) or _num(data.get("median_ms")) is None:
            return None
        return cls(median_ms=_num(data.get("median_ms")) or 0.0, p10_ms=_num(data.get("p10_ms")) or 0.0,
                   p90_ms=_num(data.get("p90_ms")) or 0.0, min_ms=_num(data.get("min_ms")) or 0.0,
                   iters=_int(data.get("iters")), tflops=_num(data.get("tflops")) or 0.0)


# The bench's baseline names, declared once (the CLI, the bench, the scenario schema read them):
SDPA_BASELINES = ("cudnn", "flash", "efficient", "math")  # torch SDPA backends (bench/job.py)
FEATURE_BASELINES = ("sdpa-mask", "flex")  # baselines that mask window/sink/top-k (bench/feature_baselines.py)
PEER_BASELINES = ("fa4", "flashinfer")  # bench baselines that are other libraries (fmhactl/bench/peers.py)
KNOWN_BASELINES = (*SDPA_BASELINES, *FEATURE_BASELINES, *PEER_BASELINES)


@dataclass(frozen=True)
class BaselineTiming:
    """A baseline timed in the same run (a torch SDPA backend or a peer library); ratio = our
    TFLOP/s / its TFLOP/s."""

    name: str
    available: bool
    reason: str = ""
    timing: Timing | None = None
    ratio: float | None = None

    @property
    def label(self) -> str:
        """Its name in tables and plots: a peer library by its own, a torch backend as sdpa/NAME."""
        return self.name if self.name in PEER_BASELINES else f"sdpa/{self.name}"


@dataclass(frozen=True)
class BenchMetrics:
    kernel: Timing | None
    baselines: tuple[BaselineTiming, ...] = ()
    input_sets: int = 0
    note: str = ""
    error: str = ""

    @classmethod
    def from_dict(cls, m: dict) -> "BenchMetrics":
        baselines = []
        raw = m.get("baselines") if isinstance(m.get("baselines"), dict) else {}
        for name, b in raw.items():
            if not isinstance(b, dict):
                continue
            baselines.append(BaselineTiming(name=str(name), available=bool(b.get("available")),
                                            reason=_str(b.get("reason")), timing=Timing.from_dict(b),
                                            ratio=_num(b.get("ratio"))))
        return cls(kernel=Timing.from_dict(m.get("kernel")), baselines=tuple(baselines),
                   input_sets=_int(m.get("input_sets")), note=_str(m.get("note")), error=_str(m.get("error")))

    def baseline(self, name: str) -> BaselineTiming | None:
        return next((b for b in self.baselines if b.name == name), None)


@dataclass(frozen=True)
class VerifyMetrics:
    """One config checked against the reference: errors are absolute, in output units."""

    max_abs_err: float | None = None
    tolerance: float | None = None
    cosine: float | None = None
    max_err_at_bhtd: tuple[int, ...] = ()
    lse_max_err: float | None = None
    lse_tolerance: float | None = None
    unwritten: int = 0
    failing_elements: int = 0
    reasons: tuple[str, ...] = ()
    error_map: str = ""
    violations: tuple[str, ...] = ()
    input_layout: str = ""
    reason: str = ""  # why UNSUPPORTED
    error: str = ""  # CRASH/HANG/ERROR text

    @classmethod
    def from_dict(cls, m: dict) -> "VerifyMetrics":
        return cls(max_abs_err=_num(m.get("max_abs_err")), tolerance=_num(m.get("tolerance")),
                   cosine=_num(m.get("cosine")),
                   max_err_at_bhtd=_ints(m.get("max_err_at")),
                   lse_max_err=_num(m.get("lse_max_err")), lse_tolerance=_num(m.get("lse_tolerance")),
                   unwritten=_int(m.get("unwritten")), failing_elements=_int(m.get("failing_elements")),
                   reasons=_strs(m.get("reasons")), error_map=_str(m.get("error_map")),
                   violations=_strs(m.get("violations")), input_layout=_str(m.get("layout")),
                   reason=_str(m.get("reason")), error=_str(m.get("error")))


@dataclass(frozen=True)
class RunMetrics:
    """One launch without a reference: did it finish and write every element?"""

    elapsed_ms: float | None = None
    unwritten: int = 0
    lse_unwritten: int = 0
    nan_count: int = 0
    out_abs_max: float | None = None
    error: str = ""

    @classmethod
    def from_dict(cls, m: dict) -> "RunMetrics":
        return cls(elapsed_ms=_num(m.get("elapsed_ms")), unwritten=_int(m.get("unwritten")),
                   lse_unwritten=_int(m.get("lse_unwritten")), nan_count=_int(m.get("nan")),
                   out_abs_max=_num(m.get("out_abs_max")), error=_str(m.get("error") or m.get("reason")))


@dataclass(frozen=True)
class DumpMetrics:
    """A checkpoint compared with its expected value (TMEM lanes/columns or SMEM bytes)."""

    elements: int | None = None
    mismatches: int | None = None
    max_abs_err: float | None = None
    first_lane: int | None = None
    first_column: int | None = None
    got: float | None = None
    want: float | None = None
    rows_with_errors: tuple[int, ...] = ()
    window: tuple[tuple[str, ...], ...] = ()
    first_byte: int | None = None
    first_element: str = ""
    got_bits: int | None = None
    want_bits: int | None = None
    error: str = ""

    @classmethod
    def from_dict(cls, m: dict) -> "DumpMetrics":
        def opt_int(key: str) -> int | None:
            return _int(m[key]) if isinstance(m.get(key), int) else None

        window = m.get("window") if isinstance(m.get("window"), list) else []
        return cls(elements=opt_int("elements"), mismatches=opt_int("mismatches"),
                   max_abs_err=_num(m.get("max_abs_err")), first_lane=opt_int("first_lane"),
                   first_column=opt_int("first_column"), got=_num(m.get("got")), want=_num(m.get("want")),
                   rows_with_errors=_ints(m.get("rows_with_errors")),
                   window=tuple(tuple(str(c) for c in line) for line in window if isinstance(line, list)),
                   first_byte=opt_int("first_byte"), first_element=_str(m.get("first_element")),
                   got_bits=opt_int("got_bits"), want_bits=opt_int("want_bits"),
                   error=_str(m.get("error") or m.get("reason")))


@dataclass(frozen=True)
class ProfileSummary:
    """The numbers an ncu report gives one launch; None where the report lacks the metric."""

    kernel: str = ""
    duration_us: float | None = None
    tflops: float | None = None
    tensor_peak_tflops: float | None = None
    pct_of_tensor_peak: float | None = None
    dram_pct: float | None = None
    dram_bytes: float | None = None
    dram_gbs: float | None = None
    dram_peak_gbs: float | None = None
    arith_intensity_flop_per_byte: float | None = None
    sm_clock_mhz: float | None = None
    registers_per_thread: float | None = None
    occupancy_achieved_pct: float | None = None
    smem_bank_conflicts_ld: float | None = None
    top_stalls: tuple[tuple[str, float], ...] = ()
    gpu: str = ""

    @classmethod
    def from_dict(cls, s: Any) -> "ProfileSummary":
        s = s if isinstance(s, dict) else {}
        pairs = s.get("top_stalls") if isinstance(s.get("top_stalls"), list) else []
        stalls = tuple((str(p[0]), _num(p[1]) or 0.0) for p in pairs
                       if isinstance(p, (list, tuple)) and len(p) == 2 and _num(p[1]) is not None)
        return cls(kernel=_str(s.get("kernel")), duration_us=_num(s.get("duration_us")), tflops=_num(s.get("tflops")),
                   tensor_peak_tflops=_num(s.get("tensor_peak_tflops")),
                   pct_of_tensor_peak=_num(s.get("pct_of_tensor_peak")), dram_pct=_num(s.get("dram_pct")),
                   dram_bytes=_num(s.get("dram_bytes")), dram_gbs=_num(s.get("dram_gbs")),
                   dram_peak_gbs=_num(s.get("dram_peak_gbs")),
                   arith_intensity_flop_per_byte=_num(s.get("arith_intensity")),
                   sm_clock_mhz=_num(s.get("sm_clock_mhz")),
                   registers_per_thread=_num(s.get("registers_per_thread")),
                   occupancy_achieved_pct=_num(s.get("occupancy_achieved_pct")),
                   smem_bank_conflicts_ld=_num(s.get("smem_bank_conflicts_ld")), top_stalls=stalls,
                   gpu=_str(s.get("gpu")))


@dataclass(frozen=True)
class ProfileMetrics:
    summary: ProfileSummary
    recipe: str = ""
    report_path: str = ""
    log_path: str = ""
    filter: str = ""
    nvtx_include: str = ""
    clock_control: str = ""
    notes: tuple[str, ...] = ()
    error: str = ""

    @classmethod
    def from_dict(cls, m: dict) -> "ProfileMetrics":
        return cls(summary=ProfileSummary.from_dict(m.get("summary")), recipe=_str(m.get("recipe")),
                   report_path=_str(m.get("report")), log_path=_str(m.get("log")), filter=_str(m.get("filter")),
                   nvtx_include=_str(m.get("nvtx_include")), clock_control=_str(m.get("clock_control")),
                   notes=_strs(m.get("notes")), error=_str(m.get("error")))


@dataclass(frozen=True)
class KernelBuildFacts:
    kernel: str
    registers: int = 0
    static_smem_bytes: int = 0
    stack_bytes: int = 0
    spill_bytes: int = 0


@dataclass(frozen=True)
class BuildMetrics:
    kernels: tuple[KernelBuildFacts, ...] = ()
    compile_seconds: float | None = None
    cache_hit: bool = False
    emulated: bool = False
    error: str = ""

    @classmethod
    def from_dict(cls, m: dict) -> "BuildMetrics":
        kernels = tuple(KernelBuildFacts(kernel=_str(k.get("kernel")), registers=_int(k.get("registers")),
                                         static_smem_bytes=_int(k.get("static_smem")),
                                         stack_bytes=_int(k.get("stack_bytes")),
                                         spill_bytes=_int(k.get("spill_stores")) + _int(k.get("spill_loads")))
                        for k in _dicts(m.get("kernels")))
        return cls(kernels=kernels, compile_seconds=_num(m.get("compile_seconds")),
                   cache_hit=bool(m.get("cache_hit")), emulated=bool(m.get("emulated")), error=_str(m.get("error")))

    @property
    def max_registers(self) -> int:
        return max((k.registers for k in self.kernels), default=0)


Metrics = BenchMetrics | VerifyMetrics | RunMetrics | DumpMetrics | ProfileMetrics | BuildMetrics

_BY_KIND: dict[str, Any] = {"bench": BenchMetrics, "verify": VerifyMetrics, "run": RunMetrics,
                            "dump": DumpMetrics, "profile": ProfileMetrics, "build": BuildMetrics}


def metrics_of(kind: str, metrics: dict) -> Metrics:
    """The typed view of a stored row's metrics for its kind."""
    cls = _BY_KIND.get(kind, RunMetrics)
    return cls.from_dict(metrics if isinstance(metrics, dict) else {})


def summary_text(kind: str, metrics: dict) -> str:
    """One short human summary of a stored row (the results table's last column)."""
    m = metrics_of(kind, metrics)
    if isinstance(m, VerifyMetrics) and m.max_abs_err is not None:
        return f"err {m.max_abs_err:.1e} cos {m.cosine or 0:.6f}"
    if isinstance(m, BenchMetrics) and m.kernel is not None:
        return f"{m.kernel.tflops:.1f} TFLOP/s"
    if isinstance(m, BuildMetrics) and m.kernels:
        return f"{m.max_registers} regs{' (cache)' if m.cache_hit else ''}"
    if isinstance(m, ProfileMetrics) and m.summary.duration_us is not None:
        return f"{m.summary.duration_us:.1f} us, {m.summary.tflops or 0:.1f} TFLOP/s"
    text = getattr(m, "reason", "") or getattr(m, "error", "")
    return text[:60]


@dataclass
class ProgressEvent:
    """One unit of work finished (or started): a config, a variant, an ncu pass, a scenario step."""

    unit: str  # "config" | "variant" | "ncu-pass" | "step" | "build"
    done: int
    total: int
    message: str = ""
    record: Any = None  # the row or result the unit produced, when there is one
    extra: dict = field(default_factory=dict)
