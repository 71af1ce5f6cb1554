"""Record PyTorch's torch.nn.utils.parametrize / parametrizations / legacy weight_norm and
spectral_norm results for the parametrization tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_parametrize_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`parametrize.json`: for each case of CASES, what `run_case` returns under PyTorch: parameter,
buffer and state_dict names, the originals, forward outputs and gradients, the power-iteration
vectors after training and eval steps, warnings, or the error's type and message. Weights and
spectral_norm's random start vectors come from torch.manual_seed, which Ember reproduces bit for
bit; the tests run the same `run_case` on Ember and compare.
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "parametrize"
REFERENCE_PACKAGE = "torch"
CASES = ("weight_norm_linear", "weight_norm_conv_dim_none", "weight_norm_dim1", "weight_norm_loads_legacy_names",
         "spectral_norm_train_then_eval", "spectral_norm_conv_transpose", "spectral_norm_on_a_vector",
         "legacy_weight_norm", "legacy_spectral_norm", "custom_chain_and_right_inverse", "right_inverse_two_tensors",
         "remove_leave_original", "cached_computes_once", "unsafe_shape_change", "buffer_parametrized",
         "transfer", "error_no_such_tensor", "error_shape_change", "error_dtype_change",
         "error_chained_shape_change", "error_remove_unparametrized", "error_leave_sequence_unparametrized",
         "error_right_inverse_missing", "error_legacy_weight_norm_twice", "error_remove_weight_norm_missing",
         "error_remove_spectral_norm_missing", "error_spectral_n_power", "error_spectral_dim",
         "error_spectral_no_weight", "error_orthogonal_map_name", "error_orthogonal_vector", "error_pickle",
         "error_orthogonal_assign_exp_untrivialized", "error_orthogonal_assign_shape") + tuple(
    f"orthogonal_{m}_{rows}x{cols}_{'trivial' if t else 'direct'}" for m in ("matrix_exp", "cayley", "householder")
    for rows, cols in ((4, 4), (3, 5), (5, 3)) for t in (True, False))


def _custom(torch: Any) -> Any:
    """Small parametrizations (built on the given torch) for the custom cases."""
    nn = torch.nn

    class Symmetric(nn.Module):
        def forward(self, x: Any) -> Any:
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a: Any) -> Any:
            return a.triu()

    class Scale(nn.Module):
        def __init__(self, factor: float) -> None:
            super().__init__()
            self.factor = factor

        def forward(self, x: Any) -> Any:
            return x * self.factor

        def right_inverse(self, a: Any) -> Any:
            return a / self.factor

    class SumOfTwo(nn.Module):
        def forward(self, a: Any, b: Any) -> Any:
            return a + 2 * b

        def right_inverse(self, w: Any) -> Any:
            return w * 0.5, w * 0.25

    class Counting(nn.Module):
        calls = 0

        def forward(self, x: Any) -> Any:
            Counting.calls += 1
            return x * 2

    class Flatten(nn.Module):
        def forward(self, x: Any) -> Any:
            return x.flatten()

    class ToDouble(nn.Module):
        def forward(self, x: Any) -> Any:
            return x.double()

    class NoInverse(nn.Module):
        def forward(self, x: Any) -> Any:
            return x + 1

    return Symmetric, Scale, SumOfTwo, Counting, Flatten, ToDouble, NoInverse


def _t(x: Any) -> Any:
    return x.detach().tolist()


def _names(m: Any) -> dict[str, Any]:
    return {"class": type(m).__name__, "parameters": [n for n, _ in m.named_parameters()],
            "buffers": [n for n, _ in m.named_buffers()], "state_dict": list(m.state_dict())}


def _weight_norm_cases(torch: Any, name: str, out: dict[str, Any]) -> None:
    nn, P = torch.nn, torch.nn.utils.parametrizations
    if name == "weight_norm_linear":
        m = P.weight_norm(nn.Linear(4, 3))
        x = torch.randn(2, 4)
        y = m(x)
        y.pow(2).sum().backward()
        ps = m.parametrizations.weight
        out.update(_names(m), g=_t(ps.original0), v=_t(ps.original1), weight=_t(m.weight), y=_t(y),
                   g_grad=_t(ps.original0.grad), v_grad=_t(ps.original1.grad))
    elif name == "weight_norm_conv_dim_none":
        m = P.weight_norm(nn.Conv2d(2, 3, 2), dim=None)
        ps = m.parametrizations.weight
        out.update(_names(m), g=_t(ps.original0), g_shape=list(ps.original0.shape),
                   y=_t(m(torch.randn(1, 2, 3, 3))))
    elif name == "weight_norm_dim1":
        m = P.weight_norm(nn.Linear(4, 3), dim=1)
        out.update(g=_t(m.parametrizations.weight.original0), y=_t(m(torch.randn(2, 4))))
    elif name == "weight_norm_loads_legacy_names":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            old = nn.utils.weight_norm(nn.Linear(4, 3))
        with torch.no_grad():
            old.weight_g.mul_(2.0)
        new = P.weight_norm(nn.Linear(4, 3))
        result = new.load_state_dict(old.state_dict())
        x = torch.randn(2, 4)
        out.update(result=str(result), keys=list(new.state_dict()), y=_t(new(x)), y_old=_t(old(x)))


def _spectral_norm_cases(torch: Any, name: str, out: dict[str, Any]) -> None:
    nn, P = torch.nn, torch.nn.utils.parametrizations
    if name == "spectral_norm_train_then_eval":
        m = P.spectral_norm(nn.Linear(5, 4))
        sn = m.parametrizations.weight[0]
        out.update(_names(m), u0=_t(sn._u), v0=_t(sn._v))
        x = torch.randn(3, 5)
        for step in range(3):
            y = m(x)
            out[f"y{step}"], out[f"u{step + 1}"], out[f"v{step + 1}"] = _t(y), _t(sn._u), _t(sn._v)
        y.sum().backward()
        out["grad"] = _t(m.parametrizations.weight.original.grad)
        m.eval()
        out.update(y_eval=_t(m(x)), u_eval=_t(sn._u), weight_eval=_t(m.weight))
    elif name == "spectral_norm_conv_transpose":
        m = P.spectral_norm(nn.ConvTranspose2d(2, 3, 2), n_power_iterations=2, eps=1e-6)
        sn = m.parametrizations.weight[0]
        y = m(torch.randn(1, 2, 3, 3))
        out.update(dim=sn.dim, u=_t(sn._u), v=_t(sn._v), y=_t(y))
    elif name == "spectral_norm_on_a_vector":
        m = P.spectral_norm(nn.Linear(3, 4), name="bias")
        out.update(_names(m), bias=_t(m.bias))


def _orthogonal_cases(torch: Any, name: str, out: dict[str, Any]) -> None:
    """orthogonal_<map>_<rows>x<cols>_<trivial|direct>: the weight after registration, after one
    SGD step through the parametrization, then after assigning a matrix to it."""
    if not name.startswith("orthogonal_"):
        return
    _, rest = name.split("_", 1)
    orthogonal_map, shape, mode = rest.rsplit("_", 2)
    rows, cols = (int(v) for v in shape.split("x"))
    m = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(cols, rows), orthogonal_map=orthogonal_map,
                                                  use_trivialization=mode == "trivial")
    out["weight"] = _t(m.weight)
    out["original"] = _t(m.parametrizations.weight.original)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    target = torch.linspace(-1, 1, rows * cols).reshape(rows, cols)
    (m.weight * target).sum().backward()
    out["original_grad"] = _t(m.parametrizations.weight.original.grad)
    opt.step()
    out["stepped"] = _t(m.weight)
    if mode == "trivial" or orthogonal_map == "householder":
        with torch.no_grad():
            # well conditioned (full rank), so its QR factors are determined
            m.weight = torch.linspace(0.5, 2.0, rows * cols).reshape(rows, cols) + 3 * torch.eye(rows, cols)
        out["assigned"] = _t(m.weight)


def _legacy_cases(torch: Any, name: str, out: dict[str, Any]) -> None:
    nn = torch.nn
    if name == "legacy_weight_norm":
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = nn.utils.weight_norm(nn.Linear(4, 3), dim=0)
        out["warnings"] = [(w.category.__name__, str(w.message)) for w in caught]
        out.update(_names(m), g=_t(m.weight_g))
        y = m(torch.randn(2, 4))
        y.sum().backward()
        out.update(y=_t(y), g_grad=_t(m.weight_g.grad), v_grad=_t(m.weight_v.grad))
        nn.utils.remove_weight_norm(m)
        out.update(after=_names(m), weight=_t(m.weight))
    elif name == "legacy_spectral_norm":
        m = nn.utils.spectral_norm(nn.Linear(5, 4))
        out.update(_names(m), u0=_t(m.weight_u), v0=_t(m.weight_v))
        x = torch.randn(3, 5)
        out.update(y0=_t(m(x)), y1=_t(m(x)), u2=_t(m.weight_u), v2=_t(m.weight_v))
        m.eval()
        out.update(y_eval=_t(m(x)), u_eval=_t(m.weight_u))
        sd = m.state_dict()
        out.update(metadata=sd._metadata[""], keys=list(sd))
        fresh = nn.utils.spectral_norm(nn.Linear(5, 4))
        out["load"] = str(fresh.load_state_dict(sd))
        nn.utils.remove_spectral_norm(m)
        out.update(after=_names(m), weight=_t(m.weight))


def _custom_cases(torch: Any, name: str, out: dict[str, Any]) -> None:
    nn, parametrize = torch.nn, torch.nn.utils.parametrize
    Symmetric, Scale, SumOfTwo, Counting, Flatten, ToDouble, NoInverse = _custom(torch)
    if name == "custom_chain_and_right_inverse":
        m = nn.Linear(3, 3)
        parametrize.register_parametrization(m, "weight", Symmetric())
        parametrize.register_parametrization(m, "weight", Scale(3.0))
        out.update(_names(m), weight=_t(m.weight), parametrized=parametrize.is_parametrized(m),
                   on_bias=parametrize.is_parametrized(m, "bias"), before=parametrize.type_before_parametrizations(m)
                   .__name__, n=len(m.parametrizations.weight), repr=repr(m))
        with torch.no_grad():
            m.weight = torch.arange(9.0).reshape(3, 3)
        out.update(original=_t(m.parametrizations.weight.original), weight_set=_t(m.weight))
        parametrize.remove_parametrizations(m, "weight")
        out.update(after=_names(m), weight_after=_t(m.weight))
    elif name == "right_inverse_two_tensors":
        m = nn.Linear(3, 2)
        w = m.weight.detach().clone()
        parametrize.register_parametrization(m, "weight", SumOfTwo())
        ps = m.parametrizations.weight
        out.update(_names(m), is_tensor=ps.is_tensor, ntensors=ps.ntensors, o0=_t(ps.original0), o1=_t(ps.original1),
                   same=bool(torch.allclose(m.weight, w)), grad_flags=[ps.original0.requires_grad,
                                                                      type(ps.original1).__name__])
        m.weight = torch.ones(2, 3)
        out.update(o0_set=_t(ps.original0), o1_set=_t(ps.original1))
        parametrize.remove_parametrizations(m, "weight")
        out.update(after=_names(m), weight_after=_t(m.weight), is_param=type(m.weight).__name__)
    elif name == "remove_leave_original":
        m = nn.Linear(2, 2)
        w = m.weight
        parametrize.register_parametrization(m, "weight", Scale(2.0))
        parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
        out.update(after=_names(m), same_object=m.weight is w, weight=_t(m.weight))
    elif name == "cached_computes_once":
        m = nn.Linear(2, 2)
        parametrize.register_parametrization(m, "weight", Counting())
        Counting.calls = 0
        with parametrize.cached():
            m.weight, m.weight
            with parametrize.cached():
                m.weight
        inside = Counting.calls
        m.weight, m.weight
        out.update(inside=inside, after=Counting.calls)
    elif name == "unsafe_shape_change":
        m = nn.Linear(3, 2)
        parametrize.register_parametrization(m, "weight", Flatten(), unsafe=True)
        parametrize.register_parametrization(m, "weight", ToDouble(), unsafe=True)
        out.update(shape=list(m.weight.shape), dtype=str(m.weight.dtype), unsafe=m.parametrizations.weight.unsafe)
    elif name == "buffer_parametrized":
        m = nn.BatchNorm1d(3)
        parametrize.register_parametrization(m, "running_var", Scale(2.0))
        out.update(_names(m), running_var=_t(m.running_var))
        parametrize.remove_parametrizations(m, "running_var")
        out.update(after=_names(m), buffer_type=type(m.running_var).__name__)
    elif name == "transfer":
        a, b = nn.Linear(3, 3), nn.Linear(3, 3)
        parametrize.register_parametrization(a, "weight", Symmetric())
        parametrize.register_parametrization(a, "bias", Scale(2.0))
        parametrize.transfer_parametrizations_and_params(a, b)
        out.update(_names(b), shares=b.parametrizations.weight.original is a.parametrizations.weight.original,
                   weight=_t(b.weight), before=parametrize.type_before_parametrizations(b).__name__)


def _error_cases(torch: Any, name: str) -> None:
    nn, parametrize, P = torch.nn, torch.nn.utils.parametrize, torch.nn.utils.parametrizations
    Symmetric, Scale, SumOfTwo, Counting, Flatten, ToDouble, NoInverse = _custom(torch)
    m = nn.Linear(3, 2)
    if name == "error_no_such_tensor":
        parametrize.register_parametrization(m, "kernel", Scale(2.0))
    elif name == "error_shape_change":
        parametrize.register_parametrization(m, "weight", Flatten())
    elif name == "error_dtype_change":
        parametrize.register_parametrization(m, "weight", ToDouble())
    elif name == "error_chained_shape_change":
        parametrize.register_parametrization(m, "weight", Scale(2.0))
        parametrize.register_parametrization(m, "weight", Flatten())
    elif name == "error_remove_unparametrized":
        parametrize.remove_parametrizations(m, "weight")
    elif name == "error_leave_sequence_unparametrized":
        parametrize.register_parametrization(m, "weight", SumOfTwo())
        parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    elif name == "error_right_inverse_missing":
        parametrize.register_parametrization(m, "weight", NoInverse())
        m.weight = torch.zeros(2, 3)
    elif name == "error_legacy_weight_norm_twice":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nn.utils.weight_norm(nn.utils.weight_norm(m))
    elif name == "error_remove_weight_norm_missing":
        nn.utils.remove_weight_norm(m)
    elif name == "error_remove_spectral_norm_missing":
        nn.utils.remove_spectral_norm(m)
    elif name == "error_spectral_n_power":
        P.spectral_norm(m, n_power_iterations=0)
    elif name == "error_spectral_dim":
        P.spectral_norm(m, dim=2)
    elif name == "error_spectral_no_weight":
        P.spectral_norm(m, name="kernel")
    elif name == "error_orthogonal_map_name":
        P.orthogonal(m, orthogonal_map="qr")
    elif name == "error_orthogonal_vector":
        P.orthogonal(m, name="bias")
    elif name == "error_orthogonal_assign_exp_untrivialized":
        P.orthogonal(m, orthogonal_map="matrix_exp", use_trivialization=False)
        with torch.no_grad():
            m.weight = torch.eye(2, 3)
    elif name == "error_orthogonal_assign_shape":
        P.orthogonal(m)
        with torch.no_grad():
            m.weight = torch.eye(3)
    elif name == "error_pickle":
        import pickle
        pickle.dumps(P.weight_norm(m))


def run_case(torch: Any, name: str) -> dict[str, Any]:
    importlib.import_module(torch.__name__ + ".nn.utils.parametrize")
    torch.manual_seed(0)
    out: dict[str, Any] = {}
    try:
        for group in (_weight_norm_cases, _spectral_norm_cases, _orthogonal_cases, _legacy_cases, _custom_cases):
            group(torch, name, out)
        if name.startswith("error_"):
            _error_cases(torch, name)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    return out


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "parametrize.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
