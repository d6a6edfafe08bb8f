// Independent oracle for fmhactl.layout.smem / descriptors / wgmma / idesc, from CUTLASS's CuTe headers.
//
// Without input it prints:
//   CANON <major> <swizzle> <elem_bytes> <rows> <cols> <order>  a tile_to_shape(UMMA atom) tile (order 1: K first)
//   SLICE <kb> <lbo> <sbo> <layout_type> <start>                 make_umma_desc of MMA k-block kb (fields, >>4)
//   E <kb> <mn> <k_local> <byte>                                  element address (swizzle applied, absolute)
//   IDESC <a> <b> <c> <M> <N> <a_major> <b_major> <a_neg> <b_neg> <value>   UMMA::make_instr_desc
// With "fields" as argv[1] (part 1) it reads lines from stdin and answers each through the bitfield unions:
//   S start lbo sbo version base lbo_mode layout  -> S <value>     (UMMA::SmemDescriptor)
//   D value                                       -> D value start lbo sbo version base lbo_mode layout
//   G start lbo sbo base layout                   -> G <value>     (GmmaDescriptor)
//   H value                                       -> H value start lbo sbo base layout
//   I id2 sparse sat c a b na nb am bm n m shift  -> I <value>     (UMMA::InstrDescriptor)
//   J value                                       -> J value id2 sparse sat c a b na nb am bm n m shift
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

#include <cute/tensor.hpp>
#include <cute/arch/mma_sm90_desc.hpp>
#include <cute/atom/mma_traits_sm100.hpp>

using namespace cute;

alignas(1024) static uint8_t g_buf[1 << 20];

template <UMMA::Major Maj, class T, class Atom, int Rows, int Cols, int Order>
void dump_canon(char const* major, char const* swz) {
  constexpr int kMma = 32 / int(sizeof(T));
  auto shape = Shape<Int<Rows>, Int<Cols>>{};
  auto layout = [&] {
    if constexpr (Order == 0) return tile_to_shape(Atom{}, shape);
    else return tile_to_shape(Atom{}, shape, Step<_2, _1>{});
  }();
  T* buf = reinterpret_cast<T*>(g_buf);
  Tensor t = make_tensor(make_smem_ptr(buf), layout);
  std::printf("CANON %s %s %d %d %d %d\n", major, swz, int(sizeof(T)), Rows, Cols, Order);
  for (int kb = 0; kb < Cols / kMma; ++kb) {
    Tensor sub = local_tile(t, Shape<Int<Rows>, Int<kMma>>{}, make_coord(0, kb));
    UMMA::SmemDescriptor d = UMMA::make_umma_desc<Maj>(sub);
    long start = (char*)raw_pointer_cast(sub.data()) - (char*)buf;
    std::printf("SLICE %d %d %d %d %ld\n", kb, int(d.leading_byte_offset_), int(d.stride_byte_offset_),
                int(d.layout_type_), start);
    for (int mn = 0; mn < Rows; ++mn)
      for (int k = 0; k < kMma; ++k)
        std::printf("E %d %d %d %ld\n", kb, mn, k, long((char*)&sub(mn, k) - (char*)buf));
  }
}

template <class T, int KRows>
void canon_k() {
  constexpr int E = int(sizeof(T)), TE = 16 / E;
  dump_canon<UMMA::Major::K, T, UMMA::Layout_K_INTER_Atom<T>, KRows, 4 * TE, 0>("K", "none");
  dump_canon<UMMA::Major::K, T, UMMA::Layout_K_SW32_Atom<T>, KRows, 2 * 32 / E, 0>("K", "32B");
  dump_canon<UMMA::Major::K, T, UMMA::Layout_K_SW64_Atom<T>, KRows, 2 * 64 / E, 0>("K", "64B");
  dump_canon<UMMA::Major::K, T, UMMA::Layout_K_SW128_Atom<T>, KRows, 2 * 128 / E, 0>("K", "128B");
}

