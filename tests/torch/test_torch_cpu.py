"""CPU-only checks of fmhactl.torch: registration, fake-tensor shapes, tracing, errors, backend choice,
the autograd fallback's math, and the transformers registration (when transformers is installed)."""

from __future__ import annotations

import dataclasses

import subprocess
import sys
from types import SimpleNamespace

import pytest
import torch

import fmhactl.torch as ft
from fmhactl.config import AttnConfig
from fmhactl.registry import load_registry
from fmhactl.torch import backends
from fmhactl.torch.op import AttentionInputError


def meta(*shape, dtype=torch.bfloat16):
    return torch.empty(*shape, dtype=dtype, device="meta")


def test_op_is_registered_with_its_schema():
    schema = str(torch.ops.fmhactl.attention.default._schema)
    assert schema.startswith("fmhactl::attention(Tensor q, Tensor k, Tensor v, Tensor? sinks=None, Tensor? topk_idx=None, "
                             "Tensor? key_ranges=None, "
                             "*, bool causal=False, float? scale=None, bool return_lse=False, str layout=\"bhsd\", "
                             "int window_left=-1, int window_right=-1, bool kv_shared=False)")
    assert schema.endswith("-> (Tensor, Tensor)")


def test_cli_does_not_import_torch():
    code = ("import sys, fmhactl.cli.app as a; a.build_app() if hasattr(a, 'build_app') else None; "
            "print('torch' in sys.modules, 'fmhactl.torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
@pytest.mark.parametrize("heads_kv", [8, 2, 1])
@pytest.mark.parametrize("return_lse", [False, True])
def test_fake_shapes(layout, heads_kv, return_lse):
    b, h, sq, sk, d = 2, 8, 17, 45, 64
    shape = (lambda s, n: (b, n, s, d)) if layout == "bhsd" else (lambda s, n: (b, s, n, d))
    q, k = meta(*shape(sq, h)), meta(*shape(sk, heads_kv))
    out, lse = torch.ops.fmhactl.attention(q, k, k, causal=True, return_lse=return_lse, layout=layout)
    assert out.shape == q.shape and out.dtype == q.dtype
    # Stored (batch, seq, heads, dim) whatever the layout: the transformers path needs no copy.
    assert out.transpose(1, 2).is_contiguous() if layout == "bhsd" else out.is_contiguous()
    assert lse.shape == ((b, h, sq) if return_lse else (0,)) and lse.dtype == torch.float32


def test_fake_tensor_mode_with_cuda_tensors():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        q = torch.empty(3, 5, 4, 128, dtype=torch.float16, device="cuda")
        k = torch.empty(3, 9, 2, 128, dtype=torch.float16, device="cuda")
        out, lse = torch.ops.fmhactl.attention(q, k, k, return_lse=True, layout="bshd")
        assert out.shape == (3, 5, 4, 128) and out.device.type == "cuda" and lse.shape == (3, 4, 5)


def test_traces_under_compile_fullgraph_with_dynamic_shapes():
    torch._dynamo.reset()

    def fn(q, k, v):
        return ft.attention(q, k, v, causal=True) * 2

    compiled = torch.compile(fn, fullgraph=True, backend="aot_eager", dynamic=True)
    for sq, sk in ((7, 19), (33, 64)):
        out = compiled(meta(2, 8, sq, 64), meta(2, 2, sk, 64), meta(2, 2, sk, 64))
        assert out.shape == (2, 8, sq, 64)


def test_exports_with_a_dynamic_sequence_length():
    class Attn(torch.nn.Module):
        def forward(self, q, k, v):
            return ft.attention(q, k, v, causal=True, layout="bshd")

    seq = torch.export.Dim("seq", min=2, max=4096)
    ep = torch.export.export(Attn(), (meta(1, 16, 8, 64), meta(1, 16, 2, 64), meta(1, 16, 2, 64)),
                             dynamic_shapes=({1: seq}, {1: seq}, {1: seq}))
    assert "torch.ops.fmhactl.attention.default" in ep.graph_module.code
    out = [n for n in ep.graph.nodes if n.op == "output"][0].args[0][0].meta["val"]
    assert str(out.shape[1]) == "s0" or not isinstance(out.shape[1], int)


@pytest.mark.parametrize("make, rule", [
    (lambda: (meta(1, 2, 8, 64, dtype=torch.float32),) * 3, "dtype torch.float32"),
    (lambda: (meta(1, 2, 8, 60),) * 3, "head dim 60 not supported"),
    (lambda: (meta(1, 3, 8, 64), meta(1, 2, 8, 64), meta(1, 2, 8, 64)), "multiple of k/v heads"),
    (lambda: (meta(1, 2, 8, 64), meta(1, 2, 8, 64), meta(1, 2, 9, 64)), "same shape"),
    (lambda: (meta(2, 8, 64),) * 3, "must be 4-D"),
    (lambda: (torch.zeros(1, 2, 8, 64, dtype=torch.bfloat16),) * 3, "need CUDA tensors"),
    (lambda: (meta(1, 2, 8, 64), meta(1, 2, 8, 64, dtype=torch.float16), meta(1, 2, 8, 64)), "one dtype"),
])
def test_unsupported_inputs_give_one_line(make, rule):
    with pytest.raises(AttentionInputError) as info:
        torch.ops.fmhactl.attention(*make())
    message = str(info.value)
    assert rule in message and "\n" not in message and message.startswith("fmhactl.attention: ")


def test_bad_layout_and_scale():
    q = meta(1, 2, 8, 64)
    with pytest.raises(AttentionInputError, match="layout must be one of"):
        torch.ops.fmhactl.attention(q, q, q, layout="sbhd")
    with pytest.raises(AttentionInputError, match="scale must be a positive"):
        torch.ops.fmhactl.attention(q, q, q, scale=-1.0)


# ---- backend choice (pure: no GPU needed) ----------------------------------------------------------

REG = load_registry()
CFG = AttnConfig(batch=1, heads=16, heads_kv=4, seq_q=100, seq_k=100, head_dim=64, dtype="bf16", causal=True)


def test_hopper_uses_ref_until_the_sm90_family_is_registered():
    registry = {k: v for k, v in REG.items() if not k.startswith("sm90_")}
    chosen = backends.choose((9, 0), CFG, registry)
    assert (chosen.variant, chosen.arch, chosen.mode) == ("ref", "sm_90a", "native")
    assert "sm90_persistent" in chosen.reason


def test_hopper_prefers_the_persistent_sm90_variant_where_it_runs():
    assert backends.choose((9, 0), CFG, REG).variant == "sm90_persistent"
    # hd256 is not built persistent: the ping-pong variant takes it.
    assert backends.choose((9, 0), AttnConfig(head_dim=256, heads=4), REG).variant == "sm90_pingpong"
    # A head dim the native family does not take is padded to one it does (test_head_dim_padding_cpu.py);
    # where no native variant takes any wider head dim either, ref runs it, saying why.
    chosen = backends.choose((9, 0), AttnConfig(head_dim=96, heads=4), REG)
    assert (chosen.variant, chosen.padded_head_dim) == ("sm90_persistent", 128)
    chosen = backends.choose((9, 0), AttnConfig(head_dim=136, heads=4), {k: REG[k] for k in ("ref", "sm90_persistent")})
    assert chosen.variant == "ref" and "sm90_persistent: head_dim 136" in chosen.reason


@pytest.mark.parametrize("seq_q, causal, hd, expected", [
    (4096, False, 64, "sm90_persistent_m192"),
    (1024, False, 64, "sm90_persistent_m192"),   # 5 full tiles and one of 64 rows: its spare WGs pass
    (512, False, 64, "sm90_persistent_m192"),    # the shortest measured to gain (call 3 of session 15)
    (197, False, 64, "sm90_persistent"),         # one tile and a sliver: 128-row tiles were faster
    (4096, True, 64, "sm90_persistent_m192"),
    (1024, True, 64, "sm90_persistent_m192"),    # causal tiles end at seq_q since session 18
    (512, True, 64, "sm90_persistent_m192"),
    (197, True, 64, "sm90_persistent"),
    (4096, True, 128, "sm90_persistent"),        # no hd128 build of the 192-row tile
])
def test_hopper_takes_the_192_row_tile_from_enough_queries(seq_q, causal, hd, expected):
    cfg = AttnConfig(batch=8, heads=16, heads_kv=16, seq_q=seq_q, seq_k=seq_q, head_dim=hd, causal=causal)
    assert backends.choose((9, 0), cfg, REG).variant == expected


@pytest.mark.parametrize("seq_q, seq_k, causal, hd, expected", [
    (4096, 4096, False, 128, "sm90_pingpong"),      # measured faster on long non-causal KV loops
    (8192, 8192, False, 128, "sm90_pingpong"),
    (512, 8192, False, 96, "sm90_pingpong"),        # padded to the d128 kernel: the same loop
    (4096, 4096, True, 128, "sm90_persistent"),     # causal: the persistent schedule wins
    (512, 512, False, 128, "sm90_persistent"),      # short KV loops: the persistent one wins
    (4096, 2048, False, 128, "sm90_persistent"),    # below PINGPONG_MIN_SEQ_K: not measured to gain
    (64, 8192, False, 128, "sm90_persistent"),      # less than one query tile
    (4096, 4096, False, 64, "sm90_persistent_m192"),  # hd64 keeps the 192-row tile
])
def test_hopper_takes_pingpong_for_long_non_causal_hd128_loops(seq_q, seq_k, causal, hd, expected):
    cfg = AttnConfig(batch=8, heads=16, heads_kv=16, seq_q=seq_q, seq_k=seq_k, head_dim=hd, causal=causal)
    chosen = backends.choose((9, 0), cfg, REG)
    assert chosen.variant == expected
    # backend_for says which measured rule put a kernel first, and only then
    assert ("ping-pong first" in chosen.reason) == (expected == "sm90_pingpong")
    with_sink = dataclasses.replace(cfg, sink=True)  # a feature call keeps the `_feat` order
    assert "sm90_pingpong" not in backends.preferences((9, 0), with_sink)[:1]


@pytest.mark.parametrize("features, hd, seq_q, expected", [
    (dict(sink=True), 64, 4096, "sm90_persistent_m192_feat"),
    (dict(window_left=127, window_right=0), 64, 1024, "sm90_persistent_m192_feat"),
    (dict(kv_shared=True), 64, 512, "sm90_persistent_m192_feat"),
    (dict(sink=True), 64, 197, "sm90_persistent_feat"),    # too few queries for 192-row tiles
    (dict(sink=True), 128, 4096, "sm90_persistent_feat"),  # no hd128 build of the 192-row tile
])
def test_feature_calls_take_the_192_row_tile_with_the_features_built_in(features, hd, seq_q, expected):
    cfg = AttnConfig(batch=8, heads=16, heads_kv=16, seq_q=seq_q, seq_k=seq_q, head_dim=hd, causal=True, **features)
    assert "sm90_persistent_m192" not in backends.preferences((9, 0), cfg)  # the plain one has no feature
    assert backends.choose((9, 0), cfg, REG).variant == expected


def test_top_k_calls_skip_the_192_row_tile():
    cfg = AttnConfig(batch=1, heads=16, heads_kv=1, seq_q=1024, seq_k=4096, head_dim=64, causal=True, topk=64)
    assert backends.choose((9, 0), cfg, REG).variant == "sm90_mqa_gather"


def test_blackwell_uses_the_native_sm100_family():
    chosen = backends.choose((10, 0), CFG, REG)
    assert (chosen.variant, chosen.arch, chosen.mode) == ("sm100_tma_s2_tmem", "sm_100a", "native")


def test_emulation_only_when_named():
    auto = backends.choose((9, 0), CFG, {k: v for k, v in REG.items() if not k.startswith("sm90_")})
    assert auto.mode == "native"
    forced = backends.choose((9, 0), CFG, REG, override="sm100_tma_s2_tmem")
    assert (forced.mode, forced.arch, forced.reason) == ("emulated", "sm_90a", "override")


def test_other_gpus_use_ref_and_bad_overrides_are_refused():
    assert backends.choose((8, 0), CFG, REG).variant == "ref"
    with pytest.raises(backends.NoBackend, match="not a variant"):
        backends.choose((9, 0), CFG, REG, override="nope")
    with pytest.raises(backends.NoBackend, match="no sm_80 build"):
        backends.choose((8, 0), CFG, REG, override="sm100_tma_s2_tmem")


def test_use_backend_restores_the_previous_override(monkeypatch):
    monkeypatch.delenv(backends.BACKEND_ENV, raising=False)
    assert backends.current_override() is None
    with ft.use_backend("ref"):
        assert backends.current_override() == "ref"
    assert backends.current_override() is None
    monkeypatch.setenv(backends.BACKEND_ENV, "sm100_direct_tmem")
    assert backends.current_override() == "sm100_direct_tmem"


@pytest.mark.parametrize("value", [None, "", "ref", "sm100_direct_tmem"])
def test_the_environment_override_reads_as_os_environ_get(monkeypatch, value):
    """current_override reads os.environ's own dict: the same answer as os.environ.get, and
    os.environ.get itself once os.environ is another object."""
    import os

    if value is None:
        monkeypatch.delenv(backends.BACKEND_ENV, raising=False)
    else:
        monkeypatch.setenv(backends.BACKEND_ENV, value)
    assert backends.current_override() == (os.environ.get(backends.BACKEND_ENV) or None)
    monkeypatch.setattr(os, "environ", {backends.BACKEND_ENV: "sm90_pingpong"})
    assert backends.current_override() == "sm90_pingpong"


# ---- autograd fallback math vs torch autograd of explicit attention -----------------------------

@pytest.mark.parametrize("layout, causal, sq, sk, h, hkv, lse", [
    ("bhsd", True, 5, 9, 4, 2, False), ("bshd", False, 7, 7, 2, 1, True), ("bhsd", True, 9, 4, 2, 2, True)])
def test_backward_formula_matches_autograd(layout, causal, sq, sk, h, hkv, lse):
    from fmhactl.torch.op import _backward, to_bshd
    from fmhactl.verify.reference import attention as reference

    torch.manual_seed(0)
    dims = (lambda s, n: (2, n, s, 16)) if layout == "bhsd" else (lambda s, n: (2, s, n, 16))
    q, k, v = (torch.randn(*dims(s, n), dtype=torch.float64, requires_grad=True)
               for s, n in ((sq, h), (sk, hkv), (sk, hkv)))
    out, lse_ref = reference(to_bshd(q, layout), to_bshd(k, layout), to_bshd(v, layout), causal=causal,
                             compute_dtype=torch.float64)
    out = to_bshd(out, layout)
    g_out = torch.randn_like(out)
    g_lse = torch.randn_like(lse_ref) if lse else None
    finite = torch.isfinite(lse_ref)
    loss = (out * g_out).sum() + ((lse_ref.where(finite, 0.0) * g_lse).sum() if lse else 0.0)
    want = torch.autograd.grad(loss, (q, k, v))
    ctx = SimpleNamespace(saved_tensors=(q.detach(), k.detach(), v.detach()), causal=causal, scale=None,
                          layout=layout, return_lse=lse)
    got = _backward(ctx, g_out, g_lse)
    for a, w in zip(got, want):
        assert a.shape == w.shape
        torch.testing.assert_close(a.double(), w, atol=1e-4, rtol=1e-4)


# ---- transformers ---------------------------------------------------------------------------------

def test_register_transformers_makes_from_config_use_fmhactl():
    transformers = pytest.importorskip("transformers")
    from transformers import AutoModelForCausalLM, LlamaConfig

    assert ft.register_transformers() == "fmhactl"
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    from fmhactl.torch.hf import fmhactl_attention_forward

    assert ALL_ATTENTION_FUNCTIONS["fmhactl"] is fmhactl_attention_forward
    cfg = LlamaConfig(hidden_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      intermediate_size=256, vocab_size=1000)
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="fmhactl").to(torch.bfloat16)
    assert model.config._attn_implementation == "fmhactl"
    model = model.to("meta")
    ids = torch.zeros(2, 13, dtype=torch.long, device="meta")
    with torch.no_grad():
        logits = model(ids).logits  # meta tensors: every attention runs the op's fake implementation
    assert logits.shape == (2, 13, 1000)
    assert transformers.__version__


