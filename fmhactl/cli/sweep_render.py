"""How a multi-device sweep shows itself: JSON lines and the per-device throughput table.

Rendering belongs to the CLI (the layering test keeps rich inside cli/ and tui/); rich is imported lazily.
"""

from __future__ import annotations

from fmhactl.cli.common import print_json_line
from fmhactl.services.placement import SweepRun


def json_line(row) -> None:
    """One result per line on stdout, flushed as it lands (in config order)."""
    print_json_line(row.to_dict())


def summary_json_line(run: SweepRun, closing: str) -> None:
    print_json_line({"summary": {"closing": closing, **run.to_dict()}})


def print_throughput(console, run: SweepRun) -> None:
    """Per device: configs, busy time, configs/s over the sweep's wall time; retries and losses."""
    from rich.table import Table

    table = Table(title=f"sweep on {len(run.slots)} {run.backend} slot(s): {run.wall_s:.1f} s wall")
    for col in ("slot", "device", "uuid", "node", "configs", "busy s", "configs/s", "lost"):
        table.add_column(col, justify="right" if col in ("configs", "busy s", "configs/s", "lost") else "left")
    for s in run.throughput():
        p = s["placement"]
        table.add_row(s["label"], f"{p.get('index', '')} {p.get('name', '')}".strip(), p.get("uuid", ""),
                      p.get("node", "local"), str(s["configs"]), f"{s['busy_s']:.1f}", f"{s['configs_per_s']:.2f}",
                      str(s["lost"]))
    console.print(table)
    if run.retried or run.lost:
        console.print(f"{run.retried} config(s) re-run after a lost worker, {run.lost} reported lost")


def slot_counts(progress, task, label: str):
    """An on_progress callback that keeps the bar's text at 'label gpu0:12 gpu1:11' (results per slot)."""
    from collections import Counter

    counts: Counter = Counter()

    def update(done: int, total: int, row, slot: str) -> None:
        counts[slot or "-"] += 1
        progress.update(task, description=f"{label} " + " ".join(f"{k}:{v}" for k, v in sorted(counts.items())))

    return update


def sweep_progress(label: str, total: int, console, disable: bool):
    """A transient whole-sweep bar on the terminal and its on_progress callback (completion order)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=console, transient=True, disable=disable)
    task = progress.add_task(label, total=total)
    per_slot = slot_counts(progress, task, label)

    def update(done: int, total: int, row, slot: str) -> None:
        progress.update(task, completed=done, total=total)
        per_slot(done, total, row, slot)

    return progress, update
