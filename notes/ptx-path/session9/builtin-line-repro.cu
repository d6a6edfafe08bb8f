__device__ unsigned sink_;
__device__ __noinline__ void rec(unsigned s) { sink_ = s; }
template <int N> constexpr int regs() { return N; }
template <int N, int Imm = regs<N>()>
__device__ __forceinline__ void tpl(unsigned (&r)[regs<N>()], unsigned site = __builtin_LINE()) { rec(site + r[0]); }
template <int N>
__device__ __forceinline__ void tplb(unsigned (&r)[N], unsigned site = __builtin_LINE()) { rec(site + r[0]); }
__global__ void k(unsigned x) {
    unsigned r[4] = {x, x, x, x};
    auto lam = [&]() {
        tpl<4>(r);      // line 11
    };
    lam();
    tpl<4>(r);      // line 14
    tplb<4>(r);     // line 15
}
