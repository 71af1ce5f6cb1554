"""torch.futures: a Future holds a result that comes later, as PyTorch's. Ember has no background threads: a
Future of a collective's Work completes when the Work does (waited on, or found done when asked), and its
callbacks then run in the order they were added. A callback's error is logged and the others still run; a
then() callback's error becomes its Future's, as a RuntimeError naming it. Waiting on a Future nothing will ever
complete raises instead of hanging."""
from __future__ import annotations

import logging
from typing import Any, Callable, Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")

_log = logging.getLogger(__name__)

# what completes the operations in flight that Futures stand for (torch.distributed registers its engine's): in
# PyTorch background threads do, so that a Future only a callback completes still completes
_PROGRESS: list[Callable[[], None]] = []


class Future(Generic[T]):
    """A result set later by set_result (or set_exception), or by the operation it stands for."""

    __module__ = "torch.futures"

    def __init__(self, *, devices: Any = None) -> None:
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Future[T]], None]] = []
        self._poll: Callable[[], Any] | None = None       # move the operation behind it on (completing it if done)
        self._complete: Callable[[], None] | None = None  # wait for that operation (it completes this Future)

    def _drive(self) -> None:
        """Complete the operation behind this Future, if there is one and it has not."""
        if not self._done and self._complete is not None:
            self._complete()

    def done(self) -> bool:
        if not self._done and self._poll is not None:
            self._poll()
        return self._done

    def wait(self) -> T:
        """The result, once the operation behind it completed; its error raised if it failed. A Future another
        one's callback completes (a communication hook's own) completes as the operations in flight do."""
        self._drive()
        for progress in _PROGRESS:
            if self._done:
                break
            progress()
        if not self._done:
            raise RuntimeError("Future.wait(): nothing will complete this Future (no result was set, and it stands "
                               "for no operation in flight)")
        if self._error is not None:
            raise self._error
        return self._value

    def value(self) -> T:
        if not self._done:
            raise RuntimeError("Future.value(): the Future has not completed; call wait()")
        if self._error is not None:
            raise self._error
        return self._value

    def set_result(self, result: T) -> None:
        if self._done:
            raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can only "
                               "be marked completed once.")
        self._value, self._done = result, True
        self._run_callbacks()

    def set_exception(self, result: BaseException) -> None:
        if not isinstance(result, BaseException):
            raise TypeError(f"{result!r} is of type {type(result)}, not an Exception.")
        if self._done:
            raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can only "
                               "be marked completed once.")
        self._error, self._done = result, True
        self._run_callbacks()

    def _run_callbacks(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            _run(callback, self)

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        """callback(self) once completed (at once if already); an error it raises is logged."""
        if self._done:
            _run(callback, self)
        else:
            self._callbacks.append(callback)

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        """A Future of callback(self), run once this one completes; callback's error becomes its error."""
        child: Future[S] = Future()
        child._poll, child._complete = self.done, self._drive

        def run(parent: Future[T]) -> None:
            try:
                result = callback(parent)
            except Exception as error:
                wrapped = RuntimeError(f"Got the following error when running the callback: "
                                       f"{type(error).__name__}: {error}")
                wrapped.__cause__ = error
                child.set_exception(wrapped)
            else:
                child.set_result(result)
        self.add_done_callback(run)
        return child

    def __repr__(self) -> str:
        return f"<torch.futures.Future ({'done' if self._done else 'pending'})>"


def _run(callback: Callable[[Any], Any], future: Future[Any]) -> None:
    try:
        callback(future)
    except Exception:
        _log.exception("Got the following error when running the callback")


def _settle(future: Future[Any], value: Any = None, error: BaseException | None = None) -> None:
    """Complete future with value (or error), unless it already is (the operation behind it completes it once)."""
    if future._done:
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


def collect_all(futures: list[Future[Any]]) -> Future[list[Future[Any]]]:
    """A Future of the list of futures, completed once every one of them is (with the first one's error)."""
    combined: Future[list[Future[Any]]] = Future()

    def one_done(_: Future[Any]) -> None:
        if all(f._done for f in futures):
            failed = [f._error for f in futures if f._error is not None]
            _settle(combined, futures, failed[0] if failed else None)

    def drive() -> None:
        for f in futures:
            f._drive()
    combined._poll = lambda: [f.done() for f in futures]
    combined._complete = drive
    for f in futures:
        f.add_done_callback(one_done)
    if not futures:
        _settle(combined, futures)
    return combined


def wait_all(futures: list[Future[Any]]) -> list[Any]:
    """Each future's result, in order (the first error raised)."""
    return [f.wait() for f in futures]
