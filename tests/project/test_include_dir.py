"""`fmhactl include-dir`: where the shipped headers are, as a folder or as a compiler flag."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from fmhactl.cli.app import app


def test_include_dir_holds_the_kernel_abi_headers():
    result = CliRunner().invoke(app, ["include-dir"])
    assert result.exit_code == 0, result.output
    folder = Path(result.stdout.strip())
    for header in ("common/fmha_params.h", "common/tcgen05.cuh", "common/dtypes.cuh"):
        assert (folder / header).is_file(), header
    flag = CliRunner().invoke(app, ["include-dir", "--flag"])
    assert flag.stdout.strip() == f"-I{folder}"


def test_package_data_ships_the_headers_and_templates():
    """pyproject maps kernels/ into the wheel as fmhactl/kernels and ships the init templates."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"]["fmhactl.kernels"] == "kernels"
    assert any("templates" in pattern for pattern in config["package-data"]["fmhactl"])
