"""One JSON envelope key: every object every `--json` command prints carries `schema_version`
(issue 22 item 6). The commands are the Typer app's, with the arguments of tests/cli/test_pipes.py."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fmhactl.cli.app import app
from tests.cli.test_pipes import NEEDS_GPU, PRINTS, RAW, _leaf_commands, substitute

WITH_JSON = sorted(name for name in PRINTS if "--json" not in PRINTS[name])


def _objects(doc) -> list[dict]:
    """The top-level object, or each object of a top-level list."""
    return [doc] if isinstance(doc, dict) else [d for d in doc if isinstance(d, dict)]


def test_every_command_with_json_is_covered():
    import typer.main

    root = typer.main.get_command(app)
    with_json = set()
    for name in _leaf_commands():
        command = root
        for part in name.split():
            command = command.commands[part]
        if any("--json" in getattr(p, "opts", ()) for p in command.params):
            with_json.add(name)
    assert with_json - set(PRINTS) - set(NEEDS_GPU) == set()


@pytest.mark.parametrize("name", sorted(PRINTS))
def test_every_json_object_carries_schema_version(name, tmp_path):
    from fmhactl.trace.events import to_bytes
    from tests.trace.synth import synth_events

    raw = tmp_path / "events.bin"
    raw.write_bytes(to_bytes(synth_events(2, 2)))
    args = substitute(list(PRINTS[name]), raw)
    if "--json" not in args:
        args.append("--json")
    result = CliRunner().invoke(app, [*name.split(), *args])
    assert result.exit_code == 0, result.stdout[-500:] + result.stderr[-500:]
    doc = json.loads(result.stdout)
    objects = _objects(doc)
    assert objects or doc == [], doc
    for obj in objects:
        assert isinstance(obj.get("schema_version"), int), sorted(obj)[:10]
        assert "schema" not in obj
