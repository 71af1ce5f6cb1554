"""torch.futures: a Future holds a result that comes later, as PyTorch's. Ember has no background threads
driving them: a Future made from a collective's Work completes when waited on (or found done when asked),
and then() callbacks run as their parent completes, in the order added. Waiting on a Future nothing will ever
complete raises instead of hanging."""
from __future__ import annotations

from typing import Any, Callable, Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")


class Future(Generic[T]):
    """A result set later by set_result (or set_exception), or by the operation it stands for."""

    __module__ = "torch.futures"

    def __init__(self, *, devices: Any = None) -> None:
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Future[T]], None]] = []
        self._poll: Callable[[], bool] | None = None      # whether the operation behind it finished (then completes)
        self._complete: Callable[[], None] | None = None  # wait for that operation and complete this future

    @classmethod
    def _for(cls, finished: Callable[[], bool], wait: Callable[[], Any]) -> Future[Any]:
        """The Future of an operation in flight: finished() says whether it has completed; wait() completes it
        and returns its value (or raises its error, which the Future then carries)."""
        future: Future[Any] = cls()

        def settle() -> None:
            try:
                value = wait()
            except BaseException as error:      # noqa: BLE001 - the Future carries it, as PyTorch's
                future.set_exception(error)
            else:
                future.set_result(value)

        def poll() -> bool:
            if finished():
                settle()
            return future._done
        future._poll, future._complete = poll, settle
        return future

    def _drive(self) -> None:
        """Complete the operation behind this Future, if there is one and it has not (errors are kept)."""
        if not self._done and self._complete is not None:
            self._complete()

    def done(self) -> bool:
        if not self._done and self._poll is not None:
            self._poll()
        return self._done

    def wait(self) -> T:
        """The result, once the operation behind it completed; its error raised if it failed."""
        self._drive()
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
            raise RuntimeError("Future can only be marked completed once")
        self._value, self._done = result, True
        self._run_callbacks()

    def set_exception(self, result: BaseException) -> None:
        if not isinstance(result, BaseException):
            raise TypeError(f"{result!r} is of type {type(result)}, not an Exception.")
        if self._done:
            raise RuntimeError("Future can only be marked completed once")
        self._error, self._done = result, True
        self._run_callbacks()

    def _run_callbacks(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        """callback(self) once completed (at once if already)."""
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        """A Future of callback(self), run once this one completes; callback's error becomes its error."""
        child: Future[S] = Future()
        child._poll, child._complete = self.done, self._drive

        def run(parent: Future[T]) -> None:
            try:
                result = callback(parent)
            except BaseException as error:      # noqa: BLE001 - the child carries it, as PyTorch's
                child.set_exception(error)
            else:
                child.set_result(result)
        self.add_done_callback(run)
        return child

    def __repr__(self) -> str:
        state = "done" if self._done else "pending"
        return f"<torch.futures.Future ({state})>"


def collect_all(futures: list[Future[Any]]) -> Future[list[Future[Any]]]:
    """A Future of the list of futures, completed once every one of them is (with the first one's error)."""
    combined: Future[list[Future[Any]]] = Future()

    def settle() -> bool:
        if not combined._done and all(f._done for f in futures):
            failed = [f._error for f in futures if f._error is not None]
            if failed:
                combined.set_exception(failed[0])
            else:
                combined.set_result(futures)
        return combined._done

    def complete() -> None:
        for f in futures:
            f._drive()
        settle()
    combined._poll = lambda: all(f.done() for f in futures) and settle()
    combined._complete = complete
    return combined


def wait_all(futures: list[Future[Any]]) -> list[Any]:
    """Each future's result, in order (the first error raised)."""
    return [f.wait() for f in futures]
