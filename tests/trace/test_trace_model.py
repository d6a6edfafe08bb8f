"""Hand-built raw event arrays through the decoder and the model, with the expected modeled times
computed from the cost table; and the summary arithmetic on a known schedule."""

import statistics

import pytest

from fmhactl.runtime.emulation import TRACE_EVENTS as K
from fmhactl.trace import cost_model as cm
from fmhactl.trace.events import decode, events_from_bytes, to_bytes, warp_roles
from fmhactl.trace.schedule import Geometry, Schedule, replay
from fmhactl.trace.summary import anchor_check, project, summarize

SOURCE = "constexpr int kMmaWarp = 4;\nconstexpr int kLoadWarp = 5;\nmbar::init(bar.kv_full, 1);\n" \
         "mbar::init(bar.p_full, 4 * 32);\n"
GEO = Geometry(128, 128, 128, 0, 128, 128, 0.0, 1)
BAR, PBAR = 0x40, 0x48


def _replay(rows):
    ctas = decode(events_from_bytes(to_bytes(rows)), SOURCE.splitlines())
    assert len(ctas) == 1
    return replay(ctas[0], GEO, warp_roles(SOURCE))


def test_wait_released_by_tma_bytes():
    """Load warp: arrive.expect_tx(6400 B) + one TMA; MMA warp waits: the wait ends when the bytes
    land plus barrier latency."""
    tx = 6400
    rows = [(0, K["mbar_init"], 0, 4, 3, BAR, 1),
            (1, K["arrive"], 0, 5, 9, BAR, tx),
            (2, K["tma_issue"], 0, 5, 9, 0x1000, BAR),
            (3, K["wait_begin"], 0, 4, 9, BAR, 0),
            (4, K["wait_end"], 0, 4, 9, BAR, 0)]
    s = _replay(rows)
    v = cm.value
    issue = v("issue_clk")
    tma_end = 2 * issue + tx / v("tma_bytes_per_clk_sm") + v("tma_latency_clk")  # after arrive + issue
    release = tma_end + v("mbarrier_latency_clk")
    wait = next(sp for sp in s.spans if sp.cat == "wait")
    # The MMA warp's mbar_init costs one issue, wait_begin nothing: it reaches the wait at `issue`.
    assert wait.start == pytest.approx(issue)
    assert wait.start + wait.dur == pytest.approx(release)
    assert s.waits == {("kv_full", "mma"): pytest.approx(release - issue)}
    assert len(s.flows) == 1 and s.flows[0].src_track.startswith("TMA")
    assert s.end == pytest.approx(release)  # the wait_end is the last event: the CTA ends when it is released


def test_warp_arrives_group_into_one_phase():
    """p_full expects 4 x 32 arrivals: the wait ends after the 4th warp's arrive, not the 1st."""
    rows = [(0, K["mbar_init"], 0, 4, 4, PBAR, 128)]
    for w in range(4):
        rows += [(len(rows), K["ld"], 0, w, 7, 0, 64 * (w + 1))]  # warps load different widths
        rows += [(len(rows), K["wait_ld"], 0, w, 7, 0, 0)]
        rows += [(len(rows), K["arrive"], 0, w, 8, PBAR, 0)]
    rows += [(len(rows), K["wait_end"], 0, 4, 9, PBAR, 0)]
    s = _replay(rows)
    softmax = [sp for sp in s.spans if sp.name == "softmax"]
    assert len(softmax) == 4
    slowest = max(sp.start + sp.dur for sp in softmax)
    wait = next(sp for sp in s.spans if sp.cat == "wait")
    assert wait.start + wait.dur == pytest.approx(slowest + cm.value("issue_clk") + cm.value("mbarrier_latency_clk"))
    # Softmax of 32 rows x 256 columns at a quarter of the SM's MUFU rate.
    widest = max(softmax, key=lambda sp: sp.dur)
    assert widest.dur == pytest.approx(32 * 256 / (cm.value("mufu_ex2_per_clk_sm") / 4))


