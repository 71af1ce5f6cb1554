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
import sys

from libc.stdint cimport uint64_t
from c10.dispatch_key cimport (DK_CPU, DK_CUDA, DK_BACKEND_SELECT, DK_AD_INPLACE_OR_VIEW,
                               DK_AUTOGRAD_OTHER, DK_AUTOGRAD_CPU, DK_AUTOGRAD_CUDA, NUM_RUNTIME_KEYS)
from c10.tensor_impl cimport TensorImpl, wrap_number

from c10.dispatch_key import DispatchKey

cdef extern from *:
    int __builtin_clzll(unsigned long long) nogil

cdef dict _operators = {}
cdef bint _trace = os.environ.get("TORCH_SHOW_DISPATCH_TRACE", "") not in ("", "0")


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


cdef class OperatorHandle:
    """One operator overload (aten::name.overload) and its kernels."""

    def __init__(self, str name, str schema):
        self.name = name
        self.schema = schema
        self.table = [None] * NUM_RUNTIME_KEYS
        self.registered = {}
        self.tensor_params = _tensor_params(schema)
        self.rebuild_table()

    def register(self, key, kernel):
        """Register kernel (callable or LazyKernel) at a runtime or alias DispatchKey."""
        k = int(DispatchKey(key))
        if k in self.registered:
            raise RuntimeError(f"aten::{self.name} already has a kernel for dispatch key {DispatchKey(k).name}")
        self.registered[k] = kernel
        self.rebuild_table()

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
            elif kernel is None and (k == DK_BACKEND_SELECT or k == DK_AD_INPLACE_OR_VIEW):
                kernel = FALLTHROUGH
            self.table[k] = kernel

    cdef object lookup(self, uint64_t ks):
        cdef int k
        if ks == 0:
            ks = (<uint64_t>1) << DK_CPU
        while True:
            if ks == 0:
                raise RuntimeError(f"aten::{self.name}: every kernel of the call's dispatch keys falls through")
            k = 63 - __builtin_clzll(ks)
            if k >= NUM_RUNTIME_KEYS:
                raise RuntimeError(f"aten::{self.name}: unknown dispatch key bit {k}")
            kernel = self.table[k]
            if kernel is FALLTHROUGH:
                ks &= ~((<uint64_t>1) << k)
                continue
            break
        if kernel is None:
            raise NotImplementedError(
                f"Could not run 'aten::{self.name}' with arguments from the '{_KEY_NAMES[k]}' backend. "
                f"'aten::{self.name}' is only available for these backends: "
                f"[{', '.join(_KEY_NAMES[r] for r in sorted(self.registered))}].")
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
            sys.stderr.write(f"[call] op=[aten::{self.name}], key=[{_KEY_NAMES[k]}]\n")
        return kernel

    def kernel_for(self, uint64_t ks):
        """The kernel a call with key set ks runs (for tests and the dispatch trace)."""
        return self.lookup(ks)

    def __call__(self, *args, **kwargs):
        """Call with the key set taken from the tensor arguments (or the `device` argument).

        As PyTorch's torch.ops, a Python number passed for a Tensor argument is wrapped."""
        cdef uint64_t ks = 0
        if self.tensor_params:
            args, kwargs = _wrap_numbers(self.tensor_params, args, kwargs)
        for a in args:
            if isinstance(a, TensorImpl):
                ks |= (<TensorImpl>a).key_set
            elif isinstance(a, (list, tuple)):
                for e in a:
                    if isinstance(e, TensorImpl):
                        ks |= (<TensorImpl>e).key_set
        for a in kwargs.values():
            if isinstance(a, TensorImpl):
                ks |= (<TensorImpl>a).key_set
        if ks == 0:
            dev = kwargs.get("device")
            ks = (<uint64_t>1) << (DK_CUDA if dev is not None and dev.type == "cuda" else DK_CPU)
        return self.lookup(ks)(*args, **kwargs)

    def __repr__(self):
        return f"<OperatorHandle aten::{self.name}>"


cdef dict _tensor_params(str schema):
    """Positions of the plain Tensor (or Tensor?) arguments of a schema, by name."""
    cdef dict found = {}
    text = schema[schema.index("(") + 1:schema.rindex(") -> ")]
    position = 0
    for part in text.split(", ") if text else []:
        if part == "*":
            continue
        declaration = part.split("=", 1)[0]
        type_text, name = declaration.rsplit(" ", 1)
        if type_text.startswith("Tensor") and not type_text.endswith("[]"):
            found[name] = position
        position += 1
    return found


cdef tuple _wrap_numbers(dict tensor_params, tuple args, dict kwargs):
    cdef list new_args = list(args)
    for name, position in tensor_params.items():
        if position < len(new_args):
            if isinstance(new_args[position], (bool, int, float)):
                new_args[position] = wrap_number(new_args[position])
        elif name in kwargs and isinstance(kwargs[name], (bool, int, float)):
            kwargs = dict(kwargs)
            kwargs[name] = wrap_number(kwargs[name])
    return tuple(new_args), kwargs


def define(str schema):
    """Declare an operator from its schema text; returns its handle."""
    name = schema.split("(", 1)[0]
    if name in _operators:
        raise RuntimeError(f"operator aten::{name} is defined twice")
    handle = OperatorHandle(name, schema)
    _operators[name] = handle
    return handle


def register_kernel(str name, key, kernel):
    find_operator(name).register(key, kernel)


def register_lazy(str name, key, str module, str attr):
    find_operator(name).register(key, LazyKernel(module, attr))


cpdef OperatorHandle find_operator(str name):
    try:
        return <OperatorHandle>_operators[name]
    except KeyError:
        raise RuntimeError(f"No such operator aten::{name}") from None


def has_operator(str name):
    return name in _operators


def operator_names():
    return sorted(_operators)

