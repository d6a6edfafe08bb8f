"""The split heuristic's two knobs (CTAS_PER_SM, MIN_SPLIT_KEYS) swept on the decode shapes, fused
merge; kernel µs after an L2 flush (median), cuDNN in the same process for the ratio.

    PYTHONPATH=<tree> python scripts/device/op_session7_sweep.py OUT.json

Prints one line last: `best CTAS,KEYS` (the pair with the lowest geometric mean of kernel µs over
the shapes: nine at T=1, three at T=4/16); op_session7.sh passes it on as FMHACTL_DECODE_SPLITS to the later steps, so the
decode bench and the models run the picked pair (and the JSON says which pair that was).
"""

from __future__ import annotations

import json
import math
import statistics
import sys

SHAPES = (
    "b=1,h=32,hkv=8,t=1,s=2048,d=128", "b=1,h=32,hkv=8,t=1,s=8192,d=128", "b=1,h=32,hkv=8,t=1,s=32768,d=128",
    "b=1,h=16,hkv=4,t=1,s=2048,d=64", "b=1,h=16,hkv=4,t=1,s=8192,d=64", "b=1,h=16,hkv=4,t=1,s=32768,d=64",
    "b=8,h=32,hkv=8,t=1,s=8192,d=128", "b=1,h=32,hkv=32,t=1,s=8192,d=128", "b=1,h=16,hkv=4,t=1,s=2176,d=128",
    "b=1,h=32,hkv=8,t=4,s=8192,d=128", "b=1,h=32,hkv=8,t=16,s=8192,d=128", "b=1,h=16,hkv=4,t=16,s=32768,d=64",
)
KNOBS = [(c, k) for c in (1, 2, 3, 4) for k in (64, 128, 256, 512)]


def main(out_path: str, rounds: int = 15) -> int:
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import fmhactl.torch as ft
    from fmhactl.bench.decode import FLUSH_BYTES, flushed_kernel_us, parse_decode_shapes
    from fmhactl.bench.overhead import random_qkv
    from fmhactl.torch import decode

    configs = parse_decode_shapes(SHAPES)
    gen = torch.Generator(device="cuda").manual_seed(0)
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    rows = []
    defaults = (decode.CTAS_PER_SM, decode.MIN_SPLIT_KEYS)
    try:
        for cfg in configs:
            q, k, v = random_qkv(cfg, gen)
            row = {"shape": cfg.key, "t": cfg.seq_q, "knobs": {}}
            try:
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    row["cudnn_us"] = flushed_kernel_us(
                        lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                                 enable_gqa=cfg.heads != cfg.heads_kv),
                        rounds, flush, warmup=3)
            except RuntimeError as exc:
                row["cudnn_us"] = None
                row["cudnn_skipped"] = str(exc).splitlines()[0][:120]
            for ctas, keys in KNOBS:
                decode.CTAS_PER_SM, decode.MIN_SPLIT_KEYS = ctas, keys
                n = decode.choose_splits(cfg.batch * cfg.heads_kv, 1,
                                         decode.row_groups(cfg.seq_q, cfg.heads, cfg.heads_kv), cfg.seq_k,
                                         torch.cuda.get_device_properties(0).multi_processor_count,
                                         decode.RESIDENT_CTAS.get(cfg.head_dim, 0),
                                         decode.group_rows(cfg.seq_q, cfg.heads, cfg.heads_kv))[0]
                with torch.no_grad():
                    us = flushed_kernel_us(lambda: ft.attention(q, k, v), rounds, flush, warmup=3)
                row["knobs"][f"{ctas},{keys}"] = {"us": us, "splits": n}
            rows.append(row)
            best = min(row["knobs"].items(), key=lambda kv: kv[1]["us"])
            print(f"{cfg.key}: cudnn {row['cudnn_us'] or float('nan'):.1f} us; "
                  + " ".join(f"{name}={m['us']:.1f}({m['splits']})" for name, m in row["knobs"].items())
                  + f"; best {best[0]}", flush=True)
    finally:
        decode.CTAS_PER_SM, decode.MIN_SPLIT_KEYS = defaults
    score = {name: math.exp(statistics.fmean(math.log(r["knobs"][name]["us"]) for r in rows))
             for name in rows[0]["knobs"]}
    best = min(score, key=score.get)
    with open(out_path, "w") as f:
        json.dump({"schema_version": 1, "kind": "decode-split-sweep", "gpu": torch.cuda.get_device_name(),
                   "rounds": rounds, "defaults": f"{defaults[0]},{defaults[1]}", "geomean_us": score,
                   "best": best, "rows": rows}, f, indent=1)
    print("geomean us (all shapes): " + " ".join(f"{n}={s:.1f}" for n, s in sorted(score.items(), key=lambda kv: kv[1])))
    print(f"best {best}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
