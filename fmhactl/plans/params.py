"""The launch parameter block every FMHA kernel takes, declared once.

`python -m fmhactl.plans --write` renders kernels/common/fmha_params.h from FMHA_PARAMS and
`runtime/params.py` builds the ctypes twin from it, so a field added here reaches both sides.
Add a field: one `CField` below (then `python -m fmhactl.plans --write`).
"""

from __future__ import annotations

from fmhactl.plans.cstruct import F32, I32, I64, CField, CStruct, pointer, render_c

HEADER_PATH = "kernels/common/fmha_params.h"


def _strides(tensor: str, group: int) -> tuple[CField, ...]:
    return tuple(CField(f"{tensor}_{axis}_stride", I64, group=group) for axis in ("batch", "seq", "head"))


FMHA_PARAMS = CStruct("FmhaParams", (
    CField("q", pointer("const void*")),
    CField("k", pointer("const void*")),
    CField("v", pointer("const void*")),
    CField("o", pointer("void*")),
    CField("lse", pointer("float*"), "(batch, heads, seq_q), contiguous; may be null"),
    *_strides("q", 1), *_strides("k", 2), *_strides("v", 3), *_strides("o", 4),
    CField("batch", I32),
    CField("heads", I32),
    CField("heads_kv", I32),
    CField("seq_q", I32),
    CField("seq_k", I32),
    CField("head_dim", I32),
    CField("softmax_scale", F32, "applied to q.k before the softmax"),
    CField("scale_log2", F32, "softmax_scale * log2(e): kernels work in base 2"),
    CField("causal", I32, "bottom-right aligned: query i sees keys j <= i + seq_k - seq_q"),
    CField("flags", I32, "reserved, must be 0"),
    CField("checkpoints", pointer("void*"), "debug builds (FMHA_CHECKPOINTS=1) copy intermediates here; else null"),
    CField("tile_counter", pointer("unsigned*"), note=(
        "Persistent kernels: {next tile to claim, CTAs done claiming}, zero before a launch; the last\n"
        "CTA to finish claiming zeroes it again, so one buffer serves every launch on one stream.\n"
        "May be null (the kernel then walks a static stride).")),
    # Features (docs/features.md); the defaults (-1, -1, null, null, 0, 0, null) change nothing.
    CField("window_left", I32, note=(
        "Sliding window, bottom-right aligned like causal: row i sees keys j with\n"
        "i + off - window_left <= j <= i + off + window_right, off = seq_k - seq_q; -1 = unbounded.\n"
        "The host folds causal into window_right = 0.")),
    CField("window_right", I32),
    CField("sinks", pointer("const float*"), "(heads) fp32 logits joining the softmax denominator and LSE only; null: none"),
    CField("topk_idx", pointer("const int*"), "(batch, seq_q, heads_kv, topk) int32 key indices, -1 padded; null: dense"),
    CField("topk", I32, "entries per row of topk_idx; 0: dense"),
    CField("kv_shared", I32, "1: K and V are one buffer (v == k); kernels may read V from K's tile"),
    CField("key_ranges", pointer("const int*"), note=(
        "(batch, 2) int32 [start, end) of the keys each batch row may see (left/right padding), on top\n"
        "of causal and the window; positions stay those of the whole sequence; null: all keys")),
), comment=("Tensors are (batch, seq, heads, head_dim) in any stride order with head_dim contiguous.\n"
            "Strides are in elements. A K/V head stride of 0 expresses MQA; GQA maps query head h to\n"
            "kv head h / (heads / heads_kv)."))


def render_params_header() -> list[str]:
    """The body of kernels/common/fmha_params.h (after the GENERATED banner)."""
    return [
        "// The launch parameter block shared by every FMHA kernel and the host runtime (ctypes twin:",
        "// fmhactl/runtime/params.py, built from the same declaration).",
        "#pragma once",
        "",
        "#ifdef __CUDACC_RTC__",
        "typedef long long fmha_i64;",
        "#else",
        "#include <stdint.h>",
        "typedef int64_t fmha_i64;",
        "#endif",
        "",
        *render_c(FMHA_PARAMS),
    ]
