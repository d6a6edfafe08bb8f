"""`fmhactl tui` from the command line: deep links, headless screenshots, bad input, lazy Textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fmhactl.cli.app import app

runner = CliRunner()


def test_help_does_not_import_textual():
    code = ("import sys; from typer.testing import CliRunner; from fmhactl.cli.app import app; "
            "r = CliRunner().invoke(app, ['--help']); assert r.exit_code == 0, r.output; "
            "assert 'tui' in r.output; print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_screenshot_writes_an_svg_of_the_deep_linked_screen(tmp_path: Path):
    target = tmp_path / "tmem.svg"
    result = runner.invoke(app, ["tui", "--screen", "tmem", "--shape", "32x32b", "--num", "8", "--warp", "1",
                                 "--cell", "40,3", "--screenshot", str(target), "--size", "100x30"])
    assert result.exit_code == 0, result.output
    svg = target.read_text()
    assert svg.startswith("<svg") and "32x32b.x8" in svg and "r[3]" in svg


def test_screenshot_after_pressed_keys(tmp_path: Path):
    target = tmp_path / "desc.svg"
    result = runner.invoke(app, ["tui", "--screen", "descriptors", "--value", "0x08400010", "--press",
                                 "ctrl+t", "--screenshot", str(target), "--size", "100x30"])
    assert result.exit_code == 0, result.output
    assert "shared-memory descriptor" in target.read_text().replace("&#160;", " ")


@pytest.mark.parametrize("args, message", [
    (["--screen", "nope"], "unknown screen"),
    (["--screen", "tmem", "--shape", "8x8b"], "unknown tcgen05.ld/st shape"),
    (["--screen", "tmem", "--dims", "1,2"], "does not apply to --screen tmem"),
    (["--screen", "accum", "--n", "7"], "N must be 8..256"),
    (["--screen", "descriptors", "--value", "0xZZ"], "is not an integer"),
    (["--screen", "smem", "--rows", "100000", "--cols", "100000"], "rows must be in 1..4096"),
    (["--screen", "tma", "--box", "1,x"], "is not an integer"),
    (["--screen", "tmem", "--size", "10x10", "--screenshot", "x.svg"], "--size"),
    (["--screen", "tmem", "--screenshot", "x.png"], "must end in .svg"),
    (["--screen", "tmem", "--press", "a"], "--press only applies"),
    (["--screen", "tmem", "--press", "g,nosuchkey", "--screenshot", "x.svg"], "--press 'g,nosuchkey': 'nosuchkey' is not"),
    (["--screen", "tmem", "--press", "ctrl+", "--screenshot", "x.svg"], "is not a key name"),
    (["--screen", "checkpoints", "--dump", "/nonexistent.json", "--screenshot", "x.svg"],
     "--dump: dump file /nonexistent.json: not found"),
    (["--screen", "checkpoints", "--dump", "/nonexistent.json"], "--dump: dump file /nonexistent.json: not found"),
    (["--dump", "/nonexistent.json", "--screenshot", "x.svg"], "--dump does not apply to --screen tmem"),
    (["--screen", "tmem", "--plan", "sm90_persistent"], "not an SM100 variant"),
    (["--screen", "tmem", "--plan", "sm100_tma_s2_tmem", "--head-dim", "100"], "multiple of 8"),
])
def test_bad_deep_links_exit_2_with_one_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["tui", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "x.svg").exists()  # nothing written: refused before the app started


def test_screenshot_of_an_unsupported_plan_says_so(tmp_path: Path):
    """A plan that does not fit is not bad input: the screen opens and says UNSUPPORTED, as the CLI."""
    target = tmp_path / "plan.svg"
    result = runner.invoke(app, ["tui", "--screen", "tmem", "--plan", "sm100_tma_s2_smem", "--head-dim", "512",
                                 "--screenshot", str(target)])
    assert result.exit_code == 0, result.output
    assert "UNSUPPORTED:" in target.read_text().replace("&#160;", " ")
