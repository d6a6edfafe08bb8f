"""`fmhactl bench --model NAME`: render the model-level prefill benchmark (fmhactl.bench.model)."""

from __future__ import annotations

from fmhactl.cli.common import out_console, print_json


def model_bench(name: str, prompts: list[int], *, warmup: int, iters: int, seed: int | None, as_json: bool,
                padded: bool = False, greedy: int = 0) -> None:
    from fmhactl.services.model_bench import record, run_model_bench
    from fmhactl.services.results import ResultStore

    result = run_model_bench(name, prompts, warmup=min(warmup, 5), iters=min(iters, 50), seed=seed or 0, padded=padded,
                             greedy_tokens=greedy)
    with ResultStore() as store:
        result["row_id"] = record(result, store)
    if as_json:
        print_json(result)
        return
    from rich.table import Table

    backend = result["backend"]
    table = Table(title=f"fmhactl bench --model {name} ({result['gpu']}; fmhactl backend {backend['variant']}, "
                        f"{backend['mode']})")
    for col in ("prompt", "sdpa ms", "fmhactl ms", "sdpa tok/s", "fmhactl tok/s", "fmhactl / sdpa", "max |logit diff|"):
        table.add_column(col, justify="right")
    for r in result["results"]:
        table.add_row(str(r["prompt_length"]), f"{r['sdpa']['median_ms']:.3f}", f"{r['fmhactl']['median_ms']:.3f}",
                      f"{r['sdpa']['tokens_per_s']:.0f}", f"{r['fmhactl']['tokens_per_s']:.0f}",
                      f"{r['ratio_tokens_per_s']:.3f}", f"{r['max_logit_diff_vs_sdpa']:.4g}")
        if "padded_batch" in r:
            p = r["padded_batch"]
            table.add_row(f"4 rows {'/'.join(map(str, p['lengths']))} ({p['padding']} padded)",
                          f"{p['sdpa']['median_ms']:.3f}", f"{p['fmhactl']['median_ms']:.3f}",
                          f"{p['sdpa']['tokens_per_s']:.0f}", f"{p['fmhactl']['tokens_per_s']:.0f}",
                          f"{p['ratio_tokens_per_s']:.3f}", f"{p['max_logit_diff_vs_sdpa']:.4g}")
    g = result.get("greedy_decode")
    if g:
        table.add_row(f"greedy {g['new_tokens']} after {g['prompt_length']}", f"{g['sdpa']['median_s'] * 1e3:.1f}",
                      f"{g['fmhactl']['median_s'] * 1e3:.1f}", f"{g['sdpa']['tokens_per_s']:.0f}",
                      f"{g['fmhactl']['tokens_per_s']:.0f}", f"{g['ratio_tokens_per_s']:.3f}",
                      f"{g['logits']['max_abs_diff_vs_sdpa']:.4g} ({'pass' if g['logits']['passed'] else 'FAIL'})")
    out_console.print(table)


