"""Where a greedy decode step's host time goes, fmhactl against sdpa (llama-small, 2k prompt).

Prints per-implementation seconds per token over three interleaved runs, then cProfile's top
functions by own time for one fmhactl run and one sdpa run. A device diagnostic, not a test.
    python3 scripts/dev/greedy_profile.py [TOKENS]
"""
from __future__ import annotations

import cProfile
import io
import pstats
import sys

import torch

from fmhactl.bench.greedy import _generate
from fmhactl.bench.model import build_models, get_spec


def main() -> None:
    tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    spec = get_spec("llama-small")
    models = build_models(spec, ["sdpa", "fmhactl"], torch.bfloat16)
    ids = torch.randint(0, spec.vocab_size, (1, 2048), device="cuda", generator=None)
    for name in models:
        _generate(models[name], ids, 8)
    for r in range(3):
        for name in (list(models) if r % 2 == 0 else list(models)[::-1]):
            s = _generate(models[name], ids, tokens)[0]
            print(f"round {r} {name:8s} {s / tokens * 1e3:.3f} ms/token", flush=True)
    for name in models:
        prof = cProfile.Profile()
        prof.enable()
        _generate(models[name], ids, tokens)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(28)
        print(f"==== {name}: cProfile, {tokens} tokens, by own time")
        print("\n".join(line[:170] for line in out.getvalue().splitlines()[:48]))


if __name__ == "__main__":
    main()
