"""Device meshes, PyTorch's functional collectives and the join context manager on 2 spawned ranks (the checks
are in mesh_ranks.py), and in a group of one: DDP with uneven inputs under join ends where one process training
on the same batches does, and with throw_on_early_termination every rank raises."""
import pytest

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.algorithms.join import Join, Joinable

from distributed import mesh_ranks, ranks


def test_meshes_and_functional_collectives_on_two_ranks(tmp_path):
    mp.spawn(ranks.spawned, args=(2, f"file://{tmp_path / 'rendezvous'}",
                                  ["check_meshes", "check_functional_collectives"], "distributed.mesh_ranks"), nprocs=2)


@pytest.mark.parametrize("divide_by_initial, hooked", [(True, False), (False, False), (True, True)])
def test_ddp_with_uneven_inputs_under_join_ends_where_one_process_does(tmp_path, divide_by_initial, hooked):
    saved = str(tmp_path / "joined.pt")
    mp.spawn(mesh_ranks.ddp_joins, args=(2, f"file://{tmp_path / 'rendezvous'}", saved, divide_by_initial, hooked),
             nprocs=2)
    want = mesh_ranks.one_process_joins(divide_by_initial).state_dict()
    for rank in range(2):
        got = torch.load(f"{saved}.{rank}")
        assert sorted(got) == sorted(want)
        for key, value in want.items():
            torch.testing.assert_close(got[key], value, rtol=0, atol=1e-6, msg=f"rank {rank}: {key}")


def test_buckets_laid_out_again_after_a_join_where_one_rank_had_no_batch_train_on_both(tmp_path):
    saved = str(tmp_path / "after.pt")
    mp.spawn(mesh_ranks.ddp_trains_after_an_empty_join, args=(2, f"file://{tmp_path / 'rendezvous'}", saved),
             nprocs=2)
    want = mesh_ranks.one_process_after_an_empty_join().state_dict()
    for rank in range(2):
        got = torch.load(f"{saved}.{rank}")
        for key, value in want.items():
            torch.testing.assert_close(got[key], value, rtol=0, atol=1e-6, msg=f"rank {rank}: {key}")


def test_join_with_throw_on_early_termination_raises_on_every_rank(tmp_path):
    report = str(tmp_path / "report")
    mp.spawn(mesh_ranks.ddp_join_throws, args=(2, f"file://{tmp_path / 'rendezvous'}", report), nprocs=2)
    assert open(f"{report}.0").read() == "Rank 0 exhausted all inputs."
    assert open(f"{report}.1").read() == "Detected at least one rank that exhausted inputs. Throwing across all ranks."


def test_a_mesh_and_join_in_a_group_of_one(tmp_path):
    from torch.distributed.device_mesh import init_device_mesh
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'one'}", rank=0, world_size=1)
    try:
        mesh = init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
        assert repr(mesh) == "DeviceMesh((dp=1), 'cpu', stride=((),))" and mesh.size() == 1
        with pytest.raises(RuntimeError, match="Mesh should not be bigger than default world size 1, but found 2"):
            init_device_mesh("cpu", (2,))
        with pytest.raises(KeyError, match="Mesh dimension 'tp' does not exist"):
            mesh.get_group("tp")
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 1))
        assert isinstance(model, Joinable)
        with pytest.raises(ValueError, match="requires at least one joinable"):
            Join([])
        with model.join():
            model(torch.ones(3, 2)).sum().backward()
        assert model.module.weight.grad.tolist() == [[3.0, 3.0]]
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize("hook, tolerance", [("allreduce", 1e-6), ("averaging", 1e-6), ("fp16", 2e-3),
                                             ("bf16_wrapper", 2e-2)])
def test_ddp_with_a_communication_hook_ends_where_one_process_does(tmp_path, hook, tolerance):
    saved = tmp_path / "hooked.pt"
    mp.spawn(mesh_ranks.ddp_with_a_hook, args=(2, f"file://{tmp_path / 'rendezvous'}", str(saved), hook), nprocs=2)
    got, want = torch.load(saved), ranks.one_process_trains().state_dict()
    for key, value in want.items():
        torch.testing.assert_close(got[f"module.{key}"], value, rtol=0, atol=tolerance)


def _power_sgd_run(tmp_path, variant):
    saved = str(tmp_path / "power.pt")
    mp.spawn(mesh_ranks.ddp_power_sgd, args=(2, f"file://{tmp_path / 'rendezvous'}", saved, variant), nprocs=2)
    return [torch.load(f"{saved}.{rank}") for rank in range(2)], mesh_ranks.one_process_plain().state_dict()


@pytest.mark.parametrize("variant, tolerance", [("deferred", 1e-6), ("full_rank", 1e-6), ("full_rank_stacked", 1e-6),
                                                ("not_worth", 1e-6)])
def test_power_sgd_deferred_at_full_rank_or_uncompressed_ends_where_exact_averaging_does(tmp_path, variant,
                                                                                        tolerance):
    """Deferred past the last step; at full rank (P Q^T is the average exactly); with every matrix too small to
    be worth compressing at min_compression_rate=1000 (all of it travels uncompressed)."""
    runs, want = _power_sgd_run(tmp_path, variant)
    for run in runs:
        assert run["iter"] == 20
        for key, value in want.items():
            torch.testing.assert_close(run["state"][key], value, rtol=0, atol=tolerance, msg=key)
    rate = runs[0]["stats"][0]        # elements before compression / after
    if variant.startswith("full_rank"):
        assert 0 < rate < 1            # at full rank the factors are larger than the matrices
    else:
        assert rate == {"deferred": 0, "not_worth": 1}[variant]


