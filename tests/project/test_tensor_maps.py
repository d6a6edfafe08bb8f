"""Tensor maps in a project kernel's own params (field types tmap and tmap_ptr, docs/kernel-abi.md):
the declaration is checked when the project loads, the ctypes block has the C++ compiler's layout
(a CUtensorMap is 64-byte aligned), each map is the tensor's {head_dim, seq, heads, batch} view
for the launch's strides, and a template kernel's sm_100a PTX (the PTX path) holds its entries.

The launches are in test_gpu_projects.py (tests/fixtures/tma_project on a GPU)."""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fmhactl.errors import BadInput
from fmhactl.layout.tensormap import DataType, Swizzle
from fmhactl.project.abi import adapt_arguments, adapt_params, params_struct
from fmhactl.project.files import load_project_file
from fmhactl.project.tensor_maps import map_params
from fmhactl.runtime.project_maps import FieldMaps
from fmhactl.runtime.params import FmhaParams
from fmhactl.runtime.tma_maps import TmaMap
from tests.project.c_layout import assert_block_matches, compiler_layout

TMA_FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tma_project"


def _fields() -> list[dict]:
    project = load_project_file(TMA_FIXTURE / "fmhactl.toml")
    return [f.model_dump(exclude_none=True) for f in project.params["tma"].fields]


@pytest.mark.skipif(shutil.which("c++") is None, reason="needs a host C++ compiler")
def test_params_layout_with_maps_matches_the_cpp_struct(tmp_path):
    """offsetof of every field of the fixture's FmhaTmaParams (a map pointer first, a map by value
    last) by the host C++ compiler, against the ctypes block: the by-value map on its 64-byte
    boundary, the struct's size a multiple of 64."""
    header = (TMA_FIXTURE / "attention" / "fmha_tma.cuh").read_text()
    structs = "\n".join(re.search(rf"struct (alignas\(64\) )?{name} \{{.*?\n\}};", header, re.S).group(0)
                        for name in ("TensorMap", "FmhaTmaParams"))
    fields = _fields()
    c_layout = compiler_layout(tmp_path, "c++", ".cpp", structs, "FmhaTmaParams", [f["name"] for f in fields])
    block = params_struct(fields)
    assert_block_matches(c_layout, block, fields)
    assert block.tma_o.offset % 64 == 0 and ctypes.sizeof(block) % 64 == 0


def _base(layout: str) -> FmhaParams:
    """FmhaParams of b=2, h=4, hkv=2, t=40, s=99, d=64 with q/o laid out bshd or bhsd."""
    batch, heads, heads_kv, seq_q, seq_k, dim = 2, 4, 2, 40, 99, 64
    p = FmhaParams(q=0x10000, k=0x20000, v=0x30000, o=0x40000, batch=batch, heads=heads, heads_kv=heads_kv,
                   seq_q=seq_q, seq_k=seq_k, head_dim=dim)
    for name, seq, h in (("q", seq_q, heads), ("o", seq_q, heads), ("k", seq_k, heads_kv), ("v", seq_k, heads_kv)):
        strides = (seq * h * dim, h * dim, dim) if layout == "bshd" else (h * seq * dim, dim, seq * dim)
        for axis, stride in zip(("batch", "seq", "head"), strides):
            setattr(p, f"{name}_{axis}_stride", stride)
    return p


@pytest.mark.parametrize("layout", ["bshd", "bhsd"])
def test_each_map_is_the_tensors_4d_view_with_its_strides(layout):
    base = _base(layout)
    o_field, k_field = ({"name": "m", "type": "tmap", "value": name, "box": ["head_dim", "BM", 1, 1],
                         "swizzle": "128B"} for name in ("o", "k"))
    o = map_params(o_field, base, "bf16", {"BM": 64, "OTHER": "text"})
    assert o.global_address == 0x40000 and o.dtype == DataType.BFLOAT16 and o.rank == 4
    assert o.global_dim == (64, 40, 4, 2)
    assert o.global_strides == tuple(2 * getattr(base, f"o_{axis}_stride") for axis in ("seq", "head", "batch"))
    assert o.box_dim == (64, 64, 1, 1) and o.element_strides == (1, 1, 1, 1) and o.swizzle == Swizzle.B128
    k = map_params(k_field, base, "f16", {"BM": 32})
    assert k.global_address == 0x20000 and k.dtype == DataType.FLOAT16 and k.global_dim == (64, 99, 2, 2)
    assert k.box_dim == (64, 32, 1, 1)
    unswizzled = map_params({**o_field, "swizzle": None}, base, "bf16", {"BM": 64})
    assert unswizzled.swizzle == Swizzle.NONE


def test_a_box_formula_that_divides_by_zero_names_the_field():
    field = {"name": "tma_o", "type": "tmap", "value": "o", "box": ["head_dim // BM", 1, 1, 1]}
    with pytest.raises(BadInput, match=r"params field tma_o: box\[0\]: division by zero"):
        map_params(field, _base("bshd"), "bf16", {"BM": 0})


