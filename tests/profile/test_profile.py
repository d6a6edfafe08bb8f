"""Profiling on CPU: NVTX naming, recipes, the ncu command line, report parsing and the summary
math, the roofline PNG, and run_profile end to end against a fake `ncu`."""

from __future__ import annotations

import json
import os
import stat
import struct
import sys
import zlib

import pytest
from typer.testing import CliRunner

from fmhactl.config import parse_shape
from fmhactl.errors import BadInput, FmhactlError
from fmhactl.profile import report as report_mod
from fmhactl.profile.recipes import available_recipes, load_recipe
from fmhactl.profile.report import Action, parse_raw_csv, parse_with_module, summarize
from fmhactl.profile.roofline import draw_roofline
from fmhactl.profile.service import ncu_command, run_profile
from fmhactl.registry import get_variant
from fmhactl.results.store import ResultStore
from fmhactl.runtime import nvtx_ranges

CFG = parse_shape("b=1,h=1,t=128,s=128,d=64")  # 4*128*128*64 = 4,194,304 FLOP

# `ncu --page raw --csv --print-units base`: header, units, one row per kernel.
RAW_CSV = """==PROF== Connected to process 1234
"ID","Kernel Name","gpu__time_duration.sum","sm__cycles_elapsed.avg.per_second","device__attribute_multiprocessor_count","device__attribute_compute_capability_major","dram__bytes_read.sum","dram__bytes_write.sum","dram__throughput.avg.pct_of_peak_sustained_elapsed","device__attribute_memory_clock_rate","device__attribute_global_memory_bus_width","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum","launch__registers_per_thread","sm__warps_active.avg.pct_of_peak_sustained_active","sm__maximum_warps_per_active_cycle_pct","smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio","smsp__average_warps_issue_stalled_selected_per_issue_active.ratio","smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio","sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
"","","nsecond","cycle/second","","","byte","byte","%","khz","bit","","","register/thread","%","%","ratio","ratio","ratio","ratio","%"
"0","fmha_ref_bf16","1,000","1500000000","132","9","16384","16384","1.5","2619000","5120","12","3","128","20.5","25","3.25","1.5","1","0.75","4.2"
"""


def _csv_action():
    actions = parse_raw_csv(RAW_CSV)
    assert len(actions) == 1
    return actions[0]


def test_nvtx_message_avoids_ncu_filter_syntax():
    message = nvtx_ranges.range_message("ref", CFG.key)
    assert "/" not in message and "@" not in message
    assert nvtx_ranges.range_name("ref", CFG.key) == f"fmhactl/ref/{CFG.key}"
    assert nvtx_ranges.ncu_include("ref", CFG.key, "nvtx") == f"fmhactl@ref.{CFG.key}"
    assert nvtx_ranges.ncu_include("ref", CFG.key, "torch") == f"ref.{CFG.key}"


def test_launch_range_is_a_noop_without_nvtx(monkeypatch):
    monkeypatch.setattr(nvtx_ranges, "_nvtx_domain", lambda: None)
    monkeypatch.delenv(nvtx_ranges.FALLBACK_ENV, raising=False)
    assert nvtx_ranges.backend() == "none"
    ran = []
    with nvtx_ranges.launch_range("ref", CFG.key):
        ran.append(True)
    assert ran == [True]
    monkeypatch.setenv(nvtx_ranges.FALLBACK_ENV, "torch")
    assert nvtx_ranges.backend() == "torch"


def test_launch_range_with_the_nvtx_package():
    pytest.importorskip("nvtx")
    assert nvtx_ranges.backend() == "nvtx"
    with nvtx_ranges.launch_range("ref", CFG.key):
        pass


def test_the_four_recipes_load():
    assert {"default", "memory", "tensor", "stalls"} <= set(available_recipes())
    for name in ("default", "memory", "tensor", "stalls"):
        recipe = load_recipe(name)
        args = recipe.ncu_args()
        assert "--section" in args and "--metrics" in args
        assert "gpu__time_duration.sum" in args[args.index("--metrics") + 1]
    assert "WarpStateStats" in load_recipe("stalls").sections


def test_bad_recipes(tmp_path, monkeypatch):
    with pytest.raises(BadInput, match="unknown profile recipe"):
        load_recipe("nope")
    bad = tmp_path / "profiles" / "bad.toml"
    bad.parent.mkdir()
    bad.write_text('sections = ["SpeedOfLight; rm -rf /"]\n')
    with pytest.raises(BadInput, match="not a path"):
        load_recipe(str(bad))
    monkeypatch.setenv("FMHACTL_ROOT", str(tmp_path))
    with pytest.raises(BadInput, match=r"bad.toml: sections\[0\]: String should match pattern"):
        load_recipe("bad")


