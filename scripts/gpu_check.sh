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
#   TL_GPU_CHECK_LOGS=DIR                each test file's log (default: beside REPORT)
#
# The logs end up in one archive beside REPORT (REPORT less .txt, plus
# -logs.tar.gz), so a caller that takes back only a few files (the device
# tool: 8 at most) gets them all with the report.
set -u -o pipefail
cd "$(dirname "$0")/.."
REPORT=$(realpath -m "${1:-gpu-check-report.txt}")
PY=${PYTHON:-python3}
SITE=${TL_SITE:-/tmp/torchlike-site}
: >"$REPORT"
failed=()

# step NAME CMD...: run CMD, its output into the report and the terminal.
# Steps named in TL_GPU_CHECK_SKIP (say "suite,sanitizer", to rerun only the
# benchmarks) are reported as skipped.
step() {
  local name=$1 start=$SECONDS rc
  shift
  echo "==== $name" | tee -a "$REPORT"
  if [[ ",${TL_GPU_CHECK_SKIP:-}," == *",$name,"* ]]; then
    echo "---- $name: skipped (TL_GPU_CHECK_SKIP)" | tee -a "$REPORT"
    return 0
  fi
  "$@" 2>&1 | tee -a "$REPORT"
  rc=${PIPESTATUS[0]}
  echo "---- $name: rc=$rc, $((SECONDS - start)) s" | tee -a "$REPORT"
  [ "$rc" -eq 0 ] || failed+=("$name")
  return "$rc"
}

environment() {
  timeout 30 nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv || true
  nvcc --version | tail -1
  "$PY" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)'
  git log -1 --oneline 2>/dev/null || true
}

