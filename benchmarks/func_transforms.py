"""torch.func workloads (issue 26): per-sample gradients of a small MLP at batch 64, with vmap(grad) over
functional_call and with the Python loop of one grad per sample it replaces (target: vmap at least 10x
faster than the loop); forward mode: a jvp of the MLP, jacfwd (vmap of jvp) and a Hessian-vector product
(jvp of grad: forward over reverse).

Like suite.py, this file runs under another interpreter's PyTorch too (suite.py loads it by path): the
public torch API only, no Ember internals, nothing else of this package.
"""
from __future__ import annotations

from typing import Any, Callable

Fn = Callable[[], Any]
_BATCH = 64


def _per_sample_setup(torch: Any) -> tuple[Any, Any, Any, Any, Any]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    data, targets = torch.randn(_BATCH, 32), torch.randint(0, 10, (_BATCH,))

    def loss(params: Any, sample: Any, target: Any) -> Any:
        out = torch.func.functional_call(model, params, (sample.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(out, target.unsqueeze(0))
    return torch.func, params, data, targets, loss


def per_sample_vmap(torch: Any, np: Any, s: Any) -> Fn:
    func, params, data, targets, loss = _per_sample_setup(torch)
    compute = func.vmap(func.grad(loss), in_dims=(None, 0, 0))
    return lambda: compute(params, data, targets)


def per_sample_loop(torch: Any, np: Any, s: Any) -> Fn:
    func, params, data, targets, loss = _per_sample_setup(torch)
    compute = func.grad(loss)

    def step() -> None:
        for i in range(_BATCH):
            compute(params, data[i], targets[i])
    return step


def _mlp_setup(torch: Any) -> tuple[Any, Any, Any]:
    torch.manual_seed(0)
    w1, w2 = torch.randn(64, 32) / 8, torch.randn(10, 64) / 8
    x = torch.randn(_BATCH, 32)

    def mlp(x: Any) -> Any:
        return torch.tanh(x @ w1.t()) @ w2.t()
    return mlp, x, torch.randn(_BATCH, 32)


def jvp_mlp(torch: Any, np: Any, s: Any) -> Fn:
    mlp, x, t = _mlp_setup(torch)
    return lambda: torch.func.jvp(mlp, (x,), (t,))


def jacfwd_square(torch: Any, np: Any, s: Any) -> Fn:
    torch.manual_seed(0)
    w = torch.randn(100, 100) / 10
    x = torch.randn(100)
    jac = torch.func.jacfwd(lambda x: torch.tanh(w @ x))
    return lambda: jac(x)


def hvp_mlp(torch: Any, np: Any, s: Any) -> Fn:
    mlp, x, t = _mlp_setup(torch)

    def loss(x: Any) -> Any:
        return mlp(x).pow(2).sum()
    return lambda: torch.func.jvp(torch.func.grad(loss), (x,), (t,))


def register(case: Callable[..., Callable[[Any], Any]]) -> None:
    """Adds the workloads to suite.py's cases (group `func`)."""
    case("func.per_sample_grad_vmap", f"per-sample gradients, MLP 32-64-10, batch {_BATCH}: vmap(grad)", "ms")(
        per_sample_vmap)
    case("func.per_sample_grad_loop", f"per-sample gradients, MLP 32-64-10, batch {_BATCH}: loop of grad", "ms")(
        per_sample_loop)
    case("func.jvp_mlp", f"forward-mode jvp of an MLP 32-64-10, batch {_BATCH}", "us")(jvp_mlp)
    case("func.jacfwd_100", "jacfwd of tanh(W x), 100 -> 100 (vmap of jvp)", "ms")(jacfwd_square)
    case("func.hvp_mlp", f"Hessian-vector product jvp(grad) of an MLP loss, batch {_BATCH}", "ms")(hvp_mlp)
