// Host-side probe of the emulator's pure functions (descriptor decoding, swizzle, ld/st cell map,
// legality checks), compiled with nvcc for the CPU so tests can compare them with independent
// Python models without a GPU. Reads one query per line on stdin, prints one answer per line:
//   A <desc> <mn_major> <elem_bytes> <mn> <k>    -> swizzled smem byte address of the element
//   L <shape 0-4> <pack> <taddr> <imm> <t> <i> <h> -> "<lane> <col>" of half h of r[i] of thread t
//   D <desc> <mn_major> <tf32>                    -> check_desc code
//   I <idesc> <tf32>                              -> check_idesc code
#define FMHACTL_TCGEN05_EMULATE 1
#define FMHACTL_ARCH 90
#include <cstdio>
#include <cstring>

#include "common/tcgen05.cuh"

using namespace tc5;

template <Shape S>
static void cell(u32 pack, u32 taddr, u32 imm, u32 t, u32 i, u32 h) {
    u32 lane, col;
    emu::cell_of<S>(taddr, imm, t, i, lane, col);
    std::printf("%u %u\n", lane, emu::packed_col<S>(pack != 0, taddr, imm, t, col, h));
}

int main() {
    char op[4];
    while (std::scanf("%3s", op) == 1) {
        if (std::strcmp(op, "A") == 0) {
            unsigned long long desc;
            u32 mn_major, e, mn, k;
            std::scanf("%llu %u %u %u %u", &desc, &mn_major, &e, &mn, &k);
            const emu::SmemDesc d = emu::decode_desc(desc);
            std::printf("%u\n", emu::swizzle(emu::operand_addr(d, mn_major != 0, e, mn, k), d.layout));
        } else if (std::strcmp(op, "L") == 0) {
            u32 shape, pack, taddr, imm, t, i, h;
            std::scanf("%u %u %u %u %u %u %u", &shape, &pack, &taddr, &imm, &t, &i, &h);
            switch (shape) {
                case 0: cell<Shape::k32x32b>(pack, taddr, imm, t, i, h); break;
                case 1: cell<Shape::k16x64b>(pack, taddr, imm, t, i, h); break;
                case 2: cell<Shape::k16x128b>(pack, taddr, imm, t, i, h); break;
                case 3: cell<Shape::k16x256b>(pack, taddr, imm, t, i, h); break;
                default: cell<Shape::k16x32bx2>(pack, taddr, imm, t, i, h); break;
            }
        } else if (std::strcmp(op, "D") == 0) {
            unsigned long long desc;
            u32 mn_major, tf32;
            std::scanf("%llu %u %u", &desc, &mn_major, &tf32);
            std::printf("%u\n", emu::check_desc(desc, mn_major != 0, tf32 != 0));
        } else if (std::strcmp(op, "I") == 0) {
            u32 idesc, tf32, detail;
            std::scanf("%u %u", &idesc, &tf32);
            std::printf("%u\n", tf32 ? emu::check_idesc<Kind::tf32>(idesc, detail) : emu::check_idesc<Kind::f16>(idesc, detail));
        } else {
            return 2;
        }
    }
    return 0;
}
