"""The split-KV decode path on a GPU: out and LSE through the op against explicit math under
FlashAttention's rule, fresh inputs per case, outputs allocated over NaN-poisoned memory, with the
splits merged in the split launch (fused: the cluster kernel and the plain one; counters back at 0
after every launch) and by a second launch; CUDA graph capture, torch.compile(fullgraph=True), a growing cache on one plan, and greedy decoding of a model
with transformers' KV cache (teacher-forced logits under the rule)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.gpu

# (batch, heads, heads_kv, seq_q, seq_k, dim, causal, layout, dtype, cache capacity (0: exact))
CASES = (
    (1, 32, 8, 1, 2048, 128, False, "bhsd", "bf16", 0),     # GQA 4, one token, several splits
    (1, 16, 4, 4, 8191, 64, True, "bhsd", "bf16", 0),       # causal T=4, odd length
    (2, 32, 8, 16, 4097, 128, True, "bshd", "f16", 0),      # 64 packed rows: 4 row groups
    (1, 8, 1, 3, 200, 64, True, "bhsd", "bf16", 0),         # MQA group 8: 24 rows, a partial group
    (3, 8, 8, 1, 63, 128, False, "bhsd", "bf16", 0),        # MHA, one split (no combine)
    (1, 4, 4, 16, 16, 64, True, "bhsd", "bf16", 0),         # T == S causal
    (1, 8, 2, 1, 1, 128, False, "bhsd", "f16", 0),          # one key
    (1, 4, 2, 8, 5, 64, True, "bhsd", "bf16", 0),           # T > S causal: rows that see no key
    (1, 32, 8, 1, 32768, 128, False, "bhsd", "bf16", 0),    # long cache
    (2, 16, 4, 1, 1000, 128, False, "bhsd", "bf16", 4096),  # a static cache's view (long strides)
    (1, 64, 8, 16, 5000, 128, True, "bshd", "bf16", 0),     # group 8 x 16 tokens: 8 row groups
    (4, 16, 4, 2, 32768, 64, True, "bshd", "f16", 0),       # hd64 splits of ~2k keys: each warp's ring wraps
    (1, 16, 1, 1, 40000, 256, False, "bshd", "bf16", 0),    # 16 rows x hd256, ~36 splits: the merge's staging ring wraps
    (1, 32, 8, 4, 32768, 128, True, "bshd", "bf16", 0),     # 16 rows x hd128 per group, many splits: staged in rounds
    (1, 16, 1, 1, 900, 128, False, "bhsd", "bf16", 0),      # the cluster kernel's short splits: 15 of 64 keys, 2 clusters
    (1, 16, 1, 1, 500, 128, False, "bhsd", "bf16", 0),      # the cluster kernel: one cluster holds every split
)


def _dtype(name: str):
    import torch

    return {"bf16": torch.bfloat16, "f16": torch.float16}[name]


def _inputs(case, seed: int):
    import torch

    b, h, hkv, sq, sk, d, causal, layout, dtype, capacity = case
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def draw(seq: int, heads: int, room: int):
        dims = (b, heads, room, d) if layout == "bhsd" else (b, room, heads, d)
        t = torch.randn(*dims, generator=gen, device="cuda").to(_dtype(dtype))
        return t[:, :, :seq] if layout == "bhsd" else t[:, :seq]

    return draw(sq, h, sq), draw(sk, hkv, capacity or sk), draw(sk, hkv, capacity or sk)


def _poison() -> None:
    """Fill freed allocator blocks with NaN so that an output element the kernels skip shows up."""
    import torch

    for numel in (1 << 12, 1 << 16, 1 << 20, 1 << 23):
        torch.full((numel,), float("nan"), device="cuda")


def _check(case, out, lse, q, k, v) -> dict:
    return check_rule(case[6], case[7], out, lse, q, k, v)


def check_rule(causal: bool, layout: str, out, lse, q, k, v) -> dict:
    """FlashAttention's rule on out (fp32 and low-precision references) plus the LSE rule."""
    import torch

    from fmhactl.torch.checks import _reference, _rule, lse_rule

    ref32, lse32 = _reference(q, k, v, causal, layout, torch.float32)
    low, _ = _reference(q, k, v, causal, layout, q.dtype)
    _, lse64 = _reference(q, k, v, causal, layout, torch.float64)
    return lse_rule(_rule(out, ref32, low), lse, lse32, lse64)


