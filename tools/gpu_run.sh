#!/bin/sh
# On a machine with an NVIDIA GPU and no network (the lent device): build Ember and PyCUDA from
# what `make gpu-deps` downloaded into .device/ (carry it with the tree), then run the GPU tests
# and benchmarks/gpu.py. Usage: sh tools/gpu_run.sh [pytest args...]; results in $OUT if set.
# PyCUDA is built once from its sdist (one core, while Ember builds on the others) and its wheel
# is left in $OUT: put it in .device/wheels and the next run installs it instead.
# GPU_RUN_STEPS (default "tests bench") chooses what runs after the build.
set -u
PYTHON=${PYTHON:-python3}
JOBS=$(nproc)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUDA_ROOT=${CUDA_ROOT:-$(dirname "$(dirname "$NVCC")")}
OUT=${OUT:-.device/out}
STEPS=${GPU_RUN_STEPS:-tests bench}
export EMBER_KERNEL_CACHE=${EMBER_KERNEL_CACHE:-$PWD/.device/kernel-cache}
mkdir -p "$OUT"
log() { echo "== $(date +%T) $*"; }

log "machine"
nvidia-smi -L
"$NVCC" --version | tail -1
$PYTHON --version
ldconfig -p | grep -E 'libcuda\.so' || echo "ldconfig knows no libcuda"

[ -x .device/venv/bin/python ] || $PYTHON -m venv .device/venv || exit 1
PY=.device/venv/bin/python
PIP="$PY -m pip install -q --no-index --find-links .device/wheels"
$PIP setuptools wheel cython numpy scipy jinja2 pyyaml pytest pytest-xdist hypothesis \
    pytools platformdirs mako typing_extensions siphash24 || exit 1

pycuda_pid=""
if ! ls .device/wheels/pycuda-*.whl >/dev/null 2>&1; then
    rm -rf .device/pycuda-src && mkdir -p .device/pycuda-src
    tar xzf .device/sdist/pycuda-*.tar.gz -C .device/pycuda-src --strip-components=1
    # PyCUDA's build reads its settings from siteconf.py (../shared/notes/build.md). It links
    # against libcuda: the driver's own where ldconfig knows an unversioned one, else CUDA's stub.
    real=$(ldconfig -p | sed -n "s/^[[:space:]]*libcuda\.so (.*) => \(.*\)\/libcuda\.so$/\1/p" | head -1)
    cat > .device/pycuda-src/siteconf.py <<CONF
CUDA_ROOT = "$CUDA_ROOT"
CUDA_ENABLE_CURAND = False
CUDA_ENABLE_GL = False
USE_SHIPPED_BOOST = True
CUDADRV_LIB_DIR = [d for d in ["$real", "$CUDA_ROOT/lib64/stubs", "$CUDA_ROOT/targets/x86_64-linux/lib/stubs"] if d]
CUDADRV_LIBNAME = ["cuda"]
CXXFLAGS = []
LDFLAGS = []
CONF
    log "building PyCUDA in the background"
    $PY -m pip wheel -q --no-deps --no-index --no-build-isolation -w "$OUT" ./.device/pycuda-src \
        >"$OUT/pycuda_build.txt" 2>&1 &
    pycuda_pid=$!
fi

log "building Ember on $JOBS processes"
if ! EMBER_BUILD_JOBS=$JOBS $PY setup.py -q build_ext --inplace -j "$JOBS" >"$OUT/ember_build.txt" 2>&1; then
    tail -40 "$OUT/ember_build.txt"; exit 1
fi
if [ -n "$pycuda_pid" ]; then
    wait "$pycuda_pid" || { tail -40 "$OUT/pycuda_build.txt"; exit 1; }
    cp "$OUT"/pycuda-*.whl .device/wheels/
fi
$PIP pycuda || exit 1
log "built"

$PY - <<'PROBE'
import torch
from c10 import cuda
print("CUDA available:", torch.cuda.is_available(), torch.cuda.device_count(), cuda._init().error or "")
if torch.cuda.is_available():
    print(torch.cuda.get_device_name(), (torch.arange(6.0, device="cuda") * 2).cpu())
PROBE

status=0
case " $STEPS " in *" tests "*)
    log "pytest -m cuda"
    timeout -k 10 "${GPU_TEST_TIMEOUT:-330}" $PY -m pytest -q -m cuda -n 8 -p no:cacheprovider --tb=short -rfE "$@" \
        >"$OUT/pytest_cuda.txt" 2>&1 || status=1
    grep -E "^(FAILED|ERROR)" "$OUT/pytest_cuda.txt" | cut -c1-220 | head -60
    tail -3 "$OUT/pytest_cuda.txt";;
esac
case " $STEPS " in *" bench "*)
    log "benchmarks/gpu.py"
    timeout -k 10 "${GPU_BENCH_TIMEOUT:-150}" $PY -m benchmarks.gpu --compare-python "$(command -v $PYTHON)" \
        --json "$OUT/gpu_bench.json" 2>&1 | tee "$OUT/gpu_bench.txt" || status=1;;
esac
log "done"
exit $status
