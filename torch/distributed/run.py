"""torchrun (`python -m torch.distributed.run`): start --nproc_per_node copies of a training script on this node,
as PyTorch's launcher does: each with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR
and MASTER_PORT set, and the rendezvous store served by this agent on node 0 (the workers connect to it:
TORCHELASTIC_USE_AGENT_STORE). Several nodes: the same command on each with --nnodes, --node_rank and node 0's
--master_addr/--master_port (or --rdzv_endpoint). When a worker fails, the others are stopped; with
--max_restarts=N the whole worker group is started again, up to N times (TORCHELASTIC_RESTART_COUNT tells the
workers which attempt they are; on several nodes, the agent that saw the failure says so in node 0's store and
every agent restarts its workers). Past the last restart the launcher exits with an error that names the failed
rank and its exit code. With --rdzv_backend=c10d the agents number their nodes themselves, and --nnodes=MIN:MAX
admits nodes that arrive later (torch.distributed.elastic_rendezvous)."""
from __future__ import annotations

import argparse
import contextlib
import functools
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from typing import Any

from torch.distributed.elastic_rendezvous import Assignment, Presence

__all__ = ["get_args_parser", "main", "parse_args", "run"]


def get_args_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchrun", description="Torch Distributed Elastic Training Launcher")
    parser.add_argument("--nnodes", type=str, default="1:1")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", type=str, default="1")
    parser.add_argument("--rdzv-backend", "--rdzv_backend", type=str, default="static")
    parser.add_argument("--rdzv-endpoint", "--rdzv_endpoint", type=str, default="")
    parser.add_argument("--rdzv-id", "--rdzv_id", type=str, default="none")
    parser.add_argument("--rdzv-conf", "--rdzv_conf", type=str, default="")
    parser.add_argument("--standalone", action="store_true")
    parser.add_argument("--max-restarts", "--max_restarts", type=int, default=0)
    parser.add_argument("--monitor-interval", "--monitor_interval", type=float, default=0.1)
    parser.add_argument("--start-method", "--start_method", type=str, default="spawn")
    parser.add_argument("--role", type=str, default="default")
    parser.add_argument("-m", "--module", action="store_true")
    parser.add_argument("--no-python", "--no_python", action="store_true")
    parser.add_argument("--run-path", "--run_path", action="store_true")
    parser.add_argument("--log-dir", "--log_dir", type=str, default=None)
    parser.add_argument("-r", "--redirects", type=str, default="0")
    parser.add_argument("-t", "--tee", type=str, default="0")
    parser.add_argument("--local-ranks-filter", "--local_ranks_filter", type=str, default="")
    parser.add_argument("--node-rank", "--node_rank", type=int, default=0)
    parser.add_argument("--master-addr", "--master_addr", type=str, default="127.0.0.1")
    parser.add_argument("--master-port", "--master_port", type=int, default=29500)
    parser.add_argument("--local-addr", "--local_addr", type=str, default=None)
    parser.add_argument("training_script", type=str)
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def parse_args(args: list[str] | None) -> argparse.Namespace:
    return get_args_parser().parse_args(args)


def _nodes(text: str) -> tuple[int, int]:
    """--nnodes: (min, max) from "N" or "MIN:MAX"."""
    low, _, high = text.partition(":")
    return int(low), int(high or low)


def _rdzv_conf(text: str) -> dict[str, str]:
    """--rdzv_conf: "key=value,key=value"."""
    pairs = [item.split("=", 1) for item in text.split(",") if item.strip()]
    if any(len(pair) != 2 for pair in pairs):
        raise ValueError(f"--rdzv_conf={text}: expected key=value pairs separated by commas")
    return {key.strip(): value.strip() for key, value in pairs}


def _procs(text: str) -> int:
    if text in ("auto", "cpu"):
        return os.cpu_count() or 1
    if text == "gpu":
        raise ValueError("--nproc_per_node=gpu: Ember's launcher has no GPU engine (NCCL) to start GPU workers for")
    return int(text)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(args: argparse.Namespace) -> None:
    from torch.distributed.stores import TCPStore

    (nnodes, max_nodes), nproc = _nodes(args.nnodes), _procs(args.nproc_per_node)
    if args.rdzv_backend not in ("static", "c10d") and not args.standalone:
        raise ValueError(f"The rendezvous backend '{args.rdzv_backend}' is not registered. Did you forget to call "
                         "`register`?")
    _threads_note(nproc)
    if args.standalone:
        nnodes, args.node_rank = 1, 0
        args.master_addr, args.master_port = "127.0.0.1", _free_port()
    elif args.rdzv_backend == "c10d":
        _run_elastic(args, nnodes, max_nodes, nproc)
        return
    elif nnodes != max_nodes:
        raise ValueError(f"--nnodes={args.nnodes}: a range of nodes needs --rdzv_backend=c10d (the static "
                         "rendezvous runs a fixed number of nodes)")
    elif args.rdzv_endpoint:
        host, _, port = args.rdzv_endpoint.rpartition(":")
        args.master_addr, args.master_port = host or args.rdzv_endpoint, int(port or 29400)
    # node 0's agent serves the rendezvous store every worker connects to (and leaves last); the other agents use
    # it to restart together
    store = TCPStore(args.master_addr, args.master_port, nnodes * nproc, is_master=args.node_rank == 0,
                     wait_for_workers=False, multi_tenant=True)
    run_id = args.rdzv_id if args.rdzv_id != "none" else uuid.uuid4().hex
    with Presence(store, serving=args.node_rank == 0):
        _attempts(args, store, nnodes, nproc, run_id)


