// The tcgen05 device API (namespace tc5): Tensor Memory allocation, tcgen05.mma (SS and TS,
// kind::f16 / kind::tf32, cta_group::1), commit to an mbarrier, tcgen05.ld / tcgen05.st in every
// shape and .num, waits and fences. One interface, two backends chosen at build time:
//   native   (FMHACTL_ARCH >= 100): inline PTX, tcgen05_native.cuh
//   emulated (FMHACTL_TCGEN05_EMULATE=1, sm_90a): TMEM in device memory with conformance checks,
//            tcgen05_emu.cuh; the host side is fmhactl/runtime/emulation.py. With
//            FMHACTL_TC5_STRICT=1 (fmhactl --emulation strict) asynchronous operations complete
//            only through commit/mbarrier/wait as the PTX ISA says: tcgen05_emu_strict.cuh.
// Spec: /work/shared/reference/tcgen05-spec.md (section numbers below refer to it).
//
// Calling convention: every function here is warp-collective -- all 32 lanes of the warp call it
// with the same arguments. Issue-type operations (mma, commit) are single-thread in PTX; the native
// backend elects one lane so that the emulator can spread the work over the whole warp. The last
// parameter `site` defaults to the caller's source line and names the call in violation reports.
#pragma once

#include "desc_fields.gen.h"
#include "tcgen05_errors.h"
#include "tcgen05_emu_hooks.cuh"

#if defined(FMHACTL_TCGEN05_EMULATE) && FMHACTL_TCGEN05_EMULATE
#define TC5_EMULATED 1
#else
#define TC5_EMULATED 0
#if !defined(FMHACTL_ARCH) || FMHACTL_ARCH < 100
#error "tcgen05.cuh: native tcgen05 needs sm_100a (FMHACTL_ARCH=100); sm_90a builds need FMHACTL_TCGEN05_EMULATE=1"
#endif
#endif

