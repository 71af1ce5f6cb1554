"""DistributedDataParallel: a module replicated over a process group's ranks, as PyTorch's. At construction
rank 0's parameters and buffers are broadcast to the others; the parameters are grouped into buckets (laid
out as PyTorch 2.13's reducer lays them out, and again in the order the first backward made their gradients
ready: torch/nn/parallel/_buckets.py), and as soon as every gradient of a bucket has been accumulated, the
bucket is flattened and all-reduced without blocking, while backward goes on. When backward ends (an engine
callback) the reductions are waited for and each gradient becomes the average over the ranks.

no_sync() accumulates gradients locally: the next synchronised backward reduces the sums. With
find_unused_parameters=True, parameters the forward did not reach are found from its outputs' graph and their
buckets do not wait for them (they contribute zeros); a parameter no rank used keeps its gradient as it was.
forward_sync_buffers (broadcast_buffers before PyTorch 2.13) sends rank 0's buffers before each forward whose previous
forward's backward was reduced. gradient_as_bucket_view makes each .grad a view
of its bucket. The state_dict's keys are the module's under `module.`.

Uneven inputs: inside `with model.join():` (or Join([model, ...])) a rank that runs out of batches shadows the
others' collectives of each iteration with zeros (_JoinHook) until all have joined; the last to join then
broadcasts its parameters and buffers, so every rank ends with the same model."""
from __future__ import annotations

import contextlib
import inspect
import warnings
from typing import Any, Iterator

