"""The multi-tensor optimizer kernels (torch._fused_adam_, _fused_adamw_, _fused_sgd_, _foreach_add_):
Adam, AdamW and SGD give the same bits whether a group is updated by one kernel call (foreach=None,
foreach=True, fused=True) or by the single-tensor loop (foreach=False), on every thread count, with
the kernels' errors and GradScaler's skip and unscale."""
import itertools

import numpy as np
import pytest
import torch

# A parameter larger than one chunk of the kernel's parallel work (32768 elements), an empty one and
# a 0-dim one, beside small ones.
SHAPES = [(3, 4), (40000,), (0,), (), (5, 1, 7)]
STEPS = 4


def _trajectory(make, dtype, path, steps=STEPS, shapes=SHAPES, threads=None):
    """The parameters and optimizer state after `steps` steps with seeded gradients."""
    gen = np.random.default_rng(0)
    params = [torch.tensor(gen.standard_normal(s), dtype=dtype, requires_grad=True) for s in shapes]
    opt = make(params, **path)
    before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        for _ in range(steps):
            for p in params:
                p.grad = torch.tensor(gen.standard_normal(p.shape), dtype=dtype)
            opt.step()
    finally:
        torch.set_num_threads(before)
    state = [{k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in opt.state[p].items()} for p in params]
    return [p.detach().clone() for p in params], state


def _assert_same_bits(a, b):
    params_a, state_a = a
    params_b, state_b = b
    for x, y in zip(params_a, params_b):
        assert torch.equal(x, y) and x.dtype == y.dtype
    for sa, sb in zip(state_a, state_b):
        assert sa.keys() == sb.keys()
        for k in sa:
            assert torch.equal(sa[k], sb[k]), k


ADAM_OPTIONS = [dict(weight_decay=wd, amsgrad=ams, maximize=mx)
                for wd, ams, mx in itertools.product((0.0, 0.1), (False, True), (False, True))]
SGD_OPTIONS = [dict(momentum=0.0), dict(momentum=0.9), dict(momentum=0.9, nesterov=True, weight_decay=0.01),
               dict(momentum=0.5, dampening=0.3, maximize=True), dict(weight_decay=0.2, maximize=True)]
PATHS = [dict(foreach=None), dict(foreach=True), dict(fused=True)]


@pytest.mark.parametrize("cls", [torch.optim.Adam, torch.optim.AdamW])
@pytest.mark.parametrize("options", ADAM_OPTIONS, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("path", PATHS, ids=str)
def test_adam_kernel_gives_the_single_tensor_bits(cls, options, dtype, path):
    def make(params, **how):
        return cls(params, lr=0.01, betas=(0.8, 0.95), eps=1e-6, **options, **how)
    _assert_same_bits(_trajectory(make, dtype, path), _trajectory(make, dtype, dict(foreach=False)))


def test_adam_weight_above_one_half_takes_lerps_other_branch():
    def make(params, **how):
        return torch.optim.Adam(params, lr=0.01, betas=(0.3, 0.999), **how)
    _assert_same_bits(_trajectory(make, torch.float32, {}), _trajectory(make, torch.float32, dict(foreach=False)))


@pytest.mark.parametrize("options", SGD_OPTIONS, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("path", PATHS, ids=str)
def test_sgd_kernel_gives_the_single_tensor_bits(options, dtype, path):
    def make(params, **how):
        return torch.optim.SGD(params, lr=0.05, **options, **how)
    _assert_same_bits(_trajectory(make, dtype, path), _trajectory(make, dtype, dict(foreach=False)))


@pytest.mark.parametrize("make", [lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.1, amsgrad=True),
                                  lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True)])
def test_kernel_bits_do_not_depend_on_the_thread_count(make):
    shapes = [(70000,), (40000,), (3,)]
    runs = [_trajectory(lambda ps, **how: make(ps), torch.float32, {}, shapes=shapes, threads=n) for n in (1, 2, 3)]
    _assert_same_bits(runs[0], runs[1])
    _assert_same_bits(runs[0], runs[2])


