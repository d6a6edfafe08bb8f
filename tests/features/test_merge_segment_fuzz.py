"""Corruption fuzz of the segment files `fmhactl merge SEG.pt ... --out FILE` reads.

Valid segments are torch files of {"out": (b, t, h, d), "lse": fp32 (b, h, t)}, one of them
written by `fmhactl merge` itself. Each example damages one segment: bytes of the file flipped,
cut or appended; a tensor of another dtype, shape or device-free kind, NaN/Inf/huge values, a key
missing or added, a value that is not a tensor; a folder or a symlink loop where the file was.
Property: the merge is written and reads back finite where the inputs allow, or one
`fmhactl: error:` line with exit 2 naming the problem, and no output file is left behind.
"""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")
torch = pytest.importorskip("torch")
from hypothesis import given, strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from fmhactl.cli.app import app  # noqa: E402
from tests.corruption import Artifact, assert_clean_outcome, damage_path, fuzz_settings, mutate_bytes  # noqa: E402

B, T, H, D = 1, 4, 2, 8


def _segment(seed: int) -> dict:
    gen = torch.Generator().manual_seed(seed)
    return {"out": torch.randn(B, T, H, D, generator=gen), "lse": torch.randn(B, H, T, generator=gen)}


def _bytes(obj: object) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def segments(tmp_path_factory) -> Artifact:
    folder = tmp_path_factory.mktemp("segments")
    for i in range(2):
        torch.save(_segment(i), folder / f"seg{i}.pt")
    result = CliRunner().invoke(app, ["merge", str(folder / "seg0.pt"), str(folder / "seg1.pt"),
                                      "--out", str(folder / "merged.pt")])
    assert result.exit_code == 0, result.output
    return Artifact("merge segments", files={p.name: p.read_bytes() for p in folder.iterdir()})


ODD_TENSORS = [
    lambda t: t.double(), lambda t: t.half(), lambda t: t.to(torch.int32), lambda t: t.bool(),
    lambda t: t[..., :1], lambda t: t.unsqueeze(0), lambda t: t.reshape(-1), lambda t: t.transpose(0, -1),
    lambda t: torch.full_like(t, float("nan")), lambda t: torch.full_like(t, float("inf")),
    lambda t: torch.full_like(t, float("-inf")), lambda t: torch.full_like(t, 3e38),
    lambda t: t.to(torch.complex64), lambda t: torch.empty(0), lambda t: t[:0],
    lambda t: t.tolist(), lambda t: None, lambda t: "tensor", lambda t: {"nested": t},
    lambda t: t.as_strided((1,) * t.dim(), (0,) * t.dim()), lambda t: t.to_sparse(),
]


def _damage_tree(data: st.DataObject, segment: dict) -> tuple[str, bytes]:
    op = data.draw(st.sampled_from(["tensor", "tensor", "drop", "add", "list", "root"]), label="tree op")
    key = data.draw(st.sampled_from(["out", "lse"]), label="key")
    seg = dict(segment)
    if op == "tensor":
        index = data.draw(st.integers(0, len(ODD_TENSORS) - 1), label="odd tensor")
        seg[key] = ODD_TENSORS[index](seg[key])
        return f"{key} = odd tensor #{index}", _bytes(seg)
    if op == "drop":
        del seg[key]
        return f"drop {key}", _bytes(seg)
    if op == "add":
        seg["extra"] = torch.zeros(1)
        return "add a key", _bytes(seg)
    if op == "list":
        return "a list of the tensors", _bytes([seg["out"], seg["lse"]])
    return "a tensor at the root", _bytes(seg["out"])


@fuzz_settings(60)
@given(data=st.data())
def test_damaged_segment_is_merged_or_refused(segments, data):
    work = Path(tempfile.mkdtemp(prefix="fmhactl-fuzz-merge-"))
    try:
        for name, blob in segments.files.items():
            (work / name).write_bytes(blob)
        victim = work / data.draw(st.sampled_from(sorted(segments.files)), label="segment")
        kind = data.draw(st.sampled_from(["bytes", "tree", "tree", "fs"]), label="damage")
        if kind == "bytes":
            what, blob = mutate_bytes(data, victim.read_bytes())
            victim.write_bytes(blob)
        elif kind == "tree":
            what, blob = _damage_tree(data, torch.load(victim, weights_only=True))
            victim.write_bytes(blob)
        else:
            what = damage_path(data.draw(st.sampled_from(["folder", "symlink_loop", "dangling_symlink"])), victim)
        out = work / "result" / "merged-again.pt"
        names = sorted(segments.files)
        result = CliRunner().invoke(app, ["merge", *(str(work / n) for n in names), "--out", str(out)],
                                    env={"FMHACTL_HOME": str(work / "home")})
        assert_clean_outcome(result, (0, 2), what, "merge")
        if result.exit_code == 2:
            assert not out.exists(), f"{what}: refused, yet {out} was written"
            return
        merged = torch.load(out, weights_only=True)
        assert set(merged) == {"out", "lse"}, what
        assert bool(torch.isfinite(merged["out"]).all()), f"{what}: merged out not finite"
        assert not bool(torch.isnan(merged["lse"]).any()), f"{what}: merged lse has NaN"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_a_sparse_segment_is_bad_input(segments, tmp_path):
    """A sparse out tensor passed the dtype and shape checks, then torch raised NotImplementedError
    in the NaN check: an internal error. Only dense (strided) tensors are taken."""
    for name, blob in segments.files.items():
        (tmp_path / name).write_bytes(blob)
    seg = torch.load(tmp_path / "seg1.pt", weights_only=True)
    torch.save({"out": seg["out"].to_sparse(), "lse": seg["lse"]}, tmp_path / "seg1.pt")
    out = tmp_path / "out" / "merged.pt"
    result = CliRunner().invoke(app, ["merge", str(tmp_path / "seg0.pt"), str(tmp_path / "seg1.pt"), "--out", str(out)])
    assert_clean_outcome(result, (2,), "sparse out")
    assert "dense" in result.stderr and not out.exists()
