"""Run one function on several Python threads at once, for the tests of concurrent use."""
from __future__ import annotations

import threading
from typing import Any, Callable


def in_threads(worker: Callable[[int], Any], count: int) -> list[Any]:
    """worker(i) on `count` threads released together (a barrier); their results in order. A
    thread's exception fails the caller (threads would otherwise only print it)."""
    errors: list[BaseException] = []
    results: list[Any] = [None] * count
    barrier = threading.Barrier(count)

    def run(index: int) -> None:
        try:
            barrier.wait()
            results[index] = worker(index)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [], errors
    return results
