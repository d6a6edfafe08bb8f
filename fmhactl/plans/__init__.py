"""Each kernel family's declaration, once, in pure Python: tile/TMEM/SMEM plans (sm100, sm90, ref),
hardware limits (hardware), the structs and codes that cross into C++ (params, tcgen05_abi) and the
op tables (wgmma_ops, tcgen05_ldst). `python -m fmhactl.plans --write/--check` renders every C++
copy (generate.py). Nothing here imports the registry or the runtime."""
