"""Where the project's files live: the kernel tree, scenarios, and the local results area."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from fmhactl.errors import BadInput, MissingEnvironment

PACKAGE_DIR = Path(__file__).resolve().parent


def project_root() -> Path:
    """The checkout that holds kernels/ (FMHACTL_ROOT overrides, for installed copies)."""
    env = os.environ.get("FMHACTL_ROOT")
    if env:
        return Path(env).resolve()
    return PACKAGE_DIR.parent


def kernels_dir() -> Path:
    """The shipped kernel headers (`fmhactl include-dir`): every project's builds search them.
    A checkout's kernels/; an installed wheel carries them as fmhactl/kernels (setup.py)."""
    checkout = project_root() / "kernels"
    installed = PACKAGE_DIR / "kernels"
    if not checkout.is_dir() and "FMHACTL_ROOT" not in os.environ and installed.is_dir():
        return installed
    return checkout


PROJECT_FILE = "fmhactl.toml"
PROJECT_ENV = "FMHACTL_PROJECT"  # set by `fmhactl --project DIR`; workers and subprocesses inherit it


def discover_project(start: Path | None = None) -> Path | None:
    """The kernel project in use: $FMHACTL_PROJECT (a folder holding fmhactl.toml, or the file
    itself), else the nearest folder from start (the working directory) upward that holds
    fmhactl.toml, as pytest finds its rootdir; None when there is none (the built-in family)."""
    env = os.environ.get(PROJECT_ENV)
    if env is not None:
        if not env.strip() or "\0" in env:
            raise BadInput(f"{PROJECT_ENV}={env[:60]!r}: not a path")
        given = Path(env).expanduser()
        folder = given.parent if given.name == PROJECT_FILE and given.is_file() else given
        if not (folder / PROJECT_FILE).is_file():
            raise BadInput(f"project {given}: no {PROJECT_FILE} there (--project names a folder holding one)")
        return folder.resolve()
    try:
        here = (start or Path.cwd()).resolve()
    except OSError:
        return None
    for folder in (here, *here.parents):
        try:
            if (folder / PROJECT_FILE).is_file():
                return folder
        except OSError:
            return None
    return None


def builtin_project_dir() -> Path:
    """The built-in family's project: the checkout (its fmhactl.toml includes kernels/family.toml)."""
    return project_root()


def _is_fmhactl_checkout(folder: Path) -> bool:
    """A checkout of fmhactl itself: it stands for the built-in family, which FMHACTL_ROOT may
    point at another copy of (tests and the malformed sweep run from one checkout on another)."""
    return (folder / "fmhactl" / "__init__.py").is_file() and (folder / "kernels" / "family.toml").is_file()


def active_project_dir() -> Path:
    """The root of the project whose variants, results, cache and status files are used."""
    found = discover_project()
    if found is None or _is_fmhactl_checkout(found):
        return builtin_project_dir()
    return found


def is_file(path: Path, what: str) -> bool:
    """path.is_file() for a path the user gave; where the question itself fails (a name too long
    for the file system: pathlib raises rather than answering False) BadInput naming `what`."""
    return _ask(path.is_file, path, what)


def is_dir(path: Path, what: str) -> bool:
    """path.is_dir() for a path the user gave, as is_file."""
    return _ask(path.is_dir, path, what)


def exists(path: Path, what: str) -> bool:
    """path.exists() for a path the user gave, as is_file."""
    return _ask(path.exists, path, what)


def resolved(path: Path, what: str) -> Path:
    """path.resolve() for a path the user gave (or a file of theirs named), BadInput naming `what`
    where it cannot be resolved: a symlink loop makes resolve raise RuntimeError (OSError from
    Python 3.13), a name too long for the file system OSError."""
    try:
        return path.resolve()
    except (OSError, RuntimeError) as exc:
        from fmhactl.schemas import shown

        why = getattr(exc, "strerror", None) or str(exc)
        raise BadInput(f"{what} {shown(str(path))}: cannot be resolved ({why})") from None


def _ask(question, path: Path, what: str) -> bool:
    try:
        return bool(question())
    except OSError as exc:
        from fmhactl.schemas import shown

        raise BadInput(f"{what} {shown(str(path))}: not a usable path ({exc.strerror or exc})") from None


