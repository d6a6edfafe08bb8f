// The Hopper wgmma shared-memory matrix descriptor: every field's position and width, once.
// fmhactl/layout/wgmma.py states the same fields for the layout model; tests/sm90/test_wgmma_desc.py
// compiles this header on the host, encodes sample descriptors and compares them with the Python
// encoder, so the two sides cannot drift. Plain C++ (host and device), no CUDA headers.
#pragma once

#ifdef __CUDACC__
#define WGMMA_DESC_HD __host__ __device__
#else
#define WGMMA_DESC_HD
#endif

namespace wgmma_desc {

// Byte quantities are stored >> 4 (16-byte units) in 14-bit fields.
constexpr unsigned kStartShift = 0, kStartWidth = 14;
constexpr unsigned kLboShift = 16, kLboWidth = 14;
constexpr unsigned kSboShift = 32, kSboWidth = 14;
constexpr unsigned kBaseOffsetShift = 49, kBaseOffsetWidth = 3;
constexpr unsigned kLayoutShift = 62, kLayoutWidth = 2;
constexpr unsigned kByteUnitShift = 4;

// Layout codes (bits 62-63).
constexpr unsigned kLayoutInterleave = 0, kLayoutSw128 = 1, kLayoutSw64 = 2, kLayoutSw32 = 3;

WGMMA_DESC_HD constexpr unsigned long long field(unsigned long long value, unsigned shift, unsigned width) {
    return (value & ((1ull << width) - 1)) << shift;
}

// start: shared-memory byte address; lbo/sbo: byte offsets (see kernels/sm90 for their meaning
// per operand major-ness); base_offset: 0 for atoms aligned to their swizzle repeat.
WGMMA_DESC_HD constexpr unsigned long long encode(unsigned start, unsigned lbo, unsigned sbo, unsigned layout,
                                                  unsigned base_offset = 0) {
    return field(start >> kByteUnitShift, kStartShift, kStartWidth) |
           field(lbo >> kByteUnitShift, kLboShift, kLboWidth) | field(sbo >> kByteUnitShift, kSboShift, kSboWidth) |
           field(base_offset, kBaseOffsetShift, kBaseOffsetWidth) | field(layout, kLayoutShift, kLayoutWidth);
}

// What a K step adds to a descriptor: a byte offset in the start-address field (no carry out
// of the field as long as the tile lies inside the 256 KiB shared window).
WGMMA_DESC_HD constexpr unsigned long long advance(unsigned long long desc, unsigned bytes) {
    return desc + (static_cast<unsigned long long>(bytes >> kByteUnitShift) << kStartShift);
}

}  // namespace wgmma_desc
