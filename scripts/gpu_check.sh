#!/usr/bin/env bash
# gpu_check.sh - the one command for a machine with a GPU (`make gpu-check`).
#
# Builds torchlike with its CUDA part for the GPU found, runs the whole test
# suite (the CUDA tests run because a device is present), a CUDA subset
# under compute-sanitizer when it is installed, and the GPU benchmarks, and
# writes one report file.  The GPU machines this project is lent have no
# network: the wheels they lack travel with the tree in .whl/, made here by
# `make wheelhouse` (docs/gpu.md).
#
#   scripts/gpu_check.sh [REPORT]        REPORT defaults to gpu-check-report.txt
#   PYTHON=python3 CUDA_ARCH=90 ...      the interpreter and the architecture
set -u -o pipefail
cd "$(dirname "$0")/.."
REPORT=$(realpath -m "${1:-gpu-check-report.txt}")
PY=${PYTHON:-python3}
SITE=${TL_SITE:-/tmp/torchlike-site}
: >"$REPORT"
failed=()

# step NAME CMD...: run CMD, its output into the report and the terminal.
step() {
  local name=$1 start=$SECONDS rc
  shift
  echo "==== $name" | tee -a "$REPORT"
  "$@" 2>&1 | tee -a "$REPORT"
  rc=${PIPESTATUS[0]}
  echo "---- $name: rc=$rc, $((SECONDS - start)) s" | tee -a "$REPORT"
  [ "$rc" -eq 0 ] || failed+=("$name")
  return "$rc"
}

environment() {
  nvidia-smi -L || true
  nvcc --version | tail -1
  "$PY" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)'
  git log -1 --oneline 2>/dev/null || true
}

wheels() {
  if ls .whl/*.whl >/dev/null 2>&1; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target "$SITE" .whl/*.whl
  fi
  "$PY" -c 'import scipy_openblas32, tvm_ffi' ||
    { echo "scipy-openblas32 or apache-tvm-ffi missing: run 'make wheelhouse' where pip works"; return 1; }
}

build() {
  local arch=${CUDA_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
                             head -1 | tr -d .)}
  cmake -S . -B build-gpu -G Ninja -DPython_EXECUTABLE="$("$PY" -c "import sys; print(sys.executable)")" -DTL_INPLACE=ON \
    ${arch:+-DCMAKE_CUDA_ARCHITECTURES=$arch} >/dev/null &&
    cmake --build build-gpu -j "$(nproc)" &&
    "$PY" -c 'import torchlike as t; print("cuda available:", t.cuda.is_available(), "devices:", t.cuda.device_count())'
}

suite() {
  local skip=()
  "$PY" -c 'import nbclient, ipykernel' 2>/dev/null || skip+=(--ignore=tests/test_notebook.py)
  "$PY" -m pytest tests -q -p no:cacheprovider "${skip[@]}" -rs
}

sanitized() {
  command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not installed: skipped"; return 0; }
  # The CUDA cases only (their cpu twins need no sanitizer); racecheck for the
  # reduction kernels' shared-memory trees.
  compute-sanitizer --tool memcheck --error-exitcode 1 "$PY" -m pytest tests/test_cuda*.py \
    -q -x -p no:cacheprovider -k "not cpu" &&
    compute-sanitizer --tool racecheck --error-exitcode 1 "$PY" -m pytest tests/test_cuda_nn_b.py \
      -q -x -p no:cacheprovider -k "(softmax or cross_entropy) and not cpu" &&
    compute-sanitizer --tool racecheck --error-exitcode 1 "$PY" -m pytest tests/test_cuda_kernels.py \
      -q -x -p no:cacheprovider -k "reductions and not cpu or var_std and not cpu" &&
    compute-sanitizer --tool racecheck --error-exitcode 1 "$PY" -m pytest tests/test_cuda_nn_a.py \
      -q -x -p no:cacheprovider -k "norm and not cpu" &&
    compute-sanitizer --tool racecheck --error-exitcode 1 "$PY" -m pytest tests/test_cuda_reduce.py \
      -q -x -p no:cacheprovider -k "not cpu" &&
    compute-sanitizer --tool racecheck --error-exitcode 1 "$PY" -m pytest tests/test_cuda_attention.py \
      -q -x -p no:cacheprovider -k "values_and_gradients and float32 and not cpu"
}

benchmarks() {
  "$PY" benchmarks/run.py cuda
}

export PYTHONPATH="$SITE:$PWD${PYTHONPATH:+:$PYTHONPATH}"
start=$SECONDS
step environment environment
step wheels wheels && step build build && {
  step suite suite
  step sanitizer sanitized
  step benchmarks benchmarks
}
{
  echo "==== summary: $((SECONDS - start)) s"
  if [ ${#failed[@]} -eq 0 ]; then echo "gpu-check passed"; else echo "gpu-check FAILED: ${failed[*]}"; fi
} | tee -a "$REPORT"
[ ${#failed[@]} -eq 0 ]
