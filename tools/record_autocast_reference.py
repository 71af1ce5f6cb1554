"""Record PyTorch's autocast behaviour for the autocast tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_autocast_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`autocast.json`:

- `lists`: for AutocastCPU and AutocastCUDA, every aten operator overload PyTorch registers an
  autocast kernel for (read from its dispatcher), so the tests can check that Ember declares a
  policy for exactly the ones it defines;
- `cases`: for each case below, on each device whose list has the operator, the output dtypes
  (or the error type) of `torch.ops.aten.<op>` under autocast with the device's default dtype, for
  inputs whose floating tensors are all the autocast dtype ("low"), all float32, the first float32
  and the rest the autocast dtype ("mixed"), and all float64. CUDA runs on fake tensors
  (FakeTensorMode), which go through the same Autocast kernels without a GPU; where an op's
  composite needs a real CUDA build even on fake tensors, the variant is marked "unrecorded";
- `entry_points`: output dtypes under autocast("cpu") of public functions and modules whose
  implementations reach the listed operators by their own routes (losses, recurrent layers, ...);
- `training`: a small model trained for a few steps under autocast("cpu") and a GradScaler with an
  injected inf gradient on one step: the loss, the scale and the growth tracker after each step.

A tensor argument is written {"t": shape, "kind": K}: kind "float" (standard normal), "pos"
(positive), "unit" (inside (-1, 1)), "prob" (inside (0, 1)) are floating and take the variant's
dtype; {"i": shape, "high": N} is an int64 tensor of values in [0, N); {"idx": values} an int64
tensor of those values; a list of tensor arguments is a JSON list of them.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "autocast"
REFERENCE_PACKAGE = "torch"
VARIANTS = ("low", "float32", "mixed", "float64")
CPU_ONLY_BUILD = "not linked with support for cuda devices"


def T(*shape: int, kind: str = "float") -> dict[str, Any]:  # noqa: N802 (reads as a type in the table)
    return {"t": list(shape), "kind": kind}


def I(*shape: int, high: int) -> dict[str, Any]:  # noqa: N802, E743
    return {"i": list(shape), "high": high}


def IDX(*values: int) -> dict[str, Any]:  # noqa: N802
    return {"idx": list(values)}


# op overload -> positional arguments (and optionally keyword arguments).
CASES: dict[str, tuple[list[Any], dict[str, Any]]] = {
    "mm": ([T(3, 4), T(4, 5)], {}),
    "bmm": ([T(2, 3, 4), T(2, 4, 5)], {}),
    "addmm": ([T(3, 5), T(3, 4), T(4, 5)], {}),
    "addbmm": ([T(3, 5), T(2, 3, 4), T(2, 4, 5)], {}),
    "baddbmm": ([T(2, 3, 5), T(2, 3, 4), T(2, 4, 5)], {}),
    "addmv": ([T(3), T(3, 4), T(4)], {}),
    "mv": ([T(3, 4), T(4)], {}),
    "matmul": ([T(3, 4), T(4, 5)], {}),
    "linear": ([T(3, 4), T(5, 4), T(5)], {}),
    "conv1d": ([T(2, 3, 8), T(4, 3, 3), T(4)], {}),
    "conv1d.padding": ([T(2, 3, 8), T(4, 3, 3), T(4), [1], "same"], {}),
    "conv2d": ([T(2, 3, 6, 6), T(4, 3, 3, 3), T(4)], {}),
    "conv2d.padding": ([T(2, 3, 6, 6), T(4, 3, 3, 3), T(4), [1, 1], "same"], {}),
    "conv_transpose1d": ([T(2, 3, 8), T(3, 4, 3), T(4)], {}),
    "conv_transpose2d.input": ([T(2, 3, 5, 5), T(3, 4, 3, 3), T(4)], {}),
    "cosine_similarity": ([T(3, 4), T(3, 4)], {}),
    "conv3d": ([T(2, 3, 4, 5, 4), T(4, 3, 2, 3, 2), T(4)], {}),
    "conv3d.padding": ([T(2, 3, 4, 5, 4), T(4, 3, 2, 3, 2), T(4), [1, 1, 1], "same"], {}),
    "conv_transpose3d.input": ([T(2, 3, 3, 4, 3), T(3, 4, 2, 3, 2), T(4)], {}),
    "convolution": ([T(2, 3, 6, 6), T(4, 3, 3, 3), T(4), [1, 1], [0, 0], [1, 1], False, [0, 0], 1], {}),
    "scaled_dot_product_attention": ([T(2, 3, 4), T(2, 3, 4), T(2, 3, 4)], {}),
    "einsum": (["ij,jk->ik", [T(3, 4), T(4, 5)]], {}),
    "binary_cross_entropy": ([T(3, 4, kind="prob"), T(3, 4, kind="prob")], {}),
    "binary_cross_entropy_with_logits": ([T(3, 4), T(3, 4, kind="prob")], {}),
    "mse_loss": ([T(3, 4), T(3, 4)], {}),
    "l1_loss": ([T(3, 4), T(3, 4)], {}),
    "smooth_l1_loss": ([T(3, 4), T(3, 4)], {}),
    "huber_loss": ([T(3, 4), T(3, 4)], {}),
    "rms_norm": ([T(3, 4), [4], T(4)], {}),
    "margin_ranking_loss": ([T(3, 4), T(3, 4), {"idx": [1, -1, 1, 1]}], {}),
    "hinge_embedding_loss": ([T(3, 4), {"idx": [1, -1, 1, -1]}], {}),
    "cosine_embedding_loss": ([T(3, 4), T(3, 4), {"idx": [1, -1, 1]}], {}),
    "soft_margin_loss": ([T(3, 4), T(3, 4)], {}),
    "triplet_margin_loss": ([T(3, 4), T(3, 4), T(3, 4)], {}),
    "poisson_nll_loss": ([T(3, 4), T(3, 4, kind="pos"), True, False, 1e-8, 1], {}),
    "kl_div": ([T(3, 4), T(3, 4, kind="prob")], {}),
    "prelu": ([T(2, 3, 4), T(3)], {}),
    "bilinear": ([T(3, 4), T(3, 5), T(6, 4, 5), T(6)], {}),
    "nll_loss": ([T(3, 5), I(3, high=5)], {}),
    "nll_loss2d": ([T(2, 3, 4, 4), I(2, 4, 4, high=3)], {}),
    "cross_entropy_loss": ([T(3, 5), I(3, high=5)], {}),
    "prod": ([T(3, 4)], {}),
    "prod.dim_int": ([T(3, 4), 1], {}),
    "quantile": ([T(10), T(3, kind="prob")], {}),
    "quantile.scalar": ([T(10), 0.3], {}),
    "nanquantile": ([T(10), T(3, kind="prob")], {}),
    "nanquantile.scalar": ([T(10), 0.3], {}),
    "reflection_pad1d": ([T(2, 3, 6), [1, 2]], {}),
    "reflection_pad2d": ([T(2, 3, 5, 5), [1, 1, 2, 2]], {}),
    "replication_pad1d": ([T(2, 3, 6), [1, 2]], {}),
    "replication_pad2d": ([T(2, 3, 5, 5), [1, 1, 2, 2]], {}),
    "replication_pad3d": ([T(2, 3, 4, 5, 5), [1, 1, 2, 2, 1, 0]], {}),
    "trace": ([T(4, 4)], {}),
    "cat": ([[T(2, 3), T(2, 3)]], {}),
    "stack": ([[T(2, 3), T(2, 3)]], {}),
    "index_copy": ([T(5, 3), 0, IDX(0, 2), T(2, 3)], {}),
    "acos": ([T(3, 4, kind="unit")], {}),
    "asin": ([T(3, 4, kind="unit")], {}),
    "cosh": ([T(3, 4)], {}),
    "erfinv": ([T(3, 4, kind="unit")], {}),
    "exp": ([T(3, 4)], {}),
    "expm1": ([T(3, 4)], {}),
    "log": ([T(3, 4, kind="pos")], {}),
    "log10": ([T(3, 4, kind="pos")], {}),
    "log1p": ([T(3, 4, kind="pos")], {}),
    "log2": ([T(3, 4, kind="pos")], {}),
    "reciprocal": ([T(3, 4, kind="pos")], {}),
    "rsqrt": ([T(3, 4, kind="pos")], {}),
    "sinh": ([T(3, 4)], {}),
    "tan": ([T(3, 4, kind="unit")], {}),
    "pow.Tensor_Scalar": ([T(3, 4, kind="pos"), 2], {}),
    "pow.Tensor_Tensor": ([T(3, 4, kind="pos"), T(3, 4)], {}),
    "softplus": ([T(3, 4)], {}),
    "layer_norm": ([T(2, 3, 4), [4], T(4), T(4)], {}),
    "native_layer_norm": ([T(2, 3, 4), [4], T(4), T(4), 1e-5], {}),
    "group_norm": ([T(2, 4, 3), 2, T(4), T(4)], {}),
    "logsumexp": ([T(3, 4), [1]], {}),
    "upsample_nearest2d": ([T(1, 2, 3, 3), [6, 6]], {}),
    "upsample_bilinear2d": ([T(1, 2, 3, 3), [6, 6], False], {}),
    "upsample_nearest1d": ([T(1, 2, 3), [6]], {}),
    "upsample_nearest3d": ([T(1, 2, 3, 3, 3), [6, 6, 6]], {}),
    "_upsample_nearest_exact1d": ([T(1, 2, 3), [5]], {}),
    "_upsample_nearest_exact2d": ([T(1, 2, 3, 3), [5, 5]], {}),
    "_upsample_nearest_exact3d": ([T(1, 2, 3, 3, 3), [5, 5, 5]], {}),
    "upsample_linear1d": ([T(1, 2, 3), [6], False], {}),
    "upsample_trilinear3d": ([T(1, 2, 3, 3, 3), [6, 6, 6], False], {}),
    "upsample_bicubic2d": ([T(1, 2, 3, 3), [6, 6], False], {}),
    "cumprod": ([T(3, 4), 1], {}),
    "cumsum": ([T(3, 4), 1], {}),
    "linalg_vector_norm": ([T(3, 4)], {}),
    **{f"fft_{name}": ([T(8)], {}) for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")},
    **{f"fft_{name}": ([T(2, 4)], {}) for name in ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn",
                                                    "irfftn")},
    # 1x1 positive matrices: invertible and positive-definite whatever the draw
    "linalg_inv_ex": ([T(2, 1, 1, kind="pos")], {}),
    "linalg_inv": ([T(2, 1, 1, kind="pos")], {}),
    "inverse": ([T(1, 1, kind="pos")], {}),
    "linalg_solve": ([T(1, 1, kind="pos"), T(1, 2)], {}),
    "linalg_cholesky_ex": ([T(1, 1, kind="pos")], {}),
    "linalg_cholesky": ([T(1, 1, kind="pos")], {}),
    "cholesky": ([T(1, 1, kind="pos")], {}),
    "linalg_eigh": ([T(1, 1, kind="pos")], {}),
    "linalg_eigvalsh": ([T(1, 1, kind="pos")], {}),
    "linalg_svd": ([T(3, 2)], {}),
    "linalg_svdvals": ([T(3, 2)], {}),
    "svd": ([T(3, 2)], {}),
    "linalg_qr": ([T(3, 2)], {}),
    "qr": ([T(3, 2)], {}),
    "linalg_lstsq": ([T(3, 2), T(3, 1)], {}),
    "pinverse": ([T(3, 2)], {}),
    "linalg_matrix_rank": ([T(3, 2), 0.5], {}),
    "linalg_matrix_rank.atol_rtol_float": ([T(3, 2)], {}),
    "linalg_vecdot": ([T(3, 4), T(3, 4)], {}),
    "linalg_multi_dot": ([[T(2, 3), T(3, 4)]], {}),
    "cdist": ([T(3, 2), T(4, 2)], {}),
    "dist": ([T(3, 2), T(3, 2)], {}),
    "pdist": ([T(3, 2)], {}),
    "tensordot": ([T(2, 3), T(3, 4), [1], [0]], {}),
    "grid_sampler": ([T(1, 2, 3, 3), T(1, 2, 2, 2, kind="unit"), 0, 0, False], {}),
    "geqrf": ([T(4, 3)], {}),
    "polar": ([T(3, kind="pos"), T(3)], {}),
    "view_as_complex": ([T(3, 2)], {}),
    "linalg_householder_product": ([T(4, 3), T(3)], {}),
    "orgqr": ([T(4, 3), T(3)], {}),
    "ctc_loss.IntList": ([T(5, 2, 4), {"idx": [1, 2, 1, 1]}, [5, 5], [2, 2]], {}),
    "ctc_loss.Tensor": ([T(5, 2, 4), {"idx": [1, 2, 1, 1]}, {"idx": [5, 5]}, {"idx": [2, 2]}], {}),
    "max_pool3d": ([T(1, 2, 4, 4, 4), [2, 2, 2]], {}),
    "avg_pool3d": ([T(1, 2, 4, 4, 4), [2, 2, 2]], {}),
    "adaptive_avg_pool3d": ([T(1, 2, 4, 4, 4), [2, 2, 2]], {}),
    "adaptive_max_pool3d": ([T(1, 2, 4, 4, 4), [2, 2, 2]], {}),
    "max_unpool2d": ([T(1, 2, 2, 2), {"idx": [[[[0, 3], [9, 15]], [[1, 2], [8, 14]]]]}, [4, 4]], {}),
    "max_unpool3d": ([T(1, 1, 1, 1, 2), {"idx": [[[[[0, 5]]]]]}, [2, 2, 2], [2, 2, 2], [0, 0, 0]], {}),
    "linalg_matrix_norm": ([T(3, 4), 1], {}),
    "linalg_matrix_norm.str_ord": ([T(3, 4)], {}),
    "log_softmax.int": ([T(3, 4), 1], {}),
    "softmax.int": ([T(3, 4), 1], {}),
    "sum": ([T(3, 4)], {}),
    "sum.dim_IntList": ([T(3, 4), [1]], {}),
    "norm.Scalar": ([T(3, 4)], {}),
    "norm.ScalarOpt_dim": ([T(3, 4), 2, [1]], {}),
    "addcdiv": ([T(3, 4), T(3, 4), T(3, 4, kind="pos")], {}),
    "addcmul": ([T(3, 4), T(3, 4), T(3, 4)], {}),
    "atan2": ([T(3, 4), T(3, 4)], {}),
    "cross": ([T(3, 3), T(3, 3)], {}),
    "dot": ([T(4), T(4)], {}),
    "vdot": ([T(4), T(4)], {}),
    "index_put": ([T(5, 3), [IDX(0, 2)], T(2, 3)], {}),
    "scatter_add": ([T(3, 4), 1, I(3, 2, high=4), T(3, 2)], {}),
}
# A dtype= the call gives is kept by the fp32_set_opt_dtype policy: these cases pass one.
DTYPE_CASES: dict[str, tuple[list[Any], dict[str, Any]]] = {
    "sum#dtype": ([T(3, 4)], {"dtype": "low"}),
    "softmax.int#dtype": ([T(3, 4), 1, "low"], {}),
    "cumsum#dtype": ([T(3, 4), 1], {"dtype": "float64"}),
}


def build(torch: Any, spec: Any, floats: list[Any], device: str, rng: np.random.Generator, fake: bool = False) -> Any:
    """The argument spec describes, on device; floating tensors take the next dtype of `floats`
    (the last one repeats). fake: inside FakeTensorMode, where only metadata exists."""
    if isinstance(spec, list):
        return [build(torch, s, floats, device, rng, fake) for s in spec]
    if not isinstance(spec, dict):
        return spec
    if fake:
        if "idx" in spec or "i" in spec:
            return torch.zeros(spec.get("i", [len(spec.get("idx", ()))]), dtype=torch.int64, device=device)
        dtype = floats.pop(0) if len(floats) > 1 else floats[0]
        return torch.empty(spec["t"], dtype=dtype, device=device)
    if "idx" in spec:
        return torch.tensor(spec["idx"], dtype=torch.int64, device=device)
    if "i" in spec:
        return torch.from_numpy(rng.integers(0, spec["high"], spec["i"])).to(device)
    values = rng.standard_normal(spec["t"])
    if spec["kind"] == "pos":
        values = np.abs(values) + 0.5
    elif spec["kind"] in ("unit", "prob"):
        values = np.tanh(values) * 0.9
        if spec["kind"] == "prob":
            values = (values + 1) / 2
    dtype = floats.pop(0) if len(floats) > 1 else floats[0]
    return torch.from_numpy(values).to(device=device, dtype=dtype)


def variant_dtypes(torch: Any, variant: str, low: Any) -> list[Any]:
    """The dtypes the case's floating tensors take, in order (the last one repeats)."""
    return {"low": [low], "float32": [torch.float32], "mixed": [torch.float32, low, low],
            "float64": [torch.float64]}[variant]


