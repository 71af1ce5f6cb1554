"""torch.compile's tests: every test starts with no compiled graphs, and kernels are cached in a directory of
the test session's own."""
import pytest

import torch


@pytest.fixture(autouse=True)
def fresh_compiler(tmp_path_factory, monkeypatch):
    import logging

    import torch._dynamo
    for name in ("torch", "torch._dynamo", "torch._inductor"):
        # a logging.config.dictConfig elsewhere in the session (import-linter's CLI) disables existing loggers
        logging.getLogger(name).disabled = False
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "inductor"))
    monkeypatch.delenv("TORCH_LOGS", raising=False)
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()

