"""The TUI's adapter over fmhactl.services: what the screens share (the option vocabularies, the
integer and "A,B" parsers, colours and problem lines), the results and milestones browsers, the GPU
status line, and running verify/bench as a job with progress and cancel.

The layout, TMA and dump screens build their views in fmhactl/tui/views/ from the same services and
the same words (fmhactl.present) as the CLI. Nothing here or there imports below the services
(tests/test_layering.py). Functions take plain values (what a form holds) and raise `FmhactlError`
(usually `BadInput`) with a one-line message for bad input.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fmhactl.errors import BadInput, FmhactlError, MissingEnvironment
from fmhactl.progress import ProgressEvent
from fmhactl.services.device import DeviceStatus
from fmhactl.services.layout_views import Problem

__all__ = ["BadInput", "FmhactlError", "MissingEnvironment", "Problem"]

TMEM_SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
TMEM_NUMS = (1, 2, 4, 8, 16, 32, 64, 128)
SWIZZLES = ("none", "32B", "64B", "128B", "128B_base32B")
MAJORS = ("K", "MN")
SMEM_DTYPES = ("bf16", "f16", "tf32", "f32", "e4m3")
DESCRIPTOR_KINDS = ("idesc", "smem", "wgmma")


def parse_int(text: str | int, what: str) -> int:
    from fmhactl.services.layout_views import parse_int as _parse

    return _parse(text, what)


def parse_pair(text: str, what: str) -> tuple[int, int]:
    """"A,B" (the CLI's parser, fmhactl.layout.common.parse_int_list)."""
    from fmhactl.services.layout_views import parse_int_list

    first, second = parse_int_list(text, what, count=2)
    return first, second


def in_range(value: int, lo: int, hi: int, what: str) -> int:
    if not lo <= value <= hi:
        raise BadInput(f"{what} must be {lo}..{hi}; got {value}")
    return value


def key_colour(key: int, n_keys: int) -> str:
    """The colour the CLI's pictures give a key (thread, bank group, warp), so both agree."""
    from fmhactl.present.render import colour

    return colour(key, n_keys)


def problem_lines(problems: list[Problem]) -> list[tuple[str, str]]:
    """(severity, 'code: message') per problem, as the CLI prints them."""
    return [(p.severity, f"{p.code}: {p.message}") for p in problems]


# --------------------------------------------------------------------------------------------
# Results, milestones, and running verify / bench
# --------------------------------------------------------------------------------------------

RESULT_COLUMNS = ("id", "date", "kind", "variant", "status", "mode", "arch", "config", "summary")
FILTER_KEYS = ("kind", "variant", "status", "mode", "grid", "since", "until", "config")


@dataclass(frozen=True)
class ResultLine:
    id: int
    cells: tuple[str, ...]
    variant: str
    config_key: str
    details: tuple[str, ...]


def parse_filter(text: str) -> dict[str, str]:
    """`kind=verify status=fail since=2026-11-23 ref` -> {"kind": "verify", "status": "fail", ..., "text": "ref"}."""
    out: dict[str, str] = {}
    words = []
    for part in text.split():
        if "=" in part:
            key, value = part.split("=", 1)
            key = key.strip().lower()
            if key not in FILTER_KEYS:
                raise BadInput(f"unknown filter {key!r} (one of {', '.join(FILTER_KEYS)}, or free text)")
            if not value.strip():
                raise BadInput(f"filter {key}= needs a value")
            out[key] = value.strip()
        else:
            words.append(part)
    if words:
        out["text"] = " ".join(words)
    return out


def _summary(r: Any) -> str:
    m = r.metrics
    if r.kind == "verify" and isinstance(m.get("max_abs_err"), (int, float)):
        cos = m.get("cosine")
        return f"err {m['max_abs_err']:.1e}" + (f" cos {cos:.6f}" if isinstance(cos, (int, float)) else "")
    if r.kind == "bench" and r.status == "OK" and isinstance(m.get("kernel"), dict) and "tflops" in m["kernel"]:
        return f"{m['kernel']['tflops']:.1f} TFLOP/s"  # a HANG/CRASH row may keep a timing: its error goes first
    return str(m.get("reason") or m.get("error") or "")[:60]


def _details(r: Any) -> tuple[str, ...]:
    import datetime

    m = r.metrics
    out = [f"#{r.id} {r.kind} {r.variant} {r.status} [{r.mode or '-'} {r.arch or '-'}] {r.config_key}",
           f"recorded {datetime.datetime.fromtimestamp(r.created_at):%Y-%m-%d %H:%M:%S}, session {r.session}, "
           f"seed {r.seed}, gpu {r.gpu or '-'}, sources {r.source_hash[:12] or '-'}"]
    for key, label in (("max_abs_err", "max |err|"), ("cosine", "cosine"), ("lse_max_err", "LSE max |err|")):
        if isinstance(m.get(key), (int, float)):
            out.append(f"{label}: {m[key]:.6g}")
    kernel = m.get("kernel")
    if isinstance(kernel, dict) and "tflops" in kernel:
        out.append(f"kernel: {kernel['tflops']:.2f} TFLOP/s, median {kernel.get('median_ms', 0):.4f} ms")
    baselines = m.get("baselines")
    items = baselines.items() if isinstance(baselines, dict) else (
        ((b.get("name", "?"), b) for b in baselines if isinstance(b, dict)) if isinstance(baselines, list) else ())
    for name, b in items:
        timing = b.get("timing") if isinstance(b.get("timing"), dict) else b
        if isinstance(timing, dict) and "tflops" in timing:
            out.append(f"baseline {name}: {timing['tflops']:.2f} TFLOP/s")
    if isinstance(m.get("error_map"), str) and m["error_map"]:
        out.append("error map:")
        out.extend(m["error_map"].splitlines())
    for key in ("reason", "error", "note"):
        if m.get(key):
            out.append(f"{key}: {m[key]}")
    return tuple(out)


def query_results(filter_text: str = "", limit: int = 500, db: Path | None = None) -> list[ResultLine]:
    """Rows of the results store matching the filter, newest first (services.results.query)."""
    import datetime

    from fmhactl.services.results import ResultStore
    from fmhactl.services import results as svc

    flt = parse_filter(filter_text)
    query = svc.ResultsFilter(kind=flt.get("kind"), variant=flt.get("variant"), status=flt.get("status"),
                              mode=flt.get("mode"), grid=flt.get("grid"), since=flt.get("since"),
                              until=flt.get("until"), limit=limit)
    if db is None:
        rows = svc.query(query)
    else:
        with ResultStore(Path(db)) as store:
            rows = svc.query(query, store=store)
    out = []
    for r in rows:
        date = datetime.datetime.fromtimestamp(r.created_at).strftime("%m-%d %H:%M")
        cells = (str(r.id), date, r.kind, r.variant, r.status, r.mode, r.arch, r.config_key, _summary(r))
        if "config" in flt and flt["config"] not in r.config_key:
            continue
        if "text" in flt and flt["text"].lower() not in " ".join(cells).lower():
            continue
        out.append(ResultLine(int(r.id or 0), cells, r.variant, r.config_key, _details(r)))
    return out


def grid_names() -> list[str]:
    from fmhactl.services.kernels import available_grids

    return available_grids()


@dataclass(frozen=True)
class MilestoneLine:
    id: str
    state: str
    title: str
    detail: str
    stale: bool


def milestone_lines(db: Path | None = None) -> list[MilestoneLine]:
    """Each milestone with its state and, per mode, what is stale (the status service, nothing written)."""
    from fmhactl.services.results import ResultStore
    from fmhactl.services.status import run_status

    if db is None:
        from fmhactl import services

        report = services.status(check=True, evidence_only=False)  # what `fmhactl status` shows: local store + evidence
    else:
        with ResultStore(Path(db)) as store:
            report = run_status(write=False, store=store)
    out = []
    for s in report.statuses:
        modes = "; ".join(f"{m.mode}: {m.state} {m.passed}/{m.required}" for m in s.modes if m.required)
        stale = [x for m in s.modes for x in m.stale]
        detail = s.reason or modes or "no results yet"
        if stale:
            detail += " | stale: " + stale[0] + (f" (+{len(stale) - 1})" if len(stale) > 1 else "")
        out.append(MilestoneLine(s.milestone.id, s.state, s.milestone.title, detail, bool(stale)))
    return out


_GPU: DeviceStatus | None = None


def gpu_status() -> DeviceStatus:
    """Is there a GPU to run verify/bench on (the one probe; FMHACTL_ASSUME_NO_GPU=1 answers no)?
    Cached for the session; `reason` is the CLI's one message when there is none."""
    global _GPU
    if _GPU is None:
        from fmhactl.services.device import gpu_missing_message, gpu_status as probe

        st = probe()
        _GPU = replace(st, reason="" if st.available else gpu_missing_message(st))
    return _GPU


def run_job(kind: str, variant: str, grid: str, *, progress: Callable[[ProgressEvent], None],
            cancelled: Callable[[], bool]) -> str:
    """Verify or bench `variant` over `grid` through the services, one progress event per config;
    stops after the current config once `cancelled()` is true. Returns the closing line."""
    from fmhactl import services
    from fmhactl.errors import Cancelled
    from fmhactl.progress import CancelToken
    from fmhactl.services.kernels import load_grid

    if kind not in ("verify", "bench"):
        raise BadInput(f"unknown job {kind!r} (verify or bench)")
    configs = list(load_grid(grid).configs)
    token = CancelToken()
    progress(ProgressEvent("config", 0, len(configs), f"{kind} {variant} over grid {grid}: {len(configs)} config(s)"))
    done = 0

    def relay(event: Any) -> None:
        nonlocal done
        done = event.done
        row = event.record
        line = f"{row.status} {row.config_key} {_summary(row)}" if row is not None and hasattr(row, "status") \
            else event.message
        progress(ProgressEvent("config", event.done, event.total or len(configs), line))
        if cancelled():
            token.cancel()

    try:
        if kind == "verify":
            return services.verify([variant], grid=grid, progress=relay, cancel=token).closing_line()
        outcome = services.bench(variant, [c.shape_text() for c in configs], progress=relay, cancel=token)
        return f"{len(outcome.rows)} config(s) benchmarked"
    except Cancelled:
        return f"cancelled after {done} of {len(configs)} config(s); finished ones are stored"


def json_dumps(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, default=str)
