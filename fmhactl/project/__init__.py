"""Kernel projects: a folder with an fmhactl.toml declaring variants, sources, archs, head dims,
features, launch geometry and (for kernels with their own params struct) a field mapping.

Pure models (layer 1): the schema and its loader (`files`), the formula language (`formula`),
launch geometry and the params ABI adapter (`abi`), and `fmhactl init`'s scaffold (`scaffold`).
The registry turns a loaded project into Variants; docs/kernel-abi.md is the user's guide.
"""
