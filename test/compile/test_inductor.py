"""The inductor backend: chains of pointwise operators fused into generated C kernels, with eager's results
(bit for bit where no approximated function is involved: the kernels round each product and sum as the
eager loops do), eager's output layouts, the same bits on any thread count, a disk cache of compiled
kernels, and Ember's own kernels for everything else."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from torch._inductor import codecache, config
from torch._inductor._gen_pointwise import FORMULAS

from strided_operands import strided_pair


def kernels_of(compiled):
    """The fused groups of a compiled function's first graph."""
    call = compiled._ember_compiled.entries[0].compiled
    return getattr(call, "_inductor_groups", [])


def _overload(name):
    base, _, overload = name.partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


@pytest.mark.parametrize("name", sorted(name for name, entry in FORMULAS.items() if entry[3] is not None))
def test_every_fusible_formula_alone_and_in_a_chain_matches_eager(name):
    tensors, scalars, defaults, _, _, out, bool_args, _ = FORMULAS[name]
    op = _overload(name)
    gen = torch.Generator().manual_seed(sum(map(ord, name)))
    # (0.1, 0.9): inside every formula's domain (logit, log, sqrt, division)
    inputs = [torch.rand(4, 5, generator=gen) > 0.5 if arg in bool_args else torch.rand(4, 5, generator=gen) * 0.8 + 0.1
              for arg in tensors]

    def call(ts):
        """op on the tensors, every scalar argument at its default or 0.375, by the schema's order."""
        given = dict(zip(tensors, ts))
        args = [given[a.name] if a.name in given else defaults.get(a.name, 0.375) for a in op._schema.arguments
                if a.name in given or a.name in scalars]
        return op(*args)

    def alone(*ts):
        return call(ts)

    def chain(*ts):
        result = call([t if t.dtype == torch.bool else t * 0.5 + 0.25 for t in ts])
        return result if result.dtype == torch.bool else result * 3.0 - 1.0

    for fn in (alone, chain):
        compiled = torch.compile(fn)
        compiled(*inputs)
        got, want = compiled(*inputs), fn(*inputs)
        assert got.dtype == want.dtype and got.stride() == want.stride()
        torch.testing.assert_close(got, want, rtol=2e-6, atol=1e-6)
        groups = kernels_of(compiled)
        assert len(groups) == 1 and groups[0].members[-1].target is (op if fn is alone else groups[0].members[-1].target)


def gelu_chain(x):
    return 0.5 * x * (1 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def test_a_gelu_chain_is_one_kernel_of_nine_nodes():
    compiled = torch.compile(gelu_chain)
    x = torch.randn(1000)
    compiled(x)
    torch.testing.assert_close(compiled(x), gelu_chain(x), rtol=2e-6, atol=1e-6)
    (group,) = kernels_of(compiled)
    assert len(group.members) == 9 and len(group.loads) == 1 and len(group.stores) == 1


ONE_PLUS_TANH = [(lambda y: 1 + torch.tanh(y), lambda y: 2 / (1 + np.exp(-2 * y))),
                 (lambda y: torch.tanh(y) + 1, lambda y: 2 / (1 + np.exp(-2 * y))),
                 (lambda y: 1 - torch.tanh(y), lambda y: 2 / (1 + np.exp(2 * y)))]


@pytest.mark.parametrize("case", range(len(ONE_PLUS_TANH)))
def test_one_plus_or_minus_tanh_is_computed_as_a_sigmoid_without_tanhs_cancellation(case):
    # 1 + tanh(y) = 2 / (1 + e^(-2y)): one exp instead of a tanh, and no cancellation where tanh(y) is near -1
    fn, exact = ONE_PLUS_TANH[case]
    y = torch.cat([torch.linspace(-12, 12, 4001), torch.tensor([-100.0, 100.0, -math.inf, math.inf, math.nan])])
    compiled = torch.compile(fn)
    compiled(y)
    got = compiled(y).numpy()
    want = exact(y.numpy().astype(np.float64))
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=3e-7, atol=0)
    (group,) = kernels_of(compiled)
    last = group.members[-1]
    assert "ember_vm_expf_flush" in group.lowered[last].expr and group.lowered[last].operands == (y_node(group),)
    eager = fn(y).numpy()
    tail = want < 1e-4                   # eager cancels there: 1 + (-0.99999...)
    assert np.abs(eager[tail] - want[tail]).max() > 100 * np.abs(got[tail] - want[tail]).max()


