// The Hopper wgmma shared-memory matrix descriptor encoder. Field positions and widths come from
// desc_fields.gen.h, generated from the layout model's table (fmhactl/layout/fields.py WGMMA_DESC),
// so the kernel and the model read one declaration. tests/sm90/test_wgmma_desc.py compiles this
// header on the host and compares its encodings with the Python encoder. Plain C++, no CUDA headers.
#pragma once

#include "common/desc_fields.gen.h"

#ifdef __CUDACC__
#define WGMMA_DESC_HD __host__ __device__
#else
#define WGMMA_DESC_HD
#endif

namespace wgmma_desc {

// Byte quantities are stored >> 4 (16-byte units).
constexpr unsigned kStartShift = FMH_WGMMA_DESC_START_LO, kStartWidth = FMH_WGMMA_DESC_START_WIDTH;
constexpr unsigned kLboShift = FMH_WGMMA_DESC_LBO_LO, kLboWidth = FMH_WGMMA_DESC_LBO_WIDTH;
constexpr unsigned kSboShift = FMH_WGMMA_DESC_SBO_LO, kSboWidth = FMH_WGMMA_DESC_SBO_WIDTH;
constexpr unsigned kBaseOffsetShift = FMH_WGMMA_DESC_BASE_OFFSET_LO, kBaseOffsetWidth = FMH_WGMMA_DESC_BASE_OFFSET_WIDTH;
constexpr unsigned kLayoutShift = FMH_WGMMA_DESC_LAYOUT_LO, kLayoutWidth = FMH_WGMMA_DESC_LAYOUT_WIDTH;
constexpr unsigned kByteUnitShift = FMH_WGMMA_DESC_START_UNIT_SHIFT;

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
