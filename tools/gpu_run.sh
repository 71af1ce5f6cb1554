#!/bin/sh
# On a machine with an NVIDIA GPU and no network (the lent device): build Ember and PyCUDA from
# what `make gpu-deps` downloaded into .device/ (carry it with the tree), then run the GPU tests
# and benchmarks/gpu.py. Usage: sh tools/gpu_run.sh [pytest args...]; results in $OUT if set.
set -eu
PYTHON=${PYTHON:-python3}
CUDA_ROOT=${CUDA_ROOT:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
OUT=${OUT:-.device/out}
mkdir -p "$OUT"
[ -x .device/venv/bin/python ] || $PYTHON -m venv .device/venv
PY=.device/venv/bin/python
PIP="$PY -m pip install -q --no-index --find-links .device/wheels"
$PIP setuptools wheel cython numpy jinja2 pyyaml pytest hypothesis
if ! $PY -c "import pycuda.driver" 2>/dev/null; then
    rm -rf .device/pycuda-src && mkdir -p .device/pycuda-src
    tar xzf .device/sdist/pycuda-*.tar.gz -C .device/pycuda-src --strip-components=1
    # PyCUDA's build reads its settings from siteconf.py (../shared/notes/build.md)
    cat > .device/pycuda-src/siteconf.py <<CONF
CUDA_ROOT = "$CUDA_ROOT"
CUDA_ENABLE_CURAND = False
CUDA_ENABLE_GL = False
USE_SHIPPED_BOOST = True
CUDADRV_LIB_DIR = []
CUDADRV_LIBNAME = ["cuda"]
CXXFLAGS = []
LDFLAGS = []
CONF
    $PIP pytools platformdirs mako typing_extensions siphash24 2>/dev/null || $PIP pytools platformdirs mako typing_extensions
    $PY -m pip install -q --no-index --find-links .device/wheels --no-build-isolation ./.device/pycuda-src
fi
$PY -m pip install -q --no-index --find-links .device/wheels --no-build-isolation -e .
$PY -c "import torch; print('CUDA available:', torch.cuda.is_available(), torch.cuda.device_count())"
status=0
$PY -m pytest -q -m cuda -p no:cacheprovider "$@" 2>&1 | tee "$OUT/pytest_cuda.txt" || status=1
$PY -m benchmarks.gpu --json "$OUT/gpu_bench.json" 2>&1 | tee "$OUT/gpu_bench.txt" || status=1
exit $status