def named_dtype(torch: Any, value: Any, low: Any) -> Any:
    """A dtype argument of a `#dtype` case: "low" is the autocast dtype."""
    return low if value == "low" else getattr(torch, value) if value in ("float64", "float32") else value


def run_case(torch: Any, name: str, args: list[Any], kwargs: dict[str, Any], device: str, variant: str,
             region: Any, tensors: Any = contextlib.nullcontext, fake: bool = False) -> dict[str, Any]:
    """Output dtypes (or the error type) of the case's op on inputs of the variant, called inside
    region() (an autocast region) with its tensors made inside tensors() (FakeTensorMode when fake)."""
    op_name = name.split("#")[0]
    base, _, overload = op_name.partition(".")
    op = getattr(getattr(torch.ops.aten, base), overload or "default")
    low = torch.get_autocast_dtype(device)
    rng = np.random.default_rng(0)
    floats = variant_dtypes(torch, variant, low)
    built_kwargs = {k: named_dtype(torch, v, low) for k, v in kwargs.items()}
    with tensors():
        built = [named_dtype(torch, a, low) if name.endswith("#dtype") and isinstance(a, str) else a
                 for a in build(torch, args, list(floats), device, rng, fake)]
        try:
            with region():
                out = op(*built, **built_kwargs)
        except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
            if fake and CPU_ONLY_BUILD in str(e):
                # The op's composite reached a CUDA-only path (cuDNN checks, index tensors made on
                # the device) that a CPU build of PyTorch cannot fake: PyTorch's answer is unknown.
                return {"unrecorded": str(e)}
            return {"error": type(e).__name__}
    outs = out if isinstance(out, (tuple, list)) else [out]
    return {"dtypes": [str(o.dtype).removeprefix("torch.") for o in outs]}


