"""`fmhactl build`: compile variants, report resources, record builds."""

from __future__ import annotations

from typing import Optional

import typer

from fmhactl.cli.common import err_console, guarded, out_console, print_json


def register(app: typer.Typer) -> None:
    app.command("build", rich_help_panel="Kernels")(build_command)


@guarded
def build_command(
    variants: Optional[list[str]] = typer.Argument(None, help="Variants to build (see `fmhactl list`)."),
    all_variants: bool = typer.Option(False, "--all", help="Build every variant, self-tests included."),
    arch: Optional[str] = typer.Option(None, "--arch", help="sm_100a, sm_90a, sm_80 or native; default: every arch the variant declares."),
    force: bool = typer.Option(False, "--force", help="Recompile even when the cache has the cubin."),
    as_json: bool = typer.Option(False, "--json", help="Print results as JSON on stdout."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Compile in N parallel worker processes."),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="[ADDRESS]",
                                      help="Compile as Ray CPU actors at ADDRESS; bare --ray starts a local cluster."),
) -> None:
    """Compile kernel variants through NVRTC (cached by content hash) and report registers, SMEM and spills."""
    from fmhactl.build.service import build_variants

    if not variants and not all_variants:
        raise typer.BadParameter("name at least one variant, or pass --all")
    if jobs is not None or ray is not None:  # parallel: fmhactl.build.parallel
        from fmhactl.build.parallel import build_parallel
        from fmhactl.sweep.render import print_throughput

        results, run = build_parallel(variants or [], all_variants=all_variants, arch=arch, force=force,
                                      jobs=jobs, ray=ray)
        print_throughput(err_console, run)
    else:
        results = build_variants(variants or [], all_variants=all_variants, arch=arch, force=force)
    if as_json:
        print_json([r.to_dict() for r in results])
        return
    from rich.table import Table

    from fmhactl.registry import load_registry
    from fmhactl.runtime.launchers import entry_plan

    registry = load_registry()
    table = Table(title="fmhactl build (smem: static + dynamic bytes; tmem: columns used/allocated; "
                        "ctas/SM: co-resident CTAs the plan decides, registers permitting)", show_lines=False)
    numeric = ("regs", "smem", "stack", "spills", "tmem", "ctas/SM", "compile s")
    for col in ("variant", "arch", "kernel", *numeric, "cache"):
        table.add_column(col, justify="right" if col in numeric else "left", overflow="fold")
    for r in results:
        variant = registry[r.variant]
        for k in sorted(r.kernels, key=lambda k: k.kernel):
            spills = k.spill_stores + k.spill_loads
            plan = entry_plan(variant.launcher, k.kernel, variant.switches)
            fits = plan is not None and plan.limit_reason() is None
            smem = f"{k.static_smem}+{plan.smem_bytes}" if fits else str(k.static_smem)
            table.add_row(r.variant, r.target.label, k.kernel, str(k.registers), smem,
                          str(k.stack_bytes), f"[red]{spills}[/red]" if spills else "0",
                          f"{plan.tmem_columns}/{plan.tmem_alloc}" if fits else "-",
                          _ctas_cell(plan.ctas_per_sm, k.registers) if fits else "-", f"{r.compile_seconds:.2f}",
                          "[green]hit[/green]" if r.cache_hit else "built")
    out_console.print(table)
    hits = sum(r.cache_hit for r in results)
    err_console.print(f"{len(results)} builds, {hits} cache hits")


def _ctas_cell(planned: int, registers: int) -> str:
    """The plan's CTAs/SM, flagged red when the registers would hold fewer (never more) on an SM."""
    from fmhactl.plans.sm100 import ctas_by_registers

    by_regs = ctas_by_registers(registers)
    return str(planned) if by_regs >= planned else f"[red]{planned} (regs: {by_regs})[/red]"
