"""Summary of scripts/device/sparse27.sh: verify counts and max errors, bench ms and ratios, and
for each bench row the bytes the kernel must move (gathered K/V rows, Q, O, LSE, the lists) and
what that is per second.

Usage: python3 scripts/device/sparse27_summary.py --verify V.json [...] --bench B.json [...]
Each file is `fmhactl verify/bench --json` output (a JSON array of rows); unreadable files are
named, not fatal. Gathered bytes come from the row's own config and seed (the lists the kernel was
given, drawn again on the CPU): each top-k entry in the token's causal/window range is one K row
(and one V row unless K = V) of head_dim * 2 bytes, duplicates included; without top-k, the
range itself.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

H100_HBM_GBS = 3350.0  # H100 SXM peak, for the fraction shown


def _load(path: str) -> list[dict]:
    try:
        rows = json.load(open(path))
    except (OSError, ValueError) as exc:
        print(f"{path}: unreadable ({str(exc)[:120]})")
        return []
    if not isinstance(rows, list):
        print(f"{path}: not a JSON array of rows")
        return []
    return rows


def visible_entries(config: dict, seed: int | None) -> int:
    """Key rows the kernel gathers for the whole launch (per token and KV head, summed)."""
    from fmhactl.config import AttnConfig

    cfg = AttnConfig.from_dict(config)
    if not cfg.topk:
        return sum(cfg.visible_keys(i) for i in range(cfg.seq_q)) * cfg.batch * cfg.heads_kv
    import torch

    from fmhactl.runtime.features import make_feature_inputs

    idx = make_feature_inputs(cfg, int(seed or 0), device="cpu").topk_idx.long()  # (b, t, hkv, k)
    rows = torch.arange(cfg.seq_q).view(1, -1, 1, 1)
    diag = rows + (cfg.seq_k - cfg.seq_q)
    ok = (idx >= 0) & (idx < cfg.seq_k)
    if cfg.window_left >= 0:
        ok &= idx >= diag - cfg.window_left
    if cfg.right_bound >= 0:
        ok &= idx <= diag + cfg.right_bound
    return int(ok.sum())


def moved_bytes(config: dict, seed: int | None) -> tuple[int, int]:
    """(gathered K/V bytes, all bytes: + Q read, O written, LSE, top-k lists)."""
    from fmhactl.config import AttnConfig

    cfg = AttnConfig.from_dict(config)
    row = cfg.head_dim * 2
    gathered = visible_entries(config, seed) * row * (1 if cfg.kv_shared else 2)
    q_o = 2 * cfg.batch * cfg.seq_q * cfg.heads * row
    extra = 4 * cfg.batch * cfg.heads * cfg.seq_q + 4 * cfg.batch * cfg.seq_q * cfg.heads_kv * cfg.topk
    return gathered, gathered + q_o + extra


def verify_lines(rows: list[dict]) -> list[str]:
    out = [f"rows {len(rows)} {dict(Counter(r.get('status') for r in rows))}"]
    err = ratio = lse = lse_ratio = 0.0
    for r in rows:
        m = r.get("metrics") or {}
        if r.get("status") in ("PASS", "FAIL"):
            err = max(err, m.get("max_abs_err") or 0.0)
            ratio = max(ratio, (m.get("max_abs_err") or 0.0) / (m.get("tolerance") or 1e-30))
            lse = max(lse, m.get("lse_max_err") or 0.0)
            lse_ratio = max(lse_ratio, (m.get("lse_max_err") or 0.0) / (m.get("lse_tolerance") or 1e-30))
        if r.get("status") != "PASS":
            why = m.get("reason") or m.get("error") or m.get("reasons") or ""
            out.append(f"  {r.get('status')} {r.get('config_key')} {str(why)[:160]}")
    out.append(f"max|O err| {err:.3e} (x{ratio:.3f} of tolerance)  max|LSE err| {lse:.3e} (x{lse_ratio:.3f})")
    return out


def bench_lines(rows: list[dict]) -> list[str]:
    out = []
    for r in rows:
        m = r.get("metrics") or {}
        k = m.get("kernel") or {}
        head = f"{r.get('config_key')}\t{r.get('status')}"
        if not k.get("median_ms"):
            out.append(f"{head}\t{str(m.get('error') or m)[:200]}")
            continue
        ms = k["median_ms"]
        parts = [f"{head}\tkernel {ms:.4f} ms (p10 {k.get('p10_ms', 0):.4f}, p90 {k.get('p90_ms', 0):.4f}) "
                 f"{k.get('tflops', 0):.1f} TFLOP/s"]
        try:
            gathered, total = moved_bytes(r.get("config") or {}, r.get("seed"))
            gbs = total / (ms * 1e-3) / 1e9
            parts.append(f"gathered {gathered / 2**20:.2f} MiB, moved {total / 2**20:.2f} MiB: {gbs:.0f} GB/s "
                         f"({100 * gbs / H100_HBM_GBS:.0f}% of {H100_HBM_GBS:.0f})")
        except Exception as exc:  # noqa: BLE001 - a summary line, never a failed script
            parts.append(f"bytes n/a ({str(exc)[:80]})")
        for name, b in (m.get("baselines") or {}).items():
            if b.get("available"):
                parts.append(f"{name} {b['median_ms']:.4f} ms (kernel x{b['median_ms'] / ms:.2f} faster)")
            elif name in ("sdpa-mask", "flex"):
                parts.append(f"{name} n/a ({str(b.get('reason'))[:70]})")
        out.append("\t".join(parts))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--verify", nargs="*", default=[])
    parser.add_argument("--bench", nargs="*", default=[])
    args = parser.parse_args(argv)
    for path in args.verify:
        print(f"==== verify {path.rsplit('/', 1)[-1]}")
        print("\n".join(verify_lines(_load(path))))
    print("==== bench (median; 'kernel xN faster' = baseline ms / kernel ms)")
    for path in args.bench:
        print("\n".join(bench_lines(_load(path))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
