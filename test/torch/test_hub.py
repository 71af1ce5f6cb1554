"""torch.hub: entrypoints of a local directory's hubconf.py, and checkpoints fetched by URL (file://
here) into the $TORCH_HOME cache, with PyTorch's hash check."""
import hashlib
import textwrap

import pytest

import torch
import torch.hub as hub

HUBCONF = textwrap.dedent('''
    import torch

    dependencies = ["numpy"]


    def tiny(width=2):
        """A linear layer of the given width."""
        return torch.nn.Linear(width, 1)


    def needs_missing():
        return None


    _private = 1
''')


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "hubconf.py").write_text(HUBCONF)
    return str(tmp_path)


def test_load_local_entrypoint(repo):
    model = hub.load(repo, "tiny", 3, source="local")
    assert isinstance(model, torch.nn.Linear) and model.in_features == 3
    assert hub.list(repo) == ["needs_missing", "tiny"]
    assert hub.help(repo, "tiny") == "A linear layer of the given width."


def test_local_errors_as_pytorch(repo, tmp_path):
    with pytest.raises(RuntimeError, match="Cannot find callable absent in hubconf"):
        hub.load(repo, "absent", source="local")
    with pytest.raises(ValueError, match='Unknown source: "svn". Allowed values: "github" | "local".'):
        hub.load(repo, "tiny", source="svn")
    (tmp_path / "hubconf.py").write_text(HUBCONF.replace('["numpy"]', '["numpy", "no_such_package_ember"]'))
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_package_ember"):
        hub.load(repo, "tiny", source="local")
    with pytest.raises(RuntimeError, match="cannot load 'owner/repo' from GitHub yet"):
        hub.load("owner/repo", "tiny")


def test_load_state_dict_from_url_caches_under_torch_home(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    torch.manual_seed(0)
    state = torch.nn.Linear(2, 2).state_dict()
    source = tmp_path / "weights.pt"
    torch.save(state, source)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    named = tmp_path / f"weights-{digest[:8]}.pt"
    named.write_bytes(source.read_bytes())
    loaded = hub.load_state_dict_from_url(named.as_uri(), check_hash=True, progress=False)
    assert all(torch.equal(loaded[k], state[k]) for k in state)
    assert (tmp_path / "home" / "hub" / "checkpoints" / named.name).exists()
    assert hub.get_dir() == str(tmp_path / "home" / "hub")
    bad = tmp_path / "weights-00000000.pt"
    bad.write_bytes(source.read_bytes())
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "00000000", got "'):
        hub.load_state_dict_from_url(bad.as_uri(), check_hash=True, progress=False)


def test_download_url_to_file_and_set_dir(tmp_path):
    source = tmp_path / "data.bin"
    source.write_bytes(b"ember" * 1000)
    target = tmp_path / "copy.bin"
    hub.download_url_to_file(source.as_uri(), str(target), progress=False)
    assert target.read_bytes() == source.read_bytes()
    previous = hub._hub_dir
    try:
        hub.set_dir(tmp_path / "elsewhere")
        assert hub.get_dir() == str(tmp_path / "elsewhere")
    finally:
        hub._hub_dir = previous
