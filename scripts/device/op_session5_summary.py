"""Print the ratios of scripts/device/op_session5.sh's JSON files as one table (after vs before).

    python scripts/device/op_session5_summary.py OUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _load(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def overhead_lines(doc: dict, tag: str) -> list[str]:
    lines = []
    for row in doc["rows"]:
        impls = row["impls"]
        cells = []
        for name in ("fmhactl", "fmhactl-dispatcher", "fmhactl-general", "sdpa", "sdpa-cudnn", "sdpa-flash"):
            m = impls.get(name, {})
            if "host_us" in m:
                db = f"/{m['do_bench_us']:.1f}" if "do_bench_us" in m else ""
                cells.append(f"{name}={m['host_us']:.1f}/{m['per_call_us']:.1f}{db}")
        r = row["ratios"]
        picks = [f"{k}={r[k]:.2f}" for k in ("fmhactl/sdpa host_us", "fmhactl/sdpa do_bench_us") if k in r]
        # Speed through the op against cuDNN, as the issue quotes it (cuDNN time / op time).
        picks += [f"speed vs cudnn ({k.split()[1]})={1 / r[k]:.2f}x" for k in
                  ("fmhactl/sdpa-cudnn per_call_us", "fmhactl/sdpa-cudnn do_bench_us") if k in r and r[k] > 0]
        lines.append(f"{tag} {row['shape']}: " + " ".join(cells) + " | " + " ".join(picks))
    return lines


def model_lines(doc: dict, tag: str) -> list[str]:
    lines = []
    for r in doc["results"]:
        lines.append(f"{tag} {doc['model']['name']} T={r['prompt_length']}: fmhactl/sdpa tokens/s "
                     f"{r['ratio_tokens_per_s']:.3f} (sdpa {r['sdpa']['median_ms']:.3f} ms, fmhactl "
                     f"{r['fmhactl']['median_ms']:.3f} ms, max|dlogit| {r['max_logit_diff_vs_sdpa']:.3g})")
        p = r.get("padded_batch")
        if p:
            lines.append(f"{tag} {doc['model']['name']} padded {p['lengths']}: fmhactl/sdpa tokens/s "
                         f"{p['ratio_tokens_per_s']:.3f} (sdpa {p['sdpa']['median_ms']:.3f} ms, fmhactl "
                         f"{p['fmhactl']['median_ms']:.3f} ms, max|dlogit| {p['max_logit_diff_vs_sdpa']:.3g}, "
                         f"sdpa fallbacks {p['sdpa_fallback_calls']})")
    return lines


def main(out: Path) -> int:
    print("host_us/per_call_us[/do_bench_us] per implementation; ratios op/baseline")
    for tag in ("before", "after"):
        doc = _load(out / f"overhead_{tag}.json")
        if doc:
            print("\n".join(overhead_lines(doc, tag)))
    for model in ("llama", "qwen2"):
        for tag in ("before", "after"):
            doc = _load(out / f"model_{model}_{tag}.json")
            if doc:
                print("\n".join(model_lines(doc, tag)))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