def test_ncu_command_filters_on_the_nvtx_range():
    cmd = ncu_command("ncu", load_recipe("default"), report_base=__import__("pathlib").Path("/r/x"),
                      clock_control="none", warmup=2, child=["python", "-m", "t"],
                      nvtx_include="fmhactl@ref:k")
    assert cmd[cmd.index("--nvtx-include") + 1] == "fmhactl@ref:k" and "--nvtx" in cmd
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert cmd[cmd.index("--launch-skip") + 1] == "2" and cmd[cmd.index("--launch-count") + 1] == "1"
    assert cmd[cmd.index("-o") + 1] == "/r/x" and cmd[-3:] == ["python", "-m", "t"]


def test_raw_csv_parses_units_and_thousands_separators():
    act = _csv_action()
    assert act.name == "fmha_ref_bf16"
    assert act.metrics["gpu__time_duration.sum"] == 1000
    assert act.units["gpu__time_duration.sum"] == "nsecond"


def test_summary_math():
    s = summarize(_csv_action(), CFG.flops)
    assert s["duration_us"] == pytest.approx(1.0)
    assert s["tflops"] == pytest.approx(4.194304)
    assert s["sm_clock_mhz"] == pytest.approx(1500.0)
    assert s["tensor_peak_tflops"] == pytest.approx(132 * 1.5e9 * 4096 / 1e12)
    assert s["pct_of_tensor_peak"] == pytest.approx(100 * 4.194304 / (132 * 1.5e9 * 4096 / 1e12))
    assert s["dram_bytes"] == 32768 and s["dram_gbs"] == pytest.approx(32.768)
    assert s["dram_peak_gbs"] == pytest.approx(2 * 2619e6 * 640 / 1e9)
    assert s["arith_intensity"] == pytest.approx(CFG.flops / 32768)
    assert (s["smem_bank_conflicts_ld"], s["smem_bank_conflicts_st"]) == (12, 3)
    assert s["registers_per_thread"] == 128 and s["occupancy_achieved_pct"] == 20.5
    assert s["top_stalls"] == [["long_scoreboard", 3.25], ["barrier", 1.5], ["math_pipe_throttle", 0.75]]
    assert s["tensor_pipe_pct"] == 4.2
    lines = "\n".join(report_mod.summary_lines(s))
    assert "4.2 TFLOP/s" in lines and "long_scoreboard 3.25" in lines


def test_summary_with_missing_metrics_says_na():
    s = summarize(Action("k", {"gpu__time_duration.sum": 2.0}, {"gpu__time_duration.sum": "usecond"}), CFG.flops)
    assert s["duration_us"] == pytest.approx(2.0) and s["pct_of_tensor_peak"] is None
    assert "n/a" in "\n".join(report_mod.summary_lines(s))


class _Metric:
    def __init__(self, value, unit=""):
        self._value, self._unit = value, unit

    def value(self):
        return self._value

    def unit(self):
        return self._unit


class _Act:
    def __init__(self, name, metrics):
        self._name, self._metrics = name, metrics

    def name(self):
        return self._name

    def metric_names(self):
        return list(self._metrics)

    def metric_by_name(self, name):
        return self._metrics[name]


class _Range:
    def __init__(self, actions):
        self._actions = actions

    def num_actions(self):
        return len(self._actions)

    def action_by_idx(self, i):
        return self._actions[i]


class _Module:
    def __init__(self, ranges):
        self._ranges = ranges

    def load_report(self, path):
        module = self

        class Ctx:
            def num_ranges(self):
                return len(module._ranges)

            def range_by_idx(self, i):
                return module._ranges[i]

        return Ctx()


def test_ncu_report_module_walk(tmp_path):
    module = _Module([_Range([_Act("fmha_ref_bf16", {"gpu__time_duration.sum": _Metric(500.0, "nsecond"),
                                                      "device__attribute_display_name": _Metric("NVIDIA H100")})])])
    actions = parse_with_module(module, tmp_path / "x.ncu-rep")
    assert [a.name for a in actions] == ["fmha_ref_bf16"]
    assert actions[0].metrics["gpu__time_duration.sum"] == 500.0 and actions[0].units["gpu__time_duration.sum"] == "nsecond"
    assert summarize(actions[0], CFG.flops)["gpu"] == "NVIDIA H100"


def _png_pixels(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + body)
        chunks.setdefault(kind, b"")
        chunks[kind] += body
        pos += 12 + length
    width, height = struct.unpack(">II", chunks[b"IHDR"][:8])
    raw = zlib.decompress(chunks[b"IDAT"])
    assert len(raw) == height * (1 + 3 * width)
    return width, height, raw


