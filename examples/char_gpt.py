"""Train a tiny character-level GPT on Python's own source code.

A PyTorch tutorial-style decoder-only transformer: token and position embeddings, two blocks of
causal multi-head self-attention and an MLP (pre-LayerNorm, residual connections), a linear head
predicting the next character, AdamW. The text is the source of the standard library's textwrap
module, which every CPython install carries, read with inspect.getsource. It uses nothing but
PyTorch's public API, so it runs unchanged under Ember and under PyTorch.

    python examples/char_gpt.py [--steps 300] [--seed 0] [--generate 200] [--device cuda] [--compile]
"""
from __future__ import annotations

import argparse
import inspect
import math
import textwrap
import time
from typing import List, Optional, Sequence, Tuple

import torch
from torch import nn
from torch.nn import functional as F

CONTEXT = 32        # characters the model sees at once
BATCH = 16
D_MODEL = 64
N_HEADS = 4
N_LAYERS = 2


class CausalSelfAttention(nn.Module):
    """Multi-head attention where position t attends to positions 0..t only."""

    def __init__(self, d_model: int, n_heads: int, context: int) -> None:
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)      # queries, keys and values in one matmul
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("mask", torch.tril(torch.ones(context, context, dtype=torch.bool)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        # (b, t, c) -> (b, heads, t, head size)
        q, k, v = (z.view(b, t, self.n_heads, c // self.n_heads).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        scores = scores.masked_fill(~self.mask[:t, :t], float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    """A transformer block: attention then an MLP, each behind a LayerNorm and a residual."""

    def __init__(self, d_model: int, n_heads: int, context: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads, context)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, 4 * d_model),
            nn.GELU(),
            nn.Linear(4 * d_model, d_model),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class CharGPT(nn.Module):
    def __init__(self, vocab_size: int, d_model: int = D_MODEL, n_heads: int = N_HEADS,
                 n_layers: int = N_LAYERS, context: int = CONTEXT) -> None:
        super().__init__()
        self.context = context
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(context, d_model)
        self.blocks = nn.Sequential(*[Block(d_model, n_heads, context) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """(batch, time) character indices -> (batch, time, vocab) next-character scores."""
        positions = torch.arange(idx.size(1), device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(positions)
        return self.head(self.ln_f(self.blocks(x)))

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, length: int, generator: torch.Generator) -> torch.Tensor:
        """Appends `length` sampled characters to idx (batch, time)."""
        for _ in range(length):
            logits = self(idx[:, -self.context:])[:, -1, :]
            next_idx = torch.multinomial(F.softmax(logits, dim=-1), 1, generator=generator)
            idx = torch.cat([idx, next_idx], dim=1)
        return idx


def load_text() -> Tuple[torch.Tensor, List[str]]:
    """The text as a 1-D int64 tensor of character indices, and the sorted vocabulary."""
    text = inspect.getsource(textwrap)
    chars = sorted(set(text))
    index = {ch: i for i, ch in enumerate(chars)}
    return torch.tensor([index[ch] for ch in text], dtype=torch.long), chars


def get_batch(data: torch.Tensor, generator: torch.Generator) -> Tuple[torch.Tensor, torch.Tensor]:
    """BATCH random windows of CONTEXT characters and the same windows shifted by one."""
    starts = torch.randint(len(data) - CONTEXT - 1, (BATCH,), generator=generator).tolist()
    x = torch.stack([data[i:i + CONTEXT] for i in starts])
    y = torch.stack([data[i + 1:i + CONTEXT + 1] for i in starts])
    return x, y


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor,
               y: torch.Tensor) -> float:
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main(argv: Optional[Sequence[str]] = None) -> List[float]:
    """Trains, printing the mean loss every --every steps; returns those means."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--every", type=int, default=50, help="steps per progress line")
    parser.add_argument("--generate", type=int, default=200, help="characters to sample at the end")
    parser.add_argument("--device", default="cpu", help='"cuda" trains on the GPU')
    parser.add_argument("--compile", action="store_true", help="train the model compiled by torch.compile")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    data, chars = load_text()
    model = CharGPT(len(chars)).to(args.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    batches = torch.Generator().manual_seed(args.seed)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"torch {torch.__version__} on {args.device}: {len(data)} characters, vocabulary {len(chars)},"
          f" {n_params} parameters; uniform guessing is loss {math.log(len(chars)):.3f}")

    trained = torch.compile(model) if args.compile else model
    means: List[float] = []
    losses: List[float] = []
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        x, y = get_batch(data, batches)
        losses.append(train_step(trained, optimizer, x.to(args.device), y.to(args.device)))
        if step % args.every == 0 or step == args.steps:
            means.append(sum(losses) / len(losses))
            seconds = time.perf_counter() - start
            print(f"step {step:5d}  loss {means[-1]:.4f}  {1000 * seconds / len(losses):.1f} ms/step")
            losses, start = [], time.perf_counter()

    if args.generate > 0:
        model.eval()
        prompt = torch.tensor([[chars.index("\n")]], device=args.device)
        out = model.generate(prompt, args.generate, torch.Generator(device=args.device).manual_seed(args.seed))
        print("sample:\n" + "".join(chars[i] for i in out[0].tolist()))
    return means


if __name__ == "__main__":
    main()
