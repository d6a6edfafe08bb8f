"""`fmhactl build`: compile variants, report resources, record builds."""

from __future__ import annotations

from typing import Optional

import typer

from fmhactl.cli.common import err_console, guarded, note, print_json, table


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
    mix: bool = typer.Option(False, "--mix", help="Add the exp2 instruction mix per entry (MUFU.EX2 and FFMA in the "
                                                  "SASS; needs cuobjdump)."),
) -> None:
    """Compile kernel variants through NVRTC (cached by content hash) and report registers, SMEM and spills."""
    from fmhactl import services

    def throughput(run) -> None:
        from fmhactl.cli.sweep_render import print_throughput

        print_throughput(err_console, run)

    results = services.build(variants or [], all_variants=all_variants, arch=arch, force=force, jobs=jobs, ray=ray,
                             on_parallel_run=throughput)
    if as_json:
        print_json([r.to_dict() for r in results])
        return
    mixes = services.instruction_mixes(results) if mix else {}
    mix_cols = ("MUFU.EX2", "FFMA") if mix else ()
    rows = []
    for k in services.kernel_rows(results):
        fits = k.dynamic_smem_bytes is not None
        ctas = "-"
        if fits:
            ctas = str(k.ctas_per_sm_planned) if (k.ctas_per_sm_by_registers or 0) >= (k.ctas_per_sm_planned or 0) \
                else f"{k.ctas_per_sm_planned} (regs: {k.ctas_per_sm_by_registers})"
        rows.append([k.variant, k.target, k.kernel, k.registers,
                     f"{k.static_smem_bytes}+{k.dynamic_smem_bytes}" if fits else k.static_smem_bytes,
                     k.stack_bytes, k.spill_bytes,
                     f"{k.tmem_columns_used}/{k.tmem_columns_allocated}" if fits else "-", ctas,
                     *[mixes.get((k.variant, k.kernel), {}).get(op, "-") for op in mix_cols],
                     f"{k.compile_seconds:.2f}", "hit" if k.cache_hit else "built"])
    numeric = ("regs", "smem", "stack", "spills", "tmem", "ctas/SM", *mix_cols, "compile s")
    table("fmhactl build (smem: static + dynamic bytes; tmem: columns used/allocated; "
          "ctas/SM: co-resident CTAs the plan decides, registers permitting)",
          ("variant", "arch", "kernel", *numeric, "cache"), rows, right=numeric,
          styles={6: lambda c: "red" if c != "0" else "", 8: lambda c: "red" if "regs" in c else "",
                  10 + len(mix_cols): lambda c: "green" if c == "hit" else ""})
    for r in results:
        for line in r.warnings:
            err_console.print(f"warning: {r.variant} {r.target.arch}: {line}", style="yellow", highlight=False,
                              markup=False, soft_wrap=True)
    note(f"{len(results)} builds, {sum(r.cache_hit for r in results)} cache hits")
