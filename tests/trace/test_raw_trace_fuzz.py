"""Corruption fuzz of raw trace recordings (`fmhactl trace --raw FILE`), from the committed
recording docs/trace/sm100_tma_s2_tmem-b1h1-t128s2048-d128.raw.gz.

Each example damages the recording (bytes of the gzip file or of the event array flipped, cut or
appended; events deleted, repeated, reordered, or given odd kinds, blocks, warps, sites and barrier
addresses) and models it on the CPU as `fmhactl trace` does. Property: a model and a summary, or
one `fmhactl: error:` line with exit 2 naming the file, within a time limit (never a hang).
"""

from __future__ import annotations

import gzip
import shutil
import struct
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from fmhactl.cli.app import app  # noqa: E402
from fmhactl.runtime.trace_raw import RAW_FORMAT  # noqa: E402
from tests.corruption import Artifact, assert_clean_outcome, fuzz_settings, mutate_bytes, time_limit  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
RECORDING = REPO / "docs" / "trace" / "sm100_tma_s2_tmem-b1h1-t128s2048-d128.raw.gz"
ARGS = ["trace", "sm100_tma_s2_tmem", "--shape", "b=1,h=1,t=128,s=2048,d=128", "--json"]
FIELDS = ("time_ns", "kind", "block", "warp", "site", "a", "b")
ODD_U32 = [0, 1, 2, 5, 31, 32, 33, 127, 128, 1000, 2**16, 2**31 - 1, 2**31, 2**32 - 1]


@pytest.fixture(scope="module")
def recording() -> Artifact:
    packed = RECORDING.read_bytes()
    return Artifact("raw trace recording", packed=packed, raw=gzip.decompress(packed))


def _damage_events(data: st.DataObject, raw: bytes) -> tuple[str, bytes]:
    events = [list(e) for e in struct.iter_unpack(RAW_FORMAT, raw)]
    index = data.draw(st.integers(0, len(events) - 1), label="event")
    op = data.draw(st.sampled_from(["field", "field", "delete", "repeat", "move", "keep"]), label="event op")
    if op == "field":
        field = data.draw(st.integers(0, len(FIELDS) - 1), label="field")
        top = 2**64 - 1 if field == 0 else 2**32 - 1
        value = data.draw(st.one_of(st.sampled_from(ODD_U32), st.integers(0, top)), label="value")
        events[index][field] = value
        what = f"event {index}.{FIELDS[field]} = {value}"
    elif op == "delete":
        count = data.draw(st.integers(1, 64))
        del events[index:index + count]
        what = f"delete events {index}..{index + count}"
    elif op == "repeat":
        events.insert(index, list(events[index]))
        what = f"repeat event {index}"
    elif op == "move":
        other = data.draw(st.integers(0, len(events) - 1))
        events.insert(other, events.pop(index))
        what = f"move event {index} to {other}"
    else:
        events = events[:index + 1]
        what = f"keep the first {index + 1} events"
    return what, b"".join(struct.pack(RAW_FORMAT, *e) for e in events)


@fuzz_settings(40)
@given(data=st.data())
def test_damaged_recording_is_modeled_or_refused(recording, data):
    work = Path(tempfile.mkdtemp(prefix="fmhactl-fuzz-trace-"))
    try:
        target = data.draw(st.sampled_from(["events", "events", "raw bytes", "gzip bytes"]), label="target")
        if target == "events":
            what, blob = _damage_events(data, recording.raw)
        elif target == "raw bytes":
            what, blob = mutate_bytes(data, recording.raw)
        else:
            what, blob = mutate_bytes(data, recording.packed)
        path = work / ("events.raw.gz" if target == "gzip bytes" else "events.raw")
        path.write_bytes(blob)
        with time_limit(60):
            result = CliRunner().invoke(app, [*ARGS, "--raw", str(path)], env={"FMHACTL_HOME": str(work / "home")})
        assert_clean_outcome(result, (0, 2), what, "trace")
        if result.exit_code == 2:
            assert str(path) in result.stderr, (what, result.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_an_event_of_unknown_kind_names_the_file(recording, tmp_path):
    """An event kind the emulator never writes was refused as "trace event N: unknown kind K",
    without the file: now `--raw FILE: trace event N: ...`."""
    events = [list(e) for e in struct.iter_unpack(RAW_FORMAT, recording.raw)]
    events[5][1] = 999
    path = tmp_path / "events.raw"
    path.write_bytes(b"".join(struct.pack(RAW_FORMAT, *e) for e in events))
    result = CliRunner().invoke(app, [*ARGS, "--raw", str(path)], env={"FMHACTL_HOME": str(tmp_path / "home")})
    assert_clean_outcome(result, (2,), "kind 999")
    assert f"--raw {path}: trace event 5: unknown kind 999" in result.stderr, result.stderr
