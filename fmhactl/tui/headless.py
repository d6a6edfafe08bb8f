"""Render a screen headless to an SVG (`fmhactl tui --screenshot FILE.svg --size 120x40`)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from fmhactl.errors import BadInput
from fmhactl.tui.deeplink import DeepLink


def check_svg_path(path: str) -> Path:
    p = Path(path)
    if p.suffix.lower() != ".svg":
        raise BadInput(f"--screenshot {path}: the file must end in .svg")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir() or not os.access(parent, os.W_OK) or p.is_dir():
        raise BadInput(f"--screenshot {path}: not writable")
    return p


MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")


def parse_keys(text: str) -> list[str]:
    """`--press a,ctrl+a,comma,enter` as Textual key names; an unknown name is bad input (exit 2),
    not a key silently pressed to no effect."""
    from textual.keys import REPLACED_KEYS, Keys, key_to_character

    names = {k.value for k in Keys}
    keys = [k.strip() for k in text.split(",")]
    for key in keys:
        *mods, base = key.split("+")
        known = (len(base) == 1 or base in names
                 or key_to_character(REPLACED_KEYS.get(base, base)) is not None)
        if not key or not known or any(m not in MODIFIERS for m in mods):
            raise BadInput(f"--press {text!r}: {key!r} is not a key name (write Textual key names separated by "
                           "commas, e.g. g,ctrl+u,4,0,comma,3,enter)")
    return keys


async def _render(link: DeepLink, size: tuple[int, int], keys: list[str]) -> str:
    from fmhactl.tui.app import FmhaApp

    app = FmhaApp(link.screen, link.options)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await pilot.pause()
        return app.export_screenshot(title=f"fmhactl tui --screen {link.screen}")


def screenshot_app(link: DeepLink, target: Path, size: tuple[int, int], keys: list[str]) -> None:
    svg = asyncio.run(_render(link, size, keys))
    target.write_text(svg, encoding="utf-8")
