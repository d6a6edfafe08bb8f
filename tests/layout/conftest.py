"""Fixtures of the layout-model tests: the compiled CuTe oracles and their parsed outputs."""

from __future__ import annotations

from collections import defaultdict

import pytest

import oracle_build


@pytest.fixture(scope="session")
def oracle_bins() -> dict:
    try:
        return oracle_build.build_all()
    except oracle_build.OracleUnavailable as exc:
        pytest.skip(f"CuTe oracle unavailable: {exc}")


@pytest.fixture(scope="session")
def tmem_oracle(oracle_bins) -> dict:
    """{"ops": {(shape, num, pack): set of access tuples}, "store_same": {...}, "acc": [...], "tsa": [...]}"""
    ops: dict = defaultdict(set)
    store: dict = {}
    acc, tsa = [], []
    current = None
    for line in oracle_build.run(oracle_bins["tmem_oracle"]).splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "OP":
            current = (f[1], int(f[2]), bool(int(f[3])))
            ops[current]  # noqa: B018 - create the entry even if empty
        elif f[0] == "A":
            ops[current].add(tuple(int(x) for x in f[1:]))
        elif f[0] == "ST":
            store[(f[1], int(f[2]), bool(int(f[3])))] = f[4] == "1"
        elif f[0] == "ACC":
            acc.append(tuple(int(x) for x in f[1:]))
        elif f[0] == "TSA":
            tsa.append(tuple(int(x) for x in f[1:]))
    return {"ops": dict(ops), "store_same": store, "acc": acc, "tsa": tsa}


@pytest.fixture(scope="session")
def canon_oracle(oracle_bins) -> list[dict]:
    """One dict per CANON block: major, swizzle, elem_bytes, rows, cols, order, slices {kb: fields},
    elements [(kb, mn, k, byte)]."""
    blocks: list[dict] = []
    for name in ("canon_k", "canon_mn"):
        for line in oracle_build.run(oracle_bins[name]).splitlines():
            f = line.split()
            if not f:
                continue
            if f[0] == "CANON":
                blocks.append({"major": f[1], "swizzle": f[2], "elem_bytes": int(f[3]), "rows": int(f[4]),
                               "cols": int(f[5]), "order": int(f[6]), "slices": {}, "elements": []})
            elif f[0] == "SLICE":
                kb, lbo, sbo, layout, start = (int(x) for x in f[1:])
                blocks[-1]["slices"][kb] = {"lbo": lbo << 4, "sbo": sbo << 4, "layout": layout, "start": start}
            elif f[0] == "E":
                blocks[-1]["elements"].append(tuple(int(x) for x in f[1:]))
    return blocks


@pytest.fixture(scope="session")
def idesc_oracle(oracle_bins) -> list[tuple]:
    out = []
    for line in oracle_build.run(oracle_bins["desc_fields"]).splitlines():
        f = line.split()
        if f and f[0] == "IDESC":
            out.append((f[1], f[2], f[3], int(f[4]), int(f[5]), f[6], f[7], int(f[8]), int(f[9]), int(f[10], 16)))
    return out


@pytest.fixture(scope="session")
def fields_oracle(oracle_bins):
    """A function: list of request lines -> list of answer lines from the bitfield unions."""
    def ask(lines: list[str]) -> list[str]:
        return oracle_build.run(oracle_bins["desc_fields"], "fields", stdin="\n".join(lines) + "\n").splitlines()
    return ask
