"""What the device-mesh, functional-collective and join tests run on each rank (imported by spawned children).
Expected values come from NumPy on the data every rank makes from its own seed; a difference raises."""
from __future__ import annotations

from datetime import timedelta

import numpy as np

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard
from torch.distributed.tensor._utils import compute_local_shape_and_global_offset

from distributed.ranks import Net, batches, train_20_steps


def data(rank: int, shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(200 + rank).integers(-5, 6, shape).astype(np.float32)


def check_meshes(rank: int, size: int) -> None:
    """A (1, size) mesh: "dp" is each rank alone, "tp" all of them; shards and offsets of a (5, 4) tensor."""
    mesh = init_device_mesh("cpu", (1, size), mesh_dim_names=("dp", "tp"))
    assert mesh.shape == (1, size) and mesh.get_coordinate() == (0, rank) and mesh.get_local_rank("tp") == rank
    tp, dp = mesh["tp"], mesh["dp"]
    assert tp.mesh.tolist() == list(range(size)) and dp.mesh.tolist() == [rank] and mesh[("dp", "tp")] is mesh
    assert repr(mesh) == f"DeviceMesh((dp=1, tp={size}), 'cpu', stride=((), 1))" and tp.mesh.dtype == torch.int32
    assert tp.get_group() is dist.group.WORLD and dist.get_world_size(dp.get_group()) == 1
    t = torch.ones(3)
    dist.all_reduce(t, group=dp.get_group())
    assert t.tolist() == [1.0] * 3
    dist.all_reduce(t, group=mesh.get_group("tp"))
    assert t.tolist() == [float(size)] * 3
    rows = -(-5 // size)
    want = np.arange(5)[rank * rows:(rank + 1) * rows]
    shape, offset = compute_local_shape_and_global_offset((5, 4), mesh, [Replicate(), Shard(0)])
    assert shape == (len(want), 4) and offset == ((int(want[0]) if len(want) else 5), 0), (shape, offset)
    try:
        mesh.get_group()
    except RuntimeError as error:
        assert "needs to be specified" in str(error)
    else:
        raise AssertionError("a 2-D mesh gave a group without a dimension")


def check_functional_collectives(rank: int, size: int) -> None:
    """Each returns a new tensor (the input unchanged), for a group given as a mesh, a rank list or a group."""
    mesh = init_device_mesh("cpu", (size,))
    everyone = [data(r, (2, 2 * size)) for r in range(size)]
    mine = torch.from_numpy(everyone[rank].copy())
    before = mine.clone()
    total = funcol.wait_tensor(funcol.all_reduce(mine, "sum", mesh))
    assert np.array_equal(total.numpy(), np.sum(everyone, 0)) and torch.equal(mine, before)
    assert np.array_equal(funcol.all_reduce(mine, "max", list(range(size))).numpy(), np.max(everyone, 0))
    gathered = funcol.all_gather_tensor(mine, 1, dist.group.WORLD)
    assert np.array_equal(gathered.numpy(), np.concatenate(everyone, 1))
    scattered = funcol.reduce_scatter_tensor(mine, "sum", 1, (mesh, 0))
    assert np.array_equal(scattered.numpy(), np.split(np.sum(everyone, 0), size, 1)[rank])
    assert np.array_equal(funcol.broadcast(mine, 0, mesh).numpy(), everyone[0])
    # rank r sends r + 1 + s rows to rank s: uneven splits, and their gradient through the reverse exchange
    sends = [[r + 1 + s for s in range(size)] for r in range(size)]
    rows = [data(10 + r, (sum(sends[r]), 3)) for r in range(size)]
    x = torch.from_numpy(rows[rank].copy()).requires_grad_()
    received = funcol.all_to_all_single_autograd(x, [sends[s][rank] for s in range(size)], sends[rank], mesh)
    starts = [np.cumsum([0] + sends[s])[rank] for s in range(size)]
    want = np.concatenate([rows[s][starts[s]:starts[s] + sends[s][rank]] for s in range(size)])
    assert np.array_equal(received.detach().numpy(), want)
    weight = torch.arange(float(received.numel())).view(received.shape) + rank
    (received * weight).sum().backward()
    # the gradient of each row sent is the weight its receiver gave it
    weights = [np.arange(float(sum(sends[s][r] for s in range(size)) * 3)).reshape(-1, 3) + r for r in range(size)]
    got_from = [np.cumsum([0] + [sends[s][r] for s in range(size)]) for r in range(size)]
    want_grad = np.concatenate([weights[r][got_from[r][rank]:got_from[r][rank] + sends[rank][r]] for r in range(size)])
    assert np.array_equal(x.grad.numpy(), want_grad)


def steps_of(rank: int) -> int:
    """Uneven inputs: rank 0 has 3 batches, rank 1 has 5."""
    return 3 + 2 * rank


def ddp_joins(rank: int, size: int, init_method: str, saved: str, divide_by_initial: bool, hooked: bool) -> None:
    """SGD on this rank's batches inside model.join(): rank 0 runs out first and shadows rank 1's last two steps
    (through the communication hook, when one is registered); both end with the same model (saved by each)."""
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size,
                            timeout=timedelta(seconds=60))
    torch.manual_seed(42 if rank == 0 else 7)
    model = torch.nn.parallel.DistributedDataParallel(Net(), find_unused_parameters=True, bucket_cap_mb=0.0005)
    if hooked:
        from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
        model.register_comm_hook(None, allreduce_hook)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    xs, ys = batches()
    with model.join(divide_by_initial_world_size=divide_by_initial):
        for step in range(steps_of(rank)):
            x, y = xs[step][rank * 8:(rank + 1) * 8], ys[step][rank * 8:(rank + 1) * 8]
            model.module.scale.fill_(1.0 + rank)    # the buffer broadcast before each forward is the last joiner's
            ((model(x) - y) ** 2).mean().backward()
            opt.step()
            opt.zero_grad()
    torch.save(model.module.state_dict(), f"{saved}.{rank}")
    dist.destroy_process_group()


def one_process_joins(divide_by_initial: bool) -> torch.nn.Module:
    """The same training in one process: while both ranks run, the gradient is the average of theirs; then rank
    1's alone, divided by the initial world size (2) or by the ranks still running (1)."""
    torch.manual_seed(42)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    xs, ys = batches()
    for step in range(steps_of(1)):
        running = [r for r in range(2) if step < steps_of(r)]
        model.scale.fill_(1.0 + max(running))
        divisor = 2 if divide_by_initial else len(running)
        loss = sum(((model(xs[step][r * 8:(r + 1) * 8]) - ys[step][r * 8:(r + 1) * 8]) ** 2).mean() for r in running)
        (loss / divisor).backward()
        opt.step()
        opt.zero_grad()
    return model


def _plain() -> torch.nn.Module:
    torch.manual_seed(42)
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))


