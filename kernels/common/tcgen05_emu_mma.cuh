// Emulated tcgen05.mma (SS and TS, kind::f16 / kind::tf32, cta_group::1) and tcgen05.commit.
// Part of the emulated backend (tcgen05_emu.cuh). Operand placement follows spec §3.4-§5 exactly:
// descriptors decoded field by field, canonical-layout address formulas (§5.2), swizzle XOR on
// absolute shared-memory addresses (§5.3). Arithmetic is fp32 FMA in k order.
#pragma once

namespace tc5 {
namespace emu {

struct SmemDesc {
    u32 start, lbo, sbo;  // bytes
    u32 layout;           // 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B
};

struct IDesc {
    u32 m, n;
    u32 d_fmt, a_fmt, b_fmt;
    bool neg_a, neg_b, a_mn_major, b_mn_major;
};

__host__ __device__ __forceinline__ SmemDesc decode_desc(u64 d) {
    SmemDesc s;
    s.start = static_cast<u32>(field_get(d, TC5_FIELD(FMH_SMEM_DESC_START))) << FMH_SMEM_DESC_START_UNIT_SHIFT;
    s.lbo = static_cast<u32>(field_get(d, TC5_FIELD(FMH_SMEM_DESC_LBO))) << FMH_SMEM_DESC_LBO_UNIT_SHIFT;
    s.sbo = static_cast<u32>(field_get(d, TC5_FIELD(FMH_SMEM_DESC_SBO))) << FMH_SMEM_DESC_SBO_UNIT_SHIFT;
    s.layout = static_cast<u32>(field_get(d, TC5_FIELD(FMH_SMEM_DESC_LAYOUT)));
    return s;
}

__host__ __device__ __forceinline__ IDesc decode_idesc(u32 x) {
    IDesc i;
    i.d_fmt = field_get(x, TC5_FIELD(FMH_IDESC_D_FORMAT));
    i.a_fmt = field_get(x, TC5_FIELD(FMH_IDESC_A_FORMAT));
    i.b_fmt = field_get(x, TC5_FIELD(FMH_IDESC_B_FORMAT));
    i.neg_a = field_get(x, TC5_FIELD(FMH_IDESC_NEGATE_A));
    i.neg_b = field_get(x, TC5_FIELD(FMH_IDESC_NEGATE_B));
    i.a_mn_major = field_get(x, TC5_FIELD(FMH_IDESC_A_MAJOR));
    i.b_mn_major = field_get(x, TC5_FIELD(FMH_IDESC_B_MAJOR));
    i.n = field_get(x, TC5_FIELD(FMH_IDESC_N)) << FMH_IDESC_N_UNIT_SHIFT;
    i.m = field_get(x, TC5_FIELD(FMH_IDESC_M)) << FMH_IDESC_M_UNIT_SHIFT;
    return i;
}

__host__ __device__ __forceinline__ u32 swizzle_width(u32 layout) {
    return layout == 6 ? 32u : (layout == 4 ? 64u : 128u);
}

// Spec §4.1 / §4.3 / §5.1: field-level legality of a shared-memory descriptor for one operand.
__host__ __device__ __forceinline__ u32 check_desc(u64 d, bool mn_major, bool tf32) {
    const u64 reserved = field_mask<u64>(TC5_FIELD(FMH_SMEM_DESC_RESERVED_14_15)) |
                         field_mask<u64>(TC5_FIELD(FMH_SMEM_DESC_RESERVED_30_31)) |
                         field_mask<u64>(TC5_FIELD(FMH_SMEM_DESC_RESERVED_53_60));
    const u32 layout = static_cast<u32>(field_get(d, TC5_FIELD(FMH_SMEM_DESC_LAYOUT)));
    if (field_get(d, TC5_FIELD(FMH_SMEM_DESC_FIXED_46_48)) != FMH_SMEM_DESC_FIXED_46_48_FIXED ||
        (d & reserved) != 0 || field_get(d, TC5_FIELD(FMH_SMEM_DESC_LBO_MODE)) != FMH_SMEM_DESC_LBO_MODE_FIXED ||
        !(layout == 0 || layout == 1 || layout == 2 || layout == 4 || layout == 6)) {
        return TC5_ERR_DESC_FIXED_BITS;
    }
    if (field_get(d, TC5_FIELD(FMH_SMEM_DESC_BASE_OFFSET)) != FMH_SMEM_DESC_BASE_OFFSET_FIXED) return TC5_ERR_DESC_BASE_OFFSET;
    // 128B_base32B exists only for MN-major tf32; MN-major tf32 exists only with it (spec §3.2, §5.1).
    if ((layout == 1) != (mn_major && tf32)) return TC5_ERR_IDESC_INVALID;
    const u32 start = static_cast<u32>(field_get(d, TC5_FIELD(FMH_SMEM_DESC_START))) << FMH_SMEM_DESC_START_UNIT_SHIFT;
    if (layout != 0) {
        const u32 w = swizzle_width(layout);
        // K-major: one MMA's 32-byte K slice must stay inside its swizzle row; MN-major: the
        // MN atom starts at a row start. Anything else reads across atoms (undocumented).
        if (mn_major ? (start % w) != 0 : (start % w) + 32 > w) return TC5_ERR_DESC_MISALIGNED;
    }
    return 0;
}

// Spec §3.2 / §6: shapes and formats of kind::f16 / kind::tf32, dense, cta_group::1.
template <Kind K>
__host__ __device__ __forceinline__ u32 check_idesc(u32 x, u32& detail) {
    const IDesc i = decode_idesc(x);
    detail = x;
    const u32 reserved = field_mask<u32>(TC5_FIELD(FMH_IDESC_SPARSE_SELECTOR)) | field_mask<u32>(TC5_FIELD(FMH_IDESC_SPARSE)) |
                         field_mask<u32>(TC5_FIELD(FMH_IDESC_RESERVED_6)) | field_mask<u32>(TC5_FIELD(FMH_IDESC_RESERVED_23)) |
                         field_mask<u32>(TC5_FIELD(FMH_IDESC_RESERVED_29)) | field_mask<u32>(TC5_FIELD(FMH_IDESC_MAX_SHIFT));
    if ((x & reserved) != 0) return TC5_ERR_IDESC_INVALID;
    if (K == Kind::f16) {
        if (i.a_fmt > 1 || i.b_fmt > 1 || i.a_fmt != i.b_fmt || i.d_fmt > 1) return TC5_ERR_IDESC_INVALID;
        if (i.d_fmt == 0 && i.a_fmt != 0) return TC5_ERR_IDESC_INVALID;  // f16 D needs f16 inputs
    } else {
        if (i.a_fmt != 2 || i.b_fmt != 2 || i.d_fmt != 1) return TC5_ERR_IDESC_INVALID;
    }
    if (!(i.m == 64 || i.m == 128) || i.n < 8 || i.n > 256) return TC5_ERR_MMA_SHAPE;
    return 0;
}

// Byte address (absolute, before swizzle) of element (mn, k) of one MMA's operand (spec §5.2).
__host__ __device__ __forceinline__ u32 operand_addr(const SmemDesc& d, bool mn_major, u32 e, u32 mn, u32 k) {
    const u32 s = d.start;
    if (!mn_major) {
        if (d.layout == 0) {
            return s + (mn % 8) * 16 + (mn / 8) * d.sbo + (k % (16 / e)) * e + (k / (16 / e)) * d.lbo;
        }
        return s + (mn % 8) * swizzle_width(d.layout) + (mn / 8) * d.sbo + k * e;
    }
    if (d.layout == 0) {
        return s + (mn % (16 / e)) * e + (mn / (16 / e)) * d.sbo + (k % 8) * 16 + (k / 8) * d.lbo;
    }
    if (d.layout == 1) {
        return s + (mn % (128 / e)) * e + (mn / (128 / e)) * d.lbo + (k % 4) * 128 + (k / 4) * d.sbo;
    }
    const u32 w = swizzle_width(d.layout);
    return s + (mn % (w / e)) * e + (mn / (w / e)) * d.lbo + (k % 8) * w + (k / 8) * d.sbo;
}

// Spec §5.3: the XOR takes address bits 7.. of the absolute shared-memory address.
__host__ __device__ __forceinline__ u32 swizzle(u32 a, u32 layout) {
    switch (layout) {
        case 6: return a ^ (((a >> 7) & 1) << 4);
        case 4: return a ^ (((a >> 7) & 3) << 4);
        case 2: return a ^ (((a >> 7) & 7) << 4);
        case 1: return a ^ (((a >> 7) & 3) << 5);
        default: return a;
    }
}

__device__ __forceinline__ float to_float(u32 bits, u32 fmt) {
    if (fmt == 1) return __uint_as_float(bits << 16);
    if (fmt == 0) {
        float f;
        const unsigned short h = static_cast<unsigned short>(bits);
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
        return f;
    }
    return __uint_as_float(bits);  // tf32: the fp32 bit pattern (hardware mantissa handling undocumented)
}

__device__ __forceinline__ float smem_operand(const SmemDesc& d, bool mn_major, u32 fmt, u32 mn, u32 k) {
    const u32 e = fmt == 2 ? 4u : 2u;
    const u32 addr = swizzle(operand_addr(d, mn_major, e, mn, k), d.layout);
    u32 bits;
    if (e == 2) {
        unsigned short h;
        asm volatile("ld.shared.u16 %0, [%1];" : "=h"(h) : "r"(addr));
        bits = h;
    } else {
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(bits) : "r"(addr));
    }
    return to_float(bits, fmt);
}

// TMEM lane of row m of D (and of A for TS): layout D (M=128) / F (M=64), spec §3.4.
__host__ __device__ __forceinline__ u32 row_lane(u32 m_rows, u32 lane0, u32 m) {
    return m_rows == 128 ? m : lane0 + (m % 16) + 32 * (m / 16);
}

// Checks shared by SS and TS that do not depend on the A source. Returns the code (0: legal).
template <Kind K>
__device__ __forceinline__ u32 check_common(const Cta& c, u32 d_tmem, u64 b_desc, u32 idesc, u32& d0, u32& d1) {
    u32 code = check_idesc<K>(idesc, d0);
    d1 = 0;
    if (code != 0) return code;
    const IDesc i = decode_idesc(idesc);
    code = check_desc(b_desc, i.b_mn_major, K == Kind::tf32);
    if (code != 0) {
        d0 = static_cast<u32>(b_desc);
        d1 = static_cast<u32>(b_desc >> 32);
        return code;
    }
    const u32 lane0 = d_tmem >> 16, col0 = d_tmem & 0xffffu;
    if (i.m == 128 ? lane0 != 0 : !(lane0 == 0 || lane0 == 16)) {
        d0 = d_tmem;
        return TC5_ERR_MMA_TMEM_ADDRESS;
    }
    if (col0 + i.n > TC5_TMEM_COLUMNS) {
        d0 = d_tmem;
        d1 = i.n;
        return TC5_ERR_TMEM_OUT_OF_RANGE;
    }
    const u32 want = chunk_mask(col0, i.n);
    if ((c.meta->used_chunks & want) != want) {
        d0 = d_tmem;
        d1 = i.n;
        return TC5_ERR_UNALLOCATED_COLUMNS;
    }
    return 0;
}

// The MMA itself, spread over the warp: lane t owns rows t, t+32, ... (M/32 rows) and keeps their
// K values in registers; B values are warp-uniform shared loads (broadcast). D is read-modify-
// written one column at a time: 32 lanes x one column = one coalesced access. `t` is the lane
// whose share this call computes (strict mode's deferred executor may run the 32 shares on fewer
// lanes); it contains no warp-collective operation.
template <Kind K, bool kTs>
__device__ __forceinline__ u32 mma_compute(const Cta& c, u32 d_tmem, u64 a_desc, u32 a_tmem, u64 b_desc, u32 idesc,
                                           bool accumulate, u32& bad_lane, u32& bad_col, u32 t) {
    constexpr u32 kK = K == Kind::f16 ? 16 : 8;
    const IDesc id = decode_idesc(idesc);
    const SmemDesc ad = decode_desc(a_desc), bd = decode_desc(b_desc);
    const u32 lane0 = d_tmem >> 16, col0 = d_tmem & 0xffffu;
    const u32 rows = id.m / 32;
    const float sign_a = id.neg_a ? -1.f : 1.f, sign_b = id.neg_b ? -1.f : 1.f;
    u32 problem = 0;
    float a[4][kK];
#pragma unroll
    for (u32 r = 0; r < 4; ++r) {
        if (r >= rows) break;
        const u32 m = t + 32 * r;
#pragma unroll
        for (u32 k = 0; k < kK; ++k) {
            float v;
            if (kTs) {
                const u32 ebits = K == Kind::f16 ? 16u : 32u;
                const u32 lane = row_lane(id.m, a_tmem >> 16, m);
                const u32 col = (a_tmem & 0xffffu) + (k * ebits) / 32;
                if (problem == 0 && !written(c, lane, col)) {
                    problem = TC5_ERR_UNWRITTEN_READ;
                    bad_lane = lane;
                    bad_col = col;
                }
                const u32 word = *cell(c, lane, col);
                v = to_float(ebits == 16 ? (word >> ((k * ebits) % 32)) & 0xffffu : word, id.a_fmt);
            } else {
                v = smem_operand(ad, id.a_mn_major, id.a_fmt, m, k);
            }
            a[r][k] = sign_a * v;
        }
    }
    // Two columns per iteration: their independent D loads overlap (the loop is latency-bound).
#pragma unroll 2
    for (u32 n = 0; n < id.n; ++n) {
        float b[kK];
#pragma unroll
        for (u32 k = 0; k < kK; ++k) b[k] = sign_b * smem_operand(bd, id.b_mn_major, id.b_fmt, n, k);
        const u32 col = col0 + n;
#pragma unroll
        for (u32 r = 0; r < 4; ++r) {
            if (r >= rows) break;
            const u32 lane = row_lane(id.m, lane0, t + 32 * r);
            u32* dst = cell(c, lane, col);
            float acc = 0.f;
            if (accumulate) {
                if (problem == 0 && !written(c, lane, col)) {
                    problem = TC5_ERR_UNWRITTEN_READ;
                    bad_lane = lane;
                    bad_col = col;
                }
                acc = id.d_fmt == 1 ? __uint_as_float(*dst) : to_float(*dst & 0xffffu, 0);
            }
#pragma unroll
            for (u32 k = 0; k < kK; ++k) acc = fmaf(a[r][k], b[k], acc);
            if (id.d_fmt == 1) {
                *dst = __float_as_uint(acc);
            } else {
                unsigned short h;
                asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(acc));
                *dst = h;  // f16 D: low 16 bits of the cell, not packed (spec §3.4)
            }
        }
    }
    // Mark D written: M=128 fills whole bitmap words; M=64 fills 16 lanes of each quarter.
    const u32 bits = id.m == 128 ? 0xffffffffu : 0xffffu << lane0;
    for (u32 w = t; w < id.n * 4; w += 32) atomicOr(&c.meta->written[(col0 + w / 4) * 4 + w % 4], bits);
    return problem;
}