def is_builtin_project(root: Path) -> bool:
    try:
        return root.resolve() == builtin_project_dir().resolve() or _is_fmhactl_checkout(root)
    except OSError:
        return False


def scenarios_dir() -> Path:
    return project_root() / "scenarios"


def profiles_dir() -> Path:
    return project_root() / "profiles"


def _usable_dir(path: Path, what: str) -> Path:
    """Create path if needed and prove it takes a file: MissingEnvironment (exit 3) otherwise."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise MissingEnvironment(f"{what} {path} exists and is not a folder") from None
    except OSError as exc:
        raise MissingEnvironment(f"{what} {path} cannot be created: {exc.strerror or exc}") from None
    if not path.is_dir():
        raise MissingEnvironment(f"{what} {path} is not a folder")
    try:
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise MissingEnvironment(f"{what} {path} is not writable: {exc.strerror or exc}") from None
    return path


_checked: set[str] = set()


def work_dir() -> Path:
    """Project-local state: results database, build cache, profiler reports (FMHACTL_HOME overrides)."""
    env = os.environ.get("FMHACTL_HOME")
    if env is not None and (not env.strip() or "\0" in env):
        raise MissingEnvironment(f"FMHACTL_HOME={env!r} is not a usable path")
    root = active_project_dir()
    if env:
        # Projects share one FMHACTL_HOME by a folder each (name plus a hash of the root), so two
        # projects' variants of one name never meet in a cache or a results store.
        path = Path(env) if is_builtin_project(root) else Path(env) / "projects" / _project_slug(root)
    else:
        path = root / ".fmhactl"
    if str(path) not in _checked:
        _usable_dir(path, "FMHACTL_HOME" if env else "the work folder")
        _checked.add(str(path))
    return path


def _project_slug(root: Path) -> str:
    import hashlib

    return f"{root.name[:40]}-{hashlib.sha256(str(root).encode()).hexdigest()[:10]}"


def cache_dir() -> Path:
    path = work_dir() / "cache"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MissingEnvironment(f"build cache {path} cannot be created: {exc.strerror or exc}") from None
    return path


def results_db_path() -> Path:
    return work_dir() / "results.sqlite"


def check_output_path(path: Path, option: str) -> Path:
    """Fail before any work when an output file cannot be written (BadInput, exit 2).

    Nothing is created: a missing parent folder is proved creatable through the deepest folder
    that exists (an anonymous temporary file there), and the writer makes it (create_parent) when
    it writes, so a command refused later (no GPU, a bad shape) leaves no folder behind. An
    existing file must be a writable regular file.
    """
    text = str(path)
    if not text or "\0" in text:
        raise BadInput(f"{option}: {text!r} is not a file path")
    parent = path.parent if str(path.parent) else Path(".")
    try:
        if path.exists() and path.is_dir():
            raise BadInput(f"{option} {path}: is a folder, a file path is needed")
        if path.is_symlink() and not path.exists():
            path.resolve()  # a symlink loop: exists() answers False, resolve raises, the writer's open would
        existing = parent
        while not existing.exists() and existing.parent != existing:
            existing = existing.parent
    except (OSError, RuntimeError) as exc:  # RuntimeError: Path.resolve's "Symlink loop"
        raise BadInput(f"{option} {path}: not writable ({getattr(exc, 'strerror', None) or exc})") from None
    if not existing.is_dir():
        raise BadInput(f"{option} {path}: folder {parent} cannot be created ({existing} is not a folder)")
    try:
        if path.exists():
            with path.open("ab"):
                pass
        else:
            with tempfile.TemporaryFile(dir=existing):
                pass
    except OSError as exc:
        if existing != parent:
            raise BadInput(f"{option} {path}: folder {parent} cannot be created "
                           f"({existing}: {exc.strerror or exc})") from None
        raise BadInput(f"{option} {path}: not writable ({exc.strerror or exc})") from None
    return path


def create_parent(path: str | Path, option: str) -> Path:
    """The writer's half of check_output_path: make the output file's missing folders, now that
    the command has something to write (BadInput if that fails after all)."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"{option} {target}: folder {parent} cannot be created ({exc.strerror or exc})") from None
    return target
