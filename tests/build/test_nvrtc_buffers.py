"""NVRTC writes its outputs (log, PTX, CUBIN) into the buffer it is handed. The compiler used to
hand it `b" " * size`: for an empty log (size 1, its NUL alone) that is CPython's one shared
single-byte object b" ", and the write turned it into b"\\0" in the whole process. Every later
one-byte read of a space then gave 0: torch.load's weights-only unpickler read a pickled stride
32 (BININT1 0x20) as 0, the intermittent CI failure of test_cli_merges_segment_files in sessions
24-28 (a pytest worker that had compiled something before it). Each compile path runs here in a
fresh process, which then checks the shared object and a weights-only unpickle."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_COMPILE_THEN_CHECK = r"""
import io, json, pickle, sys
from pathlib import Path
source = Path(sys.argv[1])
source.write_text('extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n')
path = sys.argv[2]
if path == "build":
    from fmhactl.build.compiler import compile_named
    cubin, log, _ = compile_named(source, ["-arch=sm_90a"], [])
    made = cubin[:4] == b"\x7fELF"
elif path == "ptx":
    from fmhactl.ptx.build import nvrtc_ptx
    made = ".entry k" in nvrtc_ptx(source, ["-arch=sm_100a"])
elif path == "routine":  # the one routine under both, each output kind: empty logs, read back as ""
    from fmhactl.build.compiler import nvrtc_compile
    made = [nvrtc_compile(source.read_bytes(), "k.cu", ["-arch=sm_90a"], want=w).log for w in ("ptx", "cubin")] == ["", ""]
import torch._weights_only_unpickler as weights_only
print(json.dumps({
    "made": made,
    "space": io.BytesIO(b"a b").read(3)[1:2].hex(),
    "stride": weights_only.Unpickler(io.BytesIO(pickle.dumps((256, 32, 16, 1), protocol=2)), encoding="utf-8").load(),
}))
"""


@pytest.mark.parametrize("path", ["build", "ptx", "routine"])
def test_a_compile_leaves_the_shared_space_byte_and_torch_load_intact(path, tmp_path):
    pytest.importorskip("cuda.bindings.nvrtc")
    pytest.importorskip("torch")
    done = subprocess.run([sys.executable, "-c", _COMPILE_THEN_CHECK, str(tmp_path / "k.cu"), path],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found == {"made": True, "space": "20", "stride": [256, 32, 16, 1]}
