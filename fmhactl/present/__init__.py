"""The shells' rendering: how the layout and TMA facts look, shared by the CLI and the TUI so that
both show the same computed result in the same words.

    render      cells, colours, SVG grids and bit-field diagrams, TextTable, the JSON document writer
    views       one Grid builder per layout picture (TMEM map, SMEM tile, banks, descriptors, TMA box)
    report      what each `fmhactl layout ...` command shows: headline lines, tables, grids, JSON
    report_tma  what `fmhactl tma check` shows

It sits above the services (cli/ and tui/ may import it: tests/test_layering.py, SHELL_ALLOWED) and
arranges what fmhactl.services.layout and fmhactl.services.tma return; it computes no layout fact
(the model, fmhactl/layout/, keeps those) and imports no typer, rich or textual: the terminal
rendering is fmhactl/cli/common.py, the TUI's is its widgets.
"""
