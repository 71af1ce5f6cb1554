"""The inductor backend on CUDA tensors: fused pointwise kernels generated as CUDA C (the schema's formulas
rendered for CUDA), compiled through c10.cuda, against eager on the device and against the CPU; the GPU's
training step through the compiled forward and backward. Runs under the host emulator in `make test` and
on a GPU with `pytest -m cuda`."""
import numpy as np
import pytest

import torch
import torch.nn as nn
from torch._inductor._gen_pointwise import FORMULAS

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def groups_of(compiled):
    return getattr(compiled._ember_compiled.entries[0].compiled, "_inductor_groups", [])


def chain(x, w):
    y = 0.5 * x * (1 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return torch.where(y > 0, y, w) + y.clamp(0, 1), (y * 2).sum()


def test_a_pointwise_chain_is_one_gpu_kernel_with_eagers_results():
    x, w = torch.randn(64, 33).cuda(), torch.randn(33).cuda()
    compiled = torch.compile(chain)
    compiled(x, w)
    got, want = compiled(x, w), chain(x, w)
    torch.testing.assert_close(got, want, rtol=2e-6, atol=1e-6)
    torch.testing.assert_close(got[0].cpu(), chain(x.cpu(), w.cpu())[0], rtol=1e-5, atol=1e-5)
    (group,) = groups_of(compiled)
    assert group.device.type == "cuda" and len(group.members) == 14 and got[0].device.type == "cuda"


@pytest.mark.parametrize("name", sorted(n for n in FORMULAS if n in ("atan2", "hypot", "floor_divide", "remainder.Tensor",
                                                                    "sinh", "log2", "lerp.Tensor", "logaddexp")))
def test_formulas_the_cpu_kernels_cannot_fuse_fuse_on_the_gpu(name):
    base, _, overload = name.partition(".")
    op = getattr(getattr(torch.ops.aten, base), overload or "default")
    tensors = FORMULAS[name][0]
    gen = torch.Generator().manual_seed(len(name))
    inputs = [(torch.rand(5, 7, generator=gen) * 0.8 + 0.1).cuda() for _ in tensors]
    compiled = torch.compile(lambda *ts: op(*ts) * 2)
    compiled(*inputs)
    torch.testing.assert_close(compiled(*inputs), op(*inputs) * 2, rtol=2e-6, atol=1e-6)
    assert len(groups_of(compiled)) == 1


def test_a_broadcast_and_transposed_layout_keeps_eagers_strides():
    a = torch.randn(6, 5).cuda().t()
    b = torch.randn(1, 6).cuda()
    compiled = torch.compile(lambda a, b: (a * b).exp() - a)
    compiled(a, b)
    got, want = compiled(a, b), (a * b).exp() - a
    torch.testing.assert_close(got, want, rtol=2e-6, atol=1e-6)
    assert got.stride() == want.stride()


def test_a_gpu_training_step_gives_eagers_gradients():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(approximate="tanh"), nn.Linear(16, 4)).cuda()
    reference = nn.Sequential(nn.Linear(8, 16), nn.GELU(approximate="tanh"), nn.Linear(16, 4)).cuda()
    reference.load_state_dict(model.state_dict())
    compiled = torch.compile(model)
    for _ in range(2):
        x = torch.randn(5, 8).cuda()
        compiled(x).pow(2).sum().backward()
        reference(x).pow(2).sum().backward()
    for p, q in zip(model.parameters(), reference.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6)


def test_a_row_sum_of_a_chain_is_its_gpu_kernels_epilogue_and_a_narrow_one_stays_embers():
    x, b = torch.randn(2048, 33).cuda(), torch.randn(33).cuda()

    def f(x, b):
        y = (x * 2 + b).tanh()
        return (y * y).sum(dim=-1), (x - b).mean(dim=0)

    compiled = torch.compile(f)
    compiled(x, b)
    torch.testing.assert_close(compiled(x, b), f(x, b), rtol=2e-6, atol=2e-5)
    reductions = [g.reduction is not None for g in groups_of(compiled)]
    assert reductions == [True, False]          # 2048 outputs fuse; 33 are too few for a thread each


