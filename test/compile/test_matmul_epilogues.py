"""Matmul epilogues (torch._inductor.epilogues): a CPU kernel that starts from an mm or addmm result runs inside the
product, on each piece a thread has just computed, with the bits of the same kernel run after the product; where
the product cannot move to the kernel's place (read before it, an operand written in between) it stays apart."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
import torch.nn.functional as F
from aten.native.cpu.linalg import mm_epilogue_cpu


def _graph(compiled):
    return compiled._ember_compiled.entries[0].compiled


def _epilogues(compiled):
    groups = getattr(_graph(compiled), "_inductor_groups", [])
    return [g.epilogue_of.target for g in groups if g.epilogue_of is not None]


def _replayed(compiled, *args):
    """compiled's result once its graph runs (the first call captures it and gives eager's result)."""
    compiled(*args)
    return compiled(*args)


def _fused_and_apart(f, *args, **options):
    """f compiled with and without epilogue fusion: (both results from their compiled graphs, the fused one's
    compiled function)."""
    fused = torch.compile(f, options=options)
    apart = torch.compile(f, options={**options, "epilogue_fusion": False})
    return _replayed(fused, *args), _replayed(apart, *args), fused


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 300), k=st.integers(1, 70), n=st.integers(1, 300), threads=st.sampled_from([1, 2]),
       bias=st.booleans())
def test_a_linear_then_gelu_runs_inside_the_product_with_the_bits_of_the_kernel_run_after_it(m, k, n, threads, bias):
    # (m < n splits the product into bands of columns, m >= n into bands of rows)
    gen = torch.Generator().manual_seed(m * 1000 + n)
    x, w, b = torch.randn(m, k, generator=gen), torch.randn(n, k, generator=gen), torch.randn(n, generator=gen)

    def f(x, w, b):
        return F.gelu(F.linear(x, w, b if bias else None)) * 2 - 1

    saved = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with torch.no_grad():
            got, apart, fused = _fused_and_apart(f, x, w, b)
            want = f(x, w, b)
    finally:
        torch.set_num_threads(saved)
    assert _epilogues(fused) == [torch.ops.aten.addmm.default if bias else torch.ops.aten.mm.default]
    assert "_mm_epilogue(" in _graph(fused)._inductor_wrapper
    assert torch.equal(got, apart)
    torch.testing.assert_close(got, want)


def test_a_residual_add_after_a_projection_viewed_back_to_three_dims_is_its_epilogue():
    torch.manual_seed(0)
    proj = torch.nn.Linear(32, 32)
    x = torch.randn(4, 16, 32)

    def block(x):
        return x + proj(torch.tanh(x)) * 0.5

    with torch.no_grad():
        got, apart, fused = _fused_and_apart(block, x)
        want = block(x)
    assert _epilogues(fused) == [torch.ops.aten.addmm.default]
    assert torch.equal(got, apart)
    torch.testing.assert_close(got, want)


@pytest.mark.parametrize("addend_shape", [(1,), (40,), (30, 40), (30, 1)])
def test_addmm_with_any_addend_and_scales_keeps_its_result_under_the_epilogue(addend_shape):
    gen = torch.Generator().manual_seed(1)
    c, a, b = torch.randn(*addend_shape, generator=gen), torch.randn(30, 20, generator=gen), torch.randn(40, 20,
                                                                                                        generator=gen)

    def f(c, a, b):
        return torch.relu(torch.addmm(c, a, b.t(), beta=0.5, alpha=2.0)) + 1

    got, apart, fused = _fused_and_apart(f, c, a, b)
    assert _epilogues(fused) == [torch.ops.aten.addmm.default]
    assert torch.equal(got, apart)
    torch.testing.assert_close(got, f(c, a, b))


def test_a_product_over_an_empty_inner_dimension_still_runs_its_epilogue():
    a, b = torch.randn(5, 0), torch.randn(0, 7)
    f = lambda a, b: torch.exp(a @ b) + 1       # noqa: E731
    got, _, fused = _fused_and_apart(f, a, b)
    assert _epilogues(fused) == [torch.ops.aten.mm.default]
    assert torch.equal(got, torch.full((5, 7), 2.0))


def test_a_consumer_with_more_buffers_than_an_epilogue_takes_stays_a_kernel_of_its_own():
    a, b = torch.randn(16, 8), torch.randn(8, 16)
    terms = [torch.randn(16, 16) for _ in range(260)]

    def f(a, b, *terms):
        y = a @ b
        for t in terms:
            y = y + t
        return y

    got, apart, fused = _fused_and_apart(f, a, b, *terms)
    assert _epilogues(fused) == []
    assert torch.equal(got, apart)
    torch.testing.assert_close(got, f(a, b, *terms))


def test_a_product_read_before_its_pointwise_consumer_stays_where_it_was():
    a, b = torch.randn(8, 6), torch.randn(6, 10)

    def f(a, b):
        y = a @ b
        total = y.sum()         # Ember's reduction kernel reads the product before the kernel's place
        return torch.relu(y) * total

    got, _, fused = _fused_and_apart(f, a, b)
    assert _epilogues(fused) == []
    torch.testing.assert_close(got, f(a, b))


def test_an_operand_written_between_the_product_and_its_consumer_keeps_them_apart():
    def f(a, b):
        y = a @ b
        b.mul_(3)
        return torch.sigmoid(y) + b.sum()

    a, b = torch.randn(8, 6), torch.randn(6, 10)
    compiled = torch.compile(f)
    compiled(a, b.clone())
    b1, b2 = b.clone(), b.clone()
    got, want = compiled(a, b1), f(a, b2)
    assert _epilogues(compiled) == []
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(b1, b2)


def test_a_compiled_training_step_through_an_epilogue_matches_eager_gradients():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.GELU(), torch.nn.Linear(64, 16))
    x = torch.randn(32, 16)
    compiled = torch.compile(model)
    compiled(x).square().mean().backward()
    model.zero_grad()
    compiled(x).square().mean().backward()
    got = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).square().mean().backward()
    for g, want in zip(got, (p.grad for p in model.parameters())):
        torch.testing.assert_close(g, want)


def test_kernels_generic_in_sizes_run_as_epilogues_at_every_size():
    torch.manual_seed(0)
    layer = torch.nn.Linear(24, 48)
    f = lambda x: torch.tanh(layer(x)) * 3      # noqa: E731
    compiled = torch.compile(f, dynamic=True)
    with torch.no_grad():
        for rows in (5, 17, 64, 9):
            x = torch.randn(rows, 24)
            torch.testing.assert_close(_replayed(compiled, x), f(x))
    assert _epilogues(compiled) == [torch.ops.aten.addmm.default]


def test_the_epilogue_entry_point_refuses_an_output_of_the_wrong_shape():
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    with pytest.raises(RuntimeError, match="contiguous float32 3x5 matrix"):
        mm_epilogue_cpu(torch.empty(5, 3), None, a, b, 1, 1, 1, ())
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        mm_epilogue_cpu(torch.empty(3, 5), None, a, a, 1, 1, 1, ())


def test_a_view_of_the_product_returned_as_well_is_made_after_the_product():
    torch.manual_seed(0)
    layer = torch.nn.Linear(8, 12)
    x = torch.randn(2, 5, 8)

    def f(x):
        y = layer(x)            # addmm, viewed back to (2, 5, 12): the view is returned, so made as a tensor
        return y, torch.relu(y)

    with torch.no_grad():
        (y, r), (y_apart, r_apart), fused = _fused_and_apart(f, x)
        want = f(x)
    assert _epilogues(fused) == [torch.ops.aten.addmm.default]
    assert torch.equal(y, y_apart) and torch.equal(r, r_apart)
    torch.testing.assert_close(y, want[0])
    torch.testing.assert_close(r, want[1])


@pytest.mark.parametrize("threads", [1, 2])
def test_a_consumer_reading_the_product_elsewhere_too_stays_apart(threads):
    # (y.t() reads elements of rows another thread computes)
    a, b = torch.randn(300, 40), torch.randn(40, 300)
    f = lambda a, b: (lambda y: torch.tanh(y) + y.t())(a @ b)      # noqa: E731
    saved = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        compiled = torch.compile(f)
        got = _replayed(compiled, a, b)
    finally:
        torch.set_num_threads(saved)
    assert _epilogues(compiled) == []
    torch.testing.assert_close(got, f(a, b))
