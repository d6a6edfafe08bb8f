"""Milestones computed from the results store, and the STATUS.md / per-milestone writers."""
