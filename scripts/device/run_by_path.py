"""Run one function of a module file against whichever fmhactl is on PYTHONPATH; print its JSON.

    PYTHONPATH=<tree> python scripts/device/run_by_path.py MODULE_FILE FUNCTION JSON_KWARGS [ARG...]

FUNCTION(ARGS, **KWARGS) where ARGs were given (as one list), else FUNCTION(**KWARGS).

scripts/device/op_session5.sh times the tree before a change with the benchmark modules of the
tree after it, so both sides are measured by the same code (each in its own process).
"""

from __future__ import annotations

import importlib.util
import json
import sys


def main(argv: list[str]) -> int:
    path, function, kwargs, *args = argv
    spec = importlib.util.spec_from_file_location("bench_module", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    call = getattr(module, function)
    result = call(args, **json.loads(kwargs)) if args else call(**json.loads(kwargs))  # ARGs: one list
    print(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