def test_gelu_with_tanh_is_computed_as_x_times_a_sigmoid():
    # 0.5 x (1 + tanh(u)) = x / (1 + e^(-2u)): eager's special values, and the tiny negative tail eager rounds to 0
    x = torch.cat([torch.linspace(-12, 12, 4001), torch.tensor([-100.0, 100.0, -math.inf, math.inf, math.nan])])
    module = torch.nn.GELU(approximate="tanh")

    def fn(t):
        return module(t)

    compiled = torch.compile(fn)
    compiled(x)
    got, eager = compiled(x).numpy(), fn(x).numpy()
    finite = np.isfinite(x.numpy())
    xd = x.numpy()[finite].astype(np.float64)
    u = math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3)
    # against the exact value at the float32 input: e^(-2u) carries the rounding of u (a few ulps of |2u|); past
    # exp's float32 range (x e^-88, below 1e-36) results flush to 0, where eager's are 0 from x = -5.5 on
    with np.errstate(over="ignore"):
        want = xd / (1 + np.exp(-2 * u))
    error = np.abs(got[finite] - want)
    assert (error <= (5e-7 + 1.5e-7 * np.abs(2 * u)) * np.abs(want) + 1e-36).all()
    assert (eager[finite][xd < -5.5] == 0).all()
    np.testing.assert_array_equal(got[~finite], eager[~finite])      # nan at -inf (-inf * 0), as eager
    (group,) = kernels_of(compiled)
    assert "ember_vm_expf_flush" in group.lowered[group.members[-1]].expr


def test_one_plus_tanh_stays_as_written_when_its_argument_is_written_in_between():
    def fn(y):
        t = torch.tanh(y)
        y.add_(1)
        return 1 + t

    compiled = torch.compile(fn)
    compiled(torch.linspace(-3, 3, 7))
    torch.testing.assert_close(compiled(torch.linspace(-3, 3, 7)), fn(torch.linspace(-3, 3, 7)))


def y_node(group):
    """The kernel's input node (the tanh's argument)."""
    (tanh,) = [n for n in group.members if n.target is torch.ops.aten.tanh.default]
    return tanh.args[0]


def test_a_tanh_with_other_uses_stays_a_tanh():
    def fn(y):
        t = torch.tanh(y)
        return (1 + t) * t

    compiled = torch.compile(fn)
    y = torch.linspace(-5, 5, 1001)
    compiled(y)
    torch.testing.assert_close(compiled(y), fn(y), rtol=2e-6, atol=1e-6)
    assert "ember_vm_tanhf" in compiled._ember_compiled.entries[0].compiled._inductor_source


def test_kernels_without_approximations_give_eagers_bits():
    def f(x, y, z):
        return (x * y + z) / (y - 0.5) - x.clamp(-0.2, 0.3)

    compiled = torch.compile(f)
    x, y, z = torch.randn(3, 64, 65).unbind(0)
    compiled(x, y, z)
    assert torch.equal(compiled(x, y, z), f(x, y, z))


shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, drop=st.lists(st.booleans(), min_size=4, max_size=4), transpose=st.booleans(),
       seed=st.integers(0, 2**16))
def test_broadcast_and_strided_operands_match_eager_with_eagers_layout(shape, drop, transpose, seed):
    a, b, gen = strided_pair(shape, drop, transpose, seed)
    c = torch.randn(*shape[1:] or [1], generator=gen)                 # fewer dims: right-aligned

    def f(a, b, c):
        return torch.where(a > b, a * 2, b.exp()) + c

    compiled = torch.compile(f)
    compiled(a, b, c)
    got, want = compiled(a, b, c), f(a, b, c)
    torch.testing.assert_close(got, want, rtol=2e-6, atol=1e-6)
    assert got.shape == want.shape and got.stride() == want.stride()


def on_one_thread_and_two(compiled, *args):
    """compiled's replay on one thread, then on two (the first call, captured eagerly, made here too)."""
    compiled(*args)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = compiled(*args)
        torch.set_num_threads(2)
        two = compiled(*args)
    finally:
        torch.set_num_threads(before)
    return one, two


def test_the_same_bits_on_one_thread_and_two():
    x = torch.randn(3 * config.parallel_grain + 17)
    one, two = on_one_thread_and_two(torch.compile(gelu_chain), x)
    assert torch.equal(one, two)