def test_maps_fill_the_block_by_value_and_by_pointer():
    fields = _fields()
    tmap = TmaMap()
    tmap.opaque[0], tmap.opaque[15] = 0x1234, 0xABCD

    class _DeviceCopy:
        def data_ptr(self) -> int:
            return 0x7000

    maps = FieldMaps(maps={"tma_q": TmaMap(), "tma_o": tmap}, device_copies={"tma_q": _DeviceCopy()})
    block = adapt_params(fields, _base("bshd"), maps)
    assert bytes(block.tma_o) == bytes(tmap) and block.tma_q == 0x7000 and block.field_maps is maps
    assert (block.n_h, block.kv_group, block.seq_q, block.seq_kv) == (4, 2, 40, 99)
    args = adapt_arguments(fields, block)
    assert bytes(args[-1]) == bytes(tmap) and ctypes.sizeof(args[-1]) == 128 and args[0].value == 0x7000
    assert args[0].field_maps is maps  # pass_as = "arguments": the pointer's device copy outlives the block
    with pytest.raises(BadInput, match="needs the launch's tensor maps"):
        adapt_params(fields, _base("bshd"))


def test_only_maps_whose_box_size_is_known_are_declared_to_the_emulator():
    from fmhactl.layout.tensormap import make_params

    whole = make_params("bf16", [64, 128, 1, 1], [128, 128 * 128, 128 * 128], [64, 64, 1, 1], swizzle="128B")
    narrow = make_params("bf16", [64, 128, 1, 1], [128, 128 * 128, 128 * 128], [32, 64, 1, 1], swizzle="128B")
    maps = FieldMaps(maps={"o": TmaMap(), "q": TmaMap()}, params={"o": whole, "q": narrow})
    (box,) = maps.declared_boxes()  # q: a 64-byte inner row under the 128B swizzle has no documented pitch
    assert box.box_bytes == 64 * 64 * 2


def _project(tmp_path: Path, field: str, switches: str = "{ BM = 64 }") -> Path:
    (tmp_path / "k.cu").write_text("// empty\n")
    (tmp_path / "fmhactl.toml").write_text(f"""
[project]
name = "maps"
[[variant]]
name = "v"
source = "k.cu"
archs = ["sm_90a"]
kernel = "k"
head_dims = [64]
switches = {switches}
params = "p"
[variant.launch]
grid = [1]
block = [64]
[params.p]
fields = [{{ name = "q", type = "ptr", value = "q" }}, {field}]
""")
    return tmp_path / "fmhactl.toml"


def test_a_well_formed_map_field_loads(tmp_path):
    file = _project(tmp_path, '{ name = "m", type = "tmap", value = "o", box = ["head_dim", "BM", 1, 1], '
                              'swizzle = "64B" }')
    (field,) = [f for f in load_project_file(file).params["p"].fields if f.type == "tmap"]
    assert field.box == ["head_dim", "BM", 1, 1] and field.swizzle == "64B"


@pytest.mark.parametrize("field, rule", [
    ('{ name = "m", type = "tmap", value = "lse", box = [64, 64, 1, 1] }', "describes one of q, k, v, o"),
    ('{ name = "m", type = "tmap_ptr", value = "k" }', "needs box = [head_dim, seq, heads, batch]"),
    ('{ name = "m", type = "tmap", value = "q", box = [64, 64, 1] }', "at least 4 items"),
    ('{ name = "m", type = "i32", value = "seq_q", box = [64, 64, 1, 1] }', "belong to tensor-map fields"),
    ('{ name = "m", type = "tmap", value = "q", box = [64, 64, 1, 1], swizzle = "16B" }', "swizzle"),
    ('{ name = "m", type = "tmap", value = "q", box = ["head_dim", "BN", 1, 1] }', "box[1]: 'BN': unknown name 'BN' (known: BM, batch"),
])
def test_a_malformed_map_field_is_one_line_naming_it(tmp_path, field, rule):
    with pytest.raises(BadInput) as caught:
        load_project_file(_project(tmp_path, field))
    assert rule in str(caught.value) and "\n" not in str(caught.value)


def test_a_template_kernels_ptx_path_build_instantiates_its_entries():
    """The PTX path compiles the variant's sm_100a PTX with its C++ entry names (before, NVRTC
    instantiated none: the PTX held no kernel and the entry was not found at launch)."""
    from fmhactl.ptx.build import native_ptx_named
    from fmhactl.registry import project_registry

    variant = project_registry(TMA_FIXTURE / "fmhactl.toml")["tma_sm100"]
    ptx, lowered = native_ptx_named(variant)
    assert set(lowered) == {"fmha_tma_kernel<64>", "fmha_tma_kernel<128>"}
    for symbol in lowered.values():
        assert f".entry {symbol}(" in ptx
    assert "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group" in ptx


