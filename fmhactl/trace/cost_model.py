"""The B200 cost model of `fmhactl trace`: every number the modeled schedule uses, in ONE table.

No other module holds a hardware number (tests/trace/test_cost_model_one_place.py checks it). Each entry
says where it comes from: a file under /work/shared (reference/*.md, seeds/*.txt), a public NVIDIA
document, or "estimate" when no source we hold gives it. Estimates are the model's weakest part;
they are why the stated error band (ERROR_BAND) is wide. Everything computed from this table is
MODELED, NOT MEASURED: there is no Blackwell GPU anywhere in this project.
"""

from __future__ import annotations

from dataclasses import dataclass

MODEL_LABEL = "modeled, not measured"


@dataclass(frozen=True)
class Cost:
    value: float
    unit: str
    source: str


B200: dict[str, Cost] = {
    "clock_ghz": Cost(1.965, "GHz", "seed 004 (/work/shared/seeds/004*.txt): FA4 B200 runs with clocks locked @ 1965 MHz"),
    "sms": Cost(148, "SMs", "anchors-sm100-fmha.md: FA4 / CUTLASS persistent grid of 148 on B200"),
    "tensor_f16_flop_per_clk_sm": Cost(
        8192, "FLOP/clk/SM",
        "anchors-sm100-fmha.md §7: B200 dense BF16 peak 2.25e15 FLOP/s (FA's MFU denominator) = "
        "8192 x 148 SMs x 1.855 GHz; kind::f16, cta_group::1, M=128"),
    "mma_k": Cost(16, "elements", "tcgen05-spec.md: kind::f16 MMA K is 16 per instruction"),
    "mma_issue_clk": Cost(2, "clk", "estimate: one tcgen05.mma issue from one thread"),
    "tmem_bytes_per_clk_smsp": Cost(
        128, "B/clk per SMSP", "estimate: one 32-bit column of a warp's 32 lanes per clock per sub-partition "
        "(tcgen05.ld/st 32x32b); ±4x"),
    "tmem_latency_clk": Cost(50, "clk", "estimate: tcgen05.ld issue to wait::ld"),
    "tma_bytes_per_clk_sm": Cost(
        64, "B/clk/SM", "estimate: L2-hit TMA fill rate per SM (K/V of one head are shared by every query tile, "
        "so they come from L2); ±2x. FA4's 2-CTA mode halves this traffic per SM (anchors-sm100-fmha.md)"),
    "tma_latency_clk": Cost(600, "clk", "estimate: TMA issue to first bytes in SMEM from L2"),
    "hbm_bytes_per_clk_sm": Cost(
        27.5, "B/clk/SM", "NVIDIA B200 datasheet 8 TB/s HBM3e / 148 SMs / 1.965 GHz; context only: the schedule "
        "uses tma_bytes_per_clk_sm (L2 hits)"),
    "mufu_ex2_per_clk_sm": Cost(
        16, "results/clk/SM", "CUDA C Programming Guide, arithmetic throughput table (exp2/SFU: 16 per clock "
        "per SM, 4 per sub-partition); seed 004: SFU is the hd256 bottleneck on SM100"),
    "fma_f32_per_clk_sm": Cost(128, "results/clk/SM", "CUDA C Programming Guide, arithmetic throughput table "
                                                       "(FP32 FMA: 128 per clock per SM)"),
    "softmax_max_ops_per_element": Cost(
        2, "FP32-pipe ops", "kernels/sm100/fmha_sm100.cuh softmax pass 1: scale (FMUL) and row max (FMNMX)"),
    "softmax_exp_ops_per_element": Cost(
        3, "FP32-pipe ops", "estimate from fmha_sm100.cuh softmax pass 2 / FA4 (anchors-sm100-fmha.md): "
        "scale-subtract FFMA, row-sum FADD, half of a packed bf16 convert, plus the MUFU.EX2"),
    "poly_ex2_fma_ops": Cost(7, "FP32-pipe ops", "seed 004 / anchors-sm100-fmha.md: degree-3 polynomial (3 FMA) "
                                                  "+ floor, fraction and exponent injection"),
    "correction_ops_per_element": Cost(1, "FP32-pipe ops", "estimate: O row rescale, one FMUL per element"),
    "mbarrier_latency_clk": Cost(60, "clk", "estimate: mbarrier arrive to a polling try_wait seeing the phase"),
    "commit_latency_clk": Cost(40, "clk", "estimate: last MMA of a commit group done to its mbarrier arrive"),
    "issue_clk": Cost(4, "clk", "estimate: any other traced operation's own cost on its warp"),
    "error_band": Cost(0.30, "fraction", "stated band of the whole model (±30%): the estimates above, and "
                                         "anchors-sm100-fmha.md notes 5-28% between B200 boxes"),
}


def value(name: str) -> float:
    """One entry of the table (KeyError names the entry)."""
    return B200[name].value


def cycles_to_us(cycles: float) -> float:
    return cycles / (value("clock_ghz") * 1e3)


def table_rows() -> list[dict]:
    """The table for --json and docs: name, value, unit, source."""
    return [{"name": name, "value": c.value, "unit": c.unit, "source": c.source} for name, c in B200.items()]


# The published FA4 B200 forward throughputs the model is checked against (anchor TFLOP/s).
ANCHORS: dict[tuple[int, bool], tuple[float, str]] = {
    (128, False): (1542.0, "anchors-sm100-fmha.md §7 row 3: FA4 2CTA, B200, hd128, non-causal, CUDA 13.x "
                           "(shape not stated)"),
    (256, False): (1438.0, "seed 004 table: FA4 base, B200, bf16, hd256, non-causal, seqlen 4k, "
                           "clocks locked @ 1965 MHz"),
}
