"""Process groups of 2 local ranks, started by torch.multiprocessing.spawn, by torchrun and by mpiexec: every
collective and dtype against NumPy (test/distributed/ranks.py), groups, objects, and the failures: a rank that
dies makes the others raise within the group's timeout, and torchrun names the rank that failed."""
import os
import socket
import subprocess
import sys
import tempfile

import pytest

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from distributed import ranks

RANKS = os.path.join(os.path.dirname(__file__), "ranks.py")
BIN = os.path.dirname(sys.executable)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(command, timeout=240, **env):
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env={**os.environ, **env})


def test_every_collective_and_dtype_matches_numpy_on_two_spawned_ranks(tmp_path):
    mp.spawn(ranks.spawned, args=(2, f"file://{tmp_path / 'rendezvous'}",
                                  ["check_collectives", "check_groups_and_objects", "check_edges"]), nprocs=2)
    assert not (tmp_path / "rendezvous").exists()        # the last rank to close the FileStore deleted it


def test_ranks_joined_over_a_tcp_init_method():
    mp.spawn(ranks.spawned, args=(2, f"tcp://127.0.0.1:{_free_port()}", ["check_groups_and_objects"]), nprocs=2)


def test_ranks_started_by_torchrun_form_a_group():
    done = _launch([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", RANKS,
                    "gloo", "check_collectives", "check_groups_and_objects"])
    assert done.returncode == 0, done.stderr[-3000:]
    assert all(f"rank {r} of 2 passed, backend gloo" in done.stdout for r in range(2)), done.stdout


def test_ranks_started_by_mpiexec_form_a_group():
    done = _launch([os.path.join(BIN, "mpiexec"), "-n", "2", sys.executable, RANKS, "mpi", "check_collectives"])
    assert done.returncode == 0, done.stderr[-3000:]
    assert all(f"rank {r} of 2 passed, backend mpi" in done.stdout for r in range(2)), done.stdout


def test_a_rank_that_dies_makes_the_others_raise_within_the_timeout(tmp_path):
    report = tmp_path / "report"
    mp.spawn(ranks.dies_or_waits, args=(2, f"file://{tmp_path / 'rendezvous'}", str(report)), nprocs=2)
    seconds, message = report.read_text().split(" ", 1)
    assert float(seconds) < 10
    assert message.startswith("[Rank 0] all_reduce timed out after 2 s")


@pytest.mark.parametrize("how", ["before connecting", "connects first", "connects last", "too slow"])
def test_a_rank_that_dies_before_joining_the_communicator_makes_the_others_raise_within_the_timeout(tmp_path, how):
    report = tmp_path / "report"
    mp.spawn(ranks.never_joins_or_waits, args=(3, f"file://{tmp_path / 'rendezvous'}", str(report), how), nprocs=3)
    for rank in (0, 1):
        seconds, message = (tmp_path / f"report.{rank}").read_text().split(" ", 1)
        assert float(seconds) < 15
        assert message == (f"[Rank {rank}] init_process_group: rank(s) [2] reached the rendezvous but did not join "
                           "the MPI communicator within the timeout (3 s)")
    if how == "too slow":
        seconds, message = (tmp_path / "report.2").read_text().split(" ", 1)
        assert float(seconds) < 15
        assert message == ("[Rank 2] init_process_group: rank 0 did not admit this rank into the MPI communicator "
                           "within the timeout (3 s)")


