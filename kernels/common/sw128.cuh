// The 128-byte-swizzled tile layout that TMA writes with CU_TENSOR_MAP_SWIZZLE_128B and that a
// UMMA descriptor with layout SWIZZLE_128B reads (spec §5.2, §5.3), for 16-bit elements.
//
// A tile of `rows` rows x `cols` elements is stored as cols/64 "atom columns" of rows x 128 B;
// row r of an atom column sits at r*128 B with its eight 16-byte chunks permuted by XOR (r % 8).
// The tile base must be 1024-byte aligned: the hardware swizzles absolute shared addresses.
// K-major operands (Q, K, P) use it with rows = M/N and cols = K; the MN-major V operand uses the
// same bytes with rows = keys (K) and cols = head dim (N).
#pragma once

namespace sw128 {

constexpr unsigned kAtomBytes = 1024;  // 8 rows x 128 B: SBO of every SW128 operand

// Byte offset of element (row, col) of a tile with `rows` rows.
__host__ __device__ constexpr unsigned offset(unsigned row, unsigned col, unsigned rows) {
    return (col / 64) * rows * 128 + row * 128 + ((((col % 64) / 8) ^ (row % 8)) * 16) + (col % 8) * 2;
}

// Byte offset of the first element of atom column `col / 64`, plus col's in-line offset:
// what a K-major descriptor's start address advances by for a K step that starts at `col`.
__host__ __device__ constexpr unsigned kmajor_k_offset(unsigned col, unsigned rows) {
    return (col / 64) * rows * 128 + (col % 64) * 2;
}

}  // namespace sw128
