"""The `fmhactl` command: sub-commands are thin shells over the services.

Only typer and rich are imported here; every command imports torch, CUDA and the services
inside its body, so `fmhactl --help` stays fast.
"""

from __future__ import annotations

import typer

from fmhactl import __version__
from fmhactl.cli import build as build_cli
from fmhactl.cli import kernels as kernels_cli
from fmhactl.cli import results as results_cli

app = typer.Typer(
    name="fmhactl",
    help="Build, run, verify, benchmark and inspect fused multi-head attention kernels.\n\n"
         "Exit codes: 0 ok, 1 verification failed, 2 bad input, 3 missing environment.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fmhactl {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                        help="Print the version and exit.")) -> None:
    pass


kernels_cli.register(app)
build_cli.register(app)
results_cli.register(app)


def _register_optional() -> None:
    """Command groups built alongside the core; each registers itself if present."""
    import importlib

    for module in ("fmhactl.cli.layout", "fmhactl.cli.tma", "fmhactl.cli.profile",
                   "fmhactl.cli.scenario", "fmhactl.cli.status", "fmhactl.cli.dump"):
        try:
            mod = importlib.import_module(module)
            mod.register(app)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
        except Exception as exc:  # noqa: BLE001 - a broken group must not take the others down
            import sys

            print(f"fmhactl: warning: command group {module} failed to load: {exc}", file=sys.stderr)


_register_optional()


def main() -> None:
    app()
