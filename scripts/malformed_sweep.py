#!/usr/bin/env python3
"""Throw a few hundred malformed inputs of every class at the installed CLI and count what went wrong.

    python scripts/malformed_sweep.py [--fmhactl "python -m fmhactl"] [--timeout 60] [--jobs 2] [--json FILE]

Each case runs `fmhactl ...` in a fresh FMHACTL_HOME copy (so a case cannot spoil the next) and is
judged by the rules of issue 10: never a traceback, never a hang (past --timeout), never exit 0 on
bad input, the documented exit code (2 bad input, 3 environment, 1 for the status gate), exactly
one `fmhactl: error:` line on stderr, and the results store unchanged when the answer is exit 2.
The summary is printed by class; the exit status is 1 when any case went wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Case:
    cls: str
    args: list[str]
    expect: tuple[int, ...] = (2,)
    files: dict[str, bytes] = field(default_factory=dict)  # relative to the case folder; {D} in args
    home: str = "fresh"  # fresh | corrupt-db | foreign-db | newer-db | file | under-file | damaged-cache
    warning: bool = False  # exit 0 expected, with exactly one warning line (a repaired cache entry)
    root: dict[str, bytes | None] | None = None  # a copy of the project with these files replaced (None:
    # removed; b"/": made a folder), given as FMHACTL_ROOT
    env: dict[str, str] = field(default_factory=dict)  # extra environment ({D} is the case folder)


def _cases() -> list[Case]:
    c: list[Case] = []
    add = c.append

    # -- numeric options and shapes
    for t in ["0", "-1", "nan", "inf", "-inf", "1e309", "abc", "", "1e300", "0x10", "٣"]:
        for cmd in (["verify", "ref", "--shape", "d=64"], ["run", "ref", "--shape", "d=64"],
                    ["bench", "ref", "--shape", "d=64"], ["dump", "sm100_direct_tmem", "--shape", "d=64", "--at", "S"]):
            add(Case("numeric options", [*cmd, "--timeout", t]))
    for shape in ["b=0,d=64", "t=-3,d=64", "d=sixty", "h=6,hkv=4,d=64", "h=4,hkv=0,d=64", "d=64,d=128", "b=1,batch=2,d=64",
                  "t=2147483648,d=64", "b=65536,h=128,t=4096,s=4096,d=128", "dtype=fp8,d=64", "causal=maybe,d=64",
                  "warps=4,d=64", "d", "=,=", "d=64," + "x=1," * 200, "d=" + "9" * 30, "d=1e3", "d=+", "t==3,d=64",
                  "d=64,\u00a0t=3", "d=６４",
                  # attention features (docs/features.md)
                  "wl=-2,d=64", "causal,wr=3,d=64", "wr=99999999999,d=64", "topk=-1,d=64", "topk=70000,d=64",
                  "sink=maybe,d=64", "kvshared=2,d=64", "wl=,d=64"]:
        for cmd in ("verify", "run", "bench", "profile"):
            add(Case("shapes", [cmd, "ref", "--shape", shape]))
    for opts in (["--iters", "0"], ["--iters", "-5"], ["--warmup", "-1"], ["--iters", "1000001"],
                 ["--baseline", "fastest"], ["--baseline", "cudnn", "--baseline", "cudnn"], ["--seed", "-1"],
                 ["--seed", str(2**70)]):
        add(Case("numeric options", ["bench", "ref", "--shape", "d=64", *opts]))
    for opts in (["--limit", "-1"], ["--limit", "99999999999"], ["--kind", "lunch"], ["--status", "meh"],
                 ["--mode", "turbo"], ["--since", "yesterday"], ["--until", "2026-13-45"],
                 ["--since", "2026-12-01", "--until", "2026-01-01"], ["--grid", "nope"], ["--variant", "a/b"],
                 ["--session", "x" * 500]):
        add(Case("filters", ["results", *opts]))
    for opts in (["--warmup", "-1"], ["--warmup", "100000"], ["--clock-control", "fast"], ["--seed", "-4"],
                 ["--recipe", "../profiles/default"], ["--recipe", "nope"], ["--recipe", ""]):
        add(Case("numeric options", ["profile", "ref", "--shape", "d=64", *opts]))
    for at in ["X", "", "PP", "s1"]:
        add(Case("numeric options", ["dump", "sm100_direct_tmem", "--shape", "d=64", "--at", at]))

    # -- names and odd text
    for name in ["../../etc/passwd", "ref/../ref", "/abs/path", "", " ", "ä" * 3000, "\u202egnp.exe", "\x01\x02",
                 "ref\nref", "\U0001F600", "REF", "ref ", "-", "sm100_direct_tmem;rm -rf /"]:
        add(Case("names", ["build", name]))
        add(Case("names", ["verify", name, "--shape", "d=64"]))
    add(Case("names", ["build", "ref", "ref"]))
    add(Case("names", ["build", "ref", "--all"]))
    add(Case("names", ["build"]))
    add(Case("names", ["build", "ref", "--arch", "sm_75"]))
    for grid in ["nope", "\U0001F600" * 50, "../grids/smoke", "no/such.toml", "x" * 5000]:
        add(Case("names", ["verify", "ref", "--grid", grid]))
    for scen in ["nope", "milestones", "../cpu", "\x01", "y" * 5000]:
        add(Case("names", ["scenario", "run", scen]))
    add(Case("usage", ["verify", "ref", "--bogus"]))
    add(Case("usage", ["verify"]))
    add(Case("usage", ["no-such-command"]))
    add(Case("usage", ["scenario", "dance"]))
    add(Case("usage", ["verify", "ref", "--grid", "smoke", "--shape", "d=64"]))

    # -- fmhactl ptx: files that are not PTX, names that are not sm100 variants, --emulate values
    ptx_files = {"empty.ptx": b"", "binary.ptx": b"\x7fELF\x00\x01", "latin1.ptx": b"\xe9t\xe9\n",
                 "c.ptx": b"int main() { return 0; }\n"}
    for name in ptx_files:
        add(Case("ptx files", ["ptx", "scan", "{D}/" + name], files=ptx_files))
    add(Case("ptx files", ["ptx", "scan", "{D}"]))
    for name in ("nope", "sm90_pingpong", "", " sm100_tma_tmem"):
        add(Case("ptx files", ["ptx", "scan", name]))
    add(Case("ptx files", ["ptx", "link", "{D}/c.ptx", "-o", "{D}"], files=ptx_files))
    for value in ("emu", "", "NATIVE"):
        add(Case("ptx files", ["verify", "sm100_tma_tmem", "--shape", "d=64", "--emulate", value, "--emulation", "fast"]))
    add(Case("ptx files", ["verify", "sm100_tma_tmem", "--shape", "d=64", "--emulate", "native"]))

    # -- scenario files
    scenario_bodies = {
        "unknown variant": '[[step]]\ntype = "verify"\nvariants = ["nope"]\ngrid = "smoke"\n',
        "unknown grid": '[[step]]\ntype = "verify"\nvariants = ["ref"]\ngrid = "nope"\n',
        "unknown recipe": '[[step]]\ntype = "profile"\nvariant = "ref"\nshape = "d=64"\nrecipe = "nope"\n',
        "gpu as string": '[[step]]\ntype = "verify"\nvariants = ["ref"]\ngrid = "smoke"\ngpu = "false"\n',
        "unknown field": '[[step]]\ntype = "build"\nall = true\nspeed = 11\n',
        "unknown type": '[[step]]\ntype = "dance"\n',
        "no steps": 'name = "x"\n',
        "empty": "",
        "bad shape": '[[step]]\ntype = "bench"\nvariant = "ref"\nshapes = ["d=63"]\n',
        "zero divisor": '[[step]]\ntype = "bench"\nvariant = "ref"\nshapes = ["h=4,hkv=0,d=64"]\n',
        "empty shapes": '[[step]]\ntype = "bench"\nvariant = "ref"\nshapes = []\n',
        "negative timeout": '[[step]]\ntype = "verify"\nvariants = ["ref"]\ngrid = "smoke"\ntimeout_s = -1\n',
        "inf ratio": '[[step]]\ntype = "bench"\nvariant = "ref"\nshapes = ["d=64"]\nmin_ratio = inf\n',
        "args not list": '[[step]]\ntype = "fmhactl"\nargs = "list"\n',
        "exit 300": '[[step]]\ntype = "fmhactl"\nargs = ["list"]\nexpect_exit = 300\n',
        "both grid and shapes": '[[step]]\ntype = "verify"\nvariants = ["ref"]\ngrid = "smoke"\nshapes = ["d=64"]\n',
        "syntax": '[[step]\ntype = "build"\n',
        "step not table": 'step = [1, 2]\n',
        "variant path": '[[step]]\ntype = "build"\nvariants = ["../ref"]\n',
        "huge name": '[[step]]\ntype = "build"\nall = true\nname = "' + "n" * 5000 + '"\n',
    }
    for label, body in scenario_bodies.items():
        add(Case("scenario files", ["scenario", "run", "{D}/s.toml"], files={"s.toml": body.encode()}))
    add(Case("scenario files", ["scenario", "run", "{D}/s.toml"],
             files={"s.toml": b'name = "\xff\xfe"\n[[step]]\ntype = "build"\nall = true\n'}))
    add(Case("scenario files", ["scenario", "run", "{D}/s.toml"], files={"s.toml": b"\x00" * 2_000_000}))

    # -- grid files
    grid_bodies = [
        "[[product]]\nseq_q = []\n", "[[product]]\nwarps = 4\n", "[[product]]\nheads = 4\nheads_kv = 0\n",
        "[[product]]\nheads = 4\nheads_kv = 3\n", "[[product]]\nseq_q = 1.5\n", '[[product]]\ncausal = "false"\n',
        f"[[product]]\nseq_q = {list(range(1, 400))}\nseq_k = {list(range(1, 400))}\n",
        "name = 'x'\n", "[defaults]\nzz = 1\n[[product]]\nseq_q = 1\n", "[[product]]\nseq_q = -4\n",
        "[[product]]\nhead_dim = 0\n", "[[product]]\nseq_q = 99999999999\n", "[[product]\n", "product = 3\n",
        "[[product]]\nseq_q = [[1, 2]]\n", '[[product]]\ndtype = ["bf16", "fp4"]\n', "",
    ]
    for body in grid_bodies:
        add(Case("grid files", ["verify", "ref", "--grid", "{D}/g.toml"], files={"g.toml": body.encode()}))
    add(Case("grid files", ["verify", "ref", "--grid", "{D}/g.toml"], files={"g.toml": b"[[product]]\nseq_q = 1 # \xff\n"}))
    add(Case("grid files", ["results", "--grid", "{D}/g.toml"], files={"g.toml": b"[[product]]\nseq_q = []\n"}))

    # -- milestones files
    milestone_bodies = [
        '[[milestone]]\nid = "A"\ntitle = "a"\nvariants = ["ref"]\ndepends = ["B"]\n'
        '[[milestone]]\nid = "B"\ntitle = "b"\nvariants = ["ref"]\ndepends = ["A"]\n',
        '[[milestone]]\nid = "A"\ntitle = "a"\nvariants = ["ref"]\ndepends = ["A"]\n',
        '[[milestone]]\nid = "A"\ntitle = "a"\nvariants = ["ref"]\ndepends = ["Z"]\n',
        '[[milestone]]\nid = "A"\ntitle = "a"\nvariants = ["ref"]\ngrids = ["nope"]\n',
        '[[milestone]]\nid = "A"\ntitle = "a"\nvariants = ["ref"]\nscenario = "nope"\n',
        '[[milestone]]\nid = "A"\ntitle = "a"\nvariants = []\n',
        '[[milestone]]\nid = "a/b"\ntitle = "a"\nvariants = ["ref"]\n',
        '[[milestone]]\nid = "A"\ntitle = "a"\nvariants = ["ref"]\n[[milestone]]\nid = "A"\ntitle = "b"\nvariants = ["ref"]\n',
        '[[milestone]]\nid = "A"\nvariants = ["ref"]\n', '[[milestone]]\nid = "A"\ntitle = "a"\nvariants = "ref"\n',
        '[[milestone]]\nid = "A"\ntitle = "a"\nvariants = ["ref"]\ncolour = 1\n', "", "milestone = 1\n",
    ]
    for body in milestone_bodies:
        add(Case("milestones files", ["status", "--milestones", "{D}/m.toml", "--out", "{D}/out"],
                 files={"m.toml": body.encode()}))
    add(Case("milestones files", ["status", "--milestones", "{D}/missing.toml", "--out", "{D}/out"]))

    # -- status.json and the --check gate (status files written first by a good run)
    for label, body, code in [("missing", None, 1), ("empty", b"", 2), ("garbage", b"{garbage", 2),
                              ("wrong state", b'{"M0": {"state": "SORT OF"}}', 2), ("list", b"[]", 2),
                              ("not utf8", b'{"M0": "\xff"}', 2), ("empty object", b"{}", 2),
                              ("wrong type", b'{"M0": {"state": 3}}', 2)]:
        files = {"status.json": body} if body is not None else {}
        add(Case("status --check", ["status", "--check", "--out", "{D}/out"], expect=(code,), files=files))

    # -- fmhactl merge (docs/features.md): files, then the demo's options
    add(Case("merge", ["merge"]))
    add(Case("merge", ["merge", "{D}/missing.pt", "--out", "{D}/m.pt"]))
    add(Case("merge", ["merge", "{D}/junk.pt", "--out", "{D}/m.pt"], files={"junk.pt": b"junk"}))
    add(Case("merge", ["merge", "{D}/junk.pt", "--out", "{D}"], files={"junk.pt": b"junk"}))
    for opts in (["--segments", "0"], ["--segments", "100000"], ["--seed", "-1"], ["--shape", "d=64,wl=-5"],
                 ["--shape", "b=64,h=64,t=4096,s=4096,d=64"], ["--out", "{D}/m.pt"]):
        add(Case("merge", ["merge", "--demo", *opts]))

    # -- output paths (checked before work)
    for opt_args in (["scenario", "run", "cpu", "--junit"], ["scenario", "run", "cpu", "--json-out"],
                     ["bench", "ref", "--shape", "d=64", "--plot"], ["profile", "ref", "--shape", "d=64", "--png"]):
        for bad in ("{D}", "{D}/blocker/x.out", "{D}/blocker"):
            if bad == "{D}/blocker" and opt_args[0] != "status":
                continue
            add(Case("output paths", [*opt_args, bad], files={"blocker": b"x"}))
    add(Case("output paths", ["status", "--out", "{D}/blocker"], files={"blocker": b"x"}))
    add(Case("output paths", ["status", "--out", "{D}/blocker/sub"], files={"blocker": b"x"}))

    # -- environment: results store, FMHACTL_HOME, build cache
    for home in ("corrupt-db", "foreign-db", "newer-db"):
        for args in (["results"], ["build", "ref", "--arch", "sm_90a"], ["status", "--out", "{D}/out"],
                     ["verify", "ref", "--shape", "d=64"]):
            add(Case("results store", args, expect=(3,), home=home))
    for home in ("file", "under-file"):
        for args in (["results"], ["build", "ref", "--arch", "sm_90a"]):
            add(Case("FMHACTL_HOME", args, expect=(3,), home=home))
    for damage in ("damaged-cache-cubin", "damaged-cache-meta", "damaged-cache-nometa"):
        add(Case("build cache", ["build", "ref", "--arch", "sm_90a"], expect=(0,), home=damage, warning=True))

    # -- layout / tma (fixed by the layoutsvc work; counted here all the same)
    layout_cases = [
        ["layout", "smem", "--rows", "1000000"], ["layout", "smem", "--rows", "-1"], ["layout", "smem", "--cols", "0"],
        ["layout", "smem", "--swizzle", "17B"], ["layout", "smem", "--major", "Q"], ["layout", "smem", "--dtype", "bf17"],
        ["layout", "banks", "--repeat", "100000000"], ["layout", "banks", "--vec", "3"], ["layout", "banks", "--rows", "0"],
        ["layout", "tmem", "--shape", "32x32b", "--num", "999"], ["layout", "tmem", "--shape", "7x7b"],
        ["layout", "tmem", "--warp", "32"], ["layout", "tmem", "--warp", "-1"], ["layout", "tmem", "--shape", "32x32b", "--num", "-1"],
        ["layout", "accum", "--m", "100", "--n", "64"], ["layout", "accum", "--m", "128", "--n", "0"],
        ["layout", "accum", "--m", "128", "--n", "999999"],
        ["layout", "idesc", "decode", "zz"], ["layout", "idesc", "decode", "0x" + "f" * 40],
        ["layout", "desc", "decode", "-1"], ["layout", "desc", "decode", ""],
        ["layout", "map", "--from", "nonsense", "--to", "smem:K:128B"], ["layout", "map", "--warp", "77"],
        ["layout", "smem", "--svg", "{D}"], ["layout", "smem", "--svg", "{D}/blocker/x.svg"],
        ["tma", "check", "--dtype", "bf17"], ["tma", "check", "--rank", "0"], ["tma", "check", "--rank", "99"],
        ["tma", "check", "--dtype", "bf16", "--rank", "2", "--dims", "a,b"],
        ["tma", "check", "--dtype", "bf16", "--rank", "2", "--dims", "-1,5", "--strides", "10", "--box", "1,1",
         "--elem-strides", "1,1"],
        ["tma", "check", "--dtype", "bf16", "--rank", "2", "--dims", "99999999999999999999,5"],
        ["tma", "check", "--preset", "nope"], ["tma", "check", "--svg", "{D}"],
    ]
    for args in layout_cases:
        add(Case("layout/tma", args, expect=(2,), files={"blocker": b"x"}))
    _more_cases(add)
    return c


GOOD_VARIANT = (b'[[variant]]\nname = "ref"\nsource = "ref/fmha_ref.cu"\narchs = ["sm_80", "sm_90a", "sm_100a"]\n'
                b'launcher = "ref"\nkernel = "fmha_ref_{dtype}"\nswitches = { FMHA_BLOCK_M = 16, FMHA_BLOCK_N = 32 }\n'
                b'features = ["causal", "gqa", "lse"]\nmax_head_dim = 512\n')


def _more_cases(add) -> None:
    """The classes of issues 22/23: input checked before the GPU probe, every output path, the
    registry and recipe files of a project copy, layout coordinates, trace inputs, environment."""
    # -- a shape the variant cannot run, or no shape at all: exit 2 before any GPU probe
    for cmd in (["verify", "sm90_persistent"], ["run", "sm90_persistent"], ["bench", "sm90_persistent"],
                ["profile", "sm90_persistent"]):
        shape_opt = ["--shape", "d=256"] if cmd[0] in ("verify", "bench", "run", "profile") else []
        add(Case("input before GPU", [*cmd, *shape_opt]))
    for cmd in (["verify", "ref"], ["run", "ref"], ["bench", "ref"], ["profile", "ref"]):
        for empty in ("", " ", ",,,"):
            add(Case("input before GPU", [*cmd, "--shape", empty]))
    add(Case("input before GPU", ["dump", "sm100_direct_tmem", "--shape", "", "--at", "S"]))
    add(Case("input before GPU", ["trace", "sm100_tma_s2_tmem", "--shape", ""]))
    add(Case("input before GPU", ["trace", "sm100_tma_s2_tmem", "--shape", "d=64", "--timeout", "0"]))
    add(Case("input before GPU", ["verify", "ref", "ref", "--shape", "d=64"]))
    add(Case("input before GPU", ["verify", "ref", "--shape", "d=64", "--shape", "d=64"]))
    add(Case("input before GPU", ["bench", "ref", "--suite", "nope"]))
    add(Case("input before GPU", ["bench", "ref", "--suite", "../sm90"]))
    for gpus in ("99", "-1", "", "a,b", "0,0"):
        add(Case("input before GPU", ["verify", "ref", "--shape", "d=64", "--gpus", gpus], expect=(2, 3)))

    # -- every output path, including ones no one can write (root included)
    for opt_args in (["layout", "smem", "--svg"], ["layout", "tmem", "--svg"], ["tma", "check", "--preset", "seed002",
                     "--svg"], ["bench", "ref", "--shape", "d=64", "--plot"], ["profile", "ref", "--shape", "d=64",
                     "--png"], ["scenario", "run", "cpu", "--junit"], ["scenario", "run", "cpu", "--json-out"],
                     ["dump", "sm100_direct_tmem", "--shape", "d=64", "--at", "S", "--out"],
                     ["trace", "sm100_tma_s2_tmem", "--shape", "b=1,h=1,t=128,s=512,d=128", "--out"],
                     ["trace", "sm100_tma_s2_tmem", "--shape", "b=1,h=1,t=128,s=512,d=128", "--save-raw"],
                     ["tui", "--screen", "tmem", "--screenshot"]):
        suffix = ".svg" if opt_args[-1] in ("--svg", "--screenshot") else ".out"
        for bad in (f"/proc/x{suffix}", f"/proc/self/x{suffix}", f"{{D}}/blocker/x{suffix}"):
            add(Case("output paths", [*opt_args, bad], files={"blocker": b"x"}))
    add(Case("output paths", ["status", "--out", "/proc"]))
    add(Case("output paths", ["status", "--out", "/proc/fmhactl-status"]))

    # -- kernels/family.toml of a project copy (FMHACTL_ROOT)
    registry_bodies = {
        "binary": b"\x00\xff\xfe\x01 binary",
        "nul bytes": b"\x00" * 100,
        "empty": b"",
        "malformed": b"[[variant]\nname = 1",
        "head_dim_multiple 0": GOOD_VARIANT + b"head_dim_multiple = 0\n",
        "block_m 0": GOOD_VARIANT.replace(b"FMHA_BLOCK_M = 16", b"FMHA_BLOCK_M = 0"),
        "block_m field": GOOD_VARIANT + b"block_m = 0\n",
        "negative max": GOOD_VARIANT + b"max_head_dim = -8\n",
        "unknown arch": GOOD_VARIANT.replace(b'"sm_80", ', b'"sm_75", '),
        "twice": GOOD_VARIANT + GOOD_VARIANT,
        "string number": GOOD_VARIANT + b'head_dim_multiple = "8"\n',
        "huge": b"# " + b"x" * 2_000_000 + b"\n",
        "missing": None,
        "folder": b"/",
    }
    for label, body in registry_bodies.items():
        for args in (["list"], ["verify", "ref", "--shape", "d=64"], ["build", "ref", "--arch", "sm_90a"]):
            add(Case("registry file", args, root={"kernels/family.toml": body}))

    # -- kernel projects: fmhactl.toml given by --project (docs/kernel-abi.md)
    head = b'[project]\nname = "p"\n'
    variant = (b'[[variant]]\nname = "k"\nsource = "k.cu"\narchs = ["sm_90a"]\nkernel = "k_{dtype}"\n'
               b'[variant.launch]\ngrid = ["heads", "batch"]\nblock = [128]\n')
    project_bodies = {
        "binary": b"\x00\xff\xfe", "empty": b"", "malformed": b"[project\n", "no name": b"[project]\n",
        "unknown field": head + b"colour = 1\n", "unknown arch": head + variant.replace(b"sm_90a", b"sm_75"),
        "bad formula": head + variant.replace(b'"heads"', b'"heads +"'),
        "unknown name": head + variant.replace(b'"heads"', b'"nheads"'),
        "call": head + variant.replace(b'"heads"', b'"open(1)"'),
        "missing source": head + variant.replace(b'"k.cu"', b'"gone.cu"'),
        "include cycle": head.replace(b'"p"\n', b'"p"\ninclude = ["fmhactl.toml"]\n'),
        "unknown params": head + variant.replace(b"[variant.launch]", b'params = "x"\n[variant.launch]'),
        "huge": b"# " + b"x" * 2_000_000 + b"\n",
    }
    for label, body in project_bodies.items():
        for args in (["--project", "{D}", "list"], ["--project", "{D}", "build", "--all"],
                     ["--project", "{D}", "verify", "k", "--grid", "smoke"]):
            add(Case("project file", args, files={"fmhactl.toml": body, "k.cu": b'extern "C" __global__ void k_bf16() {}\n'}))
    add(Case("project file", ["--project", "{D}/nowhere", "list"]))
    add(Case("project file", ["init", "{D}/k.cu"], files={"k.cu": b"x"}))

    # -- profiling recipes of a project copy
    recipe_bodies = {"binary": b"\xff\xfe\x00", "nul bytes": b"\x00" * 10, "empty": b"", "malformed": b"sections = [",
                     "unknown field": b'sections = ["SpeedOfLight"]\ncolour = 1\n', "nothing": b'description = "x"\n',
                     "bad section": b'sections = ["a b"]\n', "folder": b"/"}
    for label, body in recipe_bodies.items():
        add(Case("recipe files", ["profile", "ref", "--shape", "d=64", "--recipe", "x"], root={"profiles/x.toml": body}))

    # -- layout map coordinates outside the tile or TMEM
    for spec in (["--to", "tmem:col=600"], ["--to", "tmem:col=-1"], ["--to", "tmem:lane=200"], ["--to", "tmem:col=480"],
                 ["--from", "tmem:32x32b:num=8:col=600"], ["--from", "tmem:32x32b:num=8:lane=200"],
                 ["--from", "tmem:32x32b:num=8:col=-4"], ["--element", "200,3"], ["--element", "5,-1"],
                 ["--element", "5,600"], ["--threads", "200"], ["--warp", "-1"]):
        add(Case("layout coordinates", ["layout", "map", *spec]))

    # -- trace inputs (no GPU needed for --raw)
    shape = "b=1,h=1,t=128,s=512,d=128"
    for label, data in (("empty", b""), ("odd size", b"\x00" * 33), ("broken gzip", b"\x1f\x8b\x08\x00junk")):
        add(Case("trace inputs", ["trace", "sm100_tma_s2_tmem", "--shape", shape, "--raw", "{D}/e.raw"],
                 files={"e.raw": data}))
    add(Case("trace inputs", ["trace", "sm100_tma_s2_tmem", "--shape", shape, "--raw", "{D}"]))
    add(Case("trace inputs", ["trace", "sm100_tma_s2_tmem", "--shape", shape, "--raw", "{D}/missing.raw"]))
    add(Case("trace inputs", ["trace", "ref", "--shape", shape, "--raw", "/dev/null"]))
    add(Case("trace inputs", ["trace", "nope", "--shape", shape]))
    add(Case("trace inputs", ["trace", "sm100_tma_s2_tmem", "--shape", "b=64,h=64,t=4096,s=512,d=128"]))

    # -- the environment: FMHACTL_ROOT and FMHACTL_NCU pointing nowhere, FMHACTL_HOME at a file
    add(Case("environment", ["list"], expect=(2, 3), env={"FMHACTL_ROOT": "{D}/nowhere"}))
    add(Case("environment", ["list"], expect=(2, 3), env={"FMHACTL_ROOT": "{D}/blocker"}, files={"blocker": b"x"}))
    add(Case("environment", ["profile", "ref", "--shape", "d=64"], expect=(3,), env={"FMHACTL_NCU": "{D}/no-ncu"}))
    add(Case("environment", ["results"], expect=(3,), env={"FMHACTL_HOME": "/proc/self"}))
    add(Case("environment", ["build", "ref", "--arch", "sm_90a"], expect=(3,), env={"FMHACTL_HOME": "/proc/fmh"}))

    # -- TUI options (validated like every other input)
    add(Case("tui options", ["tui", "--dump", "/nonexistent.json", "--screenshot", "{D}/x.svg"]))
    add(Case("tui options", ["tui", "--press", "nosuchkey", "--screenshot", "{D}/x.svg"]))
    add(Case("tui options", ["tui", "--screen", "nope", "--screenshot", "{D}/x.svg"]))
    add(Case("tui options", ["tui", "--size", "0x0", "--screenshot", "{D}/x.svg"]))


def _prepare_home(case: Case, folder: Path, base_home: Path) -> Path | str:
    home = folder / "home"
    if case.home == "file":
        (folder / "homefile").write_text("x")
        return str(folder / "homefile")
    if case.home == "under-file":
        (folder / "homefile").write_text("x")
        return str(folder / "homefile" / "home")
    shutil.copytree(base_home, home, dirs_exist_ok=True, ignore=shutil.ignore_patterns("profiles"))
    db = home / "results.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    if case.home == "corrupt-db":
        db.write_bytes(b"not a database at all " * 200)
    elif case.home == "foreign-db":
        db.unlink(missing_ok=True)
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE photos (id INTEGER)")
    elif case.home == "newer-db":
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    elif case.home.startswith("damaged-cache"):
        cubin = sorted((home / "cache" / "ref" / "sm_90a").glob("*.cubin"))[-1]
        meta = cubin.with_suffix(".json")
        if case.home.endswith("cubin"):
            data = cubin.read_bytes()
            cubin.write_bytes(data[: len(data) // 3])
        elif case.home.endswith("meta"):
            meta.write_text("{oops")
        else:
            meta.unlink()
    return str(home)


def _prepare_root(replaced: dict[str, bytes | None], folder: Path) -> Path:
    """A copy of the project's data folders with some files replaced, removed or made folders."""
    root = folder / "root"
    for sub in ("kernels", "scenarios", "profiles", "tests/kernels"):
        shutil.copytree(ROOT / sub, root / sub)
    for rel, data in replaced.items():
        target = root / rel
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)
        if data == b"/":
            target.mkdir(parents=True)
        elif data is not None:
            target.write_bytes(data)
    return root


