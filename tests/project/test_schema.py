"""Bad project files: one stderr line naming the file, the field and the rule, exit 2, nothing
recorded or built."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from fmhactl.cli.app import app

GOOD_VARIANT = '''
[[variant]]
name = "k"
source = "k.cu"
archs = ["sm_90a"]
kernel = "k_{dtype}"
head_dims = [64]
[variant.launch]
grid = ["ceil_div(seq_q, 64)", "heads", "batch"]
block = [128]
'''
HEAD = '[project]\nname = "p"\n'

# (project file text, fragments the error line must hold: the field and the rule)
MALFORMED = [
    ("", ["project: needs 'project'"]),
    ('[project]\n', ["project.name", "needs 'name'"]),
    (HEAD + "unknown_key = 1\n", ["unknown_key", "unknown field"]),
    ('[project]\nname = 5\n', ["project.name", "string"]),
    (HEAD + GOOD_VARIANT.replace('archs = ["sm_90a"]', 'archs = ["sm_75"]'), ["archs", "sm_90a"]),
    (HEAD + GOOD_VARIANT.replace('archs = ["sm_90a"]\n', ''), ["archs", "needs 'archs'"]),
    (HEAD + GOOD_VARIANT.replace('head_dims = [64]', 'head_dims = "64"'), ["head_dims", "list"]),
    (HEAD + GOOD_VARIANT.replace('"heads", "batch"', '"heads +", "batch"'), ["launch.grid[1]", "not a formula"]),
    (HEAD + GOOD_VARIANT.replace('"heads", "batch"', '"nheads", "batch"'), ["launch.grid[1]", "unknown name 'nheads'"]),
    (HEAD + GOOD_VARIANT.replace('"heads", "batch"', '"__import__(1)", "batch"'), ["only ceil_div, min, max"]),
    (HEAD + GOOD_VARIANT.replace('"heads", "batch"', '"q.x", "batch"'), ["Attribute is not allowed"]),
    (HEAD + GOOD_VARIANT.replace('block = [128]\n', ''), ["needs 'grid' and 'block'"]),
    (HEAD + GOOD_VARIANT.replace('[variant.launch]', 'launcher = "sm90"\n[variant.launch]'), ["exactly one"]),
    (HEAD + GOOD_VARIANT.replace('[variant.launch]', 'launcher = "nope"\n[variant.launchx]'), ["unknown field"]),
    (HEAD + GOOD_VARIANT.replace('source = "k.cu"', 'source = "missing.cu"'), ["source", "'missing.cu' not found"]),
    (HEAD + GOOD_VARIANT + GOOD_VARIANT, ["variant 'k' defined twice"]),
    (HEAD + GOOD_VARIANT.replace('[variant.launch]', 'params = "mine"\n[variant.launch]'),
     ["params", "unknown params layout 'mine'"]),
    (HEAD + GOOD_VARIANT + '[params.mine]\nfields = [{ name = "q", type = "ptr", value = "seq_q" }]\n',
     ["params.mine", "a ptr takes one of"]),
    (HEAD + GOOD_VARIANT + '[params.mine]\nfields = [{ name = "n", type = "i16", value = "heads" }]\n',
     ["params.mine.fields[0].type"]),
    (HEAD + GOOD_VARIANT + '[params.mine]\nfields = [{ name = "n", type = "i32", value = "heads /" }]\n',
     ["fields[0] (n)", "not a formula"]),
    (HEAD + GOOD_VARIANT.replace('block = [128]', 'block = [128]\nhook = "launch.py"'), ["not both"]),
    (HEAD + GOOD_VARIANT.replace('grid = ["ceil_div(seq_q, 64)", "heads", "batch"]\nblock = [128]', 'hook = "gone.py"'),
     ["launch.hook", "'gone.py' not found"]),
    ('[project]\nname = "p"\ninclude = ["a.toml"]\n', ["project.include[0]", "'a.toml' not found"]),
    ('[project]\nname = "p"\ninclude = ["a.toml"]\n', ["include cycle"]),  # a.toml written below
    ('[project]\nname = "p"\ninclude_dirs = ["nope"]\n', ["project.include_dirs[0]", "folder 'nope' not found"]),
    ('[project]\nname = "p"\nmilestones = "m.toml"\n', ["project.milestones", "'m.toml' not found"]),
    ("[project\nname = 'p'\n", ["malformed TOML"]),
]


@pytest.mark.parametrize("text,fragments", MALFORMED, ids=[f"case{i}" for i in range(len(MALFORMED))])
def test_malformed_project_file(tmp_path, fmhactl_home, text, fragments, monkeypatch):
    (tmp_path / "k.cu").write_text('extern "C" __global__ void k_bf16() {}\n')
    if "include cycle" in fragments:
        (tmp_path / "a.toml").write_text('include = ["b.toml"]\n')
        (tmp_path / "b.toml").write_text('include = ["a.toml"]\n')
    (tmp_path / "fmhactl.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in fmhactl_home.rglob("*"))
    for command in (["list"], ["build", "--all"], ["verify", "k", "--grid", "smoke"]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 2, (command, result.output)
        lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("fmhactl: error:"), result.stderr
        assert "Traceback" not in result.output
        assert "fmhactl.toml" in lines[0] or ".toml" in lines[0]
        for fragment in fragments:
            assert fragment in lines[0], (fragment, lines[0])
    assert sorted(p.name for p in fmhactl_home.rglob("*")) == before  # nothing built, nothing recorded
    assert not (tmp_path / ".fmhactl").exists()


def test_good_file_loads(tmp_path, monkeypatch):
    (tmp_path / "k.cu").write_text('extern "C" __global__ void k_bf16() {}\n')
    (tmp_path / "fmhactl.toml").write_text(HEAD + GOOD_VARIANT)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["list", "--json"])
    assert result.exit_code == 0, result.output
    assert '"k"' in result.stdout and "ceil_div(seq_q, 64)" in result.stdout