wheels() {
  if ls .whl/*.whl >/dev/null 2>&1; then
    timeout "$(cap 180)" "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
      --upgrade --target "$SITE" .whl/*.whl
  fi
  # (found, not imported: the build reads tvm_ffi's headers only)
  "$PY" -c 'import importlib.util as u, sys; sys.exit(not all(map(u.find_spec, ["scipy_openblas32", "tvm_ffi"])))' ||
    { echo "scipy-openblas32 or apache-tvm-ffi missing: run 'make wheelhouse' where pip works"; return 1; }
}

build() {
  local arch=${CUDA_ARCH:-$(timeout 30 nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
                             head -1 | tr -d '. ')}
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  echo "CUDA architecture: ${arch:-"(none found: CMake's default)"}"
  # (the configure output stays in the report: the CUDA version found, and
  # whether cuDNN was)
  timeout "$(cap 120)" cmake -S . -B build-gpu "${generator[@]}" \
    -DPython_EXECUTABLE="$("$PY" -c "import sys; print(sys.executable)")" -DTL_INPLACE=ON \
    ${arch:+-DCMAKE_CUDA_ARCHITECTURES=$arch} &&
    timeout "$(cap "$(left 60)")" cmake --build build-gpu -j "$(nproc)" &&
    timeout 60 "$PY" -c 'import torchlike as t; print("cuda available:", t.cuda.is_available(), "devices:", t.cuda.device_count())'
}

# The budget: everything must end within TL_GPU_CHECK_SECONDS (default 570,
# under the 10 minutes the check is given); each step after the build gets
# what is left, less what the later steps are promised.
BUDGET=${TL_GPU_CHECK_SECONDS:-570}
left() { echo $((BUDGET - (SECONDS - start) - ${1:-0})); }
# cap N: N seconds, or what is left if less, never under 1 (`timeout 0`
# would mean no limit at all, and a negative one is an error)
cap() {
  local n=$1 l
  l=$(left)
  [ "$l" -lt "$n" ] && n=$l
  [ "$n" -ge 1 ] || n=1
  echo "$n"
}

# A few ops on the device, each printed: the first thing to read when the
# suite fails everywhere.
smoke() {
  timeout "$(cap 120)" "$PY" - <<'PY'
import torchlike as t
x = t.arange(12.0, device="cuda").reshape(3, 4)
print("device:", t.cuda.get_device_name(0), x.device)
print("sum:", float(x.sum()), "(66.0)")
print("matmul:", (x @ x.T).cpu().tolist()[0], "([14.0, 38.0, 62.0])")
print("sort:", t.sort(-x[0]).values.cpu().tolist(), "([-3.0, -2.0, -1.0, 0.0])")
t.cuda.synchronize()
PY
}

# The whole suite, a pytest process per file, the CUDA cases included
# (scripts/run_test_files.py says why a process per file), the CUDA files
# first: the suite may not end within the budget, and they are what only
# this machine can run.  Then the device suites on CUDA (whole test files
# again, a process per suite; their emulated runs are the CPU machines'
# business), then the rest; the multiprocessing files count /dev/shm's
# entries, so they run alone at the end.
# TL_GPU_CHECK_TESTS="FILE ..." runs those files (or test ids) alone: a
# rerun of the ones that failed.
suite() {
  local files=() f notebook=1 suites=()
  if [ -n "${TL_GPU_CHECK_TESTS:-}" ]; then
    read -r -a files <<<"$TL_GPU_CHECK_TESTS"
  else
    "$PY" -c 'import nbclient, ipykernel' 2>/dev/null || notebook=
    mapfile -t suites < <(timeout "$(cap 60)" "$PY" -m pytest --collect-only -q -o addopts= \
                            -p no:cacheprovider tests/test_device_suites.py -k cuda 2>/dev/null | grep '::')
    files+=(tests/test_cuda*.py "${suites[@]}")
    for f in tests/test_*.py; do
      case $f in tests/test_cuda*.py | tests/test_device_suites.py) continue ;; esac
      [ "$f" != tests/test_notebook.py ] || [ -n "$notebook" ] && files+=("$f")
    done
  fi
  timeout --kill-after=10 "$(cap "$(left 190)")" \
    "$PY" scripts/run_test_files.py --jobs "${TL_GPU_CHECK_JOBS:-8}" --timeout 400 \
    --deadline "$(left 200)" --logs "$LOGS/suite" --forbid-skip "requires a CUDA device" \
    --serial tests/test_multiprocessing.py tests/test_dataloader_workers.py -- "${files[@]}"
}

# The ratio rows, then the issue's floors judged one by one (absolute ones
# too: fractions of the measured copy bandwidth, microseconds).
benchmarks() {
  BENCH_QUICK=1 timeout --signal=INT --kill-after=10 "$(cap "$(left 110)")" "$PY" benchmarks/run.py cuda
  local rows=$?
  timeout --signal=INT --kill-after=10 "$(cap "$(left 60)")" "$PY" benchmarks/cuda_targets.py &&
    [ "$rows" -eq 0 ]
}

# compute-sanitizer: first a probe (a few kernels under memcheck); where the
# machine's runtime cannot host the sanitizer (a sandboxed kernel) the probe
# fails while the same code runs plainly: reported as unavailable, not as a
# failure of ours.  Then the CUDA cases of the test_cuda files under
# memcheck, and the shared-memory trees (reductions, norms, softmax,
# attention) under racecheck, in what time is left.
sanitized() {
  command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not installed: skipped"; return 0; }
  local probe='import torchlike as t; x = t.arange(4096.0, device="cuda"); print(float((x * 2).sum()))'
  if ! timeout "$(cap 120)" compute-sanitizer --tool memcheck --error-exitcode 1 "$PY" -c "$probe"; then
    if timeout "$(cap 60)" "$PY" -c "$probe" >/dev/null 2>&1; then
      echo "compute-sanitizer cannot run on this machine (the probe runs without it): unavailable"
      return 0
    fi
    return 1
  fi
  local run=("$PY" scripts/run_test_files.py --jobs 4 --timeout 300)
  "${run[@]}" --deadline "$(left 75)" --logs "$LOGS/memcheck" --pytest-args='-x -k "not cpu and not emulated"' \
    --wrap "compute-sanitizer --tool memcheck --error-exitcode 1" -- tests/test_cuda*.py &&
    "${run[@]}" --deadline "$(left 5)" --logs "$LOGS/racecheck" \
      --pytest-args='-x -k "not cpu and not emulated and (reduc or var_std or norm or softmax or cross_entropy or values_and_gradients)"' \
      --wrap "compute-sanitizer --tool racecheck --error-exitcode 1" -- \
      tests/test_cuda_reduce.py tests/test_cuda_kernels.py tests/test_cuda_nn_a.py \
      tests/test_cuda_nn_b.py tests/test_cuda_attention.py
}

export PYTHONPATH="$SITE:$PWD${PYTHONPATH:+:$PYTHONPATH}"
# cmake and ninja may be the interpreter's packages, not on PATH
PATH="$(dirname "$("$PY" -c 'import sys; print(sys.executable)')"):$PATH"
LOGS=$(realpath -m "${TL_GPU_CHECK_LOGS:-$(dirname "$REPORT")/gpu-check-logs}")
ARCHIVE=${REPORT%.txt}-logs.tar.gz
start=$SECONDS
step environment environment
step wheels wheels && step build build && {
  step smoke smoke
  step suite suite
  step benchmarks benchmarks
  step sanitizer sanitized
}
# (sanitized runs in step's pipeline, a subshell: its verdict is read back
# from the report)
sanitizer_note=
grep -q '^compute-sanitizer cannot run on this machine' "$REPORT" &&
  sanitizer_note="compute-sanitizer unavailable on this machine"
{
  echo "==== summary: $((SECONDS - start)) s"
  if [ ${#failed[@]} -eq 0 ]; then echo "gpu-check passed${sanitizer_note:+ ($sanitizer_note)}"
  else echo "gpu-check FAILED: ${failed[*]}"; fi
} | tee -a "$REPORT"
if [ -d "$LOGS" ]; then
  tar -czf "$ARCHIVE" -C "$(dirname "$LOGS")" "$(basename "$LOGS")" &&
    echo "logs: $ARCHIVE" | tee -a "$REPORT"
fi
[ ${#failed[@]} -eq 0 ]
