"""`fmhactl merge`: attention results of KV segments merged through their LSE (docs/features.md)."""

from __future__ import annotations

from typing import List, Optional

import typer

from fmhactl.cli.common import guarded, print_json
from fmhactl.cli.common import note, say
from fmhactl.errors import BadInput, ExitCode


def register(app: typer.Typer) -> None:
    app.command("merge", rich_help_panel="Kernels")(merge_command)


@guarded
def merge_command(
    segments: Optional[List[str]] = typer.Argument(
        None, metavar="[SEGMENT.pt]...",
        help="Torch files, one per KV segment, each {'out': (b,t,h,d), 'lse': fp32 (b,h,t)}."),
    out: Optional[str] = typer.Option(None, "--out", metavar="FILE", help="Where the merged {'out', 'lse'} goes."),
    demo: bool = typer.Option(False, "--demo", help="No files: split the keys of --shape into --segments parts "
                                                     "(CPU torch reference), merge, compare with the whole."),
    shape: str = typer.Option("b=1,h=4,hkv=1,t=64,s=512,d=64,wl=127,causal,sink", "--shape",
                              help="--demo: the problem (features included: wl, wr, sink, topk, kvshared)."),
    parts: int = typer.Option(4, "--segments", help="--demo: how many contiguous KV segments."),
    seed: int = typer.Option(0, "--seed", help="--demo: the seed of the random inputs."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Merge per-segment (out, lse) pairs into attention over the union: lse = logsumexp(lse_i),
    out = sum exp(lse_i - lse) * out_i. Exit 1 when --demo's merge differs from the whole."""
    from fmhactl import services

    if demo:
        if segments or out is not None:
            raise BadInput("merge --demo takes no segment files and no --out")
        outcome = services.merge_demo(shape, parts, seed)
    else:
        if out is None:
            raise BadInput("merge: --out FILE is needed (or --demo)")
        outcome = services.merge_files(segments or [], out)
    if as_json:
        print_json(outcome.to_dict())
    else:
        say(f"merged {outcome.segments} segments -> out {tuple(outcome.shape)}; "
            f"{outcome.rows_without_keys} rows saw no key (lse -inf)")
        if outcome.mode == "demo":
            verdict = "PASS" if outcome.passed else "FAIL"
            say(f"{verdict} {outcome.config}: segments start at keys {outcome.boundaries}; merged vs whole: "
                f"max|out err| {outcome.max_abs_err_out:.3e}, max|lse err| {outcome.max_abs_err_lse:.3e} "
                f"(tolerance {outcome.tolerance:.3e})")
        if outcome.written_to:
            note(f"wrote {outcome.written_to}")
    if not outcome.passed:
        raise typer.Exit(int(ExitCode.CHECK_FAILED))
