"""torch.library and torch.ops: defining operators, registering kernels, calling them through torch.ops."""
import itertools
import warnings

import numpy as np
import pytest

import torch
from torch.library import Library

_counter = itertools.count()


@pytest.fixture
def lib():
    """A DEF library of a namespace no other test uses, destroyed afterwards."""
    library = Library(f"ember_test_{next(_counter)}", "DEF")
    yield library
    library._destroy()


def ns_of(library):
    return getattr(torch.ops, library.ns)


# --- defining and calling -------------------------------------------------------------------------

def test_define_impl_and_call_on_cpu(lib):
    assert lib.define("scale(Tensor x, float factor) -> Tensor") == "scale"
    lib.impl("scale", lambda x, factor: x * factor, "CPU")
    x = torch.tensor([1.0, -2.0, 3.5])
    out = ns_of(lib).scale(x, 2.0)
    np.testing.assert_allclose(out.numpy(), x.numpy() * 2.0)
    np.testing.assert_allclose(ns_of(lib).scale.default(x, factor=3.0).numpy(), x.numpy() * 3.0)


def test_a_packet_call_sees_an_overload_defined_after_its_first_call(lib):
    # the packet caches its overloads for speed; defining another one must reach later calls
    lib.define("pick(Tensor x) -> Tensor")
    lib.impl("pick", lambda x: x + 1, "CPU")
    x = torch.zeros(2)
    assert ns_of(lib).pick(x).tolist() == [1.0, 1.0]
    lib.define("pick.twice(Tensor x, Tensor y) -> Tensor")
    lib.impl("pick.twice", lambda x, y: x + y, "CPU")
    assert ns_of(lib).pick(x, torch.ones(2)).tolist() == [1.0, 1.0]
    assert ns_of(lib).pick(x).tolist() == [1.0, 1.0]


def test_composite_implicit_kernel_serves_cpu(lib):
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x + x, "CompositeImplicitAutograd")
    x = torch.arange(4.0)
    np.testing.assert_allclose(ns_of(lib).twice(x).numpy(), np.arange(4.0) * 2)


def test_impl_without_key_uses_composite_implicit(lib):
    lib.define("inc(Tensor x) -> Tensor")
    lib.impl("inc", lambda x: x + 1)
    assert ns_of(lib).inc(torch.zeros(2)).tolist() == [1.0, 1.0]


def test_direct_cpu_kernel_wins_over_composite(lib):
    lib.define("which(Tensor x) -> Tensor")
    lib.impl("which", lambda x: x + 1, "CompositeExplicitAutograd")
    lib.impl("which", lambda x: x + 2, "CPU")
    assert ns_of(lib).which(torch.zeros(1)).tolist() == [2.0]


def test_keyword_and_default_arguments_reach_the_kernel_as_pytorch_passes_them(lib):
    lib.define("kw(Tensor x, int k=2, *, float s=1.5) -> Tensor")
    seen = []

    def kernel(x, k=2, *, s=1.5):
        seen.append((k, s))
        return x * k * s
    lib.impl("kw", kernel, "CPU")
    x = torch.ones(2)
    op = ns_of(lib).kw
    assert op(x).tolist() == [3.0, 3.0]
    assert op(x, 3).tolist() == [4.5, 4.5]
    assert op(x, k=4, s=0.5).tolist() == [2.0, 2.0]
    assert seen == [(2, 1.5), (3, 1.5), (4, 0.5)]


def test_arguments_equal_to_their_defaults_are_left_out(lib):
    lib.define("rec(Tensor x, int k=2, *, float s=1.5, Scalar sc=1) -> Tensor")
    calls = []

    def kernel(*args, **kwargs):
        calls.append((len(args), sorted(kwargs)))
        return args[0]
    lib.impl("rec", kernel, "CPU")
    x = torch.ones(1)
    ns_of(lib).rec(x, 2, s=1.5)
    ns_of(lib).rec(x, 5, s=2.5)
    ns_of(lib).rec(x, sc=True)          # True is not the default 1
    assert calls == [(1, []), (2, ["s"]), (1, ["sc"])]


def test_multiple_returns_are_a_tuple(lib):
    lib.define("split2(Tensor x) -> (Tensor, Tensor)")
    lib.impl("split2", lambda x: (x + 1, x - 1), "CPU")
    a, b = ns_of(lib).split2(torch.zeros(3))
    assert a.tolist() == [1.0] * 3 and b.tolist() == [-1.0] * 3