def test_torchrun_stops_the_others_and_names_the_rank_that_failed(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text("import os, time, torch.distributed as dist\n"
                      "dist.init_process_group('gloo')\n"
                      "if dist.get_rank() == 1:\n    raise SystemExit(3)\n"
                      "time.sleep(60)\n")
    done = _launch([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", str(script)],
                   timeout=60)
    assert done.returncode == 1
    assert "rank      : 1 (local_rank: 1)" in done.stderr and "exitcode  : 3" in done.stderr


def test_the_api_outside_a_group_and_its_errors(monkeypatch):
    assert dist.is_mpi_available() and dist.is_gloo_available() and not dist.is_nccl_available()
    assert dist.is_available()
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.get_rank()
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "PMI_RANK", "PMI_SIZE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="environment variable RANK expected, but not set"):
        dist.init_process_group("gloo")
    with pytest.raises(RuntimeError, match="NCCL"):
        dist.init_process_group("nccl", init_method="tcp://127.0.0.1:1", rank=0, world_size=1)
    assert dist.Backend("GLOO") == "gloo" and dist.ReduceOp.SUM == dist.ReduceOp.RedOpType.SUM


def test_a_group_of_one_and_init_twice(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'one'}", rank=0, world_size=1)
    try:
        t = torch.arange(3.0)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        assert t.tolist() == [0.0, 1.0, 2.0] and dist.get_backend() == "gloo" and dist.get_world_size() == 1
        with pytest.raises(ValueError, match="initialize the default process group twice"):
            dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'two'}", rank=0, world_size=1)
        sampler = torch.utils.data.DistributedSampler(range(10), shuffle=False)
        assert list(sampler) == list(range(10))
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


@pytest.mark.parametrize("as_view, compiled", [(False, ""), (True, ""), (False, "function"), (False, "in place")],
                         ids=["copied", "bucket views", "compiled", "compiled in place"])
def test_ddp_on_two_ranks_of_8_ends_where_one_process_on_16_does(tmp_path, as_view, compiled):
    saved = tmp_path / "ddp.pt"
    mp.spawn(ranks.ddp_trains, args=(2, f"file://{tmp_path / 'rendezvous'}", str(saved), as_view, compiled),
             nprocs=2)
    got, want = torch.load(saved), ranks.one_process_trains().state_dict()
    assert sorted(got) == sorted(f"module.{k}" for k in want)
    for key, value in want.items():
        torch.testing.assert_close(got[f"module.{key}"], value, rtol=0, atol=1e-6)


def test_ddp_reduces_buckets_in_order_and_raises_for_a_parameter_without_a_gradient(tmp_path):
    mp.spawn(ranks.ddp_errors_and_orders, args=(2, f"file://{tmp_path / 'rendezvous'}"), nprocs=2)


def test_env_init_again_after_destroy():
    mp.spawn(ranks.env_init_again, args=(2, _free_port()), nprocs=2)


def test_env_init_again_after_destroy_under_torchrun():
    done = _launch([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", RANKS,
                    "gloo", "check_init_again"])
    assert done.returncode == 0, done.stderr[-3000:]


_FLAKY = ("import os, sys, torch, torch.distributed as dist\n"
          "attempt = int(os.environ['TORCHELASTIC_RESTART_COUNT'])\n"
          "dist.init_process_group('gloo')\n"
          "if attempt < int(sys.argv[1]) and dist.get_rank() == dist.get_world_size() - 1:\n"
          "    raise SystemExit(3)\n"
          "t = torch.ones(1) * (dist.get_rank() + 1)\n"
          "dist.all_reduce(t)\n"
          "print(f'rank {dist.get_rank()} attempt {attempt} sum {t.item()}', flush=True)\n"
          "dist.destroy_process_group()\n")


@pytest.mark.parametrize("fails_until, restarts", [(1, 1), (2, 1)])
def test_torchrun_restarts_the_worker_group_up_to_max_restarts(tmp_path, fails_until, restarts):
    script = tmp_path / "flaky.py"
    script.write_text(_FLAKY)
    done = _launch([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                    f"--max_restarts={restarts}", str(script), str(fails_until)], timeout=120)
    assert "Worker group FAILED. 1/1 attempts left; will restart worker group" in done.stderr
    if fails_until <= restarts:
        assert done.returncode == 0, done.stderr[-3000:]
        assert all(f"rank {r} attempt 1 sum 3.0" in done.stdout for r in range(2)), done.stdout
    else:
        assert done.returncode == 1 and "rank      : 1 (local_rank: 1)" in done.stderr


def test_torchrun_agents_on_two_nodes_restart_together(tmp_path):
    """The last rank, on node 1, fails in the first attempt: node 0's agent restarts its workers too."""
    script = tmp_path / "flaky.py"
    script.write_text(_FLAKY)
    port = _free_port()
    agents = [subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--nnodes=2", f"--node_rank={node}",
                                "--nproc_per_node=1", "--master_addr=127.0.0.1", f"--master_port={port}",
                                "--max_restarts=1", str(script), "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True) for node in range(2)]
    outputs = [agent.communicate(timeout=120) for agent in agents]
    assert [agent.returncode for agent in agents] == [0, 0], outputs
    assert all(f"rank {node} attempt 1 sum 3.0" in outputs[node][0] for node in range(2)), outputs
