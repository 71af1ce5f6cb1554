"""Generate every target from aten/native/native_functions.yaml.

`python -m torchgen.gen [--root DIR]` (setup.py calls generate()). Cython sources go to
build/gen/ (mirroring packages); files the runtime reads (.cu, .py) go into the packages.
Everything generated is named _gen_*, written only when its text changed, and removed when
its op leaves the schema.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from torchgen.file_manager import FileManager, write_if_changed
from torchgen.model import SchemaError, SchemaKind
from torchgen.native_yaml import NativeFunction, parse_native_yaml
from torchgen.targets import (autograd, batching, bindings, casts, cpu_loops, cuda, forward_ad, inductor, registrations,
                              stubs, variants)
from torchgen.targets.pointwise import PointwiseOp, pointwise_op

SCHEMA = "aten/native/native_functions.yaml"
TAGS = "aten/native/tags.yaml"
GEN_DIR = "build/gen"
# Package directories that receive generated files (stale _gen_* files there are removed).
PACKAGE_DIRS = ("aten", "aten/native/cpu", "aten/native/composite", "aten/native/cuda", "torch/_C",
                "torch/csrc/autograd")
WRAPPERS_MODULE = "aten.native.composite._gen_wrappers"
TEMPLATES = Path(__file__).parent / "templates"


@dataclass
class Result:
    extensions: list[tuple[str, str]] = field(default_factory=list)   # (module name, .pyx path)
    stubs: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["pyrepr"] = repr   # a Python literal of text that may hold quotes (schema string defaults)
    return env


# Spelt in two parts (as upstream torchgen does) so that tools looking for generated files do not
# take the generator itself for one.
GENERATED = "@" + "generated"


def header(generator: str, template: str, fns: list[NativeFunction], comment: str = "#") -> str:
    # Entries by name, not line: inserting an op must not rewrite (and recompile) every later module.
    entries = ", ".join(str(fn.func.name) for fn in fns) if fns else "all entries"
    return (f"{comment} {GENERATED} by torchgen/targets/{generator} from templates/{template};\n"
            f"{comment} schema {SCHEMA}: {entries}. Do not edit: change the schema or template.")


def _by_base(fns: list[NativeFunction]) -> dict[str, list[NativeFunction]]:
    groups: dict[str, list[NativeFunction]] = defaultdict(list)
    for fn in fns:
        groups[fn.func.name.name.base].append(fn)
    return dict(sorted(groups.items()))


@dataclass
class _Run:
    """One generation: the schema, the templates, where files go and what was produced."""
    root: Path
    fns: list[NativeFunction]
    env: jinja2.Environment
    gen: FileManager                     # build/gen: Cython sources
    pkg: FileManager                     # the packages: files the runtime reads
    result: Result = field(default_factory=Result)

    def render(self, template: str, **context: Any) -> str:
        return self.env.get_template(template).render(**context)

    def cython(self, module: str, template: str, **context: Any) -> None:
        rel = module.replace(".", "/") + ".pyx"
        self.gen.write(rel, self.render(template, **context))
        self.result.extensions.append((module, str(Path(GEN_DIR) / rel)))


@dataclass
class _Collected:
    """What the per-op targets hand to the targets that write one file for the whole schema."""
    generated: dict[tuple[str, str], str] = field(default_factory=dict)   # (op, key) -> generated kernel module
    extra: list[registrations.Registration] = field(default_factory=list)  # pointwise variants' registrations
    wrapper_lines: list[tuple[str, str, str]] = field(default_factory=list)
    functions: dict[str, str] = field(default_factory=dict)
    methods: dict[str, tuple[str, str]] = field(default_factory=dict)
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)
    function_sigs: dict[str, list[str]] = field(default_factory=dict)
    method_sigs: dict[str, list[str]] = field(default_factory=dict)
    function_stubs: dict[str, dict[str, list[str]]] = field(
        default_factory=lambda: {ns: {} for ns in ("", *stubs.NAMESPACES)})
    method_stubs: dict[str, list[str]] = field(default_factory=dict)
    return_types: dict[str, list[str]] = field(default_factory=dict)


def generate(root: Path, *, quiet: bool = False) -> Result:
    root = root.resolve()
    run = _Run(root, parse_native_yaml(str(root / SCHEMA), str(root / TAGS)), _env(), FileManager(root / GEN_DIR),
               FileManager(root))
    collected = _Collected()
    python_functions, python_methods = stubs.python_overrides(root)
    python_methods |= set(stubs.CONVERSIONS) | {"to", "type", "cpu", "cuda"}
    _generate_casts(run)
    for base, group in _by_base(run.fns).items():
        _generate_pointwise(run, base, group, collected)
        _generate_bindings(run, base, group, collected, python_functions, python_methods)
    kernel_stubs = _generate_registrations(run, collected)
    _generate_binding_tables(run, collected)
    _generate_autograd(root, run.fns, run.env, run.pkg)
    _generate_type_stubs(run, collected)
    run.pkg.write(inductor.MODULE_PATH, run.render(
        "inductor_pointwise.py.j2", header=header("inductor.py", "inductor_pointwise.py.j2", []),
        formulas=inductor.fusible_formulas(run.fns, _by_base(run.fns))))
    # the scalar functions of the CUDA formulas, for the compiler's generated kernels (the generated .cu inline it)
    run.pkg.write(inductor.CUDA_HELPERS_PATH, header("inductor.py", "cuda_scalar_ops.cuh", [], "//") + "\n"
                  + run.render("cuda_scalar_ops.cuh"))
    run.pkg.write("torch/_functorch/_gen_batching.py", run.render(
        "batching.py.j2", header=header("batching.py", "batching.py.j2", []), lists=batching.batching_lists(run.fns)))
    return _finish(run, kernel_stubs, quiet)


def _generate_casts(run: _Run) -> None:
    """The dtype conversion loops every CPU kernel casts through, and the CUDA runtime's."""
    cast_header = header("casts.py", "cpu_cast.pyx.j2", [])
    run.cython("aten.native.cpu._gen_cast", "cpu_cast.pyx.j2", header=cast_header, casts=casts.cast_context())
    run.gen.write("aten/native/cpu/_gen_cast.pxd", run.render("cpu_cast.pxd.j2", header=cast_header))
    run.pkg.write("aten/native/cuda/_gen_cast.cu", run.render(
        "cuda_cast.cu.j2", header=header("casts.py", "cuda_cast.cu.j2", [], "//"), casts=casts.cuda_cast_context(),
        fills=casts.cuda_fill_context()))


