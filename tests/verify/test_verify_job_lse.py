"""The worker's verify job, CPU-side: a kernel whose LSE row is NaN or +inf fails `verify`.

A stand-in executor (torch CPU tensors, the same inputs and poisoned outputs as the real one)
"launches" a kernel that writes the reference's O and LSE and then spoils one LSE row; the real
verify_job (the code the worker runs) reference-computes and compares.
"""

import pytest

torch = pytest.importorskip("torch")

from fmhactl.config import AttnConfig, parse_shape  # noqa: E402
from fmhactl.runtime.execute import POISON_16, POISON_32  # noqa: E402
from fmhactl.runtime.kernel_job import KernelJob  # noqa: E402
from fmhactl.verify.job import verify_job  # noqa: E402
from fmhactl.verify.reference import attention_for  # noqa: E402


class CpuKernel:
    """Executor stand-in: make_inputs/poisoned_outputs like runtime/execute.Executor, on the CPU;
    launch writes a correct result (or one that ignores the feature named by `drop`), then applies
    `spoil` to the LSE."""

    def __init__(self, spoil, drop: str = ""):
        self.spoil, self.drop = spoil, drop

    @staticmethod
    def make_inputs(cfg: AttnConfig, seed: int, heads_first: bool = False):
        gen = torch.Generator().manual_seed(seed)

        def draw(seq, heads):
            return torch.randn(cfg.batch, seq, heads, cfg.head_dim, generator=gen).bfloat16()

        q, k = draw(cfg.seq_q, cfg.heads), draw(cfg.seq_k, cfg.heads_kv)
        return q, k, (k if cfg.kv_shared else draw(cfg.seq_k, cfg.heads_kv))

    @staticmethod
    def poisoned_outputs(cfg: AttnConfig):
        o = torch.empty(cfg.batch, cfg.seq_q, cfg.heads, cfg.head_dim, dtype=torch.bfloat16)
        o.view(torch.int16).fill_(POISON_16)
        lse = torch.empty(cfg.batch, cfg.heads, cfg.seq_q, dtype=torch.float32)
        lse.view(torch.int32).fill_(POISON_32)
        return o, lse

    def launch(self, job, cfg, q, k, v, o, lse, features=None):
        if self.drop == "window":
            cfg = AttnConfig(**{**cfg.to_dict(), "window_left": -1, "window_right": -1})
        out, ref_lse = attention_for(cfg, q, k, v, features, compute_dtype=torch.float32,
                                     with_sinks=self.drop != "sink")
        o.copy_(out.to(o.dtype))
        lse.copy_(ref_lse)
        self.spoil(lse)

    def synchronize(self, job):
        pass

    def tmem_sharing(self, job):
        return {}


def _job(shape: str) -> KernelJob:
    cfg = parse_shape(shape)
    return KernelJob(op="verify", variant="cpu", kernel="cpu", cubin="", launcher="sm100", switches={}, config=cfg,
                     seed=7, mode="native", options={"layout": "bthd"})


def _set_row(value):
    def spoil(lse):
        lse[0, 1, :] = value
    return spoil


def test_a_correct_kernel_passes_the_verify_job():
    reply = verify_job(CpuKernel(lambda lse: None), _job("b=1,h=2,t=40,s=48,d=64"))
    assert reply["status"] == "PASS", reply["metrics"]["reasons"]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_kernel_whose_lse_row_is_not_finite_fails_verify(value):
    reply = verify_job(CpuKernel(_set_row(value)), _job("b=1,h=2,t=40,s=48,d=64"))
    metrics = reply["metrics"]
    assert reply["status"] == "FAIL"
    assert metrics["lse_inf_mismatch"] == 40 and metrics["lse_bad_rows"][0] == [0, 1, 0]
    assert any("(b=0, h=1, t=0)" in r for r in metrics["reasons"])


def test_a_finite_lse_on_a_fully_masked_row_fails_verify():
    def spoil(lse):
        assert bool(torch.isneginf(lse[0, 0, 0]))  # causal, t > s: row 0 sees no key
        lse[0, 0, 0] = 0.0
    reply = verify_job(CpuKernel(spoil), _job("b=1,h=2,t=40,s=24,d=64,causal"))
    assert reply["status"] == "FAIL"
    assert any("fully masked row" in r and "(b=0, h=0, t=0) finite" in r for r in reply["metrics"]["reasons"])


# ---- the features (docs/features.md): verify hands the kernel and the reference the same inputs

DSV4_LIKE = "b=1,h=4,hkv=1,t=24,s=40,d=16,causal,wl=7,sink,kvshared"


@pytest.mark.parametrize("shape", [DSV4_LIKE, "b=1,h=3,hkv=1,t=6,s=30,d=16,topk=12,sink"])
def test_a_kernel_that_honours_every_feature_passes_verify(shape):
    reply = verify_job(CpuKernel(lambda lse: None), _job(shape))
    assert reply["status"] == "PASS", reply["metrics"]["reasons"]


@pytest.mark.parametrize("drop", ["window", "sink"])
def test_a_kernel_that_drops_a_feature_fails_verify(drop):
    reply = verify_job(CpuKernel(lambda lse: None, drop=drop), _job(DSV4_LIKE))
    assert reply["status"] == "FAIL"
    assert any("max|out-ref|" in r or "LSE" in r or "lse" in r for r in reply["metrics"]["reasons"])