template <class T, int Order>
void canon_mn() {
  constexpr int E = int(sizeof(T)), TE = 16 / E, kMma = 32 / E;
  constexpr int Cols = 2 * kMma < 16 ? 16 : 2 * kMma;
  dump_canon<UMMA::Major::MN, T, UMMA::Layout_MN_INTER_Atom<T>, 4 * TE, Cols, Order>("MN", "none");
  dump_canon<UMMA::Major::MN, T, UMMA::Layout_MN_SW32_Atom<T>, 2 * 32 / E, Cols, Order>("MN", "32B");
  dump_canon<UMMA::Major::MN, T, UMMA::Layout_MN_SW64_Atom<T>, 2 * 64 / E, Cols, Order>("MN", "64B");
  dump_canon<UMMA::Major::MN, T, UMMA::Layout_MN_SW128_Atom<T>, 2 * 128 / E, Cols, Order>("MN", "128B");
  dump_canon<UMMA::Major::MN, T, UMMA::Layout_MN_SW128_32B_Atom<T>, 2 * 128 / E, Cols, Order>("MN", "128B_base32B");
}

template <class T> char const* fmt_name();
template <> char const* fmt_name<half_t>() { return "f16"; }
template <> char const* fmt_name<bfloat16_t>() { return "bf16"; }
template <> char const* fmt_name<tfloat32_t>() { return "tf32"; }
template <> char const* fmt_name<float>() { return "f32"; }

template <class A, class C, int M, int N, UMMA::Major AM, UMMA::Major BM, UMMA::ScaleIn AN, UMMA::ScaleIn BN>
void idesc_one() {
  UMMA::InstrDescriptor d = UMMA::make_instr_desc<A, A, C, M, N, AM, BM, AN, BN>();
  std::printf("IDESC %s %s %s %d %d %s %s %d %d 0x%08x\n", fmt_name<A>(), fmt_name<A>(), fmt_name<C>(), M, N,
              AM == UMMA::Major::K ? "K" : "MN", BM == UMMA::Major::K ? "K" : "MN", int(AN), int(BN),
              uint32_t(d.desc_));
}

#define MAJ_NEG(A, C, M, N)                                                                       \
  idesc_one<A, C, M, N, UMMA::Major::K, UMMA::Major::K, UMMA::ScaleIn::One, UMMA::ScaleIn::One>();   \
  idesc_one<A, C, M, N, UMMA::Major::K, UMMA::Major::MN, UMMA::ScaleIn::One, UMMA::ScaleIn::Neg>();  \
  idesc_one<A, C, M, N, UMMA::Major::MN, UMMA::Major::K, UMMA::ScaleIn::Neg, UMMA::ScaleIn::One>();  \
  idesc_one<A, C, M, N, UMMA::Major::MN, UMMA::Major::MN, UMMA::ScaleIn::Neg, UMMA::ScaleIn::Neg>();

template <class A, class C>
void idesc_grid() {
  MAJ_NEG(A, C, 64, 8) MAJ_NEG(A, C, 64, 64) MAJ_NEG(A, C, 64, 136) MAJ_NEG(A, C, 64, 256)
  MAJ_NEG(A, C, 128, 8) MAJ_NEG(A, C, 128, 16) MAJ_NEG(A, C, 128, 64) MAJ_NEG(A, C, 128, 248)
  MAJ_NEG(A, C, 128, 256)
}

