"""What the distributed tests run on each rank (an importable module: torch.multiprocessing.spawn's children and
the launched scripts import it). Each check compares a collective's result with NumPy's on the data every rank
makes from its own seed, and raises (failing its process) on a difference."""
from __future__ import annotations

import os
import sys
from datetime import timedelta

import numpy as np

import torch
import torch.distributed as dist

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int8,
          torch.uint8, torch.bool, torch.complex64]


def values(rank: int, dtype: torch.dtype, n: int = 6) -> torch.Tensor:
    """Rank's data: small integers (exact in every dtype), its own per rank."""
    raw = np.random.default_rng(100 + rank).integers(1, 4, n)
    if dtype is torch.bool:
        return torch.from_numpy(raw % 2 == 0)
    if dtype.is_complex:
        return torch.from_numpy((raw + 1j * raw[::-1]).astype(np.complex64))
    return torch.from_numpy(raw.astype(np.float64)).to(dtype)


def as_numpy(t: torch.Tensor) -> np.ndarray:
    return t.to(torch.float32).numpy() if t.dtype in (torch.float16, torch.bfloat16) else t.numpy()


def expect(actual: torch.Tensor, wanted: np.ndarray, what: str) -> None:
    got = as_numpy(actual)
    wanted_rounded = as_numpy(torch.from_numpy(np.asarray(wanted)).to(actual.dtype)) \
        if actual.dtype in (torch.float16, torch.bfloat16) else np.asarray(wanted).astype(got.dtype)
    if got.shape != wanted_rounded.shape or not np.array_equal(got, wanted_rounded):
        raise AssertionError(f"rank {dist.get_rank()}: {what}: got {got.tolist()}, expected {wanted_rounded.tolist()}")


_NUMPY_REDUCE = {"SUM": np.sum, "PRODUCT": np.prod, "MIN": np.min, "MAX": np.max,
                 "BAND": np.bitwise_and.reduce, "BOR": np.bitwise_or.reduce, "BXOR": np.bitwise_xor.reduce}


def _ops(dtype: torch.dtype) -> list[str]:
    if dtype is torch.bool:
        return ["SUM", "PRODUCT", "MIN", "MAX"]
    if dtype.is_complex:
        return ["SUM", "PRODUCT", "AVG"]
    if dtype.is_floating_point:
        return ["SUM", "PRODUCT", "MIN", "MAX", "AVG"]
    return ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]


def _reduced(op: str, dtype: torch.dtype, size: int) -> np.ndarray:
    stacked = np.stack([as_numpy(values(r, dtype)).astype(np.complex128 if dtype.is_complex else np.float64)
                        if dtype is not torch.bool and op not in ("BAND", "BOR", "BXOR") else as_numpy(values(r, dtype))
                        for r in range(size)])
    if dtype is torch.bool:
        return stacked.any(0) if op in ("SUM", "MAX") else stacked.all(0)
    if op == "AVG":
        return stacked.mean(0)
    return _NUMPY_REDUCE[op](stacked, axis=0)


def check_collectives(rank: int, size: int) -> None:
    """Every collective on every dtype, against NumPy."""
    for dtype in DTYPES:
        mine = values(rank, dtype)
        for op in _ops(dtype):
            t = mine.clone()
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            expect(t, _reduced(op, dtype, size), f"all_reduce {op} {dtype}")
            t = mine.clone()
            dist.reduce(t, dst=1, op=getattr(dist.ReduceOp, op))
            if rank == 1:
                expect(t, _reduced(op, dtype, size), f"reduce {op} {dtype}")
        t = mine.clone()
        dist.broadcast(t, src=1)
        expect(t, as_numpy(values(1, dtype)), f"broadcast {dtype}")
        everyone = np.stack([as_numpy(values(r, dtype)) for r in range(size)])
        outs = [torch.zeros_like(mine) for _ in range(size)]
        dist.all_gather(outs, mine)
        expect(torch.stack(outs), everyone, f"all_gather {dtype}")
        flat = torch.zeros(size * mine.numel(), dtype=dtype)
        dist.all_gather_into_tensor(flat, mine)
        expect(flat, everyone.reshape(-1), f"all_gather_into_tensor {dtype}")
        gathered = [torch.zeros_like(mine) for _ in range(size)] if rank == 0 else None
        dist.gather(mine, gathered, dst=0)
        if rank == 0:
            expect(torch.stack(gathered), everyone, f"gather {dtype}")
        received = torch.zeros_like(mine)
        dist.scatter(received, [values(10 + r, dtype) for r in range(size)] if rank == 0 else None, src=0)
        expect(received, as_numpy(values(10 + rank, dtype)), f"scatter {dtype}")
        if dtype is not torch.bool:
            chunk = torch.zeros(3, dtype=dtype)
            dist.reduce_scatter_tensor(chunk, mine)
            expect(chunk, _reduced("SUM", dtype, size)[rank * 3:(rank + 1) * 3], f"reduce_scatter_tensor {dtype}")
            chunk = torch.zeros(3, dtype=dtype)
            dist.reduce_scatter(chunk, list(mine.split(3)))
            expect(chunk, _reduced("SUM", dtype, size)[rank * 3:(rank + 1) * 3], f"reduce_scatter {dtype}")
        _check_all_to_all(rank, size, dtype)
        _check_point_to_point(rank, size, dtype)


