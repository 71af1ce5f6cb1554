# Ember: `make demo` and `make test` set everything up from a fresh clone.
#   make build   the edit loop: regenerate from the schema, compile only what changed (2 cores)
#   make test    pytest, the GPU tests on the CUDA host emulator, the architecture audit, then mypy
#   make audit   the architecture audit alone (layers, cycles, coupling, surfaces, maps)
#   make demo    trains an MLP on the digits data (examples/train_digits.py)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.ember-installed

.PHONY: demo test build install audit typecheck bench clean gpu-deps

$(PY):
	$(PYTHON) -m venv $(VENV)

# Build requirements come from pyproject.toml (one list); then an editable install without
# isolation, so later `make build` runs reuse the same Cython and compile incrementally. The
# compat mode puts the checkout on sys.path with a .pth file, which mypy follows (it ignores the
# default mode's import hook), so user scripts anywhere get Ember's type stubs.
$(STAMP): $(PY) pyproject.toml setup.py setup.cfg
	$(PY) tools/build_requires.py | xargs -d '\n' $(PY) -m pip install -q
	$(PY) -m pip install -q --no-build-isolation --config-settings editable_mode=compat -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

build: $(STAMP)
	$(PY) setup.py -q build_ext --inplace

# The second pytest runs the GPU tests (-m cuda) on the CUDA host emulator (c10/cuda/host_driver.py):
# the kernels compiled by g++ and run on the CPU, so they are exercised where there is no GPU.
# Both run on two workers (pytest-xdist). The main run hands out whole files, so a module's
# fixtures (the nvcc compiles above all) are built once; the emulated kernels share a disk cache.
test: build
	ATEN_NUM_THREADS=1 $(PY) -m pytest -q -n 2 --dist loadfile
	EMBER_CUDA_EMULATOR=1 ATEN_NUM_THREADS=1 $(PY) -m pytest -q -m cuda -n 2
	$(MAKE) --no-print-directory audit typecheck

# Runs import-linter's contracts (.importlinter) too; exit status bits in architecture/cli.py.
audit: $(STAMP)
	$(PY) -m architecture

typecheck: $(STAMP)
	$(PY) -m mypy

demo: build
	$(PY) examples/train_digits.py

# BENCH_ARGS: e.g. --quick, --filter REGEX, --compare-python /path/to/torch-venv/bin/python
BENCH_ARGS ?=
bench: build
	$(PY) -m benchmarks $(BENCH_ARGS)

# What tools/gpu_run.sh needs on a GPU machine without network, for its Python (GPU_PYTHON_VERSION):
# wheels of the build and test requirements and PyCUDA's sdist, into .device/ (git-ignored).
GPU_PYTHON_VERSION ?= 3.12
gpu-deps: $(PY)
	$(PY) -m pip download -q -d .device/wheels --only-binary=:all: --python-version $(GPU_PYTHON_VERSION) \
		--platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
		setuptools wheel cython numpy scipy jinja2 pyyaml pytest pytest-xdist hypothesis pytools platformdirs mako \
		typing_extensions
	$(PY) -m pip download -q -d .device/sdist --no-deps --no-binary pycuda pycuda

clean:
	rm -rf build $(VENV) *.egg-info
	find c10 aten torch -name '*.so' -delete -o -name '*.c' -delete -o -name '_gen_*' -delete
