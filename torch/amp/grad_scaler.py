"""GradScaler: scale the loss so small reduced-precision gradients do not flush to zero, unscale the
gradients before the optimizer steps, skip steps whose gradients hold inf/NaN, and adapt the scale
(PyTorch's torch.amp.GradScaler). The scale lives on the device as a tensor, and the two operators
that check, unscale and update it (aten/native/composite/amp.py) never read it back to the host
except where the API returns a number (get_scale, state_dict, step's skip decision).
"""
from __future__ import annotations

import inspect
import warnings
from collections import abc, defaultdict
from enum import Enum
from typing import Any

import torch

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class _PerDevice:
    """One tensor, copied lazily to each device that asks for it."""

    def __init__(self, master: torch.Tensor) -> None:
        self.master = master
        self.copies: dict[torch.device, torch.Tensor] = {}

    def get(self, device: torch.device) -> torch.Tensor:
        if device not in self.copies:
            self.copies[device] = self.master.to(device=device, non_blocking=True, copy=True)
        return self.copies[device]


class GradScaler:
    """Dynamic loss scaling for mixed-precision training: scale(loss).backward(), step(optimizer), update()."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not torch.cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: torch.Tensor | None = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: torch.Tensor | None = None
            self._per_optimizer_states: dict[int, dict[str, Any]] = defaultdict(_fresh_optimizer_state)

    def _scale_and_tracker(self, funcname: str) -> tuple[torch.Tensor, torch.Tensor]:
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init(self, device: torch.device) -> torch.Tensor:
        if self._scale is None:
            self._scale = torch.full((), self._init_scale, dtype=torch.float32, device=device)
            self._growth_tracker = torch.full((), self._init_growth_tracker, dtype=torch.int32, device=device)
        return self._scale

    def scale(self, outputs: Any) -> Any:
        """outputs (a tensor, or tensors nested in lists, tuples and iterables) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, torch.Tensor):
            return outputs * self._lazy_init(outputs.device).to(device=outputs.device, non_blocking=True)
        stash: list[_PerDevice] = []

        def apply(value: Any) -> Any:
            if isinstance(value, torch.Tensor):
                if not stash:
                    stash.append(_PerDevice(self._lazy_init(value.device)))
                return value * stash[0].get(value.device)
            if isinstance(value, abc.Iterable):
                scaled = map(apply, value)
                return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def _unscale_grads_(self, optimizer: Any, inv_scale: torch.Tensor, found_inf: torch.Tensor,
                        allow_fp16: bool) -> dict[torch.device, torch.Tensor]:
        inv_scales, found_infs = _PerDevice(inv_scale), _PerDevice(found_inf)
        grouped: dict[torch.device, dict[torch.dtype, list[torch.Tensor]]] = defaultdict(lambda: defaultdict(list))
        with torch.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, torch.Tensor):
                        raise AssertionError(f"expected param to be torch.Tensor, got {type(param).__name__}")
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype == torch.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grouped[param.grad.device][param.grad.dtype].append(param.grad)
            for device, per_dtype in grouped.items():
                for grads in per_dtype.values():
                    torch._amp_foreach_non_finite_check_and_unscale_(grads, found_infs.get(device),
                                                                     inv_scales.get(device))
        return found_infs.copies

    def unscale_(self, optimizer: Any) -> None:
        """Divide optimizer's gradients by the scale in place (once per step), noting inf/NaN."""
        if not self._enabled:
            return
        scale, _ = self._scale_and_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = scale.double().reciprocal().float()
        found_inf = torch.full((), 0.0, dtype=torch.float32, device=scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """optimizer.step(*args, **kwargs) after unscaling, unless a gradient held inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._scale_and_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            return self._step_scaling_optimizer(optimizer, state, args, kwargs)
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def _step_scaling_optimizer(self, optimizer: Any, state: dict[str, Any], args: Any, kwargs: Any) -> Any:
        """An optimizer that unscales and skips by itself gets grad_scale and found_inf as attributes
        (or, if its step takes one, the scaler as grad_scaler=)."""
        takes_scaler = "grad_scaler" in inspect.signature(optimizer.step).parameters
        if takes_scaler:
            warnings.warn("GradScaler is going to stop passing itself as a keyword argument to the passed "
                          "optimizer. In the near future GradScaler registers `grad_scale: Tensor` and "
                          "`found_inf: Tensor` to the passed optimizer and let the optimizer use them directly.",
                          FutureWarning, stacklevel=3)
            kwargs["grad_scaler"] = self
        else:
            if state["stage"] is OptState.READY:
                self._check_inf_per_device(optimizer)
            scale = self._scale
            assert scale is not None
            optimizer.grad_scale = getattr(optimizer, "grad_scale", None) if state["stage"] == OptState.UNSCALED \
                else scale * getattr(optimizer, "grad_scale", 1)
            optimizer.found_inf = sum(t.to(scale.device, non_blocking=True)
                                      for t in state["found_inf_per_device"].values())
        result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        if not takes_scaler:
            del optimizer.grad_scale
            del optimizer.found_inf
        return result

    def update(self, new_scale: float | torch.Tensor | None = None) -> None:
        """Back the scale off if this iteration found inf/NaN, else grow it every growth_interval
        clean steps; or set it to new_scale."""
        if not self._enabled:
            return
        scale, growth_tracker = self._scale_and_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor "
                          "with requires_grad=False.")
                if new_scale.device.type != self._device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(device=scale.device, non_blocking=True)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found_infs[0]
            for found_inf in found_infs[1:]:
                combined += found_inf
            torch._amp_update_scale_(scale, growth_tracker, combined, self._growth_factor, self._backoff_factor,
                                     self._growth_interval)
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _get_scale_async(self) -> torch.Tensor | None:
        return self._scale

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning of an iteration, "
                                     "or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer: Any) -> dict[torch.device, torch.Tensor]:
        scale, _ = self._scale_and_tracker("_check_inf_per_device")
        dummy_inv_scale = torch.full((), 1.0, dtype=torch.float32, device=scale.device)
        found_inf = torch.full((), 0.0, dtype=torch.float32, device=scale.device)
        found = self._unscale_grads_(optimizer, dummy_inv_scale, found_inf, True)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = found
        return found

    def _found_inf_per_device(self, optimizer: Any) -> dict[torch.device, torch.Tensor]:
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