def _threads_note(nproc: int) -> None:
    if nproc > 1 and "OMP_NUM_THREADS" not in os.environ:
        print("*****************************************\nSetting OMP_NUM_THREADS environment variable for each "
              "process to be 1 in default, to avoid your system being overloaded, please further tune the "
              "variable for optimal performance in your application as needed. \n"
              "*****************************************", file=sys.stderr)


def _attempts(args: argparse.Namespace, store: Any, nnodes: int, nproc: int, run_id: str) -> None:
    """The static rendezvous: this node's workers, started again after a failure up to --max_restarts times."""
    for attempt in range(args.max_restarts + 1):
        place = Assignment(attempt, args.node_rank, nnodes, args.node_rank * nproc, nnodes * nproc)
        workers = _start(args, place, nproc, run_id, attempt, str(attempt))
        failure = _monitor(workers, args.monitor_interval, _restart_called(store, attempt))
        if failure is None:
            return
        if attempt < args.max_restarts:     # the other nodes' agents restart theirs too
            store.set(f"torchrun/restart/{attempt}", b"1")
            left = args.max_restarts - attempt
            print(f"[{args.role}] Worker group FAILED. {left}/{args.max_restarts} attempts left; will restart "
                  "worker group", file=sys.stderr)
            continue
        if failure == _RESTARTED:
            raise SystemExit(1)
        _failed(args, failure)


def _failed(args: argparse.Namespace, failure: tuple[int, int, Any, int]) -> None:
    """Exit, naming the worker that failed first (PyTorch's ChildFailedError report)."""
    rank, local_rank, process, code = failure
    print(f"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n{'=' * 60}\n"
          f"{args.training_script} FAILED\n{'-' * 60}\nRoot Cause (first observed failure):\n[0]:\n"
          f"  time      : {time.strftime('%Y-%m-%d_%H:%M:%S')}\n  host      : {socket.gethostname()}\n"
          f"  rank      : {rank} (local_rank: {local_rank})\n  exitcode  : {code} (pid: {process.pid})\n"
          f"{'=' * 60}", file=sys.stderr)
    raise SystemExit(1)


def _run_elastic(args: argparse.Namespace, min_nodes: int, max_nodes: int, nproc: int) -> None:
    """The agent of a c10d rendezvous (torch.distributed.elastic_rendezvous): its workers start again at each new
    round, after a membership change or a failure (which alone counts against --max_restarts)."""
    from torch.distributed.elastic_rendezvous import (Rendezvous, RendezvousClosedError, RendezvousGracefulExit,
                                                      agent_store)
    from torch.distributed.errors import DistError

    endpoint = args.rdzv_endpoint or "localhost:29400"
    host, _, port = endpoint.rpartition(":") if ":" in endpoint else (endpoint, "", "29400")
    conf = _rdzv_conf(args.rdzv_conf)
    join_timeout = float(conf.get("join_timeout", 600))
    store, serving = agent_store(host, int(port), timedelta(seconds=join_timeout))
    args.master_addr, args.master_port = host, int(port)
    for signum in (signal.SIGTERM, signal.SIGINT):      # (a signal leaves through the rendezvous too)
        signal.signal(signum, _exit_on)
    # (the serving agent waits for its last round's agents as it finishes; for spares and other runs, 30 s more)
    with Presence(store, serving, wait_s=30):
        rendezvous = None
        try:
            rendezvous = Rendezvous(store, args.rdzv_id, min_nodes, max_nodes, nproc,
                                    float(conf.get("last_call_timeout", 30)), join_timeout)
            _rounds(args, rendezvous, nproc, serving)
        except RendezvousGracefulExit as done:
            print(f"[{args.role}] {done}", file=sys.stderr)
        except (RendezvousClosedError, DistError) as error:     # (DistError: the store is gone)
            print(f"[{args.role}] {error}", file=sys.stderr)
            raise SystemExit(1) from None
        finally:
            if rendezvous is not None:
                with contextlib.suppress(DistError):
                    rendezvous.leave()


