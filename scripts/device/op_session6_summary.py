"""Print the op_session6.sh results as short tables: decode bench rows, model prefill/padded/greedy ratios.

    python scripts/device/op_session6_summary.py OUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _load(path: Path):
    try:
        text = path.read_text().strip()
        return json.loads(text[text.index("{"):]) if text else None
    except (OSError, ValueError) as exc:
        print(f"{path.name}: unreadable ({type(exc).__name__})")
        return None


def decode_rows(result: dict) -> None:
    print("decode bench (kernel us, L2 flushed): shape | op | cudnn | flash | op no-split | op GB/s | cudnn/op | "
          "flash/op | no-split/op | per-call cudnn/op | op path | max diff")
    for row in result["rows"]:
        impls = row["impls"]

        def us(name: str) -> str:
            m = impls.get(name, {})
            return f"{m['kernel_us']:.1f}" if "kernel_us" in m else "skip"

        speed = row["speed"]
        op = impls.get("fmhactl", {})
        diff = max((v for k, v in row.items() if k.startswith("max_abs_diff")), default=float("nan"))
        nan = float("nan")
        print(f"  {row['shape']} | {us('fmhactl')} | {us('sdpa-cudnn')} | {us('sdpa-flash')} | "
              f"{us('fmhactl-no-split')} | {op.get('hbm_gb_s', 0):.0f} | "
              f"{speed.get('sdpa-cudnn/fmhactl kernel_us', nan):.2f} | "
              f"{speed.get('sdpa-flash/fmhactl kernel_us', nan):.2f} | "
              f"{speed.get('fmhactl-no-split/fmhactl kernel_us', nan):.2f} | "
              f"{speed.get('sdpa-cudnn/fmhactl per_call_us', nan):.2f} | {row['decode_path']} | {diff:.3g}")


def model_rows(name: str, result: dict) -> None:
    print(f"{name}: prompt | fmhactl/sdpa tokens/s | max logit diff | padded ratio")
    for r in result["results"]:
        padded = r.get("padded_batch", {})
        print(f"  {r['prompt_length']} | {r['ratio_tokens_per_s']:.3f} | {r['max_logit_diff_vs_sdpa']:.3g} | "
              f"{padded.get('ratio_tokens_per_s', float('nan')):.3f}")
    g = result.get("greedy_decode")
    if g:
        print(f"  greedy {g['new_tokens']} after {g['prompt_length']}: fmhactl {g['fmhactl']['tokens_per_s']:.0f} "
              f"tok/s, sdpa {g['sdpa']['tokens_per_s']:.0f} tok/s, ratio {g['ratio_tokens_per_s']:.3f}, "
              f"decode calls {g['decode_calls']}, logits {'PASS' if g['logits']['passed'] else 'FAIL'} "
              f"(err {g['logits']['max_abs_err_vs_fp32']:.3g} <= tol {g['logits']['tolerance']:.3g})")


def main(out: str) -> int:
    folder = Path(out)
    bench = _load(folder / "decode_bench.json")
    if bench:
        decode_rows(bench)
    for name in ("llama", "qwen2"):
        result = _load(folder / f"model_{name}.json")
        if result:
            model_rows(name, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
