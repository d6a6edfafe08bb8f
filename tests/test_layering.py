"""The layering of fmhactl, enforced over the import graph (every import, including the lazy
ones inside functions). docs/architecture.md draws the same picture.

    5  cli, tui                      parse, call services, render (the only typer/rich/textual users)
    4  present                       the shells' rendering (tables, grids, SVG); no service imports it
    4  services (+ unknown new packages)   the single entry; composes the layers below
    3  verify, bench, profile, status, scenario   features
    2  runtime                        worker, launch, device probe, emulation host side
    3  (also sweep: multi-GPU / Ray placement and parallel builds; torch: the PyTorch op;
        trace: emulation traces)
    1  registry, layout, plans (tile plans, pure launch geometry), results, build, ptx
    0  errors, paths, config, records, progress, schemas, locks

A module may import its own rank or lower, never higher, and no module imports itself back
through others (no cycles). No rank overrides for single modules: a module that needs one belongs
in another package.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fmhactl"

RANKS = {  # most specific prefix wins
    "fmhactl.cli": 5, "fmhactl.tui": 5,
    "fmhactl.services": 4,
    "fmhactl.present": 4,  # the shells' rendering of layout/TMA facts; test_named_rules: no service imports it
    "fmhactl.verify": 3, "fmhactl.bench": 3, "fmhactl.profile": 3, "fmhactl.status": 3, "fmhactl.scenario": 3,
    "fmhactl.runtime": 2,
    "fmhactl.registry": 1, "fmhactl.layout": 1, "fmhactl.results": 1, "fmhactl.build": 1, "fmhactl.plans": 1,
    "fmhactl.project": 1,  # kernel projects: fmhactl.toml schema, formulas, params ABI, init scaffold
    "fmhactl.ptx": 1,  # the PTX-level tcgen05 emulator: parser, forms, rewriter, link (the build calls it)
    "fmhactl.sweep": 3,  # multi-GPU / Ray placement of verify, bench and parallel build work
    "fmhactl.torch": 3,  # the PyTorch op and transformers backend (explicit import only)
    "fmhactl.trace": 3,  # emulation traces: schedule, cost model, Chrome trace
    "fmhactl.errors": 0, "fmhactl.paths": 0, "fmhactl.config": 0, "fmhactl.records": 0,
    "fmhactl.progress": 0, "fmhactl.schemas": 0, "fmhactl.locks": 0, "fmhactl": 0,
}
DEFAULT_RANK = 4  # a package added later sits with the services: it may use everything but the CLI
UI_LIBRARIES = ("typer", "rich", "textual", "click")

# Known, named exceptions owned by another piece of work; each must still be true (so a fixed one
# makes this test ask for its removal).
PENDING_UI_IMPORTS: dict[str, str] = {}


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def rank(module: str) -> int:
    best, best_len = DEFAULT_RANK, -1
    for prefix, r in RANKS.items():
        covers = module == prefix or (prefix != "fmhactl" and module.startswith(prefix + "."))
        if covers and len(prefix) > best_len:
            best, best_len = r, len(prefix)
    return best


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every import statement, resolved to absolute names."""
    tree = ast.parse(path.read_text(), filename=str(path))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((node.lineno, target))
            # `from fmhactl.cli import layout` imports the submodule fmhactl.cli.layout
            out += [(node.lineno, f"{target}.{a.name}") for a in node.names if target.startswith("fmhactl")]
    return out


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def violations(files: list[Path] | None = None) -> list[str]:
    found = []
    for path in files or modules():
        me = module_name(path)
        if me == "fmhactl.__main__":
            continue
        for line, target in imports_of(path):
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            root = target.split(".")[0]
            if root in UI_LIBRARIES and rank(me) < 5 and me not in PENDING_UI_IMPORTS:
                found.append(f"{where}: {me} imports {target} (only cli/ and tui/ may)")
            if target.startswith("fmhactl") and rank(target) > rank(me):
                found.append(f"{where}: {me} (layer {rank(me)}) imports {target} (layer {rank(target)})")
    return found


def test_no_module_imports_a_higher_layer_or_a_ui_library():
    assert violations() == []


def test_no_rank_overrides_for_single_modules():
    """RANKS names packages and top-level modules only: a module that needs a rank other than its
    package's belongs in another package."""
    assert [p for p in RANKS if p.count(".") > 1] == []


def import_graph() -> dict[str, set[str]]:
    """module -> the fmhactl modules it imports. `from pkg import name` points at pkg.name where that is a
    module (importing a submodule runs its package's __init__ too, but that is not an edge of its own)."""
    known = {module_name(p) for p in modules()}
    graph: dict[str, set[str]] = {m: set() for m in known}
    for path in modules():
        me = module_name(path)
        by_line: dict[int, set[str]] = {}
        for line, target in imports_of(path):
            if target in known and target != me:
                by_line.setdefault(line, set()).add(target)
        for targets in by_line.values():
            # `from pkg import sub` also names pkg: only the submodule is the edge of that statement
            graph[me] |= {t for t in targets if not any(o.startswith(t + ".") for o in targets)}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_no_import_cycles():
    """Lazy imports inside functions included: a cycle through them is still one module needing another."""
    assert [sorted(c) for c in cycles(import_graph())] == []