def test_transformers_mask_and_forward_without_padding():
    """No mask, or an all-ones one: the op's causal flag does the masking (padding: test_hf_padding_cpu)."""
    pytest.importorskip("transformers")
    from fmhactl.torch.hf import PaddedBatch, fmhactl_attention_forward, fmhactl_attention_mask

    assert fmhactl_attention_mask(1, 4, 4) is None
    assert fmhactl_attention_mask(1, 4, 4, attention_mask=torch.ones(1, 4, dtype=torch.bool)) is None
    assert fmhactl_attention_mask(1, 4, 4, attention_mask=torch.tensor([[0, 1, 1, 1]], dtype=torch.bool)) == \
        PaddedBatch(((1, 4),), 0, True)
    module = SimpleNamespace(is_causal=True, training=False)
    q = meta(1, 4, 3, 64)
    out, weights = fmhactl_attention_forward(module, q, meta(1, 2, 3, 64), meta(1, 2, 3, 64), None, scaling=0.1)
    assert out.shape == (1, 3, 4, 64) and out.is_contiguous() and weights is None


def test_all_ones_mask_skips_the_interval_scan(monkeypatch):
    """generate's int64 all-ones mask (every decode step) is answered by one reduction, not the
    per-row interval scan; a static cache's unfilled tail or a padded row still gets the scan."""
    pytest.importorskip("transformers")
    from fmhactl.torch import hf

    scans = []
    real_scan = hf._row_intervals
    monkeypatch.setattr(hf, "_row_intervals", lambda valid: scans.append(valid.shape) or real_scan(valid))
    ones = torch.ones(2, 9, dtype=torch.int64)
    # a step after 8 cached tokens: the query sits at position 8 (transformers' q_offset), the last key
    assert hf.fmhactl_attention_mask(2, 1, 9, q_offset=8, attention_mask=ones) is None
    assert hf.fmhactl_attention_mask(2, 1, 5, q_offset=8, kv_offset=4, attention_mask=ones) is None
    assert scans == []
    assert hf.fmhactl_attention_mask(2, 1, 12, q_offset=8, attention_mask=ones) == hf.PaddedBatch(
        ((0, 9), (0, 9)), 8, True)
    ones[1, :3] = 0
    assert hf.fmhactl_attention_mask(2, 1, 9, q_offset=8, attention_mask=ones) == hf.PaddedBatch(
        ((0, 9), (3, 9)), 8, True)
    assert scans == [(2, 12), (2, 9)]


