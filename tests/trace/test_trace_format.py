"""The Chrome trace of a modeled schedule: loads as JSON, every wait has the arrive that released
it flowing into it, no negative spans, honest labels. Built through the real decoding path (raw
Tc5TraceEvent bytes) from the synthetic kernel in synth.py."""

import json

import pytest

from fmhactl.config import AttnConfig
from fmhactl.trace import cost_model as cm
from fmhactl.trace.chrome import check_chrome
from fmhactl.trace.events import RAW_SIZE, events_from_bytes, to_bytes
from fmhactl.trace.schedule import Geometry
from fmhactl.trace.service import model_trace
from tests.trace.synth import BLOCK_N, COL_O, COL_S, D, SOURCE, synth_events

GEO = Geometry(128, BLOCK_N, D, COL_S, COL_O, D, 0.0, 2)


def _model(tiles: int = 6, stages: int = 1):
    raw = to_bytes(synth_events(tiles, stages))
    return model_trace("synthetic", AttnConfig(seq_k=tiles * BLOCK_N), raw, GEO, SOURCE)


@pytest.mark.parametrize("stages", [1, 2])
def test_trace_is_well_formed_json(stages):
    doc = json.loads(json.dumps(_model(stages=stages).chrome))
    assert check_chrome(doc) == []
    events = doc["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    assert slices and all(e["dur"] >= 0 and e["ts"] >= 0 for e in slices)
    waits = [e for e in slices if e["cat"] == "wait"]
    assert waits, "the synthetic kernel must wait somewhere"
    finishes = [e for e in events if e["ph"] == "f"]
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    for w in waits:
        into = [f for f in finishes if f["tid"] == w["tid"] and w["ts"] <= f["ts"] <= w["ts"] + w["dur"]]
        assert into, w
        assert all(f["id"] in starts and starts[f["id"]]["ts"] <= f["ts"] for f in into)
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    for role in ("(softmax)", "(mma)", "(load)", "tensor core", "TMA engine"):
        assert any(role in n for n in names), (role, names)
    assert doc["otherData"]["label"] == cm.MODEL_LABEL
    assert any(cm.MODEL_LABEL in e["args"]["name"] for e in events if e["name"] == "process_name")


def test_check_chrome_catches_broken_traces():
    doc = _model().chrome
    wait = next(e for e in doc["traceEvents"] if e.get("cat") == "wait")
    broken = {**doc, "traceEvents": [e for e in doc["traceEvents"] if e.get("ph") != "f"]}
    assert any("no arrive flowing into it" in p for p in check_chrome(broken))
    wait["dur"] = -1.0
    assert any("has dur -1.0" in p for p in check_chrome(doc))
    wait["dur"] = 1e6  # now it swallows the warp's next slices
    assert any("overlap" in p for p in check_chrome(doc))


def test_overlapping_async_work_goes_to_extra_lanes():
    """TMA fills overlap while landing; they must sit on separate lanes of the TMA track."""
    doc = _model(stages=2).chrome
    names = {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
    assert any(n.startswith("TMA engine") and " #2" in n for n in names), names
    assert check_chrome(doc) == []


def test_barriers_are_named_from_their_init_line():
    result = _model(stages=2)
    names = {w["barrier"] for w in result.summaries[0]["longest_waits"]}
    assert names <= {"q_full", "s_full", "p_full", "o_ready", "kv_full[0]", "kv_full[1]", "kv_empty[0]", "kv_empty[1]"}
    assert "s_full" in names


def test_raw_round_trip_and_bad_raw():
    events = synth_events(2, 1)
    data = to_bytes(events)
    assert len(data) == RAW_SIZE * len(events)
    decoded = events_from_bytes(data)
    assert [(e.time_ns, e.block, e.warp, e.site, e.a, e.b) for e in decoded] == [
        (t, blk, w, s, a, b) for t, _, blk, w, s, a, b in events]
    from fmhactl.errors import BadInput
    with pytest.raises(BadInput, match="whole number"):
        events_from_bytes(data[:-1])
    with pytest.raises(BadInput, match="unknown kind 99"):
        events_from_bytes(to_bytes([(0, 99, 0, 0, 0, 0, 0)]))


def test_second_stage_shortens_the_synthetic_tile():
    one, two = _model(8, 1).summaries[0], _model(8, 2).summaries[0]
    assert two["cycles_per_kv_tile"] < one["cycles_per_kv_tile"]
    assert one["kv_tiles"] == two["kv_tiles"] == 8
    for s in (one, two):
        assert s["label"] == cm.MODEL_LABEL and "critical path" in s["bottleneck"]
