"""torch.fx._lazy_graph_module: a GraphModule whose Python code is generated when something first needs it (its
forward called, its code read or printed, the module pickled), as PyTorch's Dynamo makes its captures: a
compiler that reads the graph (Ember's inductor) never pays for the graph's source and Python's compile of it,
which is a fifth of a capture's cost for a training step."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

from torch.fx.graph import PythonCode
from torch.fx.graph_module import GraphModule

__all__: list[str] = []

_lazy_by_default = False


class _LazyGraphModule(GraphModule):
    """A GraphModule whose recompile() only marks its code stale; real_recompile() generates it."""

    def recompile(self) -> PythonCode | None:  # type: ignore[override]
        type(self).forward = _LazyGraphModule._lazy_forward
        self.__dict__.pop("_code", None)
        return None

    def real_recompile(self) -> None:
        """Generate the code now, where it is stale."""
        if self._needs_recompile():
            GraphModule.recompile(self)

    def _needs_recompile(self) -> bool:
        return type(self).forward is _LazyGraphModule._lazy_forward

    @classmethod
    def from_graphmodule(cls, gm: GraphModule) -> _LazyGraphModule:
        """gm's children, parameters and graph in a lazy module (gm itself, if it is one)."""
        if isinstance(gm, _LazyGraphModule):
            return gm
        return cls(gm, gm.graph)

    @staticmethod
    def force_recompile(gm: GraphModule) -> None:
        if isinstance(gm, _LazyGraphModule):
            gm.real_recompile()

    def _lazy_forward(self, *args: Any, **kwargs: Any) -> Any:
        self.real_recompile()
        return self.forward(*args, **kwargs)        # the generated forward, now on the class; hooks ran already

    forward = _lazy_forward

    @property
    def code(self) -> str:
        self.real_recompile()
        return super().code

    def __str__(self) -> str:
        self.real_recompile()
        return super().__str__()


def _make_graph_module(*args: Any, graph_module_cls: type[GraphModule] | None = None, **kwargs: Any) -> GraphModule:
    """A GraphModule, lazy inside _use_lazy_graph_module(True)."""
    if graph_module_cls is None:
        graph_module_cls = _LazyGraphModule if _lazy_by_default else GraphModule
    return graph_module_cls(*args, **kwargs)


@contextlib.contextmanager
def _use_lazy_graph_module(should_use: bool) -> Iterator[None]:
    global _lazy_by_default
    previous, _lazy_by_default = _lazy_by_default, should_use
    try:
        yield
    finally:
        _lazy_by_default = previous
