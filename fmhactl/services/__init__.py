"""The service layer: the single entry for every capability (CLI and TUI call these)."""
