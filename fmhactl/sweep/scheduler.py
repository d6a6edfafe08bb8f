"""One queue of configs, one worker slot per device, one writer: the sweep scheduler.

Backends (local processes pinned per GPU, CPU slots, Ray actors) only provide slots: things
that run one job at a time and answer with a reply. Everything else lives here, once, for all
of them: handing out work, retrying a config whose slot was lost (a node went away, the
worker could not restart), reporting it when retries run out, writing every row from this
(the parent's) thread only, and emitting results in config-index order so the output and
summary read exactly as a one-GPU run's.

A CRASH or HANG is the config's verdict (the slot's kernel worker is replaced by a fresh one
and the sweep goes on); only a lost *slot* makes a config run again elsewhere.
"""

from __future__ import annotations

import queue
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fmhactl.errors import Cancelled, MissingEnvironment
from fmhactl.results.store import ResultRow, ResultStore

DEFAULT_ATTEMPTS = 3


class SlotLost(Exception):
    """The slot itself failed (not the config it ran): run the config again on another slot."""


class Slot(ABC):
    """Runs one job at a time on one device; `hello` says what the device is."""

    label: str = ""
    hello: dict

    @abstractmethod
    def start(self) -> dict: ...

    @abstractmethod
    def run(self, job: dict) -> dict:
        """The worker's reply (PASS/FAIL/CRASH/HANG/...); SlotLost when the slot is gone."""

    @abstractmethod
    def close(self) -> None: ...

    def placement(self) -> dict:
        """Where a row ran (index, name, UUID, node): recorded in the row's metrics."""
        return dict(self.hello.get("placement", {}))


class Backend(ABC):
    name: str = ""

    @abstractmethod
    def open_slots(self) -> list[Slot]:
        """Slots, one per device, not yet started (the scheduler starts each in its own thread)."""

    @abstractmethod
    def replace(self, lost: Slot) -> Slot | None:
        """A started slot to take a lost one's place, or None when there is none to be had."""

    def close(self) -> None:
        pass


class SweepTask(ABC):
    """One config of the sweep; `index` is its place in the one-GPU order."""

    index: int

    @abstractmethod
    def prepare(self, hello: dict) -> dict | ResultRow:
        """The job to send to a slot with this hello, or a row decided without running."""

    @abstractmethod
    def finish(self, reply: dict, hello: dict) -> ResultRow: ...

    @abstractmethod
    def lost(self, reason: str) -> ResultRow:
        """The row recorded when no slot could run this config."""


@dataclass
class SlotStats:
    label: str
    placement: dict
    configs: int = 0
    busy_s: float = 0.0
    lost: int = 0

    def to_dict(self) -> dict:
        return {"label": self.label, "placement": self.placement, "configs": self.configs,
                "busy_s": round(self.busy_s, 3), "lost": self.lost}


@dataclass
class SweepRun:
    backend: str
    rows: list[ResultRow] = field(default_factory=list)  # in config-index order
    slots: list[SlotStats] = field(default_factory=list)
    wall_s: float = 0.0
    retried: int = 0
    lost: int = 0

    def throughput(self) -> list[dict]:
        """Per slot: configs done, busy seconds and configs per second of wall time."""
        out = []
        for s in sorted(self.slots, key=lambda s: (len(s.label), s.label)):  # gpu2 before gpu10
            rate = s.configs / self.wall_s if self.wall_s > 0 else 0.0
            out.append({**s.to_dict(), "configs_per_s": round(rate, 3)})
        return out

    def to_dict(self) -> dict:
        return {"backend": self.backend, "wall_s": round(self.wall_s, 3), "retried": self.retried,
                "lost": self.lost, "slots": self.throughput()}


@dataclass
class _Item:
    task: SweepTask
    attempts: int = 0


class _Abort(Exception):
    pass


