"""torchrun's c10d rendezvous (--rdzv_backend=c10d): agents started without --node_rank meet at the endpoint and
number their nodes; with --nnodes=MIN:MAX a round starts with the nodes there once the last call has passed, and a
node that arrives later makes the running ones start again with it; a failure restarts every node's workers."""
import functools
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from torch.distributed import HashStore
from torch.distributed.elastic_rendezvous import (Rendezvous, RendezvousClosedError, RendezvousGracefulExit,
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
            "if sys.argv[2] == 'holds' or (sys.argv[2] == 'last_lingers' and rank == world - 1):\n"
            "    time.sleep(3)\n"
            "dist.destroy_process_group()\n")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _agent(tmp_path, port, nnodes, nproc, *extra, world=1, how="runs", rendezvous=None):
    script = tmp_path / "reports.py"
    script.write_text(_REPORTS)
    rendezvous = rendezvous or ["--rdzv_backend=c10d", f"--rdzv_endpoint=127.0.0.1:{port}",
                                "--rdzv_conf=last_call_timeout=1,join_timeout=60"]
    return subprocess.Popen([sys.executable, "-m", "torch.distributed.run", f"--nnodes={nnodes}",
                             f"--nproc_per_node={nproc}", *rendezvous, *extra, str(script), str(world), how,
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


def test_a_node_that_finds_the_round_full_waits_as_a_spare_and_leaves_when_the_job_completes(tmp_path):
    port = _free_port()
    running = [_agent(tmp_path, port, 2, 1, how="holds") for _ in range(2)]
    assert running[0].stdout.readline().startswith("node ")       # the round runs
    spare = _agent(tmp_path, port, 2, 1, how="holds")
    outputs = [agent.communicate(timeout=120) for agent in (*running, spare)]
    assert [agent.returncode for agent in (*running, spare)] == [0, 0, 0], outputs
    assert not _lines(outputs[2][0])        # it started no workers
    assert "The job completed without this node (it waited as a spare)" in outputs[2][1]


def test_two_jobs_meet_at_one_endpoint_apart(tmp_path):
    port = _free_port()
    jobs = [_agent(tmp_path / job, port, 1, 2, f"--rdzv_id={job}") for job in ("a", "b") if
            (tmp_path / job).mkdir() is None]
    outputs = [job.communicate(timeout=120) for job in jobs]
    assert [job.returncode for job in jobs] == [0, 0], outputs
    assert all(_lines(out) == ["node 0/1 rank 0/2 sum 3 restarts 0", "node 0/1 rank 1/2 sum 3 restarts 0"]
               for out, _ in outputs)


@pytest.mark.parametrize("rendezvous", ["static", "c10d"])
def test_every_agent_succeeds_when_a_node_finishes_after_the_one_serving_the_store(tmp_path, rendezvous):
    port = _free_port()
    static = [["--master_addr=127.0.0.1", f"--master_port={port}", f"--node_rank={node}"] for node in range(2)]
    agents = [_agent(tmp_path, port, 2, 1, "--max_restarts=1", how="last_lingers",
                     rendezvous=static[node] if rendezvous == "static" else None) for node in range(2)]
    outputs = [agent.communicate(timeout=120) for agent in agents]
    assert [agent.returncode for agent in agents] == [0, 0], outputs


@pytest.mark.parametrize("options, message", [
    (["--nnodes=1:2"], "--nnodes=1:2: a range of nodes needs --rdzv_backend=c10d"),
    (["--rdzv_backend=C10d"], "The rendezvous backend 'C10d' is not registered. Did you forget to call `register`?"),
])
def test_launcher_misuse_is_refused(tmp_path, options, message):
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", *options, "--nproc_per_node=1",
                           str(tmp_path / "never_run.py")], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert message in done.stderr


# -- the rounds, agents as threads over one store ----------------------------------------------------------------------
def _in_threads(calls):
    """Each call's result (or error), the calls made at once in threads."""
    results = [None] * len(calls)

    def run(i, call):
        try:
            results[i] = call()
        except Exception as error:      # the test reads it
            results[i] = error

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_rounds_close_with_min_nodes_after_the_last_call_and_admit_a_late_node_once_the_round_before_is_left():
    store = HashStore()
    settings = dict(min_nodes=2, max_nodes=3, nproc=2, last_call_timeout=0.5, join_timeout=20)
    a, b, c = (Rendezvous(store, "job", **settings) for _ in range(3))
    started = time.monotonic()
    first = _in_threads([b.next_round, a.next_round])
    assert time.monotonic() - started >= 0.5
    assert [(p.group_rank, p.group_world_size, p.rank_offset, p.world_size) for p in first] == \
        [(1, 2, 2, 4), (0, 2, 0, 4)]         # node ranks in the order the agents first came
    assert not a.should_meet_again(first[1])
    late = threading.Thread(target=lambda: results.append(c.next_round()))
    results = []
    late.start()
    deadline = time.monotonic() + 10
    while not a.should_meet_again(first[1]) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert a.should_meet_again(first[1])        # a node waits and the round has room: meet again
    time.sleep(0.6)                             # (its last call waits for the round before to be left)
    assert not store.check(["torchelastic/rdzv/job/1/size"])
    second = _in_threads([lambda: a.next_round(first[1]), lambda: b.next_round(first[0])])
    late.join()
    assert [(p.round, p.group_rank, p.rank_offset) for p in [*second, *results]] == [(1, 0, 0), (1, 1, 2), (1, 2, 4)]


def test_a_full_round_keeps_a_late_node_waiting_as_a_spare_until_the_job_completes(monkeypatch):
    from torch.distributed import elastic_rendezvous
    monkeypatch.setattr(elastic_rendezvous, "_LEFT_WAIT", 0.2)      # (a running round's agents beat: not quiet)
    store = HashStore()
    settings = dict(min_nodes=1, max_nodes=1, nproc=1, last_call_timeout=0.1, join_timeout=20)
    a, spare = Rendezvous(store, "job", **settings), Rendezvous(store, "job", **settings)
    place = a.next_round()
    waiting = []
    thread = threading.Thread(target=lambda: waiting.append(_in_threads([spare.next_round])[0]))
    thread.start()
    for _ in range(10):
        time.sleep(0.1)
        assert not a.should_meet_again(place) and not waiting      # no room: it waits, and no round starts for it
    a.finished(place, serving=False)
    thread.join()
    assert isinstance(waiting[0], RendezvousGracefulExit)


def test_once_a_node_has_finished_a_late_node_does_not_stop_the_others():
    store = HashStore()
    settings = dict(min_nodes=1, max_nodes=3, nproc=1, last_call_timeout=0.2, join_timeout=20)
    a, b, late = (Rendezvous(store, "job", **settings) for _ in range(3))
    places = _in_threads([a.next_round, b.next_round])
    a.finished(places[0], serving=False)
    [left] = _in_threads([late.next_round])
    assert isinstance(left, RendezvousGracefulExit) and not b.should_meet_again(places[1])


def test_a_round_that_never_has_min_nodes_times_out_and_a_closed_rendezvous_raises():
    store = HashStore()
    [alone] = _in_threads([Rendezvous(store, "job", 2, 2, 1, last_call_timeout=0.1, join_timeout=0.3).next_round])
    assert isinstance(alone, RendezvousTimeoutError)
    assert "1 of at least 2 nodes have joined" in str(alone)
    Rendezvous(store, "job", 1, 1, 1).close()
    [late] = _in_threads([Rendezvous(store, "job", 1, 1, 1).next_round])
    assert isinstance(late, RendezvousClosedError)
    with pytest.raises(ValueError, match="must be at least 1 and at most the maximum"):
        Rendezvous(store, "job", 3, 2, 1)


def test_the_serving_agent_closing_the_rendezvous_waits_for_the_rounds_other_agents_to_leave():
    # (the others learn that it closed, rather than find the store gone: a race the launch test lost at times)
    store = HashStore()
    a, b = (Rendezvous(store, "job", 2, 2, 1, last_call_timeout=0.1, join_timeout=20) for _ in range(2))
    place_a, place_b = _in_threads([a.next_round, b.next_round])
    closing = threading.Thread(target=a.close, args=(place_a, True))
    closing.start()
    closing.join(0.3)
    assert closing.is_alive() and b.should_meet_again(place_b)
    [closed] = _in_threads([functools.partial(b.next_round, place_b, True)])
    assert isinstance(closed, RendezvousClosedError)
    b.leave()
    closing.join(5)
    assert not closing.is_alive()


def test_a_round_left_by_an_agent_that_died_is_over_once_quiet(monkeypatch):
    from torch.distributed import elastic_rendezvous
    monkeypatch.setattr(elastic_rendezvous, "_LEFT_WAIT", 0.3)
    store = HashStore()
    settings = dict(min_nodes=1, max_nodes=2, nproc=1, last_call_timeout=0.1, join_timeout=20)
    survivor, dies = Rendezvous(store, "job", **settings), Rendezvous(store, "job", **settings)
    places = _in_threads([survivor.next_round, dies.next_round])
    assert survivor.should_meet_again(places[0]) is False
    dies.meet_again(places[1])          # (its workers failed; then it died before meeting again)
    started = time.monotonic()
    again = survivor.next_round(places[0])
    assert (again.round, again.group_world_size) == (1, 1) and time.monotonic() - started >= 0.3
