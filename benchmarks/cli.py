"""`python -m benchmarks`: Ember beside NumPy, another interpreter's PyTorch and this machine's
memory bandwidth, one table.

Ember (the `torch` this interpreter imports, the repository's when run from its root) and NumPy
are timed in this process; `--compare-python PATH` runs the same definitions (suite.py) in a
subprocess under PATH, from an empty directory, so its `import torch` finds that install's
PyTorch. The ratio column is compare-time / Ember-time: above 1 Ember is faster.
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
from typing import Any, Dict, List, Optional

from benchmarks import report, suite
from benchmarks.stream import measure_bandwidth

SUITE = Path(suite.__file__).resolve()
REPO = SUITE.parents[1]
COMPARE_TIMEOUT_S = 3600


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--filter", metavar="REGEX", help="only the rows whose id or label matches (re.search)")
    p.add_argument("--repeat", type=int, default=5, metavar="N",
                   help="timed loops per row; the best (minimum) is shown (default 5)")
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


def run_compare(python: str, args: argparse.Namespace, target_s: float) -> Dict[str, Any]:
    """Runs suite.py under `python` from an empty directory, without PYTHONPATH, so the torch it
    imports is that interpreter's own. Returns {"meta", "results"} or {"error"}."""
    with tempfile.TemporaryDirectory(prefix="ember-bench-") as tmp:
        out = os.path.join(tmp, "results.json")
        cmd = [python, str(SUITE), "--worker", out, "--repeat", str(args.repeat), "--target", str(target_s)]
        if args.quick:
            cmd.append("--quick")
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        if args.filter:
            cmd += ["--filter", args.filter]
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
        try:
            proc = subprocess.run(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, timeout=COMPARE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return {"error": f"{type(exc).__name__}: {exc}"}
        if proc.returncode != 0 or not os.path.exists(out):
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            return {"error": f"exit {proc.returncode}: {tail[0]}"}
        with open(out) as f:
            data: Dict[str, Any] = json.load(f)
    torch_file = Path(data["meta"]["torch_file"]).resolve()
    if REPO in torch_file.parents:
        return {"error": f"{python} imported this repository's torch ({torch_file}), not another one"}
    return data


def build_rows(cases: List[suite.Case], sizes: suite.Sizes, ember: Dict[str, Any], numpy: Dict[str, Any],
               compare: Optional[Dict[str, Any]], bandwidth: Optional[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """One dict per case: each implementation's result with its figure, the ratio and the flag."""
    rows = []
    for c in cases:
        row: Dict[str, Any] = {"id": c.id, "group": c.group, "label": c.label(sizes), "unit": c.unit,
                               "work": c.work(sizes) if c.unit != "us" else None}
        for key, results in (("ember", ember), ("numpy", numpy), ("compare", compare)):
            if results is None:
                continue
            if "error" in results and "results" not in results:
                result: Dict[str, Any] = {"error": f"compare run failed: {results['error']}"}
            else:
                result = dict(results.get("results", results).get(c.id) or {"error": "not run"})
            if "seconds" in result:
                result["value"] = c.rate(result["seconds"], sizes)
            row[key] = result
        ratio = None
        if compare is not None and "seconds" in row["ember"] and "seconds" in row["compare"]:
            ratio = row["compare"]["seconds"] / row["ember"]["seconds"]
        row["ratio"] = ratio
        row["slow"] = ratio is not None and ratio < report.SLOW
        row["limit"] = ({"kernel": c.limit, "gbs": bandwidth[c.limit]}
                        if c.limit and bandwidth and c.limit in bandwidth else None)
        rows.append(row)
    return rows


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if args.threads:
        # Before NumPy loads its BLAS and before the compared interpreter starts.
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    import numpy as np

    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    sizes = suite.QUICK if args.quick else suite.FULL
    target_s = 0.005 if args.quick else 0.2
    repeat = min(args.repeat, 2) if args.quick else args.repeat
    cases = suite.select(args.filter)
    if not cases:
        log(f"no benchmark matches {args.filter!r}; ids: {', '.join(c.id for c in suite.CASES)}")
        return 2
    started = time.perf_counter()

    bandwidth = None
    want_stream = not args.no_stream and any(c.limit for c in cases)
    if want_stream:
        log("memory bandwidth (NumPy STREAM)")
        bandwidth = measure_bandwidth(sizes.stream_n, threads, repeat)

    ember: Dict[str, Any] = {}
    numpy: Dict[str, Any] = {}
    for i, c in enumerate(cases):
        log(f"[{i + 1}/{len(cases)}] {c.id}")
        ember[c.id] = suite.run_one(c, c.torch, (torch, np), sizes, repeat, target_s)
        numpy[c.id] = suite.run_one(c, c.numpy, (np,), sizes, repeat, target_s)

    if bandwidth is not None:
        # Measured again at the end, the best of both kept: the limit is a maximum, and other work
        # on the machine only ever lowers a figure.
        log("memory bandwidth again")
        again = measure_bandwidth(sizes.stream_n, threads, repeat)
        bandwidth = {k: max(v, again[k]) for k, v in bandwidth.items()}

    compare = None
    compare_name = None
    if args.compare_python:
        log(f"compare: {args.compare_python}")
        compare = run_compare(args.compare_python, args, target_s)
        version = compare.get("meta", {}).get("torch_version")
        compare_name = f"torch {version.split('+')[0]}" if version else "ref torch"

    rows = build_rows(cases, sizes, ember, numpy, compare, bandwidth)
    ember_meta = suite.interpreter_meta(torch)
    version = ember_meta["torch_version"]
    header = [
        f"Ember benchmarks{' (--quick sizes: cache-resident, a smoke test)' if args.quick else ''}, "
        f"{time.perf_counter() - started:.0f} s.",
        f"Each figure: the best (minimum time per call) of {repeat} timed loops, after warm-up; each loop"
        f" repeats the call until it lasts >= {target_s * 1e3:g} ms.",
        "GB/s = bytes the op must read + write / time; GFLOP/s = 2*m*n*k (conv: 2*N*K*C*9*H*W) / time.",
        f"Ember: torch {version + ' ' if version != '?' else ''}from {ember_meta['torch_file']}, "
        f"{threads} threads; NumPy {np.__version__} (same process).",
    ]
    if compare is not None:
        if "meta" in compare:
            m = compare["meta"]
            header.append(f"Compared: torch {m['torch_version']} from {args.compare_python} (Python {m['python']}),"
                          f" {m['threads']} threads.")
            header.append(f"Ember/ref = ref time / Ember time (>1: Ember faster); SLOW: below {report.SLOW}x.")
        else:
            header.append(f"Compared interpreter failed: {compare['error']}")
    if bandwidth:
        header.append(f"Memory bandwidth (NumPy STREAM-like, float64 {suite.pow2(int(bandwidth['n']))}, "
                      f"{bandwidth['threads']} threads, best of start and end): copy "
                      f"{report.number(bandwidth['copy'])} GB/s, triad {report.number(bandwidth['triad'])} GB/s.")
        header.append("'mem limit': the STREAM kernel moving as many arrays as the op (copy: 1 in + 1 out, "
                      "triad: 2 in + 1 out).")
    header.append("NumPy's max and sort give values only (torch also gives indices); '-': no NumPy equivalent;"
                  " n/a: the op failed there (notes say why).")
    print(report.render(rows, header, compare_name))

    if args.json:
        doc = {"config": {"quick": args.quick, "repeat": repeat, "threads": threads, "filter": args.filter,
                          "target_s": target_s, "statistic": "min seconds per call", "sizes": sizes.__dict__},
               "ember": ember_meta, "numpy_version": np.__version__,
               "compare": compare.get("meta", {"error": compare.get("error")}) if compare is not None else None,
               "bandwidth": bandwidth, "rows": rows}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    return 0