@pytest.mark.parametrize("variant", ["rank1", "batched"])
def test_power_sgd_at_rank_one_compresses_and_keeps_the_ranks_identical(tmp_path, variant):
    runs, exact = _power_sgd_run(tmp_path, variant)
    for key in exact:
        assert torch.equal(runs[0]["state"][key], runs[1]["state"][key]), key
    assert runs[0]["stats"][0] > 1
    assert any(not torch.allclose(runs[0]["state"][k], v, atol=1e-4) for k, v in exact.items() if k != "scale")


@pytest.mark.parametrize("hook", ["FP16", "BF16", "POWER_SGD", "BATCHED_POWER_SGD"])
def test_accelerate_registers_its_communication_hooks_on_ember_ddp(tmp_path, hook):
    from accelerate.utils import DDPCommunicationHookType, DistributedDataParallelKwargs
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'one'}", rank=0, world_size=1)
    try:
        torch.manual_seed(0)
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 4))
        kwargs = {"comm_state_option": {"start_powerSGD_iter": 2}} if "POWER" in hook else {}
        DistributedDataParallelKwargs(comm_hook=getattr(DDPCommunicationHookType, hook), **kwargs) \
            .register_comm_hook(model)
        x = torch.randn(5, 8)
        for _ in range(3):
            model.zero_grad()
            model(x).sum().backward()
        # one rank: the average is this rank's gradient, through float16/bfloat16 or a rank-1 approximation
        exact = {id(model.module.weight): torch.ones(4, 1) * x.sum(0), id(model.module.bias): torch.full((4,), 5.0)}
        if hook in ("FP16", "BF16"):
            tolerance = 1e-2 if hook == "FP16" else 5e-2
            for p in model.parameters():
                torch.testing.assert_close(p.grad, exact[id(p)], rtol=tolerance, atol=tolerance)
            return
        state, bucket = model._comm_hook[0], model._buckets[0]
        flat = torch.cat([exact[id(p)].reshape(-1) for p in bucket.params])
        # error feedback: what the approximation lost is remembered, to the last element
        torch.testing.assert_close(bucket.buffer + state.error_dict[0][:flat.numel()], flat, rtol=1e-5, atol=1e-5)
        if hook == "POWER_SGD":     # the weight's gradient is of rank one: its rank-1 approximation is exact
            torch.testing.assert_close(model.module.weight.grad, exact[id(model.module.weight)], rtol=1e-5,
                                       atol=1e-5)
    finally:
        dist.destroy_process_group()


def test_ddp_sends_buffers_as_pytorch_2_13_does(tmp_path):
    report = str(tmp_path / "report")
    mp.spawn(mesh_ranks.ddp_buffer_rules, args=(2, f"file://{tmp_path / 'rendezvous'}", report), nprocs=2)
    for rank in range(2):
        assert open(f"{report}.{rank}").read().splitlines() == [
            f"local {[float(rank)] * 2} ['FutureWarning']", "synced [0.0, 0.0]",
            f"after no_sync {[round(0.9 * (10 + rank) + 0.1 * rank, 4)] * 2}"]


def test_work_futures_complete_with_the_work_and_a_hook_may_return_its_own(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'one'}", rank=0, world_size=1)
    try:
        t, seen = torch.ones(2), []
        work = dist.all_reduce(t, async_op=True)
        work.get_future().add_done_callback(lambda f: seen.append(f.value()[0] is t))
        work.wait()
        assert seen == [True]
        assert dist.broadcast(torch.ones(2), src=0, async_op=True).get_future().wait()[0].tolist() == [1.0, 1.0]

        def hook(state, bucket):        # completed by a callback of the all-reduce's Future, as PyTorch allows
            out = torch.futures.Future()
            dist.all_reduce(bucket.buffer(), async_op=True).get_future().add_done_callback(
                lambda f: out.set_result(f.value()[0]))
            return out
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 2))
        model.register_comm_hook(None, hook)
        model(torch.ones(4, 3)).sum().backward()
        assert model.module.weight.grad.tolist() == [[4.0] * 3] * 2

        def wrong_size(state, bucket):
            fut = torch.futures.Future()
            fut.set_result(torch.ones(1))
            return fut
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 2))
        model.register_comm_hook(None, wrong_size)
        with pytest.raises(RuntimeError, match="must hold a tensor of the bucket's 8 gradients"):
            model(torch.ones(4, 3)).sum().backward()
        with pytest.raises(ValueError, match="bucket annotation should be dist.GradBucket"):
            torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1, 1)).register_comm_hook(
                None, _annotated_wrongly)
    finally:
        dist.destroy_process_group()


def _annotated_wrongly(state, bucket: int):
    return None


def test_join_follows_no_sync_and_buffer_broadcasts_and_ends_with_one_model(tmp_path):
    report = str(tmp_path / "report")
    mp.spawn(mesh_ranks.ddp_join_with_no_sync_and_buffers, args=(2, f"file://{tmp_path / 'rendezvous'}", report),
             nprocs=2)
    assert open(f"{report}.0").read() == open(f"{report}.1").read()
