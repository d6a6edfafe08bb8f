"""`fmhactl init DIR`: a project that builds, verifies and benches out of the box.

Three kernels, each a file the project owns and edits:
  sm90_start     the portable reference kernel (kernels/ref, verified), copied as the SM90 starting
                 point, launched by formulas in fmhactl.toml;
  sm100_tc5      the family's 6-warp SM100 kernel on the tc5:: API (kernels/sm100, verified), copied;
  sm100_raw_ptx  an FMHA in raw inline tcgen05 PTX grown from tests/ptx/kernels/raw_attn.cu
                 (templates/sm100_raw_ptx.cu), emulated on Hopper through the PTX path.
The shared headers (common/...) stay in the package: builds find them via `fmhactl include-dir`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput, MissingEnvironment
from fmhactl.schemas import shown

TEMPLATES = Path(__file__).resolve().parent / "templates"
_NAME = re.compile(r"[^A-Za-z0-9_.+-]+")


@dataclass
class ScaffoldResult:
    root: Path
    name: str
    written: list[Path] = field(default_factory=list)


def _copied_kernels() -> dict[str, str]:
    """File name in the new project -> its text, from the shipped (verified) family sources."""
    kernels = paths.kernels_dir()
    ref = (kernels / "ref" / "fmha_ref.cuh").read_text()
    sm100 = (kernels / "sm100" / "fmha_sm100.cuh").read_text()
    sm100_entries = (kernels / "sm100" / "fmha_sm100.cu").read_text().replace(
        '#include "sm100/fmha_sm100.cuh"', '#include "sm100_tc5.cuh"')
    return {
        "kernels/sm90_start.cuh": "// Copied from fmhactl's reference kernel by `fmhactl init`: yours to edit.\n" + ref,
        "kernels/sm90_start.cu": '// Entry points of sm90_start (fmhactl.toml).\n#include "sm90_start.cuh"\n',
        "kernels/sm100_tc5.cuh": "// Copied from fmhactl's SM100 family by `fmhactl init`: yours to edit.\n" + sm100,
        "kernels/sm100_tc5.cu": sm100_entries,
    }


def project_name(root: Path, name: str | None) -> str:
    chosen = name or _NAME.sub("_", root.name).strip("_.+-") or "kernels"
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}", chosen):
        raise BadInput(f"--name {chosen[:70]!r}: a project name is 1-64 letters, digits, _ . + - "
                       "starting with a letter or digit")
    return chosen


def plan_scaffold(root: Path, name: str | None = None, *, force: bool = False) -> dict[Path, str]:
    """Every file init would write, checked first: BadInput if DIR is a file, or holds a project
    (or any of these files) and force is not given."""
    try:  # a name too long for the file system (OSError) or a symlink loop (RuntimeError from resolve)
        if root.exists() and not root.is_dir():
            raise BadInput(f"init {root}: exists and is not a folder")
        resolved = root.resolve()
    except (OSError, RuntimeError) as exc:
        raise BadInput(f"init {shown(str(root))}: not a usable folder path "
                       f"({getattr(exc, 'strerror', None) or exc})") from None
    paths.check_output_path(root / "fmhactl.toml", "init")  # under a file, in /proc: bad input, before writing
    chosen = project_name(resolved, name)
    files = {"fmhactl.toml": (TEMPLATES / "fmhactl.toml").read_text().format(name=chosen),
             "milestones.toml": (TEMPLATES / "milestones.toml").read_text(),
             "kernels/sm100_raw_ptx.cu": (TEMPLATES / "sm100_raw_ptx.cu").read_text(),
             ".gitignore": ".fmhactl/\n",
             **_copied_kernels()}
    out = {root / rel: text for rel, text in files.items()}
    if not force:
        present = [p for p in out if p.exists()]
        if present:
            raise BadInput(f"init {root}: {present[0].relative_to(root)} already exists (--force overwrites)")
    return out


def write_scaffold(files: dict[Path, str], root: Path, name: str) -> ScaffoldResult:
    result = ScaffoldResult(root.resolve(), name)
    for path, text in files.items():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise MissingEnvironment(f"init {root}: cannot write {path} ({exc.strerror or exc})") from None
        result.written.append(path)
    return result
