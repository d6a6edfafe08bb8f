// Does the Hopper TMA unit take a negative tensor coordinate? Session 18's first causal-alignment
// form crashed (CUDA_ERROR_ILLEGAL_INSTRUCTION) where a tile's Q load and O store both started at a
// negative row; this separates the two. One mode and row per process (a crash poisons the context):
//   tma_negative_probe load ROW   2-D bf16 tensor [256 rows][64 cols], a 64x64 box loaded from ROW:
//                                 box rows before 0 (or past 255) must read as zero, the rest as the tensor
//   tma_negative_probe store ROW  a 64x64 box stored at ROW: rows in [0, 256) written, nothing else
// Prints one line "MODE ROW: ok ..." or "MODE ROW: FAIL ..." and exits 0 / 1 (2: bad arguments).
// Built on the device: nvcc -arch=sm_90a -o probe tma_negative_probe.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int kRows = 256, kCols = 64, kBox = 64;

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e = (x);                                                                  \
        if (e != cudaSuccess) {                                                               \
            std::printf("%s %d: FAIL %s (%s)\n", mode, row, cudaGetErrorName(e), #x);         \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

__global__ void load_box(const __grid_constant__ CUtensorMap map, int row, unsigned short* out) {
    __shared__ alignas(128) unsigned short box[kBox * kCols];
    __shared__ alignas(8) unsigned long long bar;
    const unsigned sbar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
    const unsigned sbox = static_cast<unsigned>(__cvta_generic_to_shared(box));
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(kBox * kCols * 2) : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sbox),
            "l"(reinterpret_cast<unsigned long long>(&map)), "r"(0), "r"(row), "r"(sbar)
            : "memory");
        asm volatile(
            "{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT;\n}" ::"r"(sbar)
            : "memory");
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kBox * kCols; i += blockDim.x) out[i] = box[i];
}

__global__ void store_box(const __grid_constant__ CUtensorMap map, int row) {
    __shared__ alignas(128) unsigned short box[kBox * kCols];
    for (int i = threadIdx.x; i < kBox * kCols; i += blockDim.x) box[i] = static_cast<unsigned short>(0x8000u | i);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned sbox = static_cast<unsigned>(__cvta_generic_to_shared(box));
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                         reinterpret_cast<unsigned long long>(&map)),
                     "r"(sbox), "r"(0), "r"(row)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

int main(int argc, char** argv) {
    const char* mode = argc == 3 ? argv[1] : "";
    const int row = argc == 3 ? std::atoi(argv[2]) : 0;
    if (argc != 3 || (std::strcmp(mode, "load") && std::strcmp(mode, "store"))) {
        std::fprintf(stderr, "usage: tma_negative_probe load|store ROW\n");
        return 2;
    }
    std::vector<unsigned short> host(kRows * kCols);
    for (int i = 0; i < kRows * kCols; ++i) host[i] = static_cast<unsigned short>(1 + i % 30000);
    unsigned short *tensor = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&tensor, host.size() * 2));
    CHECK(cudaMalloc(&out, kBox * kCols * 2));
    CHECK(cudaMemcpy(tensor, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0xff, kBox * kCols * 2));  // poison: every element must be written

    CUtensorMap map;
    const cuuint64_t dims[2] = {kCols, kRows};
    const cuuint64_t strides[1] = {kCols * 2};
    const cuuint32_t box[2] = {kCols, kBox};
    const cuuint32_t elem[2] = {1, 1};
    const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, tensor, dims, strides, box, elem,
                                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        std::printf("%s %d: FAIL cuTensorMapEncodeTiled %d\n", mode, row, static_cast<int>(r));
        return 1;
    }
    int bad = 0;
    if (!std::strcmp(mode, "load")) {
        load_box<<<1, 128>>>(map, row, out);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::vector<unsigned short> got(kBox * kCols);
        CHECK(cudaMemcpy(got.data(), out, got.size() * 2, cudaMemcpyDeviceToHost));
        for (int i = 0; i < kBox * kCols; ++i) {
            const int r0 = row + i / kCols;
            const unsigned short want = (r0 < 0 || r0 >= kRows) ? 0 : host[r0 * kCols + i % kCols];
            bad += got[i] != want;
        }
    } else {
        store_box<<<1, 128>>>(map, row);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::vector<unsigned short> got(host.size());
        CHECK(cudaMemcpy(got.data(), tensor, got.size() * 2, cudaMemcpyDeviceToHost));
        for (int i = 0; i < kRows * kCols; ++i) {
            const int b = i / kCols - row;  // the box row that lands here
            const unsigned short want = (b >= 0 && b < kBox) ? static_cast<unsigned short>(0x8000u | (b * kCols + i % kCols))
                                                           : host[i];
            bad += got[i] != want;
        }
    }
    std::printf("%s %d: %s (%d elements differ from the bounds rule)\n", mode, row, bad ? "FAIL" : "ok", bad);
    return bad ? 1 : 0;
}
