"""`fmhactl layout ...` and `fmhactl tma check`: outputs, JSON, SVG and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from fmhactl.cli import layout as layout_cli
from fmhactl.cli import tma as tma_cli


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    a = typer.Typer()

    @a.callback()
    def _root() -> None:
        pass

    layout_cli.register(a)
    tma_cli.register(a)
    return a


def run(app, *args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


SEED002 = ["tma", "check", "--dtype", "bf16", "--rank", "3", "--dims", "128,128,1", "--strides", "256,32768",
           "--box", "16,128,1", "--elem-strides", "1,1,1"]

COMMANDS = [
    ["layout", "tmem", "--shape", "32x32b", "--num", "8"],
    ["layout", "tmem", "--shape", "16x256b", "--num", "2", "--warp", "2", "--pack", "--view", "threads"],
    ["layout", "smem", "--major", "K", "--swizzle", "128B", "--rows", "128", "--cols", "64", "--dtype", "bf16"],
    ["layout", "smem", "--major", "MN", "--swizzle", "128B_base32B", "--rows", "64", "--cols", "16", "--dtype",
     "tf32", "--view", "bank"],
    ["layout", "accum", "--m", "128", "--n", "64"],
    ["layout", "accum", "--m", "64", "--n", "32", "--read", "16x256b"],
    ["layout", "desc", "decode", "0x4000404000010000"],
    ["layout", "desc", "encode", "--start", "0x400", "--lbo", "16", "--sbo", "1024", "--swizzle", "128B"],
    ["layout", "desc", "encode", "--start", "0", "--sbo", "1024", "--swizzle", "64B", "--arch", "sm90"],
    ["layout", "idesc", "decode", "0x08400010"],
    ["layout", "idesc", "encode", "--a", "bf16", "--m", "128", "--n", "64"],
    ["layout", "map", "--from", "tmem:32x32b:num=8", "--to", "smem:K:128B", "--m", "128", "--n", "128"],
    ["layout", "map", "--from", "tmem:32x32b:num=16", "--to", "tmem:col=128", "--n", "64"],
    ["layout", "banks", "--row", "t", "--k", "8*i", "--vec", "16", "--repeat", "8"],
    SEED002,
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:3]))
def test_commands_print_tables_and_json(app, args):
    text = run(app, *args)
    assert text.exit_code == 0, text.stdout + text.stderr
    assert text.stdout.strip()
    as_json = run(app, *args, "--json")
    assert as_json.exit_code == 0
    data = json.loads(as_json.stdout)
    assert isinstance(data["schema_version"], int) and data["document"].startswith("fmhactl.")


def test_json_has_one_record_per_thread_register_or_element(app):
    tm = json.loads(run(app, "layout", "tmem", "--shape", "16x128b", "--num", "4", "--json").stdout)
    assert len(tm["records"]) == 32 * 8 and tm["registers_per_thread"] == 8
    sm = json.loads(run(app, "layout", "smem", "--rows", "64", "--cols", "64", "--json").stdout)
    assert len(sm["records"]) == 64 * 64 and len(sm["mma"]) == 4
    mp = json.loads(run(app, "layout", "map", "--json").stdout)
    assert len(mp["records"]) == 128 * 128 and mp["store_plan"]["vector_bytes"] == 16
    ac = json.loads(run(app, "layout", "accum", "--m", "128", "--n", "64", "--json").stdout)
    assert {r["col"] for r in ac["records"]} == set(range(64))


@pytest.mark.parametrize("args", [
    ["layout", "tmem", "--shape", "16x128b", "--num", "4"],
    ["layout", "smem", "--rows", "64", "--cols", "64"],
    ["layout", "accum", "--m", "64", "--n", "64"],
    ["layout", "map", "--n", "64"],
], ids=lambda a: a[1])
def test_svg_pictures(app, tmp_path, args):
    out = tmp_path / "pic.svg"
    result = run(app, *args, "--svg", str(out))
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>") and text.count("<rect") > 16


@pytest.mark.parametrize("args", [
    ["layout", "tmem", "--shape", "16x256b", "--num", "64"],
    ["layout", "tmem", "--shape", "64x32b"],
    ["layout", "tmem", "--num", "3"],
    ["layout", "smem", "--swizzle", "256B"],
    ["layout", "smem", "--major", "K", "--swizzle", "128B_base32B"],
    ["layout", "smem", "--dtype", "f99"],
    ["layout", "accum", "--m", "256"],
    ["layout", "accum", "--n", "12"],
    ["layout", "desc", "decode", "zzz"],
    ["layout", "desc", "decode", "0x1ffffffffffffffff"],
    ["layout", "desc", "encode", "--start", "8", "--sbo", "1024"],
    ["layout", "desc", "encode", "--start", "0", "--sbo", "1024", "--swizzle", "sideways"],
    ["layout", "idesc", "encode", "--a", "f16", "--b", "bf16"],
    ["layout", "idesc", "encode", "--n", "264"],
    ["layout", "idesc", "decode", "0x100000000"],
    ["layout", "map", "--from", "tmem:32x32b:num=3"],
    ["layout", "banks", "--row", "t / 2"],
    ["tma", "check", "--dtype", "bf17", "--dims", "1", "--box", "16"],
    ["tma", "check", "--dims", "64"],
    ["tma", "check", "--preset", "seed003"],
])
def test_bad_input_is_one_line_on_stderr_exit_2(app, args):
    result = run(app, *args)
    assert result.exit_code == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fmhactl: error:"), result.stderr


@pytest.mark.parametrize("args", [
    ["layout", "tmem", "--warp", "1", "--taddr", "0"],
    ["layout", "desc", "decode", "0x4000004000010000"],  # bit 46 clear: a Hopper descriptor
    ["layout", "idesc", "decode", "0x08800010"],
    ["tma", "check", "--preset", "seed002", "--box", "128,128,1", "--swizzle", "128B"],
    ["tma", "check", "--dtype", "bf16", "--dims", "64,64", "--strides", "130", "--box", "64,64"],
])
def test_failed_checks_exit_1(app, args):
    result = run(app, *args)
    assert result.exit_code == 1, result.stdout + result.stderr


@pytest.mark.parametrize("args", [
    ["layout", "desc", "decode", "0x4000404000010000"],
    ["layout", "desc", "decode", "0x4000004000010000", "--arch", "sm90"],
    ["layout", "idesc", "encode", "--a", "tf32", "--n", "64"],
    ["layout", "banks", "--swizzle", "none", "--vec", "4"],
    ["tma", "check", "--dtype", "bf16", "--dims", "64,256", "--strides", "128", "--box", "64,16", "--swizzle", "128B"],
], ids=lambda a: " ".join(a[:2]))
def test_svg_of_descriptors_banks_and_tma_boxes(app, tmp_path, args):
    out = tmp_path / "pic.svg"
    result = run(app, *args, "--svg", str(out))
    assert result.exit_code == 0, result.stderr
    assert out.read_text().startswith("<svg")


def test_smem_inverse_queries(app):
    result = run(app, "layout", "smem", "--at", "0x90", "--element", "1,8")
    assert "byte 0x90: element (row 1, k 0)" in result.stdout
    assert "element (row 1, k 8): byte 0x80" in result.stdout
    data = json.loads(run(app, "layout", "smem", "--at", "0x91", "--json").stdout)
    assert data["at"]["element"] is None


def test_seed002_is_explained(app):
    result = run(app, *SEED002)
    assert "VALID" in result.stdout and "64-byte aligned" in result.stdout
    bad = run(app, "tma", "check", "--preset", "seed002", "--dims", "128,512,1", "--strides", "256,131072",
              "--box", "128,512,1", "--json")
    data = json.loads(bad.stdout)
    violated = {r["rule"] for r in data["rules"] if r["status"] == "violated"}
    assert violated == {"box-dim-range"} and not data["valid"]


def test_tma_check_driver_without_gpu_exits_3(app):
    from fmhactl.errors import MissingEnvironment
    from fmhactl.layout.tensormap_driver import DriverSession

    try:
        DriverSession(buffer_bytes=1 << 20).close()
    except MissingEnvironment:
        assert run(app, *SEED002, "--driver").exit_code == 3
    else:
        pytest.skip("a CUDA driver is present")


def test_imports_stay_light():
    code = ("import sys, fmhactl.cli.layout, fmhactl.cli.tma; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'cuda') or m.startswith('fmhactl.layout')]; "
            "from fmhactl.layout import tmem, accum, smem, descriptors, idesc, wgmma, tensormap, mapping, banks, "
            "tma_agreement; from fmhactl.present import render, views, report, report_tma; "
            "bad += [m for m in sys.modules if m.split('.')[0] in ('torch', 'cuda')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
