"""Chrome trace-event JSON (opens in Perfetto / chrome://tracing) from modeled schedules.

One process per CTA, one thread (track) per warp named by its role, plus the tensor core and the
TMA engine; asynchronous work as complete ("X") slices; one flow (ph s -> f, bound to the
enclosing slices) from the arrive that completed each barrier phase to the wait it released.
Timestamps are microseconds of MODELED B200 time.
"""

from __future__ import annotations

from fmhactl.trace import cost_model as cm
from fmhactl.trace.schedule import TENSOR_TRACK, TMA_TRACK, Schedule, Span

_TRACK_ORDER = (TMA_TRACK, TENSOR_TRACK)


def _lanes(spans: list[Span]) -> tuple[list[tuple[str, Span]], dict[str, list[tuple[float, float, str]]]]:
    """Slices of one track must not overlap (Perfetto needs proper nesting per thread): an
    asynchronous slice that overlaps the previous one on its track (a TMA still landing while the
    next fill starts, a commit beside the next MMA) goes to the track's next lane, 'track #2'."""
    placed: list[tuple[str, Span]] = []
    lane_end: dict[str, list[float]] = {}
    where: dict[str, list[tuple[float, float, str]]] = {}
    for s in sorted(spans, key=lambda x: (x.start, -x.dur)):
        ends = lane_end.setdefault(s.track, [])
        lane = next((i for i, end in enumerate(ends) if s.start >= end), len(ends))
        if lane == len(ends):
            ends.append(0.0)
        ends[lane] = s.start + s.dur
        name = s.track if lane == 0 else f"{s.track} #{lane + 1}"
        placed.append((name, s))
        where.setdefault(s.track, []).append((s.start, s.start + s.dur, name))
    return placed, where


def _lane_at(where: dict[str, list[tuple[float, float, str]]], track: str, time: float) -> str:
    """The lane of `track` whose slice contains `time` (flows bind to the enclosing slice)."""
    return next((name for start, end, name in where.get(track, []) if start <= time <= end), track)


def to_chrome(schedules: list[Schedule], meta: dict) -> dict:
    events: list[dict] = []
    flow_id = 0
    for sched in schedules:
        pid = sched.block
        placed, where = _lanes(sched.spans)
        flows = [(f, _lane_at(where, f.src_track, f.src_time), _lane_at(where, f.dst_track, f.dst_time))
                 for f in sched.flows]
        tracks = sorted({name for name, _ in placed} | {src for _, src, _ in flows} | {dst for _, _, dst in flows},
                        key=lambda t: (t.split(" #")[0] in _TRACK_ORDER, t))
        tid = {t: i for i, t in enumerate(tracks)}
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                       "args": {"name": f"CTA {sched.block} ({cm.MODEL_LABEL})"}})
        for t, i in tid.items():
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": i, "args": {"name": t}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": i, "args": {"sort_index": i}})
        for name, s in placed:
            events.append({"ph": "X", "name": s.name, "cat": s.cat, "pid": pid, "tid": tid[name],
                           "ts": cm.cycles_to_us(s.start), "dur": cm.cycles_to_us(s.dur),
                           "args": {**s.args, "cycles": round(s.dur, 1)}})
        for f, src, dst in flows:
            flow_id += 1
            events.append({"ph": "s", "id": flow_id, "name": f.name, "cat": "release", "pid": pid,
                           "tid": tid[src], "ts": cm.cycles_to_us(f.src_time)})
            events.append({"ph": "f", "bp": "e", "id": flow_id, "name": f.name, "cat": "release", "pid": pid,
                           "tid": tid[dst], "ts": cm.cycles_to_us(f.dst_time)})
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"label": cm.MODEL_LABEL, **{k: str(v) for k, v in meta.items()}}}


def check_chrome(doc: dict) -> list[str]:
    """Problems with a trace document: negative or missing durations, overlapping slices on one
    track (this writer never nests), waits with no flow into them, flows without both ends or
    starting outside a slice or going back in time. Empty when the trace is well formed."""
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
    by_thread: dict[tuple, list[dict]] = {}
    for e in slices:
        by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
    for (pid, tid), group in by_thread.items():
        group.sort(key=lambda e: (e["ts"], -e["dur"]))
        for a, b in zip(group, group[1:]):
            if b["ts"] < a["ts"] + a["dur"] - 1e-9:
                problems.append(f"slices {a['name']!r} and {b['name']!r} overlap on pid {pid} tid {tid}")
    for f in starts.values():
        if not any(s["ts"] <= f["ts"] <= s["ts"] + s["dur"] for s in by_thread.get((f["pid"], f["tid"]), [])):
            problems.append(f"flow {f['id']} starts outside any slice")
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
