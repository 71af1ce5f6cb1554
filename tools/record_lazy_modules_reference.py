"""Record PyTorch's lazy module results (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*,
LazyInstanceNorm*, UninitializedParameter/Buffer) for the lazy module tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_lazy_modules_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`lazy_modules.json`: for each case of CASES, what `run_case` returns under PyTorch: reprs and
state_dict entries before the first call, the class, weights, buffers, output and repr after it,
state_dict loading into and out of lazy modules, an optimizer step, deepcopy, or the error's type
and message (with the name of the op in "uninitialized parameter in <op>" left out, as Ember's ops
print differently). Weights come from torch.manual_seed, which Ember reproduces bit for bit; the
tests run the same `run_case` on Ember and compare.
"""
from __future__ import annotations

import copy
import importlib
import json
import pickle
import re
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "lazy_modules"
REFERENCE_PACKAGE = "torch"
# (case, class name, constructor arguments, input shape)
LAYERS = (("linear", "LazyLinear", (3,), (2, 4)), ("linear_no_bias_3d_input", "LazyLinear", (2, False), (2, 3, 5)),
          ("conv1d", "LazyConv1d", (4, 3), (2, 2, 6)),
          ("conv2d_groups", "LazyConv2d", (4, 3, 1, 1, 1, 2), (1, 4, 5, 5)),
          ("conv2d_unbatched", "LazyConv2d", (3, 2), (2, 4, 4)), ("conv3d", "LazyConv3d", (2, 2), (1, 2, 3, 3, 3)),
          ("conv_transpose1d", "LazyConvTranspose1d", (4, 3, 2), (1, 2, 5)),
          ("conv_transpose2d_groups", "LazyConvTranspose2d", (4, 3, 1, 0, 0, 2), (1, 4, 3, 3)),
          ("conv_transpose3d", "LazyConvTranspose3d", (2, 2), (1, 3, 2, 2, 2)),
          ("batchnorm1d", "LazyBatchNorm1d", (), (4, 3)), ("batchnorm2d", "LazyBatchNorm2d", (), (2, 3, 2, 2)),
          ("batchnorm3d_no_affine", "LazyBatchNorm3d", (1e-5, 0.1, False), (2, 2, 2, 2, 2)),
          ("instancenorm1d", "LazyInstanceNorm1d", (), (2, 3, 4)),
          ("instancenorm2d_no_stats", "LazyInstanceNorm2d", (1e-5, 0.1, True, False), (2, 3, 3, 3)),
          ("instancenorm3d", "LazyInstanceNorm3d", (), (1, 2, 2, 2, 2)))
CASES = (*(case for case, *_ in LAYERS), "load_into_lazy", "load_lazy_into_lazy", "load_lazy_into_initialized",
         "optimizer_before_init", "deepcopy_before_init", "double_before_init", "uninitialized_objects",
         "error_use_uninitialized", "error_conv_input_dims", "error_conv_groups", "error_shape_of_uninitialized",
         "error_deepcopy_lazy_batchnorm", "error_weight_norm_on_lazy", "error_spectral_norm_on_lazy",
         "error_initialize_not_implemented")


def _t(x: Any) -> Any:
    return x.detach().tolist()


def _entries(module: Any) -> dict[str, Any]:
    """state_dict entries: uninitialised ones by repr, the others by value."""
    return {k: (repr(v) if type(v).__name__.startswith("Uninitialized") else _t(v))
            for k, v in module.state_dict().items()}


def _layer_case(torch: Any, cls_name: str, args: tuple[Any, ...], shape: tuple[int, ...]) -> dict[str, Any]:
    m = getattr(torch.nn, cls_name)(*args)
    out: dict[str, Any] = {"repr_before": repr(m), "state_before": _entries(m),
                           "lazy": m.has_uninitialized_params()}
    x = torch.randn(*shape)
    y = m(x)
    out.update(cls=type(m).__name__, repr_after=repr(m), state_after=_entries(m), y=_t(y),
               hooks_left=hasattr(m, "_initialize_hook") or hasattr(m, "_load_hook"),
               parameter_types=[type(p).__name__ for p in m.parameters()])
    return out