def ddp_trains_after_an_empty_join(rank: int, size: int, init_method: str, saved: str) -> None:
    """Default buckets, laid out again after the first reducing backward: inside join() rank 1 has no batch and
    rank 0 three, then both train two more steps; the ranks lay their buckets out alike (rank 1 saw no gradient:
    rank 0's order), where rank 1 used to skip the broadcast and hang."""
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size,
                            timeout=timedelta(seconds=60))
    model = torch.nn.parallel.DistributedDataParallel(_plain())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    xs, ys = batches()

    def step(i: int) -> None:
        ((model(xs[i][rank * 8:(rank + 1) * 8]) - ys[i][rank * 8:(rank + 1) * 8]) ** 2).mean().backward()
        opt.step()
        opt.zero_grad()
    with model.join():
        for i in range(3 if rank == 0 else 0):
            step(i)
    for i in range(3, 5):
        step(i)
    assert len(model._buckets) == 1 and model._buckets[0].params[0] is model.module[2].bias
    torch.save(model.module.state_dict(), f"{saved}.{rank}")
    dist.destroy_process_group()


def one_process_after_an_empty_join() -> torch.nn.Module:
    """The same in one process: rank 0's loss alone over the initial world size, then both ranks' averaged."""
    model = _plain()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    xs, ys = batches()
    for i in range(5):
        loss = sum(((model(xs[i][r * 8:(r + 1) * 8]) - ys[i][r * 8:(r + 1) * 8]) ** 2).mean()
                   for r in ([0] if i < 3 else [0, 1]))
        (loss / 2).backward()
        opt.step()
        opt.zero_grad()
    return model


