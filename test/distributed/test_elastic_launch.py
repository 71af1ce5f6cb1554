"""torchrun's c10d rendezvous (--rdzv_backend=c10d): agents started without --node_rank meet at the endpoint and
number their nodes; with --nnodes=MIN:MAX a round starts with the nodes there once the last call has passed, and a
node that arrives later makes the running ones start again with it; a failure restarts every node's workers."""
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from torch.distributed import HashStore
from torch.distributed.elastic_rendezvous import (Assignment, Rendezvous, RendezvousClosedError,
                                                  RendezvousTimeoutError)

_REPORTS = ("import os, sys, time, torch, torch.distributed as dist\n"
            "open(os.path.join(os.path.dirname(sys.argv[3]), f'worker.{os.getpid()}'), 'w').close()\n"
            "dist.init_process_group('gloo')\n"
            "rank, world = dist.get_rank(), dist.get_world_size()\n"
            "if rank == world - 1 and sys.argv[2] == 'fails_once' and not os.path.exists(sys.argv[3]):\n"
            "    open(sys.argv[3], 'w').close()\n"
            "    raise SystemExit(3)\n"
            "t = torch.ones(1) * (rank + 1)\n"
            "dist.all_reduce(t)\n"
            "env = os.environ\n"
            "sys.stdout.write(f\"node {env['GROUP_RANK']}/{env['GROUP_WORLD_SIZE']} rank {rank}/{world} \"\n"
            "                 f\"sum {t.item():g} restarts {env['TORCHELASTIC_RESTART_COUNT']}\\n\")\n"
            "sys.stdout.flush()          # (one write: the node's workers share the agent's pipe)\n"
            "if world < int(sys.argv[1]):\n"
            "    time.sleep(120)         # training on, until a node joins\n"
            "dist.destroy_process_group()\n")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _agent(tmp_path, port, nnodes, nproc, *extra, world=1, how="runs"):
    script = tmp_path / "reports.py"
    script.write_text(_REPORTS)
    return subprocess.Popen([sys.executable, "-m", "torch.distributed.run", f"--nnodes={nnodes}",
                             f"--nproc_per_node={nproc}", "--rdzv_backend=c10d", f"--rdzv_endpoint=127.0.0.1:{port}",
                             "--rdzv_conf=last_call_timeout=1,join_timeout=60", *extra, str(script), str(world), how,
                             str(tmp_path / "failed_once")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))


def _lines(output):
    return sorted(line for line in output.splitlines() if line.startswith("node "))


def test_agents_without_a_node_rank_number_their_nodes_at_the_endpoint(tmp_path):
    port = _free_port()
    agents = [_agent(tmp_path, port, 2, 1) for _ in range(2)]
    outputs = [agent.communicate(timeout=120) for agent in agents]
    assert [agent.returncode for agent in agents] == [0, 0], outputs
    assert sorted(_lines(outputs[0][0]) + _lines(outputs[1][0])) == \
        ["node 0/2 rank 0/2 sum 3 restarts 0", "node 1/2 rank 1/2 sum 3 restarts 0"]


def test_a_node_that_arrives_later_joins_the_running_ones_within_the_range_of_nodes(tmp_path):
    port = _free_port()
    first = _agent(tmp_path, port, "1:2", 1, world=3)
    alone = first.stdout.readline()         # its round closed 1 s after it joined (its last call): it runs alone
    assert alone == "node 0/1 rank 0/1 sum 1 restarts 0\n", first.stderr.read() if not alone else alone
    second = _agent(tmp_path, port, "1:2", 2, world=3)
    outputs = [agent.communicate(timeout=120) for agent in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    together = _lines(outputs[0][0]) + _lines(outputs[1][0])
    assert sorted(line.split()[3] for line in together) == ["0/3", "1/3", "2/3"], outputs
    assert all(line.endswith("sum 6 restarts 0") for line in together)


@pytest.mark.parametrize("restarts", [1, 0])
def test_a_failed_worker_restarts_every_nodes_workers_or_stops_every_agent(tmp_path, restarts):
    port = _free_port()
    agents = [_agent(tmp_path, port, 2, 1, f"--max_restarts={restarts}", how="fails_once") for _ in range(2)]
    outputs = [agent.communicate(timeout=120) for agent in agents]
    stderr = outputs[0][1] + outputs[1][1]
    if restarts:
        assert [agent.returncode for agent in agents] == [0, 0], outputs
        assert "Worker group FAILED. 1/1 attempts left; will restart worker group" in stderr
        assert len(_lines(outputs[0][0]) + _lines(outputs[1][0])) == 2
    else:
        assert [agent.returncode for agent in agents] == [1, 1], outputs
        assert "ChildFailedError" in stderr and "exitcode  : 3" in stderr
        assert "The rendezvous was closed: an agent's workers failed past its last restart" in stderr
    for marker in tmp_path.glob("worker.*"):        # no worker outlives its agent
        with pytest.raises(ProcessLookupError):
            os.kill(int(marker.suffix[1:]), 0)


def test_a_range_of_nodes_needs_the_c10d_rendezvous(tmp_path):
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nnodes=1:2", "--nproc_per_node=1",
                           str(tmp_path / "never_run.py")], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "--nnodes=1:2: a range of nodes needs --rdzv_backend=c10d" in done.stderr


# -- the rounds, agents as threads over one store ----------------------------------------------------------------------
def _join(store, results, name, **settings):
    try:
        results[name] = Rendezvous(store, "job", **settings).next_round()
    except Exception as error:      # the test reads it
        results[name] = error


def test_a_round_closes_full_at_once_or_with_at_least_min_nodes_after_the_last_call():
    store, results = HashStore(), {}
    settings = dict(min_nodes=2, max_nodes=3, nproc=2, last_call_timeout=0.5, join_timeout=20)
    threads = [threading.Thread(target=_join, args=(store, results, n), kwargs=settings) for n in "ab"]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert time.monotonic() - started >= 0.5
    assert sorted((r.group_rank, r.group_world_size, r.rank_offset, r.world_size) for r in results.values()) == \
        [(0, 2, 0, 4), (1, 2, 2, 4)]
    late = Rendezvous(store, "job", **settings)
    assert not late.should_meet_again(results["a"])
    waiting = threading.Thread(target=_join, args=(store, results, "c"), kwargs=settings)
    waiting.start()
    deadline = time.monotonic() + 10
    while not late.should_meet_again(results["a"]) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert late.should_meet_again(results["a"])     # a node waits and the round has room: meet again
    again = [threading.Thread(target=_join, args=(store, results, n), kwargs=settings) for n in "ab"]
    for t in again:
        t.start()
    for t in [*again, waiting]:
        t.join()
    assert {r.round for r in results.values()} == {1}
    assert sorted(r.group_rank for r in results.values()) == [0, 1, 2]


def test_a_round_that_never_has_min_nodes_times_out_and_a_closed_rendezvous_raises():
    store, results = HashStore(), {}
    _join(store, results, "alone", min_nodes=2, max_nodes=2, nproc=1, last_call_timeout=0.1, join_timeout=0.3)
    assert isinstance(results["alone"], RendezvousTimeoutError)
    assert "1 of at least 2 nodes have joined" in str(results["alone"])
    Rendezvous(store, "job", 1, 1, 1).close(Assignment(0, 0, 1, 0, 1), serving=False)
    _join(store, results, "late", min_nodes=1, max_nodes=1, nproc=1)
    assert isinstance(results["late"], RendezvousClosedError)
    with pytest.raises(ValueError, match="must be at least 1 and at most the maximum"):
        Rendezvous(store, "job", 3, 2, 1)