def _tma_maps(*args: str, project: Path = TMA_FIXTURE) -> subprocess.CompletedProcess:
    import os
    import sys

    env = {**os.environ, "FMHACTL_ASSUME_NO_GPU": "1"}
    return subprocess.run([sys.executable, "-m", "fmhactl", "--project", str(project), "tma", "maps", *args],
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("layout", ["bshd", "bhsd"])
def test_tma_maps_shows_what_a_launch_would_encode(layout):
    import json

    done = _tma_maps("tma_sm90", "--shape", "b=2,h=8,hkv=2,t=300,s=77,d=128", "--layout", layout, "--json")
    assert done.returncode == 0, done.stderr
    maps = {m["field"]: m for m in json.loads(done.stdout)["maps"]}
    assert set(maps) == {"tma_q", "tma_o"} and all(m["valid"] for m in maps.values())
    q = maps["tma_q"]["params"]
    seq_stride = 8 * 128 * 2 if layout == "bshd" else 128 * 2
    assert q["globalDim"] == [128, 300, 8, 2] and q["globalStrides"][0] == seq_stride
    assert q["boxDim"] == [128, 64, 1, 1] and maps["tma_o"]["type"] == "tmap" and maps["tma_q"]["type"] == "tmap_ptr"


def test_tma_maps_exit_1_names_the_rule_a_map_breaks(tmp_path):
    import json

    shutil.copytree(TMA_FIXTURE, tmp_path / "p", ignore=shutil.ignore_patterns(".fmhactl"))
    toml = tmp_path / "p" / "fmhactl.toml"
    toml.write_text(toml.read_text().replace('box = ["head_dim", "TMA_ROWS", 1, 1], swizzle = "none"',
                                             'box = ["head_dim", "TMA_ROWS * 8", 1, 1], swizzle = "none"'))
    done = _tma_maps("tma_sm90", "--shape", "b=1,h=2,t=40,s=128,d=64", "--json", project=tmp_path / "p")
    assert done.returncode == 1, done.stderr
    o = next(m for m in json.loads(done.stdout)["maps"] if m["field"] == "tma_o")
    assert not o["valid"] and [r["rule"] for r in o["rules"] if r["status"] == "violated"] == ["box-dim-range"]


@pytest.mark.parametrize("args, rule", [
    (["nope", "--shape", "b=1,h=2,t=40,s=128,d=64"], "nope"),
    (["tma_sm90", "--shape", "b=1,h=2,t=40,s=128,d=256"], "does not take"),
    (["tma_sm90", "--shape", "b=1,h=2,t=40,s=128,d=64", "--layout", "sbhd"], "--layout must be one of bshd, bhsd"),
    (["tma_sm90", "--shape", "b=1,h=x"], "h must be an integer"),
])
def test_tma_maps_bad_input_is_one_line_exit_2(args, rule):
    done = _tma_maps(*args)
    assert done.returncode == 2 and rule in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_tma_maps_of_a_variant_without_maps_is_bad_input():
    seeds = TMA_FIXTURE.parent / "seeds_project"
    done = _tma_maps("heads_bf16", "--shape", "b=1,h=2,t=40,s=128,d=64", project=seeds)
    assert done.returncode == 2 and "passes no tensor maps" in done.stderr, done.stderr


REPO = TMA_FIXTURE.parents[2]


@pytest.mark.parametrize("variant, tensors", [("sm90_persistent", ["q", "k", "v", "o"]),
                                              ("sm100_tma_s2_tmem", ["q", "k", "v"])])
def test_tma_maps_of_a_builtin_launcher_are_the_maps_its_launch_encodes(variant, tensors):
    """The built-in launchers' maps: the same parameters the launch encodes (tma_maps.map_params of
    tensors of that shape and layout), boxes from the variant's tile plan."""
    import json

    import torch

    from fmhactl.config import parse_shape
    from fmhactl.runtime.kernel_job import KernelJob
    from fmhactl.runtime.tma_maps import launcher_map_rows
    from fmhactl.runtime.tma_maps import map_params as launch_map_params

    shape = "b=2,h=8,hkv=2,t=300,s=77,d=128"
    done = _tma_maps(variant, "--shape", shape, "--layout", "bhsd", "--json", project=REPO)
    assert done.returncode == 0, done.stderr
    maps = json.loads(done.stdout)["maps"]
    assert [m["tensor"] for m in maps] == tensors and all(m["valid"] for m in maps)
    cfg = parse_shape(shape)
    from fmhactl.registry import load_registry

    v = load_registry(REPO / "kernels" / "family.toml")[variant]
    plan = KernelJob("run", variant, "k", "c", v.launcher, dict(v.switches), cfg, 0, "native").tile_plan
    rows = dict(launcher_map_rows(v.launcher, plan.block_m, plan.block_n))
    for m in maps:
        seq, heads = (cfg.seq_q, cfg.heads) if m["tensor"] in ("q", "o") else (cfg.seq_k, cfg.heads_kv)
        tensor = torch.empty(cfg.batch, heads, seq, cfg.head_dim, dtype=torch.bfloat16).transpose(1, 2)  # bhsd
        want = launch_map_params(tensor, rows[m["tensor"]]).as_dict()
        got = m["params"]
        assert {k: v for k, v in got.items() if k != "globalAddress"} == \
            {k: v for k, v in want.items() if k != "globalAddress"}, m["field"]
