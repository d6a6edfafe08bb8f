"""Reading a `.ncu-rep`: the `ncu_report` module that ships with Nsight Compute (or PyPI
`ncu-report`), and `ncu --import ... --page raw --csv` as the fallback; then the summary a
kernel engineer reads (duration, TFLOP/s and % of the tensor peak, DRAM, bank conflicts,
registers, occupancy, top stall reasons)."""

from __future__ import annotations

import csv
import glob
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl.errors import MissingEnvironment

# Dense BF16/F16 tensor-core FLOP per SM per clock, by compute-capability major.
# A100 312 TFLOP/s = 108 SM x 1.41 GHz x 2048; H100 SXM 989 = 132 x 1.83 GHz x 4096;
# B200 2.25 PFLOP/s = 148 x ~1.85 GHz x 8192.
TENSOR_FLOP_PER_CLK_PER_SM = {8: 2048, 9: 4096, 10: 8192}

_NCU_GLOBS = ("/opt/nvidia/nsight-compute/*/ncu", "/usr/local/cuda/bin/ncu", "/usr/local/cuda-*/bin/ncu")


def find_ncu() -> str:
    """The ncu binary: $FMHACTL_NCU, then PATH, then the usual install folders."""
    env = os.environ.get("FMHACTL_NCU")
    if env:
        if Path(env).is_file() and os.access(env, os.X_OK):
            return env
        raise MissingEnvironment(f"FMHACTL_NCU={env} is not an executable")
    found = shutil.which("ncu")
    if found:
        return found
    for pattern in _NCU_GLOBS:
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    raise MissingEnvironment("ncu (Nsight Compute) not found: install it or set FMHACTL_NCU")


def _ncu_python_dirs(ncu: str | None) -> list[str]:
    dirs: list[str] = []
    if ncu:
        real = Path(ncu).resolve()
        for base in (real.parent, real.parent.parent):
            dirs.append(str(base / "extras" / "python"))
    dirs += sorted(glob.glob("/opt/nvidia/nsight-compute/*/extras/python"), reverse=True)
    return [d for d in dirs if Path(d, "ncu_report.py").is_file()]


def import_ncu_report(ncu: str | None = None):
    """The ncu_report module, or None when neither the wheel nor the ncu copy is importable."""
    try:
        import ncu_report  # type: ignore[import-not-found]
        return ncu_report
    except ImportError:
        pass
    for folder in _ncu_python_dirs(ncu):
        if folder not in sys.path:
            sys.path.append(folder)
        try:
            import ncu_report  # type: ignore[import-not-found]
            return ncu_report
        except ImportError:
            continue
    return None


@dataclass
class Action:
    """One profiled kernel launch: its name, metric values and units."""
    name: str
    metrics: dict[str, object] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)


def _metric_value(metric):
    for getter in ("value",):
        try:
            value = getattr(metric, getter)()
        except Exception:  # noqa: BLE001 - some metric kinds do not convert
            continue
        if isinstance(value, (int, float, str)) or value is None:
            return value
    try:
        return metric.as_double()
    except Exception:  # noqa: BLE001
        return None


def parse_with_module(module, report: Path) -> list[Action]:
    ctx = module.load_report(str(report))
    actions: list[Action] = []
    for i in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(i)
        for j in range(rng.num_actions()):
            act = rng.action_by_idx(j)
            try:
                name = act.name()
            except Exception:  # noqa: BLE001
                name = "?"
            out = Action(name=str(name))
            for metric_name in act.metric_names():
                metric = act.metric_by_name(metric_name)
                value = _metric_value(metric)
                if isinstance(value, str) and len(value) > 200:
                    value = value[:200]
                out.metrics[metric_name] = value
                try:
                    unit = metric.unit()
                except Exception:  # noqa: BLE001
                    unit = ""
                if unit:
                    out.units[metric_name] = str(unit)
            actions.append(out)
    return actions


