"""Thread settings as PyTorch's: OMP_NUM_THREADS / MKL_NUM_THREADS at start-up, set_num_threads at
any time, get_num_threads truthful, DataLoader workers single-threaded."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import torch
from torch.utils.data import DataLoader, Dataset

_PROBE = "import torch, warnings; print(torch.get_num_threads(), torch.get_num_interop_threads())"


def _threads_with(**env):
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "ATEN_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-W", "always", "-c", _PROBE], env={**clean, **env}, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    intra, interop = (int(v) for v in done.stdout.split())
    return intra, interop, done.stderr


def _cores():
    return len(os.sched_getaffinity(0))


@pytest.mark.parametrize("env, expected", [
    ({"OMP_NUM_THREADS": "1"}, 1),
    ({"MKL_NUM_THREADS": "1"}, 1),
    ({"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "1"}, 1),     # MKL's setting wins, as in PyTorch
    ({"OMP_NUM_THREADS": "3,1"}, min(3, os.cpu_count())),       # OpenMP's nested list: its outer level
    ({"OMP_NUM_THREADS": str(os.cpu_count() + 6)}, os.cpu_count()),   # at most the machine's cores, as PyTorch
    ({"OMP_NUM_THREADS": "1", "ATEN_NUM_THREADS": "2"}, 2),     # Ember's own variable first
])
def test_thread_variables_set_the_default_at_start_up(env, expected):
    assert _threads_with(**env)[0] == expected


def test_without_variables_every_core_this_process_may_use_is_the_default():
    intra, interop, _ = _threads_with()
    assert intra == _cores()
    assert interop == os.cpu_count()
    assert _threads_with(OMP_NUM_THREADS="1")[1] == os.cpu_count()     # interop ignores the variable, as PyTorch


def test_an_invalid_thread_variable_warns_and_keeps_the_default():
    intra, _, stderr = _threads_with(OMP_NUM_THREADS="lots")
    assert intra == _cores()
    assert "Invalid OMP_NUM_THREADS variable value" in stderr


def test_set_num_threads_takes_effect_at_once_and_refuses_non_positive_counts(threads):
    torch.set_num_threads(1)
    assert torch.get_num_threads() == 1
    x = torch.arange(100_000, dtype=torch.float64)
    assert float((x + 1).sum()) == float(sum(range(1, 100_001)))
    torch.set_num_threads(2)
    assert torch.get_num_threads() == 2
    with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
        torch.set_num_threads(0)


def test_interop_threads_are_set_once_as_in_pytorch():
    done = subprocess.run([sys.executable, "-c",
                           "import torch\ntorch.set_num_interop_threads(3)\nprint(torch.get_num_interop_threads())\n"
                           "try:\n    torch.set_num_interop_threads(2)\nexcept RuntimeError as e:\n    print(e)"],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == ["3", "Error: cannot set number of interop threads after parallel work has "
                                             "started or set_num_interop_threads called"]
    with pytest.raises(RuntimeError, match="set_num_interop_threads expects a positive integer"):
        torch.set_num_interop_threads(0)


class _ThreadCount(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return torch.get_num_threads()


def test_dataloader_workers_run_single_threaded_as_pytorchs(threads):
    torch.set_num_threads(2)
    counts = [int(b) for b in DataLoader(_ThreadCount(), num_workers=2)]
    assert counts == [1, 1]
    assert torch.get_num_threads() == 2
