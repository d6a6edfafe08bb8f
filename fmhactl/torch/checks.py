"""The GPU checks that prove M6 (production integration), recordable as result rows.

    python -m fmhactl.torch.checks [--record] [--json]

Each check returns {"name", "status": PASS|FAIL, "metrics"}; with --record each becomes a row of
kind "torch" (config_key = check name, variant/arch/mode = the backend the op used) that
scenarios/milestones.toml's M6 requires. tests/torch/test_torch_gpu.py runs the same checks.

Pass rule everywhere: FlashAttention's, max|ours - ref32| <= 2 * max|ref_low - ref32| + atol,
where ref32 is the computation in fp32 and ref_low the same computation in the input dtype
(op level: explicit-math attention; model level: the same weights with attn_implementation="sdpa").
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable

import torch

MODEL_PROMPTS = (1, 17, 511, 2048)
ATOL = 1e-3

# (batch, heads, heads_kv, seq_q, seq_k, dim, causal, layout, dtype, return_lse, requires_grad, strided)
OP_SHAPES = (
    (2, 8, 2, 17, 33, 64, True, "bhsd", torch.bfloat16, True, False, False),     # GQA, causal T != s_k
    (1, 4, 1, 1, 129, 128, True, "bshd", torch.float16, True, False, False),     # MQA decode step
    (2, 4, 4, 127, 127, 64, False, "bhsd", torch.bfloat16, False, True, False),  # odd, autograd
    (1, 16, 4, 300, 1023, 128, True, "bshd", torch.bfloat16, True, False, True),  # odd, strided views
    (1, 2, 2, 65, 31, 64, True, "bhsd", torch.float16, True, True, False),       # T > s_k: empty rows
    (3, 6, 3, 200, 77, 96, False, "bshd", torch.bfloat16, False, False, True),   # hd 96, strided
)


def _rule(ours: torch.Tensor, ref32: torch.Tensor, ref_low: torch.Tensor) -> dict:
    err = float((ours.float() - ref32).abs().nan_to_num(0.0).max().item()) if ours.numel() else 0.0
    low = float((ref_low.float() - ref32).abs().nan_to_num(0.0).max().item()) if ours.numel() else 0.0
    tol = 2.0 * low + ATOL
    nan = int(torch.isnan(ours.float()).sum().item()) - int(torch.isnan(ref32).sum().item())
    return {"max_abs_err": err, "ref_low_err": low, "tolerance": tol, "nan_excess": nan, "passed": err <= tol and nan == 0}


def lse_rule(rule: dict, lse: torch.Tensor, lse32: torch.Tensor, lse64: torch.Tensor) -> dict:
    """`rule` plus the LSE check: max error on finite entries <= 4 x fp32's + 1e-4, and -inf exactly
    where fp64 has it (rows that see no key)."""
    finite = torch.isfinite(lse64)
    lse_err = float((lse.double() - lse64).abs()[finite].max().item()) if finite.any() else 0.0
    lse_tol = 4 * float((lse32.double() - lse64).abs()[finite].max().item()) + 1e-4 if finite.any() else 1e-4
    inf_ok = bool(torch.equal(torch.isinf(lse), torch.isinf(lse64)))
    return {**rule, "lse_max_err": lse_err, "lse_tolerance": lse_tol, "lse_inf_match": inf_ok,
            "passed": rule["passed"] and lse_err <= lse_tol and inf_ok}


def _reference(q, k, v, causal: bool, layout: str, dtype):
    """Explicit-math attention in dtype: out in q's layout, lse (b, h, s_q) natural log."""
    from fmhactl.torch.op import to_bshd
    from fmhactl.verify.reference import attention

    out, lse = attention(to_bshd(q, layout), to_bshd(k, layout), to_bshd(v, layout), causal=causal,
                         compute_dtype=dtype)
    return to_bshd(out, layout), lse


def _make(shape, seed: int):
    b, h, hkv, sq, sk, d, causal, layout, dtype, lse, grad, strided = shape
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def draw(s, heads):
        dims = (b, heads, s, d) if layout == "bhsd" else (b, s, heads, d)
        if strided:  # a view into a wider buffer: non-contiguous batch/seq/head strides
            full = torch.randn(*dims[:-1], d + 32, generator=gen, device="cuda").to(dtype)
            t = full[..., 16:16 + d]
        else:
            t = torch.randn(*dims, generator=gen, device="cuda").to(dtype)
        return t.requires_grad_(grad)

    return draw(sq, h), draw(sk, hkv), draw(sk, hkv)


