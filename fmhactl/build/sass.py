"""Disassembly of cached cubins (cuobjdump from the pip wheel or the toolkit) and opcode counts."""

from __future__ import annotations

import re
import shutil
import subprocess
import sysconfig
from collections import Counter
from pathlib import Path

from fmhactl.errors import MissingEnvironment

_OPCODE = re.compile(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]+)", re.MULTILINE)


def cuobjdump() -> Path:
    wheel = Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13" / "bin" / "cuobjdump"
    if wheel.is_file():
        return wheel
    found = shutil.which("cuobjdump")
    if found:
        return Path(found)
    raise MissingEnvironment("cuobjdump not found (pip install nvidia-cuda-cuobjdump, or a CUDA toolkit)")


def sass(cubin: Path) -> str:
    proc = subprocess.run([str(cuobjdump()), "-sass", str(cubin)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise MissingEnvironment(f"cuobjdump failed on {cubin.name}: {proc.stderr.strip()[:200]}")
    return proc.stdout


def opcode_counts(cubin: Path) -> Counter:
    """Opcode base names (before the first '.') with their counts."""
    return Counter(m.group(1) for m in _OPCODE.finditer(sass(cubin)))


def instruction_mix(cubin: Path, instructions: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """Per entry point of the cubin: how many times each instruction (opcode with modifiers, e.g.
    MUFU.EX2, or a bare opcode such as FFMA, matched as a whole word) appears in its SASS."""
    text = sass(cubin)
    out: dict[str, dict[str, int]] = {}
    for body in re.split(r"\n\s*Function : ", text)[1:]:
        name = body.split("\n", 1)[0].strip()
        out[name] = {ins: len(re.findall(rf"\b{re.escape(ins)}\b", body)) for ins in instructions}
    return out
