"""torch.nn.attention: which scaled-dot-product-attention kernels may run (sdpa_kernel), and
flex_attention (torch.nn.attention.flex_attention).

Ember has one attention kernel, the math one, on every device, so the switches sdpa_kernel sets
are kept and readable (torch.backends.cuda.*_sdp_enabled) but choose nothing."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from torch.backends.cuda import SDPBackend, _sdp

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False

_SWITCHES = {SDPBackend.FLASH_ATTENTION: "flash", SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
             SDPBackend.MATH: "math", SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends: list[SDPBackend] | SDPBackend, set_priority: bool = False) -> Iterator[None]:
    """Within the block, only the given backends are enabled."""
    if not isinstance(backends, (SDPBackend, list)):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    chosen = [backends] if isinstance(backends, SDPBackend) else backends
    previous = {name: _sdp[name].get() for name in _SWITCHES.values()}
    for backend, name in _SWITCHES.items():
        _sdp[name].set(backend in chosen)
    try:
        yield
    finally:
        for name, value in previous.items():
            _sdp[name].set(value)
