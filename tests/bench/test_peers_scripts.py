"""The peers payload's device scripts on the CPU: peers_install.sh stages the parts each call
carries, unpacks the site only once every part is there and checks out (a damaged part is
refused), and writes env.sh; peers_bench.sh's dry run lists its steps; the summary reads rows."""

from __future__ import annotations

import hashlib
import io
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEVICE = ROOT / "scripts" / "device"
sys.path.insert(0, str(DEVICE))

import peers_summary  # noqa: E402


def _payload(root: Path, parts: int = 2) -> None:
    """A small site tree as .peers/callN/peers.tar.xz.partN + MANIFEST, as peers_payload.sh lays it out."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, text in (("./flash_attn/cute/__init__.py", b"x = 1\n"), ("./flashinfer/__init__.py", b"y = 2\n")):
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
    archive = lzma.compress(buf.getvalue() + os.urandom(4096))  # random tail: no part is empty
    size = -(-len(archive) // parts)
    chunks = [archive[i * size:(i + 1) * size] for i in range(parts)]
    manifest = [f"parts {parts}", f"archive {hashlib.sha256(archive).hexdigest()}"]
    manifest += [f"part{i + 1} {hashlib.sha256(c).hexdigest()}" for i, c in enumerate(chunks)]
    for i, chunk in enumerate(chunks, 1):
        folder = root / ".peers" / f"call{i}"
        folder.mkdir(parents=True)
        (folder / f"peers.tar.xz.part{i}").write_bytes(chunk)
        (folder / "MANIFEST").write_text("\n".join(manifest) + "\n")


def _install(cwd: Path, tmp: Path):
    env = {**os.environ, "PEERS_STAGE": str(tmp / "parts"), "PEERS_SITE": str(tmp / "site"),
           "PEERS_CACHE": str(tmp / "cache")}
    return subprocess.run(["bash", str(DEVICE / "peers_install.sh")], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.skipif(shutil.which("xz") is None, reason="needs xz")
def test_install_stages_each_call_and_unpacks_once_every_part_is_there(tmp_path):
    carried = tmp_path / "carried"
    _payload(carried)
    call1, call2 = tmp_path / "call1", tmp_path / "call2"  # what each call's tree holds of .peers
    shutil.copytree(carried / ".peers" / "call1", call1 / ".peers" / "call1")
    shutil.copytree(carried / ".peers" / "call2", call2 / ".peers" / "call2")

    first = _install(call1, tmp_path)
    assert first.returncode == 0 and "staged 1/2" in first.stdout, first.stdout + first.stderr
    assert not (tmp_path / "site" / ".complete").exists()

    second = _install(call2, tmp_path)
    assert second.returncode == 0 and "ready" in second.stdout, second.stdout + second.stderr
    site = tmp_path / "site"
    assert (site / "flash_attn" / "cute" / "__init__.py").read_text() == "x = 1\n"
    env = (site / "env.sh").read_text()
    assert f"{site}:{site}/nvidia_cutlass_dsl/dsl_packages" in env and "FLASHINFER_WORKSPACE_BASE" in env
    again = _install(call2, tmp_path)
    assert again.returncode == 0 and "unpacked earlier" in again.stdout


@pytest.mark.skipif(shutil.which("xz") is None, reason="needs xz")
def test_install_refuses_a_damaged_part_and_a_call_with_none(tmp_path):
    _payload(tmp_path / "tree")
    part = tmp_path / "tree" / ".peers" / "call2" / "peers.tar.xz.part2"
    part.write_bytes(part.read_bytes()[:-1] + b"\0")
    done = _install(tmp_path / "tree", tmp_path)
    assert done.returncode == 1 and "part 2 is damaged" in done.stdout
    assert not (tmp_path / "site" / ".complete").exists()
    (tmp_path / "empty").mkdir()
    done = _install(tmp_path / "empty", tmp_path / "fresh")
    assert done.returncode == 1 and "carry .peers/call1" in done.stdout


def test_the_bench_script_parses_and_its_dry_run_lists_the_steps(tmp_path):
    for script in ("peers_payload.sh", "peers_install.sh", "peers_bench.sh"):
        subprocess.run(["bash", "-n", str(DEVICE / script)], check=True)
    env = {**os.environ, "DRY": "1", "OUT": str(tmp_path / "out")}
    done = subprocess.run(["bash", str(DEVICE / "peers_bench.sh")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "] imports (cap 60s)" in done.stdout
    bench = next(line for line in done.stdout.splitlines() if "] bench (cap " in line)
    for part in ("sm90_persistent --shape b=16,h=16", "--baseline cudnn", "--baseline flash", "--baseline fa4",
                 "--baseline flashinfer"):
        assert part in bench
    assert "d=256" not in bench  # sm90_persistent has no d=256: bench would refuse the whole list


def test_the_summary_names_peers_plainly_and_says_why_one_is_missing():
    timing = {"median_ms": 1.0, "p10_ms": 1.0, "p90_ms": 1.0, "min_ms": 1.0, "iters": 5}
    rows = [{"id": 1, "variant": "sm90_persistent", "config_key": "b1h2-t8s8-d64-bf16", "status": "OK",
             "metrics": {"kernel": {**timing, "tflops": 500.0}, "baselines": {
                 "cudnn": {**timing, "median_ms": 1.25, "tflops": 400.0, "available": True, "ratio": 1.25},
                 "fa4": {**timing, "median_ms": 0.8, "tflops": 625.0, "available": True, "ratio": 0.8},
                 "flashinfer": {"available": False, "reason": "wrong output: max|out-ref| 1e-1 > tolerance 1e-2"}}}}]
    text = "\n".join(peers_summary.lines(rows))
    assert "sdpa/cudnn" in text and "ours/it 1.250" in text
    assert "fa4 " in text and "sdpa/fa4" not in text and "ours/it 0.800" in text
    assert "flashinfer   n/a: wrong output" in text
