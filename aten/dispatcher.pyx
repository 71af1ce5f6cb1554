"""The dispatcher: one OperatorHandle per `name.overload`, a kernel table per dispatch key.

A call's key set is the union of its tensor arguments' keys; the highest key present picks the
kernel (c10/core/DispatchKey.h order). A call with no tensors and no device (`torch.cat([])`)
runs the CPU kernel, as PyTorch's default TensorOptions backend, so the kernel reports the error.
Kernels registered under alias keys fill the runtime keys as PyTorch's computeDispatchTableEntry
does:
direct > CompositeExplicitAutogradNonFunctional > CompositeExplicitAutograd >
CompositeImplicitAutograd (backends, and autograd keys whose backend has no kernel) >
Autograd alias > fallthrough.
"""
import importlib
import os
import re
import sys

from libc.stdint cimport uint64_t
from c10.dispatch_key cimport (DK_CPU, DK_CUDA, DK_BACKEND_SELECT, DK_PYTHON, DK_FUNCTORCH_BATCHED, DK_VMAP_MODE,
                               DK_AD_INPLACE_OR_VIEW,
                               DK_AUTOGRAD_OTHER, DK_AUTOGRAD_CPU, DK_AUTOGRAD_CUDA, DK_FORWARD_AD, DK_AUTOCAST_CPU,
                               DK_AUTOCAST_CUDA, NUM_RUNTIME_KEYS)
from c10.tensor_impl cimport TensorImpl, wrap_number
from c10.grad_mode cimport grad_enabled, below_autograd, enter_below_autograd, exit_below_autograd
from aten.native.meta.memory_overlap cimport WriteChecks, check_written
from aten.autocast_mode cimport autocast_keys

from aten.native.meta.memory_overlap import write_checks
from aten.native.meta.opmath import ComputeInOpmath
from aten.autocast_mode import AutocastKernel, BANNED_MESSAGES

from c10.dispatch_key import DispatchKey

cdef extern from *:
    int __builtin_clzll(unsigned long long) nogil

cdef dict _operators = {}
cdef uint64_t AUTOGRAD_BITS = (((<uint64_t>1) << DK_AUTOGRAD_OTHER) | ((<uint64_t>1) << DK_AUTOGRAD_CPU)
                               | ((<uint64_t>1) << DK_AUTOGRAD_CUDA))
cdef uint64_t BACKEND_BITS = ((<uint64_t>1) << DK_CPU) | ((<uint64_t>1) << DK_CUDA)
# Kernels replaced by a later registration at the same key ((operator, key) -> older kernels, oldest
# first): torch.library's Library.impl overrides as PyTorch does, and removing the newer kernel
# brings the older one back.
cdef dict _shadowed = {}
cdef Py_ssize_t _generation = 0     # changes whenever an operator is defined or undefined
cdef bint _trace = os.environ.get("TORCH_SHOW_DISPATCH_TRACE", "") not in ("", "0")
# The active profiler (torch.profiler): while set, each call that enters an operator through the
# dispatcher (not an autograd kernel's call below itself) runs as _profiler.wrap(name, kernel).
cdef object _profiler = None


# Keys a thread's calls gain whatever their tensors are: the Python key while a TorchDispatchMode is active
# (torch.utils._python_dispatch: its kernel, one PythonKernel per operator, hands the call to _python_handler),
# and FuncTorchVmapMode inside vmap (torch._functorch: random operators follow vmap's `randomness`). A C
# __thread bit set: modes are per thread, as PyTorch's.
cdef extern from *:
    """
    static __thread unsigned long long ember_tls_keys = 0;
    """
    unsigned long long ember_tls_keys

# Inside a ForwardAD kernel's call of the op itself (call_below_forward_ad): the ops that call makes (a
# composite's parts, a backend kernel's helpers) compute values only, never tangents. A C __thread counter.
cdef extern from *:
    """
    static __thread int ember_below_forward_ad = 0;
    """
    int ember_below_forward_ad

