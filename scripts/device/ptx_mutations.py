"""Mutation proof for the PTX path (issue 28): faults put into a COPY of the native backend only.

For each fault: copy kernels/ and scenarios/ to a scratch tree, apply one exact edit to
tcgen05_native.cuh / tcgen05_native_ldst.cuh, then
  - tc5 build: the tc5:: emulated PTX of VARIANT is compiled in both trees; identical PTX (modulo
    .file paths) means the tc5:: build is the same binary, so it still passes (the unmutated
    tc5 build's verify result stands for it);
  - PTX path: `fmhactl verify VARIANT --emulate native --emulation fast` on SHAPES in the mutated
    tree (FMHACTL_ROOT). Caught = a FAIL, a named rule, or a build refused with its rule.
    python3 scripts/device/ptx_mutations.py OUTDIR [--no-verify] [--emulation strict|fast] [--only TEXT]
(--emulation: the PTX path's semantics, fast by default; --only: the faults whose name contains TEXT.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VARIANT = "sm100_tma_s2_tmem"
SHAPES = ["b=1,h=2,t=256,s=1024,d=128", "b=1,h=1,t=300,s=777,d=128,causal", "b=2,h=2,hkv=1,t=128,s=128,d=64"]
NATIVE, LDST = "kernels/common/tcgen05_native.cuh", "kernels/common/tcgen05_native_ldst.cuh"
LD32 = "struct LdSt<Shape::k32x32b, 32, false> {"

# (name, file, anchor (the edit applies to the first `old` after it; '' = from the start), old, new)
FAULTS = [
    ("ld operands swapped (32x32b.x32: r0<->r1)", LDST, LD32, ': "=r"(r[0]), "=r"(r[1]),', ': "=r"(r[1]), "=r"(r[0]),'),
    ("wrong .num (ld 32x32b.x32 issued as .x16: r16..r31 never loaded)", LDST, LD32,
     "32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, "
     "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];",
     "32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, [%32];"),
    ("ld shape wrong (32x32b.x32 as 16x64b.x32)", LDST, LD32, "tcgen05.ld.sync.aligned.32x32b.x32.b32",
     "tcgen05.ld.sync.aligned.16x64b.x32.b32"),
    ("idesc bit off (f16 SS: B major bit 16 flipped)", NATIVE, "", '"r"(idesc), "r"(enable_d)',
     '"r"(idesc ^ (1u << 16)), "r"(enable_d)'),
    ("enable-input-d inverted", NATIVE, "", "setp.ne.b32 p, %4, 0;", "setp.eq.b32 p, %4, 0;"),
    ("commit from a lane that issued nothing (lane 31)", NATIVE, "void commit(",
     "if (elect_one()) {", "if ((threadIdx.x & 31) == 31) {"),
    ("dealloc of the wrong column count (ncols/2)", NATIVE, "void dealloc(", '"r"(taddr), "r"(ncols)',
     '"r"(taddr), "r"(ncols / 2)'),
    ("wait::ld dropped", NATIVE, "", 'asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");', ""),
]


def make_tree(index: int, fault: tuple, scratch: Path) -> Path:
    name, file, anchor, old, new = fault
    tree = scratch / f"mut{index}"
    shutil.rmtree(tree, ignore_errors=True)
    for folder in ("kernels", "scenarios"):
        shutil.copytree(ROOT / folder, tree / folder)
    path = tree / file
    text = path.read_text()
    start = text.index(anchor) if anchor else 0
    at = text.index(old, start)
    path.write_text(text[:at] + new + text[at + len(old):])
    return tree


def tc5_ptx(root: Path) -> str:
    """The tc5:: emulated (fast) build's PTX of VARIANT in tree `root`, .file lines dropped."""
    code = ("import sys\nfrom fmhactl.registry import get_variant\nfrom fmhactl.build.compiler import BuildTarget, _options\n"
            "from fmhactl.ptx.build import nvrtc_ptx\nv = get_variant(sys.argv[1])\n"
            "opts = [o for o in _options(v, BuildTarget('sm_90a', emulated=True)) if 'ptxas' not in o]\n"
            "sys.stdout.write(nvrtc_ptx(v.source_path, opts))\n")
    env = dict(os.environ, FMHACTL_ROOT=str(root))
    out = subprocess.run([sys.executable, "-c", code, VARIANT], env=env, capture_output=True, text=True, check=True)
    return "\n".join(line for line in out.stdout.splitlines() if not line.lstrip().startswith((".file", "//")))


def option(name: str, default: str) -> str:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else default


EMULATION = option("--emulation", "fast")


def verify(root: Path, logs: Path, tag: str) -> dict:
    env = dict(os.environ, FMHACTL_ROOT=str(root))
    cmd = [sys.executable, "-m", "fmhactl", "verify", VARIANT, "--emulate", "native", "--emulation", EMULATION,
           "--seed", "7", "--timeout", "120"] + [x for s in SHAPES for x in ("--shape", s)]
    started = time.time()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    (logs / f"mutation-{tag}.log").write_text(proc.stdout + proc.stderr)
    text = proc.stdout + proc.stderr
    rules = sorted(set(re.findall(r"tcgen05 ([a-z-]+):", text)) | set(re.findall(r"(ptx-[a-z0-9-]+)", text)))
    m = re.search(r"(\d+) passed, (\d+) failed", text)
    return {"rc": proc.returncode, "wall_s": round(time.time() - started, 1), "rules": rules,
            "passed": int(m.group(1)) if m else None, "failed": int(m.group(2)) if m else None,
            "last": (text.strip().splitlines() or [""])[-1][:200]}


def main() -> int:
    logs = Path(sys.argv[1])
    logs.mkdir(parents=True, exist_ok=True)
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / "ptx-mutations"
    do_verify = "--no-verify" not in sys.argv
    faults = [f for f in FAULTS if option("--only", "") in f[0]]
    trees = [make_tree(i, f, scratch) for i, f in enumerate(faults)]
    baseline = tc5_ptx(ROOT)
    with ThreadPoolExecutor(max(1, min(8, os.cpu_count() or 1))) as pool:
        same = list(pool.map(lambda t: tc5_ptx(t) == baseline, trees))
        results = list(pool.map(lambda it: verify(it[1], logs, str(it[0])), enumerate(trees))) if do_verify else \
            [None] * len(trees)
    rows = []
    print(f"{'fault':52} {'tc5 build':16} PTX path (--emulate native, {EMULATION})")
    for (name, *_), identical, result in zip(faults, same, results):
        if result is None:
            verdict = "not run"
        else:
            caught = result["rc"] != 0 and (bool(result["rules"]) or (result["failed"] or 0) > 0 or "ptx-" in result["last"])
            verdict = (f"{'CAUGHT' if caught else 'NOT CAUGHT'} rc={result['rc']} pass={result['passed']} "
                       f"fail={result['failed']} rules={','.join(result['rules']) or '-'}")
        tc5 = "unchanged (same PTX)" if identical else "CHANGED"
        print(f"{name:52} {tc5:16} {verdict}")
        rows.append({"fault": name, "tc5_ptx_identical": identical, "ptx_path": result})
    (logs / f"mutations-{EMULATION}.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
