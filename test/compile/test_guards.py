"""Guards and recompiles: a cached graph is replayed only while what its capture read still holds; a change
captures again (logged under TORCH_LOGS=recompiles with PyTorch's wording), up to config.recompile_limit,
after which the function runs eagerly with PyTorch's warning."""
import collections
import logging

import pytest

import torch
import torch.nn as nn
from torch._dynamo.eval_frame import stats


def captures():
    return stats["captures"]


def _double_plus(x, n):
    return x * n + 1


@pytest.mark.parametrize("change", ["size", "dtype", "stride", "requires_grad", "number"])
def test_a_changed_input_captures_again_and_gives_eager_results(change):
    compiled = torch.compile(_double_plus, backend="eager")
    x = torch.randn(3, 4)
    compiled(x, 2)
    other = {"size": (torch.randn(5, 4), 2), "dtype": (x.double(), 2), "stride": (x.t().contiguous().t(), 2),
             "requires_grad": (x.clone().requires_grad_(), 2), "number": (x, 3)}[change]
    torch.testing.assert_close(compiled(*other), _double_plus(*other))
    assert captures() == 2
    compiled(*other)
    compiled(x, 2)
    assert captures() == 2              # both graphs stay cached


def test_recompiles_are_logged_with_each_failed_guard(capsys, monkeypatch):
    monkeypatch.setenv("TORCH_LOGS", "recompiles")
    compiled = torch.compile(_double_plus, backend="eager")
    compiled(torch.ones(3), 2)
    compiled(torch.ones(4), 2)
    compiled(torch.ones(4, dtype=torch.float64), 2)
    err = capsys.readouterr().err
    frame = compiled._ember_compiled.frame_id
    assert f"[__recompiles] Recompiling function _double_plus in {__file__}:" in err
    assert f"[__recompiles]     - {frame}/0: tensor 'x' size mismatch at index 0. expected 3, actual 4" in err
    assert f"[__recompiles]     - {frame}/1: tensor 'x' dtype mismatch. expected Float, actual Double" in err


def test_past_the_recompile_limit_the_function_runs_eagerly_with_a_warning(caplog):
    torch._dynamo.config.cache_size_limit = 2
    try:
        assert torch._dynamo.config.recompile_limit == 2
        compiled = torch.compile(lambda x: x + 1, backend="eager", dynamic=False)     # every size specialised
        with caplog.at_level(logging.WARNING, logger="torch._dynamo"):
            for n in range(1, 6):
                assert compiled(torch.ones(n)).tolist() == [2.0] * n
    finally:
        torch._dynamo.config.recompile_limit = 8
    assert captures() == 2
    warnings = [r.getMessage() for r in caplog.records if "hit config.recompile_limit" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].startswith("torch._dynamo hit config.recompile_limit (2)")
    assert "last reason: " in warnings[0] and "size mismatch at index 0. expected 2, actual 3" in warnings[0]


def test_error_on_recompile_raises_instead_of_recompiling():
    compiled = torch.compile(lambda x: x - 1, backend="eager")
    compiled(torch.ones(2))
    with torch._dynamo.config.patch(error_on_recompile=True):
        with pytest.raises(torch._dynamo.exc.RecompileError, match="size mismatch at index 0. expected 2, actual 3"):
            compiled(torch.ones(3))


def test_a_guard_names_the_keyword_argument_it_failed_on_whatever_order_they_were_passed_in():
    def scaled(x, scale=1.0, shift=0.0):
        return x * scale + shift

    compiled = torch.compile(scaled, backend="eager")
    compiled(torch.ones(2), shift=1.0, scale=2.0)
    with torch._dynamo.config.patch(error_on_recompile=True):
        with pytest.raises(torch._dynamo.exc.RecompileError, match="shift == 1.0"):
            compiled(torch.ones(2), shift=3.0, scale=2.0)


def test_module_training_flag_and_replaced_parameters_are_guarded():
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.9))
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(4, 3)
    model.eval()
    torch.testing.assert_close(compiled(x), model(x))
    model.train()
    torch.manual_seed(0)
    got = compiled(x)
    torch.manual_seed(0)
    torch.testing.assert_close(got, model(x))
    model[0].weight = nn.Parameter(torch.zeros(3, 3))
    model.eval()
    torch.testing.assert_close(compiled(x), model[0].bias.expand(4, 3))
    assert captures() == 3


def test_module_numbers_read_in_forward_are_guarded_by_value():
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.factor = 2.0

        def forward(self, x):
            return x * self.factor

    model = Scale()
    compiled = torch.compile(model, backend="inductor")
    x = torch.ones(3)
    assert compiled(x).tolist() == [2.0] * 3
    model.factor = 5.0
    assert compiled(x).tolist() == [5.0] * 3


