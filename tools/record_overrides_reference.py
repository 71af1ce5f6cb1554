"""Record PyTorch's __torch_function__ behaviour for the overrides tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_overrides_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`overrides.json`: for each case of run_cases, what it returns as text (class names, the functions a
mode saw, a duck type's answers) or the error type and message. The tests run the same cases on Ember.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any, Callable

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "overrides"
REFERENCE_PACKAGE = "torch"


def _cases(torch: Any) -> dict[str, Callable[[], Any]]:
    overrides = importlib.import_module(torch.__name__ + ".overrides")

    class Sub(torch.Tensor):
        pass

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ["duck", func.__name__, len(args), sorted(kwargs or {})]

    class Refuses:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    class Log(overrides.TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.seen = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.seen.append([func.__name__, [t.__name__ for t in types]])
            return func(*args, **(kwargs or {}))

    def names(value: Any) -> Any:
        if isinstance(value, (tuple, list)):
            return [type(value).__name__, [names(v) for v in value]]
        return type(value).__name__

    def logged(body: Callable[[], Any]) -> Any:
        with Log() as log:
            body()
        return log.seen

    x = torch.arange(6.0).view(2, 3)
    s = x.as_subclass(Sub)
    p = torch.nn.Parameter(torch.ones(2))
    return {
        "subclass_ops": lambda: [names(v) for v in (s + 1, torch.add(s, 1), s.sum(), s[0], s.t(), torch.cat([s, s]),
                                                    torch.max(s, 1), s.split(1), x + s, torch.nn.functional.relu(s))],
        "subclass_grad_fn": lambda: type((torch.ones(2, requires_grad=True).as_subclass(Sub) * 2).grad_fn).__name__,
        "parameter_results_are_plain": lambda: [names(p * 2), names(p[0]), names(torch.add(p, p))],
        "duck_function": lambda: torch.add(Duck(), 2, alpha=3),
        "duck_in_list": lambda: torch.cat([Duck(), torch.ones(1)]),
        "duck_unary": lambda: torch.sum(Duck()),
        "not_implemented": lambda: torch.add(Refuses(), 1),
        "mode_sees_calls": lambda: logged(lambda: (torch.ones(2) + 1, x[0], x.sum(), torch.relu(x))),
        "mode_sees_subclass_types": lambda: logged(lambda: s.mul(2)),
        "has_torch_function": lambda: [overrides.has_torch_function((x,)), overrides.has_torch_function((s,)),
                                       overrides.has_torch_function((p,)), overrides.has_torch_function((Duck(),)),
                                       overrides.has_torch_function_unary(s), overrides.is_tensor_like(Duck()),
                                       overrides.is_tensor_like(x), overrides.is_tensor_like(1)],
        "handle_torch_function": lambda: overrides.handle_torch_function(torch.add, (Duck(),), Duck(), 1),
        "disabled_subclass": lambda: names(_disabled(torch, s)),
        "indexed_by_a_subclass": lambda: [names(x[torch.tensor([1, 0]).as_subclass(Sub)]),
                                          names(_set_with_subclass_index(torch, x.clone(), Sub))],
        # the parser's error (its wording is the parser's own, checked elsewhere), not a dispatch
        "invalid_call_on_a_subclass": lambda: _error_type(lambda: s.add(foo=1)),
        "can_cast_complex": lambda: [torch.can_cast(torch.complex64, torch.float32),
                                     torch.can_cast(torch.float32, torch.complex64),
                                     torch.can_cast(torch.complex128, torch.int64)],
    }


def _error_type(call: Callable[[], Any]) -> str:
    try:
        call()
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error's type)
        return type(e).__name__
    return "no error"


def _set_with_subclass_index(torch: Any, x: Any, sub: Any) -> Any:
    x[torch.tensor([0]).as_subclass(sub)] = 5.0
    return x


def _disabled(torch: Any, s: Any) -> Any:
    with torch._C.DisableTorchFunctionSubclass():
        return s + 1


def _local(text: str) -> str:
    """Text without the module of this file's classes (__main__ when recording, tools.* in the tests)."""
    return text.replace(f"{__name__}.", "").replace("__main__.", "")


def run_cases(torch: Any) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, case in _cases(torch).items():
        try:
            out[name] = {"value": json.loads(_local(json.dumps(case(), default=str)))}
        except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
            out[name] = {"error": type(e).__name__, "message": _local(str(e))}
    return out


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "overrides.json").write_text(json.dumps({"torch": torch.__version__, "cases": run_cases(torch)},
                                                       indent=1) + "\n")
    print(f"wrote {out_dir / 'overrides.json'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
