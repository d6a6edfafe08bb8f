"""Scenarios: named sequences of steps (build, verify, bench, profile, fmhactl sub-commands)."""
