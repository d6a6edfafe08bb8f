"""Tile, TMEM and SMEM plans of the kernel families, declared once (pure Python)."""