def test_tensor_list_and_int_list_arguments(lib):
    lib.define("total(Tensor[] xs, int[] dims=[0]) -> Tensor")
    received = []

    def kernel(xs, dims=(0,)):
        received.append((type(xs), list(dims)))
        out = xs[0]
        for t in xs[1:]:
            out = out + t
        return out.sum(dims)
    lib.impl("total", kernel, "CPU")
    xs = (torch.ones(2, 3), torch.full((2, 3), 2.0))
    assert ns_of(lib).total(xs).tolist() == [6.0, 6.0, 6.0]
    assert ns_of(lib).total(list(xs), (1,)).tolist() == [9.0, 9.0]
    assert received == [(list, [0]), (list, [1])]


def test_optional_arguments_take_none_or_their_type(lib):
    lib.define("opt(Tensor x, Tensor? y=None, int? k=None) -> Tensor")
    lib.impl("opt", lambda x, y=None, k=None: x if y is None else x + y * (k or 1), "CPU")
    x = torch.ones(2)
    assert ns_of(lib).opt(x).tolist() == [1.0, 1.0]
    assert ns_of(lib).opt(x, x, 3).tolist() == [4.0, 4.0]
    assert ns_of(lib).opt(x, None, k=None).tolist() == [1.0, 1.0]


def test_overloads_and_packet_dispatch(lib):
    lib.define("pick.Tensor(Tensor x, Tensor y) -> Tensor")
    lib.define("pick.int(Tensor x, int y) -> Tensor")
    lib.impl("pick.Tensor", lambda x, y: x + y, "CPU")
    lib.impl("pick.int", lambda x, y: x * y, "CPU")
    packet = ns_of(lib).pick
    assert packet.overloads() == ["Tensor", "int"]
    x = torch.full((2,), 3.0)
    assert packet(x, x).tolist() == [6.0, 6.0]
    assert packet(x, 4).tolist() == [12.0, 12.0]
    with pytest.raises(RuntimeError, match="failed to match any schema"):
        packet(x, "a")


def test_with_keyset_passes_the_call_keys(lib):
    lib.define("ks(Tensor x) -> Tensor")
    seen = []

    def kernel(keyset, x):
        seen.append(keyset)
        return x
    lib.impl("ks", kernel, "CPU", with_keyset=True)
    ns_of(lib).ks(torch.ones(1))
    assert torch.ops.aten.neg.default is not None
    from c10.dispatch_key import DispatchKey
    assert DispatchKey.CPU in seen[0]


# --- the module-level API --------------------------------------------------------------------------

def test_module_define_and_impl_decorator():
    lib = Library(f"ember_mod_{next(_counter)}", "FRAGMENT")
    try:
        qual = f"{lib.ns}::cube"
        torch.library.define(qual, "(Tensor x) -> Tensor", lib=lib)

        @torch.library.impl(qual, "cpu", lib=lib)
        def cube(x):
            return x * x * x
        x = torch.tensor([1.0, 2.0, -3.0])
        np.testing.assert_allclose(getattr(torch.ops, lib.ns).cube(x).numpy(), x.numpy() ** 3)
    finally:
        lib._destroy()


def test_register_kernel_default_device_types(lib):
    lib.define("half_(Tensor x) -> Tensor")
    torch.library.register_kernel(f"{lib.ns}::half_", None, lambda x: x / 2, lib=lib)
    assert ns_of(lib).half_(torch.full((1,), 8.0)).tolist() == [4.0]


def test_register_autograd_makes_a_custom_op_differentiable(lib):
    lib.define("sq(Tensor x) -> Tensor")
    lib.impl("sq", lambda x: x * x, "CPU")

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
    torch.library.register_autograd(f"{lib.ns}::sq", backward, setup_context=setup_context, lib=lib)
    op = ns_of(lib).sq.default
    assert op._autograd_backward is backward and op._autograd_setup_context is setup_context
    x = torch.tensor([1.0, -3.0], requires_grad=True)
    y = ns_of(lib).sq(x)
    assert type(y.grad_fn).__name__ == "SqBackward"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, -6.0]
    assert torch.autograd.gradcheck(ns_of(lib).sq, (torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True),))
    with torch.no_grad():
        assert ns_of(lib).sq(x).grad_fn is None
    with pytest.raises(RuntimeError, match="custom operator"):
        torch.library.register_autograd("aten::neg", backward)


def test_module_define_validates_its_arguments():
    with pytest.raises(ValueError, match='of the form "namespace::name"'):
        torch.library.define("noname", "(Tensor x) -> Tensor")
    with pytest.raises(ValueError, match="expected schema to look like"):
        torch.library.define("ember_x::k", "k(Tensor x) -> Tensor")


