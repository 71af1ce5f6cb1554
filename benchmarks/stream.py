"""This machine's memory bandwidth, measured with NumPy the way STREAM does: copy (c = a) and triad
(a = b + q * c) over float64 arrays much larger than the caches, split across threads (NumPy
releases the GIL inside its loops). Bytes counted as STREAM counts them: 2 arrays for copy, 3 for
triad, write-allocate traffic not included; the best of the repeats is reported, in GB/s.

The triad works in cache-sized blocks so the temporary q * c never goes to memory: NumPy has no
fused multiply-add over three arrays, and two full passes would move 5 arrays instead of 3."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, List, Tuple

import numpy as np

BLOCK = 1 << 15   # float64 elements per triad block: 256 KiB, well inside L2


def _parts(n: int, threads: int) -> List[Tuple[int, int]]:
    step = -(-n // threads)
    return [(lo, min(lo + step, n)) for lo in range(0, n, step)]


def measure_bandwidth(n: int, threads: int, repeat: int) -> Dict[str, float]:
    a = np.full(n, 1.0)
    b = np.full(n, 2.0)
    c = np.zeros(n)          # every page touched before timing
    q = 3.0
    parts = _parts(n, max(1, threads))
    temps = [np.empty(BLOCK) for _ in parts]

    def copy(i: int) -> None:
        lo, hi = parts[i]
        np.copyto(c[lo:hi], a[lo:hi])

    def triad(i: int) -> None:
        lo, hi = parts[i]
        tmp = temps[i]
        for s in range(lo, hi, BLOCK):
            e = min(s + BLOCK, hi)
            t = tmp[:e - s]
            np.multiply(c[s:e], q, out=t)
            np.add(b[s:e], t, out=a[s:e])

    def best(kernel: Callable[[int], None], pool: ThreadPoolExecutor) -> float:
        times = []
        for _ in range(repeat + 1):   # the first pass is a warm-up
            start = time.perf_counter()
            list(pool.map(kernel, range(len(parts))))
            times.append(time.perf_counter() - start)
        return min(times[1:])

    with ThreadPoolExecutor(max_workers=len(parts)) as pool:
        copy_s = best(copy, pool)
        triad_s = best(triad, pool)
    return {"copy": 2 * 8 * n / copy_s / 1e9, "triad": 3 * 8 * n / triad_s / 1e9,
            "n": n, "threads": len(parts)}
