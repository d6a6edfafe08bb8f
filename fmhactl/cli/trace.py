"""`fmhactl trace`: the pipeline timeline of an SM100 variant, with modeled B200 timing."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.common import err_console, guarded, path_arg, print_json, use_emulation
from fmhactl.cli.ptx import EMULATE_HELP, use_emulate


def register(app: typer.Typer) -> None:
    app.command("trace", rich_help_panel="Kernels")(trace_command)


def _write(path: Path, doc: dict) -> None:
    import json

    from fmhactl.errors import BadInput
    from fmhactl.services.common import output_folders

    try:
        output_folders(path, "--out").write_text(json.dumps(doc))
    except OSError as exc:
        raise BadInput(f"--out {path}: cannot write ({exc.strerror})") from None


def _suffixed(path: Path, variant: str) -> Path:
    return path.with_name(f"{path.stem}-{variant}{path.suffix or '.json'}")


@guarded
def trace_command(
    variant: Optional[str] = typer.Argument(None, help="An SM100 variant (omit with --compare)."),
    shape: str = typer.Option(..., "--shape", help="b=1,h=1,t=128,s=4096,d=128 (small b/h/t: every CTA is modeled)."),
    out: Optional[Path] = typer.Option(None, "--out", parser=path_arg, help="Chrome trace-event JSON (opens in ui.perfetto.dev); "
                                                           "with --compare one file per variant, suffixed."),
    compare: Optional[tuple[str, str]] = typer.Option(None, "--compare", help="Two variants side by side."),
    raw: Optional[Path] = typer.Option(None, "--raw", parser=path_arg, help="Model this raw event file (from --save-raw) "
                                                           "instead of running: no GPU needed."),
    save_raw: Optional[Path] = typer.Option(None, "--save-raw", parser=path_arg, help="Also keep the raw emulator events."),
    seed: Optional[int] = typer.Option(None, "--seed"),
    timeout: float = typer.Option(120.0, "--timeout"),
    as_json: bool = typer.Option(False, "--json", help="Also the summary as JSON on stdout (the text stays on stderr)."),
    emulate: str = typer.Option("tc5", "--emulate", help=EMULATE_HELP + " Under native, sites are PTX lines, "
                                "named by their .loc source lines (with --raw: a recording made that way)."),
) -> None:
    """Run a strict-emulated launch with tracing on, replay its synchronisation on a documented
    B200 cost model, write a Perfetto trace and summarise (modeled, not measured)."""
    from fmhactl.services.trace import parse_shape
    from fmhactl.errors import BadInput
    from fmhactl.services.common import output as check_output
    from fmhactl.services.trace import trace_service as service

    if compare and variant:
        raise BadInput("give either VARIANT or --compare A B, not both")
    names = list(compare) if compare else [variant] if variant else []
    if not names:
        raise BadInput("name a VARIANT or --compare A B")
    if raw is not None and len(names) != 1:
        raise BadInput("--raw models one variant's recorded events: not with --compare")
    cfg = parse_shape(shape)
    service.check_shape(cfg)
    use_emulation("strict")
    use_emulate(emulate)
    geometries = {name: service.geometry_for(name, cfg) for name in names}  # unknown / non-SM100 first
    for option, path in (("--out", out), ("--save-raw", save_raw)):  # every output proved writable first
        for name in names if path is not None else []:
            check_output(_suffixed(path, name) if compare else path, option)
    raw_events = service.read_raw(raw) if raw is not None else None
    results = []
    for name in names:
        if raw_events is not None:
            result = service.model_trace(name, cfg, raw_events, geometries[name], service.kernel_source_text(),
                                         service.ptx_sites(name, raw_events) if emulate == "native" else None)
        else:
            result = service.trace_variant(name, cfg, timeout_s=timeout, seed=seed,
                                           raw_out=_suffixed(save_raw, name) if save_raw and compare else save_raw)
        if out is not None:
            _write(_suffixed(out, name) if compare else out, result.chrome)
        results.append(result)
    # The human summary always goes to stderr; --json adds the machine form on stdout.
    for r in results:
        for line in r.lines():
            err_console.print(line, soft_wrap=True, markup=False)
    if compare:
        for line in compare_lines(compare_rows(results)):
            err_console.print(line, soft_wrap=True, markup=False)
    if as_json:
        doc = {"label": "modeled, not measured", "results": [r.to_dict() for r in results]}
        if compare:
            doc["compare"] = compare_rows(results)
        print_json(doc)


def compare_rows(results) -> list[dict]:
    rows = []
    for r in results:
        s = r.summaries[0]
        rows.append({"variant": r.variant, "cycles_per_kv_tile": s["cycles_per_kv_tile"],
                     "steady_cycles_per_kv_tile": s["steady_cycles_per_kv_tile"],
                     "tensor_busy_fraction": s["tensor_busy_fraction"], "bottleneck": s["bottleneck"],
                     "projected_tflops": s["projection"]["tflops"]})
    return rows


def compare_lines(rows: list[dict]) -> list[str]:
    a, b = rows
    lines = ["compare (modeled, not measured):",
             f"  {'':<26}{a['variant']:>24}{b['variant']:>24}"]
    for key in ("cycles_per_kv_tile", "steady_cycles_per_kv_tile", "tensor_busy_fraction", "projected_tflops"):
        lines.append(f"  {key:<26}{str(a[key]):>24}{str(b[key]):>24}")
    if a["cycles_per_kv_tile"] and b["cycles_per_kv_tile"]:
        lines.append(f"  {b['variant']} / {a['variant']} time per KV tile: "
                     f"{b['cycles_per_kv_tile'] / a['cycles_per_kv_tile']:.3f}")
    return lines
