"""Mixed precision on the CPU: what autocast costs per op, and a training step under autocast and a
GradScaler beside the same step in float32.

Usage: .venv/bin/python -m benchmarks.amp [--python PATH] [--repeats N]

Each measurement runs in a fresh process (`import torch` is whatever that interpreter finds), the
median of --repeats timed blocks; --python adds the same measurements under another interpreter
(e.g. a real PyTorch, from outside this tree), side by side.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_MEASURE = r'''
import json, statistics, sys, time, torch
repeats = int(sys.argv[1])
torch.manual_seed(0)

def median_us(fn, number):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number * 1e6)
    return statistics.median(times)

a = torch.randn(8, 8)
w = torch.randn(8, 8, requires_grad=True)
out = {}
out["mm 8x8, float32"] = median_us(lambda: torch.mm(a, a), 2000)
with torch.autocast("cpu"):
    out["mm 8x8, autocast"] = median_us(lambda: torch.mm(a, a), 2000)
    out["relu 8x8 (not listed), autocast"] = median_us(lambda: torch.relu(a), 2000)
out["relu 8x8, no autocast"] = median_us(lambda: torch.relu(a), 2000)

model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
                            torch.nn.Linear(512, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(128, 256), torch.randint(0, 10, (128,))
scaler = torch.amp.GradScaler("cpu")

def step_float32():
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()

def step_amp():
    opt.zero_grad()
    with torch.autocast("cpu"):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()

out["MLP step (128x256 -> 512 -> 512 -> 10), float32"] = median_us(step_float32, 20)
out["MLP step, autocast bfloat16 + GradScaler"] = median_us(step_amp, 20)
print(json.dumps(out))
'''


def measure(python: str, repeats: int) -> dict[str, float]:
    env = dict(os.environ)
    result = subprocess.run([python, "-c", _MEASURE, str(repeats)], capture_output=True, text=True, check=True,
                            cwd=os.getcwd() if python == sys.executable else "/", env=env)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.amp", description=__doc__.split("\n")[0])
    parser.add_argument("--python", help="also measure under this interpreter (e.g. a real PyTorch)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    ours = measure(sys.executable, args.repeats)
    theirs = measure(args.python, args.repeats) if args.python else {}
    width = max(len(name) for name in ours)
    print(f"{'':{width}}  {'Ember us':>10}" + (f"  {'other us':>10}  {'other/Ember':>11}" if theirs else ""))
    for name, value in ours.items():
        line = f"{name:{width}}  {value:10.2f}"
        if theirs:
            line += f"  {theirs[name]:10.2f}  {theirs[name] / value:11.2f}"
        print(line)


if __name__ == "__main__":
    main()
