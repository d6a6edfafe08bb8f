"""Compare the SASS of every variant's entry points between a base commit and this tree.

    python scripts/sass_compare.py [--base 259d0c7] [--emulated] [--strict] [--variants a,b] [--out DIR]

Each tree's own fmhactl compiles each registered variant (NVRTC, the variant's own options, no
build cache) for its native archs and, with --emulated, the emulated sm_90a builds of the SM100
variants (set FMHACTL_EMU_PTXAS_O=0 to make those tolerable), with --strict their strict-emulator
builds too. `cuobjdump -sass` of both cubins is
compared after dropping the lines that name the file; instruction text, addresses and encodings
must be identical. The base tree is `git archive <base>` in a temporary directory.

Prints one line per build (`same` / `DIFFERENT: N lines`), writes both SASS listings and a diff
for each difference under --out, and exits 1 if any build differs, 2 on bad input, 3 if NVRTC or
cuobjdump is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _dump_tree(tree: Path, out: Path, emulated: bool, strict: bool, names: list[str]) -> int:
    """Worker, run with PYTHONPATH=tree: compile the variants with that tree's fmhactl, write SASS."""
    os.chdir(tree)
    from fmhactl.build.compiler import BuildTarget, _compile_nvrtc, _options
    from fmhactl.build.sass import cuobjdump
    from fmhactl.registry import load_registry

    registry = load_registry()
    out.mkdir(parents=True, exist_ok=True)
    built = []
    for variant in registry.values():
        if names and variant.name not in names:
            continue
        targets = [BuildTarget(arch) for arch in variant.archs]
        if emulated:
            targets += [BuildTarget(arch, emulated=True) for arch in variant.emulated_on if arch not in variant.archs]
        if strict:
            targets += [BuildTarget(arch, emulated=True, strict=True) for arch in variant.emulated_on
                        if arch not in variant.archs]
        for target in targets:
            cubin, _log = _compile_nvrtc(variant.source_path, _options(variant, target))
            stem = f"{variant.name}__{target.label}"
            cubin_path = out / f"{stem}.cubin"
            cubin_path.write_bytes(cubin)
            proc = subprocess.run([str(cuobjdump()), "-sass", str(cubin_path)], capture_output=True, text=True,
                                  check=True)
            (out / f"{stem}.sass").write_text(normalise(proc.stdout))
            built.append(stem)
            print(f"  {tree.name}: {stem}", file=sys.stderr, flush=True)
    (out / "built.json").write_text(json.dumps(built))
    return 0


def normalise(sass: str) -> str:
    """Drop what legitimately varies between two builds of the same code: file names."""
    keep = [line.rstrip() for line in sass.splitlines() if not line.lstrip().startswith(("Fatbin", "code for"))
            and ".cubin" not in line]
    return "\n".join(keep) + "\n"


def _run_worker(tree: Path, out: Path, emulated: bool, strict: bool, names: list[str]) -> subprocess.Popen:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--dump-tree", str(tree), "--out", str(out)]
    cmd += ["--emulated"] if emulated else []
    cmd += ["--strict"] if strict else []
    if names:
        cmd += ["--variants", ",".join(names)]
    return subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(tree)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="SASS of every variant: base commit vs this tree")
    parser.add_argument("--base", default="259d0c7", help="commit to compare against")
    parser.add_argument("--emulated", action="store_true", help="also the emulated sm_90a builds of SM100 variants")
    parser.add_argument("--strict", action="store_true", help="also the strict-emulator builds of SM100 variants")
    parser.add_argument("--variants", default="", help="comma-separated variant names (default: all)")
    parser.add_argument("--out", type=Path, default=None, help="where the listings go (default: a temp dir)")
    parser.add_argument("--dump-tree", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    names = [n for n in args.variants.split(",") if n]
    if args.dump_tree is not None:
        return _dump_tree(args.dump_tree.resolve(), args.out.resolve(), args.emulated, args.strict, names)
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "-q", f"{args.base}^{{commit}}"],
                      capture_output=True).returncode:
        print(f"--base {args.base}: not a commit of this repository", file=sys.stderr)
        return 2
    out = (args.out or Path(tempfile.mkdtemp(prefix="sass_compare_"))).resolve()
    base_tree = out / "base_tree"
    base_tree.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(base_tree)], input=archive, check=True)
    workers = [_run_worker(base_tree, out / "base", args.emulated, args.strict, names),
               _run_worker(ROOT, out / "head", args.emulated, args.strict, names)]
    codes = [w.wait() for w in workers]
    if any(codes):
        print(f"a build failed (exit codes base {codes[0]}, head {codes[1]})", file=sys.stderr)
        return 3
    base_built = json.loads((out / "base" / "built.json").read_text())
    head_built = json.loads((out / "head" / "built.json").read_text())
    differing = 0
    for stem in sorted(set(base_built) | set(head_built)):
        if stem not in base_built or stem not in head_built:
            print(f"{stem}: only in {'head' if stem in head_built else 'base'}")
            differing += 1
            continue
        base_sass, head_sass = out / "base" / f"{stem}.sass", out / "head" / f"{stem}.sass"
        if base_sass.read_bytes() == head_sass.read_bytes():
            print(f"{stem}: same ({len(head_sass.read_text().splitlines())} lines)")
            continue
        # GNU diff: an emulated build's listing has ~400k lines, too many for difflib.
        diff = subprocess.run(["diff", "-u", str(base_sass), str(head_sass)], capture_output=True, text=True).stdout
        (out / f"{stem}.diff").write_text(diff)
        differing += 1
        changed = sum(1 for d in diff.splitlines() if d[:1] in "+-" and not d.startswith(("+++", "---")))
        print(f"{stem}: DIFFERENT: {changed} lines ({out / (stem + '.diff')})")
    print(f"{len(set(base_built) | set(head_built)) - differing} same, {differing} different; listings in {out}")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
