"""Where does the launch put dynamic shared memory declared `extern __shared__ __align__(N)`, next
to a few bytes of static shared memory? Prints the shared-window addresses per alignment N for the
native sm_90a build and for the PTX path's build of the same source (sm_100a PTX from nvcc,
rewritten and linked by `fmhactl ptx link`), so a kernel's alignment assumption can be checked
against what each does (the sm100_raw_ptx scaffold's first failure, session 7).
    python3 scripts/device/dyn_smem_probe.py"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from fmhactl.build.compiler import compile_named
from fmhactl.runtime.driver import LoadedModule, launch, synchronize

SOURCE = r"""
#define PROBE(N)                                                                                   \
extern "C" __global__ void probe_##N(unsigned* out) {                                              \
    extern __shared__ __align__(N) unsigned char dyn_##N[];  /* one name per alignment: a TU's   */ \
    __shared__ unsigned long long bar;                                                             \
    __shared__ unsigned t;                                                                         \
    if (threadIdx.x == 0) {                                                                        \
        bar = 1; t = 2; dyn_##N[0] = (unsigned char)(bar + t);  /* externs of one name are one */ \
        out[0] = (unsigned)__cvta_generic_to_shared(dyn_##N);   /* symbol, one alignment     */ \
        out[1] = (unsigned)__cvta_generic_to_shared(&bar);                                         \
        out[2] = (unsigned)__cvta_generic_to_shared(&t);                                           \
        out[3] = dyn_##N[0];                                                                       \
    }                                                                                              \
}
PROBE(16) PROBE(128) PROBE(1024)
"""


def run_probes(label: str, cubin: Path) -> None:
    module = LoadedModule(cubin)
    stream = torch.cuda.current_stream().cuda_stream
    for align in (16, 128, 1024):
        for dynamic in (1024, 16384, 57344):  # 57344 > 48 KiB: launch() sets the opt-in attribute
            out = torch.zeros(4, dtype=torch.int32, device="cuda")
            launch(module.function(f"probe_{align}"), (1, 1, 1), (32, 1, 1), dynamic, stream,
                   ctypes.c_void_p(out.data_ptr()))
            synchronize(stream)
            dyn, bar, t, _ = (int(x) & 0xFFFFFFFF for x in out.tolist())
            print(f"{label:9} align {align:5d} dynamic {dynamic:6d} B: dyn at 0x{dyn:05x} (mod 1024 = {dyn % 1024:4d}), "
                  f"static bar 0x{bar:05x} t 0x{t:05x}", flush=True)


def main() -> None:
    torch.zeros(1, device="cuda")  # makes torch's primary context current (LoadedModule loads into it)
    major, minor = torch.cuda.get_device_capability()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "probe.cu"
        src.write_text(SOURCE)
        cubin, _, _ = compile_named(src, [f"--gpu-architecture=sm_{major}{minor}a"], [])
        native = Path(tmp) / "probe.cubin"
        native.write_bytes(cubin)
        run_probes(f"sm_{major}{minor}a", native)
        if shutil.which("nvcc") is None:
            print("PTX path: skipped (no nvcc here to write the sm_100a PTX)")
            return
        ptx, linked = Path(tmp) / "probe.ptx", Path(tmp) / "probe_ptx.cubin"
        subprocess.run(["nvcc", "-arch=sm_100a", "-ptx", "-o", str(ptx), str(src)], check=True)
        subprocess.run([sys.executable, "-m", "fmhactl", "ptx", "link", str(ptx), "-o", str(linked)], check=True)
        run_probes("PTX path", linked)


if __name__ == "__main__":
    main()
