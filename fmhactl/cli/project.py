"""`fmhactl init`, `fmhactl include-dir`, `fmhactl project`: kernel projects (docs/kernel-abi.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.common import guarded, note, path_arg, print_json


def register(app: typer.Typer) -> None:
    app.command("init", rich_help_panel="Projects")(init_command)
    app.command("include-dir", rich_help_panel="Projects")(include_dir_command)
    app.command("project", rich_help_panel="Projects")(project_command)


@guarded
def init_command(
    folder: Path = typer.Argument(..., parser=path_arg, help="Folder for the new project (created if missing)."),
    name: Optional[str] = typer.Option(None, "--name", help="Project name (default: the folder's name)."),
    force: bool = typer.Option(False, "--force", help="Overwrite files the scaffold writes that already exist."),
    as_json: bool = typer.Option(False, "--json", help="Print what was written as JSON on stdout."),
) -> None:
    """Scaffold a kernel project that builds, verifies and benches out of the box: an SM90
    starting kernel, an SM100 kernel on the tc5:: API and one in raw inline tcgen05 PTX."""
    from fmhactl import services

    outcome = services.project.init_project(folder, name=name, force=force)
    if as_json:
        print_json(outcome.to_dict())
        return
    for path in outcome.written:
        typer.echo(str(path))
    note(f"project {outcome.name} in {outcome.root}: `cd {folder} && fmhactl build --all`, then "
         "`fmhactl verify sm90_start --grid fa`")


@guarded
def include_dir_command(
    flag: bool = typer.Option(False, "--flag", help="Print it as a compiler option (-I...), like pybind11 --includes."),
    as_json: bool = typer.Option(False, "--json", help="Print the folder and the flag as JSON on stdout."),
) -> None:
    """Print the folder of the shipped kernel headers (common/fmha_params.h, common/tcgen05.cuh);
    fmhactl's own builds add it themselves."""
    from fmhactl import services

    folder = services.project.include_dir()
    if as_json:
        print_json({"include_dir": str(folder), "flag": f"-I{folder}"})
        return
    typer.echo(f"-I{folder}" if flag else str(folder))


@guarded
def project_command(
    as_json: bool = typer.Option(False, "--json", help="Print the project as JSON on stdout."),
) -> None:
    """Show the kernel project in use (found from the working directory upward, or --project)."""
    from fmhactl import services

    info = services.project.project_info()
    if as_json:
        print_json(info.to_dict())
        return
    kind = "built-in" if info.builtin else "project"
    typer.echo(f"{kind} {info.name}: {info.file} ({info.variants} variants; results and cache in {info.work_dir})")


def use(folder: Optional[Path]) -> None:
    """The global --project option (or $FMHACTL_PROJECT): one error line, exit 2, when it is bad."""
    from fmhactl import services
    from fmhactl.cli.common import fail

    try:
        services.project.use_project(folder)
    except services.FmhactlError as exc:
        fail(str(exc), exc.code)
