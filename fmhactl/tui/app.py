"""The fmhactl Textual app: a sidebar of eight screens, the command palette, bindings in the footer.

Screens are pages in a ContentSwitcher (one module each under `screens/`); `1`..`8` (or the
sidebar, or Ctrl+P) switch between them. `FmhaApp(start=..., options=...)` opens a screen preset,
which is how `fmhactl tui --screen NAME ...` deep links work.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Header, Label, ListItem, ListView

from fmhactl.tui.screens.accum import AccumPage
from fmhactl.tui.screens.base import Page
from fmhactl.tui.screens.checkpoints import CheckpointsPage
from fmhactl.tui.screens.descriptors import DescriptorsPage
from fmhactl.tui.screens.mapping import MapPage
from fmhactl.tui.screens.results import ResultsPage
from fmhactl.tui.screens.smem import SmemPage
from fmhactl.tui.screens.tma import TmaPage
from fmhactl.tui.screens.tmem import TmemPage

PAGES: tuple[type[Page], ...] = (TmemPage, AccumPage, SmemPage, DescriptorsPage, TmaPage, MapPage, CheckpointsPage,
                                 ResultsPage)
PAGE_NAMES = tuple(p.NAME for p in PAGES)


class ScreenCommands(Provider):
    """Command palette entries: go to each screen."""

    def _entries(self) -> list[tuple[str, str, Any]]:
        app = self.app
        assert isinstance(app, FmhaApp)
        return [(f"Go to {p.TITLE}", p.HELP, partial(app.show_page, p.NAME)) for p in PAGES]

    async def discover(self) -> Hits:
        for text, help_text, callback in self._entries():
            yield DiscoveryHit(text, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help_text, callback in self._entries():
            # The screen's name outranks a word in another screen's help ("Map" -> Map, not TMA's
            # "tensor-map").
            score = max(matcher.match(text), matcher.match(help_text) / 2)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=help_text)


class MainScreen(Screen[None]):
    """The app's one screen. Its footer lists the app's own keys (q quit, ctrl+b sidebar) first, so
    a narrow terminal cuts the page's extra keys, never the way out."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        bindings = super().active_bindings
        first = {k: b for k, b in bindings.items() if b.node is self.app}
        return {**first, **{k: b for k, b in bindings.items() if k not in first}}


class FmhaApp(App[None]):
    TITLE = "fmhactl"
    SUB_TITLE = "tcgen05 layouts, checkpoints and results"
    COMMANDS = App.COMMANDS | {ScreenCommands}

    CSS = """
    #sidebar { width: 16; border-right: vkey $primary-darken-2; }
    #sidebar.hidden { display: none; }
    #pages { width: 1fr; }
    """

    BINDINGS = [
        Binding("q", "quit", "quit"),
        Binding("ctrl+b", "toggle_sidebar", "sidebar"),
        Binding("escape", "leave_input", "leave input", show=False),
        *[Binding(str(i + 1), f"show_page('{p.NAME}')", p.TITLE, show=False) for i, p in enumerate(PAGES)],
    ]

    def __init__(self, start: str = "tmem", options: dict[str, Any] | None = None) -> None:
        super().__init__()
        if start not in PAGE_NAMES:
            raise ValueError(f"unknown screen {start!r}")
        self.start = start
        self.start_options = dict(options or {})

    def format_title(self, title: str, sub_title: str) -> Content:
        """`fmhactl — Screen: what it shows`: the space before the dash is part of the title's own run,
        so no rendering (terminal, SVG, copied text) glues the name to the dash."""
        if not sub_title:
            return Content(title)
        return Content.assemble((f"{title} —", "bold"), (f" {sub_title}", "dim"))

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield ListView(*[ListItem(Label(f"{i + 1} {p.TITLE}"), id=f"nav-{p.NAME}") for i, p in enumerate(PAGES)],
                           id="sidebar", initial_index=PAGE_NAMES.index(self.start))
            with ContentSwitcher(initial=self.start, id="pages"):
                for p in PAGES:
                    yield p(self.start_options if p.NAME == self.start else None)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show_page(self.start)  # the same title, sidebar and focus as when a key brings it up
        self._fit_sidebar(self.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self._fit_sidebar(event.size.width)

    def _fit_sidebar(self, width: int) -> None:
        """Narrow terminals (up to 129 columns) give the sidebar's room to the grids; ctrl+b brings it back."""
        self.query_one("#sidebar").set_class(width < 130, "hidden")

    def page(self, name: str) -> Page:
        return self.query_one(f"#{name}", Page)

    @property
    def current(self) -> Page:
        return self.page(self.query_one(ContentSwitcher).current or self.start)

    def show_page(self, name: str) -> Page:
        self.query_one(ContentSwitcher).current = name
        sidebar = self.query_one("#sidebar", ListView)
        index = PAGE_NAMES.index(name)
        if sidebar.index != index:
            sidebar.index = index
        page = self.page(name)
        page.activate()
        self.sub_title = f"{page.TITLE}: {page.HELP}"
        self.call_after_refresh(page.focus_main)
        return page

    def action_show_page(self, name: str) -> None:
        self.show_page(name)

    def on_list_view_selected(self, event: ListView.Selected) -> None:
        if event.item.id and event.item.id.startswith("nav-"):
            self.show_page(event.item.id[4:])

    def action_toggle_sidebar(self) -> None:
        self.query_one("#sidebar").toggle_class("hidden")

    def action_leave_input(self) -> None:
        """Esc: leave whatever input has the keys (a prompt closes unanswered); the screen's keys work again."""
        self.current.cancel_prompt()