_NUMBER = re.compile(r"^-?[\d,]*\.?\d+(e[-+]?\d+)?$", re.IGNORECASE)


def _csv_value(text: str):
    text = text.strip()
    if _NUMBER.match(text):
        cleaned = text.replace(",", "")
        try:
            return int(cleaned) if re.fullmatch(r"-?\d+", cleaned) else float(cleaned)
        except ValueError:
            return text
    return text


def parse_raw_csv(text: str) -> list[Action]:
    """`ncu --import R --page raw --csv --print-units base`: header row, unit row, one row per kernel."""
    rows = [r for r in csv.reader(io.StringIO(text)) if r]
    # ncu may print ==PROF== / ==WARNING== lines before the table.
    while rows and not (rows[0] and rows[0][0] == "ID"):
        rows.pop(0)
    if len(rows) < 2:
        return []
    header, units = rows[0], rows[1]
    has_units = not (units and _NUMBER.match(units[0].strip() or "x"))
    data = rows[2:] if has_units else rows[1:]
    actions = []
    for row in data:
        record = dict(zip(header, row))
        act = Action(name=record.get("Kernel Name", "?"))
        for index, column in enumerate(header):
            if index >= len(row):
                break
            act.metrics[column] = _csv_value(row[index])
            if has_units and index < len(units) and units[index]:
                act.units[column] = units[index]
        actions.append(act)
    return actions


