"""What every screen (page) shares: its options, the message line, the guard that turns bad input
into a message instead of a crash, and a one-line prompt for typed values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from fmhactl.tui import backend


class Prompt(Input):
    """The one-line question a page asks (goto a cell, a new size, an expression). While it asks,
    every printable key is text and the footer shows only its own keys (the page's are off)."""

    DEFAULT_CSS = """
    Prompt { display: none; dock: bottom; border: tall $accent; }
    Prompt.asking { display: block; }
    """

    BINDINGS = [
        Binding("enter", "submit", "apply"),
        Binding("escape", "cancel", "cancel"),
    ]

    def action_cancel(self) -> None:
        page = next((a for a in self.ancestors if isinstance(a, Page)), None)
        if page is not None:
            page.cancel_prompt()


class Page(Vertical, can_focus=True):
    """One screen of the app. Subclasses set NAME/TITLE/HELP and implement `refresh_view`.

    The page itself takes the focus when none of its widgets can (so its keys still work)."""

    NAME: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""
    HELP: ClassVar[str] = ""

    DEFAULT_CSS = """
    Page { padding: 0 1; }
    Page .msg { height: auto; max-height: 3; color: $text; }
    Page .msg.error { color: $error; text-style: bold; }
    Page .msg.ok { color: $success; }
    Page .controls { height: auto; color: $text; background: $boost; }
    Page .info { height: auto; max-height: 8; }
    """

    def __init__(self, options: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(id=self.NAME, **kwargs)
        self.options: dict[str, Any] = dict(options or {})
        self._answer: Callable[[str], None] | None = None

    activated = False

    def activate(self) -> None:
        """Compute the page the first time it is shown (pages nobody opens cost nothing)."""
        if not self.activated:
            self.activated = True
            self.first_show()

    def first_show(self) -> None:
        self.update_view()

    # ---- composition helpers ----------------------------------------------------------------
    def compose_message(self) -> ComposeResult:
        yield Static("", classes="msg", id=f"{self.NAME}-msg")
        yield Prompt(id=f"{self.NAME}-prompt")

    @property
    def message_line(self) -> Static:
        return self.query_one(f"#{self.NAME}-msg", Static)

    def say(self, text: str, kind: str = "") -> None:
        line = self.message_line
        line.update(Text(text))
        line.set_class(kind == "error", "error")
        line.set_class(kind == "ok", "ok")

    def guard(self, fn: Callable[[], Any]) -> bool:
        """Run fn; bad input (or any failure) becomes the message line. True when fn succeeded."""
        try:
            fn()
        except backend.FmhactlError as exc:
            self.say(f"error: {exc}", "error")
            return False
        except Exception as exc:  # noqa: BLE001 - the app must never die on what a user typed
            self.say(f"internal error: {type(exc).__name__}: {exc}", "error")
            return False
        return True

    def update_view(self) -> bool:
        """Recompute from the current options; on bad input keep the last good view and say why."""
        if "error" in self.message_line.classes:
            self.say("")  # a new attempt: the old complaint goes (the guard puts a new one back)
        return self.guard(self.refresh_view)

    def set_options(self, **changes: Any) -> None:
        """Apply new options; when they are bad, say why and keep the previous ones (and view)."""
        old = dict(self.options)
        self.options.update(changes)
        if not self.update_view():
            self.options = old

    def refresh_view(self) -> None:  # pragma: no cover - every page overrides it
        raise NotImplementedError

    def focus_main(self) -> None:
        """Give the keyboard to the page's main widget (called when the page is shown, and by Esc).

        Never an input: a page opens (and Esc leaves an input) with the screen's keys live, so
        digits switch screens and q quits; Tab or a click moves into a field."""
        for widget in self.query("CellGrid, DataTable"):
            if widget.display and widget.focusable:
                widget.focus()
                return
        self.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While the prompt asks, the page's own keys are off and out of the footer (keys are text)."""
        if self._answer is not None and any(isinstance(b, Binding) and b.action.split("(")[0] == action
                                            for b in self.BINDINGS):
            return False
        return True

    # ---- prompt -----------------------------------------------------------------------------
    def ask(self, question: str, default: str, answer: Callable[[str], None]) -> None:
        prompt = self.query_one(f"#{self.NAME}-prompt", Prompt)
        prompt.border_title = question + " (Enter: apply, Esc: cancel)"
        prompt.value = ""  # typed text starts fresh; the current value is the hint
        prompt.placeholder = f"now: {default}" if default else ""
        prompt.add_class("asking")
        prompt.display = True  # now, not at the next style update: keys typed at once must land here
        self._answer = answer
        self.app.set_focus(prompt)  # at once, so keys typed right after land in the prompt
        self.refresh_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not isinstance(event.input, Prompt) or self._answer is None:
            return
        event.stop()
        answer = self._answer
        self.cancel_prompt()
        self.guard(lambda: answer(event.value))

    def cancel_prompt(self) -> None:
        """Close the prompt (if open) and give the keys back to the page."""
        prompt = self.query_one(f"#{self.NAME}-prompt", Prompt)
        self._answer = None
        prompt.remove_class("asking")
        prompt.display = False
        self.focus_main()
        self.refresh_bindings()

    def key_escape(self) -> None:
        if self._answer is not None:
            self.cancel_prompt()


def problems_text(lines: list[tuple[str, str]], empty: str = "no problems") -> Text:
    """Problems as the CLI prints them: severity coloured, then `code: message` (no markup)."""
    if not lines:
        return Text(empty, style="green")
    out = Text()
    for i, (severity, text) in enumerate(lines):
        out.append(severity, style={"error": "bold red", "warning": "yellow"}.get(severity, "cyan"))
        out.append(" " + text + ("\n" if i < len(lines) - 1 else ""))
    return out


def cycle(values: tuple[Any, ...] | list[Any], current: Any, step: int = 1) -> Any:
    """The next (or previous) value of a choice list."""
    try:
        return values[(list(values).index(current) + step) % len(values)]
    except ValueError:
        return values[0]


def parse_pair(text: str, what: str) -> tuple[int, int]:
    return backend.parse_pair(text, what)
