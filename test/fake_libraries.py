"""A module the capture takes for an installed library's, for the tests of what it does with libraries' code and
objects (torch._dynamo.program_state decides whose a file is)."""
import importlib.util
import sys
import textwrap

from torch._dynamo import program_state


def fake_library(tmp_path, monkeypatch, name, source):
    """A module made from source whose file is not the program's, in sys.modules as name for the test."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    monkeypatch.setitem(program_state._program_files, str(path), False)
    return module