def run_sweep(tasks: Sequence[SweepTask], backend: Backend, *, store: ResultStore | None,
              on_result: Callable[[ResultRow], None] | None = None,
              on_progress: Callable[[int, int, ResultRow, str], None] | None = None,
              max_attempts: int = DEFAULT_ATTEMPTS, cancel=None) -> SweepRun:
    """Run every task on the backend's slots; rows are stored here, as they land, by this thread.

    cancel (anything with a `cancelled` property, e.g. fmhactl.progress.CancelToken): once set, no
    further config is handed out; those running finish and are stored, then Cancelled is raised."""
    started = time.perf_counter()
    run = SweepRun(backend.name)
    total = len(tasks)
    if total == 0:
        return run
    pending: deque[_Item] = deque(_Item(t) for t in sorted(tasks, key=lambda t: t.index))
    cond = threading.Condition()
    events: queue.Queue = queue.Queue()
    state = {"outstanding": total, "live": 0, "stop": False}
    stats: dict[str, SlotStats] = {}

    def take() -> _Item | None:
        with cond:
            while not pending and state["outstanding"] > 0 and not state["stop"]:
                cond.wait(0.25)
            if state["stop"] or not pending or (cancel is not None and cancel.cancelled):
                return None
            return pending.popleft()

    def serve(slot: Slot | None) -> None:
        # The slot starts here, in the thread that will use it: a worker dies with the thread
        # that started it (PR_SET_PDEATHSIG), so no short-lived thread may start one.
        try:
            assert slot is not None
            try:
                slot.start()
            except Exception as exc:  # noqa: BLE001 - the main thread decides what a dead start means
                events.put(("startfail", slot.label, exc))
                slot.close()
                slot = None
                return
            events.put(("slot", slot))
            while slot is not None:
                item = take()
                if item is None:
                    return
                try:
                    prepared = item.task.prepare(slot.hello)
                except Exception as exc:  # noqa: BLE001 - bad input or a compile error ends the sweep
                    events.put(("error", exc))
                    return
                if isinstance(prepared, ResultRow):
                    events.put(("row", item.task.index, prepared, slot.label, 0.0))
                    continue
                t0 = time.perf_counter()
                try:
                    reply = slot.run(prepared)
                except SlotLost as exc:
                    events.put(("lost", item, str(exc), slot.label))
                    slot.close()
                    slot = backend.replace(slot)  # started by this thread, as above
                    if slot is not None:
                        events.put(("slot", slot))
                    continue
                row = item.task.finish(reply, slot.hello)
                row.metrics.setdefault("placement", slot.placement())
                events.put(("row", item.task.index, row, slot.label, time.perf_counter() - t0))
        except Exception as exc:  # noqa: BLE001 - a bug here must end the sweep loudly, not hang it
            events.put(("error", exc))
        finally:
            if slot is not None:
                slot.close()
            events.put(("gone", None))

    slots = backend.open_slots()
    threads = []
    if not slots:
        raise MissingEnvironment(f"{backend.name}: no device to run on")
    for slot in slots:
        thread = threading.Thread(target=serve, args=(slot,), name=f"sweep-{slot.label}", daemon=True)
        threads.append(thread)
    state["live"] = len(threads)
    for thread in threads:
        thread.start()

    done: dict[int, ResultRow] = {}
    start_failures: list[str] = []
    next_index = 0
    ordered = sorted(t.index for t in tasks)
    finished = 0

    def record(index: int, row: ResultRow, label: str) -> None:
        nonlocal next_index, finished
        if store is not None:
            store.add(row)
        finished += 1
        with cond:
            state["outstanding"] -= 1
            cond.notify_all()
        if on_progress:
            on_progress(finished, total, row, label)
        done[index] = row
        while next_index < len(ordered) and ordered[next_index] in done:
            ready = done[ordered[next_index]]
            run.rows.append(ready)
            if on_result:
                on_result(ready)
            next_index += 1

    try:
        while finished < total:
            try:
                event = events.get(timeout=0.5)
            except queue.Empty:
                event = None
            if event is not None:
                kind = event[0]
                if kind == "row":
                    _, index, row, label, busy = event
                    s = stats.setdefault(label, SlotStats(label, row.metrics.get("placement", {})))
                    if busy > 0:
                        s.configs += 1
                        s.busy_s += busy
                    record(index, row, label)
                elif kind == "lost":
                    _, item, reason, label = event
                    stats[label].lost += 1
                    item.attempts += 1
                    if item.attempts >= max_attempts:
                        run.lost += 1
                        record(item.task.index, item.task.lost(
                            f"lost {item.attempts} times, not retried again: {reason}"), label)
                    else:
                        run.retried += 1
                        with cond:
                            pending.appendleft(item)
                            cond.notify_all()
                elif kind == "slot":
                    new = event[1]
                    stats.setdefault(new.label, SlotStats(new.label, new.placement()))
                elif kind == "startfail":
                    start_failures.append(f"{event[1]}: {event[2]}")
                elif kind == "gone":
                    state["live"] -= 1
                elif kind == "error":
                    raise event[1]
            if cancel is not None and cancel.cancelled:
                with cond:
                    running = state["outstanding"] - len(pending)
                if running <= 0 or state["live"] <= 0:
                    raise Cancelled(f"cancelled after {finished} of {total} configs (all of them stored)")
                continue
            if state["live"] <= 0 and finished < total:
                if not stats and start_failures:  # nothing ever started: the environment is missing
                    raise MissingEnvironment(f"no worker could start: {start_failures[0]}")
                # Every slot is gone: what is left is reported, never silently dropped.
                with cond:
                    leftovers = list(pending)
                    pending.clear()
                for item in leftovers:
                    run.lost += 1
                    record(item.task.index, item.task.lost("no worker left to run it"), "")
                if finished < total:
                    raise RuntimeError(f"sweep ended with {total - finished} configs unaccounted for")
    finally:
        with cond:
            state["stop"] = True
            cond.notify_all()
        deadline = time.monotonic() + 5.0
        for thread in threads:  # idle threads leave at once; a busy one is ended by backend.close()
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        backend.close()
    run.slots = list(stats.values())
    run.wall_s = time.perf_counter() - started
    return run