def test_closure_cells_and_globals_are_guarded():
    offset = 1.0

    def f(x):
        return x + offset + GLOBAL_SCALE

    compiled = torch.compile(f, backend="eager")
    assert compiled(torch.zeros(1)).item() == 11.0
    offset = 2.0        # noqa: F841 (read by f through its cell)
    assert compiled(torch.zeros(1)).item() == 12.0
    globals()["GLOBAL_SCALE"] = 20.0
    try:
        assert compiled(torch.zeros(1)).item() == 22.0
    finally:
        globals()["GLOBAL_SCALE"] = 10.0


GLOBAL_SCALE = 10.0


def test_grad_mode_is_guarded():
    compiled = torch.compile(lambda x: x * 2, backend="inductor")
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        assert not compiled(x).requires_grad
    assert compiled(x).requires_grad
    assert captures() == 2


def _branching(x):
    return x * ((2 if x.is_leaf else 3) + (10 if isinstance(x, nn.Parameter) else 0))


def test_an_inputs_leafness_and_its_being_a_parameter_are_guarded():
    compiled = torch.compile(_branching)
    w, p = torch.ones(3, requires_grad=True), nn.Parameter(torch.ones(3))
    for x in (w, w * 1, p, w, w * 1, p):
        torch.testing.assert_close(compiled(x), _branching(x))
    assert captures() == 3


def test_deterministic_algorithms_are_guarded():
    compiled = torch.compile(lambda x: x * (2 if torch.are_deterministic_algorithms_enabled() else 3))
    x = torch.ones(2)
    assert compiled(x).tolist() == [3.0, 3.0]
    try:
        torch.use_deterministic_algorithms(True)
        assert compiled(x).tolist() == [2.0, 2.0]
    finally:
        torch.use_deterministic_algorithms(False)
    assert compiled(x).tolist() == [3.0, 3.0]


def test_reset_forgets_every_graph():
    compiled = torch.compile(lambda x: x * 3, backend="eager")
    compiled(torch.ones(1))
    torch.compiler.reset()
    compiled(torch.ones(1))
    assert captures() == 1 and stats["replays"] == 0


def test_explain_reports_graphs_operators_and_guards():
    def f(x):
        return (x + 1).relu()

    out = torch._dynamo.explain(f)(torch.randn(3))
    assert (out.graph_count, out.graph_break_count, out.op_count) == (1, 0, 2)
    assert [str(op) for op in out.ops_per_graph[0]] == ["aten.add.Tensor", "aten.relu.default"]
    assert any(g.startswith("TENSOR_MATCH x: torch.float32 [3]") for g in out.out_guards)
    assert "Graph Count: 1" in str(out)


@pytest.mark.parametrize("change", ["frozen", "resized", "transposed in place", "new dtype"])
def test_a_parameter_changed_in_place_captures_again(change):
    # the graph holds the module's parameters: their layout and requires_grad are guarded at each call
    model = nn.Linear(4, 4)
    compiled = torch.compile(model)
    x = torch.randn(2, 4)
    compiled(x)
    compiled(x)
    if change == "frozen":
        model.weight.requires_grad_(False)
    elif change == "resized":
        model.weight.data = torch.randn(4, 4).t()               # another stride, the same values' shape
    elif change == "transposed in place":
        with torch.no_grad():
            model.weight.t_()
    else:
        model.double()
        x = x.double()
    got, want = compiled(x), model(x)
    torch.testing.assert_close(got, want)
    assert got.requires_grad == want.requires_grad and captures() == 2


class _Trainer:
    def __init__(self):
        self.scale, self.global_step, self.losses = 2.0, 0, []

    def step(self, x):
        return x * self.scale


class _Schedule:
    def __init__(self):
        self.last_epoch = 0


def test_an_object_argument_is_guarded_on_what_the_function_reads_of_it():
    trainer = _Trainer()
    step = torch.compile(trainer.step)
    for i in range(4):
        trainer.global_step += 1            # moved outside, never read by the step: no recompile
        trainer.losses.append(i)
        assert step(torch.ones(1)).item() == 2.0
    assert captures() == 1
    trainer.scale = 3.0
    assert step(torch.ones(1)).item() == 3.0
    assert captures() == 2
    schedule = _Schedule()
    unused, read = torch.compile(lambda x, s: x * 2), torch.compile(lambda x, s: x * s.last_epoch)
    for epoch in range(4):
        schedule.last_epoch = epoch % 2
        assert unused(torch.ones(1), schedule).item() == 2.0
        assert read(torch.ones(1), schedule).item() == epoch % 2
    assert captures() == 2 + 1 + 2


