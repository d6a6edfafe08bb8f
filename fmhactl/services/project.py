"""Kernel projects: which one is in use, `fmhactl init`, and the shipped include path.

The project is found once per process (paths.discover_project: $FMHACTL_PROJECT, else the working
directory upward) and exported to $FMHACTL_PROJECT, so the kernel workers, ncu and scenario
subprocesses use the same project whatever their working directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput
from fmhactl.schemas import shown


@dataclass(frozen=True)
class ProjectInfo:
    name: str
    root: Path
    file: Path
    builtin: bool
    variants: int
    work_dir: Path

    def to_dict(self) -> dict:
        return {"name": self.name, "root": str(self.root), "file": str(self.file), "builtin": self.builtin,
                "variants": self.variants, "work_dir": str(self.work_dir)}


def use_project(folder: Path | None) -> None:
    """--project DIR: check it holds an fmhactl.toml and make it the project of this process and
    its children. None: keep discovery (env, then the working directory upward)."""
    if folder is None:
        found = paths.discover_project()
        if found is not None and not paths.is_builtin_project(found):
            os.environ[paths.PROJECT_ENV] = str(found)
        return
    text = str(folder)
    if not text or "\0" in text:
        raise BadInput(f"--project {text!r}: not a folder path")
    try:  # is_file/is_dir raise, not answer False, on a name too long for the file system
        target = folder.parent if folder.name == paths.PROJECT_FILE and folder.is_file() else folder
        if not target.is_dir():
            raise BadInput(f"--project {folder}: no such folder")
        if not (target / paths.PROJECT_FILE).is_file():
            raise BadInput(f"--project {folder}: no {paths.PROJECT_FILE} there (`fmhactl init {folder}` makes one)")
        resolved = target.resolve()
    except OSError as exc:
        raise BadInput(f"--project {shown(text)}: cannot be read ({exc.strerror or exc})") from None
    os.environ[paths.PROJECT_ENV] = str(resolved)


def project_info() -> ProjectInfo:
    """The project in use, loaded and checked (a bad project file is BadInput naming it)."""
    from fmhactl.project.files import active_project
    from fmhactl.registry import load_registry

    project = active_project()
    root = paths.active_project_dir()
    if project is None:
        return ProjectInfo("fmhactl", root, paths.kernels_dir() / "family.toml", True, len(load_registry()),
                           paths.work_dir())
    return ProjectInfo(project.name, project.root, project.file, paths.is_builtin_project(project.root),
                       len(load_registry()), paths.work_dir())


def include_dir() -> Path:
    """The shipped kernel headers (common/fmha_params.h, common/tcgen05.cuh, ...)."""
    folder = paths.kernels_dir()
    if not (folder / "common" / "fmha_params.h").is_file():
        from fmhactl.errors import MissingEnvironment

        raise MissingEnvironment(f"the kernel headers are missing from {folder} (a broken install?)")
    return folder.resolve()


@dataclass
class InitOutcome:
    root: Path
    name: str
    written: list[Path]

    def to_dict(self) -> dict:
        return {"root": str(self.root), "name": self.name, "written": [str(p) for p in self.written]}


def init_project(folder: Path, *, name: str | None = None, force: bool = False) -> InitOutcome:
    """Scaffold a project in folder (fmhactl/project/scaffold.py); every file is checked before
    one is written, and the new project file is loaded back (it must validate)."""
    from fmhactl.project.files import load_project_file
    from fmhactl.project.scaffold import plan_scaffold, project_name, write_scaffold

    text = str(folder)
    if not text or "\0" in text:
        raise BadInput(f"init {text!r}: not a folder path")
    files = plan_scaffold(folder, name, force=force)
    result = write_scaffold(files, folder, project_name(folder.resolve(), name))
    load_project_file(folder / paths.PROJECT_FILE)
    return InitOutcome(result.root, result.name, result.written)
