"""`fmhactl ptx` through the real CLI: JSON with schema_version, exit 1 for a refused form, exit 2
for bad input (one stderr line, no traceback), and --emulate's checks before any GPU probe."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fmhactl.cli.app import app

PTX = ".version 9.0\n.target sm_100a\n.address_size 64\n.file 1 \"k.cu\"\n.loc 1 12 3\n{}\n"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def error_line(result, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.output)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("fmhactl: error:"), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_scan_json_lists_forms_with_lines(tmp_path):
    path = tmp_path / "k.ptx"
    path.write_text(PTX.format("tcgen05.wait::ld.sync.aligned;\ntcgen05.fence::after_thread_sync;\n"
                               "tcgen05.wait::ld.sync.aligned;"))
    result = invoke("ptx", "scan", str(path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["schema_version"] >= 1 and report["ok"] is True and report["tcgen05_instructions"] == 3
    first = report["forms"][0]
    assert (first["form"], first["count"], first["first_ptx_line"], first["source"]) == ("wait.ld", 2, 6, "k.cu:12")


def test_scan_of_a_refused_form_exits_1_naming_it(tmp_path):
    path = tmp_path / "k.ptx"
    path.write_text(PTX.format("tcgen05.shift.cta_group::1.down [%r1];"))
    line = error_line(invoke("ptx", "scan", str(path)), 1)
    assert "shift.down" in line and "ptx-form-unsupported" in line and "PTX line 6" in line


@pytest.mark.parametrize("args, fragment", [
    (("ptx", "scan", "/nonexistent/k.ptx"), "no such file"),
    (("ptx", "scan", "README.md"), "not a PTX module"),
    (("ptx", "scan", "no_such_variant"), "not a variant name"),
    (("ptx", "scan", "sm90_pingpong"), "no sm_100a build"),
    (("ptx", "link", "README.md", "-o", "/nonexistent-dir/\0x"), "-o"),
    (("ptx", "link", "README.md", "-o", "k.cubin", "--emulation", "slow"), "choose strict or fast"),
    (("verify", "sm100_tma_s2_tmem", "--emulate", "native", "--emulation", "slow", "--shape", "t=128,s=128,d=64"),
     "strict or fast"),
    (("verify", "sm100_tma_s2_tmem", "--emulate", "emu", "--emulation", "fast", "--shape", "t=128,s=128,d=64"),
     "choose tc5 or native"),
])
def test_bad_input_is_one_line_exit_2(args, fragment, tmp_path):
    binary = tmp_path / "k.cubin"
    binary.write_bytes(b"\x7fELF\0")
    assert fragment in error_line(invoke(*args), 2)


def test_binary_input_is_refused(tmp_path):
    binary = tmp_path / "k.cubin"
    binary.write_bytes(b"\x7fELF\0")
    assert "binary file" in error_line(invoke("ptx", "scan", str(binary)), 2)
