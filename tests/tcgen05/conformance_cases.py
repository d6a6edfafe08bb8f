"""The fast emulator's conformance errors and the wrong micro-kernel for each (tests/tcgen05/kernels):
shared by the GPU test that runs them (test_tc5_gpu.py) and the CPU test that every error has one
(test_tc5_emulation_host.py), so that the CPU check runs in CI."""

# Each error name -> a warp that must be among the reporters (the wrong call's warp).
CONFORMANCE_CASES = {
    "lane-quarter": 1,
    "alloc-columns": 0,
    "alloc-increasing": 0,
    "alloc-after-relinquish": 0,
    "alloc-exhausted": 0,
    "dealloc-unknown": 0,
    "unallocated-columns": 0,
    "alloc-live-at-exit": 0,
    "unwritten-read": 0,
    "tmem-out-of-range": 0,
    "desc-fixed-bits": 0,
    "desc-base-offset": 0,
    "desc-misaligned": 0,
    "mma-shape": 0,
    "idesc-invalid": 0,
    "mma-tmem-address": 0,
}