import torch
from torch.nn.modules.module import Module
from torch.nn.parallel._buckets import Bucket, BucketLayout

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                 broadcast_buffers: bool | None = None, init_sync: bool = True, process_group: Any = None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params: Any = None, param_to_hook_all_reduce: Any = None,
                 mixed_precision: Any = None, device_mesh: Any = None,
                 skip_all_reduce_unused_params: bool = False, bucket_cap_mb_list: list[float] | None = None,
                 batched_grad_copy: bool = False, forward_sync_buffers: bool | None = None) -> None:
        super().__init__()
        import torch.distributed as dist
        from torch.distributed.algorithms.join import _JoinConfig
        from torch.distributed.distributed_c10d import _get_default_group
        if device_mesh is not None:
            raise ValueError("DistributedDataParallel: device_mesh needs DTensor, which Ember does not have")
        self.module = module
        self.process_group = process_group if process_group is not None else _get_default_group()
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        if broadcast_buffers is not None:
            warnings.warn("Both `broadcast_buffers` and `forward_sync_buffers` were specified. `broadcast_buffers` is "
                          "deprecated and its value is ignored when `forward_sync_buffers` is provided."
                          if forward_sync_buffers is not None else
                          "`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. IMPORTANT: unlike "
                          "`broadcast_buffers=False`, `forward_sync_buffers=False` still syncs buffers at init. If you "
                          "rely on buffers NOT being synced at init (e.g. rank-local buffers), keep using "
                          "`broadcast_buffers=False` until `init_sync_buffers` is available.", FutureWarning,
                          stacklevel=2)
        # forward_sync_buffers: rank 0's buffers before each forward; buffers at construction unless the program
        # said broadcast_buffers=False (rank-local buffers), as PyTorch 2.13 splits the two
        self.forward_sync_buffers = forward_sync_buffers if forward_sync_buffers is not None else \
            broadcast_buffers is not False
        self._init_sync_buffers = forward_sync_buffers is not None or broadcast_buffers is not False
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self._layout = BucketLayout.of(bucket_cap_mb, bucket_cap_mb_list, find_unused_parameters, static_graph)
        self.bucket_bytes_cap = self._layout.bucket_bytes_cap
        self.bucket_bytes_cap_list = list(self._layout.bucket_bytes_cap_list)
        self.batched_grad_copy = batched_grad_copy     # (a GPU launch saving: gradients are copied per bucket here)
        self._dist = dist
        self._source = dist.get_global_rank(self.process_group, 0)
        self._params = list(dict.fromkeys(p for p in module.parameters() if p.requires_grad))
        if any(p.device.type != "cpu" for p in self._params):
            raise RuntimeError("DistributedDataParallel: Ember's engine (MPI) carries CPU tensors; NCCL, for CUDA "
                               "parameters, is not in this build")
        if init_sync:
            self._sync_module_states(buffers=self._init_sync_buffers)
        self._set_buckets(self._layout.first(self._params))
        self._reducing_backwards = 0    # backwards that reduced gradients, until the buckets are laid out again
        self._ready: list[int] | None = [] if self._layout.rebuilds else None    # their order, recorded once
        self._index = {id(p): i for i, p in enumerate(self._params)}
        self._handles = [p.register_post_accumulate_grad_hook(self._grad_ready) for p in self._params]
        self._armed = False         # a forward that needs its backward reduced ran
        self._queued = False
        self._next = 0              # the first bucket not yet reduced
        self._unfinished = False    # the last backward left buckets unreduced
        self._used: set[int] = set()
        self._join_config = _JoinConfig.construct_disabled_join_config()
        self._divide_by_initial_world_size = True
        self._join_count: Any = None    # this iteration's all-reduce counting the ranks not joined
        self._comm_hook: tuple[Any, Any] | None = None      # (state, hook) of register_comm_hook

    # -- construction ---------------------------------------------------------------------------------------------
    @property
    def broadcast_buffers(self) -> bool:
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value: bool) -> None:
        self.forward_sync_buffers = value

    def _sync_module_states(self, source: int | None = None, buffers: bool = True) -> None:
        """The parameters, and the buffers when asked, of source (rank 0 by default) on every rank."""
        with torch.no_grad():
            for t in [*self.module.parameters(), *(self.module.buffers() if buffers else ())]:
                self._dist.broadcast(t.data, src=self._source if source is None else source,
                                     group=self.process_group)

    def _set_buckets(self, groups: list[list[torch.Tensor]]) -> None:
        self._buckets = [Bucket(group) for group in groups]
        self._bucket_of = {id(p): b for b in self._buckets for p in b.params}

    def _lay_out_again(self) -> None:
        """The buckets laid out in the order the gradients became ready in the recorded backward, the order of a
        rank that saw them all (a rank that joined early saw none), on every rank: an all-reduce that finds one
        and its broadcast, at the same forward on each; as they were if none did."""
        ready, self._ready = self._ready or [], None
        complete = len(ready) == len(self._params)
        source = self._common_rank(active=complete)
        if source < 0:
            return
        order = torch.tensor(ready if complete else [0] * len(self._params), dtype=torch.int64)
        self._dist.broadcast(order, src=source, group=self.process_group)
        self._set_buckets(self._layout.again([self._params[i] for i in order.tolist()]))

    # -- forward --------------------------------------------------------------------------------------------------
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if self._unfinished:
            self._unfinished = False
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
                "participate in calculating loss.")
        joining = self._join_config.enable
        if self._ready is not None and self._reducing_backwards > self._layout.backwards_before_rebuild and \
                torch.is_grad_enabled() and not joining:        # (a joined rank would not take part)
            self._lay_out_again()
        if joining:
            from torch.distributed.algorithms.join import Join
            self._join_count = Join.notify_join_context(self)
        if self._syncs_buffers():
            self._sync_buffers(self._common_rank(active=True) if joining else self._source)
        sync = torch.is_grad_enabled() and self.require_backward_grad_sync
        if joining:
            self._agree_on_backward_sync(sync)
        output = (self.__dict__.get("_module_call") or self.module)(*inputs, **kwargs)
        # a forward whose backward is not reduced (no_sync, no_grad) leaves the next forward's buffers unsent
        self.require_forward_param_sync = sync
        if sync:
            self._arm(output)
        return output

    # torch.compile of this module compiles the module it wraps and calls _run_with (this forward runs eagerly)
    _runs_compiled_module = True

    def _run_with(self, module_call: Any, *inputs: Any, **kwargs: Any) -> Any:
        """This module called (its hooks and forward) with module_call in place of the wrapped module's call."""
        previous = self.__dict__.get("_module_call")
        self.__dict__["_module_call"] = module_call
        try:
            return self(*inputs, **kwargs)
        finally:
            self.__dict__["_module_call"] = previous

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """In place, as Module.compile, of the module it wraps: this forward runs eagerly around it."""
        self.__dict__["_module_call"] = torch.compile(self.module, *args, **kwargs)

    def _syncs_buffers(self) -> bool:
        return self.require_forward_param_sync and self.forward_sync_buffers and self.process_group.size() > 1 and \
            any(True for _ in self.module.buffers())

    def _sync_buffers(self, source: int) -> None:
        with torch.no_grad():
            for b in self.module.buffers():
                self._dist.broadcast(b.data, src=source, group=self.process_group)

    def _common_rank(self, active: bool) -> int:
        """The highest global rank among those that say active (a joined rank takes part without being one)."""
        rank = torch.tensor([self._dist.get_rank() if active else -1], dtype=torch.int64)
        self._dist.all_reduce(rank, op=self._dist.ReduceOp.MAX, group=self.process_group)
        return int(rank.item())

    def _agree_on_backward_sync(self, sync: bool) -> bool:
        """Whether any rank will reduce gradients in this iteration's backward (joined ranks answer no)."""
        flag = torch.tensor([1 if sync else 0], dtype=torch.int64)
        self._dist.all_reduce(flag, group=self.process_group)
        return bool(flag.item())

    def _arm(self, output: Any) -> None:
        """Ready the buckets for the backward of this forward."""
        for bucket in self._buckets:
            bucket.pending, bucket.work = len(bucket.params), None
        self._armed, self._queued, self._next = True, False, 0
        self._used = {id(p) for p in self._params}
        if self.find_unused_parameters:
            self._used = _reached(output)
            for p in self._params:
                if id(p) not in self._used:
                    self._count_ready(p)

    # -- backward -------------------------------------------------------------------------------------------------
    def _grad_ready(self, param: torch.Tensor) -> None:
        if not self._armed or not self.require_backward_grad_sync:
            return
        if self._ready is not None and self._reducing_backwards == self._layout.backwards_before_rebuild:
            self._ready.append(self._index[id(param)])
        if not self._queued:
            self._queued = True
            torch.autograd.Variable._execution_engine.queue_callback(self._finish)
        self._count_ready(param)

    def _count_ready(self, param: torch.Tensor) -> None:
        """One more gradient of its bucket ready: the ready buckets are reduced in their order (every rank
        starts the same reductions in the same order, whichever gradients came first here)."""
        self._bucket_of[id(param)].pending -= 1
        while self._next < len(self._buckets) and self._buckets[self._next].pending == 0:
            self._buckets[self._next].launch(self, self._next, self._used)
            self._next += 1
        for other in self._buckets[:self._next]:    # let the engine move the reductions already started
            other.poll()

    def _finish(self) -> None:
        """At the end of backward: every bucket reduced, the gradients averaged."""
        self._armed = False
        if self._next < len(self._buckets):
            # a parameter got no gradient: the next forward raises PyTorch's error (the reductions started are
            # finished, so that every rank's MPI calls stay matched)
            self._unfinished = True
            for bucket in self._buckets[:self._next]:
                bucket.work.wait()
            return
        self._reducing_backwards += 1
        used_anywhere = self._used_anywhere() if self.find_unused_parameters else None
        size = self.process_group.size()
        if self._join_config.enable and not self._divide_by_initial_world_size and self._join_count is not None:
            size = int(self._join_count.result()[0].item())     # the ranks that took part
        with torch.no_grad():
            for index, bucket in enumerate(self._buckets):
                bucket.reduced(size, index)
                for p, view in zip(bucket.params, bucket.views):
                    if used_anywhere is not None and not used_anywhere[self._index[id(p)]]:
                        continue
                    if self.gradient_as_bucket_view:
                        p.grad = view
                    elif p.grad is None:
                        p.grad = view.clone()
                    else:
                        p.grad.copy_(view)

    def _reduce(self, index: int, buffer: torch.Tensor) -> Any:
        """Start reducing bucket index's flat buffer: the registered communication hook's Future, else a Work."""
        if self._comm_hook is None:
            return self._dist.all_reduce(buffer, group=self.process_group, async_op=True)
        state, hook = self._comm_hook
        bucket = self._buckets[index]
        grad_bucket = self._dist.GradBucket(index, buffer, bucket.views_of(buffer), list(bucket.params),
                                            index == len(self._buckets) - 1)
        return hook(state, grad_bucket)

    def register_comm_hook(self, state: object, hook: Any) -> None:
        """hook(state, bucket: GradBucket) -> Future of the bucket's reduced gradients replaces DDP's all-reduce
        and averaging (torch.distributed.algorithms.ddp_comm_hooks has PyTorch's built-in ones)."""
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        signature = inspect.signature(hook)
        annotation = signature.parameters["bucket"].annotation      # (a KeyError without one, as PyTorch's)
        if annotation is not inspect.Parameter.empty and not isinstance(annotation, str) and \
                annotation is not self._dist.GradBucket:
            raise ValueError("Communication hook: bucket annotation should be dist.GradBucket.")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self._comm_hook = (state, hook)

    def _used_anywhere(self, joined: bool = False) -> list[bool]:
        used = torch.tensor([0 if joined or id(p) not in self._used else 1 for p in self._params], dtype=torch.int64)
        self._dist.all_reduce(used, group=self.process_group)
        return [bool(u) for u in used.tolist()]

    # -- PyTorch's methods ----------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Backwards inside accumulate gradients locally; the first synchronised one reduces the sums."""
        previous, self.require_backward_grad_sync = self.require_backward_grad_sync, False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False) -> Any:
        """The join context manager for uneven inputs over this model (gradients averaged over the initial world
        size, or over the ranks not joined yet when divide_by_initial_world_size=False)."""
        from torch.distributed.algorithms.join import Join
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs: Any) -> _JoinHook:
        self._divide_by_initial_world_size = kwargs.get("divide_by_initial_world_size", True)
        return _JoinHook(self)

    @property
    def join_device(self) -> torch.device:
        return torch.device("cpu")

    @property
    def join_process_group(self) -> Any:
        return self.process_group