# --- errors ----------------------------------------------------------------------------------------

def test_unknown_kind_raises_value_error():
    with pytest.raises(ValueError, match="Unsupported kind: BAD"):
        Library("ember_bad_kind", "BAD")


def test_second_def_library_of_a_namespace_raises(lib):
    with pytest.raises(RuntimeError, match=f"Only a single TORCH_LIBRARY can be used to register the namespace {lib.ns}"):
        Library(lib.ns, "DEF")
    Library(lib.ns, "FRAGMENT")._destroy()      # fragments may share it


def test_aten_is_not_a_def_namespace():
    with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY"):
        Library("aten", "DEF")


def test_duplicate_define_raises(lib):
    lib.define("dup(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match="same name and overload name multiple times"):
        lib.define("dup(Tensor x, int k) -> Tensor")


def test_define_in_impl_library_raises():
    impl_lib = Library("ember_impl_only", "IMPL")
    with pytest.raises(RuntimeError, match="Cannot define an operator inside of a TORCH_LIBRARY_IMPL block"):
        impl_lib.define("f(Tensor x) -> Tensor")
    impl_lib._destroy()


def test_duplicate_impl_warns_and_overrides_or_raises_without_override(lib):
    lib.define("twice_impl(Tensor x) -> Tensor")
    lib.impl("twice_impl", lambda x: x + 1, "CPU")
    with pytest.warns(UserWarning, match="Overriding a previously registered kernel"):
        lib.impl("twice_impl", lambda x: x + 2, "CPU")
    assert ns_of(lib).twice_impl(torch.zeros(1)).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="already a kernel registered from python overriding twice_impl's behavior "
                                           "for CPU dispatch key"):
        lib.impl("twice_impl", lambda x: x + 3, "CPU", allow_override=False)


def test_impl_needs_a_callable_and_a_known_key(lib):
    lib.define("k(Tensor x) -> Tensor")
    with pytest.raises(TypeError, match="Input function is required to be a callable"):
        lib.impl("k", 3, "CPU")
    with pytest.raises(RuntimeError, match="could not parse dispatch key: Foo"):
        lib.impl("k", lambda x: x, "Foo")


def test_missing_kernel_raises_not_implemented(lib):
    lib.define("nokernel(Tensor x) -> Tensor")
    lib.impl("nokernel", lambda x: x, "CUDA")
    with pytest.raises(NotImplementedError, match=rf"Could not run '{lib.ns}::nokernel' with arguments from the 'CPU' "
                                                  r"backend.*only available for these backends: \[CUDA\]"):
        ns_of(lib).nokernel(torch.ones(1))


@pytest.mark.parametrize("schema, message", [
    ("bad(Tensor x -> Tensor", "expected \\) but found 'arrow' here:\nbad\\(Tensor x -> Tensor\n             ~~ <--- HERE"),
    ("bad(Tensr x) -> Tensor", "unknown type specifier.*:\nbad\\(Tensr x\\) -> Tensor\n    ~~~~~ <--- HERE"),
    ("bad(Tensor x, ) -> Tensor", "expected ident but found '\\)' here"),
    ("bad(int k=1, int j) -> Tensor", "Non-default positional argument follows default argument"),
])
def test_bad_schema_raises_runtime_error_with_position(lib, schema, message):
    with pytest.raises(RuntimeError) as info:
        lib.define(schema)
    import re
    assert re.search(message, str(info.value), re.S), str(info.value)


def test_bad_calls_raise_pytorchs_runtime_errors(lib):
    lib.define("call(Tensor x, int k=2, *, float s=1.5) -> Tensor")
    lib.impl("call", lambda x, k=2, *, s=1.5: x, "CPU")
    op = ns_of(lib).call
    x = torch.ones(1)
    decl = f"{lib.ns}::call(Tensor x, int k=2, *, float s=1.5) -> Tensor"
    with pytest.raises(RuntimeError, match=rf"call\(\) is missing value for argument 'x'. Declaration: "):
        op()
    with pytest.raises(RuntimeError, match=r"Expected a value of type 'int' for argument 'k' but instead found type "
                                           r"'str'.\nPosition: 1\nValue: 'a'"):
        op(x, "a")
    with pytest.raises(RuntimeError, match=r"takes 2 positional argument\(s\) but 3 was/were given"):
        op(x, 1, 2.0)
    with pytest.raises(RuntimeError) as info:
        op(x, q=1)
    assert str(info.value) == f"Unknown keyword argument 'q' for operator '{lib.ns}::call'. Schema: {decl}"
    with pytest.raises(RuntimeError, match="(?s)Expected a value of type 'Tensor' for argument 'x'.*Unable to cast 1 to Tensor"):
        op(1)
    with pytest.raises(RuntimeError, match="specified both as positional and keyword argument"):
        op(x, x=x)