def test_a_module_the_function_constructs_is_not_guarded():
    linear = nn.Linear(8, 3)

    def loss(x, y):
        criterion = nn.CrossEntropyLoss()           # as transformers' heads make theirs in forward
        return criterion(linear(x), y)

    compiled = torch.compile(loss)
    for seed in range(4):
        g = torch.Generator().manual_seed(seed)
        x, y = torch.randn(4, 8, generator=g), torch.randint(0, 3, (4,), generator=g)
        torch.testing.assert_close(compiled(x, y), loss(x, y))
    assert captures() == 1


class _ClassScaled(nn.Module):
    factor = 2.0

    def forward(self, x):
        return x * self.factor


def test_what_a_module_the_function_constructs_reads_from_its_class_is_guarded():
    compiled = torch.compile(lambda x: _ClassScaled()(x))
    try:
        for factor in (2.0, 3.0, 2.0):
            _ClassScaled.factor = factor
            assert compiled(torch.ones(1)).item() == factor
        original = _ClassScaled.forward
        _ClassScaled.forward = lambda self, x: x * 10
        assert compiled(torch.ones(1)).item() == 10.0
        _ClassScaled.forward = original
    finally:
        _ClassScaled.factor = 2.0
    assert compiled(torch.ones(1)).item() == 2.0


def test_a_forward_set_on_the_instance_before_the_compile_is_guarded_by_identity():
    import functools
    import types

    model = nn.Linear(4, 2)

    def doubled(forward, module, x):        # a library's wrapper (accelerate's autocast forward, say)
        return forward(module, x) * 2

    model.forward = types.MethodType(functools.partial(doubled, model.forward.__func__), model)
    compiled = torch.compile(model)
    x = torch.randn(3, 4)
    for _ in range(3):
        torch.testing.assert_close(compiled(x), model(x))
    assert captures() == 1
    model.forward = types.MethodType(lambda self, x: nn.Linear.forward(self, x) * 3, model)
    torch.testing.assert_close(compiled(x), nn.Linear.forward(model, x) * 3)


class _Reader:
    def __init__(self):
        self.k, self.w = 1.0, [1.0, 2.0]
        self.scaled = lambda t: t * self.k          # stored on the instance, reading it through its closure

    def through_lambda(self, x):
        return (lambda: x * self.k)()

    def through_comprehension(self, x):
        return sum(x * self.w[j] for j in range(2)) + sum([x * self.k for _ in range(1)])

    def through_stored_lambda(self, x):
        return self.scaled(x)

    def through_dict(self, x):
        return x * self.__dict__["k"]


class _Settings(collections.UserDict):
    def scale(self, x):
        return x * self.get("k")                    # a library's method, inherited


@pytest.mark.parametrize("method", ["through_lambda", "through_comprehension", "through_stored_lambda",
                                    "through_dict"])
def test_what_closures_comprehensions_and_dict_reads_take_from_an_object_is_guarded(method):
    reader = _Reader()
    compiled = torch.compile(getattr(reader, method))
    for k in (1.0, 2.0, 3.0):
        reader.k, reader.w = k, [k, 2 * k]
        torch.testing.assert_close(compiled(torch.ones(1)), getattr(reader, method)(torch.ones(1)))


def test_an_inherited_library_method_an_object_argument_calls_guards_the_whole_object():
    settings = _Settings(k=1.0)
    compiled = torch.compile(settings.scale)
    for k in (1.0, 2.0, 3.0):
        settings["k"] = k
        assert compiled(torch.ones(1)).item() == k


def test_a_module_the_function_constructs_and_keeps_on_another_is_a_new_one_each_call():
    class Keeper(nn.Module):
        def forward(self, x):
            self.made = _ClassScaled()
            return x * 2

    keeper = Keeper()
    compiled = torch.compile(keeper)
    made = []
    for _ in range(3):
        compiled(torch.ones(1))
        made.append(keeper.made)            # (held, so that no two can share an id)
    assert len({id(m) for m in made}) == 3


_HPARAMS = {"lr": 0.1, "wd": 0.01}


def _uses_hparams_whole(x):
    return sum(x * v for v in _HPARAMS.values())


