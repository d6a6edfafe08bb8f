"""Summary of scripts/device/op24.sh: issue 24's ratios, each from one run's JSON.
Usage: python3 scripts/device/op24_summary.py OUT_DIR
       python3 scripts/device/op24_summary.py --model FILE... | --overhead FILE...
(the second form: `bench --model --json` or `bench --overhead --json` files of other scripts)"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _load(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        print(f"{path.name}: no JSON ({type(exc).__name__})")
        return None


def overhead(got) -> None:
    print(f"==== the op per call vs SDPA ({got['gpu']}): per-call us (CUDA events over back-to-back calls), "
          "host us; cuDNN/op > 1: the op is faster")
    for row in got["rows"]:
        impls = row["impls"]
        ours = impls.get("fmhactl", {})
        cells = []
        for name in ("sdpa-cudnn", "sdpa-flash", "sdpa"):
            base = impls.get(name, {})
            if "per_call_us" in base and "per_call_us" in ours:
                cells.append(f"{name}/op {base['per_call_us'] / ours['per_call_us']:.3f}")
        bench = ""
        if "do_bench_us" in ours and "do_bench_us" in impls.get("sdpa-cudnn", {}):
            bench = f"  do_bench cudnn/op {impls['sdpa-cudnn']['do_bench_us'] / ours['do_bench_us']:.3f}"
        grow = impls.get("fmhactl-new-length", {})
        if "host_us" in grow:
            bench += f"  new KV length each call: host {grow['host_us']:.1f} us, per call {grow['per_call_us']:.1f} us"
        print(f"{row['shape']:40s} op {ours.get('per_call_us', float('nan')):8.1f} us (host {ours.get('host_us', float('nan')):5.1f})"
              f"  cudnn {impls.get('sdpa-cudnn', {}).get('per_call_us', float('nan')):8.1f}  sdpa host "
              f"{impls.get('sdpa', {}).get('host_us', float('nan')):5.1f}  " + "  ".join(cells) + bench)


def decode(got) -> None:
    print("==== decode (bench --decode): kernel us (L2 flushed); cuDNN/op and flash/op > 1: the op is faster")
    for row in got["rows"]:
        impls = row["impls"]
        ours = impls.get("fmhactl", {}).get("kernel_us")
        cells = [f"{n}/op {impls[n]['kernel_us'] / ours:.2f}" for n in ("sdpa-cudnn", "sdpa-flash")
                 if ours and "kernel_us" in impls.get(n, {})]
        print(f"{row['shape']:36s} op {ours or float('nan'):7.1f} us  {impls.get('fmhactl', {}).get('hbm_gb_s', 0):6.0f} GB/s  "
              + "  ".join(cells) + f"  path: {row.get('backend')}")


def kernels(got) -> None:
    print("==== the kernel alone (bench sm90_persistent): median us; cuDNN/kernel and flash/kernel > 1: the kernel is faster")
    for row in got:
        m = row.get("metrics", {})
        k = m.get("kernel", {}).get("median_ms")
        cells = [f"{n}/kernel {b['median_ms'] / k:.3f}" for n, b in m.get("baselines", {}).items()
                 if k and b.get("available") and b.get("median_ms")]
        print(f"{row.get('config_key', '?'):40s} {(k or float('nan')) * 1e3:9.1f} us  " + "  ".join(cells))


def _spread(entry: dict) -> str:
    """The per-round ratios' range (bench.interleave.round_ratios), where the run recorded them."""
    rounds = entry.get("ratio_per_round") or []
    return f" [rounds {min(rounds):.2f}-{max(rounds):.2f}]" if rounds else ""


def model(got) -> None:
    backend = (got.get("backend") or {}).get("variant")
    print(f"==== {got['model']['name']}: tokens/s fmhactl / sdpa (> 1: fmhactl faster)"
          + (f"; backend {backend}, op calls per forward {got.get('op_calls_per_forward')}" if backend else ""))
    for r in got["results"]:
        pad = r.get("padded_batch") or {}
        print(f"prefill {r['prompt_length']:5d}: {r['ratio_tokens_per_s']:.3f}{_spread(r)}  (fmhactl {r['fmhactl']['median_ms']:.2f} ms, "
              f"sdpa {r['sdpa']['median_ms']:.2f} ms)" + (f"   padded {pad.get('lengths')}: {pad['ratio_tokens_per_s']:.3f}"
                                                          f"{_spread(pad)} (SDPA fallbacks {pad.get('sdpa_fallback_calls')})" if pad else ""))
    g = got.get("greedy_decode")
    if g:
        print(f"greedy {g['new_tokens']} after {g['prompt_length']}: {g['ratio_tokens_per_s']:.3f}{_spread(g)} "
              f"({g['fmhactl']['tokens_per_s']:.0f} vs {g['sdpa']['tokens_per_s']:.0f} tok/s), logits within the FA rule: "
              f"{g['logits']['passed']} (err {g['logits']['max_abs_err_vs_fp32']:.4f} <= {g['logits']['tolerance']:.4f})")
        first = g.get("first_pass")
        if first:
            print(f"  first pass over the KV lengths (a fresh process): {first['ratio_tokens_per_s']:.3f} "
                  f"(fmhactl {first['fmhactl_s']:.2f} s, sdpa {first['sdpa_s']:.2f} s)")


def main(out: Path) -> None:
    for name, show in (("overhead.json", overhead), ("decode.json", decode), ("kernels.json", kernels), ("kernels256.json", kernels),
                       ("model_llama.json", model),
                       ("model_qwen2.json", model)):
        got = _load(out / name)
        if got is not None:
            try:
                show(got)
            except (KeyError, TypeError, ZeroDivisionError) as exc:
                print(f"{name}: unexpected shape ({type(exc).__name__}: {exc})")


def show_files(show, paths: list[str]) -> None:
    for path in paths:
        got = _load(Path(path))
        if got is not None:
            print(f"---- {path}")
            show(got)


if __name__ == "__main__":
    if sys.argv[1:2] in (["--model"], ["--overhead"]):
        show_files(model if sys.argv[1] == "--model" else overhead, sys.argv[2:])
    else:
        main(Path(sys.argv[1]))