def _state_dict_cases(torch: Any, name: str, out: dict[str, Any]) -> None:
    nn = torch.nn
    if name == "load_into_lazy":
        source = nn.Linear(4, 3)
        lazy = nn.LazyLinear(3)
        out["result"] = str(lazy.load_state_dict(source.state_dict()))
        out.update(cls=type(lazy).__name__, lazy=lazy.has_uninitialized_params(), weight=_t(lazy.weight),
                   in_features=lazy.in_features)
        out.update(y=_t(lazy(torch.ones(1, 4))), cls_after=type(lazy).__name__, in_after=lazy.in_features)
    elif name == "load_lazy_into_lazy":
        target = nn.LazyBatchNorm1d()
        out["result"] = str(target.load_state_dict(nn.LazyBatchNorm1d().state_dict()))
        out.update(cls=type(target).__name__, state=_entries(target))
    elif name == "load_lazy_into_initialized":
        nn.Linear(4, 3).load_state_dict(nn.LazyLinear(3).state_dict())


def _behaviour_cases(torch: Any, name: str, out: dict[str, Any]) -> None:
    nn = torch.nn
    if name == "optimizer_before_init":
        m = nn.LazyLinear(2)
        opt = torch.optim.SGD(m.parameters(), lr=0.5, momentum=0.9)
        for _ in range(2):
            opt.zero_grad()
            m(torch.ones(3, 4)).pow(2).sum().backward()
            opt.step()
        out.update(weight=_t(m.weight), bias=_t(m.bias), in_group=opt.param_groups[0]["params"][0] is m.weight)
    elif name == "deepcopy_before_init":
        m = nn.LazyLinear(2)
        c = copy.deepcopy(m)
        c(torch.ones(1, 5))
        out.update(original=type(m).__name__, original_lazy=m.has_uninitialized_params(), copy=type(c).__name__,
                   copy_weight=_t(c.weight))
        m(torch.ones(1, 3))
        out.update(original_after=list(m.weight.shape))
    elif name == "double_before_init":
        m = nn.LazyConv1d(2, 2).double()
        y = m(torch.ones(1, 3, 4, dtype=torch.float64))
        out.update(dtype=str(m.weight.dtype), y_dtype=str(y.dtype))
    elif name == "uninitialized_objects":
        p, b = nn.parameter.UninitializedParameter(), nn.parameter.UninitializedBuffer()
        out.update(p=repr(p), b=repr(b), p_grad=p.requires_grad, b_grad=b.requires_grad, is_lazy=[
            nn.parameter.is_lazy(p), nn.parameter.is_lazy(b), nn.parameter.is_lazy(nn.Parameter(torch.ones(1)))],
            p_is_param=isinstance(p, nn.Parameter), b_is_buffer=isinstance(b, nn.Buffer),
            pickled=type(pickle.loads(pickle.dumps(p))).__name__, copied=repr(copy.deepcopy(p)),
            size=list(p.size()), floating=p.is_floating_point())
        p.materialize((2, 3), dtype=torch.float64)
        b.materialize(4)
        out.update(p_after=[type(p).__name__, list(p.shape), str(p.dtype), p.requires_grad],
                   b_after=[type(b).__name__, list(b.shape)])


def _error_cases(torch: Any, name: str) -> None:
    nn = torch.nn
    if name == "error_use_uninitialized":
        torch.add(nn.parameter.UninitializedParameter(), 1)
    elif name == "error_conv_input_dims":
        nn.LazyConv2d(4, 3)(torch.ones(3, 3))
    elif name == "error_conv_groups":
        nn.LazyConv2d(4, 3, groups=2)(torch.ones(1, 3, 5, 5))
    elif name == "error_shape_of_uninitialized":
        nn.parameter.UninitializedBuffer().shape
    elif name == "error_deepcopy_lazy_batchnorm":
        copy.deepcopy(nn.LazyBatchNorm1d())
    elif name == "error_weight_norm_on_lazy":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nn.utils.weight_norm(nn.LazyLinear(3))
    elif name == "error_spectral_norm_on_lazy":
        nn.utils.spectral_norm(nn.LazyLinear(3))
    elif name == "error_initialize_not_implemented":
        class Half(nn.modules.lazy.LazyModuleMixin, nn.Module):
            pass
        Half()(torch.ones(1))


def run_case(torch: Any, name: str) -> dict[str, Any]:
    torch.manual_seed(0)
    out: dict[str, Any] = {}
    try:
        for case, cls_name, args, shape in LAYERS:
            if case == name:
                return _layer_case(torch, cls_name, args, shape)
        _state_dict_cases(torch, name, out)
        _behaviour_cases(torch, name, out)
        _error_cases(torch, name)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        message = re.sub(r"uninitialized parameter in .*?\. This", "uninitialized parameter in <op>. This", str(e))
        return {"error": type(e).__name__, "message": message}
    return out


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "lazy_modules.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
