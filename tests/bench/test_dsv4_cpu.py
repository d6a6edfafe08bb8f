"""`fmhactl bench --model dsv4` on the CPU: the model's fmhactl path (the op's torch fallback per
segment, merged by LSE) against SDPA and flex on a tiny config; the CLI's exit codes. Never timed."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from fmhactl.bench import dsv4


@pytest.fixture(scope="module")
def tiny():
    return dsv4.build_model(dsv4.TINY, torch.float32, "cpu", 0)


def test_tiny_forward_matches_sdpa_and_flex(tiny):
    ids = torch.randint(0, dsv4.TINY.vocab_size, (2, 40), generator=torch.Generator().manual_seed(1))
    logits = {}
    with torch.no_grad():
        for impl in dsv4.IMPLEMENTATIONS:
            tiny.impl = impl
            logits[impl] = tiny(ids).logits
    assert logits["fmhactl"].shape == (2, 40, dsv4.TINY.vocab_size)
    assert float((logits["fmhactl"] - logits["sdpa"]).abs().max()) < 1e-4
    assert float((logits["flex"] - logits["sdpa"]).abs().max()) < 1e-4


def test_chunked_prefill_and_decode_match_one_forward():
    tiny = dsv4.build_model(dsv4.TINY, torch.float64, "cpu", 0)  # fp64: no near-tie top-k flips by rounding
    ids = torch.randint(0, dsv4.TINY.vocab_size, (1, 33), generator=torch.Generator().manual_seed(2))
    tiny.impl = "fmhactl"
    with torch.no_grad():
        whole = tiny(ids).logits
        cache = dsv4.new_cache(tiny, 1, 33)
        parts = [tiny(ids[:, :20], cache=cache, start=0).logits]
        parts += [tiny(ids[:, i:i + 1], cache=cache, start=i).logits for i in range(20, 33)]
    assert float((torch.cat(parts, 1) - whole).abs().max()) < 1e-4


def test_segments_are_the_window_and_older_topk_keys():
    spec = dsv4.TINY
    gen = torch.Generator().manual_seed(3)
    iq, ik = torch.randn(1, 30, spec.index_rank, generator=gen), torch.randn(1, 30, spec.index_rank, generator=gen)
    idx = dsv4.select_topk(iq, ik, 0, spec)
    assert idx.dtype == torch.int32 and idx.shape == (1, 30, 1, spec.topk)
    pos = torch.arange(30).view(1, 30, 1, 1)
    assert bool(((idx == -1) | (idx <= pos - spec.window)).all())  # older than the window: disjoint segments
    assert bool((idx[0, :spec.window] == -1).all()) and bool((idx[0, -1] >= 0).all())
    seen = dsv4.visible_keys(30, 30, idx, spec)
    assert int(seen[0, 29].sum()) == spec.window + spec.topk


@pytest.mark.parametrize("args,line", [
    (["--model", "dsv4", "--prompt", "0"], "every --prompt length must be in 1..16384"),
    (["--model", "dsv4", "--prompt", "99999"], "every --prompt length must be in 1..16384"),
    (["--model", "dsv4", "--greedy", "4", "--context", "70000"], "--context must be in 1..65532"),
    (["--model", "dsv4", "--greedy", "4", "--context", "0"], "--context must be in 1..65532"),
    (["--model", "dsv4", "--context", "100"], "--context sets the KV cache of --model dsv4 --greedy N"),
    (["--model", "llama-small", "--greedy", "4", "--context", "100"], "--context sets the KV cache of --model dsv4"),
    (["--model", "dsv4", "--greedy", "5000"], "--greedy must be in 0..1024"),
    (["--model", "dsv4", "--padded"], "--padded is not available for --model dsv4"),
    (["--model", "dsv5"], "unknown model 'dsv5' (known: llama-small, llama-small-hd128, qwen2-small, mistral-small, phi3-small, dsv4)"),
])
def test_cli_bad_input_is_one_line_exit_2(args, line):
    done = subprocess.run([sys.executable, "-m", "fmhactl", "bench", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert line in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_help_lists_the_preset():
    done = subprocess.run([sys.executable, "-m", "fmhactl", "bench", "--help"], capture_output=True, text=True,
                          timeout=120, env={"COLUMNS": "200", "PATH": ""})
    assert "dsv4" in done.stdout and "--context" in done.stdout