def test_groups_the_kernel_cannot_take_run_the_loop():
    # A non-contiguous parameter and a float16 one: the default path falls back, the results are the loop's.
    def make(params, **how):
        return torch.optim.Adam(params, lr=0.01, **how)
    base = torch.randn(6, 4)

    def run(**how):
        params = [base.clone().t().requires_grad_(), base[:, :2].clone().to(torch.float16).requires_grad_()]
        opt = make(params, **how)
        for step in range(3):
            for p in params:
                p.grad = torch.full_like(p, 0.1 * (step + 1))
            opt.step()
        return params
    for x, y in zip(run(), run(foreach=False)):
        assert torch.equal(x, y)


def test_fused_refuses_params_its_kernels_do_not_serve():
    p = torch.zeros(3, dtype=torch.float16, requires_grad=True)
    p.grad = torch.ones(3, dtype=torch.float16)
    for opt in (torch.optim.Adam([p], fused=True), torch.optim.SGD([p], lr=0.1, fused=True)):
        with pytest.raises(RuntimeError, match=r"`fused=True` requires all the params to be floating point "
                                               r"Tensors of supported devices: \['cpu', 'cuda'\] but torch.float16 and cpu"):
            opt.step()


def test_fused_with_foreach_or_differentiable_is_refused():
    p = torch.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        torch.optim.AdamW([p], fused=True, foreach=True)
    with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
        torch.optim.SGD([p], lr=0.1, fused=True, differentiable=True)


def _adam_lists(n=2, size=5, dtype=torch.float32):
    gen = torch.Generator().manual_seed(1)
    make = lambda: [torch.randn(size, generator=gen, dtype=dtype) for _ in range(n)]  # noqa: E731
    params, grads, exp_avgs = make(), make(), make()
    exp_avg_sqs = [t.abs() for t in make()]
    steps = [torch.tensor(3.0) for _ in range(n)]
    return params, grads, exp_avgs, exp_avg_sqs, steps


ADAM_KW = dict(lr=0.1, beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)


def test_fused_adam_op_checks_its_lists_before_writing():
    params, grads, exp_avgs, exp_avg_sqs, steps = _adam_lists()
    before = [p.clone() for p in params]
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 2 and 1"):
        torch._fused_adamw_(params, grads[:1], exp_avgs, exp_avg_sqs, [], steps, **ADAM_KW)
    with pytest.raises(RuntimeError, match=r"expected exp_avgs\[1\] to have dtype Float, got Double"):
        torch._fused_adam_(params, grads, [exp_avgs[0], exp_avgs[1].double()], exp_avg_sqs, [], steps, **ADAM_KW)
    with pytest.raises(RuntimeError, match=r"grads\[0\] has 4 elements, its parameter 5"):
        torch._fused_adam_(params, [grads[0][:4], grads[1]], exp_avgs, exp_avg_sqs, [], steps, **ADAM_KW)
    with pytest.raises(RuntimeError, match=r"exp_avg_sqs\[0\] must be contiguous"):
        strided = torch.zeros(10)[::2]
        torch._fused_adam_(params, grads, exp_avgs, [strided, exp_avg_sqs[1]], [], steps, **ADAM_KW)
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        half = [t.half() for t in params]
        torch._fused_adam_(half, half, half, half, [], steps, **ADAM_KW)
    assert all(torch.equal(p, b) for p, b in zip(params, before))


def test_fused_adam_op_reads_steps_and_bumps_versions():
    params, grads, exp_avgs, exp_avg_sqs, steps = _adam_lists(n=1, size=4, dtype=torch.float64)
    p, g, m, v = params[0].clone(), grads[0].clone(), exp_avgs[0].clone(), exp_avg_sqs[0].clone()
    versions = [t._version for t in (params[0], grads[0], exp_avgs[0], exp_avg_sqs[0])]
    torch._fused_adam_(params, grads, exp_avgs, exp_avg_sqs, [], steps, **ADAM_KW)
    # NumPy, float64: Adam's update at step 3 with the same operation order.
    p, g, m, v = (t.numpy() for t in (p, g, m, v))
    m = m + (1 - 0.9) * (g - m)
    v = v * 0.99 + (1 - 0.99) * g * g
    denom = np.sqrt(v) / (1 - 0.99 ** 3) ** 0.5 + 1e-8
    want = p + (-(0.1 / (1 - 0.9 ** 3))) * m / denom
    np.testing.assert_array_equal(params[0].numpy(), want)
    np.testing.assert_array_equal(exp_avgs[0].numpy(), m)
    assert [t._version for t in (params[0], grads[0], exp_avgs[0], exp_avg_sqs[0])] == \
        [versions[0] + 1, versions[1], versions[2] + 1, versions[3] + 1]
    assert steps[0].item() == 3.0          # the caller advances the counters, as PyTorch's