def _generate_pointwise(run: _Run, base: str, group: list[NativeFunction], collected: _Collected) -> None:
    """An op group's CPU loops and CUDA kernels and launchers (ember_pointwise ops), and the
    generated kernels of the in-place/out= variants no loop serves."""
    ops: list[PointwiseOp] = [op for f in group if (op := pointwise_op(f, group)) is not None]
    served = {str(v.func.name) for op in ops for v in (op.variants.inplace, op.variants.out) if v is not None}
    collected.wrapper_lines += variants.wrapper_lines(
        [f for f in group if variants.needs_generated_kernel(f) and str(f.func.name) not in served], group)
    if not ops:
        return
    op_fns = [op.fn for op in ops]
    cpu_module = f"aten.native.cpu._gen_{base}"
    cuda_module = f"aten.native.cuda._gen_{base}_launch"
    run.cython(cpu_module, "cpu_pointwise.pyx.j2", header=header("cpu_loops.py", "cpu_pointwise.pyx.j2", op_fns),
               ops=[cpu_loops.op_context(op) for op in ops])
    run.pkg.write(f"aten/native/cuda/_gen_{base}.cu", run.render(
        "cuda_pointwise.cu.j2", header=header("cuda.py", "cuda_pointwise.cu.j2", op_fns, "//"),
        kernels=cuda.cu_kernels(ops)))
    run.pkg.write(f"aten/native/cuda/_gen_{base}_launch.py", run.render(
        "cuda_launchers.py.j2", header=header("cuda.py", "cuda_launchers.py.j2", op_fns),
        ops=cuda.launchers(ops), source=f"_gen_{base}.cu"))
    for op in ops:
        collected.generated[(op.name, "CPU")] = cpu_module
        collected.generated[(op.name, "CUDA")] = cuda_module
        variants_ = [v for v in (op.variants.inplace, op.variants.out) if v is not None]
        collected.extra += [registrations.Registration(str(v.func.name), "CPU", cpu_module, cpu_loops.kernel_name(v))
                            for v in variants_]
        collected.extra += [registrations.Registration(str(v.func.name), "CUDA", cuda_module,
                                                       f"{v.func.name.unambiguous_name()}_cuda") for v in variants_]


