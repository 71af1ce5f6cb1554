"""Record PyTorch's torch.utils._pytree answers for the pytree tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_pytree_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `pytree.json`:
for each case of CASES, the text (repr) of what it returns, or the error type and message. The
tests run the same cases (run_cases) on Ember and compare the texts.
"""
from __future__ import annotations

import collections
import importlib
import json
import sys
from pathlib import Path
from typing import Any, Callable

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "pytree"
REFERENCE_PACKAGE = "torch"
Point = collections.namedtuple("Point", "x y")


class Pair:
    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b

    def __repr__(self) -> str:
        return f"Pair({self.a!r}, {self.b!r})"


def _cases(torch: Any, p: Any) -> dict[str, Callable[[], Any]]:
    nested = {"b": (1, [2, 3]), "a": torch.ones(2), "c": None}
    spec = p.tree_structure(nested)
    if Pair not in p.SUPPORTED_NODES:
        p.register_pytree_node(Pair, lambda q: ([q.a, q.b], None), lambda v, c: Pair(*v))
    return {
        "flatten_nested": lambda: p.tree_flatten(nested),
        "unflatten_nested": lambda: p.tree_unflatten([0, 1, 2, 3, 4], spec),
        "spec_counts": lambda: (spec.num_leaves, spec.num_nodes, spec.type, spec.context),
        "unflatten_wrong_length": lambda: p.tree_unflatten([1], spec),
        "namedtuple": lambda: p.tree_flatten(Point(1, (2, 3))),
        "ordered_dict": lambda: p.tree_flatten(collections.OrderedDict(z=1, a=2)),
        "defaultdict": lambda: p.tree_flatten(collections.defaultdict(list, {"x": 1})),
        "deque": lambda: p.tree_flatten(collections.deque([1, 2], maxlen=3)),
        "leaf": lambda: p.tree_flatten(5),
        "structseq": lambda: p.tree_flatten(torch.max(torch.ones(2, 2), 0))[0],
        "with_path": lambda: p.tree_flatten_with_path({"a": [1, (2,)], "p": Point(3, 4)}),
        "keystr": lambda: [p.keystr(k) for k, _ in p.tree_leaves_with_path({"a": [1, (2,)], "p": Point(3, 4)})],
        "map_two_trees": lambda: p.tree_map(lambda a, b: a + b, (1, [2]), (10, [20])),
        "map_mismatch": lambda: p.tree_map(lambda a, b: a, (1, 2), [1, 2]),
        "map_only": lambda: p.tree_map_only(int, lambda x: x * 10, (1, 2.0, "a", [3])),
        "map_with_path": lambda: p.tree_map_with_path(lambda k, v: p.keystr(k), {"a": [1]}),
        "all_any": lambda: (p.tree_all(lambda x: x > 0, [1, 2]), p.tree_any(lambda x: x > 1, [1, 2]),
                            p.tree_all_only(int, lambda x: x > 1, [1, "a"]), p.tree_any_only(str, bool, [1, "a"])),
        "is_leaf_option": lambda: p.tree_flatten([(1, 2), [3]], is_leaf=lambda x: isinstance(x, tuple)),
        "registered": lambda: p.tree_leaves([Pair(1, (2, 3))]),
        "registered_map": lambda: p.tree_map(lambda x: x + 1, Pair(1, [2])),
        "register_twice": lambda: p.register_pytree_node(Pair, lambda q: ([q.a], None), lambda v, c: Pair(*v)),
        "spec_equality": lambda: (p.tree_structure((1, 2)) == p.tree_structure((3, 4)),
                                  p.tree_structure((1, 2)) == p.tree_structure([3, 4])),
        "dumps": lambda: p.treespec_dumps(p.tree_structure((1, {"a": [2]}))),
        "loads_round_trip": lambda: p.treespec_loads(p.treespec_dumps(p.tree_structure((1, {"a": [2]})))),
        "pprint": lambda: p.treespec_pprint(p.tree_structure((1, [2, {"a": 3}]))),
        "predicates": lambda: (p.is_namedtuple(Point), p.is_namedtuple_instance(Point(1, 2)),
                               p.is_structseq_instance(torch.max(torch.ones(2, 2), 0)), p.is_namedtuple((1, 2))),
    }


def _local(text: str) -> str:
    """Text without the module of this file's classes (__main__ when recording, tools.* in the tests)."""
    return text.replace(f"{__name__}.", "").replace("__main__.", "")


def run_cases(torch: Any) -> dict[str, dict[str, str]]:
    """Each case's repr, or its error's type and message."""
    p = importlib.import_module(torch.__name__ + ".utils._pytree")
    out = {}
    for name, case in _cases(torch, p).items():
        try:
            out[name] = {"repr": _local(repr(case()))}
        except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
            out[name] = {"error": type(e).__name__, "message": _local(str(e))}
    return out


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "pytree.json").write_text(json.dumps({"torch": torch.__version__, "cases": run_cases(torch)},
                                                    indent=1) + "\n")
    print(f"wrote {out_dir / 'pytree.json'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
