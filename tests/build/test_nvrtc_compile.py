"""build/compiler.nvrtc_compile: the one NVRTC program compile behind the cubin build
(compile_named), the PTX path (ptx/build.nvrtc_ptx, native_ptx_named) and the PTX emulator
(ptx/emulator.compile_emulator). Real NVRTC compiles of a tiny kernel (no GPU needed), and a fake
NVRTC for the program's destruction on every way out."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from fmhactl.build import compiler
from fmhactl.build.compiler import CompileError, nvrtc_compile, nvrtc_text
from fmhactl.errors import FmhactlError

_KERNEL = ('extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n'
           "template <int N> __global__ void t(float* x) { x[threadIdx.x] = N; }\n")


@pytest.fixture
def nvrtc():
    return pytest.importorskip("cuda.bindings.nvrtc")


def test_ptx_and_cubin_and_lowered_names(nvrtc):
    ptx = nvrtc_compile(_KERNEL.encode(), "tiny.cu", ["-arch=sm_90a"], expressions=["t<4>"], want="ptx")
    assert ptx.output.endswith(b"\0")  # as NVRTC wrote it; .text drops the NUL
    assert ".entry k" in ptx.text and not ptx.text.endswith("\0")
    assert ptx.lowered["t<4>"].startswith("_Z") and f".entry {ptx.lowered['t<4>']}" in ptx.text
    cubin = nvrtc_compile(_KERNEL.encode(), "tiny.cu", ["-arch=sm_90a"], want="cubin")
    assert cubin.output[:4] == b"\x7fELF" and cubin.lowered == {}
    assert cubin.log == ""  # the empty log (its NUL alone) reads as ''


def test_the_callers_go_through_it(nvrtc, tmp_path):
    source = tmp_path / "tiny.cu"
    source.write_text(_KERNEL)
    cubin, log, lowered = compiler.compile_named(source, ["-arch=sm_90a"], ["t<2>"])
    assert cubin[:4] == b"\x7fELF" and log == "" and lowered["t<2>"].startswith("_Z")
    ptx, _, _ = compiler.compile_named(source, ["-arch=sm_90a"], [], ptx=True)
    from fmhactl.ptx.build import nvrtc_ptx

    assert nvrtc_ptx(source, ["-arch=sm_90a"]) == nvrtc_text(ptx)


def test_a_failed_compile_names_the_source_line(nvrtc, tmp_path):
    source = tmp_path / "broken.cu"
    source.write_text('extern "C" __global__ void k(float* x) {\n  x[0] = not_declared_here;\n}\n')
    with pytest.raises(CompileError) as raised:
        nvrtc_compile(source.read_bytes(), compiler.program_name(source), ["-arch=sm_90a"], want="ptx")
    message = str(raised.value)
    assert message.startswith("compile failed:")
    assert "broken.cu:2: error:" in message and "2 | x[0] = not_declared_here;" in message


def test_want_is_ptx_or_cubin():
    with pytest.raises(ValueError, match="want"):
        nvrtc_compile(b"", "x.cu", [], want="sass")


def test_nvrtc_text_strips_the_nul_and_decodes():
    assert nvrtc_text(b"abc \0") == "abc" and nvrtc_text(b"\0") == ""
    assert nvrtc_text(b"bad \xff byte\0", errors="replace") == "bad \ufffd byte"
    with pytest.raises(UnicodeDecodeError):
        nvrtc_text(b"\xff\0")


class _FakeNvrtc:
    """The NVRTC calls nvrtc_compile makes, failing where told; records the destroyed programs."""

    nvrtcResult = SimpleNamespace(NVRTC_SUCCESS=0, NVRTC_ERROR_COMPILATION=6, NVRTC_ERROR_INVALID_INPUT=3)

    def __init__(self, *, compile_result=0, name_expression_err=0):
        self.compile_result, self.name_expression_err, self.destroyed = compile_result, name_expression_err, []

    def nvrtcCreateProgram(self, source, name, *_):
        return 0, "prog"

    def nvrtcAddNameExpression(self, prog, expression):
        return (self.name_expression_err,)

    def nvrtcCompileProgram(self, prog, count, options):
        return (self.compile_result,)

    def nvrtcGetProgramLogSize(self, prog):
        return 0, 1

    def nvrtcGetProgramLog(self, prog, buffer):
        buffer[:] = b"\0"
        return (0,)

    def nvrtcDestroyProgram(self, prog):
        self.destroyed.append(prog)


@pytest.mark.parametrize("failure, raises", [({"compile_result": 6}, CompileError),
                                             ({"name_expression_err": 3}, FmhactlError)])
def test_the_program_is_destroyed_on_every_failure(monkeypatch, failure, raises):
    fake = _FakeNvrtc(**failure)
    monkeypatch.setattr(compiler, "_nvrtc", lambda: fake)
    with pytest.raises(raises):
        nvrtc_compile(b"", "x.cu", [], expressions=["k<1>"], want="cubin")
    assert fake.destroyed == ["prog"]