def test_other_dtypes_and_autograd_run_embers_kernels():
    def f(x):
        return (x * 2).exp() + 1

    x64 = torch.randn(5, dtype=torch.float64)
    compiled = torch.compile(f)
    compiled(x64)
    assert torch.equal(compiled(x64), f(x64)) and kernels_of(compiled) == []
    torch.compiler.reset()
    xg = torch.randn(5, requires_grad=True)
    compiled(xg)
    out = compiled(xg)
    assert out.requires_grad and kernels_of(compiled) == []
    out.sum().backward()
    torch.testing.assert_close(xg.grad, 2 * (xg * 2).exp().detach())


def test_a_write_between_fused_nodes_is_seen_in_order():
    def f(x):
        y = x * 2
        x.add_(1)
        return y + x

    x = torch.zeros(4)
    compiled = torch.compile(f)
    compiled(x.clone())
    assert compiled(x).tolist() == [1.0] * 4 and x.tolist() == [1.0] * 4


def test_bool_results_are_stored_as_bool():
    compiled = torch.compile(lambda a, b: (a * 2 > b, (a - b).abs() if False else a - b))
    a, b = torch.randn(6), torch.randn(6)
    compiled(a, b)
    mask, diff = compiled(a, b)
    assert mask.dtype == torch.bool and torch.equal(mask, a * 2 > b) and torch.equal(diff, a - b)


def test_compiled_kernels_are_cached_on_disk_by_their_source():
    def f(x):
        return (x + 3).sigmoid() * x

    x = torch.randn(7, 3)
    torch.compile(f)(x)
    built = codecache.builds["count"]
    codecache._loaded.clear()                      # as a new process would: only the disk cache is left
    torch.compiler.reset()
    torch.compile(f)(x)
    assert codecache.builds["count"] == built


_SAME_KERNEL = """
import sys, time, torch
start = float(sys.argv[1])
f = torch.compile(lambda x: (x * 1.2345).sin() + x.exp() * 0.5)
while time.time() < start:
    pass
x = torch.randn(64)
for _ in range(3):
    assert torch.allclose(f(x), (x * 1.2345).sin() + x.exp() * 0.5, atol=1e-5)
"""


def test_processes_compiling_one_kernel_at_once_share_the_cache_safely(tmp_path):
    import os
    import subprocess
    import sys
    import time
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path))
    start = str(time.time() + 3.0)        # all of them reach the compile together (the ranks of torchrun do)
    workers = [subprocess.Popen([sys.executable, "-c", _SAME_KERNEL, start], env=env, stderr=subprocess.PIPE,
                                text=True) for _ in range(6)]
    errors = [w.communicate()[1] for w in workers]
    assert [w.returncode for w in workers] == [0] * 6, errors
    assert not [name for name in os.listdir(tmp_path / os.listdir(tmp_path)[0]) if name.startswith("tmp")]


def test_output_code_logs_the_wrapper_and_the_kernels(capsys, monkeypatch):
    monkeypatch.setenv("TORCH_LOGS", "output_code")
    torch.compile(lambda x: (x * 2).relu())(torch.randn(3))
    err = capsys.readouterr().err
    assert "[__output_code] def call(l_x_):" in err
    assert "/* mul: aten.mul.Tensor */" in err and "/* relu: aten.relu.default */" in err


def test_a_missing_c_compiler_is_named(monkeypatch):
    monkeypatch.setattr(config, "cc", "no-such-cc-ember")
    with pytest.raises(torch._dynamo.exc.BackendCompilerFailed, match="needs a C compiler: 'no-such-cc-ember' was "
                                                                       "not found"):
        torch.compile(lambda x: x * 5)(torch.ones(2))


def test_numbers_in_formulas_keep_their_value():
    def f(x):
        return x * 1e-30 + x / 3.0 - x.clamp(min=-math.inf, max=0.25)

    compiled = torch.compile(f)
    x = torch.from_numpy(np.linspace(-1, 1, 11, dtype=np.float32))
    compiled(x)
    assert torch.equal(compiled(x), f(x))


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4), data=st.data(), keepdim=st.booleans(),
       kind=st.sampled_from(["sum", "mean"]))