def entry_points(torch: Any) -> dict[str, Any]:
    """Public functions and modules whose implementations reach the listed operators by their own
    routes: the output dtypes under autocast("cpu") of each (the losses from bfloat16 inputs, which
    their fp32 policy widens; the rest from float32)."""
    F = torch.nn.functional  # noqa: N806 (PyTorch's spelling)
    torch.manual_seed(0)
    x, t = torch.randn(3, 5), torch.tensor([0, 1, 4])
    seq = torch.randn(5, 2, 4)
    modules = {name: getattr(torch.nn, name)(4, 8, num_layers=2) for name in ("LSTM", "GRU", "RNN")}
    attention = torch.nn.MultiheadAttention(8, 2)
    q = torch.randn(3, 2, 8)
    return {
        "F.nll_loss": lambda: F.nll_loss(F.log_softmax(x, 1).bfloat16(), t),
        "F.nll_loss_4d": lambda: F.nll_loss(torch.randn(2, 3, 4, 4).bfloat16(), torch.zeros(2, 4, 4, dtype=torch.long)),
        "F.nll_loss_3d": lambda: F.nll_loss(torch.randn(2, 3, 4).bfloat16(), torch.zeros(2, 4, dtype=torch.long)),
        "F.cross_entropy": lambda: F.cross_entropy(x.bfloat16(), t),
        "F.l1_loss": lambda: F.l1_loss(x.bfloat16(), x.bfloat16()),
        "F.binary_cross_entropy_with_logits": lambda: F.binary_cross_entropy_with_logits(x.bfloat16(), x.sigmoid()),
        "F.linear": lambda: F.linear(x, torch.randn(2, 5)),
        "F.softmax": lambda: F.softmax(x, 1),
        "F.layer_norm": lambda: F.layer_norm(x, (5,)),
        "F.gelu": lambda: F.gelu(x),
        "F.mse_loss": lambda: F.mse_loss(x.bfloat16(), x.bfloat16()),
        "torch.einsum": lambda: torch.einsum("ij,kj->ik", x, x),
        "nn.MultiheadAttention": lambda: attention(q, q, q)[0],
        **{f"nn.{name}": (lambda m: lambda: m(seq)[0])(m) for name, m in modules.items()},
    }


