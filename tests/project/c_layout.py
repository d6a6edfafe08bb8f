"""What the host compiler says of a params struct: the twin that ctypes builds must agree with it."""

from __future__ import annotations

import subprocess
from pathlib import Path


def compiler_layout(tmp_path: Path, compiler: str, suffix: str, declarations: str, type_name: str,
                    fields: list[str]) -> dict[str, int]:
    """offsetof of each field of `type_name` and its sizeof (key "size"), compiled and run with
    `compiler` (cc for C, c++ for C++: suffix .c or .cpp) after `declarations`."""
    prints = "".join(f'printf("{name} %zu\\n", offsetof({type_name}, {name}));' for name in fields)
    source = tmp_path / f"layout{suffix}"
    source.write_text("#include <stdio.h>\n#include <stddef.h>\ntypedef unsigned short bf16_t;\n"
                      f"{declarations}\nint main(void) {{ {prints} printf(\"size %zu\\n\", sizeof({type_name})); }}\n")
    subprocess.run([compiler, "-o", str(tmp_path / "layout"), str(source)], check=True)
    run = subprocess.run([str(tmp_path / "layout")], capture_output=True, text=True, check=True)
    return {name: int(value) for name, value in (line.split() for line in run.stdout.splitlines())}


def assert_block_matches(c_layout: dict[str, int], block, fields: list[dict]) -> None:
    """Every declared field of the ctypes `block` at the compiler's offset, and the same size."""
    import ctypes

    for f in fields:
        assert c_layout[f["name"]] == getattr(block, f["name"]).offset, f["name"]
    assert c_layout["size"] == ctypes.sizeof(block)
