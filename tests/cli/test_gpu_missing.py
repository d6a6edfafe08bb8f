"""One GPU-missing message for every command that needs a GPU, made in one place
(fmhactl.runtime.device.no_gpu), after every input was checked (issue 22 item 5)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SHAPE = "b=1,h=1,t=128,s=512,d=128"


@pytest.mark.parametrize("args", [
    ["run", "ref", "--shape", SHAPE],
    ["verify", "ref", "--shape", SHAPE],
    ["verify", "ref", "--shape", SHAPE, "--gpus", "all"],
    ["bench", "ref", "--shape", SHAPE],
    ["bench", "--model", "llama-small"],
    ["dump", "sm100_tma_s2_smem", "--shape", SHAPE, "--at", "S"],
    ["trace", "sm100_tma_s2_tmem", "--shape", SHAPE],
], ids=lambda a: " ".join(a[:2]))
def test_every_gpu_command_says_the_same_words(args, tmp_path):
    env = {**os.environ, "FMHACTL_ASSUME_NO_GPU": "1", "FMHACTL_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "fmhactl", *args], capture_output=True, text=True, timeout=300,
                          env=env)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 3, proc.stderr[-500:]
    assert len(lines) == 1 and lines[0].startswith("fmhactl: error: no GPU usable here ("), lines


def test_input_errors_come_before_the_gpu_probe(tmp_path):
    env = {**os.environ, "FMHACTL_ASSUME_NO_GPU": "1", "FMHACTL_HOME": str(tmp_path)}
    for args, rule in ((["verify", "sm90_persistent", "--shape", "d=256"], "head_dim 256 not supported (supports 64, 128)"),
                       (["verify", "ref", "--shape", ""], "--shape is empty"),
                       (["run", "ref", "--shape", ","], "--shape is empty"),
                       (["trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--timeout", "0"], "--timeout")):
        proc = subprocess.run([sys.executable, "-m", "fmhactl", *args], capture_output=True, text=True, timeout=300,
                              env=env)
        assert proc.returncode == 2 and rule in proc.stderr, (args, proc.stderr)