def check_opcheck() -> dict:
    """torch.library.opcheck and a numeric check of out/LSE for every shape in OP_SHAPES."""
    import fmhactl.torch  # noqa: F401

    cases = []
    for i, shape in enumerate(OP_SHAPES):
        q, k, v = _make(shape, 1000 + i)
        causal, layout, lse_wanted = shape[6], shape[7], shape[9]
        kwargs = {"causal": causal, "return_lse": lse_wanted, "layout": layout}
        report = torch.library.opcheck(torch.ops.fmhactl.attention.default, (q, k, v), kwargs)
        with torch.no_grad():
            out, lse = torch.ops.fmhactl.attention(q, k, v, **kwargs)
            ref32, lse32 = _reference(q.detach(), k.detach(), v.detach(), causal, layout, torch.float32)
            ref_low, _ = _reference(q.detach(), k.detach(), v.detach(), causal, layout, q.dtype)
            rule = _rule(out, ref32, ref_low)
            if lse_wanted:
                _, lse64 = _reference(q.detach(), k.detach(), v.detach(), causal, layout, torch.float64)
                rule = lse_rule(rule, lse, lse32, lse64)
        grad_ok = True
        if shape[10]:
            out, _ = torch.ops.fmhactl.attention(q, k, v, **kwargs)
            g = torch.randn_like(out)
            grads = torch.autograd.grad(out, (q, k, v), g)
            qf, kf, vf = (t.detach().double().requires_grad_() for t in (q, k, v))
            ref, _ = _reference(qf, kf, vf, causal, layout, torch.float64)
            want = torch.autograd.grad(ref, (qf, kf, vf), g.double())
            grad_err = max(float((a.double() - w).abs().max().item()) for a, w in zip(grads, want))
            scale = max(float(w.abs().max().item()) for w in want)
            rule["grad_max_err"] = grad_err
            grad_ok = grad_err <= 0.02 * max(scale, 1.0)
        opcheck_ok = all(r == "SUCCESS" for r in report.values())
        cases.append({"shape": [str(x) for x in shape], "opcheck": report, **rule,
                      "passed": opcheck_ok and rule["passed"] and grad_ok})
    return {"status": "PASS" if all(c["passed"] for c in cases) else "FAIL", "metrics": {"cases": cases}}


def _models(dtype=torch.bfloat16):
    from fmhactl.bench.model import build_models, get_spec

    spec = get_spec("llama-small")
    models = build_models(spec, ("sdpa", "fmhactl"), dtype)
    ref32 = build_models(spec, ("sdpa",), dtype)["sdpa"].float()  # same bf16-rounded weights, fp32 math
    return spec, models, ref32


def _packed_positions(length: int, device: str = "cuda") -> torch.Tensor:
    """position_ids of two sequences packed into one row: 0..a-1 then 0..length-a-1."""
    first = length // 3
    return torch.cat([torch.arange(first), torch.arange(length - first)]).to(device)[None]


