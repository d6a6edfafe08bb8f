"""One line per prompt length (and padded batch, greedy run) of `fmhactl bench --model --json` files."""
from __future__ import annotations

import json
import sys


def main(paths: list[str]) -> None:
    for path in paths:
        try:
            d = json.load(open(path))
        except (OSError, ValueError) as exc:
            print(f"{path}: no JSON ({type(exc).__name__})")
            continue
        print(f"==== {d['model']['name']} (backend {d['backend']['variant']}; op calls per forward {d['op_calls_per_forward']})")
        for r in d["results"]:
            p = r.get("padded_batch") or {}
            line = (f"prompt {r['prompt_length']:5d}: fmhactl/sdpa {r['ratio_tokens_per_s']:.3f} "
                    f"(fmhactl {r['fmhactl']['median_ms']:.2f} ms, sdpa {r['sdpa']['median_ms']:.2f} ms), "
                    f"max logit diff {r['max_logit_diff_vs_sdpa']:.4f}")
            if p:
                line += (f"; padded {p.get('ratio_tokens_per_s', float('nan')):.3f} "
                         f"(SDPA fallbacks {p.get('sdpa_fallback_calls')})")
            print(line)
        g = d.get("greedy_decode")
        if g:
            print(f"greedy {g['new_tokens']} after {g['prompt_length']}: fmhactl/sdpa {g['ratio_tokens_per_s']:.3f} "
                  f"(fmhactl {g['fmhactl']['tokens_per_s']:.1f} tok/s, sdpa {g['sdpa']['tokens_per_s']:.1f}); "
                  f"logits {g['logits']}")


if __name__ == "__main__":
    main(sys.argv[1:])