def _check_all_to_all(rank: int, size: int, dtype: torch.dtype) -> None:
    """Uneven splits: rank r sends r + 1 + peer rows to each peer."""
    send_splits = [rank + 1 + peer for peer in range(size)]
    recv_splits = [peer + 1 + rank for peer in range(size)]
    rows = values(rank, dtype, sum(send_splits) * 2).view(-1, 2)
    out = torch.zeros(sum(recv_splits), 2, dtype=dtype)
    dist.all_to_all_single(out, rows, recv_splits, send_splits)
    parts = []
    for peer in range(size):
        theirs = as_numpy(values(peer, dtype, sum(peer + 1 + q for q in range(size)) * 2)).reshape(-1, 2)
        start = sum(peer + 1 + q for q in range(rank))
        parts.append(theirs[start:start + peer + 1 + rank])
    expect(out, np.concatenate(parts), f"all_to_all_single {dtype}")
    outs = [torch.zeros(2, dtype=dtype) for _ in range(size)]
    dist.all_to_all(outs, [values(rank * 10 + peer, dtype, 2) for peer in range(size)])
    expect(torch.stack(outs), np.stack([as_numpy(values(peer * 10 + rank, dtype, 2)) for peer in range(size)]),
           f"all_to_all {dtype}")


def _check_point_to_point(rank: int, size: int, dtype: torch.dtype) -> None:
    peer = 1 - rank
    if rank == 0:
        dist.send(values(7, dtype), dst=1)
    else:
        got = torch.zeros_like(values(7, dtype))
        assert dist.recv(got) == 0
        expect(got, as_numpy(values(7, dtype)), f"send/recv {dtype}")
    incoming = torch.zeros_like(values(rank, dtype))
    works = dist.batch_isend_irecv([dist.P2POp(dist.isend, values(rank, dtype), peer),
                                    dist.P2POp(dist.irecv, incoming, peer)])
    for work in works:
        work.wait()
    expect(incoming, as_numpy(values(peer, dtype)), f"batch_isend_irecv {dtype}")


def check_groups_and_objects(rank: int, size: int) -> None:
    objects = [None] * size
    dist.all_gather_object(objects, {"rank": rank, "name": f"r{rank}"})
    assert objects == [{"rank": r, "name": f"r{r}"} for r in range(size)], objects
    listed = [rank, "mine"] if rank == 1 else [None, None]
    dist.broadcast_object_list(listed, src=1)
    assert listed == [1, "mine"], listed
    gathered = [None] * size if rank == 0 else None
    dist.gather_object(rank * 3, gathered, dst=0)
    assert rank != 0 or gathered == [3 * r for r in range(size)], gathered
    alone = dist.new_group([1])
    if rank == 1:
        assert dist.get_rank(alone) == 0 and dist.get_world_size(alone) == 1
        t = torch.ones(2)
        dist.all_reduce(t, group=alone)
        assert t.tolist() == [1.0, 1.0]
    else:
        assert alone is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(alone) == -1
    work = dist.all_reduce(torch.ones(3), async_op=True)
    assert work.wait() and work.is_completed()
    dist.barrier()
    dist.monitored_barrier(timeout=timedelta(seconds=30))


