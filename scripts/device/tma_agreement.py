#!/usr/bin/env python3
"""Does fmhactl's cuTensorMapEncodeTiled validator agree with the real driver?

Run on a GPU machine from the repository root:

    python scripts/device/tma_agreement.py [--seed 20261122] [--count 240] [--quiet]

It draws --count randomized parameter sets (valid ones and ones breaking one documented rule),
adds seed 002's create_tma_desc_2d_bf16 calls, encodes each with the real driver (cuda-python,
real cuMemAlloc addresses) and with the model, prints every disagreement, then the probes
(questions the documentation leaves open; reported, not scored), and ends with

    tma agreement: N/N agree (valid V, invalid I)

Exit status: 0 when every counted case agrees, 1 on any disagreement or harness error, 3 when
no CUDA driver/GPU is usable.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fmhactl.errors import MissingEnvironment  # noqa: E402
from fmhactl.layout import tma_agreement as ta  # noqa: E402
from fmhactl.layout.tensormap_driver import DriverSession  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--count", type=int, default=240, help="randomized (counted) parameter sets")
    parser.add_argument("--quiet", action="store_true", help="only disagreements, probes and the summary")
    args = parser.parse_args(argv)
    try:
        session = DriverSession(buffer_bytes=64 << 20)
    except MissingEnvironment as exc:
        print(f"tma agreement: no usable CUDA driver/GPU: {exc}")
        return 3
    with session:
        print(f"device: {session.device_name} (sm_{session.compute_capability[0]}{session.compute_capability[1]}), "
              f"driver {session.driver_version}, buffer at 0x{session.base:x}")

        def encode(p):  # type: ignore[no-untyped-def]
            verdict = session.encode(p)
            return verdict.ok, verdict.name

        seed = ta.run(ta.seed002_cases(), encode, session.base)
        rand = ta.run(ta.random_cases(args.seed, args.count, session.buffer_bytes), encode, session.base)
        probes = ta.run(ta.probe_cases(), encode, session.base)
    counted = [o for o in seed + rand if o.case.counted]
    print("seed 002 (create_tma_desc_2d_bf16):")
    for o in seed:
        mark = "" if not o.case.counted else ("  agree" if o.agree else "  DISAGREE")
        print(f"  {o.line()}{mark}")
        print(f"    {o.params.c_call()}")
    if not args.quiet:
        for o in rand:
            print(("agree     " if o.agree else "DISAGREE  ") + o.line())
    bad = [o for o in counted if not o.agree]
    if bad:
        print(f"{len(bad)} disagreement(s):")
        for o in bad:
            print(f"  DISAGREE {o.line()}")
            print(f"    {o.params.c_call()}")
    print("probes (undocumented behaviour, not scored):")
    for o in probes + [o for o in seed if not o.case.counted]:
        answer = "accepted" if o.driver_ok else f"refused ({o.driver_name})" if o.driver_ok is False else o.driver_name
        print(f"  {o.case.name}: {o.case.question} -> driver {answer}; model "
              f"{'valid' if o.model_ok else 'invalid (' + ', '.join(o.rules) + ')'}")
    print(ta.summary_line(counted))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
