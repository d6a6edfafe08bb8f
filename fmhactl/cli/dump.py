"""`fmhactl dump`: a checkpoint of the SM100 kernel (Q/K/V SMEM images, S, P, O) against expected."""

from __future__ import annotations

from typing import Optional

import typer

from fmhactl.cli.ptx import EMULATE_HELP, use_emulate
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
    emulate: str = typer.Option("tc5", "--emulate", help=EMULATE_HELP),
    out: Optional[str] = typer.Option(None, "--out", metavar="FILE",
                                      help="Also write the whole checkpoint (kernel and expected) as JSON for "
                                           "`fmhactl tui --screen checkpoints --dump FILE` (docs/tui.md)."),
) -> None:
    """Build with FMHA_CHECKPOINTS=1, run once, and show the checkpoint against torch + the layout model."""
    use_emulation(emulation)
    use_emulate(emulate)
    from fmhactl import services

    outcome = services.dump(variant, shape, at, timeout_s=timeout, seed=seed, out=out)
    row, m = outcome.row, outcome.metrics
    if as_json:
        print_json(row.to_dict())
    else:
        def say(text: str) -> None:
            out_console.print(text, soft_wrap=True, markup=False, highlight=False)

        say(f"{row.status} {row.variant} [{row.mode} {row.arch}] {row.config_key} at {outcome.at}: "
            f"{m.mismatches if m.mismatches is not None else '?'} of {m.elements if m.elements is not None else '?'} "
            "elements differ" + (f", max|err| {m.max_abs_err:.3g}" if m.max_abs_err is not None else ""))
        if m.first_lane is not None:
            say(f"first mismatch at TMEM lane {m.first_lane}, column {m.first_column}: "
                f"got {m.got or 0:.6g}, want {m.want or 0:.6g}; rows with errors {list(m.rows_with_errors)}")
            for line in m.window:
                say("  " + "  ".join(f"{cell:>19}" for cell in line))
        if m.first_byte is not None:
            say(f"first mismatch at SMEM byte {m.first_byte} = {m.first_element}: "
                f"got 0x{m.got_bits or 0:04x}, want 0x{m.want_bits or 0:04x}")
        if m.error:
            say(m.error)
        if outcome.saved_to is not None:
            say(f"wrote {outcome.saved_to}")
    if not outcome.ok:
        raise typer.Exit(int(ExitCode.CHECK_FAILED))
