"""DataParallel: a module run on the devices given, its batch split between them. Without CUDA the
module runs as it is (PyTorch's behaviour with no GPU); with one device, inputs go to it and the
parameters must be there already. Ember drives CUDA device 0 only, so more device ids are refused."""
from __future__ import annotations

from typing import Any, Sequence

import torch
from torch.nn.modules.module import Module
from torch.nn.parallel.scatter_gather import _index, gather, scatter_kwargs


class DataParallel(Module):
    def __init__(self, module: Module, device_ids: Sequence[Any] | None = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.dim = dim
        if not torch.cuda.is_available():
            self.device_ids: list[int] = []
            return
        ids = list(range(torch.cuda.device_count())) if device_ids is None else [_index(d) for d in device_ids]
        if len(ids) > 1:
            raise RuntimeError(f"DataParallel: Ember drives one CUDA device so far, got device ids {ids}")
        self.device_ids = ids
        self.output_device = _index(output_device) if output_device is not None else ids[0]
        self.src_device_obj = torch.device("cuda", ids[0])

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in [*self.module.parameters(), *self.module.buffers()]:
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {t.device}")
        inputs, module_kwargs = scatter_kwargs(inputs, kwargs, self.device_ids, self.dim)
        if not inputs and not module_kwargs:
            inputs, module_kwargs = ((),), ({},)
        output = self.module(*inputs[0], **module_kwargs[0])
        return gather([output], self.output_device, self.dim) if self.output_device != self.device_ids[0] else output


def data_parallel(module: Module, inputs: Any, device_ids: Sequence[Any] | None = None, output_device: Any = None,
                  dim: int = 0, module_kwargs: Any = None) -> Any:
    """The functional form of DataParallel."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if not torch.cuda.is_available():
        raise RuntimeError("device type could not be determined")
    wrapper = DataParallel(module, device_ids, output_device, dim)
    return wrapper(*inputs, **(module_kwargs or {}))
