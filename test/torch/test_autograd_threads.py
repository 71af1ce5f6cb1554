"""Backward passes on several Python threads that reach the same leaf each add their whole
gradient, whatever the interleaving (PyTorch's AccumulateGrad lock; Hogwild-style training and
threaded data parallelism depend on it)."""
from __future__ import annotations


import numpy as np

import torch
from thread_runner import in_threads

N = 1_000_000          # large enough that add_ releases the GIL and runs on both cores


def test_concurrent_backward_passes_sum_every_contribution_into_a_shared_leaf():
    for trial in range(10):
        leaf = torch.zeros(N, requires_grad=True)
        threads, rounds = 4, 3

        def worker(index):
            for _ in range(rounds):
                (leaf * float(index + 1)).sum().backward()

        in_threads(worker, threads)
        expected = float(rounds * sum(range(1, threads + 1)))
        grad = leaf.grad.numpy()
        assert np.all(grad == expected), (trial, np.unique(grad))


def test_concurrent_backward_through_shared_graphs_and_fresh_leaves():
    weight = torch.ones(1000, 100, requires_grad=True)

    def worker(index):
        x = torch.full((8, 1000), float(index + 1))
        for _ in range(5):
            (x @ weight).sum().backward()

    in_threads(worker, 3)
    # d/dW sum(x @ W) = x^T @ 1: each row of W gets the column sums of x (8 * value per thread)
    expected = 5 * 8 * sum(range(1, 4))
    assert np.all(weight.grad.numpy() == expected)


def test_the_first_gradients_of_concurrent_passes_are_never_lost():
    """Both threads may find .grad empty: only one may store its gradient as the new .grad."""
    for _ in range(20):
        leaf = torch.zeros(N, requires_grad=True)
        in_threads(lambda index: (leaf * 2.0).sum().backward(), 2)
        assert float(leaf.grad[0]) == 4.0 and float(leaf.grad[-1]) == 4.0