def test_roofline_png_is_valid_and_marks_the_run(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    from fmhactl.profile.roofline import RooflinePoint

    s = summarize(_csv_action(), CFG.flops)
    out = tmp_path / "roof.png"
    drawn = draw_roofline(s, out, width=640, height=480,
                          baselines=[RooflinePoint("sdpa/cudnn", 50.0, 3.0, measured_traffic=False)])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(out).convert("RGB")
    assert image.size == (640, 480)
    raw = image.tobytes()
    pixels = [tuple(raw[i:i + 3]) for i in range(0, len(raw), 3)]
    assert sum(1 for p in pixels if p == (210, 30, 30)) > 50  # the kernel's point
    assert sum(1 for p in pixels if p == (224, 138, 0)) > 20  # the cuDNN baseline's point
    assert drawn["attainable_tflops"] == pytest.approx(min(s["tensor_peak_tflops"], s["arith_intensity"] * s["dram_peak_gbs"] / 1e3))
    assert drawn["ridge_flop_per_byte"] == pytest.approx(s["tensor_peak_tflops"] / (s["dram_peak_gbs"] / 1e3))


def test_roofline_refuses_without_data(tmp_path):
    with pytest.raises(FmhactlError, match="cannot draw a roofline"):
        draw_roofline({"tflops": 1.0}, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


FAKE_NCU = """#!{python}
# Stands in for ncu: writes the target's sidecar and a report; --import prints the raw CSV.
import json, os, sys
args = sys.argv[1:]
if "--version" in args:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2025.3.1.0 (build 1) (public-release)")
    sys.exit(0)
if "--import" in args:
    sys.stdout.write(open(os.environ["FAKE_NCU_CSV"]).read())
    sys.exit(0)
with open(os.environ["FAKE_NCU_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
spec = json.loads(args[-1])
sidecar = os.environ.get("FAKE_NCU_SIDECAR")  # a damaged report, as a test gives it
open(spec["sidecar"], "w").write(sidecar if sidecar is not None else json.dumps({{"ok": True, "mode": "native",
    "arch": "sm_90a", "source_hash": "abc", "toolchain": "nvrtc 13.0", "gpu": "NVIDIA H100 80GB HBM3", "driver": "580",
    "nvtx_backend": "torch"}}))
if "--nvtx-include" in args and os.environ.get("FAKE_NCU_NVTX_MATCHES") != "1":
    print("==WARNING== No kernels were profiled.")
    sys.exit(0)
open(args[args.index("-o") + 1] + ".ncu-rep", "wb").write(b"fake report")
"""


@pytest.fixture
def fake_ncu(tmp_path, monkeypatch):
    ncu = tmp_path / "bin" / "ncu"
    ncu.parent.mkdir()
    ncu.write_text(FAKE_NCU.format(python=sys.executable))
    ncu.chmod(ncu.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "raw.csv").write_text(RAW_CSV)
    monkeypatch.setenv("FMHACTL_NCU", str(ncu))
    monkeypatch.setenv("FAKE_NCU_CSV", str(tmp_path / "raw.csv"))
    monkeypatch.setenv("FAKE_NCU_LOG", str(tmp_path / "calls.log"))
    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(report_mod, "import_ncu_report", lambda ncu=None: None)  # force the CSV fallback
    return tmp_path


def _calls(tmp_path):
    return [json.loads(line) for line in (tmp_path / "calls.log").read_text().splitlines()]


def test_run_profile_end_to_end_with_a_fake_ncu(fake_ncu, monkeypatch):
    monkeypatch.setenv("FAKE_NCU_NVTX_MATCHES", "1")
    with ResultStore() as store:
        result = run_profile(get_variant("ref"), CFG, load_recipe("default"), store=store)
        rows = store.query(kind="profile")
    calls = _calls(fake_ncu)
    assert len(calls) == 1 and "--nvtx-include" in calls[0]
    assert result.report.is_file() and result.report.suffix == ".ncu-rep"
    assert len(rows) == 1 and rows[0].status == "OK" and rows[0].mode == "native" and rows[0].arch == "sm_90a"
    m = rows[0].metrics
    assert m["filter"] == "nvtx" and m["parser"] == "csv" and m["clock_control"] == "none"
    assert m["ncu_version"] == "2025.3.1.0" and m["recipe"] == "default"
    assert m["summary"]["tflops"] == pytest.approx(4.194304)
    assert m["ncu"]["launch__registers_per_thread"] == 128


def test_run_profile_falls_back_to_the_kernel_name(fake_ncu):
    with ResultStore() as store:
        result = run_profile(get_variant("ref"), CFG, load_recipe("stalls"), store=store, clock_control="base")
    calls = _calls(fake_ncu)
    assert len(calls) == 2 and "--kernel-name" in calls[1] and "--nvtx" not in calls[1]
    assert result.row.metrics["filter"] == "kernel-name"
    assert any("NVTX filter matched nothing" in n for n in result.notes)


@pytest.mark.parametrize("sidecar, rule", [
    ('{"ok": true, "mode": "nat', "not readable JSON"),
    ("\xff\xfe", "not readable JSON"),
    ("[]", "a JSON object is needed"),
    ('{"mode": "native"}', "'ok' must be true or false"),
    ('{"ok": false, "code": "3", "error": "no GPU"}', "'code' must be a failing exit code"),
    ('{"ok": false, "code": 0}', "'code' must be a failing exit code"),
    ('{"ok": true, "arch": 90, "mode": "native"}', "'arch' must be text"),
    ('{"ok": true, "gpu": {"name": "H100"}}', "'gpu' must be text or null"),
])
def test_a_damaged_profile_target_report_is_one_error_line_exit_3(fake_ncu, monkeypatch, sidecar, rule):
    """The sidecar the target child writes was read with a bare json.loads and its fields trusted:
    a cut or edited one was a traceback (JSONDecodeError, AttributeError, ValueError from int())."""
    from fmhactl.cli.app import app

    monkeypatch.setenv("FAKE_NCU_SIDECAR", sidecar)
    monkeypatch.setenv("FAKE_NCU_NVTX_MATCHES", "1")
    result = CliRunner().invoke(app, ["profile", "ref", "--shape", "b=1,h=1,t=128,s=128,d=64"])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 3, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("fmhactl: error: profile target report "), result.stderr
    assert ".target.json" in lines[0] and rule in lines[0], lines[0]
    with ResultStore() as store:
        assert store.query(kind="profile") == []  # nothing stored from a damaged report


def test_profile_target_without_a_gpu_reports_missing_environment(tmp_path):
    from fmhactl.profile import target

    sidecar = tmp_path / "side.json"
    spec = {"variant": "ref", "config": CFG.to_dict(), "sidecar": str(sidecar)}
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    assert target.main(["target", json.dumps(spec)]) == 3
    assert json.loads(sidecar.read_text())["code"] == 3
    assert target.main(["target"]) == 2


def test_cli_profile_without_ncu_exits_3(tmp_path, monkeypatch):
    monkeypatch.delenv("FMHACTL_NCU", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(report_mod, "_NCU_GLOBS", ())
    from fmhactl.cli.app import app

    result = CliRunner().invoke(app, ["profile", "ref", "--shape", "b=1,h=1,t=16,s=16,d=64"])
    assert result.exit_code == 3
    assert result.output.strip().splitlines() == ["fmhactl: error: ncu (Nsight Compute) not found: install it or set FMHACTL_NCU"]


@pytest.mark.parametrize("args, message", [
    (["profile", "ref", "--shape", "d=63"], "head_dim 63"),
    (["profile", "ref", "--shape", "d=64", "--recipe", "nope"], "unknown profile recipe"),
    (["profile", "nope", "--shape", "d=64"], "unknown variant"),
    (["profile", "ref", "--shape", "d=64", "--clock-control", "fast"], "--clock-control"),
])
def test_cli_profile_bad_input_exits_2(args, message, fake_ncu):
    from fmhactl.cli.app import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and message in result.output


def test_cli_profile_prints_summary_and_png(fake_ncu, monkeypatch):
    monkeypatch.setenv("FAKE_NCU_NVTX_MATCHES", "1")
    from fmhactl.cli.app import app

    png = fake_ncu / "roof.png"
    result = CliRunner().invoke(app, ["profile", "ref", "--shape", "b=1,h=1,t=128,s=128,d=64", "--png", str(png)])
    assert result.exit_code == 0, result.output
    assert "4.2 TFLOP/s" in result.output and "long_scoreboard" in result.output and ".ncu-rep" in result.output
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_cli_profile_json_row(fake_ncu, monkeypatch):
    monkeypatch.setenv("FAKE_NCU_NVTX_MATCHES", "1")
    from fmhactl.cli.app import app

    result = CliRunner().invoke(app, ["profile", "ref", "--shape", "b=1,h=1,t=128,s=128,d=64", "--json"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)
    assert row["kind"] == "profile" and row["config_key"] == CFG.key and "ncu" not in row["metrics"]
    assert row["metrics"]["summary"]["registers_per_thread"] == 128
    with ResultStore() as store:
        stored = store.query(kind="profile")[0]
    assert stored.id == row["id"] and stored.metrics["ncu"]["launch__registers_per_thread"] == 128