def _generate_bindings(run: _Run, base: str, group: list[NativeFunction], collected: _Collected,
                       python_functions: set[str], python_methods: set[str]) -> None:
    """An op group's torch.<name> / Tensor.<name> bindings, and their index, signature and stub entries."""
    context = bindings.module_context(group)
    if not context.bindings:
        return
    module = f"torch._C._gen_{base}"
    run.cython(module, "bindings.pyx.j2",
               header=header("bindings.py", "bindings.pyx.j2", bindings.bound_functions(group)),
               operators=context.operators, bindings=context.bindings, return_types=context.return_types)
    functions, methods, namespaces = bindings.index_entries(module, context)
    collected.functions.update(functions)
    collected.methods.update(methods)
    for space, entries in namespaces.items():
        collected.namespaces.setdefault(space, {}).update(entries)
    function_sigs, method_sigs = bindings.signature_entries(context)
    collected.function_sigs.update(function_sigs)
    collected.method_sigs.update(method_sigs)
    fns_by_ns, method_stubs, return_types = stubs.stub_entries(group, context, python_functions, python_methods)
    for space, overloads in fns_by_ns.items():
        collected.function_stubs.setdefault(space, {}).update(overloads)
    collected.method_stubs.update(method_stubs)
    collected.return_types.update(return_types)


def _generate_registrations(run: _Run, collected: _Collected) -> dict[str, str]:
    """Every op's definition and kernels (aten/_gen_registrations.py) and the composite wrappers of
    the variants without a kernel; returns the kernel stubs to write (path -> text)."""
    stubs: dict[str, registrations.KernelStub] = {}
    regs = registrations.plan_registrations([f for f in run.fns if not variants.needs_generated_kernel(f)],
                                            run.root, collected.generated, stubs) + collected.extra
    kernel_stubs = {path: run.render("kernel_stub.py.j2", stub=stub) for path, stub in stubs.items()}
    run.pkg.write(f"{WRAPPERS_MODULE.replace('.', '/')}.py", run.render(
        "wrappers.py.j2", header=header("variants.py", "wrappers.py.j2", []), wrappers=collected.wrapper_lines))
    regs += [registrations.Registration(op, "CompositeExplicitAutograd", WRAPPERS_MODULE, kernel)
             for kernel, _, op in collected.wrapper_lines]
    run.pkg.write("aten/_gen_registrations.py", run.render(
        "registrations.py.j2", header=header("registrations.py", "registrations.py.j2", []),
        ops=[registrations.Definition(str(fn.func), "inplace_view" in fn.tags) for fn in run.fns],
        registrations=regs, autocast=registrations.plan_autocast(run.fns)))
    return kernel_stubs


def _generate_binding_tables(run: _Run, collected: _Collected) -> None:
    """torch._C's index of binding modules (torch.<name> is imported on first use) and signatures."""
    run.pkg.write("torch/_C/_gen_index.py", run.render(
        "bindings_index.py.j2", header=header("bindings.py", "bindings_index.py.j2", []),
        functions=sorted(collected.functions.items()), methods=sorted(collected.methods.items()),
        namespaces=[(ns, sorted(entries.items())) for ns, entries in sorted(collected.namespaces.items())]))
    run.pkg.write("torch/_C/_gen_signatures.py", run.render(
        "bindings_signatures.py.j2", header=header("bindings.py", "bindings_signatures.py.j2", []),
        functions=sorted(collected.function_sigs.items()), methods=sorted(collected.method_sigs.items())))


def _generate_type_stubs(run: _Run, collected: _Collected) -> None:
    """Type stubs (never imported at run time): torch/__init__.py and torch/_tensor.py read them
    under TYPE_CHECKING."""
    rt_names = sorted(collected.return_types)
    outputs: list[tuple[str, str, dict[str, Any]]] = [
        (f"torch/_C/_gen_{space or 'variable'}_functions.pyi", "stubs_functions.pyi.j2",
         dict(functions=sorted(by_name.items()), return_types=rt_names))
        for space, by_name in collected.function_stubs.items()]
    outputs += [
        ("torch/_C/_gen_tensor_base.pyi", "stubs_tensor.pyi.j2",
         dict(methods=sorted(collected.method_stubs.items()), conversions=stubs.CONVERSIONS, return_types=rt_names)),
        ("torch/_C/_gen_return_types.pyi", "stubs_return_types.pyi.j2",
         dict(return_types=sorted(collected.return_types.items())))]
    for path, template, context in outputs:
        run.pkg.write(path, run.render(template, header=header("stubs.py", template, []), **context))


