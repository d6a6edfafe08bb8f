"""`fmhactl trace`: record an emulated launch's events (GPU) and model them as a B200 timeline (CPU).

record_trace() runs one strict-emulated launch in the isolated worker with tracing on and returns
the raw event bytes; model_trace() is pure CPU (it is what the tests exercise with hand-built
event arrays) and turns raw events into schedules, a Chrome trace and summaries.
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput, ExitCode, FmhactlError, MissingEnvironment
from fmhactl.ptx.sites import Site
from fmhactl.schemas import read_capped
from fmhactl.trace import cost_model as cm
from fmhactl.trace.chrome import to_chrome
from fmhactl.trace.events import decode, events_from_bytes, warp_roles
from fmhactl.trace.schedule import Geometry, replay
from fmhactl.trace.summary import anchor_check, render, summarize

KERNEL_SOURCE = "sm100/fmha_sm100.cuh"  # the file whose __builtin_LINE() sites the events carry
MAX_CTAS = 32           # traced CTAs: every one is modeled and drawn
MAX_SEQ_K = 65536
TRACE_CAPACITY = 1 << 20  # events (32 MiB of device memory)
MAX_TIMEOUT_S = timedelta(weeks=1).total_seconds()  # as every other command's --timeout


@dataclass
class TraceResult:
    variant: str
    config: AttnConfig
    chrome: dict
    summaries: list[dict]
    raw_events: int
    ptx_sites: list[dict] = field(default_factory=list)  # --emulate native: each PTX line and its .loc chain

    def to_dict(self) -> dict:
        return {"label": cm.MODEL_LABEL, "variant": self.variant, "config": self.config.key,
                "raw_events": self.raw_events, "ctas": len(self.summaries),
                "summary": self.summaries[0] if self.summaries else None, "per_cta": self.summaries,
                "cost_model": cm.table_rows(), "site_kind": "ptx" if self.ptx_sites else "source",
                "ptx_sites": self.ptx_sites}

    def lines(self) -> list[str]:
        out = render(self.summaries[0], self.variant) if self.summaries else [f"{self.variant}: no CTA traced"]
        if self.ptx_sites:
            out.append(f"  sites: {len(self.ptx_sites)} PTX lines of the native sm_100a module (--emulate native), "
                       f"named by their .loc lines in {KERNEL_SOURCE}, e.g. {self.ptx_sites[0]['name']}")
        return out


def kernel_source_text() -> str:
    from fmhactl.paths import kernels_dir

    path = kernels_dir() / KERNEL_SOURCE
    if not path.is_file():
        raise MissingEnvironment(f"kernel source {path} not found: cannot name barriers and warp roles")
    return path.read_text()


def geometry_for(variant_name: str, cfg: AttnConfig) -> Geometry:
    from fmhactl.plans.sm100 import barrier_roles, entry_head_dim, plan_from_switches
    from fmhactl.registry import get_variant

    variant = get_variant(variant_name)
    if variant.launcher != "sm100":
        raise BadInput(f"variant {variant_name}: fmhactl trace models SM100 variants only (launcher "
                       f"{variant.launcher!r}, want 'sm100')")
    plan = plan_from_switches(cfg.head_dim, variant.switches)
    poly = int(variant.switches.get("FMHA_EXP2_POLY", 0))
    return Geometry(plan.block_m, plan.block_n, plan.d_part, plan.col_s, plan.col_o, entry_head_dim(cfg.head_dim),
                    exp2_poly_fraction=poly / 4.0, ctas_per_sm=plan.ctas_per_sm,
                    barrier_roles=barrier_roles(plan.stages))


def check_shape(cfg: AttnConfig) -> None:
    from fmhactl.plans.sm100 import BLOCK_M

    ctas = cfg.batch * cfg.heads * math.ceil(cfg.seq_q / BLOCK_M)
    if ctas > MAX_CTAS:
        raise BadInput(f"--shape {cfg.key}: {ctas} CTAs; fmhactl trace models at most {MAX_CTAS} "
                       "(use small b, h and t: the timeline is per CTA)")
    if cfg.seq_k > MAX_SEQ_K:
        raise BadInput(f"--shape {cfg.key}: s={cfg.seq_k} > {MAX_SEQ_K} keys is too long to trace")


def model_trace(variant: str, cfg: AttnConfig, raw: bytes, geo: Geometry, source_text: str,
                sites: dict[int, Site] | None = None) -> TraceResult:
    """Raw Tc5TraceEvent bytes -> schedules, Chrome JSON and summaries (CPU only). With `sites` (a
    PTX-path recording, whose sites are PTX lines) each site is renamed to its kernel source line."""
    events = events_from_bytes(raw)
    if not events:
        raise FmhactlError(f"{variant} {cfg.key}: the launch recorded no trace events (was it a strict "
                           "emulated build?)", ExitCode.MISSING_ENV)
    ptx_sites: list[dict] = []
    if sites is not None:
        events, ptx_sites = _kernel_line_sites(events, sites)
    roles = warp_roles(source_text)
    ctas = decode(events, source_text.splitlines(), geo.barrier_roles)
    schedules, summaries = [], []
    fallback_tiles = math.ceil(cfg.seq_k / geo.block_n)
    for cta in ctas:
        sched = replay(cta, geo, roles)
        tiles = len(sched.tile_marks) or fallback_tiles
        summary = summarize(sched, geo, tiles)
        summary["anchor"] = anchor_check(geo.head_dim, cfg.causal, summary["projection"]["tflops"])
        schedules.append(sched)
        summaries.append(summary)
    chrome = to_chrome(schedules, {"variant": variant, "shape": cfg.key, "clock_ghz": cm.value("clock_ghz")})
    return TraceResult(variant, cfg, chrome, summaries, len(events), ptx_sites)


def _kernel_line_sites(events: list, sites: dict[int, Site]) -> tuple[list, list[dict]]:
    """Events with each PTX-line site replaced by its line in the kernel source (0: none), and the
    table of the PTX lines seen, for the report."""
    import dataclasses

    table = {}
    out = []
    for e in events:
        ptx = sites.get(e.site)
        line = (ptx.line_in(KERNEL_SOURCE) or 0) if ptx else 0
        if ptx and e.site not in table:
            table[e.site] = {**ptx.to_dict(), "kernel_line": line, "name": str(ptx)}
        out.append(dataclasses.replace(e, site=line))
    return out, [table[k] for k in sorted(table)]


def ptx_sites(variant_name: str, raw: bytes) -> dict[int, Site]:
    """Each site of a PTX-path recording (a line of the variant's native PTX) with its .loc chain.
    The native PTX is compiled again (NVRTC, CPU): the same options give the PTX the build ran."""
    from fmhactl.ptx import parser
    from fmhactl.ptx.build import native_ptx
    from fmhactl.ptx.sites import site
    from fmhactl.registry import get_variant

    module = parser.parse(native_ptx(get_variant(variant_name)), variant_name)
    return {line: site(module, line) for line in sorted({e.site for e in events_from_bytes(raw)})}


def record_trace(variant_name: str, cfg: AttnConfig, *, timeout_s: float, seed: int | None) -> bytes:
    """One strict-emulated launch with tracing on; the raw events (GPU, in the worker)."""
    from fmhactl.registry import get_variant
    from fmhactl.results.store import ResultStore
    from fmhactl.runtime.jobs import require_supported
    from fmhactl.runtime.single import run_single

    check_shape(cfg)
    variant = get_variant(variant_name)
    require_supported(variant, [cfg])
    with tempfile.TemporaryDirectory(prefix="fmhactl-trace-") as tmp:
        out = Path(tmp) / "events.bin"
        with ResultStore() as store:
            row = run_single("run", variant, cfg, store=store, timeout_s=timeout_s, seed=seed,
                             trace_out=str(out), trace_capacity=TRACE_CAPACITY)
        if row.mode != "emulated" or row.metrics.get("emulation") != "strict":
            raise MissingEnvironment(f"{variant_name}: tracing needs the strict emulator (ran {row.mode} "
                                     f"{row.metrics.get('emulation', '')}); an sm_90 GPU runs SM100 variants emulated")
        if row.status not in ("OK", "PASS"):
            raise FmhactlError(f"{variant_name} {cfg.key}: the traced launch failed ({row.status}): "
                               f"{row.metrics.get('error', '')}", ExitCode.VERIFY_FAILED)
        dropped = int(row.metrics.get("trace_dropped", 0))
        if dropped:
            raise BadInput(f"{variant_name} {cfg.key}: {dropped} trace events did not fit the {TRACE_CAPACITY}-event "
                           "buffer; trace a smaller shape")
        if not out.is_file():
            raise MissingEnvironment(f"{variant_name}: the worker wrote no trace file")
        return out.read_bytes()


MAX_RAW_BYTES = TRACE_CAPACITY * 32  # the most events one traced launch can record


def read_raw(path: Path) -> bytes:
    """A raw event file (--raw): BadInput naming the path when it is missing, a folder, unreadable,
    too big or not a whole number of events."""
    from fmhactl.trace.events import RAW_SIZE

    try:
        if path.is_dir():
            raise BadInput(f"--raw {path}: is a folder, a raw event file is needed")
        size = path.stat().st_size
        if size > MAX_RAW_BYTES:
            raise BadInput(f"--raw {path}: {size} bytes, more than the {MAX_RAW_BYTES} one traced launch records")
        data = read_capped(path, MAX_RAW_BYTES)  # stat says 0 for a device: the read is what is capped
    except FileNotFoundError:
        raise BadInput(f"--raw {path}: no such file") from None
    except OSError as exc:
        raise BadInput(f"--raw {path}: cannot be read ({exc.strerror or exc})") from None
    if data is None:
        raise BadInput(f"--raw {path}: more than the {MAX_RAW_BYTES} bytes one traced launch records")
    if data[:2] == b"\x1f\x8b":  # a gzipped recording (docs/trace/*.raw.gz: committed recordings)
        data = _gunzip(path, data)
    if not data or len(data) % RAW_SIZE:
        raise BadInput(f"--raw {path}: {len(data)} bytes is not a whole, non-zero number of {RAW_SIZE}-byte events")
    from fmhactl.trace.events import events_from_bytes

    try:
        events_from_bytes(data)  # every event of a known kind, checked here where the file can be named
    except BadInput as exc:
        raise BadInput(f"--raw {path}: {exc}") from None
    return data


def _gunzip(path: Path, data: bytes) -> bytes:
    import gzip
    import io
    import zlib

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as unpacked:
            out = unpacked.read(MAX_RAW_BYTES + 1)  # never more than one launch can record
    except (OSError, EOFError, zlib.error) as exc:
        raise BadInput(f"--raw {path}: a damaged gzip file ({exc})") from None
    if len(out) > MAX_RAW_BYTES:
        raise BadInput(f"--raw {path}: unpacks to more than the {MAX_RAW_BYTES} bytes one traced launch records")
    return out


def trace_variant(variant_name: str, cfg: AttnConfig, *, timeout_s: float = 120.0,
                  seed: int | None = None, raw_out: Path | None = None) -> TraceResult:
    """One traced launch of the tc5:: strict build, or under `--emulate native` (FMHACTL_EMULATE) of
    the PTX path's strict build, whose sites are PTX lines (named by their .loc chain)."""
    from fmhactl.build.compiler import native_ptx_requested

    from fmhactl.runtime.device import require_gpu
    from fmhactl.schemas import finite_positive, int_in_range

    geo = geometry_for(variant_name, cfg)
    check_shape(cfg)
    finite_positive(timeout_s, "--timeout", maximum=MAX_TIMEOUT_S)
    if seed is not None:
        int_in_range(seed, "--seed", 0, 2**62)
    source = kernel_source_text()
    require_gpu()  # every input checked above; the worker starts only on a machine with a GPU
    raw = record_trace(variant_name, cfg, timeout_s=timeout_s, seed=seed)
    if raw_out is not None:
        from fmhactl.paths import create_parent

        create_parent(raw_out, "--save-raw").write_bytes(raw)
    return model_trace(variant_name, cfg, raw, geo, source,
                       ptx_sites(variant_name, raw) if native_ptx_requested() else None)
