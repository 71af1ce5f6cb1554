"""A first look at Ember: tensors, broadcasting, type promotion, reductions, operators."""
import numpy as np

import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
b = torch.tensor([10, 20, 30], dtype=torch.int32)
print("x =", x)
print("x.shape", x.shape, "x.dtype", x.dtype, "x.device", x.device, "x.stride()", x.stride())
print("x + b (broadcast, int32 promotes to float32) =", x + b)
print("torch.add(x, b, alpha=2) =", torch.add(x, b, alpha=2))
print("2 - x / 4 =", 2 - x / 4)
print("torch.exp(-x) =", torch.exp(-x))
print("x.sum() =", x.sum(), " x.sum(0) =", x.sum(0), " x.sum(dim=1, keepdim=True) =", x.sum(dim=1, keepdim=True))
print("torch.full((2, 2), 7) =", torch.full((2, 2), 7))

# A strided numpy view shares memory with its tensor.
a = np.arange(12.0).reshape(3, 4)
t = torch.from_numpy(a[:, ::2])
print("from_numpy(a[:, ::2]) stride", t.stride(), "contiguous", t.is_contiguous(), "->", (t * t).tolist())

# A least-squares step by hand: the mean squared error of y = w*x with w = 2.
xs = torch.tensor([0.0, 1.0, 2.0, 3.0])
ys = torch.tensor([0.1, 1.9, 4.2, 5.8])
err = 2.0 * xs - ys
print("mse(w=2) =", (err * err).sum().item() / 4)
print("cuda available:", torch.cuda.is_available())
