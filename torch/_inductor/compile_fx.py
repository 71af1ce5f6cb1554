"""compile_fx: a captured graph compiled into a Python function that runs fused kernels.

The graph's fusible pointwise nodes are grouped (scheduler.plan), each group becomes one C kernel
(codegen_c), the kernels of the graph are compiled together into one library (codecache), and the graph
becomes a generated Python function: each kernel called where its last member was, on buffers laid out
as eager's results were, every other node calling its operator as the graph did (through the
dispatcher, so autograd, views and Ember's own kernels are as eager). TORCH_LOGS=output_code prints the
function and the C source."""
from __future__ import annotations

import ctypes
import logging
import operator
from typing import Any, Callable

import torch
from torch import _logging
from torch._inductor import codecache, codegen_cuda, config, epilogues
from torch._inductor.codegen_c import module_source
from torch._inductor.memory import plan_reuse
from torch._inductor.scheduler import FusedGroup, left_unfused, plan
from torch._inductor.views import View, reinterpretable_views
from aten.native.cpu.linalg import mm_epilogue_cpu
from aten.native.meta import views as _meta_views

__all__ = ["compile_fx"]

_SIMPLE = (int, float, bool, str, type(None))
_warned_modes: set[str] = set()


class _Wrapper:
    """The generated Python function's source and the globals it reads."""

    def __init__(self, graph_module: Any, groups: list[FusedGroup], library: Any, cuda_module: Any,
                 recorded: set[Any], values: dict[str, list[int]], views: dict[Any, View]) -> None:
        self.graph_module = graph_module
        self.groups = groups
        self.library = library
        self.values = values
        self.cuda_module = cuda_module
        self.globals: dict[str, Any] = {"_empty_strided": torch.empty_strided, "_threads": torch.get_num_threads,
                                        "_as_strided": _meta_views.as_strided, "_mm_epilogue": mm_epilogue_cpu}
        self.lines: list[str] = []
        self.group_at: dict[Any, FusedGroup] = {g.members[-1]: g for g in groups}
        self.fused = {m for g in groups for m in g.members}
        self.recorded = recorded
        self.donors: dict[Any, Any] = {}
        self.views = views
        # views something other than a kernel, another view or an unread view operator reads: made as tensors
        self.materialized = {n for n in self.views if any(u not in self.views and u not in self.fused
                                                          and not self.unread(u) for u in n.users)}
        # a matmul computed where its epilogue's kernel runs (epilogues), and the views of it made as tensors
        # before that place, made right after it instead
        self.moved: dict[Any, Any] = {}
        order = {node: i for i, node in enumerate(graph_module.graph.nodes)}
        for group in groups:
            if group.epilogue_of is not None:
                self.moved[group.epilogue_of] = group.members[-1]
                self.moved.update({n: group.members[-1] for n in self.materialized if self.views[n].root is
                                   group.epilogue_of and order[n] < order[group.members[-1]]})

    def value(self, item: Any) -> str:
        if isinstance(item, torch.fx.Node):
            return item.name
        if isinstance(item, (list, tuple)):
            inner = ", ".join(self.value(i) for i in item)
            return f"[{inner}]" if isinstance(item, list) else f"({inner}{',' if len(item) == 1 else ''})"
        if isinstance(item, _SIMPLE) and (not isinstance(item, float) or item == item and abs(item) != float("inf")):
            return repr(item)
        return self.constant(item)

    def constant(self, item: Any) -> str:
        name = f"_c{len(self.globals)}"
        self.globals[name] = item
        return name

    def kernel_call(self, group: FusedGroup) -> None:
        for member in group.stores:
            donor = self.donors.get(member)
            if donor is not None:       # a dead buffer of this layout (memory.plan_reuse)
                self.lines.append(f"    {member.name} = {donor.name}; {donor.name} = None")
                continue
            shape, stride, dtype, device, _ = member.meta["example"]
            self.lines.append(f"    {member.name} = _empty_strided({shape!r}, {stride!r}, dtype={self.constant(dtype)}"
                              + (f", device={self.constant(device)})" if device.type != "cpu" else ")"))
        if group.device.type == "cuda":
            self.cuda_call(group)
            return
        if group.epilogue_of is not None:
            self.epilogue_call(group)
            return
        function = getattr(self.library, group.name)
        generic = group.name in self.values
        pointers = [self.pointer(n) for n in [*group.loads, *group.stores]]
        nll = group.loss[1] if group.loss is not None else None
        if nll is not None and nll.reduction != 0:     # the rows' losses, summed by the kernel after them
            float32 = self.constant(torch.float32)
            self.lines.append(f"    _losses = _empty_strided(({group.shape[0]},), (1,), dtype={float32})")
            pointers.append("_losses.data_ptr()")
        function.argtypes = [ctypes.c_void_p] * (len(pointers) + generic) + [ctypes.c_int]
        function.restype = ctypes.c_longlong if nll is not None else None
        handle = f"_{group.name}"
        self.globals[handle] = function
        if generic:         # the sizes and strides its source reads from n: one array, made here, passed by address
            values = self.values[group.name]
            array = self.globals[f"_n{group.name}"] = (ctypes.c_long * max(len(values), 1))(*values)
            pointers.append(f"{ctypes.addressof(array)}")
        call = f"{handle}({', '.join(pointers)}, _threads())  # {', '.join(m.name for m in group.members)}"
        if nll is None:
            self.lines.append(f"    {call}")
            return
        # the kernel answers the first class out of range (ignore_index when there is none), checked before it
        # writes anything
        self.lines += [f"    _bad = {call}", f"    if _bad != {nll.ignore_index}:",
                       "        raise IndexError(f'Target {_bad} is out of bounds.')"]

    def epilogue_call(self, group: FusedGroup) -> None:
        """The product computed with the group's kernel run inside it (epilogues), then the views of the product
        made as tensors that were waiting for it."""
        product = group.epilogue_of
        shape, stride, dtype, _, _ = product.meta["example"]
        self.lines.append(f"    {product.name} = _empty_strided({shape!r}, {stride!r}, dtype={self.constant(dtype)})")
        function = getattr(self.library, group.name)
        pointers = [self.pointer(n) for n in [*group.loads, *group.stores]]
        if group.name in self.values:
            values = self.values[group.name]
            array = self.globals[f"_n{group.name}"] = (ctypes.c_long * max(len(values), 1))(*values)
            pointers.append(f"{ctypes.addressof(array)}")
        self.globals[f"_{group.name}"] = function       # (holds the library, and so the address, alive)
        self.globals[f"_{group.name}_at"] = ctypes.cast(function, ctypes.c_void_p).value
        addend, mat1, mat2, beta, alpha = (self.value(a) for a in epilogues.product_arguments(product))
        self.lines.append(f"    _mm_epilogue({product.name}, {addend}, {mat1}, {mat2}, {beta}, {alpha}, "
                          f"_{group.name}_at, ({', '.join(pointers)},))"
                          f"  # {product.name}, {', '.join(m.name for m in group.members)}")
        for node in self.graph_module.graph.nodes:
            if node in self.views and self.moved.get(node) is group.members[-1]:
                self.view(node)

    def pointer(self, node: Any) -> str:
        """The address of node's first element (a view's: its root's, at the view's offset)."""
        view = self.views.get(node)
        if view is None:
            return f"{node.name}.data_ptr()"
        offset = view.delta * node.meta["example"][2].itemsize
        return f"{view.root.name}.data_ptr()" + (f" + {offset}" if offset else "")

    def view(self, node: Any) -> None:
        view = self.views[node]
        offset = f"{view.root.name}.storage_offset()" + (f" + {view.delta}" if view.delta else "")
        self.lines.append(f"    {node.name} = _as_strided({view.root.name}, {view.size!r}, {view.stride!r}, {offset})"
                          f"  # {node.target}")

    def unread(self, node: Any) -> bool:
        """A view operator whose result nothing reads (its pieces, say, are made from the root), unless it is the
        root its users' views are made from (view_as_real, whose dtype differs from its input's)."""
        schema = getattr(node.target, "_schema", None)
        aliases = schema is not None and len(schema.returns) == 1 and bool(schema.returns[0].alias) \
            and not schema.returns[0].is_write
        return aliases and all(u in self.views and self.views[u].root is not node for u in node.users)

    def cuda_call(self, group: FusedGroup) -> None:
        """A GPU kernel launched over the group's elements (a grid-stride loop; nothing to launch for none)."""
        from aten.native.cuda.runtime.launch import MAX_BLOCKS, grid_for
        numel = codegen_cuda.launch_count(group)
        if numel == 0:
            return
        function = self.cuda_module.get_function(group.name)
        sizes = self.values.get(group.name, [])         # a generic kernel's, after the pointers
        function.prepare("q" + "P" * (len(group.loads) + len(group.stores)) + "q" * len(sizes))
        if group.rows:          # a block per row
            grid, block = (min(numel, MAX_BLOCKS), 1, 1), (codegen_cuda.row_threads(group), 1, 1)
        else:
            grid, block = grid_for(numel)
        handle = f"_{group.name}"
        self.globals[handle] = function.prepared_call
        pointers = ", ".join([*(self.pointer(n) for n in [*group.loads, *group.stores]), *map(str, sizes)])
        self.lines.append(f"    {handle}({grid!r}, {block!r}, {numel}, {pointers})"
                          f"  # {', '.join(m.name for m in group.members)}")

    def build(self) -> str:
        graph = self.graph_module.graph
        placeholders = [n.name for n in graph.nodes if n.op == "placeholder"]
        self.lines.append(f"def call({', '.join(placeholders)}):")
        last_use, last_read = _last_uses(graph, self.group_at, self.fused, self.views, self.materialized, self.moved)
        self.donors = {} if self.recorded else plan_reuse(graph, self.groups, self.views, last_read)
        given = set(self.donors.values())       # freed where a later kernel takes them
        for node in graph.nodes:
            if node.op == "get_attr":
                constant = self.constant(operator.attrgetter(node.target)(self.graph_module))
                self.lines.append(f"    {node.name} = {constant}")
            elif node.op == "call_function":
                if node in self.group_at:
                    self.kernel_call(self.group_at[node])
                elif node in self.moved:
                    pass            # made at its epilogue's place
                elif node in self.views:
                    if node in self.materialized:
                        self.view(node)
                elif node not in self.fused and not self.unread(node):
                    args = [self.value(a) for a in node.args]
                    args += [f"{k}={self.value(v)}" for k, v in node.kwargs.items()]
                    call = f"{self.constant(node.target)}({', '.join(args)})"
                    self.lines.append(f"    {node.name} = {call}  # {node.target}")
            elif node.op == "output":
                self.lines.append(f"    return {self.value(node.args[0])}")
            freed = [n.name for n in last_use.get(node, ()) if n not in given]
            if freed and node.op != "output":
                self.lines.append(f"    {' = '.join(freed)} = None")
        return "\n".join(self.lines) + "\n"


