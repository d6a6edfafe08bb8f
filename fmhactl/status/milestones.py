"""The milestones file: scenarios/milestones.toml."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput

_ID = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True)
class Milestone:
    id: str
    title: str
    variants: tuple[str, ...]
    grids: tuple[str, ...] = ()
    scenario: str = ""
    blocked: str = ""
    depends: tuple[str, ...] = ()
    what: str = ""
    checks: tuple[str, ...] = ()  # "kind:config_key" result rows that must pass (integration checks, not grids)


def milestones_path() -> Path:
    return paths.scenarios_dir() / "milestones.toml"


def load_milestones(path: Path | None = None) -> list[Milestone]:
    path = path or milestones_path()
    if not path.is_file():
        raise BadInput(f"milestones file not found: {path}")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: malformed TOML: {exc}") from None
    out: list[Milestone] = []
    seen: set[str] = set()
    for index, table in enumerate(data.get("milestone", []), 1):
        if not isinstance(table, dict) or "id" not in table or "title" not in table:
            raise BadInput(f"{path}: milestone {index} needs id and title")
        mid = str(table["id"])
        if not _ID.match(mid) or mid in seen:
            raise BadInput(f"{path}: milestone id {mid!r} is malformed or repeated")
        seen.add(mid)
        lists = {}
        for key in ("variants", "grids", "depends", "checks"):
            value = table.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise BadInput(f"{path}: milestone {mid}: {key} must be a list of strings")
            lists[key] = tuple(value)
        if not lists["variants"] and not lists["checks"]:
            raise BadInput(f"{path}: milestone {mid} names no variants and no checks")
        malformed = [c for c in lists["checks"] if c.count(":") != 1 or not all(c.split(":"))]
        if malformed:
            raise BadInput(f"{path}: milestone {mid}: checks must read kind:name, got {', '.join(malformed)}")
        out.append(Milestone(id=mid, title=str(table["title"]), variants=lists["variants"], grids=lists["grids"],
                             scenario=str(table.get("scenario", "")), blocked=str(table.get("blocked", "")),
                             depends=lists["depends"], what=str(table.get("what", "")), checks=lists["checks"]))
    if not out:
        raise BadInput(f"{path}: no [[milestone]] tables")
    for m in out:
        unknown = [d for d in m.depends if d not in seen]
        if unknown:
            raise BadInput(f"{path}: milestone {m.id} depends on unknown {', '.join(unknown)}")
    return out
