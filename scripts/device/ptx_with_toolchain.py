"""Run a Python script with another NVRTC and nvJitLink preloaded (the device's, to fill a build cache
on a CPU that a device run then hits: the cache key holds the NVRTC and nvJitLink versions).

    pip download --no-deps --only-binary=:all: -d W "nvidia-cuda-nvrtc==13.0.*" "nvidia-nvjitlink==13.0.*"
    pip install --no-deps --no-index --target SITE W/*.whl
    FMHACTL_HOME=H FMHACTL_EMU_PTXAS_O=0 python scripts/device/ptx_with_toolchain.py SITE/nvidia/cu13/lib \\
        scripts/device/ptx_build_all.py [--strict] [--tc5] VARIANT...
    tar -C H -cJf <tree>/ptxgrid-cache.tar.xz --exclude='*.lock' cache   # scripts/device/ptx_grid.sh unpacks it
"""

import ctypes
import glob
import runpy
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
lib = sys.argv[1]
for name in ("libnvrtc-builtins.so.13.*", "libnvrtc.so.13", "libnvJitLink.so.13"):
    found = sorted(glob.glob(f"{lib}/{name}"))
    if not found:
        sys.exit(f"{lib}: no {name}")
    ctypes.CDLL(found[0], mode=ctypes.RTLD_GLOBAL)  # cuda.pathfinder takes an already loaded library
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
