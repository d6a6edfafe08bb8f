"""One profiled call each of the op (and SDPA-cuDNN) at decode shapes, for ncu's
`--profile-from-start off`: every kernel a call runs, with its grid and GPU duration, free of the
event timing's host and flush noise.
    ncu --profile-from-start off --csv --metrics ... python3 scripts/device/decode_ncu.py
        [--rule "python statements on d (fmhactl.torch.decode)"] [--impls fmhactl,cudnn] SHAPE...
Warm-up calls run outside the profiled range (plans, cuDNN graph build); each profiled call's
line `profiled IMPL SHAPE` goes to stdout in the order ncu lists the kernels."""

import argparse

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import fmhactl.torch as ft
import fmhactl.torch.decode as d
from fmhactl.bench.overhead import random_qkv
from fmhactl.config import parse_shape


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rule", default="", help="python statements run first, with d = fmhactl.torch.decode")
    parser.add_argument("--impls", default="fmhactl,cudnn")
    parser.add_argument("shapes", nargs="+")
    args = parser.parse_args()
    exec(args.rule, {"d": d})  # noqa: S102 (a device tuning script: the rule is the experiment)
    gen = torch.Generator(device="cuda").manual_seed(0)
    for text in args.shapes:
        cfg = parse_shape(text)
        q, k, v = random_qkv(cfg, gen)
        gqa = cfg.heads != cfg.heads_kv
        calls = {"fmhactl": lambda: ft.attention(q, k, v),
                 "cudnn": lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=gqa)}
        calls = {name: calls[name] for name in args.impls.split(",")}
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION), torch.no_grad():
            for call in calls.values():
                for _ in range(3):
                    call()
            torch.cuda.synchronize()
            for name, call in calls.items():
                torch.cuda.cudart().cudaProfilerStart()
                call()
                torch.cuda.synchronize()
                torch.cuda.cudart().cudaProfilerStop()
                print(f"profiled {name} {text}", flush=True)


if __name__ == "__main__":
    main()
