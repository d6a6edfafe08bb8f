"""The milestones file: scenarios/milestones.toml."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput


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
    """The active project's milestones file (project.milestones in its fmhactl.toml); a project
    that declares none is told so (exit 2) rather than given the built-in family's."""
    from fmhactl.project.files import active_project

    project = active_project()
    if project is not None and not paths.is_builtin_project(project.root):
        if project.milestones is None:
            raise BadInput(f"{project.file}: project.milestones: this project declares no milestones file "
                           "(fmhactl status computes the milestones it lists)")
        return project.milestones
    return paths.scenarios_dir() / "milestones.toml"


def _uncovered(scenario: str, variants: list[str], grids: list[str]) -> list[str]:
    """The "variant on grid GRID" pairs of a milestone that no verify step of its scenario runs."""
    from fmhactl.scenario.model import load_scenario

    steps = [s for s in load_scenario(scenario).steps if s.type == "verify"]
    covered = {(v, s.options.get("grid")) for s in steps for v in s.options.get("variants", [])}
    return [f"{v} on grid {g}" for v in variants for g in grids if (v, g) not in covered]


def load_milestones(path: Path | None = None) -> list[Milestone]:
    """The milestones file, checked against fmhactl.schemas.MilestonesFile (ids, dependencies,
    cycles) and against what exists: grids and scenarios must be known (exit 2 otherwise).
    Variants may be missing from the registry: such a milestone is BLOCKED, not an error."""
    from fmhactl.scenario.model import available_scenarios
    from fmhactl.schemas import MilestonesFile, read_toml, validate
    from fmhactl.verify.grids import available_grids

    path = path or milestones_path()
    if not paths.is_file(path, "milestones file"):
        raise BadInput(f"milestones file not found: {path}")
    model = validate(MilestonesFile, read_toml(path, "milestones file"), path)
    grids, scenarios = set(available_grids()), set(available_scenarios())
    out: list[Milestone] = []
    for index, m in enumerate(model.milestone):
        unknown = [g for g in m.grids if g not in grids]
        if unknown:
            raise BadInput(f"{path}: milestone[{index}].grids: unknown grid {unknown[0]!r} "
                           f"(known: {', '.join(sorted(grids))})")
        if m.scenario and m.scenario not in scenarios:
            raise BadInput(f"{path}: milestone[{index}].scenario: unknown scenario {m.scenario!r}")
        if m.scenario:
            uncovered = _uncovered(m.scenario, m.variants, m.grids)
            if uncovered:
                raise BadInput(f"{path}: milestone[{index}].scenario: {m.scenario!r} does not verify "
                               f"{uncovered[0]} (a milestone's scenario re-proves every variant on every grid)")
        out.append(Milestone(id=m.id, title=m.title, variants=tuple(m.variants), grids=tuple(m.grids),
                             scenario=m.scenario, blocked=m.blocked, depends=tuple(m.depends), what=m.what,
                             checks=tuple(m.checks)))
    return out
