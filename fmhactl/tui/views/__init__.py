"""The TUI's views of the layout, TMA and dump facts, one module per group of screens (tmem, smem,
descriptors, mapping): the TUI's own rendering of what fmhactl.services returns.

Each function takes plain values (what a form holds), calls fmhactl.services (the same service the
CLI calls, with its words from fmhactl.present), raises a one-line BadInput for bad input and
returns a view record (text and GridModels) that the widgets draw as it is.
"""