def _finish(run: _Run, kernel_stubs: dict[str, str], quiet: bool) -> Result:
    """Kernel stubs written where none exists yet, stale generated files removed, the result."""
    result = run.result
    for path, text in kernel_stubs.items():
        # Never overwrite: plan_registrations only plans stubs for files that do not exist.
        write_if_changed(run.root / path, text)
        result.stubs.append(path)
    result.changed = [str(p.relative_to(run.root)) for p in run.gen.changed + run.pkg.changed]
    result.removed = _remove_stale(run.root, run.gen.written | run.pkg.written, {m for m, _ in result.extensions})
    if not quiet:
        for path in result.stubs:
            print(f"torchgen: wrote a kernel stub to fill in: {path}", file=sys.stderr)
        for path in result.removed:
            print(f"torchgen: removed stale generated file {path}", file=sys.stderr)
    return result


def _generate_autograd(root: Path, fns: list[NativeFunction], env: jinja2.Environment, pkg: FileManager) -> None:
    """Backward nodes and autograd kernels from tools/autograd/derivatives.yaml, and their registrations."""
    derivatives = autograd.load_derivatives(root, fns)
    groups = _by_base(fns)
    contexts: list[autograd.KernelContext] = []
    covered: set[str] = set()
    for d in derivatives:
        siblings = [f for f in groups[d.fn.func.name.name.base]
                    if f is not d.fn and variants.needs_generated_kernel(f) and variants.functional_of(f, groups[
                        d.fn.func.name.name.base]) is d.fn]
        context = autograd.kernel_context(d, siblings)
        contexts.append(context)
        covered |= {context.op, *(v.op for v in context.inplace), *(v.op for v in context.out)}
    outs = [autograd.VariantContext(str(f.func.name), f.func.name.unambiguous_name().replace(".", "_"),
                                    base=str(f.func.name.name.base)) for f in fns if f.func.kind() is SchemaKind.out]
    covered |= {o.op for o in outs}
    missing = [autograd.MissingFormula(str(f.func.name), f.func.name.unambiguous_name().replace(".", "_"),
                                       f.func.kind() is SchemaKind.inplace)
               for f in autograd.differentiable_without_formula(fns, covered)]
    all_fns = [d.fn for d in derivatives]
    pkg.write(f"{autograd.KERNELS_MODULE.replace('.', '/')}.py", env.get_template("autograd_functions.py.j2").render(
        header=header("autograd.py", "autograd_functions.py.j2", all_fns), derivatives=contexts,
        not_implemented=missing, outs=outs))
    module = autograd.KERNELS_MODULE
    registrations_ = [(c.op, module, c.kernel) for c in contexts]
    registrations_ += [(v.op, module, v.kernel) for c in contexts for v in c.inplace]
    registrations_ += [(k.op, module, k.kernel) for k in missing]
    registrations_ += [(k.op, module, k.kernel) for k in outs]
    schemas = {str(f.func.name) for f in fns}
    registrations_ += [(op, where, kernel) for op, (where, kernel) in autograd.MANUAL_KERNELS.items() if op in schemas]
    forward = forward_ad.plan(derivatives, contexts, missing, outs, groups)
    pkg.write(f"{forward_ad.MODULE.replace('.', '/')}.py", env.get_template("forward_ad.py.j2").render(
        header=header("forward_ad.py", "forward_ad.py.j2", all_fns), formulas=forward.formulas,
        missing=forward.missing, outs=forward.outs))
    pkg.write("torch/csrc/autograd/_gen_registrations.py", env.get_template("autograd_registrations.py.j2").render(
        header=header("autograd.py", "autograd_registrations.py.j2", []), registrations=sorted(registrations_),
        forward=sorted(forward.registrations())))


def _remove_stale(root: Path, written: set[Path], extensions: set[str]) -> list[str]:
    """Delete _gen_* files (sources, C, compiled modules) of ops no longer in the schema."""
    removed = []
    candidates = [p for d in PACKAGE_DIRS for p in (root / d).glob("_gen_*")]
    candidates += [p for p in (root / GEN_DIR).rglob("_gen_*")] if (root / GEN_DIR).exists() else []
    for path in candidates:
        if path in written or not path.is_file():
            continue
        rel = path.relative_to(root / GEN_DIR) if path.is_relative_to(root / GEN_DIR) else path.relative_to(root)
        module = ".".join(rel.parent.parts + (path.name.split(".")[0],))
        if module in extensions and path.suffix in (".c", ".so", ".pyi", ".html"):
            continue
        path.unlink()
        removed.append(str(path.relative_to(root)))
    return removed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository root")
    args = parser.parse_args(argv)
    try:
        result = generate(args.root)
    except SchemaError as e:
        print(f"torchgen: {e}", file=sys.stderr)
        return 1
    print(f"torchgen: {len(result.extensions)} Cython modules, {len(result.changed)} files changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