def _rows(home: str) -> list | None:
    db = Path(home) / "results.sqlite"
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return conn.execute("SELECT * FROM results ORDER BY id").fetchall()
    except sqlite3.Error:
        return None


def _run(case: Case, fmhactl: list[str], base_home: Path, timeout: float, env_extra: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="fmh-sweep-") as tmp:
        folder = Path(tmp)
        for name, data in case.files.items():
            if name == "status.json":
                continue
            (folder / name).write_bytes(data)
        home = _prepare_home(case, folder, base_home)
        env = dict(os.environ, FMHACTL_HOME=home, **env_extra)
        if case.root is not None:
            env["FMHACTL_ROOT"] = str(_prepare_root(case.root, folder))
        env.update({k: v.replace("{D}", str(folder)) for k, v in case.env.items()})
        if case.cls == "status --check":
            subprocess.run([*fmhactl, "status", "--out", str(folder / "out")], env=env, capture_output=True,
                           timeout=timeout)
            state = folder / "out" / "milestones" / "status.json"
            if "status.json" in case.files:
                state.write_bytes(case.files["status.json"])
            else:
                state.unlink(missing_ok=True)
        args = [a.replace("{D}", str(folder)) for a in case.args]
        before = _rows(home) if isinstance(home, str) and case.home == "fresh" else None
        start = time.monotonic()
        try:
            proc = subprocess.run([*fmhactl, *args], env=env, capture_output=True, timeout=timeout)
            code, out, err = proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            return {"class": case.cls, "args": case.args, "problem": "hang", "seconds": timeout}
        seconds = time.monotonic() - start
        problems = []
        if "Traceback" in out + err:
            problems.append("traceback")
        if code == 0 and not case.warning:
            problems.append("exit 0 on bad input")
        elif code not in case.expect:
            problems.append(f"exit {code}, expected {'/'.join(map(str, case.expect))}")
        errors = [ln for ln in err.splitlines() if ln.startswith("fmhactl: error:")]
        if code != 0 and len([ln for ln in err.splitlines() if ln.strip()]) != 1:
            problems.append(f"{len(err.splitlines())} stderr lines, expected 1")
        if case.warning and len([ln for ln in err.splitlines() if ln.startswith("fmhactl: warning:")]) != 1:
            problems.append("no one-line warning for the repaired cache entry")
        if code == 2 and before is not None and _rows(home) != before:
            problems.append("store changed on exit 2")
        return {"class": case.cls, "args": case.args, "exit": code, "seconds": round(seconds, 2),
                "problem": "; ".join(problems), "error": (errors or [""])[0][:300]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmhactl", default=f"{shlex.quote(sys.executable)} -m fmhactl",
                        help="how to run the CLI (default: this Python's -m fmhactl)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a case counts as a hang")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--gpu", action="store_true", help="do not set FMHACTL_ASSUME_NO_GPU")
    parser.add_argument("--json", type=Path, help="write every case's verdict here")
    parser.add_argument("--limit", type=int, default=0, help="run only the first N cases (0: all)")
    parser.add_argument("--only", action="append", help="run only this class (repeatable)")
    opts = parser.parse_args()
    fmhactl = shlex.split(opts.fmhactl)
    env_extra = {} if opts.gpu else {"FMHACTL_ASSUME_NO_GPU": "1"}
    cases = _cases()
    if opts.only:
        cases = [c for c in cases if c.cls in opts.only]
    if opts.limit:
        cases = cases[: opts.limit]
    with tempfile.TemporaryDirectory(prefix="fmh-sweep-base-") as base:
        base_home = Path(base) / "home"
        env = dict(os.environ, FMHACTL_HOME=str(base_home), **env_extra)
        setup = subprocess.run([*fmhactl, "build", "ref", "--arch", "sm_90a"], env=env, capture_output=True, text=True)
        if setup.returncode != 0:
            print(f"setup failed: {setup.stderr.strip()}", file=sys.stderr)
            return 3
        started = time.monotonic()
        with ThreadPoolExecutor(max(1, opts.jobs)) as pool:
            verdicts = list(pool.map(lambda c: _run(c, fmhactl, base_home, opts.timeout, env_extra), cases))
    by_class: dict[str, Counter] = defaultdict(Counter)
    for v in verdicts:
        counts = by_class[v["class"]]
        counts["cases"] += 1
        problem = v["problem"]
        counts["tracebacks"] += "traceback" in problem
        counts["hangs"] += problem == "hang"
        counts["exit 0 on bad input"] += "exit 0 on bad input" in problem
        counts["other problems"] += bool(problem) and not any(
            p in problem for p in ("traceback", "hang", "exit 0 on bad input"))
    cols = ("cases", "tracebacks", "hangs", "exit 0 on bad input", "other problems")
    print(f"{'class':<18}" + "".join(f"{c:>21}" for c in cols))
    total: Counter = Counter()
    for cls in sorted(by_class):
        total.update(by_class[cls])
        print(f"{cls:<18}" + "".join(f"{by_class[cls][c]:>21}" for c in cols))
    print(f"{'TOTAL':<18}" + "".join(f"{total[c]:>21}" for c in cols))
    print(f"{len(cases)} cases in {time.monotonic() - started:.0f} s")
    for v in verdicts:
        if v["problem"]:
            print(f"  {v['class']}: {' '.join(v['args'])[:120]} -> {v['problem']} {v.get('error', '')[:160]}")
    if opts.json:
        opts.json.write_text(json.dumps(verdicts, indent=1) + "\n")
    return 1 if any(v["problem"] for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
