"""`fmhactl build`: compile variants, report resources, record builds."""

from __future__ import annotations

from typing import Optional

import typer

from fmhactl.cli.common import guarded, note, print_json, table


def register(app: typer.Typer) -> None:
    app.command("build", rich_help_panel="Kernels")(build_command)


@guarded
def build_command(
    variants: Optional[list[str]] = typer.Argument(None, help="Variants to build (see `fmhactl list`)."),
    all_variants: bool = typer.Option(False, "--all", help="Build every variant, self-tests included."),
    arch: Optional[str] = typer.Option(None, "--arch", help="sm_100a, sm_90a, sm_80 or native; default: every arch the variant declares."),
    force: bool = typer.Option(False, "--force", help="Recompile even when the cache has the cubin."),
    as_json: bool = typer.Option(False, "--json", help="Print results as JSON on stdout."),
) -> None:
    """Compile kernel variants through NVRTC (cached by content hash) and report registers, SMEM and spills."""
    from fmhactl import services

    results = services.build(variants or [], all_variants=all_variants, arch=arch, force=force)
    if as_json:
        print_json([r.to_dict() for r in results])
        return
    rows = [[k.variant, k.target, k.kernel, k.registers,
             f"{k.static_smem_bytes}+{k.dynamic_smem_bytes}" if k.dynamic_smem_bytes is not None else k.static_smem_bytes,
             k.stack_bytes, k.spill_bytes, k.tmem_columns if k.tmem_columns is not None else "-",
             f"{k.compile_seconds:.2f}", "hit" if k.cache_hit else "built"]
            for k in services.kernel_rows(results)]
    numeric = ("regs", "smem", "stack", "spills", "tmem", "compile s")
    table("fmhactl build (smem: static + dynamic bytes; tmem: columns allocated)",
          ("variant", "arch", "kernel", *numeric, "cache"), rows, right=numeric,
          styles={6: lambda c: "red" if c != "0" else "", 9: lambda c: "green" if c == "hit" else ""})
    note(f"{len(results)} builds, {sum(r.cache_hit for r in results)} cache hits")
