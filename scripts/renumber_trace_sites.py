"""Move a shipped trace recording's sites (kernel source lines) to the current kernel source when
its lines moved but the recorded code did not: each site goes through the map of lines that are
unchanged between the source at REV and the working tree (difflib); a site on a changed line is
refused (then the recording must be made again on the GPU, scripts/device/record_trace.sh).

    python scripts/renumber_trace_sites.py REV docs/trace/<recording>.raw.gz
"""

from __future__ import annotations

import difflib
import gzip
import struct
import subprocess
import sys
from pathlib import Path

from fmhactl.runtime.trace_raw import RAW_FORMAT
from fmhactl.trace import service

ROOT = Path(__file__).resolve().parents[1]


def unchanged_lines(old: list[str], new: list[str]) -> dict[int, int]:
    """1-based old line -> new line, for the lines difflib matches as equal."""
    mapping: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag == "equal":
            mapping.update({i1 + k + 1: j1 + k + 1 for k in range(i2 - i1)})
    return mapping


def main(rev: str, recording: str) -> int:
    source = f"kernels/{service.KERNEL_SOURCE}"
    old = subprocess.run(["git", "show", f"{rev}:{source}"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    mapping = unchanged_lines(old.splitlines(), (ROOT / source).read_text().splitlines())
    path = Path(recording)
    records = list(struct.iter_unpack(RAW_FORMAT, gzip.decompress(path.read_bytes())))
    sites = sorted({r[4] for r in records if r[4]})
    lost = [s for s in sites if s not in mapping]
    if lost:
        print(f"{recording}: sites {lost} are on lines changed since {rev}: record the trace again", file=sys.stderr)
        return 1
    moved = [(time, kind, block, warp, mapping.get(site, 0) if site else 0, a, b)
             for time, kind, block, warp, site, a, b in records]
    path.write_bytes(gzip.compress(b"".join(struct.pack(RAW_FORMAT, *r) for r in moved), mtime=0))
    print(f"{recording}: {len(sites)} sites moved ({sum(mapping[s] != s for s in sites)} changed line numbers)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