def parse_with_csv(ncu: str, report: Path) -> list[Action]:
    proc = subprocess.run([ncu, "--import", str(report), "--page", "raw", "--csv", "--print-units", "base"],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise MissingEnvironment(f"ncu --import failed: {(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
    return parse_raw_csv(proc.stdout)


def parse_in_child(report: Path, ncu: str | None) -> list[Action]:
    """Run parse_with_module in a child process: ncu_report is a native module that was seen to
    segfault inside a process that had imported torch (pytest on the H100), which no try/except
    survives."""
    import json

    command = [sys.executable, "-m", "fmhactl.profile.report", str(report)] + ([ncu] if ncu else [])
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        raise RuntimeError(f"ncu_report child failed: {last}")
    return [Action(a["name"], a["metrics"], a["units"]) for a in json.loads(proc.stdout)]


def parse_report(report: Path, ncu: str | None = None, *, prefer: str = "module") -> tuple[list[Action], str]:
    """The report's launches and which parser read them ('ncu_report' or 'csv')."""
    if prefer == "module" and import_ncu_report(ncu) is not None:
        try:
            return parse_in_child(report, ncu), "ncu_report"
        except Exception as exc:  # noqa: BLE001 - fall back to the CSV export
            if ncu is None:
                raise MissingEnvironment(f"ncu_report could not read {report}: {exc}") from None
    if ncu is None:
        raise MissingEnvironment("neither the ncu_report module nor ncu is available to read the report")
    return parse_with_csv(ncu, report), "csv"


# ---------------------------------------------------------------------------------------- summary

_TIME_SCALE = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
               "second": 1e9, "s": 1e9}
_STALL = re.compile(r"^smsp__average_warps_issue_stalled_(?P<reason>.+)_per_issue_active\.ratio$")
_STALL_ALT = re.compile(r"^smsp__average_warp_latency_issue_stalled_(?P<reason>.+)\.ratio$")
_TENSOR_PIPE = re.compile(r"^sm__(pipe_tensor|pipe_tc|inst_executed_pipe_tensor)\w*\.avg\.pct_of_peak_sustained_\w+$")


def _num(metrics: dict, name: str) -> float | None:
    value = metrics.get(name)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        parsed = _csv_value(value)
        return float(parsed) if isinstance(parsed, (int, float)) else None
    return None


def _duration_ns(act: Action) -> float | None:
    value = _num(act.metrics, "gpu__time_duration.sum")
    if value is None:
        return None
    unit = act.units.get("gpu__time_duration.sum", "nsecond").strip().lower()
    return value * _TIME_SCALE.get(unit, 1.0)


def _per_second(value: float | None, unit: str) -> float | None:
    """A rate metric in 1/s whatever unit ncu printed it in."""
    if value is None:
        return None
    unit = unit.lower()
    for suffix, scale in (("/nsecond", 1e9), ("/usecond", 1e6), ("/msecond", 1e3), ("/second", 1.0)):
        if unit.endswith(suffix):
            return value * scale
    if unit in ("ghz",):
        return value * 1e9
    if unit in ("mhz",):
        return value * 1e6
    # No unit: guess by magnitude (GHz values are < 100, MHz < 1e5).
    if value < 100:
        return value * 1e9
    if value < 1e5:
        return value * 1e6
    return value


def summarize(act: Action, flops: float) -> dict:
    """The numbers `fmhactl profile` prints and stores; None where the report lacks the metric."""
    m = act.metrics
    duration_ns = _duration_ns(act)
    clock_hz = _per_second(_num(m, "sm__cycles_elapsed.avg.per_second"),
                           act.units.get("sm__cycles_elapsed.avg.per_second", ""))
    clock_source = "measured"
    if clock_hz is None:
        khz = _num(m, "device__attribute_clock_rate")
        clock_hz = khz * 1e3 if khz else None
        clock_source = "device max"
    sms = _num(m, "device__attribute_multiprocessor_count")
    cc_major = _num(m, "device__attribute_compute_capability_major")
    per_clk = TENSOR_FLOP_PER_CLK_PER_SM.get(int(cc_major)) if cc_major else None
    tflops = flops / (duration_ns * 1e-9) / 1e12 if duration_ns else None
    peak_tflops = sms * clock_hz * per_clk / 1e12 if (sms and clock_hz and per_clk) else None
    dram_bytes = None
    read, write = _num(m, "dram__bytes_read.sum"), _num(m, "dram__bytes_write.sum")
    if read is not None or write is not None:
        dram_bytes = (read or 0.0) + (write or 0.0)
    mem_khz = _num(m, "device__attribute_memory_clock_rate")
    bus_bits = _num(m, "device__attribute_global_memory_bus_width")
    peak_dram_gbs = 2 * mem_khz * 1e3 * bus_bits / 8 / 1e9 if (mem_khz and bus_bits) else None
    stalls: dict[str, float] = {}
    for pattern in (_STALL, _STALL_ALT):  # per-issue ratios first; the latency form only without them
        for name, value in m.items():
            match = pattern.match(name)
            if match and match.group("reason") not in ("selected",) and isinstance(value, (int, float)):
                stalls[match.group("reason")] = float(value)
        if stalls:
            break
    top_stalls = sorted(stalls.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    tensor_pipes = {name: float(v) for name, v in m.items()
                    if _TENSOR_PIPE.match(name) and isinstance(v, (int, float))}
    tensor_pipe = max(tensor_pipes.items(), key=lambda kv: (kv[1], kv[0])) if tensor_pipes else None
    return {
        "kernel": act.name,
        "duration_us": duration_ns / 1e3 if duration_ns else None,
        "sm_clock_mhz": clock_hz / 1e6 if clock_hz else None,
        "sm_clock_source": clock_source if clock_hz else None,
        "tflops": tflops,
        "tensor_peak_tflops": peak_tflops,
        "pct_of_tensor_peak": 100.0 * tflops / peak_tflops if (tflops and peak_tflops) else None,
        "tensor_pipe_pct": tensor_pipe[1] if tensor_pipe else None,
        "tensor_pipe_metric": tensor_pipe[0] if tensor_pipe else None,
        "dram_pct": _num(m, "dram__throughput.avg.pct_of_peak_sustained_elapsed")
        or _num(m, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
        "dram_bytes": dram_bytes,
        "dram_gbs": dram_bytes / (duration_ns * 1e-9) / 1e9 if (dram_bytes is not None and duration_ns) else None,
        "dram_peak_gbs": peak_dram_gbs,
        "arith_intensity": flops / dram_bytes if dram_bytes else None,
        "smem_bank_conflicts_ld": _num(m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        "smem_bank_conflicts_st": _num(m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
        "smem_wavefronts_ld": _num(m, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
        "registers_per_thread": _num(m, "launch__registers_per_thread"),
        "occupancy_achieved_pct": _num(m, "sm__warps_active.avg.pct_of_peak_sustained_active"),
        "occupancy_theoretical_pct": _num(m, "sm__maximum_warps_per_active_cycle_pct"),
        "grid_size": _num(m, "launch__grid_size"),
        "block_size": _num(m, "launch__block_size"),
        "top_stalls": [[reason, value] for reason, value in top_stalls],
        "gpu": m.get("device__attribute_display_name") if isinstance(m.get("device__attribute_display_name"), str) else None,
    }


def _fmt(value, spec: str, unit: str = "") -> str:
    if value is None:
        return "n/a"
    return f"{value:{spec}}{unit}"


def summary_lines(s: dict) -> list[str]:
    """Plain-text summary, one fact per line (the CLI prints these)."""
    lines = [
        f"kernel            {s.get('kernel')}",
        f"duration          {_fmt(s.get('duration_us'), '.2f', ' us')}"
        f"  (SM clock {_fmt(s.get('sm_clock_mhz'), '.0f', ' MHz')}, {s.get('sm_clock_source') or 'n/a'})",
        f"achieved          {_fmt(s.get('tflops'), '.1f', ' TFLOP/s')}"
        f"  = {_fmt(s.get('pct_of_tensor_peak'), '.1f', '%')} of the dense tensor peak"
        f" {_fmt(s.get('tensor_peak_tflops'), '.0f', ' TFLOP/s')} at that clock",
        f"tensor pipe       {_fmt(s.get('tensor_pipe_pct'), '.1f', '%')}"
        + (f"  ({s['tensor_pipe_metric']})" if s.get("tensor_pipe_metric") else ""),
        f"DRAM              {_fmt(s.get('dram_pct'), '.1f', '% of peak')}"
        f"  {_fmt(s.get('dram_gbs'), '.0f', ' GB/s')}, {_fmt(s.get('dram_bytes'), ',.0f', ' bytes')}",
        f"SMEM bank confl.  ld {_fmt(s.get('smem_bank_conflicts_ld'), ',.0f')}"
        f"  st {_fmt(s.get('smem_bank_conflicts_st'), ',.0f')}"
        f"  (ld wavefronts {_fmt(s.get('smem_wavefronts_ld'), ',.0f')})",
        f"registers         {_fmt(s.get('registers_per_thread'), '.0f', ' per thread')}"
        f"  grid {_fmt(s.get('grid_size'), '.0f')} x block {_fmt(s.get('block_size'), '.0f')}",
        f"occupancy         achieved {_fmt(s.get('occupancy_achieved_pct'), '.1f', '%')}"
        f"  theoretical {_fmt(s.get('occupancy_theoretical_pct'), '.1f', '%')}",
    ]
    stalls = s.get("top_stalls") or []
    if stalls:
        lines.append("top stalls        " + ", ".join(f"{r} {v:.2f}" for r, v in stalls)
                     + "  (cycles per issued instruction)")
    else:
        lines.append("top stalls        n/a (recipe without WarpStateStats)")
    return lines


def _child_main(argv: list[str]) -> int:
    import json

    module = import_ncu_report(argv[1] if len(argv) > 1 else None)
    if module is None:
        print("ncu_report is not importable", file=sys.stderr)
        return 3
    actions = parse_with_module(module, Path(argv[0]))
    json.dump([{"name": a.name, "metrics": a.metrics, "units": a.units} for a in actions], sys.stdout, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(_child_main(sys.argv[1:]))