def test_the_cycle_check_catches_a_cycle():
    """The contract can fail: a -> b -> c -> a is one cycle, d (imported by a) is in none."""
    graph = {"a": {"b", "d"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]


def test_pending_exceptions_are_still_needed():
    for module, why in PENDING_UI_IMPORTS.items():
        path = PACKAGE.parent / (module.replace(".", "/") + ".py")
        if not path.is_file():
            pytest.fail(f"{module} is gone: remove it from PENDING_UI_IMPORTS ({why})")
        roots = {t.split(".")[0] for _, t in imports_of(path)}
        assert roots & set(UI_LIBRARIES), f"{module} no longer imports a UI library: remove the exception ({why})"


# What cli/ and tui/ may import besides fmhactl.services and their own modules: the vocabulary every
# layer speaks (rank 0), each for a reason.
SHELL_ALLOWED = {
    "fmhactl": "the package itself: __version__, and `from fmhactl import services`",
    "fmhactl.errors": "the error types and ExitCode the shells map to exit codes",
    "fmhactl.progress": "CancelToken and ProgressEvent, handed to the services",
    "fmhactl.records": "the typed records the services return and the shells render (envelope, schema)",
    "fmhactl.schemas": "`shown`: how a rejected value is quoted in the one-line error",
}
# Packages the shells may import whole (any submodule): their own rendering, shared by cli/ and tui/.
SHELL_RENDERING = {
    "fmhactl.present": "tables, grids, SVG and JSON documents of the layout/TMA facts the services return",
}


def is_module(name: str) -> bool:
    path = PACKAGE.parent / name.replace(".", "/")
    return path.is_dir() or path.with_suffix(".py").is_file()


def shell_imports_past_services(files: list[Path] | None = None) -> list[str]:
    found = []
    for path in files or modules():
        me = module_name(path)
        if not me.startswith(("fmhactl.cli", "fmhactl.tui")):
            continue
        for line, target in imports_of(path):
            if not target.startswith("fmhactl") or target.startswith(("fmhactl.services", "fmhactl.cli",
                                                                         "fmhactl.tui", *SHELL_RENDERING)):
                continue
            if target in SHELL_ALLOWED or (target.rpartition(".")[0] in SHELL_ALLOWED and not is_module(target)):
                continue  # the module, or a name (not a submodule) imported from it
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {me} imports {target} (past the services)")
    return found


def test_shells_import_only_the_services():
    assert shell_imports_past_services() == []


def findings_for_probe(folder: str, text: str, check: Callable[[list[Path]], list[str]]) -> list[str]:
    """Write a throwaway module into fmhactl/<folder>, run `check` over it alone, remove it."""
    bad = PACKAGE / folder / "_layering_probe.py"
    bad.write_text(text)
    try:
        return check([bad])
    finally:
        bad.unlink()


def test_the_shell_check_catches_an_import_past_the_services():
    found = findings_for_probe("cli", "from fmhactl.errors import BadInput\nfrom fmhactl.registry import load_registry\n",
                               shell_imports_past_services)
    assert len(found) == 2 and all("fmhactl.registry" in f for f in found)  # the module and the name


def test_named_rules_of_the_issue():
    """execute does not import verify; the scenario runner does not import cli; services do not import cli."""
    def targets(module: str) -> set[str]:
        path = PACKAGE.parent / (module.replace(".", "/") + ".py")
        return {t for _, t in imports_of(path)}

    assert not any(t.startswith("fmhactl.verify") for t in targets("fmhactl.runtime.execute"))
    assert not any(t.startswith("fmhactl.cli") for t in targets("fmhactl.scenario.runner"))
    for path in (PACKAGE / "services").glob("*.py"):
        assert not any(t.startswith(("fmhactl.cli", "fmhactl.tui", "fmhactl.present")) for _, t in imports_of(path)), path
    for path in (PACKAGE / "present").glob("*.py"):  # the rendering arranges service results: it calls nothing
        assert not any(t.startswith(("fmhactl.services", "fmhactl.cli", "fmhactl.tui")) for _, t in imports_of(path)), path


def test_plans_import_neither_the_registry_nor_the_runtime():
    """Each family's declaration (plans/) is read by the registry and the runtime, never the reverse:
    a plan that imported them would make the generator (python -m fmhactl.plans) depend on them."""
    plan_modules = sorted((PACKAGE / "plans").glob("*.py"))
    assert plan_modules
    bad = [f"{path.name}:{line}: {target}" for path in plan_modules for line, target in imports_of(path)
           if target.startswith(("fmhactl.registry", "fmhactl.runtime"))]
    assert bad == []


def test_one_gpu_probe():
    """Compute capability is asked of the driver or torch in runtime/device.py only."""
    probes = ("COMPUTE_CAPABILITY_MAJOR", "get_device_capability(")
    allowed = {"fmhactl.runtime.device", "fmhactl.layout.tensormap_driver"}  # the latter: layoutsvc's TMA check
    offenders = [module_name(p) for p in modules()
                 if module_name(p) not in allowed and any(s in p.read_text() for s in probes)]
    assert offenders == []


def test_the_checker_catches_a_forbidden_import():
    """The contract can fail: a runtime module importing the verify layer and rich is reported."""
    found = findings_for_probe("runtime", "from fmhactl.verify.compare import compare\nimport rich\n", violations)
    assert any("imports fmhactl.verify.compare" in v for v in found)
    assert any("imports rich" in v for v in found)