# --- torch.ops for built-in operators ---------------------------------------------------------------

@pytest.mark.parametrize("op, overload, fn, args", [
    ("add", "Tensor", torch.add, (torch.arange(6.0).reshape(2, 3), torch.ones(3))),
    ("mul", "Tensor", torch.mul, (torch.arange(4.0), torch.full((4,), 2.5))),
    ("neg", "default", torch.neg, (torch.tensor([1.0, -2.0]),)),
    ("sum", "default", torch.sum, (torch.arange(5.0),)),
    ("sum", "dim_IntList", torch.sum, (torch.arange(6.0).reshape(2, 3), [1])),
    ("exp", "default", torch.exp, (torch.linspace(-1, 1, 5),)),
    ("matmul", "default", torch.matmul, (torch.ones(2, 3), torch.ones(3, 4))),
    ("cat", "default", torch.cat, ([torch.ones(2), torch.zeros(3)],)),
])
def test_aten_overloads_match_torch_functions(op, overload, fn, args):
    got = getattr(getattr(torch.ops.aten, op), overload)(*args)
    np.testing.assert_allclose(got.numpy(), fn(*args).numpy())
    packet_got = getattr(torch.ops.aten, op)(*args)
    np.testing.assert_allclose(packet_got.numpy(), fn(*args).numpy())


def test_aten_op_with_keyword_and_number():
    x = torch.arange(3.0)
    assert torch.ops.aten.add.Tensor(x, 2, alpha=3).tolist() == [6.0, 7.0, 8.0]


def test_aten_packet_and_overload_attributes():
    packet = torch.ops.aten.add
    assert repr(packet) == "<OpOverloadPacket(op='aten.add')>"
    assert str(packet) == "aten.add"
    assert packet._qualified_op_name == "aten::add"
    assert {"Tensor", "Scalar", "out"} <= set(packet.overloads())
    assert torch.ops.aten.add is packet
    op = packet.Tensor
    assert isinstance(op, torch._ops.OpOverload)
    assert repr(op) == "<OpOverload(op='aten.add', overload='Tensor')>"
    assert str(op) == "aten.add.Tensor"
    assert op.name() == "aten::add.Tensor"
    assert op.overloadpacket is packet
    assert str(op._schema) == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert [a.name for a in op._schema.arguments] == ["self", "other", "alpha"]
    assert [a.kwarg_only for a in op._schema.arguments] == [False, False, True]
    neg = torch.ops.aten.neg.default
    assert repr(neg) == "<OpOverload(op='aten.neg', overload='default')>" and neg.name() == "aten::neg"


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="'_OpNamespace' 'aten' object has no attribute 'foo'"):
        torch.ops.aten.foo
    with pytest.raises(AttributeError, match="The underlying op of 'aten.add' has no overload name 'foo'"):
        torch.ops.aten.add.foo
    assert not hasattr(torch.ops.aten, "definitely_not_an_op")


def test_any_namespace_exists_before_definitions():
    namespace = torch.ops.ember_never_defined
    assert type(namespace).__name__ == "_OpNamespace"
    assert repr(namespace) == "<module 'torch.ops.ember_never_defined' from 'torch.ops'>"
    with pytest.raises(AttributeError, match="'_OpNamespace' 'ember_never_defined' object has no attribute 'op'"):
        namespace.op


def test_library_repr(lib):
    assert repr(lib) == f"Library(kind=DEF, ns={lib.ns}, dispatch_key=)>"
    assert repr(Library("ember_r", "IMPL", "CPU")) == "Library(kind=IMPL, ns=ember_r, dispatch_key=CPU)>"


# --- lifetime ----------------------------------------------------------------------------------------

def test_destroy_removes_definitions_and_kernels():
    ns = f"ember_life_{next(_counter)}"
    lib = Library(ns, "DEF")
    lib.define("gone(Tensor x) -> Tensor")
    lib.impl("gone", lambda x: x, "CPU")
    assert getattr(torch.ops, ns).gone(torch.ones(1)).tolist() == [1.0]
    lib._destroy()
    assert not hasattr(getattr(torch.ops, ns), "gone")
    with pytest.raises(AssertionError, match="Library object has been destroyed"):
        lib.define("again(Tensor x) -> Tensor")
    again = Library(ns, "DEF")          # the namespace is free again
    again.define("gone(Tensor x, int k) -> Tensor")
    again._destroy()


