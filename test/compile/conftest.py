"""torch.compile's tests: every test starts with no compiled graphs, and kernels are cached in a directory of
the test session's own."""
import pytest

import torch


@pytest.fixture(autouse=True)
def fresh_compiler(tmp_path_factory, monkeypatch):
    import logging

    import torch._dynamo
    # a logging.config.dictConfig elsewhere in the session (import-linter's CLI) disables the loggers that exist
    # then: torch's and every one under it (the artifact loggers: recompiles, dynamic...)
    for name in ["torch", *(n for n in logging.root.manager.loggerDict if n.startswith("torch."))]:
        logging.getLogger(name).disabled = False
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "inductor"))
    monkeypatch.delenv("TORCH_LOGS", raising=False)
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()