def test_fused_ops_skip_on_found_inf_and_unscale_by_grad_scale():
    params, grads, exp_avgs, exp_avg_sqs, steps = _adam_lists()
    snapshot = [t.clone() for t in params + grads + exp_avgs + exp_avg_sqs]
    torch._fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, [], steps, **ADAM_KW, grad_scale=torch.tensor(4.0),
                        found_inf=torch.tensor(1.0))
    assert all(torch.equal(a, b) for a, b in zip(params + grads + exp_avgs + exp_avg_sqs, snapshot))
    # A power-of-two scale divides exactly: the same bits as the step on the unscaled gradients.
    unscaled = _adam_lists()
    torch._fused_adamw_(*unscaled[:4], [], unscaled[4], **ADAM_KW)
    scaled_grads = [g * 4 for g in grads]
    torch._fused_adamw_(params, scaled_grads, exp_avgs, exp_avg_sqs, [], steps, **ADAM_KW,
                        grad_scale=torch.tensor(4.0), found_inf=torch.tensor(0.0))
    assert all(torch.equal(a, b) for a, b in zip(params, unscaled[0]))
    assert all(torch.equal(a, b) for a, b in zip(scaled_grads, grads))     # written back unscaled


def test_grad_scaler_drives_a_fused_optimizer():
    model = torch.nn.Linear(4, 3)
    opt = torch.optim.AdamW(model.parameters(), lr=0.01, fused=True)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
    x = torch.randn(8, 4)
    before = [p.detach().clone() for p in model.parameters()]
    scaler.scale(model(x).square().mean()).backward()
    scaler.step(opt)
    scaler.update()
    assert all(not torch.equal(p, b) for p, b in zip(model.parameters(), before))
    assert all(opt.state[p]["step"].item() == 1.0 for p in model.parameters())
    # An inf in a gradient: the step is skipped, counters included.
    before = [p.detach().clone() for p in model.parameters()]
    opt.zero_grad()
    scaler.scale(model(x).square().mean()).backward()
    model.weight.grad[0, 0] = float("inf")
    scaler.step(opt)
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))
    assert all(opt.state[p]["step"].item() == 1.0 for p in model.parameters())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("scalar", [1, 0.1, 3])
def test_foreach_add_adds_in_place_as_add_does(dtype, scalar):
    if dtype == torch.int64 and isinstance(scalar, float):
        pytest.skip("add_ of a float to an integer tensor is refused")
    tensors = [torch.arange(6).to(dtype), torch.tensor(2).to(dtype), torch.arange(12).to(dtype).reshape(3, 4).t()]
    want = [t.clone().add_(scalar) for t in tensors]
    versions = [t._version for t in tensors]
    torch._foreach_add_(tensors, scalar)
    for got, w, v in zip(tensors, want, versions):
        assert torch.equal(got, w) and got._version == v + 1


@pytest.mark.parametrize("path", PATHS, ids=str)
def test_sgd_momentum_buffers_made_at_different_steps(path):
    # The second parameter has no gradient on the first step, so its buffer starts a step later.
    def run(**how):
        params = [torch.linspace(-1, 1, 5, requires_grad=True), torch.linspace(2, 3, 4, requires_grad=True)]
        opt = torch.optim.SGD(params, lr=0.1, momentum=0.9, dampening=0.1, **how)
        for step in range(3):
            params[0].grad = torch.full((5,), 0.3 * (step + 1))
            params[1].grad = None if step == 0 else torch.full((4,), -0.7 * step)
            opt.step()
        return params + [opt.state[p]["momentum_buffer"] for p in params]
    for x, y in zip(run(**path), run(foreach=False)):
        assert torch.equal(x, y)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_foreach_add_runs_each_tensors_add_on_cuda_and_mixed_lists():
    on_gpu = torch.arange(4.0, device="cuda")
    on_cpu = torch.arange(3.0)
    torch._foreach_add_([on_gpu], 0.5)
    torch._foreach_add_([on_cpu, on_gpu], 2)
    assert on_gpu.cpu().tolist() == [2.5, 3.5, 4.5, 5.5]
    assert on_cpu.tolist() == [2.0, 3.0, 4.0]


