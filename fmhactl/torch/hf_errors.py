"""The error a transformers attention call gets when fmhactl cannot serve it (hf.py and hf_traced.py
both raise it; it lives here so neither imports the other for it)."""

from __future__ import annotations


class UnsupportedAttentionCall(ValueError):
    pass