def test_deleting_a_library_removes_its_registrations():
    import gc
    ns = f"ember_del_{next(_counter)}"
    lib = Library(ns, "DEF")
    lib.define("tmp(Tensor x) -> Tensor")
    del lib
    gc.collect()
    assert not hasattr(getattr(torch.ops, ns), "tmp")
    Library(ns, "DEF")._destroy()


def test_impl_library_overrides_aten_kernel_until_destroyed():
    x = torch.tensor([1.0, 2.0])
    impl_lib = Library("aten", "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        impl_lib.impl("neg", lambda t: t * 10, "CPU")
    try:
        assert torch.neg(x).tolist() == [10.0, 20.0]
        assert torch.ops.aten.neg.default(x).tolist() == [10.0, 20.0]
    finally:
        impl_lib._destroy()
    assert torch.neg(x).tolist() == [-1.0, -2.0]


def test_destroying_a_fragment_keeps_the_def_librarys_ops(lib):
    lib.define("keep(Tensor x) -> Tensor")
    frag = Library(lib.ns, "FRAGMENT")
    frag.define("extra(Tensor x) -> Tensor")
    frag._destroy()
    assert hasattr(ns_of(lib), "keep") and not hasattr(ns_of(lib), "extra")


# --- custom_op: operators from typed Python functions ---------------------------------------------

def test_infer_schema_follows_pytorchs_table():
    from torch import Tensor

    def f(x: Tensor, y: Tensor | None, n: int, s: float, b: bool, sizes: list[int], ts: list[Tensor],
          o: int | None = None, name: str = "a", k: float = 2.0) -> tuple[Tensor, Tensor]:
        ...
    assert torch.library.infer_schema(f, mutates_args=()) == (
        '(Tensor x, Tensor? y, SymInt n, float s, bool b, SymInt[] sizes, Tensor[] ts, SymInt? o=None, str name="a", '
        'float k=2.0) -> (Tensor, Tensor)')

    def g(x: Tensor, out: Tensor) -> None:
        ...
    assert torch.library.infer_schema(g, mutates_args={"out"}) == "(Tensor x, Tensor(a1!) out) -> ()"

    def keywords(x: Tensor, *, k: int = 3, d: torch.dtype = torch.float64) -> Tensor:
        ...
    assert torch.library.infer_schema(keywords, mutates_args=()) == \
        "(Tensor x, *, SymInt k=3, ScalarType d=float64) -> Tensor"

    def positional_only(x: Tensor, /) -> Tensor:
        ...
    with pytest.raises(ValueError, match="^infer_schema\\(func\\): We do not support positional-only args"):
        torch.library.infer_schema(positional_only, mutates_args=())

    def untyped(x):
        ...
    with pytest.raises(ValueError, match=r"^infer_schema\(func\): Parameter x must have a type annotation. Got func "
                                         r"with signature \(x\)\)$"):
        torch.library.infer_schema(untyped, mutates_args=())


def test_custom_op_defines_a_callable_differentiable_operator():
    from torch import Tensor
    name = f"ember_custom_{next(_counter)}"

    @torch.library.custom_op(f"{name}::scaled", mutates_args=())
    def scaled(x: Tensor, k: float) -> Tensor:
        return x * k

    assert repr(scaled) == f"<CustomOpDef({name}::scaled)>"
    x = torch.tensor([1.0, -2.0])
    np.testing.assert_array_equal(scaled(x, 3.0).numpy(), [3.0, -6.0])
    np.testing.assert_array_equal(getattr(torch.ops, name).scaled(x, 2.0).numpy(), [2.0, -4.0])

    @scaled.register_fake
    def _(x, k):
        return torch.empty_like(x)

    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    scaled.register_autograd(lambda ctx, grad: (grad * ctx.k, None), setup_context=setup_context)
    leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    scaled(leaf, 5.0).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [5.0, 5.0])


def test_custom_op_needs_mutates_args_and_register_fake_an_existing_op():
    from torch import Tensor

    def ident(x: Tensor) -> Tensor:
        return x
    with pytest.raises(TypeError, match="mutates_args"):
        torch.library.custom_op("ember_custom_x::ident", ident)    # type: ignore[call-arg]
    with pytest.raises(RuntimeError, match="^operator ember_custom_missing::nope does not exist$"):
        torch.library.register_fake("ember_custom_missing::nope", lambda x: x)
