"""The layout model's import graph has no cycle (descriptors <-> smem used to import each other),
and neither the model nor the services import typer or rich (only cli/ and tui/ may)."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "fmhactl"


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside functions."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def layout_graph() -> dict[str, set[str]]:
    mods = {f"fmhactl.layout.{p.stem}": p for p in (PKG / "layout").glob("*.py") if p.stem != "__init__"}
    return {m: {i for i in imports_of(p) if i in mods and i != m} for m, p in mods.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (c := visit(m)):
                return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (c := visit(n)):
            return c
    return None


def test_layout_modules_import_without_cycles():
    graph = layout_graph()
    assert find_cycle(graph) is None, find_cycle(graph)


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_typer_or_rich_outside_cli():
    for folder in ("layout", "present", "services"):
        for path in (PKG / folder).glob("*.py"):
            bad = {i for i in imports_of(path) if i.split(".")[0] in ("typer", "rich")}
            assert not bad, (path, bad)
