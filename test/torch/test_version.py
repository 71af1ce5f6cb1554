"""Ember's identity to the Python ecosystem: the `torch` distribution at PyTorch's version with an
Ember label, a __version__ that compares as PyTorch's TorchVersion does, and torch.version /
torch.__config__ answering for this build."""
import importlib.metadata
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version

import torch

ROOT = Path(__file__).resolve().parents[2]


def test_the_distribution_is_torch_at_pytorchs_version_with_an_ember_label():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "torch"
    assert project["version"] == torch.version.__version__ == torch.__version__
    assert Version(torch.__version__).local == "ember" and Version(torch.__version__).public == "2.13.0"


def test_the_installed_metadata_agrees_with_torch_version():
    assert importlib.metadata.version("torch") == torch.__version__


@pytest.mark.parametrize(("other", "expected"), [
    ("2.0", True), ("2.13", True), ("2.13.0", True), ("2.14", False), ((2, 1), True), ((2, 13, 1), False),
    (Version("1.13.1"), True),
])  # fmt: skip
def test_version_checks_compare_as_versions(other, expected):
    assert (torch.__version__ >= other) is expected
    assert (torch.__version__ < other) is (not expected)


def test_version_is_a_string_and_falls_back_to_string_comparison():
    assert isinstance(torch.__version__, str) and str(torch.__version__) == "2.13.0+ember"
    assert torch.__version__ == "2.13.0+ember" and torch.__version__ != "2.13.0"
    assert torch.__version__.split("+")[0] == "2.13.0"
    assert not torch.__version__ == "not a version"
    assert {torch.__version__: 1}["2.13.0+ember"] == 1
    assert type(torch.__version__).__name__ == "TorchVersion" and torch.torch_version.TorchVersion is type(torch.__version__)


def test_torch_version_answers_for_this_build():
    assert torch.version.debug is False and torch.version.cuda is None and torch.version.hip is None
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    assert re.fullmatch(r"[0-9a-f]{40}", torch.version.git_version) or torch.version.git_version == "Unknown"
    if head.returncode == 0:
        # the commit the build was made from: this one, or an ancestor when sources changed since
        ancestor = subprocess.run(["git", "merge-base", "--is-ancestor", torch.version.git_version, "HEAD"], cwd=ROOT)
        assert ancestor.returncode == 0


def test_config_show_and_parallel_info_describe_this_build():
    shown = torch.__config__.show()
    assert shown.startswith(f"Ember {torch.__version__} (PyTorch 2.13's API) built with:")
    assert "-fopenmp" in shown and f"COMMIT_SHA={torch.version.git_version}" in shown
    assert re.search(r"CPU capability usage: (AVX512|AVX2|DEFAULT)", shown)
    info = torch.__config__.parallel_info()
    assert f"at::get_num_threads() : {torch.get_num_threads()}" in info
