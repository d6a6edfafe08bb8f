"""The built-in family is a project like any other and is unchanged by being one."""

from __future__ import annotations

from fmhactl import paths
from fmhactl.registry import load_registry
from fmhactl.results.evidence import evidence_dir
from fmhactl.status.milestones import milestones_path
from fmhactl.status.service import default_out_dir


def test_builtin_project_reads_the_family_file_unchanged(monkeypatch):
    monkeypatch.chdir(paths.project_root())
    from_project = load_registry()
    from_family = load_registry(paths.kernels_dir() / "family.toml")
    assert list(from_project) == list(from_family)
    for name, variant in from_family.items():
        assert from_project[name].to_dict() == variant.to_dict()
        assert from_project[name].source_path.resolve() == variant.source_path.resolve()
        assert from_project[name].launcher == variant.launcher and not from_project[name].launch


def test_builtin_paths_are_the_ones_status_and_evidence_always_used(monkeypatch, tmp_path):
    for cwd in (paths.project_root(), tmp_path):  # inside the checkout, and with no project at all
        monkeypatch.chdir(cwd)
        assert evidence_dir() == paths.project_root() / "evidence"
        assert milestones_path() == paths.scenarios_dir() / "milestones.toml"
        assert default_out_dir() == paths.project_root()


def test_fmhactl_root_copy_is_the_builtin_project_even_from_the_checkout(tmp_path, monkeypatch):
    """Run from a checkout with FMHACTL_ROOT naming another copy (the malformed sweep does this):
    the copy's family file is the one read."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(paths.project_root() / "kernels", copy / "kernels")
    family = copy / "kernels" / "family.toml"
    family.write_text(family.read_text().replace('name = "ref"', 'name = "ref_in_copy"', 1))
    monkeypatch.chdir(paths.project_root())
    monkeypatch.setenv("FMHACTL_ROOT", str(copy))
    assert "ref_in_copy" in load_registry()