def test_a_sum_or_mean_of_a_fused_chain_is_its_kernels_epilogue_with_eagers_results(shape, data, keepdim, kind):
    dims = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    if len({d % len(shape) for d in dims}) != len(dims):
        return
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(len(shape)))

    def f(x):
        y = (x * 0.5 + 1).sigmoid()
        z = y * 3                   # before the reduction: a reduction ends its group
        return getattr(y, kind)(dim=dims, keepdim=keepdim), z

    compiled = torch.compile(f)
    compiled(x)
    got, want = compiled(x), f(x)
    torch.testing.assert_close(got, want, rtol=2e-6, atol=2e-6)
    assert got[0].stride() == want[0].stride()
    (group,) = kernels_of(compiled)
    assert group.reduction is not None and group.reduction is group.members[-1]


def test_a_sum_of_every_element_and_a_sum_over_rows_keep_eagers_values_on_one_thread_and_two():
    x = torch.randn(300, 257)

    def f(x):
        y = x.exp() - x
        return y.sum(), y.sum(0), y.mean(-1)

    one, two = on_one_thread_and_two(torch.compile(f), x)
    assert all(torch.equal(a, b) for a, b in zip(one, two))
    torch.testing.assert_close(two, f(x), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("shape, dims", [((16, 2048), (0,)), ((37, 130), (0,)), ((3, 5, 70), (0, 1)),
                                         ((4, 9, 40), (1,)), ((6, 3, 4, 33), (0, 2))])
def test_a_sum_over_outer_dims_adds_neighbouring_outputs_side_by_side_with_eagers_values(shape, dims):
    # a bias gradient's shape: the kept inner dim is contiguous, the summed ones are not
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(5))

    def f(x):
        y = x * 0.5 + x.tanh()
        return y, y.sum(dims), y.mean(dims, keepdim=True)

    compiled = torch.compile(f)
    one, two = on_one_thread_and_two(compiled, x)
    assert all(torch.equal(a, b) for a, b in zip(one, two))
    torch.testing.assert_close(two, f(x), rtol=1e-5, atol=1e-5)
    assert "acc[c] +=" in compiled._ember_compiled.entries[0].compiled._inductor_source


def test_a_sum_of_a_value_read_from_memory_stays_embers_kernel():
    compiled = torch.compile(lambda x: x.sum(0) * 2)
    x = torch.randn(8, 5)
    compiled(x)
    torch.testing.assert_close(compiled(x), x.sum(0) * 2)
    assert [g.reduction for g in kernels_of(compiled)] == [None]


def test_softmaxes_over_the_last_dim_fuse_with_what_comes_before_and_after():
    import torch.nn.functional as F

    def attention_scores(x, mask):
        a = x.masked_fill(mask, float("-inf")) * 0.5
        p = F.softmax(a, dim=-1)
        return p * 3, F.log_softmax(x * 2 + p, dim=-1), a

    x, mask = torch.randn(2, 4, 8, 8), torch.ones(8, 8).triu(1).bool()
    compiled = torch.compile(attention_scores)
    compiled(x, mask)
    got, want = compiled(x, mask), attention_scores(x, mask)
    torch.testing.assert_close(got, want, rtol=2e-6, atol=1e-6)
    (group,) = kernels_of(compiled)
    assert len(group.rows) == 2 and len(group.members) == 7


def test_a_softmax_over_another_dim_or_a_long_row_runs_embers_kernel():
    import torch.nn.functional as F
    from torch._inductor.row_ops import MAX_ROW

    compiled = torch.compile(lambda x: F.softmax(x * 2, dim=0) + F.softmax(x, dim=-1).sum())
    x = torch.randn(5, 6)
    compiled(x)
    torch.testing.assert_close(compiled(x), F.softmax(x * 2, dim=0) + F.softmax(x, dim=-1).sum())
    assert sum(len(g.rows) for g in kernels_of(compiled)) == 1
    long_rows = torch.compile(lambda x: F.softmax(x + 1, dim=-1))
    wide = torch.randn(2, MAX_ROW + 1)
    long_rows(wide)
    torch.testing.assert_close(long_rows(wide), F.softmax(wide + 1, dim=-1))
    assert all(not g.rows for g in kernels_of(long_rows))


