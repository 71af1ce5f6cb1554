"""`python -m benchmarks.distributed --quick`: 2 spawned Ember ranks and 2 mpi4py ranks under mpiexec give one
row per message size and the DDP step's time."""
import re

from benchmarks import distributed


def test_quick_run_prints_a_row_per_size_beside_mpi4py_and_the_ddp_step(capsys):
    assert distributed.main(["--quick", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^\s*(\d+ [KM]?B)\s+([\d.]+) us .*?([\d.]+) us .*?(\d+)%$", out, re.M)
    assert [r[0] for r in rows] == ["8 B", "1 KB", "64 KB", "1 MB"]
    assert all(float(ember) > 0 and float(raw) > 0 for _, ember, raw, _ in rows)
    assert re.search(r"^DDP step \(MLP of 2.9 M parameters, batch 32 per rank\): Ember [\d.]+ ms$", out, re.M)
