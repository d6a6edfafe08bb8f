"""Which SDPA backend pays on a KV length it has not seen (session 20: SDPA's first greedy run
over new lengths ran 10-14x slower than its later runs). One decode-shaped call (b1, 16 query
heads over 4 KV heads, one query, hd 64, bf16) per KV length, twice: the first call's and the
second call's host+GPU microseconds (perf_counter around the call and a synchronize), for the
default dispatch and each backend forced alone. Prints one line per backend; timing lives here,
never in tests.

    python3 scripts/device/sdpa_new_length_probe.py [FIRST_LENGTH] [COUNT]
"""

from __future__ import annotations

import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def _call_us(q, k, v) -> float:
    torch.cuda.synchronize()
    begin = time.perf_counter()
    F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    torch.cuda.synchronize()
    return (time.perf_counter() - begin) * 1e6


def main(argv: list[str]) -> int:
    first = int(argv[0]) if argv else 2048
    count = int(argv[1]) if len(argv) > 1 else 12
    q = torch.randn(1, 16, 1, 64, device="cuda", dtype=torch.bfloat16)
    kv = torch.randn(1, 4, first + 4 * count * 5, 64, device="cuda", dtype=torch.bfloat16)
    backends = {"default": None, "cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}
    base = first
    for name, backend in backends.items():
        firsts, seconds = [], []
        try:
            for length in range(base, base + count):
                k = kv[:, :, :length]
                if backend is None:
                    firsts.append(_call_us(q, k, k))
                    seconds.append(_call_us(q, k, k))
                else:
                    with sdpa_kernel(backend):
                        firsts.append(_call_us(q, k, k))
                        seconds.append(_call_us(q, k, k))
        except RuntimeError as exc:
            print(f"{name:9s} not available: {str(exc).splitlines()[0][:120]}")
            continue
        finally:
            base += count  # every backend sees lengths no other has
        print(f"{name:9s} first call at a new KV length: median {statistics.median(firsts):8.1f} us "
              f"(max {max(firsts):8.1f}); the same length again: median {statistics.median(seconds):6.1f} us")
    print(f"torch {torch.__version__}, cudnn {torch.backends.cudnn.version()}, "
          f"cudnn_sdp_enabled {torch.backends.cuda.cudnn_sdp_enabled()}, {torch.cuda.get_device_name()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