def check_model(compiled: bool, prompts=MODEL_PROMPTS) -> dict:
    """Logits of llama-small with fmhactl attention vs sdpa, eager or torch.compile(fullgraph=True).

    Compiled, the op must run inside the compiled forward: the op's registered implementation
    counts its runs (tracing runs the fake, so only the compiled code's calls count), and every
    prompt must show one run per layer; a packed prompt (two sequences in one row, given by
    position_ids) must match sdpa on the same packing, through the SDPA branch (no op run)."""
    from fmhactl.bench.model import count_op_calls
    from fmhactl.torch.op import kernel_runs

    spec, models, ref32_model = _models()
    ours = models["fmhactl"]
    probe = torch.randint(0, spec.vocab_size, (1, 9), device="cuda")
    calls = {impl: count_op_calls(model, probe) for impl, model in (*models.items(), ("ref32", ref32_model))}
    if calls != {"sdpa": 0, "fmhactl": spec.num_hidden_layers, "ref32": 0}:
        return {"status": "FAIL", "metrics": {"error": f"fmhactl op calls per forward {calls}: the models do not run "
                                                       "the attention they were built with"}}
    if compiled:
        ours = torch.compile(ours, fullgraph=True)
    gen = torch.Generator(device="cuda").manual_seed(7)
    cases = [(length, None) for length in prompts]
    if compiled:
        cases.append((max(prompts), "packed"))
    per_prompt = []
    with torch.no_grad():
        for length, packing in cases:
            ids = torch.randint(0, spec.vocab_size, (1, length), generator=gen, device="cuda")
            positions = _packed_positions(length) if packing else None
            ref32 = ref32_model(ids, position_ids=positions, use_cache=False).logits.float()
            low = models["sdpa"](ids, position_ids=positions, use_cache=False).logits.float()
            if compiled:
                ours(ids, position_ids=positions, use_cache=False)  # compiles for this shape: runs the fake
            before = kernel_runs()
            got = ours(ids, position_ids=positions, use_cache=False).logits.float()
            runs = kernel_runs() - before
            rule = _rule(got, ref32, low)
            rule["max_logit_diff_vs_sdpa"] = float((got - low).abs().max().item())
            if compiled:
                wanted = 0 if packing else spec.num_hidden_layers
                rule.update(op_runs_in_compiled_forward=runs, op_runs_wanted=wanted)
                rule["passed"] = rule["passed"] and runs == wanted
            per_prompt.append({"prompt_length": length, "packed": bool(packing), **rule})
    return {"status": "PASS" if all(p["passed"] for p in per_prompt) else "FAIL",
            "metrics": {"mode": "compile-fullgraph" if compiled else "eager", "op_calls_per_forward": calls,
                        "prompts": per_prompt}}


def check_padded(length: int = 96) -> dict:
    """llama-small on padded batches of 4 uneven lengths (left and right padding): prefill logits at
    real tokens, then (left) one cached decode step, vs sdpa under the FA rule; no SDPA fallback."""
    from fmhactl.bench.model import padded_lengths, padding_mask
    from fmhactl.torch.hf import fallbacks

    spec, models, ref32_model = _models()
    gen = torch.Generator(device="cuda").manual_seed(11)
    lengths = padded_lengths(length)
    before = sum(fallbacks().values())
    cases = []
    with torch.no_grad():
        for side in ("left", "right"):
            mask = padding_mask(lengths, side)
            ids = torch.randint(0, spec.vocab_size, mask.shape, generator=gen, device="cuda")
            seen = mask.bool()
            runs = {name: m(ids, attention_mask=mask, use_cache=side == "left")
                    for name, m in (("ours", models["fmhactl"]), ("low", models["sdpa"]), ("ref32", ref32_model))}
            rule = _rule(runs["ours"].logits.float()[seen], runs["ref32"].logits.float()[seen],
                         runs["low"].logits.float()[seen])
            cases.append({"case": f"prefill {side} {lengths}", **rule})
            if side == "left":  # one decode step on the padded cache
                step = torch.randint(0, spec.vocab_size, (len(lengths), 1), generator=gen, device="cuda")
                mask2 = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
                logits = {name: m(step, attention_mask=mask2, past_key_values=runs[name].past_key_values).logits.float()
                          for name, m in (("ours", models["fmhactl"]), ("low", models["sdpa"]), ("ref32", ref32_model))}
                cases.append({"case": f"decode step {side}", **_rule(logits["ours"], logits["ref32"], logits["low"])})
    fell_back = sum(fallbacks().values()) - before
    ok = all(c["passed"] for c in cases) and fell_back == 0
    return {"status": "PASS" if ok else "FAIL", "metrics": {"cases": cases, "sdpa_fallback_calls": fell_back}}