template <Kind K>
__device__ __forceinline__ void mma_ss(u32 d_tmem, u64 a_desc, u64 b_desc, u32 idesc, bool accumulate, u32 site) {
    TC5_STRICT_ENTRY(TC5_OP_MMA_SS, site);
    __syncwarp();
    Cta c = cta();
    u32 d0 = 0, d1 = 0;
    u32 code = check_common<K>(c, d_tmem, b_desc, idesc, d0, d1);
    if (code == 0) {
        code = check_desc(a_desc, decode_idesc(idesc).a_mn_major, K == Kind::tf32);
        d0 = static_cast<u32>(a_desc);
        d1 = static_cast<u32>(a_desc >> 32);
    }
    if (code != 0) {  // arguments are warp-uniform: one report, the MMA is skipped
        if (lane_id() == 0) record(code, TC5_OP_MMA_SS, site, d0, d1);
        return;
    }
#if TC5_STRICT
    strict::enqueue_mma(d_tmem, a_desc, 0, b_desc, idesc, (K == Kind::tf32 ? TC5_MMA_TF32 : 0u) |
                        (accumulate ? TC5_MMA_ACCUM : 0u), site);
    return;
#endif
    u32 bad_lane = 0, bad_col = 0;
    const u32 problem = mma_compute<K, false>(c, d_tmem, a_desc, 0, b_desc, idesc, accumulate, bad_lane, bad_col,
                                              lane_id());
    report_first(problem, TC5_OP_MMA_SS, site, bad_lane, bad_col);
}

