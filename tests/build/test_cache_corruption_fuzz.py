"""Corruption fuzz of the build cache (FMHACTL_HOME/cache/<variant>/<target>/<key>.{cubin,json}).

One real build of `ref` for sm_80 (NVRTC, about a second) gives a valid cache entry. Each example
restores it in a fresh home, damages the cubin or its meta file (bytes flipped, cut or appended;
meta fields deleted, renamed or given values of another type; a folder, a symlink loop or a
dangling symlink in place of a file), then runs `fmhactl build ref --arch sm_80 --json` with NVRTC
replaced by a stub that returns the original compile output (the property is about the cache, not
the compiler; tests/build/test_build.py compiles for real).

Property: the command serves exactly the bytes and facts of the original build (a hit on an
undamaged entry, or a rebuild that restores it), or refuses in one `fmhactl: error:` line with
exit 3 (a cache it cannot repair). A damaged entry is never served.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from unittest import mock

import pytest

pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from fmhactl.build import compiler  # noqa: E402
from fmhactl.build.compiler import BuildTarget  # noqa: E402
from fmhactl.build.entry import build  # noqa: E402
from fmhactl.cli.app import app  # noqa: E402
from fmhactl.registry import get_variant  # noqa: E402
from tests.corruption import Artifact, assert_clean_outcome, damage_path, fuzz_settings, mutate_bytes, mutate_tree  # noqa: E402,E501

ARCH = "sm_80"


@pytest.fixture(scope="module")
def valid_entry(tmp_path_factory) -> Artifact:
    """A real cache entry of ref sm_80: its files' bytes, where they sit, the compile output."""
    home = tmp_path_factory.mktemp("cache-home")
    with mock.patch.dict("os.environ", {"FMHACTL_HOME": str(home)}):
        result = build(get_variant("ref"), BuildTarget(ARCH), force=True)
    meta_path = result.cubin_path.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    return Artifact("ref sm_80 cache entry", cubin=result.cubin_path.read_bytes(), meta=meta_path.read_bytes(),
                    relative=result.cubin_path.relative_to(home), log=meta["log"],
                    kernels=sorted(k.to_dict()["kernel"] for k in result.kernels),
                    facts=sorted(json.dumps(k.to_dict(), sort_keys=True) for k in result.kernels))


def _damage(data: st.DataObject, entry: Artifact, cubin: Path, meta: Path) -> str:
    target = data.draw(st.sampled_from(["cubin", "meta", "meta-tree", "fs"]), label="target")
    if target == "cubin":
        what, blob = mutate_bytes(data, entry.cubin)
        cubin.write_bytes(blob)
        return "cubin: " + what
    if target == "meta":
        what, blob = mutate_bytes(data, entry.meta)
        meta.write_bytes(blob)
        return "meta: " + what
    if target == "meta-tree":
        what, tree = mutate_tree(data, json.loads(entry.meta))
        meta.write_text(json.dumps(tree, indent=1))
        return "meta: " + what
    where = data.draw(st.sampled_from([cubin, meta, cubin.with_suffix(".lock"), cubin.parent]), label="where")
    op = data.draw(st.sampled_from(["folder", "symlink_loop", "dangling_symlink", "missing"]), label="fs op")
    if where == cubin.parent:
        shutil.rmtree(where)
        where.write_text("a file where the cache folder was")
        return "cache folder replaced by a file"
    return damage_path(op, where)


@fuzz_settings(60)
@given(data=st.data())
def test_damaged_cache_entry_is_never_served(valid_entry, data):
    home = Path(tempfile.mkdtemp(prefix="fmhactl-fuzz-cache-"))
    try:
        cubin = home / valid_entry.relative
        meta = cubin.with_suffix(".json")
        cubin.parent.mkdir(parents=True)
        cubin.write_bytes(valid_entry.cubin)
        meta.write_bytes(valid_entry.meta)
        what = _damage(data, valid_entry, cubin, meta)
        compiles: list[int] = []

        def stub(source, options):
            compiles.append(1)
            return valid_entry.cubin, valid_entry.log

        with mock.patch.object(compiler, "_compile_nvrtc", stub):
            result = CliRunner().invoke(app, ["build", "ref", "--arch", ARCH, "--json"],
                                        env={"FMHACTL_HOME": str(home)})
        assert_clean_outcome(result, (0, 3), what, "build")
        if result.exit_code != 0:
            return
        (built,) = json.loads(result.stdout)
        served = Path(built["cubin"])
        assert served.read_bytes() == valid_entry.cubin, f"{what}: served cubin differs from the build"
        assert sorted(json.dumps(k, sort_keys=True) for k in built["kernels"]) == valid_entry.facts, \
            f"{what}: served kernel facts differ from the build's"
        assert built["cache_hit"] == (not compiles), what
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_an_edited_meta_file_is_rebuilt_not_served(valid_entry, tmp_path):
    """The meta file's facts (registers, entry names, log) were served as they stood on disk: only
    the cubin was hashed. A meta edited to say 7 registers was a cache hit with 7 registers. The
    meta file now carries its own sha256: the entry is reported damaged and rebuilt."""
    cubin = tmp_path / valid_entry.relative
    cubin.parent.mkdir(parents=True)
    cubin.write_bytes(valid_entry.cubin)
    meta = json.loads(valid_entry.meta)
    meta["kernels"][0]["registers"] = 7
    cubin.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    with mock.patch.object(compiler, "_compile_nvrtc", lambda source, options: (valid_entry.cubin, valid_entry.log)):
        result = CliRunner().invoke(app, ["build", "ref", "--arch", ARCH, "--json"], env={"FMHACTL_HOME": str(tmp_path)})
    assert result.exit_code == 0, result.output
    (built,) = json.loads(result.stdout)
    assert built["cache_hit"] is False
    assert sorted(json.dumps(k, sort_keys=True) for k in built["kernels"]) == valid_entry.facts
    warnings = [line for line in result.stderr.splitlines() if line.startswith("fmhactl: warning:")]
    assert len(warnings) == 1 and "own sha256" in warnings[0], result.stderr
