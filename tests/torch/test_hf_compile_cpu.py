"""attn_implementation="fmhactl" under torch.compile(fullgraph=True) on a CPU (dynamo traces on a
CPU; the op is replaced by a CPU custom op of the same contract that counts its runs, so a count
proves which side of the traced choice ran): unpacked position_ids run the op in every layer,
packed ones (and a padded batch) run SDPA with the mask, and the logits match SDPA's either way."""

from __future__ import annotations

import pytest
import torch

from fmhactl.torch import hf, hf_traced

transformers = pytest.importorskip("transformers")

RUNS = [0]


@torch.library.custom_op("fmhactl_test::attention", mutates_args=())
def cpu_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float | None) -> torch.Tensor:
    """The op's contract in fp32 math: bhsd in and out (stored bshd, as the op's), GQA, causal
    bottom-right aligned."""
    RUNS[0] += 1
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1).float(), v.repeat_interleave(group, dim=1).float()
    s = q.float() @ k.transpose(-1, -2) * (scale if scale is not None else q.shape[-1] ** -0.5)
    if causal:
        t, n = s.shape[-2:]
        s = s.masked_fill(torch.arange(n)[None, :] > torch.arange(t)[:, None] + (n - t), float("-inf"))
    out = torch.softmax(s, dim=-1).nan_to_num(0.0).matmul(v).to(q.dtype)
    return out.transpose(1, 2).contiguous().transpose(1, 2)


@cpu_op.register_fake
def _(q, k, v, causal, scale):
    b, h, t, d = q.shape
    return q.new_empty(b, t, h, d).transpose(1, 2)


@pytest.fixture
def models(monkeypatch):
    from fmhactl.bench.model import ModelSpec, build_models

    monkeypatch.setattr(hf, "_whole_attention", lambda q, k, v, causal, scale: cpu_op(q, k, v, causal, scale)
                        .transpose(1, 2))
    monkeypatch.setattr(hf_traced, "_op_attention", cpu_op)
    torch._dynamo.reset()
    spec = ModelSpec("tiny", 128, 2, 4, 2, 256, 1000, 512)
    built = build_models(spec, ("sdpa", "fmhactl"), torch.float32, device="cpu")
    yield built
    torch._dynamo.reset()


IDS = torch.randint(0, 1000, (2, 12), generator=torch.Generator().manual_seed(1))
PACKED = torch.tensor([[0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8]])


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
@pytest.mark.parametrize("case, op_runs", [("plain", 2), ("given-positions", 2), ("packed", 0)])
def test_compiled_llama_runs_the_op_unless_packed(models, backend, case, op_runs):
    positions = {"plain": None, "given-positions": torch.arange(12).expand(2, -1), "packed": PACKED}[case]
    compiled = torch.compile(models["fmhactl"], fullgraph=True, backend=backend)
    with torch.no_grad():
        want = models["sdpa"](IDS, position_ids=positions, use_cache=False).logits
        compiled(IDS, position_ids=positions, use_cache=False)  # compile (the fake runs, not the op)
        before = RUNS[0]
        got = compiled(IDS, position_ids=positions, use_cache=False).logits
    assert RUNS[0] - before == op_runs  # 2 layers: one op run each, or none when packed
    torch.testing.assert_close(got, want, atol=2e-4, rtol=2e-4)
    if case == "packed":  # packing changes the answer: the SDPA branch really applied the mask
        plain = models["sdpa"](IDS, use_cache=False).logits
        assert (plain[:, 5:] - want[:, 5:]).abs().max() > 1e-3


def test_compiled_padded_batch_takes_sdpa_with_the_mask(models):
    from fmhactl.bench.model import padding_mask

    mask = padding_mask((12, 7), "left", device="cpu")
    compiled = torch.compile(models["fmhactl"], fullgraph=True, backend="aot_eager")
    with torch.no_grad():
        want = models["sdpa"](IDS, attention_mask=mask, use_cache=False).logits
        before = RUNS[0]
        got = compiled(IDS, attention_mask=mask, use_cache=False).logits
    assert RUNS[0] == before
    seen = mask.bool()
    torch.testing.assert_close(got[seen], want[seen], atol=2e-4, rtol=2e-4)