cdef uint64_t FORWARD_AD_BIT = (<uint64_t>1) << DK_FORWARD_AD
cdef uint64_t PYTHON_BIT = (<uint64_t>1) << DK_PYTHON
cdef uint64_t VMAP_MODE_BIT = (<uint64_t>1) << DK_VMAP_MODE
cdef object _python_handler = None
cdef object _batched_handler = None


def set_python_key(handler):
    """Route every operator call this thread makes through handler(handle, args, kwargs) at the Python
    key (below autograd), or, with None, stop. The handler turns the key off while it runs a mode's code."""
    global _python_handler, ember_tls_keys
    if handler is not None:
        _python_handler = handler
        ember_tls_keys |= PYTHON_BIT
    else:
        ember_tls_keys &= ~PYTHON_BIT


cdef bint python_key_active() noexcept:
    return (ember_tls_keys & PYTHON_BIT) != 0


def set_vmap_mode(bint on):
    """Whether this thread's calls gain the FuncTorchVmapMode key (inside vmap); returns the previous state."""
    global ember_tls_keys
    previous = (ember_tls_keys & VMAP_MODE_BIT) != 0
    if on:
        ember_tls_keys |= VMAP_MODE_BIT
    else:
        ember_tls_keys &= ~VMAP_MODE_BIT
    return previous


def vmap_mode_active():
    """Whether this thread is inside vmap."""
    return (ember_tls_keys & VMAP_MODE_BIT) != 0


def set_batched_fallback(handler):
    """handler(handle, args, kwargs) runs, at the FuncTorchBatched key, every operator that has no batching
    rule of its own (torch._functorch.batched installs the per-example loop)."""
    global _batched_handler
    _batched_handler = handler


def without_forward_ad(fn, *args, **kwargs):
    """fn(*args, **kwargs) with the ForwardAD key off: its ops compute values, never tangents (a tangent
    formula's, whose tangents exist at no other level)."""
    global ember_below_forward_ad
    ember_below_forward_ad += 1
    try:
        return fn(*args, **kwargs)
    finally:
        ember_below_forward_ad -= 1


cdef class PythonKernel:
    """The Python key's kernel of one operator: the call, with its handle, to the mode handler."""
    cdef OperatorHandle handle

    def __init__(self, OperatorHandle handle):
        self.handle = handle

    def __call__(self, *args, **kwargs):
        return _python_handler(self.handle, args, kwargs)


cdef class BatchedFallback:
    """The FuncTorchBatched kernel of an operator without a batching rule: the call, with its handle, to
    the fallback set_batched_fallback installed."""
    cdef OperatorHandle handle

    def __init__(self, OperatorHandle handle):
        self.handle = handle

    def __call__(self, *args, **kwargs):
        if _batched_handler is None:
            raise RuntimeError(f"{_qualified(self.handle.name)} got a batched tensor but vmap is not loaded")
        return _batched_handler(self.handle, args, kwargs)


cdef uint64_t BATCHED_BIT = (<uint64_t>1) << DK_FUNCTORCH_BATCHED


cdef class ForwardADPassThrough:
    """The ForwardAD kernel of a composite with a vmap rule of its own (dropout): the rule runs, its parts computing
    the tangents (the key is skipped, not switched off). A batched argument that carries a tangent itself (one
    made under vmap) decomposes the composite instead: a rule works on values, which do not carry it."""
    cdef OperatorHandle handle
    cdef object composite

    def __init__(self, OperatorHandle handle, composite):
        self.handle = handle
        self.composite = composite

    def __call__(self, *args, **kwargs):
        cdef uint64_t ks = _call_key_set(args, kwargs)
        if _any_key_pair(args, kwargs, BATCHED_BIT | FORWARD_AD_BIT):
            if type(self.composite) is LazyKernel:       # the composite's module loads on its first call
                self.composite = (<LazyKernel>self.composite).resolve()
            return self.composite(*args, **kwargs)
        return _resolve(self.handle, ks & ~FORWARD_AD_BIT)(*args, **kwargs)


