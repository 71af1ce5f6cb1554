"""What the multiprocessing tests run in child processes. Imported by the tests as a top-level module
(its directory put on sys.path), so a spawned child, which starts from a fresh interpreter, imports it
by that name: as test.torch.* it would meet the standard library's `test` package first."""


def add_ten_and_send_a_view_back(inbox, outbox, done):
    t = inbox.get()
    t.add_(10)
    outbox.put(t[1:3])
    done.wait()         # the sender keeps the descriptor's server alive until the parent has the view


def fail_on_rank_one(rank, value):
    if rank == 1:
        raise ValueError(f"rank one failed with {value}")


def exit_with_code(rank):
    raise SystemExit(3)
