"""`fmhactl trace --emulate native`: the PTX path's sites (PTX lines) named by their `.loc` chain,
and a PTX-site recording modeled like the source-site recording it stands for (CPU; the GPU test
records one for real)."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fmhactl.ptx import parser
from fmhactl.ptx.build import native_ptx
from fmhactl.ptx.sites import site
from fmhactl.registry import get_variant
from fmhactl.trace import service
from fmhactl.trace.events import events_from_bytes, to_bytes

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "kernels" / service.KERNEL_SOURCE
RECORDING = ROOT / "docs" / "trace" / "sm100_tma_s2_tmem-b1h1-t128s2048-d128.raw.gz"
SHAPE = "b=1,h=1,t=128,s=2048,d=128"

NESTED = """\
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k()
{
\t.loc\t1 10 3
\tmov.b32 %r1, 0;
\t.loc\t1 20 5, function_name $L__info_string0, inlined_at 1 10 3
\t.loc\t2 7 9, function_name $L__info_string1, inlined_at 1 20 5
\tmbarrier.init.shared::cta.b64 [%r1], 1;
\tret;
}
\t.file\t1 "/src/kernel.cuh"
\t.file\t2 "/src/common/mbarrier.cuh"
"""


def test_the_inline_chain_is_read_innermost_first():
    module = parser.parse(NESTED)
    line = next(n for n, text in enumerate(module.lines, 1) if "mbarrier.init" in text)
    s = site(module, line)
    assert [str(loc) for loc in s.chain] == ["/src/common/mbarrier.cuh:7", "/src/kernel.cuh:20", "/src/kernel.cuh:10"]
    assert s.line_in("kernel.cuh") == 20 and s.line_in("common/mbarrier.cuh") == 7 and s.line_in("other.cuh") is None
    assert str(s) == f"PTX line {line} (mbarrier.cuh:7 <- kernel.cuh:20 <- kernel.cuh:10)"
    assert site(module, 2).chain == () and site(module, 10_000).chain == ()  # before any .loc; outside


@pytest.fixture(scope="module")
def native_module():
    return parser.parse(native_ptx(get_variant("sm100_tma_s2_tmem")), "sm100_tma_s2_tmem")


def test_each_mbarrier_init_of_the_native_ptx_names_its_kernel_line(native_module):
    """Each `mbar::init(bar.X, n)` of the kernel source is where its mbarrier.init's chain leads."""
    source = KERNEL.read_text().splitlines()
    inits = [n for n, text in enumerate(native_module.lines, 1) if text.strip().startswith("mbarrier.init")]
    assert inits
    for line in inits:
        kernel_line = site(native_module, line).line_in(service.KERNEL_SOURCE)
        assert kernel_line is not None, line
        assert re.search(r"mbar::init\(", source[kernel_line - 1]), (line, kernel_line, source[kernel_line - 1])


def _as_ptx_recording(native_module) -> tuple[bytes, bytes]:
    """The shipped (tc5::, source-line sites) recording with each site replaced by a PTX line whose
    chain leads to that kernel line; and the same recording with sites no PTX line leads to as 0."""
    events = events_from_bytes(gzip.decompress(RECORDING.read_bytes()))
    first_ptx_line: dict[int, int] = {}
    for number, text in enumerate(native_module.lines, 1):
        if re.match(r"\s*(@%?\w+\s+)?(mbarrier|cp\.async\.bulk|tcgen05|fence\.proxy)", text):
            kernel_line = site(native_module, number).line_in(service.KERNEL_SOURCE)
            if kernel_line:
                first_ptx_line.setdefault(kernel_line, number)
    as_ptx = [(e.time_ns, _kind(e), e.block, e.warp, first_ptx_line.get(e.site, 0), e.a, e.b) for e in events]
    expected = [(e.time_ns, _kind(e), e.block, e.warp, e.site if e.site in first_ptx_line else 0, e.a, e.b)
                for e in events]
    assert sum(1 for e in events if e.site in first_ptx_line) > len(events) // 2  # most sites map
    return to_bytes(as_ptx), to_bytes(expected)


def _kind(event) -> int:
    from fmhactl.trace.events import KIND_NAMES

    return next(code for code, name in KIND_NAMES.items() if name == event.kind)


@pytest.mark.skipif(not RECORDING.is_file(), reason="no shipped recording")
def test_a_ptx_site_recording_models_like_its_source_site_recording(native_module):
    from fmhactl.config import parse_shape

    cfg = parse_shape(SHAPE)
    geo = service.geometry_for("sm100_tma_s2_tmem", cfg)
    text = KERNEL.read_text()
    as_ptx, expected = _as_ptx_recording(native_module)
    sites = {s: site(native_module, s) for s in {e.site for e in events_from_bytes(as_ptx)}}
    via_ptx = service.model_trace("sm100_tma_s2_tmem", cfg, as_ptx, geo, text, sites)
    direct = service.model_trace("sm100_tma_s2_tmem", cfg, expected, geo, text)
    assert via_ptx.summaries == direct.summaries and via_ptx.chrome == direct.chrome
    doc = via_ptx.to_dict()
    assert doc["site_kind"] == "ptx" and direct.to_dict()["site_kind"] == "source"
    init = next(s for s in doc["ptx_sites"] if any("mbarrier.cuh" in loc for loc in s["source"]))
    assert init["kernel_line"] and init["name"].startswith(f"PTX line {init['ptx_line']} (mbarrier.cuh:")
    waits = via_ptx.summaries[0]["longest_waits"]
    assert waits and not any("@0x" in w["barrier"] for w in waits)


@pytest.mark.skipif(not RECORDING.is_file(), reason="no shipped recording")
def test_trace_raw_emulate_native_names_ptx_sites(native_module, tmp_path):
    as_ptx, _ = _as_ptx_recording(native_module)
    raw = tmp_path / "ptx-sites.raw"
    raw.write_bytes(as_ptx)
    proc = subprocess.run([sys.executable, "-m", "fmhactl", "trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw",
                           str(raw), "--emulate", "native", "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)["results"][0]
    assert result["site_kind"] == "ptx" and len(result["ptx_sites"]) > 10
    assert "sites:" in proc.stderr and "PTX line" in proc.stderr
    bad = subprocess.run([sys.executable, "-m", "fmhactl", "trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw",
                          str(raw), "--emulate", "ptx"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--emulate" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.gpu
def test_trace_through_the_ptx_path_on_hopper(tmp_path):
    """One traced launch of the strict PTX-path build: PTX-line sites, every barrier named."""
    out = tmp_path / "trace.json"
    proc = subprocess.run([sys.executable, "-m", "fmhactl", "trace", "sm100_tma_s2_tmem", "--shape",
                           "b=1,h=1,t=128,s=512,d=128", "--emulate", "native", "--seed", "7", "--out", str(out),
                           "--json"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)["results"][0]
    assert result["site_kind"] == "ptx" and result["raw_events"] > 0
    assert result["summary"]["kv_tiles"] == 4
    assert any(any("mbarrier.cuh" in loc for loc in s["source"]) and s["kernel_line"] for s in result["ptx_sites"])
    waits = result["summary"]["longest_waits"]
    assert waits and not any("@0x" in w["barrier"] for w in waits)
    assert json.loads(out.read_text())["traceEvents"]
