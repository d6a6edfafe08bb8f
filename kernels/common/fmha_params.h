// GENERATED from fmhactl/plans/params.py by `python -m fmhactl.plans --write`; do not edit.
// The launch parameter block shared by every FMHA kernel and the host runtime (ctypes twin:
// fmhactl/runtime/params.py, built from the same declaration).
#pragma once

#ifdef __CUDACC_RTC__
typedef long long fmha_i64;
#else
#include <stdint.h>
typedef int64_t fmha_i64;
#endif

// Tensors are (batch, seq, heads, head_dim) in any stride order with head_dim contiguous.
// Strides are in elements. A K/V head stride of 0 expresses MQA; GQA maps query head h to
// kv head h / (heads / heads_kv).
struct FmhaParams {
    const void* q;
    const void* k;
    const void* v;
    void* o;
    float* lse;                          // (batch, heads, seq_q), contiguous; may be null
    fmha_i64 q_batch_stride, q_seq_stride, q_head_stride;
    fmha_i64 k_batch_stride, k_seq_stride, k_head_stride;
    fmha_i64 v_batch_stride, v_seq_stride, v_head_stride;
    fmha_i64 o_batch_stride, o_seq_stride, o_head_stride;
    int batch;
    int heads;
    int heads_kv;
    int seq_q;
    int seq_k;
    int head_dim;
    float softmax_scale;                 // applied to q.k before the softmax
    float scale_log2;                    // softmax_scale * log2(e): kernels work in base 2
    int causal;                          // bottom-right aligned: query i sees keys j <= i + seq_k - seq_q
    int flags;                           // reserved, must be 0
    void* checkpoints;                   // debug builds (FMHA_CHECKPOINTS=1) copy intermediates here; else null
    // Persistent kernels: {next tile to claim, CTAs done claiming}, zero before a launch; the last
    // CTA to finish claiming zeroes it again, so one buffer serves every launch on one stream.
    // May be null (the kernel then walks a static stride).
    unsigned* tile_counter;
    // Sliding window, bottom-right aligned like causal: row i sees keys j with
    // i + off - window_left <= j <= i + off + window_right, off = seq_k - seq_q; -1 = unbounded.
    // The host folds causal into window_right = 0.
    int window_left;
    int window_right;
    const float* sinks;                  // (heads) fp32 logits joining the softmax denominator and LSE only; null: none
    const int* topk_idx;                 // (batch, seq_q, heads_kv, topk) int32 key indices, -1 padded; null: dense
    int topk;                            // entries per row of topk_idx; 0: dense
    int kv_shared;                       // 1: K and V are one buffer (v == k); kernels may read V from K's tile
    // (batch, 2) int32 [start, end) of the keys each batch row may see (left/right padding), on top
    // of causal and the window; positions stay those of the whole sequence; null: all keys
    const int* key_ranges;
};
