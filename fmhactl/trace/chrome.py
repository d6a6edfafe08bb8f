"""Chrome trace-event JSON (opens in Perfetto / chrome://tracing) from modeled schedules.

One process per CTA, one thread (track) per warp named by its role, plus the tensor core and the
TMA engine; asynchronous work as complete ("X") slices; one flow (ph s -> f, bound to the
enclosing slices) from the arrive that completed each barrier phase to the wait it released.
Timestamps are microseconds of MODELED B200 time.
"""

from __future__ import annotations

from fmhactl.trace import cost_model as cm
from fmhactl.trace.schedule import TENSOR_TRACK, TMA_TRACK, Schedule

_TRACK_ORDER = (TMA_TRACK, TENSOR_TRACK)


def to_chrome(schedules: list[Schedule], meta: dict) -> dict:
    events: list[dict] = []
    flow_id = 0
    for sched in schedules:
        pid = sched.block
        tracks = sorted({s.track for s in sched.spans} | {f.src_track for f in sched.flows} |
                        {f.dst_track for f in sched.flows},
                        key=lambda t: (t in _TRACK_ORDER, t))
        tid = {t: i for i, t in enumerate(tracks)}
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                       "args": {"name": f"CTA {sched.block} ({cm.MODEL_LABEL})"}})
        for t, i in tid.items():
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": i, "args": {"name": t}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": i, "args": {"sort_index": i}})
        for s in sched.spans:
            events.append({"ph": "X", "name": s.name, "cat": s.cat, "pid": pid, "tid": tid[s.track],
                           "ts": cm.cycles_to_us(s.start), "dur": cm.cycles_to_us(s.dur),
                           "args": {**s.args, "cycles": round(s.dur, 1)}})
        for f in sched.flows:
            flow_id += 1
            events.append({"ph": "s", "id": flow_id, "name": f.name, "cat": "release", "pid": pid,
                           "tid": tid[f.src_track], "ts": cm.cycles_to_us(f.src_time)})
            events.append({"ph": "f", "bp": "e", "id": flow_id, "name": f.name, "cat": "release", "pid": pid,
                           "tid": tid[f.dst_track], "ts": cm.cycles_to_us(f.dst_time)})
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"label": cm.MODEL_LABEL, **{k: str(v) for k, v in meta.items()}}}


def check_chrome(doc: dict) -> list[str]:
    """Problems with a trace document: negative or missing durations, waits with no flow into them,
    flows without both ends. Empty when the trace is well formed."""
    problems: list[str] = []
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        return ["no traceEvents list"]
    if doc.get("otherData", {}).get("label") != cm.MODEL_LABEL:
        problems.append(f"otherData.label is not {cm.MODEL_LABEL!r}")
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    finishes = {e["id"]: e for e in events if e.get("ph") == "f"}
    for i in set(starts) ^ set(finishes):
        problems.append(f"flow {i} has only one end")
    slices = [e for e in events if e.get("ph") == "X"]
    for e in slices:
        if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0 or e["ts"] < 0:
            problems.append(f"slice {e.get('name')!r} at {e.get('ts')} has dur {e.get('dur')}")
    for e in slices:
        if e.get("cat") != "wait":
            continue
        inside = [f for f in finishes.values() if f["pid"] == e["pid"] and f["tid"] == e["tid"]
                  and e["ts"] <= f["ts"] <= e["ts"] + e["dur"]]
        if not inside:
            problems.append(f"wait {e['name']!r} at {e['ts']:.3f} us has no arrive flowing into it")
        for f in inside:
            src = starts.get(f["id"])
            if src is not None and src["ts"] > f["ts"]:
                problems.append(f"flow {f['id']} goes back in time")
    return problems
