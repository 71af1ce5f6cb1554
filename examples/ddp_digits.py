"""Train the digits MLP with DistributedDataParallel, one process per rank.

The PyTorch tutorial's recipe: init_process_group from torchrun's environment, a DistributedSampler giving
each rank its share of every epoch, the model wrapped in DistributedDataParallel (its gradients averaged over
the ranks during backward), and rank 0 reporting. It uses nothing but PyTorch's public API, so the same file
runs under Ember and under PyTorch:

    torchrun --standalone --nproc_per_node=2 examples/ddp_digits.py [--epochs 10] [--seed 0]

Each rank reads batches of --batch-size, so 2 ranks train on batches of twice that, as one process with
`--batch-size 64` on a world of one (`torchrun --nproc_per_node=1`) does.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_digits import MLP, load_digits  # noqa: E402  (the same data and model as the one-process example)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32, help="per rank")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)
    train, test = load_digits()
    sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
    loader = DataLoader(train, batch_size=args.batch_size, sampler=sampler)
    model = nn.parallel.DistributedDataParallel(MLP())
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        start = time.perf_counter()
        model.train()
        total = torch.zeros(2, dtype=torch.float64)      # this rank's summed loss and sample count
        for images, labels in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            total += torch.tensor([loss.item() * len(labels), len(labels)], dtype=torch.float64)
        dist.all_reduce(total)
        if rank == 0:
            with torch.no_grad():
                images, labels = test.tensors
                accuracy = (model.module(images).argmax(1) == labels).float().mean().item()
            print(f"epoch {epoch + 1:2d}  loss {total[0].item() / total[1].item():.4f}  "
                  f"test accuracy {accuracy:.3f}  ({time.perf_counter() - start:.2f} s, {world} ranks)", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
