"""The TUI's views of the layout, TMA and dump facts, one module per group of screens (tmem, smem,
descriptors, mapping): the TUI's own rendering of what fmhactl.services returns."""