def _exit_on(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _rounds(args: argparse.Namespace, rendezvous: Any, nproc: int, serving: bool) -> None:
    """Run this node's workers in each round of the rendezvous until they succeed or fail past the restarts."""
    restarts, place, failed = 0, None, False
    while True:
        place = rendezvous.next_round(place, failed)
        workers = _start(args, place, nproc, args.rdzv_id, restarts, f"{args.rdzv_id}/{place.round}")
        failure = _monitor(workers, args.monitor_interval, functools.partial(rendezvous.should_meet_again, place))
        failed = failure not in (None, _RESTARTED)
        if failure is None:
            rendezvous.finished(place, serving)
            return
        if not failed:          # a membership change, or another node's failure: meet again
            continue
        if restarts < args.max_restarts:
            restarts += 1
            rendezvous.meet_again(place)
            print(f"[{args.role}] Worker group FAILED. {args.max_restarts - restarts + 1}/{args.max_restarts} "
                  "attempts left; will restart worker group", file=sys.stderr)
            continue
        rendezvous.close(place, serving)
        _failed(args, failure)


_RESTARTED: Any = ("restarted by another node's agent",)


def _restart_called(store: Any, attempt: int) -> Any:
    """A check the monitor makes: whether another node's agent has restarted the group at this attempt."""
    return lambda: store.check([f"torchrun/restart/{attempt}"])


def _start(args: argparse.Namespace, place: Assignment, nproc: int, run_id: str, restarts: int,
           meeting: str) -> list[Any]:
    """This node's workers, in its place among the nodes (their store keys are those of `meeting`: the attempt,
    or the run and round)."""
    command = _command(args)
    world = place.world_size
    workers = []
    for local_rank in range(nproc):
        rank = place.rank_offset + local_rank
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(local_rank), WORLD_SIZE=str(world),
                   LOCAL_WORLD_SIZE=str(nproc), GROUP_RANK=str(place.group_rank),
                   GROUP_WORLD_SIZE=str(place.group_world_size), ROLE_RANK=str(rank), ROLE_WORLD_SIZE=str(world),
                   ROLE_NAME=args.role, MASTER_ADDR=args.master_addr, MASTER_PORT=str(args.master_port),
                   TORCHELASTIC_RUN_ID=run_id, TORCHELASTIC_RESTART_COUNT=str(restarts),
                   TORCHELASTIC_MAX_RESTARTS=str(args.max_restarts), TORCHELASTIC_USE_AGENT_STORE=str(True),
                   TORCH_NCCL_ASYNC_ERROR_HANDLING="1", EMBER_RDZV_MEETING=meeting)
        if nproc > 1:
            env.setdefault("OMP_NUM_THREADS", "1")
        workers.append((rank, local_rank, subprocess.Popen(command, env=env)))
    return workers


def _command(args: argparse.Namespace) -> list[str]:
    if args.no_python:
        if args.module:
            raise ValueError("Don't use both the '--no-python' flag and the '--module' flag at the same time.")
        return [args.training_script, *args.training_script_args]
    prefix = [sys.executable, "-u"]
    if args.module:
        return [*prefix, "-m", args.training_script, *args.training_script_args]
    return [*prefix, args.training_script, *args.training_script_args]


def _monitor(workers: list[tuple[int, int, Any]], interval: float,
             restart_called: Any) -> tuple[int, int, Any, int] | Any | None:
    """Wait for the workers; at the first that fails (or when another node's agent restarts the group), stop the
    others and return it (_RESTARTED). SIGTERM or SIGINT to the launcher stops the workers, and it exits as the
    signal would have it exit."""
    def stop(signum: int, frame: Any) -> None:
        _stop([p for _, _, p in workers])
        raise SystemExit(128 + signum)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    while True:
        codes = [(rank, local, p, p.poll()) for rank, local, p in workers]
        failed = next((c for c in codes if c[3] not in (None, 0)), None)
        if failed is not None:
            _stop([p for _, _, p, code in codes if code is None])
            return failed
        if all(code == 0 for *_, code in codes):
            return None
        try:
            again = restart_called()
        except BaseException:       # (the store is gone): no worker outlives its agent
            _stop([p for _, _, p, code in codes if code is None])
            raise
        if again:
            _stop([p for _, _, p, code in codes if code is None])
            return _RESTARTED
        time.sleep(interval)


def _stop(processes: list[Any], grace: float = 5.0) -> None:
    for p in processes:
        p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in processes:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main(args: list[str] | None = None) -> None:
    run(parse_args(args))


if __name__ == "__main__":
    main()
