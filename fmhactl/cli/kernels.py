"""`fmhactl list`, `verify` and `bench`: the kernel family, checked and timed."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from fmhactl.cli.common import EMULATION_HELP, err_console, guarded, out_console, print_json, use_emulation
from fmhactl.errors import ExitCode


def register(app: typer.Typer) -> None:
    app.command("list", rich_help_panel="Kernels")(list_command)
    app.command("run", rich_help_panel="Kernels")(run_command)
    app.command("verify", rich_help_panel="Kernels")(verify_command)
    app.command("bench", rich_help_panel="Kernels")(bench_command)


@guarded
def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print the registry as JSON on stdout."),
    selftest: bool = typer.Option(False, "--selftest", help="Include the deliberately broken self-test kernels."),
) -> None:
    """Show the kernel registry (kernels/family.toml)."""
    from fmhactl.registry import load_registry

    variants = [v for v in load_registry().values() if selftest or not v.selftest]
    if as_json:
        print_json([v.to_dict() for v in variants])
        return
    from rich.table import Table

    table = Table(title="fmhactl kernel family")
    for col in ("variant", "archs", "emulated on", "dtypes", "head dims", "features", "description"):
        table.add_column(col)
    for v in variants:
        dims = ",".join(map(str, v.head_dims)) if v.head_dims else f"{v.head_dim_multiple}k..{v.max_head_dim}"
        table.add_row(v.name, " ".join(v.archs), " ".join(v.emulated_on) or "-", ",".join(v.dtypes), dims,
                      ",".join(v.features), v.description)
    out_console.print(table)


def _configs(grid: Optional[str], shapes: Optional[list[str]]):
    from fmhactl.config import parse_shape
    from fmhactl.verify.grids import load_grid

    if bool(grid) == bool(shapes):
        raise typer.BadParameter("give exactly one of --grid NAME or --shape ... (repeatable)")
    if grid:
        return list(load_grid(grid).configs)
    return [parse_shape(s) for s in shapes or []]


@guarded
def run_command(
    variant: str = typer.Argument(..., help="Variant to launch."),
    shape: str = typer.Option(..., "--shape", help="b=1,h=8,hkv=2,t=128,s=512,d=128,dtype=bf16,causal"),
    seed: Optional[int] = typer.Option(None, "--seed"),
    timeout: float = typer.Option(30.0, "--timeout", help="Watchdog, seconds."),
    as_json: bool = typer.Option(False, "--json"),
    emulation: str = typer.Option("strict", "--emulation", help=EMULATION_HELP),
) -> None:
    """Launch a variant once on fresh random inputs: finished? every output written? NaNs? (no reference)."""
    use_emulation(emulation)
    from fmhactl.config import parse_shape
    from fmhactl.registry import get_variant
    from fmhactl.results.store import ResultStore
    from fmhactl.runtime.single import run_once

    with ResultStore() as store:
        row = run_once(get_variant(variant), parse_shape(shape), store=store, timeout_s=timeout, seed=seed)
    if as_json:
        print_json(row.to_dict())
    else:
        m = row.metrics
        detail = (f"{m['elapsed_ms']:.3f} ms, unwritten {m['unwritten']} (+{m['lse_unwritten']} LSE), "
                  f"NaN {m['nan']}, max|O| {m['out_abs_max']:.3g}") if "elapsed_ms" in m else m.get("error", "")
        out_console.print(f"{row.status} {row.variant} [{row.mode} {row.arch}] {row.config_key}: {detail}", soft_wrap=True)
    if row.status != "OK":
        raise typer.Exit(int(ExitCode.VERIFY_FAILED))


_GPUS_HELP = "all, N or 0,2,5: one isolated worker per local GPU, configs from one queue."
_RAY_HELP = "Run as Ray actors on the cluster at ADDRESS; bare --ray starts a local one (pip install 'fmhactl\\[ray]')."

_STATUS_STYLE = {"PASS": "green", "FAIL": "red", "CRASH": "bold red", "HANG": "bold magenta",
                 "UNSUPPORTED": "yellow", "ERROR": "red"}


@guarded
def verify_command(
    variants: list[str] = typer.Argument(..., help="One or more variants; they share one isolated worker."),
    grid: Optional[str] = typer.Option(None, "--grid", help="A grid in scenarios/grids (e.g. seeds72, awkward, smoke)."),
    shape: Optional[list[str]] = typer.Option(None, "--shape", help="b=1,h=8,hkv=2,t=128,s=512,d=128,dtype=bf16,causal (repeatable)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Base seed; config i uses seed+i. Default: random, recorded."),
    timeout: float = typer.Option(30.0, "--timeout", help="Watchdog per config, seconds; past it the config is a HANG."),
    as_json: bool = typer.Option(False, "--json", help="Print one record per config as JSON on stdout."),
    emulation: str = typer.Option("strict", "--emulation", help=EMULATION_HELP),
    gpus: Optional[str] = typer.Option(None, "--gpus", help=_GPUS_HELP),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="[ADDRESS]", help=_RAY_HELP),
) -> None:
    """Check variants against an independent torch reference (fp32 O, fp64 LSE) with FlashAttention's tolerance rule."""
    use_emulation(emulation)
    from fmhactl.registry import get_variant, load_registry
    from fmhactl.results.store import ResultStore
    from fmhactl.verify.sweep import run_verify

    if timeout <= 0:
        raise typer.BadParameter("--timeout must be positive")
    from fmhactl.sweep.service import placement_from_options

    placement = placement_from_options(gpus, ray)
    registry = load_registry()
    chosen = [get_variant(n, registry) for n in variants]
    configs = _configs(grid, shape)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(TextColumn("verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err_console, transient=True, disable=as_json)
    task = progress.add_task("verify", total=len(chosen) * len(configs))

    def show(row) -> None:
        progress.advance(task)
        if as_json:
            return
        m = row.metrics
        style = _STATUS_STYLE.get(row.status, "")
        detail = ""
        if "violations" in m:
            detail = "tcgen05 conformance violations:\n      " + "\n      ".join(m["violations"][:8])
        elif row.status in ("PASS", "FAIL"):
            b, h, t, d = m.get("max_err_at", [0, 0, 0, 0])
            detail = (f"max|err| {m['max_abs_err']:.2e} (tol {m['tolerance']:.2e}) at b{b} h{h} t{t} d{d}  "
                      f"cos {m['cosine']:.6f}")
            if m.get("lse_max_err") is not None:
                detail += f"  lse {m['lse_max_err']:.1e}"
            if row.status == "FAIL":
                detail += "\n      " + "; ".join(m.get("reasons", [])) + ("\n      " + m["error_map"] if m.get("error_map") else "")
        else:
            detail = m.get("reason") or m.get("error") or ""
        progress.console.print(f"[{style}]{row.status:<11}[/{style}] {row.variant:<16} {row.config_key:<34} {detail}",
                               soft_wrap=True)

    with ResultStore() as store, progress:
        if placement:  # one worker per GPU / Ray actors: fmhactl.sweep
            from fmhactl.sweep import render
            from fmhactl.sweep.service import sweep_verify

            summary, run = sweep_verify(chosen, configs, store=store, placement=placement, timeout_s=timeout,
                                        seed=seed, on_result=(lambda r: (show(r), render.json_line(r))) if as_json else show)
        else:
            summary = run_verify(chosen, configs, store=store, timeout_s=timeout, seed=seed, on_result=show)
    if placement:
        render.print_throughput(err_console, run)
        if as_json:
            render.summary_json_line(run, summary.closing_line())
    elif as_json:
        print_json([r.to_dict() for r in summary.rows])
    err_console.print(f"session {summary.session}: results stored in {store.path}")
    print(summary.closing_line(), file=sys.stderr if as_json else sys.stdout)
    if not summary.ok:
        raise typer.Exit(int(ExitCode.VERIFY_FAILED))


@guarded
def bench_command(
    variant: Optional[str] = typer.Argument(None, help="Variant to time (or --model)."),
    shape: Optional[list[str]] = typer.Option(None, "--shape", help="b=8,h=16,t=4096,s=4096,d=128[,causal] (repeatable)."),
    suite: Optional[str] = typer.Option(None, "--suite", help="A named suite in scenarios/bench (e.g. sm90); its shapes run before any --shape."),
    warmup: int = typer.Option(10, "--warmup", help="Untimed launches first."),
    iters: int = typer.Option(50, "--iters", help="Timed launches; the median is reported."),
    baseline: Optional[list[str]] = typer.Option(None, "--baseline", help="torch SDPA backends: cudnn, flash, efficient, math (default cudnn + flash)."),
    timeout: float = typer.Option(300.0, "--timeout", help="Watchdog per config, seconds."),
    seed: Optional[int] = typer.Option(None, "--seed"),
    as_json: bool = typer.Option(False, "--json", help="Print results as JSON on stdout."),
    gpus: Optional[str] = typer.Option(None, "--gpus", help=_GPUS_HELP + " Never two timed kernels on one GPU."),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="[ADDRESS]", help=_RAY_HELP),
    model: Optional[str] = typer.Option(None, "--model", help="Prefill tokens/s of a random-init model (llama-small) with sdpa vs fmhactl attention, instead of a variant."),
    prompt: Optional[list[int]] = typer.Option(None, "--prompt", help="With --model: prompt lengths (repeatable; default 128, 512, 2048)."),
    emulation: str = typer.Option("strict", "--emulation", help=EMULATION_HELP),
) -> None:
    """Time a variant with CUDA events (median, inputs rotated past L2) beside torch SDPA baselines."""
    use_emulation(emulation)
    if model is not None:
        from fmhactl.cli.model_bench import model_bench

        from fmhactl.errors import BadInput

        if variant or shape or suite:
            raise BadInput("give either VARIANT --shape/--suite ... or --model NAME, not both")
        model_bench(model, prompt or [128, 512, 2048], warmup=warmup, iters=iters, seed=seed, as_json=as_json)
        return
    if not variant or not (shape or suite):
        from fmhactl.errors import BadInput

        raise BadInput("bench needs VARIANT and at least one --shape or --suite NAME (or --model NAME)")
    from fmhactl.bench.service import DEFAULT_BASELINES, run_bench
    from fmhactl.config import parse_shape
    from fmhactl.registry import get_variant
    from fmhactl.results.store import ResultStore

    from fmhactl.sweep.service import placement_from_options

    placement = placement_from_options(gpus, ray)
    configs = []
    if suite:
        from fmhactl.bench.suites import load_suite

        configs.extend(load_suite(suite).configs)
    configs.extend(parse_shape(s) for s in shape or [])
    chosen = get_variant(variant)
    with ResultStore() as store:
        if placement:  # configs spread over GPUs, one timed kernel per GPU at a time: fmhactl.sweep
            from fmhactl.sweep import render
            from fmhactl.sweep.service import sweep_bench

            rows, run = sweep_bench(chosen, configs, store=store, placement=placement, warmup=warmup, iters=iters,
                                    baselines=baseline or DEFAULT_BASELINES, timeout_s=timeout, seed=seed,
                                    on_result=render.json_line if as_json else None)
            render.print_throughput(err_console, run)
        else:
            rows = run_bench(chosen, configs, store=store, warmup=warmup, iters=iters,
                             baselines=baseline or DEFAULT_BASELINES, timeout_s=timeout, seed=seed)
    if as_json:
        if not placement:
            print_json([r.to_dict() for r in rows])
    else:
        from rich.table import Table

        table = Table(title=f"fmhactl bench {variant} ({rows[0].gpu if rows else ''}, {rows[0].mode if rows else ''})")
        for col in ("config", "impl", "median ms", "p10 ms", "p90 ms", "TFLOP/s", "ours / it"):
            table.add_column(col, justify="left" if col in ("config", "impl") else "right")
        for row in rows:
            if row.status != "OK":
                table.add_row(row.config_key, variant, row.status, "", "", "", row.metrics.get("error", ""))
                continue
            k = row.metrics["kernel"]
            table.add_row(row.config_key, variant, f"{k['median_ms']:.4f}", f"{k['p10_ms']:.4f}",
                          f"{k['p90_ms']:.4f}", f"{k['tflops']:.2f}", "")
            for name, b in row.metrics["baselines"].items():
                if not b.get("available"):
                    table.add_row("", f"sdpa/{name}", "n/a", "", "", "", b.get("reason", "")[:40])
                    continue
                table.add_row("", f"sdpa/{name}", f"{b['median_ms']:.4f}", f"{b['p10_ms']:.4f}",
                              f"{b['p90_ms']:.4f}", f"{b['tflops']:.2f}", f"{b.get('ratio', 0):.3f}")
            if row.metrics.get("note"):
                table.add_row("", "", "", "", "", "", row.metrics["note"])
        out_console.print(table)
    if any(r.status != "OK" for r in rows):
        raise typer.Exit(int(ExitCode.VERIFY_FAILED))
