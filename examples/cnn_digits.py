"""Classify handwritten digits with a small convolutional network.

The convolutional sibling of train_digits.py, in PyTorch tutorial style: two 3x3 convolutions,
each followed by ReLU and 2x2 max pooling (8x8 -> 4x4 -> 2x2), then a linear head. The same data
(examples/data/digits.npz), split, loader and optimizer: it trains with train_digits.py's fit().
It uses nothing but PyTorch's public API, so it runs unchanged under Ember and under PyTorch.

    python examples/cnn_digits.py [--epochs 15] [--seed 0] [--compile]
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # its sibling, train_digits.py
from train_digits import accuracy, fit, load_digits, train_epoch  # noqa: E402,F401  (the benchmarks use them)


class CNN(nn.Module):
    """(N, 8, 8) images -> 10 class scores."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1),    # 16 x 8 x 8
            nn.ReLU(),
            nn.MaxPool2d(2),                               # 16 x 4 x 4
            nn.Conv2d(16, 32, kernel_size=3, padding=1),   # 32 x 4 x 4
            nn.ReLU(),
            nn.MaxPool2d(2),                               # 32 x 2 x 2
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(32 * 2 * 2, 10),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x.unsqueeze(1)))   # add the channel dimension


def main(argv: Optional[Sequence[str]] = None) -> float:
    """Trains the CNN, printing one line per epoch; returns the final test accuracy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0, help="seeds the weights and the shuffling")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--device", default="cpu", help='"cuda" trains on the GPU')
    parser.add_argument("--compile", action="store_true", help="train the model compiled by torch.compile")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    return fit(CNN(), args.epochs, args.lr, args.seed, args.device, args.compile)


if __name__ == "__main__":
    main()