namespace tc5 {

typedef unsigned int u32;
typedef unsigned long long u64;

// tcgen05.ld / tcgen05.st data-movement shapes (spec §2.1).
enum class Shape : int { k32x32b, k16x64b, k16x128b, k16x256b, k16x32bx2 };

// Registers per thread per repetition (spec §2.1 Table 49).
template <Shape S>
__host__ __device__ constexpr int regs_per_rep() {
    return S == Shape::k16x128b ? 2 : (S == Shape::k16x256b ? 4 : 1);
}

// Registers per thread of one ld/st: the size of the array tc5::ld/st take.
template <Shape S, int Num>
__host__ __device__ constexpr int regs() {
    static_assert(Num == 1 || Num == 2 || Num == 4 || Num == 8 || Num == 16 || Num == 32 || Num == 64 ||
                      Num == 128,
                  ".num must be x1, x2, x4, ..., x128");
    static_assert(regs_per_rep<S>() * Num <= 128, "shape/.num combination does not exist (Table 49)");
    return regs_per_rep<S>() * Num;
}

// immHalfSplitoff as CUTLASS uses it: the second 16-lane half right after the first.
template <int Num, bool Pack>
__host__ __device__ constexpr int default_half_split() {
    return Pack ? 2 * Num : Num;
}

enum class Kind : int { f16, tf32 };

// Instruction-descriptor formats (spec §6).
enum class Fmt : u32 { f16 = 0, bf16 = 1, tf32 = 2 };
enum class DFmt : u32 { f16 = 0, f32 = 1 };
enum class Major : u32 { k = 0, mn = 1 };

// Shared-memory descriptor layout codes (spec §4.1, bits 61-63).
enum class Layout : u32 { none = 0, swizzle_128b_base32b = 1, swizzle_128b = 2, swizzle_64b = 4, swizzle_32b = 6 };

// Descriptor fields by name: FMH_* (desc_fields.gen.h, generated from fmhactl/layout/fields.py) give
// each field's bit position (_LO), width, fixed value and unit shift; no position is written here.
#define TC5_FIELD(P) P##_LO, P##_WIDTH

// The field at (lo, width) of a descriptor word.
template <class W>
__host__ __device__ constexpr W field_get(W word, u32 lo, u32 width) {
    return (word >> lo) & ((W(1) << width) - 1);
}

// The bits of the field at (lo, width), in place.
template <class W>
__host__ __device__ constexpr W field_mask(u32 lo, u32 width) {
    return ((W(1) << width) - 1) << lo;
}

// 32-bit instruction descriptor for kind::f16 / kind::tf32 (spec §6 Table 42).
__host__ __device__ constexpr u32 make_idesc(int m, int n, Fmt a, Fmt b, DFmt d, Major a_major = Major::k,
                                             Major b_major = Major::k, bool negate_a = false,
                                             bool negate_b = false) {
    return (static_cast<u32>(d) << FMH_IDESC_D_FORMAT_LO) | (static_cast<u32>(a) << FMH_IDESC_A_FORMAT_LO) |
           (static_cast<u32>(b) << FMH_IDESC_B_FORMAT_LO) | (static_cast<u32>(negate_a) << FMH_IDESC_NEGATE_A_LO) |
           (static_cast<u32>(negate_b) << FMH_IDESC_NEGATE_B_LO) | (static_cast<u32>(a_major) << FMH_IDESC_A_MAJOR_LO) |
           (static_cast<u32>(b_major) << FMH_IDESC_B_MAJOR_LO) |
           (static_cast<u32>(n >> FMH_IDESC_N_UNIT_SHIFT) << FMH_IDESC_N_LO) |
           (static_cast<u32>(m >> FMH_IDESC_M_UNIT_SHIFT) << FMH_IDESC_M_LO);
}

// A byte quantity stored in field P in 16-byte units: the byte bits the field can hold, in units.
#define TC5_DESC_BYTES(P, bytes) \
    (((bytes) & ((1u << (P##_WIDTH + P##_UNIT_SHIFT)) - 1)) >> P##_UNIT_SHIFT)

// 64-bit shared-memory matrix descriptor (spec §4.1): fixed bits 46-48 = 0b001, base offset 0,
// relative LBO. Byte values; start, lbo and sbo must be 16-byte aligned.
__host__ __device__ constexpr u64 make_smem_desc(u32 start_addr, u32 lbo_bytes, u32 sbo_bytes, Layout layout) {
    return (static_cast<u64>(TC5_DESC_BYTES(FMH_SMEM_DESC_START, start_addr)) << FMH_SMEM_DESC_START_LO) |
           (static_cast<u64>(TC5_DESC_BYTES(FMH_SMEM_DESC_LBO, lbo_bytes)) << FMH_SMEM_DESC_LBO_LO) |
           (static_cast<u64>(TC5_DESC_BYTES(FMH_SMEM_DESC_SBO, sbo_bytes)) << FMH_SMEM_DESC_SBO_LO) |
           (static_cast<u64>(FMH_SMEM_DESC_FIXED_46_48_FIXED) << FMH_SMEM_DESC_FIXED_46_48_LO) |
           (static_cast<u64>(layout) << FMH_SMEM_DESC_LAYOUT_LO);
}

// Advance a descriptor's start address by `bytes` (must stay inside the 14-bit field, spec §4.1).
__host__ __device__ constexpr u64 desc_advance(u64 desc, u32 bytes) {
    return desc + (static_cast<u64>(bytes >> FMH_SMEM_DESC_START_UNIT_SHIFT) << FMH_SMEM_DESC_START_LO);
}

__host__ __device__ constexpr u32 tmem_addr(u32 lane, u32 col) {
    return (lane << 16) + col;
}

__device__ __forceinline__ u32 smem_addr(const void* p) {
    return static_cast<u32>(__cvta_generic_to_shared(p));
}

}  // namespace tc5

#if TC5_EMULATED
#include "tcgen05_emu.cuh"
#else
#include "tcgen05_native.cuh"
#endif

namespace tc5 {

#if TC5_EMULATED
namespace backend = emu;
#else
namespace backend = native;
#endif

// ---- allocation (spec §1.2) ------------------------------------------------------------------
// Writes the TMEM address of the new allocation to *smem_dst (shared memory); other warps read
// it after a CTA barrier. ncols: 32, 64, 128, 256 or 512 and not larger than the previous alloc.
__device__ __forceinline__ void alloc(u32* smem_dst, u32 ncols, u32 site = __builtin_LINE()) {
    backend::alloc(smem_addr(smem_dst), ncols, site);
}

__device__ __forceinline__ void dealloc(u32 taddr, u32 ncols, u32 site = __builtin_LINE()) {
    backend::dealloc(taddr, ncols, site);
}

__device__ __forceinline__ void relinquish_alloc_permit(u32 site = __builtin_LINE()) {
    backend::relinquish_alloc_permit(site);
}

// ---- MMA (spec §3) ---------------------------------------------------------------------------
// D[tmem] (+)= A[smem desc] * B[smem desc]; accumulate = enable-input-D.
template <Kind K = Kind::f16>
__device__ __forceinline__ void mma_ss(u32 d_tmem, u64 a_desc, u64 b_desc, u32 idesc, bool accumulate,
                                       u32 site = __builtin_LINE()) {
    backend::mma_ss<K>(d_tmem, a_desc, b_desc, idesc, accumulate, site);
}

// D[tmem] (+)= A[tmem, K-major, packed along K] * B[smem desc].
template <Kind K = Kind::f16>
__device__ __forceinline__ void mma_ts(u32 d_tmem, u32 a_tmem, u64 b_desc, u32 idesc, bool accumulate,
                                       u32 site = __builtin_LINE()) {
    backend::mma_ts<K>(d_tmem, a_tmem, b_desc, idesc, accumulate, site);
}

// Arrive (count 1) on the mbarrier once every MMA this warp issued before has completed.
__device__ __forceinline__ void commit(unsigned long long* mbar, u32 site = __builtin_LINE()) {
    backend::commit(smem_addr(mbar), site);
}

// ---- TMEM <-> registers (spec §2) ------------------------------------------------------------
// r[i] <-> TMEM cells per the spec §2.2 map; Pack = .pack::16b (ld) / .unpack::16b (st).
// Imm = immHalfSplitoff of the 16x32bx2 shape (ignored for the others).
// Imm = -1: the default split. The register count N is deduced and checked, not written into the
// signature: nvcc/NVRTC 13 bind a default argument's __builtin_LINE() to this declaration (not the
// caller) when the signature needs a computed expression (a regs<S, Num>() bound, a computed
// default template argument), and every rule found at an ld/st then named these lines.
template <Shape S, int Num, bool Pack = false, int Imm = -1, int N>
__device__ __forceinline__ void ld(u32 taddr, u32 (&r)[N], u32 site = __builtin_LINE()) {
    static_assert(N == regs<S, Num>(), "tc5::ld: r holds regs<S, Num>() registers");
    backend::ld<S, Num, Pack, (Imm < 0 ? default_half_split<Num, Pack>() : Imm)>(taddr, r, site);
}

template <Shape S, int Num, bool Pack = false, int Imm = -1, int N>
__device__ __forceinline__ void st(u32 taddr, const u32 (&r)[N], u32 site = __builtin_LINE()) {
    static_assert(N == regs<S, Num>(), "tc5::st: r holds regs<S, Num>() registers");
    backend::st<S, Num, Pack, (Imm < 0 ? default_half_split<Num, Pack>() : Imm)>(taddr, r, site);
}

// Wait until this thread's earlier ld (st) completed: before using TMEM cells an ld read can be
// overwritten, or before signalling another thread that st data is in place.
__device__ __forceinline__ void wait_ld(u32 site = __builtin_LINE()) { backend::wait_ld(site); }
__device__ __forceinline__ void wait_st(u32 site = __builtin_LINE()) { backend::wait_st(site); }

// Order this thread's earlier async tcgen05 ops before the next thread-sync (bar.sync, arrive).
__device__ __forceinline__ void fence_before_thread_sync(u32 site = __builtin_LINE()) {
    backend::fence_before_thread_sync(site);
}
// Order this thread's later async tcgen05 ops after the previous thread-sync (bar.sync, wait).
__device__ __forceinline__ void fence_after_thread_sync(u32 site = __builtin_LINE()) {
    backend::fence_after_thread_sync(site);
}

}  // namespace tc5
