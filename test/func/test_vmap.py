"""torch.func.vmap: results equal the loop over examples; composition with grad; PyTorch's errors."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, stack_module_state, vjp, vmap


def _loop(fn, *args, in_dims=0):
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    results = [fn(*[a.select(d, b) if d is not None else a for a, d in zip(args, dims)]) for b in range(size)]
    return torch.stack(results)


def test_pointwise_with_broadcasting_matches_numpy():
    x, y = torch.randn(4, 3), torch.randn(3)
    out = vmap(lambda a, b: a * b + 1, in_dims=(0, None))(x, y)
    np.testing.assert_allclose(out.numpy(), x.numpy() * y.numpy() + 1, rtol=1e-6)


def test_in_dims_other_than_zero_and_out_dims():
    x = torch.randn(3, 5, 2)
    out = vmap(lambda a: a.sum(0), in_dims=1, out_dims=1)(x)
    np.testing.assert_allclose(out.numpy(), x.numpy().sum(0).T, rtol=1e-6)


def test_zero_dim_examples_promote_as_zero_dim_tensors():
    # each example of the float64 input is a 0-dim tensor: float32 (dimensioned) wins, as in the loop
    scalars, rows = torch.randn(4, dtype=torch.float64), torch.randn(3)
    out = vmap(lambda s: rows + s)(scalars)
    assert out.dtype == torch.float32
    assert torch.equal(out, _loop(lambda s: rows + s, scalars))


def test_nested_vmap_is_an_outer_product():
    a, b = torch.randn(3), torch.randn(4)
    out = vmap(vmap(torch.mul, in_dims=(None, 0)), in_dims=(0, None))(a, b)
    np.testing.assert_allclose(out.numpy(), np.outer(a.numpy(), b.numpy()), rtol=1e-6)


def test_chunk_size_gives_the_same_result():
    x = torch.randn(10, 4)
    full = vmap(lambda r: r.softmax(0))(x)
    assert torch.equal(vmap(lambda r: r.softmax(0), chunk_size=3)(x), full)


def test_matmul_family_matches_loop():
    a, b, m = torch.randn(5, 3), torch.randn(5, 3), torch.randn(5, 4, 3)
    assert torch.allclose(vmap(torch.dot)(a, b), _loop(torch.dot, a, b), atol=1e-6)
    assert torch.allclose(vmap(torch.mv)(m, a), _loop(torch.mv, m, a), atol=1e-6)
    w = torch.randn(3, 2)
    assert torch.allclose(vmap(torch.mm, in_dims=(0, None))(m, w), _loop(torch.mm, m, w, in_dims=(0, None)),
                          atol=1e-6)
    assert torch.allclose(vmap(torch.matmul, in_dims=(None, 0))(w.t(), m.transpose(1, 2)),
                          _loop(torch.matmul, w.t(), m.transpose(1, 2), in_dims=(None, 0)), atol=1e-6)


def test_indexing_inside_vmap():
    x, idx = torch.randn(4, 6), torch.tensor([[0, 2], [1, 1], [5, 3], [4, 0]])
    assert torch.equal(vmap(lambda r: r[1:4])(x), x[:, 1:4])
    assert torch.equal(vmap(lambda r, i: r[i])(x, idx), torch.stack([x[b][idx[b]] for b in range(4)]))
    m = torch.randn(4, 3, 5)
    assert torch.equal(vmap(lambda r, i: r[:, i])(m, idx % 5), torch.stack([m[b][:, idx[b] % 5] for b in range(4)]))


def test_in_place_on_a_batched_tensor_writes_the_batch():
    x = torch.zeros(3, 2)

    def f(row):
        row.add_(1).mul_(2)
        return row
    vmap(f)(x)
    assert torch.equal(x, torch.full((3, 2), 2.0))


def test_op_without_a_rule_loops_with_pytorchs_warning():
    x = torch.randn(4, 3, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = vmap(torch.trace)(x)
    assert any("There is a performance drop because we have not yet implemented the batching rule for aten::trace"
               in str(w.message) for w in caught)
    assert torch.equal(out, _loop(torch.trace, x))


def test_embedding_bags_value_checks_run_per_example_without_naming_an_operator_of_embers_own():
    bag = nn.EmbeddingBag(10, 3, mode="sum")
    indices = torch.randint(0, 10, (4, 2, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = vmap(bag)(indices)
    assert not any("_ember_" in str(w.message) for w in caught)
    assert torch.equal(out, _loop(bag, indices))
    indices[2, 1, 0] = 10               # one example's index out of range: its own check raises
    with pytest.raises(RuntimeError, match=r"Index 3 of input takes value 10 which is not in the valid range \[0, 10\)"):
        vmap(bag)(indices)


@pytest.mark.parametrize("fn, message", [
    (lambda t: t.sum().item(), "vmap: It looks like you're calling .item() on a Tensor"),
    (lambda t: t * 2 if t.sum() > 0 else t, "vmap: It looks like you're attempting to use a Tensor in some data-dependent"),
    (lambda t: t.tolist(), "Cannot access data pointer of Tensor that doesn't have storage"),
    (lambda t: t.nonzero(), "vmap: We do not support batching operators that can output dynamic shape"),
    (lambda t: t + torch.randn(3), "vmap: called random operation while in randomness error mode"),
])
def test_data_dependent_python_raises_pytorchs_error(fn, message):
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        vmap(fn)(torch.randn(2, 3))


def test_argument_errors_are_pytorchs():
    with pytest.raises(ValueError, match="Expected all tensors to have the same size in the mapped dimension, got sizes"):
        vmap(torch.add)(torch.randn(3), torch.randn(4))
    with pytest.raises(ValueError, match="so expected in_dim to satisfy -1 <= in_dim < 1"):
        vmap(lambda a: a, in_dims=1)(torch.randn(3))
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        vmap(lambda a: a)(5)
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'int'>"):
        vmap(lambda a: 5)(torch.randn(3))
    with pytest.raises(ValueError, match="Expected at least one Tensor to vmap over"):
        vmap(lambda a: a, in_dims=(None,))(torch.randn(3))
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are 'error', 'different', or 'same'"):
        vmap(lambda a: a, randomness="sometimes")


def test_randomness_different_and_same():
    torch.manual_seed(0)
    different = vmap(lambda t: t + torch.rand(3), randomness="different")(torch.zeros(4, 3))
    assert not torch.equal(different[0], different[1])
    same = vmap(lambda t: t + torch.rand(3), randomness="same")(torch.zeros(4, 3))
    assert all(torch.equal(same[0], same[b]) for b in range(4))
    dropped = vmap(lambda t: F.dropout(t, 0.5), randomness="different")(torch.ones(4, 50))
    assert not torch.equal(dropped[0], dropped[1])
    with pytest.raises(RuntimeError, match="Cannot ask for different inplace randomness on an unbatched tensor"):
        vmap(lambda t: torch.ones(3).bernoulli_(0.5) + t, randomness="different")(torch.zeros(4, 3))


def test_grad_of_vmap_sums_over_the_examples():
    w = torch.randn(3, requires_grad=True)
    x = torch.randn(5, 3)
    vmap(lambda r: (r * w).sum().sin())(x).sum().backward()
    expected = (x * torch.cos((x * w.detach()).sum(1, keepdim=True))).sum(0)
    assert torch.allclose(w.grad, expected, atol=1e-6)


def test_vmap_of_vjp_is_the_jacobian():
    x = torch.randn(4)
    _, pullback = vjp(torch.sin, x)
    jacobian = vmap(pullback)(torch.eye(4))[0]
    assert torch.allclose(jacobian, torch.diag(torch.cos(x)), atol=1e-6)


class _SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc = nn.Linear(8 * 2 * 2, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = torch.flatten(F.relu(self.conv2(x)), 1)
        return F.log_softmax(self.fc(x), dim=1)


def test_per_sample_gradients_tutorial():
    """The per-sample-gradients tutorial's recipe: vmap(grad(loss)) over functional_call equals one grad per sample."""
    torch.manual_seed(0)
    model = _SmallCNN()
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        predictions = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return F.nll_loss(predictions, target.unsqueeze(0))

    data, targets = torch.randn(6, 1, 10, 10), torch.randint(0, 10, (6,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_sample = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
    for name, value in per_sample.items():
        expected = torch.stack([grad(compute_loss)(params, buffers, data[i], targets[i])[name] for i in range(6)])
        assert value.shape == (6,) + params[name].shape
        assert torch.allclose(value, expected, atol=1e-6), name


def test_model_ensembling_tutorial():
    """The ensembling tutorial's recipe: stack_module_state + vmap over functional_call equals each model's output."""
    torch.manual_seed(0)
    models = [nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3)) for _ in range(4)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return functional_call(base, (params, buffers), (x,))

    minibatch = torch.randn(7, 5)
    same_data = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
    assert torch.allclose(same_data, torch.stack([m(minibatch) for m in models]), atol=1e-6)
    minibatches = torch.randn(4, 7, 5)
    different_data = vmap(fmodel)(params, buffers, minibatches)
    assert torch.allclose(different_data, torch.stack([m(x) for m, x in zip(models, minibatches)]), atol=1e-6)


def test_grad_with_batched_grad_outputs_is_one_pass_per_row():
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    y = x.sin() * 2
    rows = torch.randn(3, 4, dtype=torch.float64)
    (batched,) = torch.autograd.grad(y, x, rows, retain_graph=True, is_grads_batched=True)
    loop = torch.stack([torch.autograd.grad(y, x, r, retain_graph=True)[0] for r in rows])
    assert torch.allclose(batched, loop, rtol=1e-12)
    with pytest.raises(RuntimeError, match="we interpret the first dimension of each grad_output as the batch"):
        torch.autograd.grad(y, x, torch.randn(4, dtype=torch.float64), is_grads_batched=True)


def test_vectorized_jacobian_and_hessian_equal_the_row_loop():
    from torch.autograd.functional import hessian, jacobian

    def f(a, b):
        return a.sin() * b, (a * b).sum().exp()
    a, b = torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    looped, vectorized = jacobian(f, (a, b)), jacobian(f, (a, b), vectorize=True)
    for row_l, row_v in zip(looped, vectorized):
        for l, v in zip(row_l, row_v):
            assert torch.allclose(l, v, rtol=1e-12)
    g = lambda x: (x.sin() * x).sum()   # noqa: E731
    assert torch.allclose(hessian(g, a), hessian(g, a, vectorize=True), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        jacobian(g, a, strategy="forward-mode")


def test_jacrev_in_chunks_equals_jacfwd():
    from torch.func import jacfwd, jacrev
    x = torch.randn(5, dtype=torch.float64)
    f = lambda v: v.sin().cumsum(0) * v.sum()   # noqa: E731
    assert torch.allclose(jacrev(f, chunk_size=2)(x), jacfwd(f)(x), rtol=1e-12)


def test_a_tensor_used_inside_and_outside_vmap_gets_both_gradients_once():
    x = torch.randn(5, 3, dtype=torch.float64)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    (vmap(lambda a: (a * w).sum())(x).sum() + w.sum()).backward()
    assert torch.allclose(w.grad, x.sum(0) + 1, rtol=1e-12)
    w.grad = None
    (vmap(lambda a: (a * w).sum(), chunk_size=2)(x).sum() + vmap(lambda a: (a * w).sum())(x).sum()).backward()
    assert torch.allclose(w.grad, 2 * x.sum(0), rtol=1e-12)


def test_in_place_writes_under_vmap_of_grad_are_differentiated_as_in_the_loop():
    x = torch.arange(12.0, dtype=torch.float64).view(4, 3)

    def scaled_first(a):
        b = a * 1
        b[0].mul_(2)
        return b.sum()
    assert torch.equal(vmap(grad(scaled_first))(x), torch.stack([grad(scaled_first)(r) for r in x]))

    def overwritten_saved(a):
        b = a.sin()
        y = b * b
        b.mul_(2)
        return y.sum()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        vmap(grad(overwritten_saved))(x)


def test_reading_a_batched_tensors_memory_is_refused():
    with pytest.raises(RuntimeError, match="accessing `data` under vmap transform is not allowed"):
        vmap(lambda a: a.data * 2)(torch.randn(3, 2))
    with pytest.raises(RuntimeError, match="Ember does not support aten::squeeze_ on a batched tensor"):
        vmap(lambda a: a.squeeze_(0))(torch.randn(4, 1, 3))


def test_losses_per_example_match_the_loop():
    logits, probabilities = torch.randn(4, 5, 3), torch.randn(4, 5, 3).softmax(-1)
    assert torch.allclose(vmap(F.cross_entropy)(logits, probabilities),
                          _loop(F.cross_entropy, logits, probabilities), atol=1e-6)
    targets = torch.tensor([[2, 2, 2, 2], [0, 1, 2, 0]])
    scores = torch.randn(2, 4, 3)

    def loss(s, t):
        return F.nll_loss(s, t, ignore_index=2)
    per_example = vmap(grad(loss))(scores, targets)
    assert torch.equal(per_example, torch.stack([grad(loss)(s, t) for s, t in zip(scores, targets)]))


def test_nested_different_randomness_draws_per_example_of_both():
    drawn = vmap(vmap(lambda a: a + torch.rand(()), randomness="different"), randomness="different")(torch.zeros(2, 3))
    assert len(set(drawn.reshape(-1).tolist())) == 6
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(vmap(lambda a: a + torch.rand(()), randomness="different"))(torch.zeros(2, 3))


def test_batched_scalar_index_and_selecting_reductions_under_grad():
    x = torch.arange(12.0).view(4, 3)
    j = torch.tensor([0, 1, 2, 0])
    assert torch.equal(vmap(lambda a, i: a[i])(x, j), x[torch.arange(4), j])
    for reduction in (torch.max, torch.prod):
        assert torch.equal(vmap(grad(lambda a: reduction(a)))(x), torch.stack([grad(reduction)(r) for r in x]))


def test_batched_tensors_print_as_pytorchs():
    printed = []
    vmap(lambda a: printed.append(repr(a)) or a)(torch.arange(6.0).view(2, 3))
    assert printed[0].startswith("BatchedTensor(lvl=1, bdim=0, value=\n    tensor([[0., 1., 2.],")


@pytest.mark.parametrize("groups, transposed", [(1, False), (2, False), (1, True)])
def test_convolution_with_batched_weights_is_one_grouped_convolution(groups, transposed):
    x = torch.randn(5, 2, 8, 8, dtype=torch.float64)
    if transposed:
        weights, conv = torch.randn(3, 2, 4 // groups, 3, 3, dtype=torch.float64), F.conv_transpose2d
    else:
        weights, conv = torch.randn(3, 4, 2 // groups, 3, 3, dtype=torch.float64), F.conv2d
    biases = torch.randn(3, 4, dtype=torch.float64)

    def run(w, b, images=x):
        return conv(images, w, b, stride=2, groups=groups)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a rule, not the per-example loop
        per_model = vmap(run, in_dims=(0, 0))(weights, biases)
        per_model_and_batch = vmap(run)(weights, biases, torch.randn(3, 5, 2, 8, 8, dtype=torch.float64))
    assert torch.allclose(per_model, torch.stack([run(w, b) for w, b in zip(weights, biases)]), rtol=1e-12)
    assert per_model_and_batch.shape == per_model.shape


def test_per_sample_cnn_gradients_need_no_per_example_loop():
    model = _SmallCNN()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, sample, target):
        return F.nll_loss(functional_call(model, p, (sample.unsqueeze(0),)), target.unsqueeze(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vmap(grad(loss), in_dims=(None, 0, 0))(params, torch.randn(3, 1, 10, 10), torch.randint(0, 10, (3,)))



def test_torch_vmap_is_torch_func_vmap():
    # PyTorch exposes vmap at the top level too (torch.vmap, since 2.0)
    assert torch.vmap is torch.func.vmap
    x = torch.randn(3, 4)
    torch.testing.assert_close(torch.vmap(torch.dot)(x, x), (x * x).sum(1))
