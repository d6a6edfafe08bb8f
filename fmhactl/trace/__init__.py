"""`fmhactl trace`: the pipeline timeline of an SM100 kernel from the strict emulator, with modeled B200 timing (modeled, not measured)."""
