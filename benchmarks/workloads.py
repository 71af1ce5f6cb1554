"""The pieces of a training step users run, each timed whole (suite.py registers them): a
transformer MLP block forward and backward, an AdamW step, causal attention through
scaled_dot_product_attention, and a language model's embedding + cross-entropy step.

Like suite.py, this file runs under another interpreter's PyTorch too (suite.py loads it by path):
the public torch API only, no Ember internals, nothing else of this package.
"""
from __future__ import annotations

from typing import Any, Callable

Fn = Callable[[], Any]


def _full(s: Any) -> bool:
    """Whether suite.py runs its full sizes (not --quick)."""
    return bool(s.n >= 1 << 20)


def _seeded(torch: Any) -> Any:
    torch.manual_seed(0)
    return torch


def block(torch: Any, np: Any, s: Any) -> Fn:
    """LayerNorm -> GELU -> Linear over (batch * tokens, width) activations, forward + backward."""
    torch = _seeded(torch)
    rows, width = (2048, 256) if _full(s) else (64, 32)
    norm, linear = torch.nn.LayerNorm(width), torch.nn.Linear(width, width)
    x = torch.randn(rows, width, requires_grad=True)

    def step() -> None:
        for p in (x, *norm.parameters(), *linear.parameters()):
            p.grad = None
        linear(torch.nn.functional.gelu(norm(x))).sum().backward()
    return step


def adamw(torch: Any, np: Any, s: Any) -> Fn:
    """optim.AdamW (PyTorch's default implementation choice) stepping 100 parameters with gradients."""
    torch = _seeded(torch)
    size = 16384 if _full(s) else 64
    params = [torch.randn(size, requires_grad=True) for _ in range(100)]
    for p in params:
        p.grad = torch.randn(size)
    optimizer = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)
    return optimizer.step


def attention(torch: Any, np: Any, s: Any) -> Fn:
    """Causal scaled_dot_product_attention, (batch, heads, tokens, head dim), forward + backward."""
    torch = _seeded(torch)
    shape = (8, 8, 256, 64) if _full(s) else (2, 2, 16, 8)
    q, k, v = (torch.randn(shape, requires_grad=True) for _ in range(3))

    def step() -> None:
        for t in (q, k, v):
            t.grad = None
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
    return step


def embedding_cross_entropy(torch: Any, np: Any, s: Any) -> Fn:
    """Token embedding, a tied output projection and cross-entropy over the vocabulary, backward and
    an SGD step: a language model's first and last layers."""
    torch = _seeded(torch)
    vocab, width, tokens = (8192, 256, 2048) if _full(s) else (100, 16, 64)
    embedding = torch.nn.Embedding(vocab, width)
    optimizer = torch.optim.SGD(embedding.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(0)
    idx = torch.randint(0, vocab, (tokens,), generator=generator)
    targets = torch.randint(0, vocab, (tokens,), generator=generator)

    def step() -> None:
        optimizer.zero_grad()
        logits = embedding(idx) @ embedding.weight.t()
        torch.nn.functional.cross_entropy(logits, targets).backward()
        optimizer.step()
    return step


def register(case: Callable[..., Callable[[Any], Any]]) -> None:
    """Adds the workloads to suite.py's cases (group `training`)."""
    case("training.block", lambda s: f"LayerNorm + GELU + Linear, {'2048x256' if _full(s) else '64x32'}: "
         "forward + backward", "ms")(block)
    case("training.adamw", lambda s: f"AdamW step, 100 parameters of {16384 if _full(s) else 64}", "ms")(adamw)
    case("training.sdpa", lambda s: f"causal scaled_dot_product_attention, {'8x8x256x64' if _full(s) else '2x2x16x8'}"
         ": forward + backward", "ms")(attention)
    case("training.embedding_ce", lambda s: "embedding + tied projection + cross_entropy, "
         f"{'vocab 8192, d 256, 2048 tokens' if _full(s) else 'vocab 100'}: backward + SGD step", "ms")(
        embedding_cross_entropy)