@pytest.mark.parametrize("length", [5, 33, 300])
def test_layer_norm_softmax_and_log_softmax_rows_are_one_gpu_kernel_with_eagers_results(length):
    gen = torch.Generator().manual_seed(length)
    x, w, b = (torch.randn(*shape, generator=gen).cuda() for shape in [(3, 7, length), (length,), (length,)])

    def f(x, w, b):
        h = nn.functional.layer_norm(x * 2 + 1, (length,), w, b)
        return torch.softmax(h, -1) * 3, torch.log_softmax(h + 1, -1)

    compiled = torch.compile(f)
    compiled(x, w, b)
    got, want = compiled(x, w, b), f(x, w, b)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=2e-6)
    torch.testing.assert_close(got[1].cpu(), f(x.cpu(), w.cpu(), b.cpu())[1], rtol=1e-5, atol=1e-5)
    (group,) = groups_of(compiled)
    assert group.device.type == "cuda" and len(group.rows) == 3


def test_a_gpu_transformer_step_with_fused_row_backwards_gives_eagers_gradients():
    torch.manual_seed(0)

    def make():
        torch.manual_seed(1)
        return nn.Sequential(nn.Linear(16, 40), nn.LayerNorm(40), nn.GELU(approximate="tanh"),
                             nn.Linear(40, 11)).cuda()

    model, reference = make(), make()
    targets = torch.tensor([1, 3, -100, 10, 0, 7]).cuda()

    def step(net, x):
        loss = nn.functional.cross_entropy(net(x), targets, ignore_index=-100)
        loss.backward()
        return loss

    compiled = torch.compile(step)
    for _ in range(2):
        x = torch.randn(6, 16).cuda()
        torch.testing.assert_close(compiled(model, x), step(reference, x), rtol=1e-5, atol=1e-6)
        for p, q in zip(model.parameters(), reference.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6)
    kinds = {row.kind for group in groups_of(compiled) for row in group.rows.values()}
    # (a layer norm's input gradient on CUDA is a composite of pointwise ops and sums, not a row operation)
    assert {"layer_norm", "log_softmax", "nll_backward", "log_softmax_backward"} <= kinds


def test_a_gpu_row_longer_than_a_row_kernel_takes_stays_embers():
    from torch._inductor.scheduler import CUDA_ROW_LENGTH
    x = torch.randn(2, CUDA_ROW_LENGTH + 1).cuda()
    compiled = torch.compile(lambda x: torch.softmax(x * 2, -1))
    compiled(x)
    torch.testing.assert_close(compiled(x), torch.softmax(x * 2, -1))
    assert all(not group.rows for group in groups_of(compiled))


def test_sizes_that_vary_share_one_generic_gpu_source_with_eagers_results():
    import torch.nn.functional as F

    def f(x, w):
        y = torch.tanh(x * 2) + w
        return y.softmax(-1), F.layer_norm(y, (y.shape[-1],)), (y * y).sum(-1), y.t() * 3

    compiled = torch.compile(f, dynamic=True)
    sources = set()
    for rows, length in [(40, 300), (7, 500), (129, 257), (3, 4096)]:    # rows past 256 use one block size
        x, w = torch.randn(rows, length).cuda(), torch.randn(length).cuda()
        compiled(x, w)
        for got, want in zip(compiled(x, w), f(x, w)):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
        sources.add(compiled._ember_compiled.entries[0].compiled._inductor_source)
    assert len(sources) == 1 and "long long s0" in sources.pop()


def test_one_plus_tanh_is_a_sigmoid_on_the_gpu_too():
    y = torch.linspace(-12, 12, 2001)
    compiled = torch.compile(lambda t: 1 + torch.tanh(t))
    compiled(y.cuda())
    got = compiled(y.cuda()).cpu().numpy()
    np.testing.assert_allclose(got, (2 / (1 + np.exp(-2 * y.numpy().astype(np.float64)))).astype(np.float32),
                               rtol=3e-7, atol=0)
    (group,) = groups_of(compiled)
    assert "expf(" in group.lowered[group.members[-1]].expr