def check_edges(rank: int, size: int) -> None:
    """Work dropped unwaited still finishes; dtype mismatches raise; a receive's source; subgroups of members."""
    import gc
    halves = torch.full((4,), float(rank + 1), dtype=torch.float16)
    dist.all_reduce(halves, op=dist.ReduceOp.AVG, async_op=True)     # dropped: the group finishes it
    if rank == 0:
        dist.isend(torch.arange(1 << 16, dtype=torch.float32), dst=1)  # a temporary, dropped
    else:
        got = torch.zeros(1 << 16)
        dist.recv(got, src=0)
        expect(got, np.arange(1 << 16, dtype=np.float32), "a dropped isend of a temporary")
    gc.collect()
    dist.barrier()                  # (waits for the work started before it)
    expect(halves, np.full(4, 1.5), "a dropped AVG all_reduce of float16")
    for call in (lambda: dist.all_gather_into_tensor(torch.zeros(4, dtype=torch.float64), torch.ones(2)),
                 lambda: dist.all_to_all_single(torch.zeros(2), torch.ones(2, dtype=torch.int64)),
                 lambda: dist.reduce_scatter_tensor(torch.zeros(1), torch.ones(2, dtype=torch.float64))):
        try:
            call()
        except RuntimeError as error:
            assert "same type" in str(error), error
        else:
            raise AssertionError("a dtype mismatch did not raise")
    if rank == 1:
        work = dist.irecv(torch.zeros(2))
        while not work.is_completed():
            pass
        assert work.source_rank() == 0
    else:
        dist.send(torch.ones(2), dst=1)
    assert dist.all_reduce(torch.ones(1), async_op=True).wait(timedelta(0))      # 0: the group's timeout
    if rank == 1:                   # only the members make a group
        alone = dist.new_group([1])
        t = torch.ones(1)
        dist.all_reduce(t, group=alone)
        assert t.item() == 1.0 and dist.get_process_group_ranks(alone) == [1]
    dist.barrier()


def check_init_again(rank: int, size: int) -> None:
    """Destroyed, the default group can be made again over the same environment (the store's port reused)."""
    for _ in range(2):
        dist.destroy_process_group()
        dist.init_process_group("gloo")
        t = torch.ones(1)
        dist.all_reduce(t)
        assert t.item() == size


def env_init_again(rank: int, size: int, port: int) -> None:
    """env:// made, destroyed and made again twice: rank 0 serves the store from the same port."""
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(size))
    for _ in range(3):
        dist.init_process_group("gloo", timeout=timedelta(seconds=30))
        t = torch.ones(1)
        dist.all_reduce(t)
        assert t.item() == size
        dist.destroy_process_group()


def spawned(rank: int, size: int, init_method: str, checks: list[str], module: str | None = None) -> None:
    """A torch.multiprocessing.spawn child: join the group, then run the named checks (of this module, or of the
    module named)."""
    import importlib
    where = vars(importlib.import_module(module)) if module else globals()
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size)
    for check in checks:
        where[check](rank, size)
    dist.destroy_process_group()


def dies_or_waits(rank: int, size: int, init_method: str, report: str) -> None:
    """Rank 1 exits after joining; rank 0's next collective must raise within the group's timeout."""
    import time
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size,
                            timeout=timedelta(seconds=2))
    dist.barrier()
    if rank == 1:
        os._exit(0)
    start = time.monotonic()
    try:
        dist.all_reduce(torch.ones(2))
    except dist.DistBackendError as error:
        with open(report, "w") as f:
            f.write(f"{time.monotonic() - start:.1f} {error}")


def never_joins_or_waits(rank: int, size: int, init_method: str, report: str, how: str) -> None:
    """The last rank fails to join the others' MPI communicator, as `how` says: it dies where it would connect
    ("before connecting"); it connects and dies before saying which rank it is, before the others connect
    ("connects first") or after them ("connects last"); or it says which rank it is too late ("too slow"). The
    others must raise within the group's timeout, naming it; a rank too slow raises too."""
    import time

    from torch.distributed import mpi_join
    connect = mpi_join._connect
    marker = f"{report}.connected"
    last, first_of_the_others = size - 1, 1

    def wait_for_marker() -> None:
        end = time.monotonic() + 10
        while not os.path.exists(marker) and time.monotonic() < end:
            time.sleep(0.01)

    def connects(*args: object) -> object:
        if rank == last and how == "connects last" or rank == first_of_the_others and how == "connects first":
            wait_for_marker()
        inter = None if rank == last and how == "before connecting" else connect(*args)
        if rank == first_of_the_others and how == "connects last" or rank == last and how == "connects first":
            open(marker, "w").close()
        if rank == last and how == "too slow":
            time.sleep(mpi_join._grace(3) + 0.5)
        elif rank == last:
            os._exit(0)
        return inter

    mpi_join._connect = connects
    start = time.monotonic()
    try:
        dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size,
                                timeout=timedelta(seconds=3))
    except dist.DistBackendError as error:
        with open(f"{report}.{rank}", "w") as f:
            f.write(f"{time.monotonic() - start:.1f} {error}")


