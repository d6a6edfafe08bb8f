"""Print the summary lines of one `fmhactl bench --model dsv4 --json` result (device scripts)."""

from __future__ import annotations

import json
import sys


def main(path: str) -> None:
    try:
        r = json.load(open(path))
    except (OSError, ValueError) as exc:
        print(f"==== dsv4: no JSON ({type(exc).__name__})")
        return
    print(f"==== dsv4 ({r['gpu']}, torch {r['torch']}); fmhactl backends: {r['backends']}")
    for row in r["results"]:
        cells = [f"{i} {row[i]['median_ms']:.2f} ms {row[i]['tokens_per_s']:.0f} tok/s" if "median_ms" in row[i]
                 else f"{i} skipped ({row[i]['skipped'][:90]})" for i in r["implementations"]]
        print(f"prefill {row['prompt_length']}: " + " | ".join(cells))
        print(f"  max|logit diff| vs sdpa {row.get('max_logit_diff_vs_sdpa')}; fa_rule {row.get('fa_rule')}")
    d = r.get("decode")
    if d:
        cells = [f"{i} {d[i]['tokens_per_s']:.1f} tok/s" if "tokens_per_s" in d[i]
                 else f"{i} skipped ({d[i]['skipped'][:90]})" for i in r["implementations"]]
        print(f"decode {d['new_tokens']} after {d['context']}: " + " | ".join(cells))
        print(f"  max|logit diff| vs sdpa {d.get('max_logit_diff_vs_sdpa')}; fa_rule {d.get('fa_rule')}; "
              f"greedy agreement {d.get('greedy_agreement_vs_fmhactl')}")


if __name__ == "__main__":
    main(sys.argv[1])
