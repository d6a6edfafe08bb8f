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
