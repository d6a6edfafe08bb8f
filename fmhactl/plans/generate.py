"""Every C++ copy of a Python declaration, written and checked by one generator.

    python -m fmhactl.plans --write    rewrite every generated header from its declaration
    python -m fmhactl.plans --check    exit 1 naming each header that differs (CI runs this)

Each generated file starts with a GENERATED banner naming the Python module it comes from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fmhactl.layout import fields
from fmhactl.plans import (params, ref, sm90, sm90_decode, sm90_gather, sm90_split_decode, sm100, tcgen05_abi,
                           tcgen05_ldst, wgmma_ops)

COMMAND = "python -m fmhactl.plans --write"


@dataclass(frozen=True)
class GeneratedFile:
    path: str  # relative to the project root
    source: str  # the Python module that declares its content
    render: Callable[[], list[str] | str]

    def text(self) -> str:
        body = self.render()
        body_text = body if isinstance(body, str) else "\n".join(body)
        banner = f"// GENERATED from {self.source} by `{COMMAND}`; do not edit."
        return banner + "\n" + body_text.strip("\n") + "\n"


def _source(module: object) -> str:
    return str(Path(module.__file__).resolve().relative_to(Path(__file__).resolve().parents[2]))  # type: ignore[attr-defined]


GENERATED: tuple[GeneratedFile, ...] = (
    GeneratedFile(sm100.HEADER_PATH, _source(sm100), sm100.render_header),
    GeneratedFile(sm90.HEADER_PATH, _source(sm90), sm90.render_plan_header),
    GeneratedFile(sm90_gather.HEADER_PATH, _source(sm90_gather), sm90_gather.render_plan_header),
    GeneratedFile(sm90_decode.HEADER_PATH, _source(sm90_decode), sm90_decode.render_plan_header),
    GeneratedFile(sm90_split_decode.HEADER_PATH, _source(sm90_split_decode), sm90_split_decode.render_header),
    GeneratedFile(ref.HEADER_PATH, _source(ref), ref.render_plan_header),
    GeneratedFile(params.HEADER_PATH, _source(params), params.render_params_header),
    GeneratedFile(tcgen05_abi.HEADER_PATH, _source(tcgen05_abi), tcgen05_abi.render_errors_header),
    GeneratedFile(fields.GENERATED_HEADER, _source(fields), fields.c_header),
    GeneratedFile(wgmma_ops.HEADER_PATH, _source(wgmma_ops), wgmma_ops.render),
    GeneratedFile(wgmma_ops.DECODE_HEADER_PATH, _source(wgmma_ops), wgmma_ops.render_decode),
    GeneratedFile(tcgen05_ldst.HEADER_PATH, _source(tcgen05_ldst), tcgen05_ldst.render),
)


def project_root() -> Path:
    return Path(__file__).resolve().parents[2]


def stale(root: Path) -> list[str]:
    """Generated files under `root` whose text differs from what their declaration renders."""
    out = []
    for generated in GENERATED:
        target = root / generated.path
        current = target.read_text() if target.is_file() else None
        if current != generated.text():
            out.append(generated.path)
    return out


def write(root: Path) -> list[str]:
    """Rewrite the stale files under `root`; returns their paths."""
    changed = stale(root)
    for generated in GENERATED:
        if generated.path in changed:
            (root / generated.path).write_text(generated.text())
    return changed