def test_mmas_serialise_on_the_tensor_core_and_commit_after_them():
    rows = [(0, K["mbar_init"], 0, 4, 3, BAR, 1)]
    for seq in range(3):
        rows.append((len(rows), K["mma_issue"], 0, 4, 5, seq, 0))  # QK into S (column 0)
    rows += [(len(rows), K["commit"], 0, 4, 6, BAR, 3), (len(rows) + 1, K["commit_arrive"], 0, 4, 6, BAR, 3),
             (len(rows) + 2, K["wait_end"], 0, 0, 7, BAR, 0)]
    s = _replay(rows)
    mma = cm.value("tensor_f16_flop_per_clk_sm")
    one = 2 * 128 * 128 * cm.value("mma_k") / mma
    mmas = [sp for sp in s.spans if sp.cat == "mma"]
    assert [sp.dur for sp in mmas] == pytest.approx([one] * 3)
    assert all(b.start == pytest.approx(a.start + a.dur) for a, b in zip(mmas, mmas[1:]))
    assert s.tensor_busy == pytest.approx(3 * one)
    wait = next(sp for sp in s.spans if sp.cat == "wait")
    expected = mmas[-1].start + one + cm.value("commit_latency_clk") + cm.value("mbarrier_latency_clk")
    assert wait.start + wait.dur == pytest.approx(expected)
    assert s.critical["tensor core"] == pytest.approx(3 * one)  # the three MMAs are all on the critical path


def test_summary_arithmetic_on_a_known_schedule():
    s = Schedule(block=0, end=10_000.0, tensor_busy=4_000.0, waits={("s_full", "softmax"): 8_000.0,
                 ("p_full", "mma"): 1_000.0}, role_warps={"softmax": 4, "mma": 1, "load": 1},
                 tile_marks=[100.0, 1100.0, 2300.0, 3300.0], critical={"softmax": 600.0, "tensor core": 400.0},
                 resource_per_tile={"tensor core": 900.0, "MUFU.EX2": 500.0})
    geo = Geometry(128, 128, 128, 0, 128, 128, 0.0, 2)
    out = summarize(s, geo, tiles=4)
    assert out["cycles_per_kv_tile"] == 2500.0
    assert out["steady_cycles_per_kv_tile"] == statistics.median([1000.0, 1200.0, 1000.0])
    assert out["tensor_busy_fraction"] == 0.4
    assert out["longest_waits"][0] == {"barrier": "s_full", "role": "softmax", "cycles": 8000.0,
                                       "fraction_of_role_time": 0.2}
    assert out["longest_waits"][1]["fraction_of_role_time"] == 0.1
    assert out["critical_path"] == {"softmax": 0.6, "tensor core": 0.4}
    assert out["bottleneck"].startswith("critical path: softmax 60%, tensor core 40% (bottleneck: softmax)")
    assert "softmax warps waited on s_full 20% of the time" in out["bottleneck"]
    p = out["projection"]
    # 2 CTAs: max(1000 / 2, 900) = 900 cycles per tile per SM, tensor-bound.
    assert p["sm_cycles_per_tile"] == 900.0 and p["limited_by"] == "tensor core"
    flops = 2 * 128 * 128 * 256
    assert p["tflops"] == pytest.approx(flops / 900 * cm.value("sms") * cm.value("clock_ghz") * 1e9 / 1e12, abs=0.1)


def test_projection_and_anchor_ratio():
    geo = Geometry(128, 128, 128, 0, 128, 128, 0.0, 1)
    p = project(geo, 3000.0, {"tensor core": 1000.0})
    assert p["limited_by"] == "CTA pipeline latency" and p["sm_cycles_per_tile"] == 3000.0
    a = anchor_check(128, False, 1000.0)
    published = cm.ANCHORS[(128, False)][0]
    assert a["ratio"] == round(1000.0 / published, 3)
    assert a["within_band"] == (abs(1000.0 / published - 1) <= cm.value("error_band"))
    assert anchor_check(64, True, 1.0) is None
