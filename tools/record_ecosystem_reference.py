"""Record what real libraries compute on PyTorch 2.13, for the ecosystem tests (needs a real PyTorch
with the libraries of LIBRARIES installed, the versions pyproject.toml's test extra pins).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_ecosystem_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`<library>.json` for each library of LIBRARIES: for each case, the result's dtype, shape and values
(float64 lists), or the error type and message. The tests run the same cases (run_cases) on Ember;
inputs come from torch.manual_seed, whose streams Ember reproduces bit for bit.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any, Callable

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "ecosystem"
REFERENCE_PACKAGE = "torch"
LIBRARIES = ("einops", "torchmetrics", "safetensors", "transformers", "accelerate")
# Written by PyTorch with safetensors (main() writes it); the tests load it on Ember.
PYTORCH_WRITTEN = "pytorch_written.safetensors"
SAFETENSORS_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16",
                      "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                      "float8_e5m2fnuz")


def _einops_cases(torch: Any) -> dict[str, Callable[[], Any]]:
    einops = importlib.import_module("einops")
    layers = importlib.import_module("einops.layers.torch")
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4, 5)
    cases: dict[str, Callable[[], Any]] = {}
    for dtype in ("float32", "bfloat16"):
        t = x.to(getattr(torch, dtype))
        cases.update({
            f"rearrange_{dtype}": lambda t=t: einops.rearrange(t, "b c h w -> b (c h) w"),
            f"rearrange_split_{dtype}": lambda t=t: einops.rearrange(t, "b c (h2 h) w -> b h2 c h w", h2=2),
            f"reduce_mean_{dtype}": lambda t=t: einops.reduce(t, "b c h w -> b c", "mean"),
            f"reduce_max_pool_{dtype}": lambda t=t: einops.reduce(t, "b c (h h2) (w w2) -> b c h w", "max", h2=2,
                                                                  w2=1),
            f"repeat_{dtype}": lambda t=t: einops.repeat(t[0, 0], "h w -> h w r", r=3),
            f"pack_{dtype}": lambda t=t: einops.pack([t, t[:, 0]], "b * w")[0],
            f"unpack_{dtype}": lambda t=t: einops.unpack(*einops.pack([t, t[:, 0]], "b * w"), "b * w")[1],
            f"einsum_{dtype}": lambda t=t: einops.einsum(t, t, "b c h w, b c h w -> b c"),
            f"layer_rearrange_{dtype}": lambda t=t: layers.Rearrange("b c h w -> b (c h w)")(t),
            f"layer_reduce_{dtype}": lambda t=t: layers.Reduce("b c h w -> b c", "sum")(t),
        })

    def einmix() -> Any:
        torch.manual_seed(1)
        mix = layers.EinMix("b c h w -> b d h w", weight_shape="c d", bias_shape="d", c=3, d=6)
        return mix(x)
    cases["einmix"] = einmix
    cases["rearrange_error"] = lambda: einops.rearrange(x, "b c h w -> b c h")
    return cases


def _torchmetrics_cases(torch: Any) -> dict[str, Callable[[], Any]]:
    tm = importlib.import_module("torchmetrics")
    torch.manual_seed(0)
    probs = [torch.rand(32), torch.rand(32)]
    labels = [torch.randint(0, 2, (32,)), torch.randint(0, 2, (32,))]
    logits = [torch.randn(32, 5), torch.randn(32, 5)]
    classes = [torch.randint(0, 5, (32,)), torch.randint(0, 5, (32,))]
    preds = [torch.randn(32), torch.randn(32)]
    target = [p * 0.5 + torch.randn(32) * 0.3 for p in preds]

    def two_batches(metric: Any, inputs: list[Any], targets: list[Any]) -> Any:
        for a, b in zip(inputs, targets):
            metric.update(a, b)
        return metric.compute()

    c = tm.classification
    r = tm.regression
    return {
        "binary_accuracy": lambda: two_batches(c.BinaryAccuracy(), probs, labels),
        "binary_f1": lambda: two_batches(c.BinaryF1Score(), probs, labels),
        "binary_auroc": lambda: two_batches(c.BinaryAUROC(), probs, labels),
        "binary_average_precision": lambda: two_batches(c.BinaryAveragePrecision(), probs, labels),
        "multiclass_accuracy_macro": lambda: two_batches(c.MulticlassAccuracy(num_classes=5), logits, classes),
        "multiclass_accuracy_micro": lambda: two_batches(c.MulticlassAccuracy(num_classes=5, average="micro"),
                                                         logits, classes),
        "multiclass_f1": lambda: two_batches(c.MulticlassF1Score(num_classes=5), logits, classes),
        "multiclass_precision": lambda: two_batches(c.MulticlassPrecision(num_classes=5, average=None), logits,
                                                    classes),
        "multiclass_recall": lambda: two_batches(c.MulticlassRecall(num_classes=5), logits, classes),
        "multiclass_confusion_matrix": lambda: two_batches(c.MulticlassConfusionMatrix(num_classes=5), logits,
                                                           classes),
        "multiclass_auroc": lambda: two_batches(c.MulticlassAUROC(num_classes=5), logits, classes),
        "mse": lambda: two_batches(r.MeanSquaredError(), preds, target),
        "mae": lambda: two_batches(r.MeanAbsoluteError(), preds, target),
        "r2": lambda: two_batches(r.R2Score(), preds, target),
        "pearson": lambda: two_batches(r.PearsonCorrCoef(), preds, target),
        "spearman": lambda: two_batches(r.SpearmanCorrCoef(), preds, target),
        "explained_variance": lambda: two_batches(r.ExplainedVariance(), preds, target),
        "cosine_similarity": lambda: two_batches(r.CosineSimilarity(), [p.view(4, 8) for p in preds],
                                                 [t.view(4, 8) for t in target]),
    }


def safetensors_tensors(torch: Any) -> dict[str, Any]:
    """One seeded tensor of each dtype safetensors stores (and a view, an empty and a 0-dim one)."""
    torch.manual_seed(0)
    base = torch.randn(3, 4) * 50
    out = {name: base.to(getattr(torch, name)) for name in SAFETENSORS_DTYPES
           if not name.startswith(("uint", "int")) and name != "bool"}
    out.update({name: (base.abs() * 3).to(getattr(torch, name)) for name in SAFETENSORS_DTYPES
                if name.startswith(("uint", "int"))})
    out["bool"] = base > 0
    out["view_of_rows"] = base[1:].clone()
    out["empty"] = torch.zeros(0, 5)
    out["scalar"] = torch.tensor(2.5)
    return out


def _safetensors_cases(torch: Any) -> dict[str, Callable[[], Any]]:
    st = importlib.import_module("safetensors.torch")
    tensors = safetensors_tensors(torch)
    data = st.save(tensors, metadata={"framework": "ember-test"})
    cases: dict[str, Callable[[], Any]] = {f"round_trip_{name}": (lambda name=name: st.load(data)[name])
                                           for name in tensors}
    cases["bad_type"] = lambda: st.save({"x": [1, 2]})
    return cases


WATCHED = 256


def _tiny_models(transformers: Any) -> dict[str, Any]:
    """Two layers, width 64, four heads (Llama with two key/value heads), a vocabulary of 100."""
    return {
        "gpt2": (transformers.GPT2LMHeadModel, transformers.GPT2Config(
            n_layer=2, n_embd=64, n_head=4, vocab_size=100, n_positions=32, bos_token_id=1, eos_token_id=2)),
        "bert": (transformers.BertForSequenceClassification, transformers.BertConfig(
            num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128, vocab_size=100,
            max_position_embeddings=32, num_labels=3)),
        "llama": (transformers.LlamaForCausalLM, transformers.LlamaConfig(
            num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
            vocab_size=100, max_position_embeddings=32, bos_token_id=1, eos_token_id=2)),
    }


def _train_step(torch: Any, name: str, cls: Any, config: Any) -> dict[str, Any]:
    """Build the model from torch.manual_seed(0), run a forward with labels, backward, one AdamW step,
    the loss after it and (language models) a greedy generate."""
    torch.manual_seed(0)
    model = cls(config)
    ids = torch.randint(3, 100, (2, 10))
    mask = torch.ones(2, 10, dtype=torch.int64)
    mask[1, 7:] = 0
    labels = torch.tensor([0, 2]) if name == "bert" else ids
    out = model(input_ids=ids, attention_mask=mask, labels=labels)
    out.loss.backward()
    named = dict(model.named_parameters())
    watched = [n for n in named if n.endswith("weight")][:2] + [n for n in named if n.endswith("weight")][-2:]
    result = {"logits": out.logits, "loss": out.loss,
              "grad_norm": torch.stack([p.grad.square().sum() for p in named.values()
                                        if p.grad is not None]).sum().sqrt()}
    # the first WATCHED values of a few weights (whole matrices would make the file megabytes)
    result.update({f"grad {n}": named[n].grad.reshape(-1)[:WATCHED] for n in watched})
    torch.optim.AdamW(model.parameters(), lr=1e-2).step()
    result.update({f"stepped {n}": named[n].detach().reshape(-1)[:WATCHED] for n in watched})
    with torch.no_grad():
        result["loss_after_step"] = model(input_ids=ids, attention_mask=mask, labels=labels).loss
    if name != "bert":
        model.eval()
        prompt = dict(input_ids=ids[:, :4], attention_mask=mask[:, :4], max_new_tokens=6, pad_token_id=0)
        result["generate"] = model.generate(**prompt, do_sample=False)
        # beam search reduces with NumPy's spellings (torch.all(t, axis=-1, keepdims=True))
        result["beam generate"] = model.generate(**prompt, num_beams=3, num_return_sequences=2, length_penalty=0.5)
        torch.manual_seed(1)
        result["sampled generate"] = model.generate(**prompt, do_sample=True, top_k=20, top_p=0.9, temperature=0.8,
                                                    repetition_penalty=1.2)
    return result


def _transformers_cases(torch: Any) -> dict[str, Callable[[], Any]]:
    transformers = importlib.import_module("transformers")
    transformers.logging.set_verbosity_error()
    runs: dict[str, dict[str, Any]] = {}
    cases: dict[str, Callable[[], Any]] = {}
    for name, (cls, config) in _tiny_models(transformers).items():
        def run(name: str = name, cls: Any = cls, config: Any = config) -> dict[str, Any]:
            if name not in runs:
                runs[name] = _train_step(torch, name, cls, config)
            return runs[name]
        generated = ["generate", "beam generate", "sampled generate"] if name != "bert" else []
        keys = ["logits", "loss", "grad_norm", "loss_after_step"] + generated
        cases.update({f"{name} {key}": (lambda run=run, key=key: run()[key]) for key in keys})
        cases[f"{name} watched"] = lambda run=run: [run()[k] for k in sorted(run()) if k.startswith(("grad ",
                                                                                                     "stepped "))]
    return cases


def _accelerate_training(torch: Any) -> dict[str, Any]:
    """Accelerator(cpu=True) prepares a model, AdamW, a shuffling DataLoader and a scheduler, and
    trains two epochs with accelerator.backward and gradient clipping; then saves its state."""
    import tempfile
    accelerate = importlib.import_module("accelerate")
    utils = importlib.import_module("accelerate.utils")
    accelerator = accelerate.Accelerator(cpu=True)
    utils.set_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    data = torch.utils.data.TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    loader = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, 0.9)
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    losses = []
    for _ in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            losses.append(loss.detach())
    with tempfile.TemporaryDirectory() as folder:
        accelerator.save_state(folder)
        files = sorted(p.name for p in Path(folder).iterdir())
    weights = [p.detach() for p in accelerator.unwrap_model(model).parameters()]
    return {"losses": torch.stack(losses), "weights": weights, "saved": files,
            "gathered": accelerator.gather(torch.tensor([1.0, 2.0])), "lr": scheduler.get_last_lr()}


def _accelerate_cases(torch: Any) -> dict[str, Callable[[], Any]]:
    runs: dict[str, Any] = {}

    def run() -> dict[str, Any]:
        if not runs:
            runs.update(_accelerate_training(torch))
        return runs
    return {f"training {key}": (lambda key=key: run()[key]) for key in ("losses", "weights", "saved", "gathered",
                                                                        "lr")}


_CASES = {"einops": _einops_cases, "torchmetrics": _torchmetrics_cases, "safetensors": _safetensors_cases,
          "transformers": _transformers_cases, "accelerate": _accelerate_cases}


def _record(torch: Any, value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return {"dtype": str(value.dtype), "shape": list(value.shape),
                "values": value.detach().to(torch.float64).reshape(-1).tolist()}
    if isinstance(value, (list, tuple)):
        return [_record(torch, v) for v in value]
    return value


def run_cases(torch: Any, library: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, case in _CASES[library](torch).items():
        try:
            out[name] = {"result": _record(torch, case())}
        except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
            out[name] = {"error": type(e).__name__, "message": str(e)}
    return out


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    st = importlib.import_module("safetensors.torch")
    st.save_file(safetensors_tensors(torch), str(out_dir / PYTORCH_WRITTEN), metadata={"writer": "pytorch"})
    print(f"wrote {out_dir / PYTORCH_WRITTEN}")
    for library in LIBRARIES:
        version = importlib.import_module(library).__version__
        payload = {"torch": torch.__version__, library: version, "cases": run_cases(torch, library)}
        (out_dir / f"{library}.json").write_text(json.dumps(payload, indent=1) + "\n")
        print(f"wrote {out_dir / (library + '.json')}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
