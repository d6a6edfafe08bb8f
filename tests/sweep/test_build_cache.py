"""The NVRTC cache under concurrency: one compile per key across processes, no torn entry ever read."""

from __future__ import annotations

import json
import subprocess
import sys

from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.registry import get_variant

BUILD_ONE = ("import json; from fmhactl.build.compiler import BuildTarget; from fmhactl.build.entry import build; from fmhactl.registry import get_variant;"
             "r = build(get_variant('ref'), BuildTarget('sm_80')); print(json.dumps([r.cache_hit, str(r.cubin_path)]))")


def test_two_processes_building_one_key_compile_it_once(tmp_path, monkeypatch):
    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path))  # a cold cache of its own
    procs = [subprocess.Popen([sys.executable, "-c", BUILD_ONE], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [json.loads(p.communicate(timeout=300)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(hit for hit, _ in outs) == [False, True]  # the second waited for the first, then hit
    assert outs[0][1] == outs[1][1]


def test_a_cubin_that_does_not_match_its_meta_is_a_miss_not_a_read(tmp_path, monkeypatch):
    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path))
    variant, target = get_variant("ref"), BuildTarget("sm_80")
    first = build(variant, target)
    good = first.cubin_path.read_bytes()
    first.cubin_path.write_bytes(good[: len(good) // 2])  # as a torn or foreign write would leave it
    again = build(variant, target)
    assert not again.cache_hit and again.cubin_path.read_bytes() == good
    assert build(variant, target).cache_hit
