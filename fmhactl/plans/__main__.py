"""`python -m fmhactl.plans --write | --check [--root DIR]`: the C++ copies of the declarations.

Exit codes: 0 all current (--check) or written (--write); 1 --check found stale files (each named
on stderr); 2 bad arguments (argparse).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fmhactl.plans.generate import COMMAND, GENERATED, project_root, stale, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fmhactl.plans",
                                     description="Write or check every generated C++ header.")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="rewrite the generated headers")
    action.add_argument("--check", action="store_true", help="exit 1 if a generated header is stale")
    action.add_argument("--list", action="store_true", help="print each generated file and its source")
    parser.add_argument("--root", type=Path, default=None, help="project tree to check or write (default: this one)")
    args = parser.parse_args(argv)
    root = args.root or project_root()
    if not (root / "kernels").is_dir():
        print(f"--root {root}: not a project tree (no kernels/ directory)", file=sys.stderr)
        return 2
    if args.list:
        for generated in GENERATED:
            print(f"{generated.path}\t{generated.source}")
        return 0
    if args.check:
        bad = stale(root)
        for path in bad:
            print(f"{path} is stale (differs from its declaration): run {COMMAND}", file=sys.stderr)
        return 1 if bad else 0
    for path in write(root):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