# -- DistributedDataParallel: 2 ranks x batch 8 against one process on the batch of 16 -------------------------------
class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b, self.spare = torch.nn.Linear(6, 16), torch.nn.Linear(16, 3), torch.nn.Linear(16, 3)
        self.register_buffer("scale", torch.ones(1))

    def forward(self, x: torch.Tensor, spare: bool = False) -> torch.Tensor:
        h = torch.tanh(self.a(x)) * self.scale
        return self.spare(h) if spare else self.b(h)


def batches() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return torch.randn(20, 16, 6, generator=g), torch.randn(20, 16, 3, generator=g)


def uses_spare(step: int, rank: int) -> bool:
    """Unused parameters, unevenly: only rank 0 uses the spare head, on some steps."""
    return step % 5 == 3 and rank == 0


def ddp_errors_and_orders(rank: int, size: int, init_method: str) -> None:
    """A layer only rank 0 uses, in its own bucket, reduces in the same order on both ranks; a parameter left
    without a gradient (find_unused_parameters=False) raises at the next forward, as PyTorch's."""
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size,
                            timeout=timedelta(seconds=20))
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(Net(), find_unused_parameters=True, bucket_cap_mb=0.0001)
    for step in range(3):
        model(torch.ones(2, 6), spare=rank == 0).sum().backward()
    strict = torch.nn.parallel.DistributedDataParallel(Net())
    strict(torch.ones(2, 6)).sum().backward()       # the spare head gets no gradient: this backward finishes
    try:
        strict(torch.ones(2, 6))
    except RuntimeError as error:
        assert "Expected to have finished reduction in the prior iteration" in str(error)
    else:
        raise AssertionError("DDP did not raise for a parameter without a gradient")
    dist.destroy_process_group()


def ddp_trains(rank: int, size: int, init_method: str, saved: str, as_view: bool, compiled: str = "") -> None:
    """20 SGD steps of DDP on this rank's 8 rows; every 4th step accumulates two halves, the first under
    no_sync. Rank 1 starts from other weights: DDP broadcasts rank 0's. compiled: "function" through
    torch.compile of the DDP module, "in place" through its compile()."""
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=size)
    torch.manual_seed(42 if rank == 0 else 7)
    model = torch.nn.parallel.DistributedDataParallel(Net(), find_unused_parameters=True, bucket_cap_mb=0.0005,
                                                      gradient_as_bucket_view=as_view)
    if compiled == "in place":
        model.compile()
    train_20_steps(torch.compile(model) if compiled == "function" else model, rank)
    if rank == 0:
        torch.save(model.state_dict(), saved)
    dist.destroy_process_group()


def train_20_steps(model: torch.nn.Module, rank: int) -> None:
    """SGD on this rank's 8 rows of each batch; every 4th step accumulates two halves, the first under no_sync."""
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    xs, ys = batches()
    for step in range(20):
        x, y = xs[step][rank * 8:(rank + 1) * 8], ys[step][rank * 8:(rank + 1) * 8]
        spare = uses_spare(step, rank)
        if step % 4 == 1:
            with model.no_sync():
                ((model(x[:4], spare) - y[:4]) ** 2).mean().mul(0.5).backward()
            ((model(x[4:], spare) - y[4:]) ** 2).mean().mul(0.5).backward()
        else:
            ((model(x, spare) - y) ** 2).mean().backward()
        opt.step()
        opt.zero_grad()


def one_process_trains() -> torch.nn.Module:
    """The same 20 steps in one process: each step's loss the average of the two ranks' losses."""
    torch.manual_seed(42)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    xs, ys = batches()

    def loss(x: torch.Tensor, y: torch.Tensor, step: int, rows: slice) -> torch.Tensor:
        parts = [((model(x[r * 8:(r + 1) * 8][rows], uses_spare(step, r)) - y[r * 8:(r + 1) * 8][rows]) ** 2).mean()
                 for r in range(2)]
        return (parts[0] + parts[1]) / 2
    for step in range(20):
        if step % 4 == 1:
            loss(xs[step], ys[step], step, slice(0, 4)).mul(0.5).backward()
            loss(xs[step], ys[step], step, slice(4, 8)).mul(0.5).backward()
        else:
            loss(xs[step], ys[step], step, slice(0, 8)).backward()
        opt.step()
        opt.zero_grad()
    return model


if __name__ == "__main__":      # run by a launcher (torchrun, mpiexec): the checks named on the command line
    dist.init_process_group(sys.argv[1] if len(sys.argv) > 1 else None)
    for name in sys.argv[2:]:
        globals()[name](dist.get_rank(), dist.get_world_size())
    print(f"rank {dist.get_rank()} of {dist.get_world_size()} passed, backend {dist.get_backend()}", flush=True)
    dist.destroy_process_group()