def test_a_container_used_whole_compares_numbers_by_value_not_identity():
    compiled = torch.compile(_uses_hparams_whole)
    base = 0.1
    for _ in range(4):
        _HPARAMS["lr"] = base * 1.0         # an equal float, a new object each step: replayed
        assert torch.equal(compiled(torch.ones(2)), _uses_hparams_whole(torch.ones(2)))
    assert (captures(), stats["replays"]) == (1, 3)
    for value in (0.2, 2, True):            # another value, or an equal one of another type: captured again
        _HPARAMS["lr"] = value
        assert torch.equal(compiled(torch.ones(2)), _uses_hparams_whole(torch.ones(2)))
    assert captures() == 4
    _HPARAMS["lr"] = 0.1


def _divides_by_hparams(x):
    return sum(x / v for v in _HPARAMS.values())


def test_a_float_member_keeps_its_sign_and_a_nan_stays_a_nan():
    compiled = torch.compile(_divides_by_hparams)
    for value in (0.0, -0.0, 0.0, -0.0):     # x / -0.0 is -inf: the sign is part of the value
        _HPARAMS["lr"] = value
        assert torch.equal(compiled(torch.ones(1)), _divides_by_hparams(torch.ones(1)))
    assert captures() == 2
    for _ in range(3):                        # a NaN stored anew each step: the same value to the graph
        _HPARAMS["lr"] = float("nan")
        compiled(torch.ones(1))
    assert captures() == 3
    _HPARAMS["lr"] = 0.1


class _OneLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x)


_CHAINED = {}


def _step_reading_grad_through_a_global_chain(x):
    _CHAINED["opt"].zero_grad()
    loss = _CHAINED["model"](x).pow(2).mean()
    loss.backward()
    norm = _CHAINED["model"].fc.weight.grad.norm()
    _CHAINED["opt"].step()
    return loss, norm


def test_a_gradient_read_through_a_global_chain_after_backward_replays():
    """The chain's end at entry is the last step's gradient, which the call replaces: the tensor it hangs from
    is guarded, the gradient read as an input (one recapture: the first call starts with no gradient)."""
    torch.manual_seed(0)
    model, twin = _OneLayer(), _OneLayer()
    twin.load_state_dict(model.state_dict())
    _CHAINED.update(model=model, opt=torch.optim.SGD(model.parameters(), lr=0.1))
    twin_opt = torch.optim.SGD(twin.parameters(), lr=0.1)
    compiled = torch.compile(_step_reading_grad_through_a_global_chain)
    x = torch.randn(4, 3)
    for _ in range(5):
        loss, norm = compiled(x)
        twin_opt.zero_grad()
        twin(x).pow(2).mean().backward()
        torch.testing.assert_close(norm, twin.fc.weight.grad.norm())
        twin_opt.step()
    assert (captures(), stats["replays"]) == (2, 3)
    model.fc.weight = nn.Parameter(torch.ones(1, 3))      # another tensor at the chain's end: captured again
    _CHAINED["opt"] = torch.optim.SGD(model.parameters(), lr=0.1)
    want = (2 * (x @ torch.ones(3, 1) + model.fc.bias.detach()) * x / 4).sum(0).norm()    # before its step
    loss, norm = compiled(x)
    torch.testing.assert_close(norm, want)
    _CHAINED.clear()


_EPS = 0.0


def _divides_by_argument(x, v):
    return x / v


def _divides_by_global(x):
    return x / _EPS


def test_a_float_argument_or_global_keeps_its_sign_and_a_nan_replays():
    global _EPS
    by_argument, by_global = torch.compile(_divides_by_argument), torch.compile(_divides_by_global)
    for value in (0.0, -0.0, 0.0, float("nan"), float("nan")):
        _EPS = value
        torch.testing.assert_close(by_argument(torch.ones(1), value), _divides_by_argument(torch.ones(1), value),
                                   equal_nan=True)
        torch.testing.assert_close(by_global(torch.ones(1)), _divides_by_global(torch.ones(1)), equal_nan=True)
    assert (captures(), stats["replays"]) == (6, 4)
    _EPS = 0.0


class _State:
    pass


def _step_reading_an_argument_objects_grad(state, x):
    state.w.grad = None
    (state.w * x).sum().backward()
    return state.w.grad.norm()


def test_a_gradient_read_through_an_argument_objects_chain_replays():
    state = _State()
    state.w = torch.ones(3, requires_grad=True)
    compiled = torch.compile(_step_reading_an_argument_objects_grad)
    for i in range(4):
        x = torch.full((3,), float(i))
        torch.testing.assert_close(compiled(state, x), x.norm())
    assert (captures(), stats["replays"]) == (1, 3)


def _scaled(x, k=1.0):
    return x * k


