"""Grad mode (issue 6's first piece): thread-local flags in c10 and PyTorch's context managers,
which also work as decorators (bare or called) and on generator functions."""
from __future__ import annotations

import threading

import pytest

import torch


def test_no_grad_and_enable_grad_nest_and_restore():
    assert torch.is_grad_enabled()
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        with torch.enable_grad():
            assert torch.is_grad_enabled()
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_decorators_work_bare_and_called():
    @torch.no_grad
    def bare():
        return torch.is_grad_enabled()

    @torch.no_grad()
    def called():
        return torch.is_grad_enabled()

    @torch.inference_mode
    def inference():
        return torch.is_grad_enabled(), torch.is_inference_mode_enabled()

    assert bare() is False and called() is False and inference() == (False, True)
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()


def test_set_grad_enabled_acts_at_once_and_restores_as_a_context():
    try:
        torch.set_grad_enabled(False)
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    with pytest.raises(TypeError, match=r"set_grad_enabled\(\): argument 'enabled' \(position 1\) must be bool, not int"):
        torch.set_grad_enabled(1)


def test_generator_functions_run_each_step_under_the_mode():
    @torch.no_grad()
    def steps():
        yield torch.is_grad_enabled()
        yield torch.is_grad_enabled()

    seen = []
    for value in steps():
        seen.append((value, torch.is_grad_enabled()))
    assert seen == [(False, True), (False, True)]


def test_grad_mode_is_per_thread():
    seen = []
    with torch.no_grad():
        worker = threading.Thread(target=lambda: seen.append(torch.is_grad_enabled()))
        worker.start()
        worker.join()
        assert not torch.is_grad_enabled()
    assert seen == [True]


def test_inference_mode_false_changes_nothing():
    with torch.inference_mode(False):
        assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
