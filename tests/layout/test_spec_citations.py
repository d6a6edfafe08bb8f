"""Every "spec §N" the code cites resolves to a section of docs/tcgen05-facts.md."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FACTS = REPO / "docs" / "tcgen05-facts.md"
SCANNED = ("fmhactl", "kernels", "tests", "scripts", "scenarios", "docs")
SUFFIXES = {".py", ".cuh", ".cu", ".h", ".md", ".toml", ".sh", ".txt"}
CITATION = re.compile(r"§\s?(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{2,4} §(\d+(?:\.\d+)*) \S", re.MULTILINE)


def sections() -> set[str]:
    return set(HEADING.findall(FACTS.read_text()))


def citations() -> dict[str, list[str]]:
    """section -> ["path:line", ...] for every § citation outside the facts page itself."""
    found: dict[str, list[str]] = {}
    for top in SCANNED:
        for path in sorted((REPO / top).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file() or path == FACTS or ".fmhactl" in path.parts:
                continue
            for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                for number in CITATION.findall(line):
                    found.setdefault(number.rstrip("."), []).append(f"{path.relative_to(REPO)}:{lineno}")
    return found


def unresolved(cited: dict[str, list[str]], known: set[str]) -> dict[str, list[str]]:
    return {sec: where for sec, where in cited.items() if sec not in known}


def test_the_facts_page_has_the_sections_the_code_cites():
    cited = citations()
    assert len(cited) >= 20  # the code cites most sections; an empty scan would prove nothing
    assert unresolved(cited, sections()) == {}


def test_an_unknown_section_is_reported():
    assert unresolved({"11.2": ["x.py:1"], "5.3": ["y.py:2"]}, sections()) == {"11.2": ["x.py:1"]}


def test_numbering_is_the_spec_numbering():
    known = sections()
    assert {"1.3", "2.2", "3.4", "4.1", "5.3", "6", "8.1", "10"} <= known
