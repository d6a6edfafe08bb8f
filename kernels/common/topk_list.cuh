// The top-k list filter shared by sm90_mqa_gather and sm90_mqa_decode: keeps the entries of
// idx[begin, end) whose key lies in [key_lo, key_hi] (which drops -1, out-of-range keys and those
// causal or the window exclude) and writes them to `list` in list order. A duplicate stays twice.
//
// In list order, not in the order warps win an atomic: the kept keys' order is the order of the
// kernel's sums, so the same inputs give the same bits on every run (the op's cached launch path
// and a CUDA-graph replay are compared bit for bit with the general path).
#pragma once

namespace topk_list {

// Called by every thread of the CTA (barrier 0). `warp_counts`: one int per warp of SMEM (the
// plans reserve 32 after the list). Returns the keys kept; list[0, kept) is readable by every
// thread once it returns (the last round ends with a barrier; no round writes nothing).
__device__ __forceinline__ int compact(const int* idx, int begin, int end, int key_lo, int key_hi, int* list,
                                       int* warp_counts) {
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, warps = blockDim.x / 32;
    int kept = 0;
    for (int e0 = begin; e0 < end; e0 += blockDim.x) {
        const int e = e0 + tid;
        const int key = e < end ? __ldg(idx + e) : -1;
        const bool keep = e < end && key >= key_lo && key <= key_hi;
        const unsigned ballot = __ballot_sync(0xffffffffu, keep);
        if (lane == 0) warp_counts[warp] = __popc(ballot);
        __syncthreads();
        // lane w of every warp holds warp w's count; an inclusive scan over the lanes gives each
        // warp the keys kept before it
        const int mine = lane < warps ? warp_counts[lane] : 0;
        int scan = mine;
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const int y = __shfl_up_sync(0xffffffffu, scan, d);
            if (lane >= d) scan += y;
        }
        const int before = kept + __shfl_sync(0xffffffffu, scan - mine, warp);
        const int total = kept + __shfl_sync(0xffffffffu, scan, 31);
        if (keep) list[before + __popc(ballot & ((1u << lane) - 1u))] = key;
        __syncthreads();  // every warp read the counts before the next round rewrites them
        kept = total;
    }
    return kept;
}

}  // namespace topk_list
