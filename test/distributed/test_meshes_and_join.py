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
    mp.spawn(mesh_ranks.spawned, args=(2, f"file://{tmp_path / 'rendezvous'}",
                                       ["check_meshes", "check_functional_collectives"]), nprocs=2)


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
        assert repr(mesh) == "DeviceMesh('cpu', [0], mesh_dim_names=('dp',))" and mesh.size() == 1
        with pytest.raises(RuntimeError, match=r"Mesh shape \(2,\) has 2 ranks, but the world has 1"):
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
