"""The `fmhactl` command: sub-commands are thin shells over the services.

Only typer and rich are imported here; every command imports torch, CUDA and the services
inside its body, so `fmhactl --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from fmhactl import __version__
from fmhactl.cli import build, dump, kernels, layout, profile, results, scenario, status, tma
from fmhactl.cli import merge as merge_cli
from fmhactl.cli import ptx as ptx_cli
from fmhactl.cli import project as project_cli
from fmhactl.cli import trace as trace_cli
from fmhactl.cli import tui as tui_cli
from fmhactl.cli.common import path_arg
from fmhactl.cli.errors_group import OneLineErrorGroup
from fmhactl.errors import EXIT_CODE_HELP

app = typer.Typer(
    name="fmhactl",
    cls=OneLineErrorGroup,
    rich_markup_mode=None,  # plain click help: no rich import for --help (it must stay under 0.3 s)
    help="Build, run, verify, benchmark and inspect fused multi-head attention kernels.\n\n"
         + EXIT_CODE_HELP + " Errors are one line on stderr.",
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
                                        help="Print the version and exit."),
          project: Optional[Path] = typer.Option(None, "--project", parser=path_arg, envvar="FMHACTL_PROJECT",
                                                 help="Kernel project folder (holding fmhactl.toml); default: found "
                                                      "from the working directory upward, else the built-in family.")) -> None:
    project_cli.use(project)


for group in (kernels, build, dump, profile, layout, tma, scenario, status, results):
    group.register(app)
tui_cli.register(app)
trace_cli.register(app)
ptx_cli.register(app)
project_cli.register(app)
merge_cli.register(app)


def main() -> None:
    import sys

    from fmhactl.cli.argv import optional_option_values

    app(args=optional_option_values(sys.argv[1:]), prog_name="fmhactl")