@pytest.fixture(params=["fused", "fused-plain", "launch"])
def combine(request, monkeypatch):
    """The splits merged inside the split launch (the default: the cluster kernel from
    CLUSTER_MIN_SPLITS splits on), inside the plain split launch at every split count, or by a
    second launch."""
    from fmhactl.torch import decode

    decode.clear()  # plans built again: each build tops up the spare counters a capture stream takes
    decode.set_fused_combine(request.param != "launch")
    if request.param == "fused-plain":
        monkeypatch.setattr(decode, "CLUSTER_MIN_SPLITS", 1 << 30)
    yield request.param
    decode.set_fused_combine(True)


def _counters_all_zero() -> bool:
    """Every fused-merge counter is back at 0 (each launch's last CTAs reset theirs)."""
    import torch

    from fmhactl.torch import decode

    torch.cuda.synchronize()
    return all(not bool(t.any()) for kept in decode._counters.values() for t in kept)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_decode_path_matches_explicit_math(case, combine):
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch import decode

    for seed in (1, 2):  # fresh inputs; the second call runs the cached plan
        q, k, v = _inputs(case, 100 * seed + case[4])
        before = decode.launches()
        _poison()
        with torch.no_grad():
            out, lse = ft.attention(q, k, v, causal=case[6], layout=case[7], return_lse=True)
        assert decode.launches() == before + 1, "the decode kernels did not serve the call"
        rule = _check(case, out, lse, q, k, v)
        assert rule["passed"], json.dumps(rule)
        if combine == "fused-plain":  # the plain kernel's fused merge, whatever the split count
            assert decode._plans[decode.plan_key(q, k, case[6], None, True, case[7])].splits.cluster is None
    assert _counters_all_zero()


def test_the_cases_take_every_merge():
    """CASES reach one split, the plain kernel's splits and the cluster kernel's on this GPU, with one
    cluster (O written by the cluster merge) and with several (the clusters' second-level merge);
    the cluster kernel's choice depends on the clusters it holds at once."""
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch import decode

    kinds = set()
    for case in CASES:
        q, k, v = _inputs(case, 7)
        with torch.no_grad():
            ft.attention(q, k, v, causal=case[6], layout=case[7], return_lse=True)
        launch = decode._plans[decode.plan_key(q, k, case[6], None, True, case[7])].splits
        if launch.cluster is not None:
            kinds.add("one cluster" if launch.cluster.n_splits <= decode.CLUSTER else "clusters")
        else:
            kinds.add("split" if launch.plain.n_splits > 1 else "one")
    assert kinds == {"one", "split", "one cluster", "clusters"}


def test_dispatcher_path_and_opcheck_take_the_decode_kernels():
    import torch

    from fmhactl.torch import decode

    case = (1, 16, 4, 2, 3000, 128, True, "bhsd", "bf16", 0)
    q, k, v = _inputs(case, 5)
    before = decode.launches()
    out, lse = torch.ops.fmhactl.attention(q, k, v, causal=True, return_lse=True)
    assert decode.launches() == before + 1
    assert _check(case, out, lse, q, k, v)["passed"]
    report = torch.library.opcheck(torch.ops.fmhactl.attention.default, (q, k, v), {"causal": True,
                                                                                    "return_lse": True})
    assert all(r == "SUCCESS" for r in report.values()), report


def test_a_growing_cache_reuses_one_plan():
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch import decode

    decode.clear()
    gen = torch.Generator(device="cuda").manual_seed(3)
    q = torch.randn(1, 16, 1, 64, generator=gen, device="cuda").to(torch.bfloat16)
    cache = torch.randn(2, 1, 4, 3000, 64, generator=gen, device="cuda").to(torch.bfloat16)
    for length in range(2000, 2050):
        k, v = cache[0, :, :, :length], cache[1, :, :, :length]
        out, lse = ft.attention(q, k, v, return_lse=True)
    assert sum(p is not None for p in decode._plans.values()) == 1
    full = (1, 16, 4, 1, 2049, 64, False, "bhsd", "bf16", 0)
    assert _check(full, out, lse, q, k, v)["passed"]