def check_cuda_graph() -> dict:
    """Capture the op alone and the model forward in CUDA graphs; replay with new inputs; compare."""
    import fmhactl.torch  # noqa: F401

    results = {}
    # Op level: GQA causal, inputs refilled in place between replays.
    q, k, v = _make((2, 8, 2, 100, 300, 64, True, "bhsd", torch.bfloat16, True, False, False), 42)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        torch.ops.fmhactl.attention(q, k, v, causal=True, return_lse=True)  # warm-up: build and load
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out, lse = torch.ops.fmhactl.attention(q, k, v, causal=True, return_lse=True)
    op_rules = []
    for seed in (1, 2):
        q2, k2, v2 = _make((2, 8, 2, 100, 300, 64, True, "bhsd", torch.bfloat16, True, False, False), seed)
        q.copy_(q2), k.copy_(k2), v.copy_(v2)
        graph.replay()
        torch.cuda.synchronize()
        ref32, _ = _reference(q, k, v, True, "bhsd", torch.float32)
        low, _ = _reference(q, k, v, True, "bhsd", torch.bfloat16)
        op_rules.append(_rule(out, ref32, low))
    results["op"] = op_rules
    # Model level: the whole llama-small prefill forward (use_cache=True: transformers then skips
    # its host-side packed-sequence test, which a capture cannot contain).
    spec, models, ref32_model = _models()
    model = models["fmhactl"]
    ids = torch.randint(0, spec.vocab_size, (1, 257), device="cuda")
    with torch.no_grad():
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):
                model(ids)
        torch.cuda.current_stream().wait_stream(stream)
        mgraph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(mgraph):
            logits = model(ids).logits
        model_rules = []
        for seed in (3, 4):
            gen = torch.Generator(device="cuda").manual_seed(seed)
            ids.copy_(torch.randint(0, spec.vocab_size, ids.shape, generator=gen, device="cuda"))
            mgraph.replay()
            torch.cuda.synchronize()
            eager = model(ids).logits.float()
            ref32 = ref32_model(ids, use_cache=False).logits.float()
            low = models["sdpa"](ids, use_cache=False).logits.float()
            rule = _rule(logits.float(), ref32, low)
            rule["max_diff_vs_eager"] = float((logits.float() - eager).abs().max().item())
            rule["passed"] = rule["passed"] and rule["max_diff_vs_eager"] <= rule["tolerance"]
            model_rules.append(rule)
    results["model"] = model_rules
    ok = all(r["passed"] for r in op_rules + model_rules)
    return {"status": "PASS" if ok else "FAIL", "metrics": results}


CHECKS: dict[str, Callable[[], dict]] = {
    "opcheck": check_opcheck,
    "model-eager": lambda: check_model(False),
    "model-compile": lambda: check_model(True),
    "cuda-graph": check_cuda_graph,
    "padded": check_padded,
}


def model_backend():
    """The backend the op picks for llama-small's attention on this GPU."""
    from fmhactl.bench.model import get_spec
    from fmhactl.torch import backend_for

    spec = get_spec("llama-small")
    q = torch.empty(1, spec.num_attention_heads, 64, spec.head_dim, dtype=torch.bfloat16, device="cuda")
    k = torch.empty(1, spec.num_key_value_heads, 64, spec.head_dim, dtype=torch.bfloat16, device="cuda")
    return backend_for(q, k, k, causal=True)


def run(names: list[str], record: bool) -> list[dict]:
    from fmhactl.build.hashing import source_hash
    from fmhactl.results.store import ResultRow, ResultStore, new_session_id
    from fmhactl.torch.launch import registry

    backend = model_backend()
    results = []
    session = new_session_id()
    for name in names:
        try:
            result = CHECKS[name]()
        except Exception as exc:  # noqa: BLE001 - a crashed check is a recorded failure
            result = {"status": "FAIL", "metrics": {"error": f"{type(exc).__name__}: {exc}".splitlines()[0][:400],
                                                    "traceback": traceback.format_exc()[-2000:]}}
        result = {"name": name, "backend": str(backend), **result}
        results.append(result)
        print(f"torch check {name}: {result['status']}", file=sys.stderr)
        if record:
            with ResultStore() as store:
                store.add(ResultRow(kind="torch", variant=backend.variant, arch=backend.arch, mode=backend.mode,
                                    status=result["status"], config_key=name, metrics=result["metrics"],
                                    source_hash=source_hash(registry()[backend.variant].source_path),
                                    gpu=torch.cuda.get_device_name(), driver=torch.version.cuda or "",
                                    toolchain=f"torch-{torch.__version__}", session=session))
    return results


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m fmhactl.torch.checks", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"checks to run: {', '.join(CHECKS)} (default: all)")
    parser.add_argument("--record", action="store_true", help="store each result as a 'torch' row (M6)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in CHECKS]
    if unknown:
        print(f"fmhactl: error: unknown check(s) {', '.join(unknown)} (known: {', '.join(CHECKS)})", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("fmhactl: error: the torch checks need a CUDA GPU", file=sys.stderr)
        return 3
    results = run(args.names or list(CHECKS), args.record)
    if args.json:
        print(json.dumps(results, indent=2, default=str))
    return 0 if all(r["status"] == "PASS" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