class _JoinHook:
    """What a joined rank does for its DistributedDataParallel while the others still train."""

    def __init__(self, ddp: DistributedDataParallel) -> None:
        self.ddp = ddp

    def main_hook(self) -> None:
        """Shadow one iteration of the others: their buffer broadcast, their backward's agreement, then each
        bucket's reduction (with zeros) and the unused-parameter count."""
        ddp = self.ddp
        if ddp._syncs_buffers():
            ddp._sync_buffers(ddp._common_rank(active=False))
        should_sync = ddp._agree_on_backward_sync(False)
        ddp.require_forward_param_sync = should_sync      # as the others' forwards leave it (their no_sync)
        if not should_sync:
            return
        ddp._reducing_backwards += 1        # (the others count it too: they lay their buckets out again alike)
        reductions = [ddp._reduce(i, torch.zeros_like(bucket.buffer)) for i, bucket in enumerate(ddp._buckets)]
        if ddp.find_unused_parameters:      # before the waits, as _finish: a hook's callbacks start collectives
            ddp._used_anywhere(joined=True)
        for reduction in reductions:
            reduction.wait()

    def post_hook(self, is_last_joiner: bool) -> None:
        """Every rank takes the model of the last to join (the one that trained every iteration)."""
        ddp = self.ddp
        ddp._sync_module_states(ddp._common_rank(active=is_last_joiner), buffers=ddp.forward_sync_buffers)


def _reached(output: Any) -> set[int]:
    """The ids of the leaves the autograd graph of output's tensors reaches."""
    from torch.utils._pytree import tree_flatten
    seen: set[int] = set()
    leaves: set[int] = set()
    stack = [t.grad_fn for t in tree_flatten(output)[0] if isinstance(t, torch.Tensor) and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            leaves.add(id(variable))
        stack.extend(fn for fn, _ in node.next_functions)
    return leaves
