"""fmhactl: build, run, verify, benchmark and inspect FMHA kernels for SM100 and SM90."""

__version__ = "0.1.0"