def test_traced_mask_tells_plain_from_packed():
    """The mask hook's device bools, traced: plain causal, bidirectional, and a packed mask function."""
    from transformers.masking_utils import and_masks, causal_mask_function, packed_sequence_mask_function

    hf._load_plain_masks()
    torch._dynamo.reset()

    def decide(packed):
        function = and_masks(causal_mask_function, packed_sequence_mask_function(packed))
        traced = hf.fmhactl_attention_mask(1, 6, 6, mask_function=function, device="cpu")
        return traced.plain_causal, traced.plain_full, traced.mask

    compiled = torch.compile(decide, fullgraph=True, backend="eager")
    causal, full, mask = compiled(torch.zeros(1, 6, dtype=torch.long))
    assert bool(causal) and not bool(full) and torch.equal(mask[0, 0], torch.ones(6, 6, dtype=torch.bool).tril())
    causal, full, mask = compiled(torch.tensor([[0, 0, 0, 1, 1, 1]]))
    assert not bool(causal) and not bool(full) and not bool(mask[0, 0, 4, 2])


def test_kernel_runs_counts_the_op_inside_a_compiled_graph(monkeypatch):
    """check_model(compiled=True)'s proof: the op's registered implementation counts each run of a
    compiled graph (tracing runs the fake, which does not count). The CUDA pieces are replaced by
    CPU stand-ins: the shape rules without the device/dtype rule, the kernel by the reference."""
    from fmhactl.torch import op

    def shapes_only(q, k, v, layout, scale):
        (b, sq, h, d), (_, sk, hkv, _) = op.to_bshd(q, layout).shape, op.to_bshd(k, layout).shape
        return op.Problem(b, h, hkv, sq, sk, d)

    def reference(q, k, v, causal, scale, return_lse, layout, features=None):  # op._general's signature
        out = cpu_op(q, k, v, causal, scale)
        return out, q.new_empty((0,), dtype=torch.float32)

    monkeypatch.setattr(op, "check_inputs", shapes_only)
    monkeypatch.setattr(op, "_general", reference)
    torch._dynamo.reset()
    compiled = torch.compile(lambda q, k, v: torch.ops.fmhactl.attention(q, k, v, causal=True)[0] * 2,
                             fullgraph=True, backend="aot_eager")
    q, k = torch.randn(1, 4, 5, 16), torch.randn(1, 2, 5, 16)
    start = op.kernel_runs()
    first = compiled(q, k, k)  # traces with the fake, then runs once
    assert op.kernel_runs() - start == 1
    compiled(q, k, k)
    assert op.kernel_runs() - start == 2
    torch.testing.assert_close(first, 2 * cpu_op(q, k, k, True, None))


@pytest.mark.parametrize("plain", [True, False])
def test_attention_or_masked_passes_opcheck_and_picks_its_side(monkeypatch, plain):
    """The traced choice's op: fake and real agree (opcheck); plain runs the op, else SDPA with the mask."""
    monkeypatch.setattr(hf_traced, "_op_attention", cpu_op)
    gen = torch.Generator().manual_seed(3)
    q, k, v = torch.randn(2, 4, 6, 16, generator=gen), torch.randn(2, 2, 6, 16, generator=gen), \
        torch.randn(2, 2, 6, 16, generator=gen)
    mask = torch.ones(6, 6, dtype=torch.bool).tril().expand(2, 1, 6, 6).clone()
    mask[1, 0, 4:, :3] = False  # row 1: a second packed sequence from key 3 on
    args = (q, k, v, mask, torch.tensor(plain), True, 0.25)
    torch.library.opcheck(hf_traced.attention_or_masked, args)
    before = RUNS[0]
    got = hf_traced.attention_or_masked(*args)
    assert RUNS[0] - before == (1 if plain else 0)
    full = lambda t: t.repeat_interleave(2, dim=1)  # noqa: E731
    want = torch.nn.functional.scaled_dot_product_attention(q, full(k), full(v), attn_mask=mask if not plain else
                                                            mask[:1].expand(2, 1, 6, 6), scale=0.25)
    torch.testing.assert_close(got, want.transpose(1, 2))