cdef bint _any_key_pair(tuple args, dict kwargs, uint64_t both) except -1:
    """Whether a tensor argument (or one in a list) has both keys of `both`."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, TensorImpl):
            if ((<TensorImpl>a).key_set & both) == both:
                return True
        elif isinstance(a, (list, tuple)):
            for e in a:
                if isinstance(e, TensorImpl) and ((<TensorImpl>e).key_set & both) == both:
                    return True
    return False


def set_profiler_hook(hook):
    """Install (or, with None, remove) the profiler that times every operator call."""
    global _profiler
    _profiler = hook


def get_profiler_hook():
    """The hook set_profiler_hook installed (None if none): an observer that installs its own hook
    keeps it and passes calls on to it (the profiler and the FLOP counter together)."""
    return _profiler


class _Fallthrough:
    """Table marker: skip this key and try the next lower one."""
    def __repr__(self):
        return "FALLTHROUGH"


FALLTHROUGH = _Fallthrough()

_ALIAS_CEANF = int(DispatchKey.CompositeExplicitAutogradNonFunctional)
_ALIAS_CEA = int(DispatchKey.CompositeExplicitAutograd)
_ALIAS_CIA = int(DispatchKey.CompositeImplicitAutograd)
_ALIAS_AUTOGRAD = int(DispatchKey.Autograd)
_KEY_NAMES = {int(k): k.name for k in DispatchKey}


cdef class LazyKernel:
    """A kernel named by module and attribute, imported on its first call (keeps `import torch` fast)."""
    cdef readonly str module
    cdef readonly str attr

    def __init__(self, str module, str attr):
        self.module = module
        self.attr = attr

    def resolve(self):
        mod = importlib.import_module(self.module)
        try:
            return getattr(mod, self.attr)
        except AttributeError:
            raise RuntimeError(f"kernel {self.attr} is registered from {self.module}, which does not define it; "
                               "rebuild with `make build`") from None

    def __repr__(self):
        return f"<kernel {self.module}.{self.attr}>"


cdef class CheckedWrite:
    """The backend kernel of an operator that writes its Tensor(a!) arguments, behind the checks
    that none of them has elements sharing memory and that no input shares part of one
    (aten/native/meta/memory_overlap.pyx): the one place every in-place and out= write passes
    through, on every device."""
    cdef object kernel              # a callable, or a LazyKernel resolved on the first call
    cdef WriteChecks checks

    def __call__(self, *args, **kwargs):
        check_written(self.checks, args, kwargs)
        kernel = self.kernel
        if type(kernel) is LazyKernel:
            kernel = self.kernel = (<LazyKernel>kernel).resolve()
        return kernel(*args, **kwargs)

    @property
    def __wrapped__(self):
        if type(self.kernel) is LazyKernel:
            self.kernel = (<LazyKernel>self.kernel).resolve()
        return self.kernel

    def __repr__(self):
        return f"<checked write {self.kernel!r}>"


cdef str _qualified(str name):
    """The operator's full name: aten's operators are registered without their namespace."""
    return name if "::" in name else "aten::" + name


cdef class OperatorHandle:
    """One operator overload (aten::name.overload, or ns::name.overload for torch.library's) and its kernels."""

    def __init__(self, str name, str schema, bint inplace_view=False):
        self.name = name
        self.schema = schema
        self.table = [None] * NUM_RUNTIME_KEYS
        self.registered = {}
        self.tensor_params = _tensor_params(schema)
        # aten's writes are checked, as ATen's kernels check them; not those of in-place view ops
        # (t_, resize_, set_...), which change a tensor's geometry and no element.
        self.written = None if inplace_view or "::" in name else \
            write_checks(name, *_written_and_read_params(schema))
        self.rebuild_table()

    def register(self, key, kernel, bint override=False):
        """Register kernel (callable or LazyKernel) at a runtime or alias DispatchKey.

        A key that has a kernel already raises, unless override: then the new kernel shadows the
        old one until deregister() removes it."""
        k = int(DispatchKey(key))
        if k in self.registered:
            if not override:
                raise RuntimeError(f"{_qualified(self.name)} already has a kernel for dispatch key "
                                   f"{DispatchKey(k).name}")
            _shadowed.setdefault((self.name, k), []).append(self.registered[k])
        self.registered[k] = kernel
        self.rebuild_table()

    def deregister(self, key, kernel):
        """Remove kernel from key (the newest registration, or one it shadows); the kernel it shadowed
        comes back."""
        k = int(DispatchKey(key))
        older = _shadowed.get((self.name, k))
        if self.registered.get(k) is kernel:
            if older:
                self.registered[k] = older.pop()
            else:
                del self.registered[k]
        elif older and kernel in older:
            older.remove(kernel)
        else:
            raise RuntimeError(f"{_qualified(self.name)} has no such kernel for dispatch key {DispatchKey(k).name}")
        if older is not None and not older:
            del _shadowed[(self.name, k)]
        self.rebuild_table()

    def has_kernel(self, key):
        """Whether a kernel is registered directly at key (runtime or alias)."""
        return int(DispatchKey(key)) in self.registered

    def registered_keys(self):
        return sorted(DispatchKey(k) for k in self.registered)

    cdef void rebuild_table(self):
        cdef dict reg = self.registered
        cdef int k, backend
        cdef bint has_backend_kernel
        for k in range(NUM_RUNTIME_KEYS):
            kernel = reg.get(k)
            if kernel is None and (k == DK_CPU or k == DK_CUDA):
                kernel = reg.get(_ALIAS_CEANF) or reg.get(_ALIAS_CEA) or reg.get(_ALIAS_CIA)
            elif kernel is None and (k == DK_AUTOGRAD_CPU or k == DK_AUTOGRAD_CUDA or k == DK_AUTOGRAD_OTHER):
                backend = DK_CPU if k == DK_AUTOGRAD_CPU else (DK_CUDA if k == DK_AUTOGRAD_CUDA else -1)
                has_backend_kernel = backend >= 0 and backend in reg
                if _ALIAS_CIA in reg and not has_backend_kernel and _ALIAS_CEA not in reg and _ALIAS_CEANF not in reg:
                    kernel = reg[_ALIAS_CIA]
                else:
                    kernel = reg.get(_ALIAS_AUTOGRAD, FALLTHROUGH)
            elif kernel is None and (k == DK_PYTHON or k == DK_FUNCTORCH_BATCHED or k == DK_FORWARD_AD):
                # a CompositeImplicitAutograd op decomposes above the Python, Batched and ForwardAD keys, as
                # PyTorch's: the mode, the batching rules and the tangent formulas see the operators it is made of
                # (matmul's mm), not the composite
                if (_ALIAS_CIA in reg and DK_CPU not in reg and DK_CUDA not in reg and _ALIAS_CEA not in reg
                        and _ALIAS_CEANF not in reg):
                    kernel = reg[_ALIAS_CIA]
                    if k == DK_FORWARD_AD and (DK_VMAP_MODE in reg or DK_FUNCTORCH_BATCHED in reg):
                        kernel = ForwardADPassThrough(self, kernel)
                elif k == DK_FORWARD_AD:
                    kernel = FALLTHROUGH     # no formula: its outputs are not differentiable (argmax, eq...)
                elif k == DK_PYTHON:
                    kernel = PythonKernel(self)
                else:
                    kernel = BatchedFallback(self)
            elif kernel is None and (k == DK_BACKEND_SELECT or k == DK_AD_INPLACE_OR_VIEW or k == DK_VMAP_MODE
                                     or k == DK_AUTOCAST_CPU or k == DK_AUTOCAST_CUDA):
                kernel = FALLTHROUGH
            if self.written is not None and (k == DK_CPU or k == DK_CUDA) and kernel is not None \
                    and kernel is not FALLTHROUGH:
                kernel = _checked(kernel, self.written)
            self.table[k] = kernel

    cdef object lookup(self, uint64_t ks):
        kernel = _resolve(self, ks)
        if _profiler is not None:
            return _profiler.wrap(self.name, kernel)
        return kernel

    def kernel_for(self, uint64_t ks):
        """The kernel a call with key set ks runs (for tests and the dispatch trace)."""
        return _resolve(self, ks)

    def call_kernel_for(self, uint64_t ks):
        """What a call with key set ks runs, as __call__ would run it: kernel_for's kernel, seen by
        the profiler hook when one is set (torch.ops calls of operators outside aten)."""
        return self.lookup(ks)

    def __call__(self, *args, **kwargs):
        """Call with the key set taken from the tensor arguments (or the `device` argument).

        As PyTorch's torch.ops, a Python number passed for a Tensor argument is wrapped."""
        cdef uint64_t ks
        if self.tensor_params:
            args, kwargs = _wrap_numbers(self.tensor_params, args, kwargs)
        ks = _call_key_set(args, kwargs)
        return self.lookup(_or_default_backend(ks, kwargs))(*args, **kwargs)

    def call_below_autograd(self, *args, **kwargs):
        """Run the kernel under the Autograd keys (what an autograd kernel calls for the real work)."""
        return self.call_below(args, kwargs)

    cdef object call_below(self, tuple args, dict kwargs):
        cdef uint64_t ks = _call_key_set(args, kwargs) & ~AUTOGRAD_BITS
        kernel = _resolve(self, _or_default_backend(ks, kwargs))
        enter_below_autograd()
        try:
            return kernel(*args, **kwargs)
        finally:
            exit_below_autograd()

    def call_below_forward_ad(self, *args, **kwargs):
        """Run the op under the ForwardAD key (what a forward-AD kernel calls for the primal value): the
        ops it makes on the way compute no tangents."""
        global ember_below_forward_ad
        cdef uint64_t ks = _call_key_set(args, kwargs) & ~FORWARD_AD_BIT
        kernel = _resolve(self, _or_default_backend(ks, kwargs))
        ember_below_forward_ad += 1
        try:
            return kernel(*args, **kwargs)
        finally:
            ember_below_forward_ad -= 1

    def __repr__(self):
        return f"<OperatorHandle {_qualified(self.name)}>"


cdef object _resolve(OperatorHandle self, uint64_t ks):
    """The kernel a call with key set ks runs: the highest key's, past fallthroughs."""
    cdef int k
    cdef uint64_t autocast = autocast_keys()
    if ks & AUTOGRAD_BITS and (below_autograd() or not grad_enabled()):
        ks &= ~AUTOGRAD_BITS     # no_grad, or inside an autograd kernel's call below autograd
    if ks & FORWARD_AD_BIT and ember_below_forward_ad:
        ks &= ~FORWARD_AD_BIT
    if ks == 0:
        ks = (<uint64_t>1) << DK_CPU
    if ember_tls_keys:
        ks |= ember_tls_keys
    if autocast:
        # The Autocast key of each backend the call's tensors are on, where autocast is enabled.
        ks |= ((ks & BACKEND_BITS) << (DK_AUTOCAST_CPU - DK_CPU)) & autocast
    while True:
        if ks == 0:
            raise RuntimeError(f"{_qualified(self.name)}: every kernel of the call's dispatch keys falls through")
        k = 63 - __builtin_clzll(ks)
        if k >= NUM_RUNTIME_KEYS:
            raise RuntimeError(f"{_qualified(self.name)}: unknown dispatch key bit {k}")
        kernel = self.table[k]
        if kernel is FALLTHROUGH:
            ks &= ~((<uint64_t>1) << k)
            continue
        break
    if kernel is None:
        qualified = _qualified(self.name)
        raise NotImplementedError(
            f"Could not run '{qualified}' with arguments from the '{_KEY_NAMES[k]}' backend. "
            "This could be because the operator doesn't exist for this backend, or was omitted during the "
            f"selective/custom build process (if using custom build). '{qualified}' is only available for "
            f"these backends: [{', '.join(_KEY_NAMES[r] for r in sorted(self.registered))}].")
    if type(kernel) is LazyKernel:
        lazy = kernel
        kernel = (<LazyKernel>lazy).resolve()
        for i in range(NUM_RUNTIME_KEYS):
            if self.table[i] is lazy:
                self.table[i] = kernel
        for key, value in list(self.registered.items()):
            if value is lazy:
                self.registered[key] = kernel
    if _trace:
        sys.stderr.write(f"[call] op=[{_qualified(self.name)}], key=[{_KEY_NAMES[k]}]\n")
    return kernel


cdef list _parameters(str schema):
    """(position, type text, name) of each argument of a schema, keyword-only ones counted in order."""
    cdef list found = []
    text = schema[schema.index("(") + 1:schema.rindex(") -> ")]
    if "[" in text and "=[" in text:    # a list default ("int[] size=[1, 2]"): split outside brackets
        parts = [p.strip() for p in re.split(r",(?![^\[]*\])", text)]
    else:
        parts = text.split(", ") if text else []
    for part in parts:
        if part != "*":
            type_text, name = part.split("=", 1)[0].rsplit(" ", 1)
            found.append((len(found), type_text, name))
    return found


cdef dict _tensor_params(str schema):
    """Positions of the plain Tensor (or Tensor?) arguments of a schema, by name."""
    return {name: position for position, type_text, name in _parameters(schema)
            if type_text.startswith("Tensor") and not type_text.endswith("[]")}


cdef tuple _written_and_read_params(str schema):
    """(position, name) of each Tensor(x!) argument, and of each other Tensor, Tensor? or Tensor[]
    argument."""
    cdef list written = [], read = []
    for position, type_text, name in _parameters(schema):
        if type_text.startswith("Tensor"):
            (written if "!" in type_text else read).append((position, name))
    return written, read


cdef CheckedWrite _checked(object kernel, WriteChecks checks):
    cdef CheckedWrite checked = CheckedWrite.__new__(CheckedWrite)
    checked.kernel = kernel
    checked.checks = checks
    return checked


cdef tuple _wrap_numbers(dict tensor_params, tuple args, dict kwargs):
    cdef list new_args = list(args)
    for name, position in tensor_params.items():
        if position < len(new_args):
            if isinstance(new_args[position], (bool, int, float, complex)):
                new_args[position] = wrap_number(new_args[position])
        elif name in kwargs and isinstance(kwargs[name], (bool, int, float, complex)):
            kwargs = dict(kwargs)
            kwargs[name] = wrap_number(kwargs[name])
    return tuple(new_args), kwargs


def define(str schema, bint inplace_view=False):
    """Declare an operator from its schema text; returns its handle.

    aten's operators are named without their namespace ("add.Tensor"); others with it
    ("myops::op.overload"), as torch.library defines them. inplace_view: the schema's tag of ops
    that change only a tensor's geometry (t_, resize_)."""
    name = schema.split("(", 1)[0]
    if name.startswith("aten::"):
        name = name[6:]
        schema = schema[6:]
    if name in _operators:
        raise RuntimeError(f"operator {_qualified(name)} is defined twice")
    global _generation
    handle = OperatorHandle(name, schema, inplace_view)
    _operators[name] = handle
    _generation += 1
    return handle


def undefine(str name):
    """Remove an operator (torch.library's Library._destroy); calls through old handles keep working."""
    if name.startswith("aten::"):
        name = name[6:]
    if name not in _operators:
        raise RuntimeError(f"No such operator {_qualified(name)}")
    global _generation
    del _operators[name]
    _generation += 1
    for key in [key for key in _shadowed if key[0] == name]:
        del _shadowed[key]


def register_kernel(str name, key, kernel):
    find_operator(name).register(key, kernel)


def register_lazy(str name, key, str module, str attr, bint opmath=False, dict storage=None, tuple mixed=()):
    """Register module.attr (imported on the first call) at key. opmath: the schema's ember_opmath
    names this backend, whose kernel computes reduced-precision floating dtypes in float32 and
    rounds once; storage: the schema's ember_storage_dtypes, how the kernel serves float8 and
    uint16/32/64 operands; mixed: its ember_opmath_mixed, (params, float_results), the float32
    operands a mixed-type call has and the results it keeps in float32 (aten/native/meta/opmath.pyx)."""
    kernel = LazyKernel(module, attr)
    cdef tuple mixed_at = ()
    if mixed:
        mixed_at = tuple([p[0] for p in _parameters(find_operator(name).schema) if p[2] in mixed[0]])
    if opmath or storage:
        accumulate_at = -1
        if storage and storage.get("float8") == "bits":     # only the bits mode reads it
            accumulate_at = next((p[0] for p in _parameters(find_operator(name).schema)
                                  if p[2] == "accumulate" and p[1] == "bool"), -1)
        kernel = ComputeInOpmath(kernel, find_operator("_to_copy").call_below_autograd,
                                 find_operator("copy_").call_below_autograd,
                                 find_operator("resize_").call_below_autograd,
                                 f"{name.split('.')[0]}_{_label_suffix(key)}", opmath,
                                 bitwise_xor=find_operator("bitwise_xor.Tensor"),
                                 view_dtype=find_operator("view.dtype").call_below_autograd,
                                 accumulate_at=accumulate_at, mixed_at=mixed_at,
                                 mixed_names=tuple(mixed[0]) if mixed else (),
                                 float_results=tuple(mixed[1]) if mixed else (), **(storage or {}))
    find_operator(name).register(key, kernel)


cdef str _label_suffix(key):
    """The backend PyTorch's dtype errors name after the op: "sum_cpu", "sum_cuda"."""
    k = DispatchKey(key)
    return "cuda" if k == DispatchKey.CUDA else "cpu"


_KINDS = {"Tensor": 1, "Tensor?": 2, "Tensor[]": 3}


def parameters_of(str name):
    """(names, kinds) of an operator's parameters, as AutocastKernel reads its arguments."""
    params = _parameters(find_operator(name).schema)
    return (tuple(p[2] for p in params),
            tuple(_KINDS.get(re.sub(r"\(\w+!?\)", "", p[1]), 0) for p in params))


def register_autocast(str name, key, str policy, str redispatch=None, tuple defaults=()):
    """Register the Autocast kernel (aten/autocast_mode.pyx) of the schema's `ember_autocast` policy
    at key (AutocastCPU or AutocastCUDA). fp32_append_dtype names the overload that takes a dtype, and
    the defaults of the operator's parameters to fill in before calling it."""
    handle = find_operator(name)
    names, kinds = parameters_of(name)
    device_type = 1 if DispatchKey(key) == DispatchKey.AutocastCUDA else 0
    kernel = AutocastKernel(handle, policy, device_type, find_operator("_to_copy"), names, kinds,
                            find_operator(redispatch) if redispatch else None, defaults,
                            BANNED_MESSAGES.get(name.split(".")[0], ""))
    handle.register(key, kernel)


cpdef OperatorHandle find_operator(str name):
    try:
        return <OperatorHandle>_operators[name]
    except KeyError:
        if name.startswith("aten::") and name[6:] in _operators:
            return <OperatorHandle>_operators[name[6:]]
        raise RuntimeError(f"No such operator {_qualified(name)}") from None


def has_operator(str name):
    return name in _operators or (name.startswith("aten::") and name[6:] in _operators)


def operator_names():
    return sorted(_operators)



def defined_names():
    """Operator names in definition order (the order torch.ops lists a packet's overloads in)."""
    return list(_operators)


def definitions_generation():
    """A number that changes whenever an operator is defined or undefined (for caches of defined_names)."""
    return _generation


cdef uint64_t _union_keys(object values) except? 0xFFFFFFFFFFFFFFFF:
    """The union of the dispatch key sets of values' tensors (and of tensors inside lists and tuples)."""
    cdef uint64_t ks = 0
    for a in values:
        if isinstance(a, TensorImpl):
            ks |= (<TensorImpl>a).key_set
        elif isinstance(a, (list, tuple)):
            for e in a:
                if isinstance(e, TensorImpl):
                    ks |= (<TensorImpl>e).key_set
    return ks


cdef inline uint64_t _call_key_set(tuple args, dict kwargs) except? 0xFFFFFFFFFFFFFFFF:
    cdef uint64_t ks = _union_keys(args)
    for a in kwargs.values():
        if isinstance(a, TensorImpl):
            ks |= (<TensorImpl>a).key_set
    return ks


cdef inline uint64_t _or_default_backend(uint64_t ks, dict kwargs) except? 0xFFFFFFFFFFFFFFFF:
    """A call with no tensors runs on the `device` argument's backend (CPU by default)."""
    if ks != 0:
        return ks
    dev = kwargs.get("device")
    return (<uint64_t>1) << (DK_CUDA if dev is not None and dev.type == "cuda" else DK_CPU)


def keys_of(values):
    """_union_keys for Python callers (torch.library's user operators)."""
    return _union_keys(values)