def _last_uses(graph: Any, group_at: dict[Any, FusedGroup], fused: set[Any], views: dict[Any, View],
               materialized: set[Any], moved: dict[Any, Any]) -> tuple[dict[Any, list[Any]], dict[Any, Any]]:
    """Per position (a node, or a group's last member), the values read there for the last time (a kernel's
    read of a view reads its root; a view made as a tensor reads its root where it is made; a node `moved` reads
    at its new place); and per value, that position."""
    order = {node: i for i, node in enumerate(graph.nodes)}
    position: dict[Any, Any] = {}

    def read_at(value: Any, at: Any) -> None:
        if value not in position or order[at] > order[position[value]]:
            position[value] = at

    for node in graph.nodes:
        if node in views:
            if node in materialized:
                read_at(views[node].root, moved.get(node, node))
        elif node not in fused:
            for used in node.all_input_nodes:
                read_at(used, moved.get(node, node))
    for last, group in group_at.items():
        for load in group.loads:
            read_at(views[load].root if load in views else load, last)
    stored = {s for g in group_at.values() for s in g.stores}
    freed: dict[Any, list[Any]] = {}
    for value, at in position.items():
        made = value not in views or value in materialized
        if value.op != "placeholder" and made and (value not in fused or value in stored):
            freed.setdefault(at, []).append(value)
    return freed, position


