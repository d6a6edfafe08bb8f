"""Keep the alignment a kernel declares for its dynamic shared memory through the PTX path's link.

A kernel that declares `extern __shared__ __align__(1024) unsigned char smem[]` gets a dynamic-SMEM
base that is 1024-byte aligned natively (the compiler pads the kernel's static section to a
multiple of the alignment; the launch puts dynamic SMEM right after it), and the compiler relies on
it: it folds address arithmetic on `smem` (e.g. a descriptor's start-address mask) to the declared
alignment. nvJitLink 13.0, linking the rewritten module, drops that padding: the static section of a
kernel with 12 bytes of static variables ends at 0x410, so dynamic SMEM starts 16-byte aligned
(measured on the H100: scripts/device/dyn_smem_probe.py; nvJitLink 13.4 keeps it). The kernel then
computes wrong addresses on Hopper that it would not compute on a B200. So after the link, every
kernel's static section is checked against the largest alignment the module declares for its
`.extern .shared` arrays, and a kernel whose section ends short gets an unreferenced static pad
(which the link keeps) that brings the end to that alignment, as the native build does; the module
is linked again and checked again.
"""

from __future__ import annotations

import re
import struct

_EXTERN_SHARED = re.compile(r"^\s*\.extern\s+\.shared\s+\.align\s+(\d+)\s+\.\w+\s+([A-Za-z_$][\w$]*)")
_FUNCTION = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.(entry|func)\b(?:\s*\([^)]*\))?\s*([A-Za-z_$][\w$]*)")
_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)")
PAD_NAME = "__tc5ptx_dyn_smem_align_pad"


def extern_arrays(ptx_text: str) -> dict[str, int]:
    """The module's `.extern .shared` (dynamic SMEM) arrays and their declared alignments."""
    return {m.group(2): int(m.group(1)) for m in map(_EXTERN_SHARED.match, ptx_text.splitlines()) if m}


def declared_alignment(ptx_text: str) -> dict[str, int]:
    """Kernel -> the alignment its dynamic SMEM must have: the largest of the `.extern .shared` arrays
    its body names, or any non-entry function of the module names (a call may reach it)."""
    arrays = extern_arrays(ptx_text)
    if not arrays:
        return {}
    token = re.compile(r"(?<![\w$.%])(" + "|".join(re.escape(a) for a in arrays) + r")(?![\w$])")
    used: dict[tuple[str, str], set[str]] = {}
    current, depth = None, 0
    for line in ptx_text.splitlines():
        m = _FUNCTION.match(line)
        if m and depth == 0:
            current = (m.group(1), m.group(2))
            used.setdefault(current, set())
            continue
        if current is None:
            continue
        depth += line.count("{") - line.count("}")
        used[current].update(token.findall(line))
        if depth == 0 and "}" in line:
            current = None
    in_functions = {a for (kind, _), names in used.items() if kind == "func" for a in names}
    return {name: max(arrays[a] for a in names | in_functions)
            for (kind, name), names in used.items() if kind == "entry" and names | in_functions}


def shared_section_sizes(cubin: bytes) -> dict[str, int]:
    """Size of each kernel's `.nv.shared.<kernel>` section (static SMEM, from address 0 of the
    window: on sm_90 it includes the 1 KiB the system reserves) in an ELF64 cubin."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        raise ValueError("not an ELF64 cubin")
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    names_offset = headers[shstrndx][4]

    def name(offset: int) -> str:
        end = cubin.index(b"\0", names_offset + offset)
        return cubin[names_offset + offset:end].decode(errors="replace")

    sizes = {}
    for header in headers:
        section = name(header[0])
        if section.startswith(".nv.shared.") and not section.startswith(".nv.shared.reserved"):
            sizes[section[len(".nv.shared."):]] = header[5]
    return sizes


def short_kernels(cubin: bytes, ptx_text: str) -> dict[str, int]:
    """Kernel -> bytes of pad its static section needs so that dynamic SMEM starts at its declared
    alignment (only kernels that fall short). A kernel without static SMEM starts dynamic SMEM at
    the window's reserved end, which is aligned."""
    sizes = shared_section_sizes(cubin)
    return {k: -sizes[k] % align for k, align in declared_alignment(ptx_text).items()
            if align > 16 and k in sizes and sizes[k] % align}


def add_pads(ptx_text: str, pads: dict[str, int]) -> str:
    """The module with one static pad of the given size declared first in each named kernel's body."""
    out: list[str] = []
    pending = None
    for line in ptx_text.splitlines():
        out.append(line)
        m = _ENTRY.match(line)
        if m and m.group(1) in pads:
            pending = m.group(1)
        elif pending is not None and line.strip() == "{":
            out.append(f"\t.shared .align 16 .b8 {PAD_NAME}[{pads[pending]}];  // dynamic SMEM keeps its declared alignment")
            pending = None
    return "\n".join(out) + ("\n" if ptx_text.endswith("\n") else "")