def test_model_bench_builds_models_that_run_their_own_attention():
    """Each model gets its own config (a shared one made both run the last implementation built)."""
    pytest.importorskip("transformers")
    from fmhactl.bench.model import ModelSpec, build_models, count_op_calls

    spec = ModelSpec("tiny", 128, 2, 4, 2, 256, 1000, 512)
    models = build_models(spec, ("sdpa", "fmhactl"), torch.bfloat16, device="cpu")
    assert models["sdpa"].config is not models["fmhactl"].config
    assert {k: m.config._attn_implementation for k, m in models.items()} == {"sdpa": "sdpa", "fmhactl": "fmhactl"}
    torch.testing.assert_close(models["sdpa"].lm_head.weight, models["fmhactl"].lm_head.weight, rtol=0, atol=0)
    assert count_op_calls(models["sdpa"], torch.zeros(1, 5, dtype=torch.long)) == 0
    meta_model = models["fmhactl"].to("meta")
    assert count_op_calls(meta_model, torch.zeros(1, 5, dtype=torch.long, device="meta"), use_cache=True) == 2


def test_a_view_the_kernels_cannot_read_is_copied_even_where_torch_calls_it_contiguous():
    """A single-token view 2 bytes off a 16-byte boundary: torch calls it contiguous (size-1 dims'
    strides do not count), so .contiguous() returned it unchanged and its TMA map was refused at
    launch (the op fuzz, session 25). launch.readable copies it to an aligned buffer; a view the
    kernels read stays as it is, and `ref` reads any strides."""
    from fmhactl.torch import launch

    buffer = torch.arange(2 * 136, dtype=torch.bfloat16).reshape(1, 1, 2, 136)
    view = buffer[:, :, :1, 1:129]  # (1, 1, 1, 128), base 2 bytes past the buffer's
    assert view.is_contiguous() and view.data_ptr() % 16 == 2
    assert view.contiguous().data_ptr() == view.data_ptr()  # why .contiguous() was not enough
    copied = launch.readable("sm90", view)
    assert copied.data_ptr() % 16 == 0 and torch.equal(copied, view)
    aligned = buffer[:, :, :1, 8:136]
    assert launch.readable("sm90", aligned) is aligned
    assert launch.readable("ref", view) is view
