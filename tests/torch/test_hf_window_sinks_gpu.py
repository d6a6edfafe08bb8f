"""Sliding-window and sink models through attn_implementation="fmhactl" on the GPU's kernels:
a Mistral-style model (window 64 on every layer) against SDPA, and a gpt-oss-style one (sinks on
every layer, window 64 on every other) against eager (transformers has no SDPA path with sinks),
prefill past the window and cached greedy steps, with no SDPA fallback and one op call a layer.
Logits are compared within a bf16 bound scaled by the fp32 model's own spread (the models'
outputs are sums over many layers' roundings, so the FA rule's per-element bound of one
attention call does not apply as is)."""

from __future__ import annotations

import copy

import pytest

pytestmark = pytest.mark.gpu
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module", autouse=True)
def _hopper_only():
    import torch

    if not torch.cuda.is_available() or torch.cuda.get_device_capability(0)[0] != 9:
        pytest.skip("the window and sink feature kernels run natively on SM90 (compute capability 9.x)")


def _models(config, implementations):
    import torch
    from transformers import AutoModelForCausalLM

    from fmhactl.torch import register_transformers

    register_transformers()
    models = {}
    for impl in implementations:
        torch.manual_seed(0)
        models[impl] = AutoModelForCausalLM.from_config(copy.deepcopy(config), attn_implementation=impl).eval()
    state = models[implementations[0]].state_dict()
    if hasattr(models[implementations[0]].model.layers[0].self_attn, "sinks"):
        gen = torch.Generator().manual_seed(1)
        for name in state:
            if name.endswith("self_attn.sinks"):
                state[name] = torch.randn(state[name].shape, generator=gen)
    for impl, model in models.items():
        model.load_state_dict(state)
        models[impl] = model.to("cuda", torch.bfloat16)
    ref32 = AutoModelForCausalLM.from_config(copy.deepcopy(config), attn_implementation=implementations[0]).eval()
    ref32.load_state_dict(state)
    return models, ref32.to("cuda", torch.float32)


def _config(name: str):
    if name == "mistral":
        return transformers.MistralConfig(hidden_size=512, num_hidden_layers=2, num_attention_heads=8,
                                          num_key_value_heads=2, intermediate_size=1024, vocab_size=1000,
                                          max_position_embeddings=2048, sliding_window=64)
    GptOssConfig = getattr(transformers, "GptOssConfig", None)
    if GptOssConfig is None:
        pytest.skip("this transformers has no gpt-oss")
    return GptOssConfig(hidden_size=512, num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=2,
                        head_dim=64, intermediate_size=512, vocab_size=1000, max_position_embeddings=2048,
                        sliding_window=64, num_local_experts=4, num_experts_per_tok=2,
                        layer_types=["sliding_attention", "full_attention"])


@pytest.mark.parametrize("name, baseline", [("mistral", "sdpa"), ("gpt-oss", "eager")])
def test_window_and_sink_models_run_the_kernels_and_match(name, baseline):
    import torch

    from fmhactl.bench.model import count_op_calls
    from fmhactl.torch import hf

    config = _config(name)
    models, ref32 = _models(config, (baseline, "fmhactl"))
    gen = torch.Generator(device="cuda").manual_seed(2)
    ids = torch.randint(0, 1000, (2, 300), generator=gen, device="cuda")
    assert count_op_calls(models["fmhactl"], ids) == config.num_hidden_layers
    before = sum(hf.fallbacks().values())
    with torch.inference_mode():
        want = ref32(ids, use_cache=False).logits
        base = models[baseline](ids, use_cache=False).logits.float()
        got = models["fmhactl"](ids, use_cache=False).logits.float()
    base_err = (base - want).abs().max().item()
    err = (got - want).abs().max().item()
    print(f"{name}: max |logit - fp32| fmhactl {err:.4f}, {baseline} {base_err:.4f}")
    assert err <= 2 * base_err + 1e-2, f"fmhactl {err} against {baseline}'s {base_err} from the fp32 model"
    with torch.inference_mode():
        runs = {impl: models[impl].generate(ids, max_new_tokens=8, do_sample=False, output_logits=True,
                                            return_dict_in_generate=True) for impl in (baseline, "fmhactl")}
    first = (runs["fmhactl"].logits[0].float() - runs[baseline].logits[0].float()).abs().max().item()
    print(f"{name}: first generated step's logits, max |fmhactl - {baseline}| {first:.4f}")
    assert first <= 4 * base_err + 2e-2
    assert sum(hf.fallbacks().values()) == before, hf.fallbacks()


def test_left_padded_sliding_window_batch_is_one_call_a_layer():
    """Mistral-style, a left-padded batch of 4 uneven prompts past the window: key ranges and the
    window in one feature-kernel launch a layer, no SDPA fallback, logits as close to the fp32
    model's as SDPA's are."""
    import torch

    from fmhactl.bench.model import padding_mask
    from fmhactl.torch import fastpath, hf

    config = _config("mistral")
    models, ref32 = _models(config, ("sdpa", "fmhactl"))
    mask = padding_mask((300, 231, 150, 90), "left")
    gen = torch.Generator(device="cuda").manual_seed(3)
    ids = torch.randint(0, 1000, mask.shape, generator=gen, device="cuda")
    before, launches = sum(hf.fallbacks().values()), fastpath.status()["plan_launches"]
    with torch.inference_mode():
        got = models["fmhactl"](ids, attention_mask=mask, use_cache=False).logits.float()
        assert fastpath.status()["plan_launches"] == launches + config.num_hidden_layers
        want = ref32(ids, attention_mask=mask, use_cache=False).logits
        base = models["sdpa"](ids, attention_mask=mask, use_cache=False).logits.float()
    seen = mask.bool()
    err, base_err = ((x[seen] - want[seen]).abs().max().item() for x in (got, base))
    print(f"mistral left-padded: max |logit - fp32| fmhactl {err:.4f}, sdpa {base_err:.4f}")
    assert err <= 2 * base_err + 1e-2
    assert sum(hf.fallbacks().values()) == before, hf.fallbacks()
