"""Per-op cost of Ember against NumPy on this machine: tiny tensors (overhead) and 1M elements
(throughput). Run with `make bench`; compare with real PyTorch by running the same statements in
its own venv. Prints best-of-N microseconds per call."""
from __future__ import annotations

import timeit

import numpy as np

import torch


def best_us(stmt, number: int) -> float:
    return min(timeit.repeat(stmt, number=number, repeat=5)) / number * 1e6


def main() -> None:
    rows = []
    for n, number in ((1, 50_000), (1 << 20, 50)):
        a_np = np.random.rand(n).astype(np.float32)
        b_np = np.random.rand(n).astype(np.float32)
        a, b = torch.from_numpy(a_np), torch.from_numpy(b_np)
        rows += [
            (f"torch.add(a, b)        n={n}", best_us(lambda: torch.add(a, b), number), best_us(lambda: np.add(a_np, b_np), number)),
            (f"a + b                  n={n}", best_us(lambda: a + b, number), best_us(lambda: a_np + b_np, number)),
            (f"a * 2.0                n={n}", best_us(lambda: a * 2.0, number), best_us(lambda: a_np * np.float32(2.0), number)),
            (f"torch.exp(a)           n={n}", best_us(lambda: torch.exp(a), number), best_us(lambda: np.exp(a_np), number)),
            (f"a.sum()                n={n}", best_us(lambda: a.sum(), number), best_us(lambda: a_np.sum(), number)),
        ]
    rows.append(("torch.zeros(3, 4)", best_us(lambda: torch.zeros(3, 4), 50_000), best_us(lambda: np.zeros((3, 4), np.float32), 50_000)))
    print(f"{'op':36} {'ember us':>10} {'numpy us':>10}")
    for name, ours, ref in rows:
        print(f"{name:36} {ours:10.2f} {ref:10.2f}")
    print(f"threads: {torch.get_num_threads()}")


if __name__ == "__main__":
    main()
