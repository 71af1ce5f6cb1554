# Type stub for the Cython module torch/csrc/autograd/variable_type.pyx: keep in step with it.
from typing import Any

from aten.dispatcher import OperatorHandle
from torch.csrc.autograd.graph import Node

SAVE_KINDS: dict[str, int]

class Saved:
    kind: int
    index: int
    def __init__(self, kind: str, index: int) -> None: ...

class AutogradKernel:
    op_name: str
    def __init__(self, op: OperatorHandle, node_type: type, names: tuple[str, ...], defaults: tuple[Any, ...],
                 inputs: tuple[int, ...], saves: tuple[Saved, ...], *,
                 output_differentiability: list[bool] | None = None, saves_result: int = 0, is_view: bool = False,
                 inplace: bool = False, clone_self: bool = False, inplace_view: bool = False) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

def check_inplace(self: Any, op: str, inplace_view: bool = False) -> None: ...
def check_out(op: str, values: list[Any]) -> None: ...
def detach_(self: Any) -> Any: ...

class NotImplementedBackward(Node):
    op: str
    def __init__(self, op: str, next_functions: tuple[Any, ...]) -> None: ...
