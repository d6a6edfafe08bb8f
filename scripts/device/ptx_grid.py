"""Issue 28's grid proof on one sm_90 GPU: verify grids through the PTX path (`--emulate native`) and
the tc5:: emulated build, fast and strict, as many concurrent shards (one process and one isolated
worker each), within a time budget; one JSON line per verified config, a per-variant table last.

    python3 scripts/device/ptx_grid.py run OUT_DIR --budget S --jobs N --order ITEM[,ITEM...] [--shard K] [--skip FILE...]
        ITEM = emulation:emulate:grid (e.g. fast:native:fa, strict:tc5:seeds72), in priority order;
        ITEM+ITEM interleaves the two shard by shard
    python3 scripts/device/ptx_grid.py shard VARIANT GRID EMULATE EMULATION START STOP SEED TIMEOUT
    python3 scripts/device/ptx_grid.py summary ROWS.jsonl...

A shard verifies configs START..STOP-1 of the grid exactly as `fmhactl verify --grid GRID --seed SEED`
would (config i: seed SEED+i, layout by the parity of i; START is even), so the shards of a grid add
up to the grid's run. Rows of shards done in an earlier call (--skip ROWS.jsonl) are not run again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

SEED = 7
CONFIG_TIMEOUT_S = int(os.environ.get("PTX_GRID_CONFIG_TIMEOUT_S", "300"))  # a kill under MPS ends its neighbours too


def shard(variant: str, grid: str, emulate: str, emulation: str, start: int, stop: int, seed: int,
          timeout_s: float) -> int:
    """Verify configs start..stop-1 of the grid; print one JSON line per config as it lands."""
    import tempfile

    os.environ["FMHACTL_EMULATE"] = emulate
    os.environ["FMHACTL_EMULATION"] = emulation
    from fmhactl.registry import get_variant
    from fmhactl.results.store import ResultStore
    from fmhactl.verify.grids import load_grid
    from fmhactl.verify.sweep import run_verify

    configs = load_grid(grid).configs[start:stop]
    started = time.time()
    position = {"i": start}

    def emit(row) -> None:
        m = row.metrics
        print(json.dumps({"variant": variant, "grid": grid, "emulate": emulate, "emulation": emulation,
                          "index": position["i"], "shard": start, "config": row.config_key, "status": row.status,
                          "max_abs_err": m.get("max_abs_err"), "violations": m.get("violations", [])[:3],
                          "error": str(m.get("error", ""))[:300], "reason": str(m.get("reason", ""))[:120],
                          "t": round(time.time() - started, 2), "at": round(time.time(), 2)}), flush=True)
        position["i"] += 1

    with tempfile.TemporaryDirectory(prefix="ptxgrid-") as tmp, ResultStore(Path(tmp) / "results.db") as store:
        run_verify([get_variant(variant)], configs, store=store, timeout_s=timeout_s, seed=seed + start,
                   on_result=emit)
    return 0


def variants() -> list[str]:
    """Every sm100 variant the PTX path runs: native sm_100a builds that are emulated on sm_90a."""
    from fmhactl.registry import load_registry

    return sorted(n for n, v in load_registry().items() if "sm_100a" in v.archs and "sm_90a" in v.emulated_on)


def _grid_size(grid: str) -> int:
    from fmhactl.verify.grids import load_grid

    return len(load_grid(grid).configs)


# A CRASH or HANG row is run again by a later call (and a later row replaces it in the summary):
# under MPS one client's fatal fault ends every client of the server, so the configs in flight
# beside a fault report CRASH without being its cause (session 7, notes/ptx-path/README.md).
RERUN = ("CRASH", "HANG")


def _done(skip_files: list[str]) -> set[tuple]:
    done = set()
    for name in skip_files:
        for row in _rows(Path(name)):
            key = (row["variant"], row["grid"], row["emulate"], row["emulation"], row["index"])
            if row.get("status") in RERUN:
                done.discard(key)
            else:
                done.add(key)
    return done


def _rows(path: Path) -> list[dict]:
    import gzip

    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text(errors="replace")
    rows = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut by a kill
    return rows


def plan(order: list[str], shard_size: int, done: set[tuple]) -> list[tuple]:
    """(variant, grid, emulate, emulation, start, stop) in priority order; shards start at even
    indices and leave out configs already done. Items joined by '+' (strict:native:fa+strict:tc5:fa)
    are interleaved shard by shard, so that a cut leaves both sides with the same configs."""
    out = []
    names = variants()
    sizes: dict[str, int] = {}
    for group in order:
        items = [item.split(":") for item in group.split("+")]
        size = max(sizes.setdefault(grid, _grid_size(grid)) for _, _, grid in items)
        for start in range(0, size, shard_size):
            for variant in names:
                for emulation, emulate, grid in items:
                    todo = [i for i in range(start, min(start + shard_size, sizes[grid]))
                            if (variant, grid, emulate, emulation, i) not in done]
                    if not todo:
                        continue
                    first = todo[0] - todo[0] % 2
                    out.append((variant, grid, emulate, emulation, first, todo[-1] + 1))
    return out


def run(out_dir: Path, budget_s: float, jobs: int, order: list[str], shard_size: int, skip: list[str]) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.time()
    deadline = started + budget_s
    queue = plan(order, shard_size, _done(skip))
    print(f"[ptx-grid] {len(queue)} shards, {jobs} at a time, budget {budget_s:.0f} s", flush=True)
    running: dict[subprocess.Popen, tuple] = {}
    walls: list[dict] = []
    launched = 0
    while queue or running:
        while queue and len(running) < jobs and deadline - time.time() > 25:
            item = queue.pop(0)
            variant, grid, emulate, emulation, start, stop = item
            name = f"{emulation}-{emulate}-{grid}-{variant}-{start:03d}"
            log = open(out_dir / f"{name}.jsonl", "w")
            proc = subprocess.Popen([sys.executable, __file__, "shard", variant, grid, emulate, emulation,
                                     str(start), str(stop), str(SEED), str(CONFIG_TIMEOUT_S)],
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            running[proc] = (item, time.time(), name, log)
            launched += 1
        for proc in [p for p in running if p.poll() is not None]:
            item, t0, name, log = running.pop(proc)
            log.close()
            walls.append({"shard": name, "rc": proc.returncode, "wall": round(time.time() - t0, 1)})
        if time.time() > deadline - 8:
            for proc, (item, t0, name, log) in running.items():
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                log.close()
                walls.append({"shard": name, "rc": "cut", "wall": round(time.time() - t0, 1)})
            running.clear()
            break
        time.sleep(0.5)
    (out_dir / "shards.json").write_text(json.dumps({"walls": walls, "not_started": len(queue),
                                                      "elapsed": round(time.time() - started, 1)}))
    print(f"[ptx-grid] {launched} shards started, {len(queue)} not started, "
          f"{sum(1 for w in walls if w['rc'] == 'cut')} cut at the budget, {time.time() - started:.0f} s", flush=True)
    rows = [r for f in sorted(out_dir.glob("*.jsonl")) for r in _rows(f)]
    with open(out_dir.parent / "rows.jsonl", "a") as all_rows:
        for r in rows:
            all_rows.write(json.dumps(r) + "\n")
    for f in sorted(out_dir.glob("*.jsonl")):  # a shard's traceback, if any, for the log
        text = f.read_text(errors="replace")
        if "Traceback" in text:
            print(f"[ptx-grid] {f.name}: {text[text.index('Traceback'):][-600:]}", flush=True)
    return 0


def summary(files: list[str]) -> int:
    """Per (grid, emulation, variant): native vs tc5 pass/unsupported/other over configs run, max error,
    and process seconds (the sum over its shards of each shard's wall time to its last config: worker
    start included, and slowed by the shards running beside it)."""
    latest: dict[tuple, dict] = {}
    rerun = Counter()
    for name in files:
        for r in _rows(Path(name)) if Path(name).is_file() else []:
            key = (r["variant"], r["grid"], r["emulate"], r["emulation"], r["index"])
            before = latest.get(key)
            if before is None:
                latest[key] = {**r, "_file": name}
            elif before["status"] in RERUN:  # run again later: the later row stands, the replacement is counted
                rerun[(before["status"], r["status"])] += 1
                latest[key] = {**r, "_file": name}
    rows: dict[tuple, dict] = {}
    for r in latest.values():
        name = r["_file"]
        cell = rows.setdefault((r["grid"], r["emulation"], r["variant"], r["emulate"]),
                               {"PASS": 0, "UNSUPPORTED": 0, "other": 0, "max": 0.0, "rules": set(), "n": 0,
                                "shards": {}})
        cell["n"] += 1
        shard_key = (name, r.get("shard"))
        cell["shards"][shard_key] = max(cell["shards"].get(shard_key, 0.0), float(r.get("t", 0.0)))
        cell["PASS" if r["status"] == "PASS" else "UNSUPPORTED" if r["status"] == "UNSUPPORTED" else "other"] += 1
        if r.get("max_abs_err") is not None:
            cell["max"] = max(cell["max"], float(r["max_abs_err"]))
        cell["rules"].update(v.split(":")[0] for v in r.get("violations") or [])
    sizes: dict[str, int] = {}
    print(f"{'grid':8} {'emul':6} {'variant':22} {'PTX path (native): pass/unsup/other of n, max err':52} "
          f"{'tc5:: build: pass/unsup/other of n, max err':46}")
    totals: dict[tuple, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for grid, emulation, variant in sorted({k[:3] for k in rows}):
        size = sizes.setdefault(grid, _grid_size(grid))
        cells = []
        for emulate in ("native", "tc5"):
            c = rows.get((grid, emulation, variant, emulate))
            if c is None:
                cells.append("-")
                continue
            t = totals[(grid, emulation, emulate)]
            t[0] += c["PASS"]; t[1] += c["UNSUPPORTED"]; t[2] += c["other"]; t[3] += c["n"]
            rules = f" rules={','.join(sorted(c['rules']))}" if c["rules"] else ""
            cells.append(f"{c['PASS']}/{c['UNSUPPORTED']}/{c['other']} of {c['n']}{'' if c['n'] == size else f' (grid {size})'}"
                         f" {c['max']:.3e} {sum(c['shards'].values()):.0f}s{rules}")
        print(f"{grid:8} {emulation:6} {variant:22} {cells[0]:52} {cells[1]:46}")
    if rerun:
        print("rows run again after a CRASH/HANG (earlier -> later status): "
              + ", ".join(f"{a} -> {b}: {n}" for (a, b), n in sorted(rerun.items())))
    print("totals (pass/unsupported/other of configs run):")
    for (grid, emulation, emulate), t in sorted(totals.items()):
        print(f"  {grid:8} {emulation:6} {emulate:6} {t[0]}/{t[1]}/{t[2]} of {t[3]} (grid {sizes[grid]} per variant)")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["shard"]:
        v, g, e, em, a, b, s, t = argv[1:9]
        return shard(v, g, e, em, int(a), int(b), int(s), float(t))
    if argv[:1] == ["summary"]:
        return summary(argv[1:])
    if argv[:1] == ["run"]:
        import argparse

        p = argparse.ArgumentParser()
        p.add_argument("out", type=Path)
        p.add_argument("--budget", type=float, required=True)
        p.add_argument("--jobs", type=int, default=8)
        p.add_argument("--order", required=True)
        p.add_argument("--shard", type=int, default=16)
        p.add_argument("--skip", nargs="*", default=[])
        a = p.parse_args(argv[1:])
        return run(a.out, a.budget, a.jobs, a.order.split(","), a.shard, [s for s in a.skip if Path(s).is_file()])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
