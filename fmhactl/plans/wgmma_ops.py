"""kernels/common/wgmma_ops.cuh: one inline-PTX wrapper per wgmma shape the SM90 family uses.

A wgmma names every accumulator register as its own asm operand (up to 128), which C++ cannot
spell as a loop, so the wrappers are generated (`python -m fmhactl.plans --write`). The shapes
follow the SM90 plan: SS N = every KV tile the plan allows, RS N = every head dim.
"""

from __future__ import annotations

from fmhactl.plans.sm90 import BLOCK_N_CHOICES, HEAD_DIMS

HEADER_PATH = "kernels/common/wgmma_ops.cuh"
# sm90_mqa_decode's extra QK^T shape (its 32-key blocks) in a header of its own: wgmma_ops.cuh is
# part of every SM90 kernel's source, and the evidence of those kernels is tied to their sources.
DECODE_HEADER_PATH = "kernels/common/wgmma_ops_decode.cuh"
# SS (A and B from SMEM): QK^T, N = the KV tile. RS (A from registers): PV, N = the head dim.
SS_N = BLOCK_N_CHOICES
RS_N = HEAD_DIMS
DTYPES = {"bf16": "bf16", "f16": "f16"}

HEADER = """\
// Warpgroup MMA wrappers (sm_90a):
//   wgmma_ss_n<N>_<dt>(d, desc_a, desc_b, accumulate)   D(64xN,f32) (+)= A(64x16,SMEM) * B(16xN,SMEM)
//   wgmma_rs_n<N>_<dt>(d, a, desc_b, accumulate)        A from 4 registers of packed 16-bit pairs
// SS: both operands K-major (tnspA = tnspB = 0). RS: B is MN-major (tnspB = 1): V with the head
// dim contiguous. Accumulator register i of thread t holds row 16*(t/32) + (t%32)/4 + 8*((i/2)%2),
// column 8*(i/4) + 2*(t%4) + i%2 (the layout the softmax code indexes).
#pragma once

"""


def _regs(n: int, first: int) -> str:
    return ", ".join(f"%{first + i}" for i in range(n))


def _outs(n: int) -> str:
    return ", ".join(f'"+f"(d[{i}])' for i in range(n))


def ss(n: int, dt: str) -> str:
    r = n // 2
    return f"""__device__ __forceinline__ void wgmma_ss_n{n}_{dt}(float (&d)[{r}], unsigned long long desc_a,
                                                 unsigned long long desc_b, int accumulate) {{
    asm volatile(
        "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n"
        "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{dt}.{dt} "
        "{{{_regs(r, 0)}}}, %{r}, %{r + 1}, p, 1, 1, 0, 0;\\n}}\\n"
        : {_outs(r)}
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}}

"""


def rs(n: int, dt: str) -> str:
    r = n // 2
    return f"""__device__ __forceinline__ void wgmma_rs_n{n}_{dt}(float (&d)[{r}], const unsigned (&a)[4],
                                                 unsigned long long desc_b, int accumulate) {{
    asm volatile(
        "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 5}, 0;\\n"
        "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{dt}.{dt} "
        "{{{_regs(r, 0)}}}, {{%{r}, %{r + 1}, %{r + 2}, %{r + 3}}}, %{r + 4}, p, 1, 1, 1;\\n}}\\n"
        : {_outs(r)}
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
}}

"""


def dispatch(ss_n: tuple[int, ...] = SS_N, rs_n: tuple[int, ...] = RS_N) -> str:
    """Templates WgmmaSS<N, F16>::run / WgmmaRS<N, F16>::run so kernels pick a shape at compile time."""
    out = ["template <int N, bool F16> struct WgmmaSS;\ntemplate <int N, bool F16> struct WgmmaRS;\n"]
    for dt, f16 in (("bf16", "false"), ("f16", "true")):
        for n in ss_n:
            out.append(f"template <> struct WgmmaSS<{n}, {f16}> {{\n"
                       f"    static __device__ __forceinline__ void run(float (&d)[{n // 2}], unsigned long long a,"
                       f" unsigned long long b, int acc) {{ wgmma_ss_n{n}_{dt}(d, a, b, acc); }}\n}};\n")
        for n in rs_n:
            out.append(f"template <> struct WgmmaRS<{n}, {f16}> {{\n"
                       f"    static __device__ __forceinline__ void run(float (&d)[{n // 2}], const unsigned (&a)[4],"
                       f" unsigned long long b, int acc) {{ wgmma_rs_n{n}_{dt}(d, a, b, acc); }}\n}};\n")
    return "".join(out)


def render(ss_n: tuple[int, ...] = SS_N, rs_n: tuple[int, ...] = RS_N, header: str = HEADER) -> str:
    parts = [header]
    for dt in DTYPES:
        parts += [ss(n, dt) for n in ss_n]
        parts += [rs(n, dt) for n in rs_n]
    parts.append(dispatch(ss_n, rs_n))
    return "".join(parts)


def render_decode() -> str:
    """kernels/common/wgmma_ops_decode.cuh: the SS shape of sm90_mqa_decode's QK^T (N = its block
    of keys) that wgmma_ops.cuh lacks; its PV shape (m64n256 RS) is wgmma_ops.cuh's. Included after
    wgmma_ops.cuh: the class templates are declared again (legal), the specialisations are new."""
    from fmhactl.plans import sm90_decode

    extra = tuple(n for n in (sm90_decode.BLOCK_N,) if n not in SS_N)
    note = "// sm90_mqa_decode's extra shapes (fmhactl/plans/sm90_decode.py), beside wgmma_ops.cuh's.\n"
    return render(extra, (), note + HEADER)
