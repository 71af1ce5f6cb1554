"""`python -m benchmarks`: Ember beside NumPy, another interpreter's PyTorch and this machine's
memory bandwidth, one table.

Ember (the `torch` this interpreter imports, the repository's when run from its root) and NumPy
are timed in this process; `--compare-python PATH` runs the same definitions (suite.py) in a
subprocess under PATH, started from an empty directory without PYTHONPATH so that its
`import torch` finds that install's PyTorch. Each row times the implementations back to
back, so changing load on a shared machine hits them nearly alike. The ratio column is
compare-time / Ember-time: above 1 Ember is faster.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any, Dict, List, Optional

from benchmarks import report, suite

SUITE = Path(suite.__file__).resolve()
REPO = SUITE.parents[1]
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--filter", metavar="REGEX", help="only the rows whose id or label matches (re.search)")
    p.add_argument("--repeat", type=int, default=5, metavar="N",
                   help="timed loops per row and implementation; the best (minimum) is shown (default 5)")
    p.add_argument("--quick", action="store_true", help="small sizes and short loops: a smoke test")
    p.add_argument("--threads", type=int, metavar="N",
                   help="torch.set_num_threads(N) in both interpreters, and N STREAM threads")
    p.add_argument("--compare-python", metavar="PATH",
                   help="another interpreter whose torch runs the same benchmarks (e.g. real PyTorch)")
    p.add_argument("--json", metavar="PATH", help="also save the results as JSON")
    p.add_argument("--no-stream", action="store_true", help="skip the memory-bandwidth measurement")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    if args.threads is not None and args.threads < 1:
        p.error("--threads must be at least 1")
    return args


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Compare:
    """The compared interpreter: suite.py --serve in a subprocess, one request at a time.

    A failure (it can't start, imports this repository's torch, or dies) is kept in `error` and
    every row from then on reports it instead of a figure."""

    def __init__(self, python: str, quick: bool, threads: Optional[int], target_s: float) -> None:
        self.python = python
        self.meta: Dict[str, Any] = {}
        self.error: Optional[str] = None
        self.proc: Optional[subprocess.Popen[str]] = None
        self.tmp = tempfile.TemporaryDirectory(prefix="ember-bench-")
        self.stderr: IO[str] = open(os.path.join(self.tmp.name, "stderr.txt"), "w+")
        cmd = [python, str(SUITE), "--serve", "--target", str(target_s)]
        if quick:
            cmd.append("--quick")
        if threads:
            cmd += ["--threads", str(threads)]
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
        try:
            self.proc = subprocess.Popen(cmd, cwd=self.tmp.name, env=env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.stderr, text=True, bufsize=1)
        except OSError as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            return
        meta = self._read()
        if meta is None:
            return
        self.meta = meta
        torch_file = Path(meta["torch_file"]).resolve()
        if REPO in torch_file.parents:
            self._fail(f"{python} imported this repository's torch ({torch_file}), not another one")

    @property
    def name(self) -> str:
        version = self.meta.get("torch_version")
        return f"torch {version.split('+')[0]}" if version else "ref torch"

    def _fail(self, error: str) -> None:
        self.error = error
        self.close()

    def _read(self) -> Optional[Dict[str, Any]]:
        assert self.proc is not None and self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line:
            reply: Dict[str, Any] = json.loads(line)
            return reply
        code = self.proc.wait()
        self.stderr.seek(0)
        last = [x for x in self.stderr.read().strip().splitlines() if x.strip()][-1:] or ["no output"]
        self._fail(f"exit {code}: {last[0].strip()}")
        return None

    def request(self, message: Dict[str, Any]) -> Dict[str, Any]:
        if self.error is None:
            assert self.proc is not None and self.proc.stdin is not None
            try:
                self.proc.stdin.write(json.dumps(message) + "\n")
                self.proc.stdin.flush()
            except OSError:
                pass   # it died: _read says how
            reply = self._read()
            if reply is not None:
                return reply
        return {"error": f"compare run failed: {self.error}"}

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.stdin is not None:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            if self.proc.stdout is not None:
                self.proc.stdout.close()
            self.proc = None
        if not self.stderr.closed:
            self.stderr.close()
            self.tmp.cleanup()


def time_case(c: suite.Case, torch: Any, np: Any, compare: Optional[Compare], sizes: suite.Sizes,
              repeat: int, target_s: float, settle_s: float) -> Dict[str, Dict[str, Any]]:
    """Ember, NumPy and the compared torch on one case, one after the other, `settle_s` apart."""
    results = {"ember": suite.measure(c.torch, (torch, np), sizes, repeat, target_s)}
    time.sleep(settle_s)
    results["numpy"] = suite.measure(c.numpy, (np,), sizes, repeat, target_s)
    if compare is not None:
        time.sleep(settle_s)
        results["compare"] = compare.request({"run": c.id, "repeat": repeat})
    return results


def build_rows(cases: List[suite.Case], sizes: suite.Sizes, results: Dict[str, Dict[str, Dict[str, Any]]],
               bandwidth: Optional[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """One dict per case: each implementation's result with its figure, the ratio and the flag."""
    rows = []
    for c in cases:
        row: Dict[str, Any] = {"id": c.id, "group": c.group, "label": c.label(sizes), "unit": c.unit,
                               "work": c.work(sizes) if c.unit not in suite.PER_CALL else None}
        for key, result in results[c.id].items():
            result = dict(result)
            if "seconds" in result:
                result["value"] = c.rate(result["seconds"], sizes)
            row[key] = result
        ratio = None
        if "seconds" in row["ember"] and "seconds" in row.get("compare", {}):
            ratio = row["compare"]["seconds"] / row["ember"]["seconds"]
        row["ratio"] = ratio
        row["slow"] = ratio is not None and ratio < report.SLOW
        row["limit"] = ({"kernel": c.limit, "gbs": bandwidth[c.limit]}
                        if c.limit and bandwidth and c.limit in bandwidth else None)
        rows.append(row)
    return rows


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def load_average() -> float:
    """The 1-minute load average (runnable processes), 0 where unknown."""
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return 0.0


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if args.threads:
        # Before NumPy loads its BLAS and before the compared interpreter starts.
        for var in THREAD_VARS:
            os.environ[var] = str(args.threads)
    import numpy as np

    import torch
    from benchmarks.stream import measure_bandwidth   # imports NumPy too: after the thread variables
    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    sizes = suite.QUICK if args.quick else suite.FULL
    target_s = 0.005 if args.quick else 0.2
    settle_s = 0.0 if args.quick else 0.2
    repeat = min(args.repeat, 2) if args.quick else args.repeat
    cases = suite.select(args.filter)
    if not cases:
        log(f"no benchmark matches {args.filter!r}; ids: {', '.join(c.id for c in suite.CASES)}")
        return 2
    started = time.perf_counter()
    load_before = load_average()

    bandwidth = None
    if not args.no_stream and any(c.limit for c in cases):
        log("memory bandwidth (NumPy STREAM)")
        bandwidth = measure_bandwidth(sizes.stream_n, threads, repeat)

    compare = None
    if args.compare_python:
        log(f"starting {args.compare_python}")
        compare = Compare(args.compare_python, args.quick, args.threads, target_s)
    results = {}
    try:
        for i, c in enumerate(cases):
            log(f"[{i + 1}/{len(cases)}] {c.id}")
            results[c.id] = time_case(c, torch, np, compare, sizes, repeat, target_s, settle_s)
    finally:
        if compare is not None:
            compare.close()

    if bandwidth is not None:
        # Measured again at the end, the best of both kept: the limit is a maximum, and other work
        # on the machine only ever lowers a figure.
        log("memory bandwidth again")
        again = measure_bandwidth(sizes.stream_n, threads, repeat)
        bandwidth = {k: max(v, again[k]) for k, v in bandwidth.items()}

    rows = build_rows(cases, sizes, results, bandwidth)
    ember_meta = suite.interpreter_meta(torch)
    version = ember_meta["torch_version"]
    header = [
        f"Ember benchmarks{' (--quick sizes: cache-resident, a smoke test)' if args.quick else ''}, "
        f"{time.perf_counter() - started:.0f} s.",
        f"Each figure: the best (minimum time per call) of {repeat} timed loops, after warm-up; each loop"
        f" repeats the call until it lasts >= {target_s * 1e3:g} ms; each row runs Ember, NumPy, ref back to back.",
        "GB/s = bytes the op must read + write / time; GFLOP/s = 2*m*n*k (conv: 2*N*K*C*9*H*W) / time.",
        f"Ember: torch {version + ' ' if version != '?' else ''}from {ember_meta['torch_file']}, "
        f"{plural(threads, 'thread')}; NumPy {np.__version__} (same process).",
    ]
    cpus, load_after = os.cpu_count() or 1, load_average()
    busy = max(load_before, load_after) > cpus - 0.5
    header.append(f"Machine: {cpus} CPUs, load average {load_before:.1f} before and {load_after:.1f} after"
                  + (" (other work was running: expect noise, worst with several threads; try --threads 1)."
                     if busy else "."))
    if compare is not None:
        if compare.meta:
            m = compare.meta
            header.append(f"Compared: torch {m['torch_version']} from {args.compare_python} (Python {m['python']}),"
                          f" {plural(m['threads'], 'thread')}.")
            header.append(f"Ember/ref = ref time / Ember time (>1: Ember faster); SLOW: below {report.SLOW}x.")
        if compare.error:
            header.append(f"Compared interpreter failed: {compare.error}")
    if bandwidth:
        header.append(f"Memory bandwidth (NumPy STREAM-like, float64 {suite.pow2(int(bandwidth['n']))}, "
                      f"{plural(int(bandwidth['threads']), 'thread')}, best of start and end): copy "
                      f"{report.number(bandwidth['copy'])} GB/s, triad {report.number(bandwidth['triad'])} GB/s.")
        header.append("'mem limit': the STREAM kernel moving as many arrays as the op (copy: 1 in + 1 out, "
                      "triad: 2 in + 1 out).")
    header.append("NumPy's max and sort give values only (torch also gives indices); '-': no NumPy equivalent;"
                  " n/a: the op failed there (notes say why).")
    print(report.render(rows, header, compare.name if compare is not None else None))

    if args.json:
        doc = {"config": {"quick": args.quick, "repeat": repeat, "threads": threads, "filter": args.filter,
                          "target_s": target_s, "statistic": "min seconds per call", "sizes": sizes.__dict__},
               "ember": ember_meta, "numpy_version": np.__version__,
               "machine": {"cpus": cpus, "load_before": load_before, "load_after": load_after},
               "compare": ({**compare.meta, "error": compare.error, "interpreter": args.compare_python}
                           if compare is not None else None),
               "bandwidth": bandwidth, "rows": rows}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    return 0