def test_a_layer_norm_over_the_last_dim_fuses_with_the_residual_add_and_keeps_eagers_bits():
    import torch.nn.functional as F

    weight, bias = torch.randn(16), torch.randn(16)

    def block(x, y):
        h = x + y
        return F.layer_norm(h, (16,), weight, bias) * 2, F.layer_norm(h, (16,)), h

    x, y = torch.randn(4, 5, 16), torch.randn(4, 5, 16)
    compiled = torch.compile(block)
    compiled(x, y)
    got, want = compiled(x, y), block(x, y)
    assert all(torch.equal(g, w) for g, w in zip(got, want))
    (group,) = kernels_of(compiled)
    assert [row.kind for row in group.rows.values()] == ["layer_norm", "layer_norm"]


def test_a_trained_layer_norm_saves_the_fused_kernels_mean_and_rstd_for_its_backward():
    def make():
        return torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.LayerNorm(8))

    torch.manual_seed(0)
    model, reference = make(), make()
    reference.load_state_dict(model.state_dict())
    compiled = torch.compile(model)
    for _ in range(2):
        x = torch.randn(3, 8)
        compiled(x).pow(2).sum().backward()
        reference(x).pow(2).sum().backward()
    for p, q in zip(model.parameters(), reference.parameters()):     # the fused backward rounds as it does
        torch.testing.assert_close(p.grad, q.grad)


def test_views_are_made_from_their_root_at_the_inputs_offset_of_each_call():
    # the guards fix sizes and strides, not storage offsets: a view of an input is made at this call's offset
    def f(x):
        y = x.view(3, 4).t()
        return y * 2, (y + 1).sum(0), y

    compiled = torch.compile(f)
    base = torch.arange(40.0)
    compiled(base[1:13])
    for start in (1, 5, 20):
        x = base[start:start + 12]
        got, want = compiled(x), f(x)
        torch.testing.assert_close(got, want)
        assert got[2]._base is base and got[2].data_ptr() == want[2].data_ptr()
    wrapper = compiled._ember_compiled.entries[0].compiled._inductor_wrapper
    assert "_as_strided(l_x_" in wrapper and "aten.view.default(" not in wrapper


def test_a_kernel_writes_into_a_dead_buffer_of_its_layout_and_never_into_a_returned_one():
    w = torch.randn(16, 16)

    def f(x):
        a = (x * 2).exp()               # a's buffer dies at the first matmul ...
        b = ((a @ w) + 1).tanh()
        c = (b @ w * 3).sigmoid()       # ... and c's kernel takes it
        return c, (c @ w).relu()

    compiled = torch.compile(f)
    x = torch.randn(8, 16)
    compiled(x)
    first = compiled(x)
    torch.testing.assert_close(first, f(x))
    second = compiled(x * 0.5)
    torch.testing.assert_close(second, f(x * 0.5))
    torch.testing.assert_close(first, f(x))             # the returned tensors were not written again
    wrapper = compiled._ember_compiled.entries[0].compiled._inductor_wrapper
    assert any(line.strip().endswith("= None") and ";" in line and "_empty_strided" not in line
               for line in wrapper.splitlines())