def compile_fx(graph_module: Any, example_inputs: list[Any], *, mode: str | None = None,
               options: dict[str, Any] | None = None, dynamic: bool = False) -> Callable[..., Any]:
    """The graph compiled: fused kernels and Ember's operators, as one generated function. dynamic: the graph is
    one of a function's captures at sizes that vary, its CPU kernels made generic in them (codegen_common.Values), so
    that the captures at other sizes reuse the compiled library."""
    options = options or {}
    config.check_options(options)
    if mode in ("reduce-overhead", "max-autotune") and mode not in _warned_modes:
        _warned_modes.add(mode)
        logging.getLogger("torch._inductor").warning(
            "torch.compile(mode=%r): Ember's compiler has no CUDA-graph replay or autotuning yet; the graph is "
            "compiled as mode='default'", mode)
    recorded = left_unfused(graph_module.graph, torch.is_grad_enabled())
    groups = plan(graph_module.graph, recorded)
    if not groups:
        return graph_module.forward
    fused = {m for g in groups for m in g.members}
    views = {n: v for n, v in reinterpretable_views(graph_module.graph, recorded).items() if n not in fused}
    if options.get("epilogue_fusion", config.epilogue_fusion):
        epilogues.attach(graph_module.graph, groups, recorded, views)
    grain = int(options.get("parallel_grain", config.parallel_grain))
    cpu_groups = [g for g in groups if g.device.type == "cpu"]
    cuda_groups = [g for g in groups if g.device.type == "cuda"]
    source, values = module_source(cpu_groups, grain, dynamic) if cpu_groups else ("", {})
    cuda_source, cuda_values = codegen_cuda.module_source(cuda_groups, dynamic) if cuda_groups else ("", {})
    library = codecache.load_library(source) if cpu_groups else None
    cuda_module = codecache.load_cuda_module(cuda_source) if cuda_groups else None
    wrapper = _Wrapper(graph_module, groups, library, cuda_module, recorded, {**values, **cuda_values}, views)
    code = wrapper.build()
    _logging.log_artifact("output_code", f"Output code:\n{code}\n{source}{cuda_source}")
    namespace = dict(wrapper.globals)
    exec(compile(code, f"<inductor {id(graph_module):x}>", "exec"), namespace)
    call = namespace["call"]
    setattr(call, "_inductor_source", source + cuda_source)
    setattr(call, "_inductor_wrapper", code)
    setattr(call, "_inductor_groups", groups)
    return call