def dsv4_bench(prompts: list[int], *, warmup: int, iters: int, seed: int | None, as_json: bool, greedy: int,
               context: int) -> None:
    """`fmhactl bench --model dsv4`: DeepSeek-V4 attention, fmhactl vs SDPA vs flex (fmhactl.bench.dsv4)."""
    from fmhactl.cli.common import table
    from fmhactl.services.model_bench import run_dsv4_bench

    result = run_dsv4_bench(prompts, decode_tokens=greedy, context=context, warmup=min(warmup, 5),
                            iters=min(iters, 20), seed=seed or 0)
    if as_json:
        print_json(result)
        return
    rows = []
    for r in result["results"]:
        for impl in result["implementations"]:
            m = r[impl]
            diff = r.get("max_logit_diff_vs_sdpa", {}).get(impl)
            rows.append([f"prefill {r['prompt_length']}", impl, "-" if "skipped" in m else f"{m['median_ms']:.3f}",
                         "-" if "skipped" in m else f"{m['tokens_per_s']:.0f}", "-" if diff is None else f"{diff:.4g}",
                         m.get("skipped", "")])
    d = result.get("decode")
    if d:
        for impl in result["implementations"]:
            m = d[impl]
            diff = d.get("max_logit_diff_vs_sdpa", {}).get(impl)
            rows.append([f"decode {d['new_tokens']} after {d['context']}", impl,
                         "-" if "skipped" in m else f"{m['median_s'] * 1e3:.1f}",
                         "-" if "skipped" in m else f"{m['tokens_per_s']:.1f}", "-" if diff is None else f"{diff:.4g}",
                         m.get("skipped", "")])
    table(f"fmhactl bench --model dsv4 ({result['gpu']}; fmhactl: {result['backends']['window+sink']} | "
          f"{result['backends']['topk']})", ["phase", "implementation", "ms", "tok/s", "max |logit diff| vs sdpa",
                                             "note"], rows, right=["ms", "tok/s", "max |logit diff| vs sdpa"])


def _impl_rows(result: dict, cells, width: int) -> list[list[str]]:
    """One table row per (shape, implementation): cells(row, measures) for a timed one, dashes and
    the reason for a skipped one (`width` cells between the implementation and the note)."""
    rows = []
    for row in result["rows"]:
        for name, m in row["impls"].items():
            if "skipped" in m:
                rows.append([row["shape"], name, *["-"] * width, m["skipped"]])
            else:
                rows.append([row["shape"], name, *cells(row, name, m)])
    return rows


def overhead_bench(shapes: list[str], *, iters: int, seed: int | None, as_json: bool) -> None:
    """`fmhactl bench --overhead`: host µs per call, the op beside SDPA (fmhactl.bench.overhead)."""
    from fmhactl.services.model_bench import run_overhead
    from fmhactl.cli.common import table

    result = run_overhead(shapes, iters=iters, seed=seed or 0)
    if as_json:
        print_json(result)
        return
    rows = _impl_rows(result, lambda row, name, m: [
        f"{m['host_us']:.1f}", f"{m['per_call_us']:.1f}", f"{m['do_bench_us']:.1f}" if "do_bench_us" in m else "-",
        ""], 3)
    table(f"fmhactl bench --overhead ({result['gpu']}, median of {result['rounds']} x {result['iters']} calls)",
          ["shape", "implementation", "host µs/call", "per-call µs", "do_bench µs", "note"], rows,
          right=["host µs/call", "per-call µs", "do_bench µs"])


def decode_bench(shapes: list[str], *, iters: int, seed: int | None, as_json: bool) -> None:
    """`fmhactl bench --decode`: decode steps of the op beside cuDNN and flash (fmhactl.bench.decode)."""
    from fmhactl.cli.common import table
    from fmhactl.services.model_bench import run_decode_bench

    result = run_decode_bench(shapes, iters=iters, seed=seed or 0)
    if as_json:
        print_json(result)
        return

    def cells(row: dict, name: str, m: dict) -> list[str]:
        speed = row["speed"].get(f"{name}/fmhactl kernel_us")
        note = m.get("note", "")
        launch = row.get("decode_launch") if name == "fmhactl" else None
        if launch:
            note = f"{launch['kernel']} kernel, {launch['n_splits']} split(s) of {launch['split_keys']} keys"
        return [f"{m['kernel_us']:.1f}", f"{m['per_call_us']:.1f}", f"{m['hbm_gb_s']:.0f}",
                f"{speed:.2f}x" if speed else "-", note]

    table(f"fmhactl bench --decode ({result['gpu']}; kernel: median of {result['rounds']} L2-flushed calls)",
          ["shape", "implementation", "kernel µs", "per-call µs", "HBM GB/s", "op speed vs this", "note"],
          _impl_rows(result, cells, 4), right=["kernel µs", "per-call µs", "HBM GB/s", "op speed vs this"])