def ddp_join_throws(rank: int, size: int, init_method: str, report: str) -> None:
    """throw_on_early_termination: once rank 0 runs out, every rank raises."""
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size,
                            timeout=timedelta(seconds=60))
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(6, 3))
    message = "no error"
    try:
        with model.join(throw_on_early_termination=True):
            for _ in range(steps_of(rank)):
                model(torch.ones(2, 6)).sum().backward()
    except RuntimeError as error:
        message = str(error)
    with open(f"{report}.{rank}", "w") as f:
        f.write(message)
    dist.destroy_process_group()



def ddp_with_a_hook(rank: int, size: int, init_method: str, saved: str, hook_name: str) -> None:
    """ranks.ddp_trains' 20 steps (no_sync every 4th) with a communication hook: PyTorch's built-in ones, or one
    of this test's that checks what it is handed and reduces with Work.get_future."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size)
    torch.manual_seed(42 if rank == 0 else 7)
    model = torch.nn.parallel.DistributedDataParallel(Net(), find_unused_parameters=True, bucket_cap_mb=0.0005)
    seen: list[tuple[int, bool, int]] = []

    def averaging_hook(state: list, bucket: dist.GradBucket) -> torch.futures.Future:
        assert sum(g.numel() for g in bucket.gradients()) == bucket.buffer().numel()
        assert [g.shape for g in bucket.gradients()] == [p.shape for p in bucket.parameters()]
        state.append((bucket.index(), bucket.is_last(), bucket.buffer().numel()))
        work = dist.all_reduce(bucket.buffer(), async_op=True)
        return work.get_future().then(lambda fut: fut.value()[0] / size)
    hooks = {"allreduce": (None, default_hooks.allreduce_hook), "fp16": (None, default_hooks.fp16_compress_hook),
             "bf16_wrapper": (None, default_hooks.bf16_compress_wrapper(default_hooks.allreduce_hook)),
             "averaging": (seen, averaging_hook)}
    model.register_comm_hook(*hooks[hook_name])
    try:
        model.register_comm_hook(None, default_hooks.allreduce_hook)
    except RuntimeError as error:
        assert "can only be called once" in str(error)
    else:
        raise AssertionError("a second comm hook was accepted")
    train_20_steps(model, rank)
    if hook_name == "averaging":       # every bucket once a synchronised step, in order, the last one flagged
        buckets = len(model._buckets)
        assert seen == [(i, i == buckets - 1, b.buffer.numel()) for i, b in enumerate(model._buckets)] * 20, seen
    if rank == 0:
        torch.save(model.state_dict(), saved)
    dist.destroy_process_group()


def ddp_power_sgd(rank: int, size: int, init_method: str, saved: str, variant: str) -> None:
    """20 SGD steps of Net under a PowerSGD hook (rank 1 starting from other weights: DDP broadcasts rank 0's);
    each rank saves its module's state and the hook's compression statistics."""
    from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as power
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size)
    torch.manual_seed(42 if rank == 0 else 7)
    model = torch.nn.parallel.DistributedDataParallel(Net(), find_unused_parameters=True, bucket_cap_mb=0.0005)
    options = {"deferred": dict(start_powerSGD_iter=1000),
               "full_rank": dict(matrix_approximation_rank=16, min_compression_rate=0, start_powerSGD_iter=2,
                                 orthogonalization_epsilon=1e-12),
               "full_rank_stacked": dict(matrix_approximation_rank=16, min_compression_rate=0, start_powerSGD_iter=2,
                                         orthogonalization_epsilon=1e-12, batch_tensors_with_same_shape=True),
               "not_worth": dict(start_powerSGD_iter=2, min_compression_rate=1000),
               "rank1": dict(start_powerSGD_iter=2), "batched": dict(start_powerSGD_iter=2)}[variant]
    state = power.PowerSGDState(None, **options)
    model.register_comm_hook(state, power.batched_powerSGD_hook if variant == "batched" else power.powerSGD_hook)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    xs, ys = batches()
    for step in range(20):
        x, y = xs[step][rank * 8:(rank + 1) * 8], ys[step][rank * 8:(rank + 1) * 8]
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
        opt.zero_grad()
    torch.save({"state": model.module.state_dict(), "stats": state.compression_stats(), "iter": state.iter},
               f"{saved}.{rank}")
    dist.destroy_process_group()


def one_process_plain() -> torch.nn.Module:
    """ddp_power_sgd's steps in one process, with the exact average of the ranks' gradients."""
    torch.manual_seed(42)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    xs, ys = batches()
    for step in range(20):
        sum(((model(xs[step][r * 8:(r + 1) * 8]) - ys[step][r * 8:(r + 1) * 8]) ** 2).mean() for r in range(2)) \
            .div(2).backward()
        opt.step()
        opt.zero_grad()
    return model


def ddp_buffer_rules(rank: int, size: int, init_method: str, report: str) -> None:
    """PyTorch 2.13's buffer rules: broadcast_buffers=False keeps each rank's buffers from construction on (and
    warns that it is deprecated); by default rank 0's are sent at construction and before a forward, except the
    forward after one whose backward is not reduced (no_sync)."""
    import warnings
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size)
    lines = []
    norm = torch.nn.BatchNorm1d(2)
    norm.running_mean.fill_(float(rank))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        local = torch.nn.parallel.DistributedDataParallel(norm, broadcast_buffers=False)
    lines.append(f"local {norm.running_mean.tolist()} {[type(w.message).__name__ for w in caught]}")
    norm = torch.nn.BatchNorm1d(2)
    norm.running_mean.fill_(float(rank))
    model = torch.nn.parallel.DistributedDataParallel(norm)
    lines.append(f"synced {norm.running_mean.tolist()}")
    x = torch.full((4, 2), float(rank))
    with model.no_sync():
        model(x).sum().backward()
    norm.running_mean.fill_(10.0 + rank)
    model(x).sum().backward()       # not preceded by rank 0's buffers: 0.9 * (10 + rank) + 0.1 * rank
    lines.append(f"after no_sync {[round(v, 4) for v in norm.running_mean.tolist()]}")
    del local
    with open(f"{report}.{rank}", "w") as f:
        f.write("\n".join(lines))
    dist.destroy_process_group()


def ddp_join_with_no_sync_and_buffers(rank: int, size: int, init_method: str, report: str) -> None:
    """Uneven inputs under join, every other step accumulated under no_sync, with a BatchNorm's buffers: the
    joined rank follows the others' buffer broadcasts (none after a no_sync forward) and nothing hangs."""
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size,
                            timeout=timedelta(seconds=30))
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with model.join():
        for step in range(3 + 3 * rank):
            x = torch.full((4, 3), float(step + rank)) + torch.arange(4.0).unsqueeze(1)
            if step % 2:
                with model.no_sync():
                    model(x).sum().backward()
            else:
                model(x).sum().backward()
                opt.step()
                opt.zero_grad()
    state = torch.cat([t.reshape(-1) for t in model.module.state_dict().values()]).tolist()
    with open(f"{report}.{rank}", "w") as f:
        f.write(repr(state))
    dist.destroy_process_group()