@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("length", [1, 7, 64, 300])
def test_softmax_log_softmax_and_layer_norm_backwards_fuse_as_rows_with_eagers_values(weighted, length):
    aten = torch.ops.aten

    def f(x, g, w):
        y = (x * 2).softmax(-1)
        soft = aten._softmax_backward_data(g * 3, y, -1, torch.float32)
        logs = aten._log_softmax_backward_data(g + 1, x.log_softmax(-1), -1, torch.float32)
        _, mean, rstd = aten.native_layer_norm(x, [length], w, None, 1e-5)
        norm = aten._ember_layer_norm_backward_input(g * 0.5, x, mean, rstd, w)
        return soft + 1, logs * 2, norm - 1

    gen = torch.Generator().manual_seed(length)
    x, g = torch.randn(4, 3, length, generator=gen), torch.randn(4, 3, length, generator=gen)
    w = torch.randn(length, generator=gen) if weighted else None
    compiled = torch.compile(f)
    one, two = on_one_thread_and_two(compiled, x, g, w)
    assert all(torch.equal(a, b) for a, b in zip(one, two))
    torch.testing.assert_close(two, f(x, g, w), rtol=2e-5, atol=2e-5)
    rows = [row.kind for group in kernels_of(compiled) for row in group.rows.values()]
    assert {"softmax_backward", "log_softmax_backward", "layer_norm_backward"} <= set(rows)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_cross_entropys_backward_is_one_row_kernel_with_eagers_gradient(reduction):
    import torch.nn.functional as F

    def f(x, y):
        loss = F.cross_entropy(x * 2, y, ignore_index=3, reduction=reduction)
        return loss, torch.autograd.grad(loss, x)[0]

    gen = torch.Generator().manual_seed(4)
    x, y = torch.randn(37, 11, generator=gen, requires_grad=True), torch.randint(0, 11, (37,), generator=gen)
    compiled = torch.compile(f)
    compiled(x, y)
    torch.testing.assert_close(compiled(x, y), f(x, y))
    rows = {row.kind for group in kernels_of(compiled) for row in group.rows.values()}
    assert {"nll_backward", "log_softmax_backward"} <= rows


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("rows", [1, 37, 3000])
def test_cross_entropys_forward_is_one_row_kernel_with_eagers_loss(reduction, rows):
    import torch.nn.functional as F

    def f(x, y):
        return F.cross_entropy(x * 2, y, ignore_index=3, reduction=reduction)

    gen = torch.Generator().manual_seed(rows)
    x, y = torch.randn(rows, 11, generator=gen), torch.randint(0, 11, (rows,), generator=gen)
    compiled = torch.compile(f)
    one, two = on_one_thread_and_two(compiled, x, y)
    assert torch.equal(one, two)
    torch.testing.assert_close(two, f(x, y), rtol=2e-6, atol=2e-6)
    ((group,),) = [kernels_of(compiled)]
    assert sorted(row.kind for row in group.rows.values()) == ["log_softmax", "nll"]
    assert "_log_softmax = _empty" not in compiled._ember_compiled.entries[0].compiled._inductor_wrapper


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(0, 40), classes=st.integers(1, 40), reduction=st.sampled_from(["none", "mean", "sum"]),
       seed=st.integers(0, 2**16), keep_log_probs=st.booleans())
def test_a_fused_cross_entropy_is_numpys_in_double(rows, classes, reduction, seed, keep_log_probs):
    import torch.nn.functional as F

    def f(x, y):
        log_probs = (x - 1).log_softmax(-1)
        loss = F.nll_loss(log_probs, y, ignore_index=0, reduction=reduction)
        return (loss, log_probs) if keep_log_probs else loss

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, classes)).astype(np.float32) * 4
    y = rng.integers(0, classes, rows)
    compiled = torch.compile(f)
    got = compiled(torch.from_numpy(x), torch.from_numpy(y))
    z = x.astype(np.float64) - 1
    log_probs = z - z.max(-1, keepdims=True) - np.log(np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True))
    losses = np.where(y != 0, -log_probs[np.arange(rows), y], 0.0)
    counted = (y != 0).sum()
    want = {"none": losses, "sum": losses.sum(), "mean": losses.sum() / counted if counted else np.nan}[reduction]
    loss = got[0] if keep_log_probs else got
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-5, atol=1e-5)
    if keep_log_probs:
        np.testing.assert_allclose(got[1].numpy(), log_probs, rtol=1e-5, atol=1e-5)
    if rows:
        assert any(row.kind == "nll" for group in kernels_of(compiled) for row in group.rows.values())


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_nll_loss_of_log_probabilities_read_from_memory_is_eagers_bits_and_total_weight(reduction):
    aten = torch.ops.aten

    def f(log_probs, y):
        return aten.nll_loss_forward(log_probs, y, None, reduction, -1)

    gen = torch.Generator().manual_seed(reduction)
    log_probs = torch.randn(50, 9, generator=gen).log_softmax(-1)
    y = torch.randint(0, 9, (50,), generator=gen)
    y[::7] = -1
    compiled = torch.compile(f)
    for got, want in zip(on_one_thread_and_two(compiled, log_probs, y)[1], f(log_probs, y)):
        assert got.shape == want.shape and torch.equal(got, want)
    assert [row.kind for group in kernels_of(compiled) for row in group.rows.values()] == ["nll"]


def test_a_cross_entropy_whose_every_row_is_ignored_is_nan_as_eager():
    import torch.nn.functional as F

    def f(x, y):
        return F.cross_entropy(x, y, ignore_index=2), F.cross_entropy(x, y, ignore_index=2, reduction="sum")

    x, y = torch.randn(4, 5), torch.full((4,), 2)
    compiled = torch.compile(f)
    compiled(x, y)
    got, want = compiled(x, y), f(x, y)
    assert got[0].isnan() and want[0].isnan() and torch.equal(got[1], want[1])


