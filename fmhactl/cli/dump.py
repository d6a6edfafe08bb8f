"""`fmhactl dump`: one checkpoint of the first CTA beside its expected value."""

from __future__ import annotations

from typing import Optional

import typer

from fmhactl.cli.common import EMULATION_HELP, guarded, out_console, print_json, use_emulation
from fmhactl.errors import ExitCode


def register(app: typer.Typer) -> None:
    app.command("dump", rich_help_panel="Kernels")(dump_command)


@guarded
def dump_command(
    variant: str = typer.Argument(..., help="An SM100-family variant."),
    shape: str = typer.Option(..., "--shape", help="b=1,h=1,t=128,s=256,d=128 (CTA 0 of batch 0, head 0 is dumped)."),
    at: str = typer.Option(..., "--at", help="Q, K, V (SMEM images), S, P (KV tile 0) or O (before the epilogue)."),
    seed: Optional[int] = typer.Option(None, "--seed"),
    timeout: float = typer.Option(60.0, "--timeout"),
    as_json: bool = typer.Option(False, "--json"),
    emulation: str = typer.Option("strict", "--emulation", help=EMULATION_HELP),
    out: Optional[str] = typer.Option(None, "--out", metavar="FILE",
                                      help="Also write the whole checkpoint (kernel and expected) as JSON for "
                                           "`fmhactl tui --screen checkpoints --dump FILE` (docs/tui.md)."),
) -> None:
    """Build with FMHA_CHECKPOINTS=1, run once, and show the checkpoint against torch + the layout model."""
    use_emulation(emulation)
    from fmhactl.config import parse_shape
    from fmhactl.registry import get_variant
    from fmhactl.results.store import ResultStore
    from fmhactl.runtime.dump import run_dump
    from fmhactl.runtime.dumpfile import check_writable

    out_path = str(check_writable(out)) if out else None
    with ResultStore() as store:
        row = run_dump(get_variant(variant), parse_shape(shape), at, store=store, timeout_s=timeout, seed=seed,
                       out=out_path)
    if as_json:
        print_json(row.to_dict())
    else:
        m = row.metrics
        out_console.print(f"{row.status} {row.variant} [{row.mode} {row.arch}] {row.config_key} at {at.upper()}: "
                          f"{m.get('mismatches', '?')} of {m.get('elements', '?')} elements differ"
                          + (f", max|err| {m['max_abs_err']:.3g}" if "max_abs_err" in m else ""), soft_wrap=True)
        if "first_lane" in m:
            out_console.print(f"first mismatch at TMEM lane {m['first_lane']}, column {m['first_column']}: "
                              f"got {m['got']:.6g}, want {m['want']:.6g}; rows with errors {m['rows_with_errors']}")
            for line in m.get("window", []):
                out_console.print("  " + "  ".join(f"{cell:>19}" for cell in line))
        if "first_byte" in m:
            out_console.print(f"first mismatch at SMEM byte {m['first_byte']} = {m['first_element']}: "
                              f"got 0x{m['got_bits']:04x}, want 0x{m['want_bits']:04x}")
        if "error" in m:
            out_console.print(m["error"])
        if out_path and "out" in m:
            out_console.print(f"wrote {out_path}")
    if row.status != "PASS":
        raise typer.Exit(int(ExitCode.VERIFY_FAILED))