def record_entry_points(torch: Any) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for name, fn in entry_points(torch).items():
        try:
            with torch.autocast("cpu"):
                results[name] = {"dtypes": [str(fn().dtype).removeprefix("torch.")]}
        except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
            results[name] = {"error": type(e).__name__}
    return results


def autocast_lists(torch: Any) -> dict[str, list[str]]:
    lists: dict[str, list[str]] = {"AutocastCPU": [], "AutocastCUDA": []}
    for qualified in sorted(torch._C._dispatch_get_all_op_names()):
        for key, names in lists.items():
            if torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key) and \
                    not torch._C._dispatch_kernel_for_dispatch_key_is_fallthrough(qualified, key):
                names.append(qualified.removeprefix("aten::"))
    return lists


def training(torch: Any, device: str = "cpu") -> list[dict[str, Any]]:
    """Loss, scale and growth tracker after each step of a small model under autocast(device) and
    a GradScaler (growth_interval 2, so it grows too), with an inf gradient injected on step 3; then
    the final weights. The tests run the same function on Ember."""
    rng = np.random.default_rng(1)
    w1 = torch.from_numpy(rng.standard_normal((8, 4)).astype(np.float32) * 0.5).to(device).requires_grad_()
    w2 = torch.from_numpy(rng.standard_normal((2, 8)).astype(np.float32) * 0.5).to(device).requires_grad_()
    x = torch.from_numpy(rng.standard_normal((16, 4)).astype(np.float32)).to(device)
    y = torch.from_numpy(rng.standard_normal((16, 2)).astype(np.float32)).to(device)
    opt = torch.optim.SGD([w1, w2], lr=0.05)
    scaler = torch.amp.GradScaler(device, init_scale=2.0 ** 10, growth_interval=2)
    record: list[dict[str, Any]] = []
    for step in range(8):
        opt.zero_grad()
        with torch.autocast(device):
            out = torch.nn.functional.linear(torch.relu(torch.nn.functional.linear(x, w1)), w2)
            loss = torch.nn.functional.mse_loss(out, y)
        scaler.scale(loss).backward()
        if step == 3:
            w1.grad[0, 0] = float("inf")
        scaler.step(opt)
        scaler.update()
        record.append({"loss": loss.item(), "loss_dtype": str(loss.dtype).removeprefix("torch."),
                       "scale": scaler.get_scale(), "growth_tracker": scaler._get_growth_tracker()})
    record.append({"w1": w1.detach().cpu().numpy().ravel().tolist(), "w2": w2.detach().cpu().numpy().ravel().tolist()})
    return record


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    fake_tensor_mode = importlib.import_module(REFERENCE_PACKAGE + "._subclasses.fake_tensor").FakeTensorMode
    lists = autocast_lists(torch)
    cases = []
    for name, (args, kwargs) in {**CASES, **DTYPE_CASES}.items():
        op_name = name.split("#")[0]
        for device, key in (("cpu", "AutocastCPU"), ("cuda", "AutocastCUDA")):
            if op_name not in lists[key]:
                continue
            fake = device == "cuda"     # fake CUDA tensors: autocast("cuda") refuses without a GPU, the state does not
            region = _enabled_cuda(torch) if fake else (lambda: torch.autocast("cpu"))
            tensors = fake_tensor_mode if fake else contextlib.nullcontext
            results = {variant: run_case(torch, name, args, kwargs, device, variant, region, tensors, fake)
                       for variant in VARIANTS}
            cases.append({"op": name, "device": device, "args": args, "kwargs": kwargs, "results": results})
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {"torch": torch.__version__, "lists": lists, "cases": cases, "training": training(torch),
            "entry_points": record_entry_points(torch)}
    (out_dir / "autocast.json").write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {out_dir / 'autocast.json'}: {len(cases)} cases")


def _enabled_cuda(torch: Any) -> Any:
    """An autocast("cuda") region made by setting the state, as the context manager would on a GPU."""
    @contextlib.contextmanager
    def region() -> Any:
        torch.set_autocast_enabled("cuda", True)
        try:
            yield
        finally:
            torch.set_autocast_enabled("cuda", False)

    return region


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