static int fields_mode() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string tag;
    in >> tag;
    if (tag == "S") {
      unsigned s, l, b, v, o, m, t;
      in >> s >> l >> b >> v >> o >> m >> t;
      UMMA::SmemDescriptor d;
      d.start_address_ = s; d.leading_byte_offset_ = l; d.stride_byte_offset_ = b; d.version_ = v;
      d.base_offset_ = o; d.lbo_mode_ = m; d.layout_type_ = t;
      std::printf("S 0x%016llx\n", (unsigned long long)d.desc_);
    } else if (tag == "D") {
      unsigned long long v;
      in >> std::hex >> v;
      UMMA::SmemDescriptor d;
      d.desc_ = v;
      std::printf("D 0x%016llx %u %u %u %u %u %u %u\n", v, unsigned(d.start_address_), unsigned(d.leading_byte_offset_),
                  unsigned(d.stride_byte_offset_), unsigned(d.version_), unsigned(d.base_offset_),
                  unsigned(d.lbo_mode_), unsigned(d.layout_type_));
    } else if (tag == "G") {
      unsigned s, l, b, o, t;
      in >> s >> l >> b >> o >> t;
      GmmaDescriptor d;
      d.bitfield.start_address_ = s; d.bitfield.leading_byte_offset_ = l; d.bitfield.stride_byte_offset_ = b;
      d.bitfield.base_offset_ = o; d.bitfield.layout_type_ = t;
      std::printf("G 0x%016llx\n", (unsigned long long)d.desc_);
    } else if (tag == "H") {
      unsigned long long v;
      in >> std::hex >> v;
      GmmaDescriptor d(v);
      std::printf("H 0x%016llx %u %u %u %u %u\n", v, unsigned(d.bitfield.start_address_),
                  unsigned(d.bitfield.leading_byte_offset_), unsigned(d.bitfield.stride_byte_offset_),
                  unsigned(d.bitfield.base_offset_), unsigned(d.bitfield.layout_type_));
    } else if (tag == "I") {
      unsigned f[13];
      for (unsigned& x : f) in >> x;
      UMMA::InstrDescriptor d;
      d.desc_ = 0;
      d.sparse_id2_ = f[0]; d.sparse_flag_ = f[1]; d.saturate_ = f[2]; d.c_format_ = f[3]; d.a_format_ = f[4];
      d.b_format_ = f[5]; d.a_negate_ = f[6]; d.b_negate_ = f[7]; d.a_major_ = f[8]; d.b_major_ = f[9];
      d.n_dim_ = f[10]; d.m_dim_ = f[11]; d.max_shift_ = f[12];
      std::printf("I 0x%08x\n", uint32_t(d.desc_));
    } else if (tag == "J") {
      unsigned v;
      in >> std::hex >> v;
      UMMA::InstrDescriptor d;
      d.desc_ = v;
      std::printf("J 0x%08x %u %u %u %u %u %u %u %u %u %u %u %u %u\n", v, unsigned(d.sparse_id2_),
                  unsigned(d.sparse_flag_), unsigned(d.saturate_), unsigned(d.c_format_), unsigned(d.a_format_),
                  unsigned(d.b_format_), unsigned(d.a_negate_), unsigned(d.b_negate_), unsigned(d.a_major_),
                  unsigned(d.b_major_), unsigned(d.n_dim_), unsigned(d.m_dim_), unsigned(d.max_shift_));
    }
  }
  return 0;
}

// Built three times (parts compile in parallel): -DORACLE_PART=1 descriptors and instruction descriptors,
// 2 K-major canonical tiles, 3 MN-major canonical tiles.
#ifndef ORACLE_PART
#define ORACLE_PART 1
#endif

int main(int argc, char** argv) {
#if ORACLE_PART == 1
  if (argc > 1 && std::strcmp(argv[1], "fields") == 0) return fields_mode();
  idesc_grid<half_t, float>();
  idesc_grid<half_t, half_t>();
  idesc_grid<bfloat16_t, float>();
  idesc_grid<tfloat32_t, float>();
#elif ORACLE_PART == 2
  canon_k<half_t, 32>();
  canon_k<float, 32>();
  dump_canon<UMMA::Major::K, uint8_t, UMMA::Layout_K_SW128_Atom<uint8_t>, 16, 256, 0>("K", "128B");
#else
  canon_mn<half_t, 0>();
  canon_mn<half_t, 1>();
  canon_mn<float, 1>();
#endif
  (void)argc; (void)argv;
  return 0;
}
