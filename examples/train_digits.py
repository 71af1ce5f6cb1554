"""Classify handwritten digits with a small multilayer perceptron.

A PyTorch tutorial-style training script: a Dataset, a DataLoader, an nn.Module, a loss, an
optimizer and a loop over epochs. It uses nothing but PyTorch's public API, so it runs unchanged
under Ember and under PyTorch; seeded alike, both start from the same weights and data order.

The data is the UCI handwritten digits set (1797 grayscale 8x8 images, pixel values 0..16) stored
in examples/data/digits.npz (examples/data/make_digits.py says how it was made).

    python examples/train_digits.py [--epochs 20] [--seed 0] [--compile]
"""
from __future__ import annotations

import argparse
import os
import time
from typing import Optional, Sequence, Tuple

import numpy as np

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.npz")


def load_digits(test_size: int = 360, split_seed: int = 0) -> Tuple[TensorDataset, TensorDataset]:
    """The digits as (train, test) datasets of (image, label); images are float32 in [0, 1].

    The split is fixed: a permutation drawn from its own seeded generator, whatever --seed is."""
    with np.load(DATA) as data:
        images = torch.from_numpy(data["images"].astype(np.float32) / 16.0)   # (1797, 8, 8)
        labels = torch.from_numpy(data["labels"])                              # (1797,) int64
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(split_seed))
    test, train = order[:test_size], order[test_size:]
    return TensorDataset(images[train], labels[train]), TensorDataset(images[test], labels[test])


class MLP(nn.Module):
    """64 pixels -> 256 hidden units (ReLU) -> 10 class scores."""

    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.flatten = nn.Flatten()
        self.layers = nn.Sequential(
            nn.Linear(64, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 10),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(self.flatten(x))


def train_epoch(model: nn.Module, loader: DataLoader, loss_fn: nn.Module,
                optimizer: torch.optim.Optimizer, device: str = "cpu") -> float:
    """One pass over the training data; returns the mean loss over the samples."""
    model.train()
    total, count = 0.0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        loss = loss_fn(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(labels)
        count += len(labels)
    return total / count


def accuracy(model: nn.Module, loader: DataLoader, device: str = "cpu") -> float:
    """The fraction of samples whose highest-scoring class is the label."""
    model.eval()
    correct, count = 0, 0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            correct += (model(images).argmax(dim=1) == labels).sum().item()
            count += len(labels)
    return correct / count


def fit(model: nn.Module, epochs: int, lr: float, seed: int, device: str = "cpu", compile: bool = False) -> float:
    """Trains model on the digits with SGD (momentum 0.9) on device (compiled by torch.compile with
    compile=True), printing one line per epoch; returns the final test accuracy. cnn_digits.py trains its
    network with it too."""
    model.to(device)
    runner = torch.compile(model) if compile else model
    train_set, test_set = load_digits()
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True,
                              generator=torch.Generator().manual_seed(seed))
    test_loader = DataLoader(test_set, batch_size=256)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    print(f"torch {torch.__version__} on {device}: {len(train_set)} training and {len(test_set)} test images")

    acc = 0.0
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        loss = train_epoch(runner, train_loader, loss_fn, optimizer, device)
        seconds = time.perf_counter() - start
        acc = accuracy(runner, test_loader, device)
        print(f"epoch {epoch:3d}  loss {loss:.4f}  test accuracy {acc:6.2%}  {seconds:.3f} s")
    return acc


def main(argv: Optional[Sequence[str]] = None) -> float:
    """Trains the MLP, printing one line per epoch; returns the final test accuracy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="seeds the weights and the shuffling")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--device", default="cpu", help='"cuda" trains on the GPU')
    parser.add_argument("--compile", action="store_true", help="train the model compiled by torch.compile")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    return fit(MLP(), args.epochs, args.lr, args.seed, args.device, args.compile)


if __name__ == "__main__":
    main()