_CUDA_CASES = [
    (torch.optim.SGD, dict(lr=0.1)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    (torch.optim.Adam, dict(lr=0.01)),
    (torch.optim.Adam, dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    (torch.optim.AdamW, dict(lr=0.01, weight_decay=0.1, maximize=True)),
]


def _steps_on(device, dtype, optimizer, options, foreach, steps=3):
    """Parameters (one of more than a kernel run's elements) after steps of optimizer on device."""
    generator = torch.Generator().manual_seed(0)
    params = [torch.randn(shape, generator=generator, dtype=dtype).to(device).requires_grad_()
              for shape in [(70000,), (3, 5), (7,)]]
    opt = optimizer(params, foreach=foreach, **options)
    for _ in range(steps):
        for p in params:
            p.grad = torch.randn(p.shape, generator=generator, dtype=dtype).to(device)
        opt.step()
    return [p.detach().cpu() for p in params]


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
@pytest.mark.parametrize("optimizer, options", _CUDA_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cuda_multi_tensor_steps_match_the_cpu(optimizer, options, dtype):
    calls = []
    from aten.native.cuda import fused_optim
    original = fused_optim._launch
    fused_optim._launch = lambda *args: (calls.append(args[0]), original(*args))[1]
    try:
        got = _steps_on("cuda", dtype, optimizer, options, None)
    finally:
        fused_optim._launch = original
    assert len(calls) == 3                      # one launch per step for the whole group
    expected = _steps_on("cpu", dtype, optimizer, options, False)
    tolerance = 1e-5 if dtype == torch.float32 else 1e-12      # the GPU may contract multiply-adds
    for x, y in zip(got, expected):
        torch.testing.assert_close(x, y, rtol=tolerance, atol=tolerance)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_cuda_fused_step_refuses_tensors_on_two_devices():
    p = torch.ones(3, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match=r"_fused_sgd_: expected all tensors on cuda:0, but grads\[0\] is on cpu"):
        torch._fused_sgd_([p.detach()], [torch.ones(3)], [], weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0,
                          nesterov=False, maximize=False, is_first_step=False)


@pytest.mark.parametrize("optimizer, options", [(torch.optim.SGD, {"momentum": 0.9}), (torch.optim.Adam, {}),
                                                (torch.optim.AdamW, {"fused": True})])
def test_a_tensor_lr_steps_as_its_value_would(optimizer, options):
    results = []
    for lr in (float(torch.tensor(0.05)), torch.tensor(0.05)):
        torch.manual_seed(0)
        param = torch.nn.Parameter(torch.randn(5))
        opt = optimizer([param], lr=lr, **options)
        for _ in range(3):
            param.grad = torch.sin(param.detach())
            opt.step()
        results.append(param.detach().clone())
    assert torch.equal(*results)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
@pytest.mark.parametrize("optimizer, options", [(torch.optim.SGD, {"momentum": 0.9}),
                                                (torch.optim.AdamW, {"fused": True})])
def test_a_cuda_lr_for_cpu_parameters_and_a_grad_scaler_on_cuda_step_as_plain_ones(optimizer, options):
    torch.manual_seed(0)
    param = torch.nn.Parameter(torch.randn(4))
    reference = torch.nn.Parameter(param.detach().clone())
    for p in (param, reference):
        p.grad = torch.ones(4)
    optimizer([param], lr=torch.tensor(0.05, device="cuda"), **options).step()
    optimizer([reference], lr=float(torch.tensor(0.05)), **options).step()
    assert torch.equal(param.data, reference.data)
    # GradScaler's found_inf lives on CUDA, the step counters on the CPU
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2).cuda()
    reference = torch.nn.Linear(4, 2).cuda()
    reference.load_state_dict(model.state_dict())
    opt = optimizer(model.parameters(), lr=0.05, **options)
    ref_opt = optimizer(reference.parameters(), lr=0.05, **options)
    scaler = torch.amp.GradScaler("cuda", init_scale=1024.0)
    for _ in range(2):
        opt.zero_grad()
        ref_opt.zero_grad()
        scaler.scale(model(torch.ones(3, 4, device="cuda")).sum()).backward()
        scaler.step(opt)
        scaler.update()
        reference(torch.ones(3, 4, device="cuda")).sum().backward()
        ref_opt.step()
    torch.testing.assert_close(model.weight.detach().cpu(), reference.weight.detach().cpu())