def _applies(x, op):
    return op(x) + 1


def test_a_new_partial_or_function_binding_the_same_each_call_replays_and_a_different_binding_captures_again():
    import functools

    x = torch.randn(4)
    compiled = torch.compile(_applies)
    weights = [torch.randn(4)]
    makers = [lambda: functools.partial(_scaled, k=2.0), lambda: (lambda t: t * weights[0])]
    for make in [makers[0], makers[0], makers[1], makers[1]]:   # an equal partial, an equal lambda (its code,
        op = make()                                             # globals and closure the same)
        torch.testing.assert_close(compiled(x, op), _applies(x, op))
    assert captures() == 2
    scale = 3.0
    different = [functools.partial(_scaled, k=5.0), functools.partial(_scaled, 2.0), (lambda t: t * scale),
                 functools.partial(_applies, op=abs)]
    for op in different:        # another keyword value, a positional binding, another code, another function
        torch.testing.assert_close(compiled(x, op), _applies(x, op))
    assert captures() == 6
    weights[0] = torch.randn(4)     # the closure's list holds another tensor: the lambda's own reads see it
    op = makers[1]()
    torch.testing.assert_close(compiled(x, op), _applies(x, op))


def test_a_closure_over_a_changed_plain_value_captures_again():
    x = torch.randn(3)
    compiled = torch.compile(_applies)
    for k in (2.0, 2.0, 3.0):
        op = (lambda t, k=k: t * k)         # a default: bound per lambda
        torch.testing.assert_close(compiled(x, op), _applies(x, op))

    def closing(k):
        return lambda t: t * k

    for k in (4.0, 4.0, -0.0):
        torch.testing.assert_close(compiled(x, closing(k)), _applies(x, closing(k)))
    assert captures() == 4


def test_a_partial_or_function_handed_back_is_the_calls_own():
    import functools

    def applies_and_returns(x, op):
        return op(x), op

    compiled = torch.compile(applies_and_returns)
    x = torch.ones(2)
    for op in [functools.partial(_scaled, k=2.0), functools.partial(_scaled, k=2.0), lambda t: t * 2]:
        result, back = compiled(x, op)
        assert back is op and torch.equal(result, x * 2)


def _shift_or_scale(mode="scale", k=1.0, *, x):
    return x * k if mode == "scale" else x + k


def test_what_a_partial_binds_by_position_and_by_keyword_and_a_functions_names_stay_apart():
    import functools

    def keyword_call(x, op):
        return op(x=x)

    def by_name(x, op):
        return op(x) * len(op.__name__)

    def lambda_named(name):
        op = lambda t: t * 2       # noqa: E731 - the same code each time, its __name__ set
        op.__name__ = name
        return op

    x = torch.ones(2)
    compiled = torch.compile(keyword_call)
    for op in [functools.partial(_shift_or_scale, "k", 2.0), functools.partial(_shift_or_scale, k=2.0)]:
        torch.testing.assert_close(compiled(x, op), keyword_call(x, op))      # x + 2, then x * 2
    named = torch.compile(by_name)
    for name in ("a", "a", "bbb"):
        torch.testing.assert_close(named(x, lambda_named(name)), by_name(x, lambda_named(name)))
    assert captures() == 4


def test_a_list_a_partial_or_closure_binds_is_the_calls_own_list():
    import functools

    def returns_bound(x, op):
        return op(x), op.keywords["k"] if isinstance(op, functools.partial) else op.__closure__[0].cell_contents

    def closing(values):
        return lambda t: t * values[0]

    compiled = torch.compile(returns_bound)
    x = torch.ones(2)
    for op in [functools.partial(_scaled_by_first, k=[2.0]), functools.partial(_scaled_by_first, k=[2.0]),
               closing([3.0]), closing([3.0])]:
        bound = op.keywords["k"] if isinstance(op, functools.partial) else op.__closure__[0].cell_contents
        result, back = compiled(x, op)
        assert back is bound and torch.equal(result, x * bound[0])


def _scaled_by_first(x, k):
    return x * k[0]


class _PrivateSlot:
    __slots__ = ("__scale",)

    def __init__(self, scale):
        self.__scale = scale

    def scale(self):
        return self.__scale


def test_an_argument_object_s_private_slot_is_guarded():
    holder = _PrivateSlot(2.0)
    compiled = torch.compile(lambda x, h: x * h.scale())
    assert compiled(torch.ones(1), holder).tolist() == [2.0]
    object.__setattr__(holder, "_PrivateSlot__scale", 5.0)
    assert compiled(torch.ones(1), holder).tolist() == [5.0]
