"""torch.compile workloads (issue 27): the 9-operator GELU-style pointwise chain of 2^20 float32 elements eager
and compiled by the inductor backend (target: compiled at least 4x faster than eager), a small MLP's inference
step, a Linear followed by GELU (its GELU run inside the product as its epilogue), a classifier's cross-entropy
loss (log_softmax and nll_loss fused into one row kernel), examples/char_gpt.py's training step eager, with its model compiled, and as one compiled function
(target: compiled 1.5x faster than eager), and the time a compile takes with the kernel cache warm (capture,
lowering and loading the cached kernels: target at most 1 s); the whole step compiled with dynamic=True (its
kernels generic in sizes), and the call of it at a batch size it has not seen.

Like suite.py, this file runs under another interpreter's PyTorch too (suite.py loads it by path): the public
torch API only, no Ember internals, nothing else of this package.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

Fn = Callable[[], Any]
_CHAIN = 1 << 20


def _gelu_chain(torch: Any) -> Callable[[Any], Any]:
    def chain(x: Any) -> Any:
        return 0.5 * x * (1 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return chain


def chain_eager(torch: Any, np: Any, s: Any) -> Fn:
    x = torch.randn(_CHAIN)
    chain = _gelu_chain(torch)
    return lambda: chain(x)


def chain_compiled(torch: Any, np: Any, s: Any) -> Fn:
    x = torch.randn(_CHAIN)
    compiled = torch.compile(_gelu_chain(torch))
    compiled(x)
    return lambda: compiled(x)


def _mlp(torch: Any) -> tuple[Any, Any]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(approximate="tanh"), torch.nn.Linear(256, 64),
                                torch.nn.LayerNorm(64)).eval()
    return model, torch.randn(32, 64)


def mlp_eager(torch: Any, np: Any, s: Any) -> Fn:
    model, x = _mlp(torch)

    def step() -> Any:
        with torch.no_grad():
            return model(x)
    return step


def mlp_compiled(torch: Any, np: Any, s: Any) -> Fn:
    model, x = _mlp(torch)
    compiled = torch.compile(model)

    def step() -> Any:
        with torch.no_grad():
            return compiled(x)
    step()
    return step


def _linear_gelu(torch: Any) -> tuple[Callable[[Any], Any], Any]:
    torch.manual_seed(0)
    linear = torch.nn.Linear(64, 1024)
    return (lambda x: torch.nn.functional.gelu(linear(x))), torch.randn(4096, 64)


def linear_gelu_eager(torch: Any, np: Any, s: Any) -> Fn:
    layer, x = _linear_gelu(torch)

    def step() -> Any:
        with torch.no_grad():
            return layer(x)
    return step


def linear_gelu_compiled(torch: Any, np: Any, s: Any) -> Fn:
    layer, x = _linear_gelu(torch)
    compiled = torch.compile(layer)

    def step() -> Any:
        with torch.no_grad():
            return compiled(x)
    step()
    return step


def _classifier_loss(torch: Any) -> tuple[Callable[..., Any], Any, Any]:
    """A classifier's evaluation loss: cross entropy of (4096, 512) logits, a class per row, no gradient."""
    torch.manual_seed(0)
    logits, classes = torch.randn(4096, 512), torch.randint(0, 512, (4096,))

    def loss(x: Any, y: Any) -> Any:
        with torch.no_grad():
            return torch.nn.functional.cross_entropy(x, y)
    return loss, logits, classes


def cross_entropy_eager(torch: Any, np: Any, s: Any) -> Fn:
    loss, x, y = _classifier_loss(torch)
    return lambda: loss(x, y)


def cross_entropy_compiled(torch: Any, np: Any, s: Any) -> Fn:
    loss, x, y = _classifier_loss(torch)
    compiled = torch.compile(loss)
    compiled(x, y)
    return lambda: compiled(x, y)


def warm_compile(torch: Any, np: Any, s: Any) -> Fn:
    x = torch.randn(_CHAIN)
    chain = _gelu_chain(torch)
    torch.compile(chain)(x)             # the kernels are in the cache from here on

    def compile_again() -> Any:
        torch.compiler.reset()
        return torch.compile(chain)(x)
    return compile_again


