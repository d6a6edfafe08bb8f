"""End to end on an sm_90 GPU: a strict-emulated launch with tracing on, decoded and modeled."""

import pytest

from fmhactl.config import AttnConfig
from fmhactl.trace.chrome import check_chrome


@pytest.mark.gpu
@pytest.mark.parametrize("variant, stages", [("sm100_tma_tmem", 1), ("sm100_tma_s2_tmem", 2)])
def test_recorded_trace_models_cleanly(variant, stages, tmp_path, monkeypatch):
    from fmhactl.runtime.modes import EMULATION_ENV
    from fmhactl.trace.service import trace_variant

    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv(EMULATION_ENV, "strict")
    result = trace_variant(variant, AttnConfig(seq_q=128, seq_k=512, head_dim=128), seed=3)
    assert check_chrome(result.chrome) == []
    summary = result.summaries[0]
    assert summary["kv_tiles"] == 4  # four s_full commits: one per 128-key tile
    barriers = {w["barrier"] for w in summary["longest_waits"]}
    assert barriers and all("@0x" not in b for b in barriers), barriers  # named from mbar::init lines
    names = {e["args"]["name"] for e in result.chrome["traceEvents"] if e.get("name") == "thread_name"}
    assert any("(load)" in n for n in names) and any("(mma)" in n for n in names)
    assert any(e.get("name") == "softmax exp" for e in result.chrome["traceEvents"])
