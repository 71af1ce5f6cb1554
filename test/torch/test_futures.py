"""torch.futures.Future as PyTorch's: results set later, then() chains that carry errors, callbacks in order,
collect_all/wait_all; waiting on a Future nothing will complete raises instead of hanging."""
import logging

import pytest

import torch
from torch.futures import Future, collect_all, wait_all


def test_a_result_set_later_reaches_wait_value_and_the_chain():
    fut = Future()
    assert not fut.done()
    order = []
    doubled = fut.then(lambda f: f.value() * 2)
    fut.add_done_callback(lambda f: order.append(("callback", f.value())))
    plus_one = doubled.then(lambda f: f.wait() + 1)
    fut.set_result(torch.tensor(3))
    assert fut.done() and fut.wait().item() == 3 and fut.value().item() == 3
    assert doubled.wait().item() == 6 and plus_one.wait().item() == 7
    assert order == [("callback", fut.value())]
    late = []
    fut.add_done_callback(late.append)          # already done: called at once
    assert late == [fut]


def test_errors_travel_down_the_chain_and_a_future_completes_once():
    fut = Future()
    child = fut.then(lambda f: f.value() + 1)
    fut.set_exception(ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        fut.wait()
    # a then() callback's error (here: the parent's, raised by value()) becomes the child's, as a RuntimeError
    with pytest.raises(RuntimeError, match="^Got the following error when running the callback: ValueError: boom$"):
        child.wait()
    with pytest.raises(RuntimeError, match="can only be marked completed once"):
        fut.set_result(1)
    with pytest.raises(TypeError, match="not an Exception"):
        Future().set_exception("boom")
    failing = Future()
    broken = failing.then(lambda f: 1 / 0)
    failing.set_result(1)
    with pytest.raises(RuntimeError, match="ZeroDivisionError: division by zero"):
        broken.wait()


class _Records(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def test_a_callback_that_raises_is_logged_and_the_others_still_run():
    records = _Records()        # on the logger itself: another test's logging setup may stop propagation,
    logger = logging.getLogger("torch.futures")
    logger.addHandler(records)
    disabled, logger.disabled = logger.disabled, False      # or disable it (a dictConfig: import-linter's CLI)
    fut, order = Future(), []
    fut.add_done_callback(lambda f: 1 / 0)
    fut.add_done_callback(lambda f: order.append("second"))
    child = fut.then(lambda f: f.value() * 2)
    fut.set_result(3)
    assert order == ["second"] and child.wait() == 6
    logger.removeHandler(records)
    logger.disabled = disabled
    assert records.messages == ["Got the following error when running the callback"]


def test_waiting_on_a_future_nothing_will_complete_raises():
    with pytest.raises(RuntimeError, match="nothing will complete this Future"):
        Future().wait()
    with pytest.raises(RuntimeError, match="has not completed"):
        Future().value()


def test_collect_all_and_wait_all():
    a, b = Future(), Future()
    both = collect_all([a, b])
    a.set_result(1)
    assert not both.done()
    b.set_result(2)
    assert both.done() and both.wait() == [a, b] and wait_all([a, b]) == [1, 2]
    c, d = Future(), Future()
    failed = collect_all([c, d])
    c.set_result(1)
    d.set_exception(KeyError("d"))
    with pytest.raises(KeyError):
        failed.wait()


def test_collect_all_runs_its_callbacks_when_the_last_future_completes():
    a, b = Future(), Future()
    both, seen = collect_all([a, b]), []
    both.add_done_callback(lambda f: seen.append(len(f.value())))
    a.set_result(1)
    assert seen == []
    b.set_result(2)
    assert seen == [2] and collect_all([]).done()
    assert torch.futures.Future is Future