def _char_gpt() -> Any:
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "char_gpt.py")
    spec = importlib.util.spec_from_file_location("_bench_compiled_char_gpt", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module         # PyTorch's Dynamo looks compiled code's module up by name
    spec.loader.exec_module(module)
    return module


def char_gpt_step(compiled: bool) -> Callable[..., Fn]:
    """examples/char_gpt.py's training step (forward, cross entropy, backward, AdamW), its model compiled or not."""
    def setup(torch: Any, np: Any, s: Any) -> Fn:
        ex = _char_gpt()
        torch.manual_seed(0)
        data, chars = ex.load_text()
        model = ex.CharGPT(len(chars))
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
        runner = torch.compile(model) if compiled else model
        batches = torch.Generator().manual_seed(0)
        ex.train_step(runner, optimizer, *ex.get_batch(data, batches))
        return lambda: ex.train_step(runner, optimizer, *ex.get_batch(data, batches))
    return setup


def _whole_step(torch: Any, dynamic: bool | None) -> tuple[Any, Any, Callable[..., Any], Any]:
    """char_gpt's step as one compiled function: (the example module, its data, the compiled step, a generator
    of batches)."""
    ex = _char_gpt()
    torch.manual_seed(0)
    data, chars = ex.load_text()
    model = ex.CharGPT(len(chars))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)

    def step(x: Any, y: Any) -> Any:
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    compiled = torch.compile(step, dynamic=dynamic)
    batches = torch.Generator().manual_seed(0)
    for _ in range(2):          # captured, then captured again once AdamW has its state
        compiled(*ex.get_batch(data, batches))
    return ex, data, compiled, batches


def char_gpt_whole_step(torch: Any, np: Any, s: Any) -> Fn:
    """The same step as one function under torch.compile: forward, cross entropy, backward and AdamW in one graph
    (Ember; PyTorch breaks the graph at backward and compiles the pieces)."""
    ex, data, compiled, batches = _whole_step(torch, None)
    return lambda: compiled(*ex.get_batch(data, batches)).item()


def char_gpt_whole_step_dynamic(torch: Any, np: Any, s: Any) -> Fn:
    """The whole step compiled with dynamic=True: kernels generic in sizes (Ember), symbolic sizes (PyTorch)."""
    ex, data, compiled, batches = _whole_step(torch, True)
    return lambda: compiled(*ex.get_batch(data, batches)).item()


def char_gpt_new_batch_size(torch: Any, np: Any, s: Any) -> Fn:
    """A call of the step compiled with dynamic=True at a batch size it has not seen (its cache reset each time,
    the kernels compiled for the first size kept): Ember captures it again and reuses the generic kernels."""
    ex, data, compiled, batches = _whole_step(torch, True)
    x, y = ex.get_batch(data, batches)
    sizes = iter(range(1 << 30))

    def new_size() -> Any:
        torch.compiler.reset()
        batch = 2 + next(sizes) % (x.shape[0] - 2)
        return compiled(x[:batch], y[:batch]).item()
    return new_size


def register(case: Callable[..., Callable[[Any], Any]]) -> None:
    """Adds the workloads to suite.py's cases (group `compile`)."""
    case("compile.gelu_chain_eager", "9-op GELU-style chain, 2^20 float32: eager", "ms")(chain_eager)
    case("compile.gelu_chain_compiled", "9-op GELU-style chain, 2^20 float32: torch.compile (inductor)", "ms")(
        chain_compiled)
    case("compile.mlp_inference_eager", "MLP 64-256-64 + GELU + LayerNorm, batch 32, no_grad: eager", "us")(mlp_eager)
    case("compile.mlp_inference_compiled", "MLP 64-256-64 + GELU + LayerNorm, batch 32, no_grad: torch.compile", "us")(
        mlp_compiled)
    case("compile.linear_gelu_eager", "Linear 64 -> 1024 then GELU, batch 4096, no_grad: eager", "ms")(
        linear_gelu_eager)
    case("compile.linear_gelu_compiled", "Linear 64 -> 1024 then GELU, batch 4096, no_grad: torch.compile (the GELU "
         "runs inside the product)", "ms")(linear_gelu_compiled)
    case("compile.cross_entropy_eager", "cross entropy of (4096, 512) float32 logits, no_grad: eager", "ms")(
        cross_entropy_eager)
    case("compile.cross_entropy_compiled", "cross entropy of (4096, 512) float32 logits, no_grad: torch.compile "
         "(one row kernel)", "ms")(cross_entropy_compiled)
    case("compile.char_gpt_step_eager", "char_gpt.py training step (2 layers, d=64, batch 16, AdamW): eager", "ms")(
        char_gpt_step(False))
    case("compile.char_gpt_step_compiled", "char_gpt.py training step, the model under torch.compile", "ms")(
        char_gpt_step(True))
    case("compile.char_gpt_whole_step_compiled", "char_gpt.py training step as one function under torch.compile "
         "(forward, loss, backward, AdamW)", "ms")(char_gpt_whole_step)
    case("compile.char_gpt_whole_step_dynamic", "the whole step under torch.compile(dynamic=True)", "ms")(
        char_gpt_whole_step_dynamic)
    case("compile.char_gpt_new_batch_size", "the whole step (dynamic=True) called at a batch size it has not seen",
         "ms")(char_gpt_new_batch_size)
    case("compile.warm_cache_compile", "compile of the GELU chain with the kernel cache warm (reset + first call)",
         "ms")(warm_compile)
