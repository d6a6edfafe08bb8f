// Independent oracle for fmhactl.layout.tmem / accum: evaluates CUTLASS's CuTe traits on the host.
//
// Output (one record per line):
//   OP <shape> <num> <pack>                       start of a Copy_Traits<SM100_TMEM_LOAD_*> block
//   A <thread> <reg> <lane> <col> <reg_bit_lo> <tmem_bit_lo> <nbits>   a run of contiguous bits
//   ST <shape> <num> <pack> <same>                STORE traits equal the LOAD traits with src/dst swapped
//   ACC <M> <N> <tile> <m> <n> <lane> <col>       D[m][n] of tile `tile` (tmem_frg_1sm<float>)
//   TSA <M> <ebits> <tile> <m> <k> <lane> <col> <bit>   A[m][k] for the TS form (NonInterleaved)
#include <cstdio>

#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm100.hpp>
#include <cute/atom/mma_traits_sm100.hpp>

using namespace cute;

template <class Op>
void dump_op(char const* shape, int num, int pack) {
  using Traits = Copy_Traits<Op>;
  using Dst = typename Traits::DstLayout;
  using Val = typename Traits::ValID;
  constexpr int kBits = decltype(size<1>(Dst{}))::value;
  constexpr int kRegs = kBits / 32;
  std::printf("OP %s %d %d\n", shape, num, pack);
  for (int t = 0; t < 32; ++t) {
    for (int r = 0; r < kRegs; ++r) {
      int run_lane = -1, run_col = -1, run_reg_lo = 0, run_tmem_lo = 0, run_n = 0;
      for (int b = 0; b < 32; ++b) {
        int logical = Dst{}(t, r * 32 + b);
        long addr = Val{}(logical);
        int lane = int(addr / (1 << 21));
        int colbit = int(addr % (1 << 21));
        int col = colbit / 32, bit = colbit % 32;
        if (run_n > 0 && lane == run_lane && col == run_col && bit == run_tmem_lo + run_n) {
          ++run_n;
          continue;
        }
        if (run_n > 0) {
          std::printf("A %d %d %d %d %d %d %d\n", t, r, run_lane, run_col, run_reg_lo, run_tmem_lo, run_n);
        }
        run_lane = lane; run_col = col; run_reg_lo = b; run_tmem_lo = bit; run_n = 1;
      }
      std::printf("A %d %d %d %d %d %d %d\n", t, r, run_lane, run_col, run_reg_lo, run_tmem_lo, run_n);
    }
  }
}

template <class Load, class Store>
void check_store(char const* shape, int num, int pack) {
  using L = Copy_Traits<Load>;
  using S = Copy_Traits<Store>;
  bool same = std::is_same_v<typename L::DstLayout, typename S::SrcLayout> &&
              std::is_same_v<typename L::ValID, typename S::ValID>;
  std::printf("ST %s %d %d %d\n", shape, num, pack, same ? 1 : 0);
}

#define OPS(PREFIX, SHAPE, N)                                                              \
  dump_op<SM100_TMEM_LOAD_##PREFIX##N##x>(SHAPE, N, 0);                                    \
  dump_op<SM100_TMEM_LOAD_##PREFIX##N##x_16b>(SHAPE, N, 1);                                \
  check_store<SM100_TMEM_LOAD_##PREFIX##N##x, SM100_TMEM_STORE_##PREFIX##N##x>(SHAPE, N, 0); \
  check_store<SM100_TMEM_LOAD_##PREFIX##N##x_16b, SM100_TMEM_STORE_##PREFIX##N##x_16b>(SHAPE, N, 1);

template <int M, int N, int Tiles>
void dump_acc() {
  auto t = UMMA::tmem_frg_1sm<float>::make(Shape<Shape<Int<M>, Int<N>>, Int<Tiles>, _1>{});
  auto layout = t.layout();
  for (int tile = 0; tile < Tiles; ++tile)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        uint32_t off = uint32_t(layout(make_coord(make_coord(m, n), tile, 0)));
        std::printf("ACC %d %d %d %d %d %d %d\n", M, N, tile, m, n, int(off >> 16), int(off & 0xFFFF));
      }
}

template <class T, int M, int K, int Tiles>
void dump_ts_a() {
  constexpr int ebits = int(sizeof_bits_v<T>);
  constexpr int shift = ebits == 16 ? 1 : 0;
  auto t = UMMA::tmem_frg_1sm<T, T, UMMA::TmemAllocMode::NonInterleaved>::make(
      Shape<Shape<Int<M>, Int<K>>, Int<Tiles>, _1>{});
  auto layout = t.layout();
  for (int tile = 0; tile < Tiles; ++tile)
    for (int m = 0; m < M; ++m)
      for (int k = 0; k < K; ++k) {
        uint32_t off = uint32_t(layout(make_coord(make_coord(m, k), tile, 0)));
        uint32_t word = off >> shift, sub = off & ((1u << shift) - 1);
        std::printf("TSA %d %d %d %d %d %d %d %d\n", M, ebits, tile, m, k, int(word >> 16), int(word & 0xFFFF),
                    int(sub * ebits));
      }
}

int main() {
  OPS(32dp32b, "32x32b", 1) OPS(32dp32b, "32x32b", 2) OPS(32dp32b, "32x32b", 4) OPS(32dp32b, "32x32b", 8)
  OPS(32dp32b, "32x32b", 16) OPS(32dp32b, "32x32b", 32) OPS(32dp32b, "32x32b", 64) OPS(32dp32b, "32x32b", 128)
  OPS(16dp64b, "16x64b", 1) OPS(16dp64b, "16x64b", 2) OPS(16dp64b, "16x64b", 4) OPS(16dp64b, "16x64b", 8)
  OPS(16dp64b, "16x64b", 16) OPS(16dp64b, "16x64b", 32) OPS(16dp64b, "16x64b", 64) OPS(16dp64b, "16x64b", 128)
  OPS(16dp128b, "16x128b", 1) OPS(16dp128b, "16x128b", 2) OPS(16dp128b, "16x128b", 4) OPS(16dp128b, "16x128b", 8)
  OPS(16dp128b, "16x128b", 16) OPS(16dp128b, "16x128b", 32) OPS(16dp128b, "16x128b", 64)
  OPS(16dp256b, "16x256b", 1) OPS(16dp256b, "16x256b", 2) OPS(16dp256b, "16x256b", 4) OPS(16dp256b, "16x256b", 8)
  OPS(16dp256b, "16x256b", 16) OPS(16dp256b, "16x256b", 32)
  OPS(16dp32b, "16x32bx2", 1) OPS(16dp32b, "16x32bx2", 2) OPS(16dp32b, "16x32bx2", 4) OPS(16dp32b, "16x32bx2", 8)
  OPS(16dp32b, "16x32bx2", 16) OPS(16dp32b, "16x32bx2", 32) OPS(16dp32b, "16x32bx2", 64)
  OPS(16dp32b, "16x32bx2", 128)
  dump_acc<128, 64, 1>();
  dump_acc<128, 256, 1>();
  dump_acc<64, 64, 2>();
  dump_acc<64, 8, 1>();
  dump_ts_a<half_t, 128, 16, 1>();
  dump_ts_a<half_t, 64, 32, 1>();
  dump_ts_a<tfloat32_t, 128, 8, 1>();
  return 0;
}
