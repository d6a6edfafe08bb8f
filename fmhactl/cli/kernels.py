"""`fmhactl list`, `run`, `verify` and `bench`: the kernel family, checked and timed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.ptx import EMULATE_HELP, use_emulate
from fmhactl.cli.common import (EMULATION_HELP, err_console, guarded, note, out_console, path_arg, print_json, table,
                                use_emulation)
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
    from fmhactl import services

    variants = services.list_variants(selftest=selftest)
    if as_json:
        print_json([v.to_dict() for v in variants])
        return
    rows = []
    for v in variants:
        dims = (",".join(map(str, v.head_dims)) if v.head_dims
                else f"multiples of {v.head_dim_multiple} up to {v.max_head_dim}")
        rows.append([v.name, " ".join(v.archs), " ".join(v.emulated_on) or "-", ",".join(v.dtypes), dims,
                     "64-bit" if v.index64 else "32-bit", ",".join(v.features), v.description])
    table("fmhactl kernel family", ("variant", "archs", "emulated on", "dtypes", "head dims", "indexing", "features",
                                    "description"), rows)


@guarded
def run_command(
    variant: str = typer.Argument(..., help="Variant to launch."),
    shape: str = typer.Option(..., "--shape", help="b=1,h=8,hkv=2,t=128,s=512,d=128,dtype=bf16,causal"),
    seed: Optional[int] = typer.Option(None, "--seed"),
    timeout: float = typer.Option(30.0, "--timeout", help="Watchdog, seconds."),
    as_json: bool = typer.Option(False, "--json"),
    emulation: str = typer.Option("strict", "--emulation", help=EMULATION_HELP),
    emulate: str = typer.Option("tc5", "--emulate", help=EMULATE_HELP),
) -> None:
    """Launch a variant once on fresh random inputs: finished? every output written? NaNs? (no reference)."""
    use_emulation(emulation)
    use_emulate(emulate)
    from fmhactl import services

    outcome = services.run(variant, shape, timeout_s=timeout, seed=seed)
    row, m = outcome.row, outcome.metrics
    if as_json:
        print_json(row.to_dict())
    else:
        detail = (f"{m.elapsed_ms:.3f} ms, unwritten {m.unwritten} (+{m.lse_unwritten} LSE), "
                  f"NaN {m.nan_count}, max|O| {m.out_abs_max or 0:.3g}") if m.elapsed_ms is not None else m.error
        out_console.print(f"{row.status} {row.variant} [{row.mode} {row.arch}] {row.config_key}: {detail}",
                          soft_wrap=True, markup=False)
    if not outcome.ok:
        raise typer.Exit(int(ExitCode.CHECK_FAILED))


_GPUS_HELP = "all, N or 0,2,5: one isolated worker per local GPU, configs from one queue."
_RAY_HELP = "Run as Ray actors on the cluster at ADDRESS; bare --ray starts a local one (pip install 'fmhactl\\[ray]')."

_STATUS_STYLE = {"PASS": "green", "FAIL": "red", "CRASH": "bold red", "HANG": "bold magenta",
                 "UNSUPPORTED": "yellow", "ERROR": "red"}


def _verify_line(row) -> str:
    from fmhactl.records import VerifyMetrics

    m = VerifyMetrics.from_dict(row.metrics)
    if m.violations:
        detail = "tcgen05 conformance violations:\n      " + "\n      ".join(m.violations[:8])
    elif row.status in ("PASS", "FAIL") and m.max_abs_err is not None:
        b, h, t, d = (list(m.max_err_at_bhtd) + [0, 0, 0, 0])[:4]
        detail = (f"max|err| {m.max_abs_err:.2e} (tol {m.tolerance or 0:.2e}) at b{b} h{h} t{t} d{d}  "
                  f"cos {m.cosine or 0:.6f}")
        if m.lse_max_err is not None:
            detail += f"  lse {m.lse_max_err:.1e}"
        if row.status == "FAIL":
            detail += "\n      " + "; ".join(m.reasons) + ("\n      " + m.error_map if m.error_map else "")
    else:
        detail = m.reason or m.error
    return f"{row.status:<11} {row.variant:<16} {row.config_key:<34} {detail}"


@guarded
def verify_command(
    variants: list[str] = typer.Argument(..., help="One or more variants; they share one isolated worker."),
    grid: Optional[str] = typer.Option(None, "--grid", help="A grid in scenarios/grids (e.g. seeds72, awkward, smoke)."),
    shape: Optional[list[str]] = typer.Option(None, "--shape", help="b=1,h=8,hkv=2,t=128,s=512,d=128,dtype=bf16,causal (repeatable)."),
    random_count: Optional[int] = typer.Option(None, "--random", metavar="N", help="N random configs drawn from what the variants declare (dtypes, head dims, features, limits), each one a named variant runs; the seed replays them."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Base seed; config i uses seed+i. Default: random, recorded."),
    timeout: float = typer.Option(30.0, "--timeout", help="Watchdog per config, seconds; past it the config is a HANG."),
    as_json: bool = typer.Option(False, "--json", help="Print one record per config as JSON on stdout."),
    emulation: str = typer.Option("strict", "--emulation", help=EMULATION_HELP),
    emulate: str = typer.Option("tc5", "--emulate", help=EMULATE_HELP),
    gpus: Optional[str] = typer.Option(None, "--gpus", help=_GPUS_HELP),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="[ADDRESS]", help=_RAY_HELP),
) -> None:
    """Check variants against an independent torch reference (fp32 O, fp64 LSE) with FlashAttention's tolerance rule."""
    use_emulation(emulation)
    use_emulate(emulate)
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from fmhactl import services
    from fmhactl.services.placement import placement_from_options

    placement = placement_from_options(gpus, ray)

    progress = Progress(TextColumn("verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err_console, transient=True, disable=as_json or not err_console.is_terminal)
    task = progress.add_task("verify", total=None)

    def show(event) -> None:
        progress.update(task, completed=event.done, total=event.total)
        if event.record is None:
            return
        if as_json:
            if placement:  # the sweep streams one JSON line per config as it lands
                from fmhactl.cli import sweep_render as render

                render.json_line(event.record)
            return
        row = event.record
        style = _STATUS_STYLE.get(row.status, "")
        line = escape(_verify_line(row))
        progress.console.print(f"[{style}]{line[:11]}[/{style}]{line[11:]}" if style else line, soft_wrap=True)

    runs = []
    with progress:
        outcome = services.verify(variants, grid=grid, shapes=shape, seed=seed, timeout_s=timeout, progress=show,
                                  placement=placement, on_run=runs.append, random_count=random_count)
    if placement:
        from fmhactl.cli import sweep_render as render

        render.print_throughput(err_console, runs[0])
        if as_json:
            render.summary_json_line(runs[0], outcome.closing_line())
    elif as_json:
        print_json([r.to_dict() for r in outcome.rows])
    note(f"session {outcome.session}: results stored in {outcome.store_path}")
    if outcome.random_seed is not None:
        note(f"random configs drawn from seed {outcome.random_seed}: --random {random_count} "
             f"--seed {outcome.random_seed} replays them")
    print(outcome.closing_line(), file=sys.stderr if as_json else sys.stdout)
    if not outcome.ok:
        raise typer.Exit(int(ExitCode.CHECK_FAILED))


@guarded
def bench_command(
    variant: Optional[str] = typer.Argument(None, help="Variant to time (or --model)."),
    shape: Optional[list[str]] = typer.Option(None, "--shape", help="b=8,h=16,t=4096,s=4096,d=128[,causal] (repeatable)."),
    suite: Optional[str] = typer.Option(None, "--suite", help="A named suite in scenarios/bench (e.g. sm90); its shapes run before any --shape."),
    warmup: int = typer.Option(10, "--warmup", help="Untimed launches first."),
    iters: int = typer.Option(50, "--iters", help="Timed launches; the median is reported."),
    baseline: Optional[list[str]] = typer.Option(None, "--baseline", help="torch SDPA backends: cudnn, flash, efficient, math (default cudnn + flash); for window/sink/top-k shapes: sdpa-mask, flex (docs/features.md); peer libraries where installed: fa4 (flash-attn-4), flashinfer."),
    timeout: float = typer.Option(300.0, "--timeout", help="Watchdog per config, seconds."),
    seed: Optional[int] = typer.Option(None, "--seed"),
    plot: Optional[Path] = typer.Option(None, "--plot", parser=path_arg, help="Also draw TFLOP/s of the kernel and each baseline across the shapes into this PNG."),
    as_json: bool = typer.Option(False, "--json", help="Print results as JSON on stdout."),
    gpus: Optional[str] = typer.Option(None, "--gpus", help=_GPUS_HELP + " Never two timed kernels on one GPU."),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="[ADDRESS]", help=_RAY_HELP),
    model: Optional[str] = typer.Option(None, "--model", help="Prefill tokens/s of a random-init model (llama-small, llama-small-hd128, qwen2-small, mistral-small: a 512-token sliding window, phi3-small: head dim 96) with sdpa vs fmhactl attention, instead of a variant; dsv4: DeepSeek-V4 attention (MQA 64:1, hd512, K=V, window 128, top-k 512, sinks) with fmhactl vs SDPA (mask) vs flex."),
    prompt: Optional[list[int]] = typer.Option(None, "--prompt", help="With --model: prompt lengths (repeatable; default 128, 512, 2048)."),
    padded: bool = typer.Option(False, "--padded", help="With --model: also each prompt length as a left-padded batch of 4 uneven lengths."),
    emulation: str = typer.Option("strict", "--emulation", help=EMULATION_HELP),
    overhead: bool = typer.Option(False, "--overhead", help="Host µs per call of the torch op vs SDPA (same run) at each --shape (default a tiny one), instead of a variant."),
    emulate: str = typer.Option("tc5", "--emulate", help=EMULATE_HELP),
    decode: bool = typer.Option(False, "--decode", help="Decode steps (t <= 16 against a KV cache) of the torch op vs cuDNN and flash SDPA (same run), HBM GB/s, at each --shape (default a grid of t 1/4/16, s 2k-32k, hd 64/128, GQA), instead of a variant."),
    greedy: int = typer.Option(0, "--greedy", help="With --model: also greedy-decode this many tokens after a 2048-token prompt (dsv4: a --context KV cache) (decode tokens/s and logits vs sdpa)."),
    context: Optional[int] = typer.Option(None, "--context", help="With --model dsv4 --greedy: KV cache length before decoding (default 32768)."),
) -> None:
    """Time a variant with CUDA events (median, inputs rotated past L2) beside torch SDPA baselines."""
    use_emulation(emulation)
    use_emulate(emulate)
    from fmhactl.errors import BadInput

    if (padded or greedy) and model is None:
        raise BadInput("--padded and --greedy need --model NAME")
    if context is not None and (model != "dsv4" or not greedy):
        raise BadInput("--context sets the KV cache of --model dsv4 --greedy N; give it only with both")
    if decode:
        from fmhactl.cli.model_bench import decode_bench

        if variant or suite or model or overhead:
            raise BadInput("--decode times the torch op at --shape values: give no VARIANT, --suite, --model or --overhead")
        decode_bench(shape or [], iters=iters, seed=seed, as_json=as_json)
        return
    if overhead:
        from fmhactl.cli.model_bench import overhead_bench

        if variant or suite or model:
            raise BadInput("--overhead times the torch op at --shape values: give no VARIANT, --suite or --model")
        overhead_bench(shape or [], iters=iters, seed=seed, as_json=as_json)
        return
    if model is not None:
        from fmhactl.cli.model_bench import model_bench

        if variant or shape or suite:
            raise BadInput("give either VARIANT --shape/--suite ... or --model NAME, not both")
        if model == "dsv4":
            from fmhactl.cli.model_bench import dsv4_bench

            if padded:
                raise BadInput("--padded is not available for --model dsv4 (its model takes no padding mask)")
            dsv4_bench(prompt or [512, 2048, 8192], warmup=warmup, iters=iters, seed=seed, as_json=as_json,
                       greedy=greedy, context=32768 if context is None else context)
            return
        model_bench(model, prompt or [128, 512, 2048], warmup=warmup, iters=iters, seed=seed, as_json=as_json,
                    padded=padded, greedy=greedy)
        return
    if not variant or not (shape or suite):
        raise BadInput("bench needs VARIANT and at least one --shape or --suite NAME (or --model NAME)")
    from fmhactl import services
    from fmhactl.services.placement import placement_from_options

    placement = placement_from_options(gpus, ray)
    on_row = None
    if placement and as_json:
        from fmhactl.cli.sweep_render import json_line as on_row
    runs = []
    outcome = services.bench(variant, shape or [], suite=suite, warmup=warmup, iters=iters, baselines=baseline, timeout_s=timeout,
                             seed=seed, plot=plot, placement=placement, on_run=runs.append, on_row=on_row)
    rows = outcome.rows
    if runs:
        from fmhactl.cli.sweep_render import print_throughput

        print_throughput(err_console, runs[0])
    if as_json:
        if not placement:
            print_json([r.to_dict() for r in rows])
    else:
        lines = []
        for row in rows:
            m = outcome.metrics(row)
            if row.status != "OK":
                lines.append([row.config_key, variant, row.status, "", "", "", m.error])
            if m.kernel is None:  # a HANG/CRASH keeps what its job finished (fmhactl.runtime.stage)
                continue
            k = m.kernel
            lines.append([row.config_key if row.status == "OK" else "", variant, f"{k.median_ms:.4f}",
                          f"{k.p10_ms:.4f}", f"{k.p90_ms:.4f}", f"{k.tflops:.2f}", ""])
            for b in m.baselines:
                if not b.available or b.timing is None:
                    lines.append(["", b.label, "n/a", "", "", "", b.reason[:40]])
                    continue
                t = b.timing
                lines.append(["", b.label, f"{t.median_ms:.4f}", f"{t.p10_ms:.4f}", f"{t.p90_ms:.4f}",
                              f"{t.tflops:.2f}", f"{b.ratio or 0:.3f}"])
            if m.note:
                lines.append(["", "", "", "", "", "", m.note])
        gpu = f"{rows[0].gpu}, {rows[0].mode}" if rows else ""
        numeric = ("median ms", "p10 ms", "p90 ms", "TFLOP/s", "ours / it")
        table(f"fmhactl bench {variant} ({gpu})", ("config", "impl", *numeric), lines, right=numeric)
    if outcome.plot:
        note(f"plot: {outcome.plot['png']}")
    if not outcome.ok:
        raise typer.Exit(int(ExitCode.CHECK_FAILED))
