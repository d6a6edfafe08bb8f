"""Results: the results store as a filterable table, a row's details, the milestones with their state
and staleness, and verify/bench of the selected variant over a grid in a worker thread (progress
bar, live log, cancel). GPU actions are disabled, with the reason shown, where there is no GPU."""

from __future__ import annotations

import threading

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Input, Log, ProgressBar, Static, TabbedContent, TabPane

from fmhactl.tui import backend
from fmhactl.tui.screens.base import Page, cycle

STATUS_STYLE = {"PASS": "green", "OK": "green", "FAIL": "bold red", "CRASH": "bold red", "HANG": "bold red",
                "ERROR": "red", "UNSUPPORTED": "yellow", "SKIPPED": "dim"}
STATE_STYLE = {"DONE": "green", "STALE": "yellow", "IN PROGRESS": "cyan", "NOT RUN": "dim", "BLOCKED": "red"}


class ResultsPage(Page):
    NAME = "results"
    TITLE = "Results"
    HELP = "the results store, milestones, and verify/bench in the background"

    BINDINGS = [
        Binding("ctrl+f", "filter", "filter"),
        Binding("ctrl+l", "reload", "reload"),
        Binding("ctrl+g", "grid(1)", "grid"),
        Binding("ctrl+v", "start('verify')", "verify"),
        Binding("ctrl+n", "start('bench')", "bench"),
        Binding("ctrl+x", "cancel", "cancel"),
    ]

    DEFAULT_CSS = """
    #results-table { height: 1fr; min-height: 5; }
    #results-tabs { height: 12; }
    #results-job-line { height: 1; }
    #results-log { height: 1fr; }
    """

    def __init__(self, options: dict | None = None) -> None:
        o = {"filter": "", "grid": "smoke", "db": None, **(options or {})}
        super().__init__(o)
        self.lines: list[backend.ResultLine] = []
        self._cancel = threading.Event()
        self.running = False

    def compose(self) -> ComposeResult:
        yield Input(self.options["filter"], id="results-filter",
                    placeholder="filter: kind=verify status=FAIL variant=ref mode=emulated grid=smoke since=2026-11-23 text")
        yield DataTable(id="results-table", cursor_type="row", zebra_stripes=True)
        with TabbedContent(id="results-tabs"):
            with TabPane("details", id="results-tab-details"):
                yield Static("", id="results-details")
            with TabPane("milestones", id="results-tab-milestones"):
                yield DataTable(id="results-milestones", cursor_type="row")
            with TabPane("job", id="results-tab-job"):
                yield Static("", id="results-job-line")
                yield ProgressBar(id="results-progress", show_eta=False)
                yield Log(id="results-log", max_lines=500)
        yield from self.compose_message()

    def first_show(self) -> None:
        table = self.query_one("#results-table", DataTable)
        table.add_columns(*backend.RESULT_COLUMNS)
        self.query_one("#results-milestones", DataTable).add_columns("milestone", "state", "title", "detail")
        self._job_line()
        self.update_view()

    def _job_line(self) -> None:
        gpu = backend.gpu_status()
        line = (f"grid [b]{self.options['grid']}[/] (ctrl+g)  ctrl+v verify, ctrl+n bench the selected variant, "
                "ctrl+x cancel" if gpu.available
                else f"[yellow]verify/bench disabled[/]: {gpu.reason}   (grid [b]{self.options['grid']}[/], ctrl+g)")
        self.query_one("#results-job-line", Static).update(line)

    def refresh_view(self) -> None:
        self.lines = backend.query_results(self.options["filter"], db=self.options["db"])
        table = self.query_one("#results-table", DataTable)
        table.clear()
        for line in self.lines:
            cells = list(line.cells)
            status = cells[4]
            table.add_row(*cells[:4], Text(status, style=STATUS_STYLE.get(status, "")), *cells[5:], key=str(line.id))
        if self.query_one(TabbedContent).active == "results-tab-milestones":
            self._milestones()
        self.say(f"{len(self.lines)} row(s)" + (f" matching {self.options['filter']!r}" if self.options["filter"]
                                                else ""))
        self._details()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "results-tab-milestones":
            self._milestones()  # computed on demand: it reads every milestone's grids and sources

    def _milestones(self) -> None:
        table = self.query_one("#results-milestones", DataTable)
        table.clear()
        try:
            lines = backend.milestone_lines(self.options["db"])
        except backend.FmhactlError as exc:
            table.add_row("-", Text("?", style="red"), str(exc), "")
            return
        for m in lines:
            table.add_row(m.id, Text(m.state + (" (stale)" if m.stale and m.state != "STALE" else ""),
                                     style=STATE_STYLE.get(m.state, "")), m.title, m.detail)

    def _selected(self) -> backend.ResultLine | None:
        table = self.query_one("#results-table", DataTable)
        if not self.lines or not 0 <= table.cursor_row < len(self.lines):
            return None
        return self.lines[table.cursor_row]

    def _details(self) -> None:
        line = self._selected()
        self.query_one("#results-details", Static).update(
            Text("\n".join(line.details)) if line else "no row selected")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "results-table":
            self._details()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "results-filter":
            event.stop()
            self.set_options(filter=event.value)
            self.query_one("#results-table", DataTable).focus()
            return
        super().on_input_submitted(event)

    # ---- actions ----------------------------------------------------------------------------
    def action_filter(self) -> None:
        self.query_one("#results-filter", Input).focus()

    def action_reload(self) -> None:
        self.update_view()

    def action_grid(self, step: int) -> None:
        self.guard(lambda: self.options.update(grid=cycle(backend.grid_names(), self.options["grid"], step)))
        self._job_line()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start" and (self.running or not backend.gpu_status().available):
            return None  # disabled (dimmed in the footer); the job tab says why
        if action == "cancel" and not self.running:
            return None
        return True

    def action_start(self, kind: str) -> None:
        gpu = backend.gpu_status()
        if not gpu.available:
            self.say(f"{kind} disabled: {gpu.reason}", "error")
            return
        line = self._selected()
        if line is None:
            self.say(f"select a row first: its variant is what {kind} runs", "error")
            return
        if self.running:
            self.say("a job is already running (ctrl+x cancels it)", "error")
            return
        self._cancel.clear()
        self.running = True
        self.refresh_bindings()
        self.query_one(TabbedContent).active = "results-tab-job"
        self.query_one("#results-log", Log).clear()
        self._run(kind, line.variant, self.options["grid"])

    @work(thread=True, exclusive=True, group="results-job")
    def _run(self, kind: str, variant: str, grid: str) -> None:
        def progress(event: backend.ProgressEvent) -> None:
            self.app.call_from_thread(self._progress, event)

        try:
            closing = backend.run_job(kind, variant, grid, progress=progress, cancelled=self._cancel.is_set)
        except backend.FmhactlError as exc:
            closing = f"error: {exc}"
        except Exception as exc:  # noqa: BLE001 - a worker failure is reported, never raised into the UI
            closing = f"internal error: {type(exc).__name__}: {exc}"
        self.app.call_from_thread(self._finished, closing)

    def _progress(self, event: backend.ProgressEvent) -> None:
        bar = self.query_one("#results-progress", ProgressBar)
        bar.update(total=max(event.total, 1), progress=event.done)
        self.query_one("#results-log", Log).write_line(event.message)

    def _finished(self, closing: str) -> None:
        self.running = False
        self.refresh_bindings()
        self.query_one("#results-log", Log).write_line(closing)
        self.update_view()
        self.say(closing, "error" if closing.startswith(("error", "internal")) else "ok")

    def action_cancel(self) -> None:
        if self.running:
            self._cancel.set()
            self.query_one("#results-log", Log).write_line("cancelling after the current config ...")

    def focus_main(self) -> None:
        self.query_one("#results-table", DataTable).focus()