template <Kind K>
__device__ __forceinline__ void mma_ts(u32 d_tmem, u32 a_tmem, u64 b_desc, u32 idesc, bool accumulate, u32 site) {
    TC5_STRICT_ENTRY(TC5_OP_MMA_TS, site);
    __syncwarp();
    Cta c = cta();
    u32 d0 = 0, d1 = 0;
    u32 code = check_common<K>(c, d_tmem, b_desc, idesc, d0, d1);
    const IDesc id = decode_idesc(idesc);
    if (code == 0 && id.a_mn_major) {  // A in TMEM is K-major only (spec §3.5)
        code = TC5_ERR_IDESC_INVALID;
        d0 = idesc;
    }
    if (code == 0) {
        // A rows share D's lane layout; M=64 needs the same lane base as D (spec §3.4 layout F).
        const u32 la = a_tmem >> 16, ca = a_tmem & 0xffffu;
        if (la != (d_tmem >> 16)) {
            code = TC5_ERR_MMA_TMEM_ADDRESS;
            d0 = a_tmem;
            d1 = d_tmem;
        } else if (ca + 8 > TC5_TMEM_COLUMNS) {
            code = TC5_ERR_TMEM_OUT_OF_RANGE;
            d0 = a_tmem;
        } else if ((c.meta->used_chunks & chunk_mask(ca, 8)) != chunk_mask(ca, 8)) {
            code = TC5_ERR_UNALLOCATED_COLUMNS;
            d0 = a_tmem;
            d1 = 8;
        }
    }
    if (code != 0) {
        if (lane_id() == 0) record(code, TC5_OP_MMA_TS, site, d0, d1);
        return;
    }
#if TC5_STRICT
    strict::enqueue_mma(d_tmem, 0, a_tmem, b_desc, idesc, (K == Kind::tf32 ? TC5_MMA_TF32 : 0u) | TC5_MMA_TS |
                        (accumulate ? TC5_MMA_ACCUM : 0u), site);
    return;
#endif
    u32 bad_lane = 0, bad_col = 0;
    const u32 problem = mma_compute<K, true>(c, d_tmem, 0, a_tmem, b_desc, idesc, accumulate, bad_lane, bad_col,
                                             lane_id());
    report_first(problem, TC5_OP_MMA_TS, site, bad_lane, bad_col);
}

// The MMAs already completed inside their calls; what remains is to make their TMEM writes
// visible before the arrive. Every lane fences, the warp converges, one lane arrives (release).
__device__ __forceinline__ void commit(u32 mbar_smem, u32 site) {
#if TC5_STRICT
    strict::commit(mbar_smem, site);
    return;
#endif
    (void)site;
    __threadfence_block();
    __syncwarp();
    if (lane_id() == 0) {
        asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(mbar_smem) : "memory");
    }
    __syncwarp();
}

}  // namespace emu
}  // namespace tc5
