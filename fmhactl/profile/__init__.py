"""Profiling: run one launch under Nsight Compute, restricted to its NVTX range, and read the report."""