@pytest.mark.parametrize("reductions", [("mean", "mean"), ("none", "sum")])
def test_two_losses_of_one_log_softmax_or_of_two_are_each_eagers(reductions):
    import torch.nn.functional as F

    def one(x, y, z):
        log_probs = x.log_softmax(-1)
        return F.nll_loss(log_probs, y, reduction=reductions[0]), F.nll_loss(log_probs, z, reduction=reductions[1])

    def two(x, y, z):
        a, b = x.log_softmax(-1), (x * 2).log_softmax(-1)
        return F.nll_loss(a, y, reduction=reductions[0]), F.nll_loss(b, z, reduction=reductions[1]), a + b

    gen = torch.Generator().manual_seed(7)
    x, y, z = torch.randn(37, 11, generator=gen), torch.randint(0, 11, (37,), generator=gen), \
        torch.randint(0, 11, (37,), generator=gen)
    for f in (one, two):
        compiled = torch.compile(f)
        compiled(x, y, z)
        torch.testing.assert_close(compiled(x, y, z), f(x, y, z), rtol=2e-6, atol=2e-6)
        assert all(sum(row.kind == "nll" for row in group.rows.values()) <= 1 for group in kernels_of(compiled))


def test_log_probabilities_used_beside_their_loss_fuse_with_eagers_values():
    import torch.nn.functional as F

    def distill(s, t, y):
        log_probs = s.log_softmax(-1)
        return F.nll_loss(log_probs, y) + F.kl_div(log_probs, t.softmax(-1), reduction="batchmean")

    def entropy_bonus(s, t, y):
        log_probs = s.log_softmax(-1)
        return F.nll_loss(log_probs, y) - 0.01 * (log_probs.exp() * log_probs).sum(-1).mean(), log_probs.exp()

    gen = torch.Generator().manual_seed(8)
    s, t, y = torch.randn(16, 10, generator=gen), torch.randn(16, 10, generator=gen), \
        torch.randint(0, 10, (16,), generator=gen)
    for f in (distill, entropy_bonus):
        compiled = torch.compile(f)
        compiled(s, t, y)
        torch.testing.assert_close(compiled(s, t, y), f(s, t, y), rtol=2e-6, atol=2e-6)


def test_a_layer_norms_statistics_survive_its_group_merging_with_another():
    aten = torch.ops.aten

    def f(x, w, b, z):
        y, mean, rstd = aten.native_layer_norm(x, [8], w, b, 1e-5)
        return z * 3 + y * 2, mean, rstd      # (the layer norm's group merges into the other)

    gen = torch.Generator().manual_seed(9)
    x, z, w, b = (torch.randn(*shape, generator=gen) for shape in ((4, 8), (4, 8), (8,), (8,)))
    compiled = torch.compile(f)
    compiled(x, w, b, z)
    torch.testing.assert_close(compiled(x, w, b, z), f(x, w, b, z), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("bad", [11, -2])
def test_a_class_out_of_range_raises_eagers_index_error_from_the_fused_cross_entropy(bad):
    import torch.nn.functional as F

    def f(x, y):
        return F.cross_entropy(x.exp(), y)

    x, y = torch.randn(6, 11), torch.randint(0, 11, (6,))
    compiled = torch.compile(f)
    compiled(x, y)
    y[4] = bad
    y[5] = 20
    with pytest.raises(IndexError) as eager:
        f(x, y)
    with pytest.raises(IndexError) as fused:
        compiled(x, y)
    assert str(fused.value) == str(eager.value) == f"Target {bad} is out of bounds."
    assert any(row.kind == "nll" for group in kernels_of(compiled) for row in group.rows.values())


@pytest.mark.parametrize("f", [lambda x: x.real * 3, lambda x: x.real * x.imag + 1,
                               lambda x: torch.view_as_real(x).sum(-1) * 2, lambda x: (x * 2).real.exp()],
                         ids=["real", "real and imag", "view_as_real", "real of a result"])
def test_the_real_or_imaginary_part_of_a_complex_value_fuses(f):
    compiled = torch.compile(f)
    for seed in range(3):
        torch.manual_seed(seed)
        x = torch.complex(torch.randn(5), torch.randn(5))
        torch.testing.assert_close(compiled(x), f(x))