@pytest.mark.parametrize("d", [128, 80, 96, 256])  # 80/96 on the hd128 kernel masked, 256 its own
def test_cuda_graph_capture_of_a_decode_step_replays_with_new_inputs(combine, d):
    import torch

    from fmhactl.torch import decode
    from fmhactl.torch.checks import _reference, _rule

    case = (1, 32, 8, 1, 6000, d, False, "bhsd", "bf16", 0)
    q, k, v = _inputs(case, 7)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        torch.ops.fmhactl.attention(q, k, v)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    capture = torch.cuda.Stream()  # first seen inside the capture: the fused merge takes a spare buffer
    with torch.cuda.graph(graph, stream=capture):
        out, _ = torch.ops.fmhactl.attention(q, k, v)
    assert ((q.device.index, capture.cuda_stream) in decode._counters) == (combine != "launch")
    for seed in (8, 9):
        q2, k2, v2 = _inputs(case, seed)
        q.copy_(q2), k.copy_(k2), v.copy_(v2)
        graph.replay()
        torch.cuda.synchronize()
        rule = _rule(out, _reference(q, k, v, False, "bhsd", torch.float32)[0],
                     _reference(q, k, v, False, "bhsd", torch.bfloat16)[0])
        assert rule["passed"], json.dumps(rule)
    assert _counters_all_zero()  # replays reset what they count


def test_compile_fullgraph_runs_the_decode_kernels():
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch import decode

    case = (1, 16, 4, 1, 4000, 128, False, "bhsd", "bf16", 0)
    q, k, v = _inputs(case, 11)

    @torch.compile(fullgraph=True)
    def step(q, k, v):
        return ft.attention(q, k, v) * 2.0

    step(q, k, v)
    before = decode.launches()
    got = step(q, k, v)
    assert decode.launches() == before + 1
    with torch.no_grad():
        want = ft.attention(q, k, v) * 2.0
    assert torch.equal(got, want)


def test_greedy_decoding_with_the_kv_cache_runs_the_decode_kernels():
    pytest.importorskip("transformers")
    import torch

    from fmhactl.bench.greedy import greedy_entry
    from fmhactl.bench.model import build_models, get_spec

    spec = get_spec("llama-small")
    models = build_models(spec, ("sdpa", "fmhactl"), torch.bfloat16)
    ref32 = build_models(spec, ("sdpa",), torch.bfloat16)["sdpa"].float()
    ids = torch.randint(0, spec.vocab_size, (1, 300), device="cuda")
    entry = greedy_entry(models, ref32, ids, tokens=16, repeats=1)
    assert entry["logits"]["passed"], json.dumps(entry["logits"])
    assert entry["decode_calls"] == 16 * spec.num_hidden_layers  # every cached step, every layer


@pytest.mark.parametrize("side, seq_q, causal", [("left", 1, True), ("left", 4, True), ("right", 1, True),
                                                  ("left", 16, True), ("left", 3, False), ("right", 40, True),
                                                  ("left", 64, True)])
def test_a_padded_decode_step_is_one_launch(side, seq_q, causal):
    """transformers' padded batch (each row an interval of valid keys) as one launch with per-row
    key ranges, against the row-by-row construction over explicit math."""
    import torch

    from fmhactl.torch import decode
    from fmhactl.torch.checks import _reference, _rule
    from fmhactl.torch.hf import PaddedBatch, padded_attention

    b, h, hkv, d, total = 4, 16, 4, 128, 700
    lengths = (700, 520, 300, 33)
    rows = tuple((total - n, total) if side == "left" else (0, n) for n in lengths)
    gen = torch.Generator(device="cuda").manual_seed(seq_q)
    q = torch.randn(b, h, seq_q, d, generator=gen, device="cuda").to(torch.bfloat16)
    k, v = (torch.randn(b, hkv, total, d, generator=gen, device="cuda").to(torch.bfloat16) for _ in range(2))
    batch = PaddedBatch(rows, total - seq_q, causal)
    before = decode.launches()
    _poison()
    got = padded_attention(q, k, v, batch, None)
    assert decode.launches() == before + 1

    def reference(dtype):
        return padded_attention(q, k, v, batch, None,
                                attend=lambda qq, kk, vv, c, s: _reference(qq, kk, vv, c, "bhsd", dtype)[0])

    rule = _rule(got, reference(torch.float32), reference(torch.bfloat16))
    assert rule["passed"], json.dumps(rule)
