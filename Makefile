# Two commands set everything up on a fresh machine:
#   make demo   - create .venv, build the extension, run examples/demo.py and
#                 examples/train_digits.py (a CNN trained on sklearn's digits)
#   make test   - create .venv, build the extension, run the test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD ?= build
CMAKE_ARGS ?=
JOBS ?= $(shell nproc)

.PHONY: demo test test-asan build bench clean wheelhouse gpu-check

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q scikit-build-core "numpy>=2" scipy-openblas32 apache-tvm-ffi pytest hypothesis scipy
	# the demo and the notebook the tests execute
	$(PY) -m pip install -q scikit-learn tqdm matplotlib nbclient nbformat ipykernel safetensors
	touch $@

# Development build: _C lands in torchlike/ so the tree imports as it is.
build: $(VENV)/.installed
	cmake -S . -B $(BUILD) -G Ninja -DPython_EXECUTABLE=$(abspath $(PY)) -DTL_INPLACE=ON $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	PYTHONPATH=$(CURDIR) $(PY) examples/demo.py
	PYTHONPATH=$(CURDIR) $(PY) examples/train_digits.py

# pytest processes of 4 test files each, one per core (at most 8): scripts/run_test_files.py.
# The multiprocessing files count /dev/shm's entries, so they run alone at the end.
TEST_JOBS ?= $(shell n=$$(nproc); echo $$((n > 8 ? 8 : n)))
test: build
	$(PY) scripts/run_test_files.py --jobs $(TEST_JOBS) --timeout 1500 \
	  --split tests/test_device_suites.py \
	  --serial tests/test_multiprocessing.py tests/test_dataloader_workers.py --batch 4 -- tests/test_*.py

# AddressSanitizer + UBSan: the runtime must be preloaded into the interpreter.
test-asan: $(VENV)/.installed
	$(MAKE) build BUILD=build-asan CMAKE_ARGS="-DTL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
	$(PY) -m pytest tests -x -p no:cacheprovider --capture=sys  # fd 2 stays free for reports
	rm -f torchlike/_C*.so  # the sanitized module replaced ours: relink it
	$(MAKE) build

bench: build
	PYTHONPATH=$(CURDIR) BENCH_THREADS=1 $(PY) benchmarks/run.py
	PYTHONPATH=$(CURDIR) $(PY) benchmarks/run.py

# On a machine with a GPU (docs/gpu.md): build with CUDA, run the suite, a
# sanitized CUDA subset and the GPU benchmarks; one report file.
gpu-check:
	scripts/gpu_check.sh gpu-check-report.txt

# The wheels the lent GPU machines (Python 3.12, no network) lack, into .whl/
# (git-ignored; it travels with the tree).
WHEEL_PLATFORMS := $(foreach n,28 27 17,--platform manylinux_2_$(n)_x86_64) --platform manylinux2014_x86_64
wheelhouse: $(VENV)/.installed
	$(PY) -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
	  $(WHEEL_PLATFORMS) -d .whl scipy-openblas32==0.3.34.481.3 apache-tvm-ffi==0.1.15.post2

clean:
	rm -rf $(BUILD) build-asan build-gpu torchlike/_C*.so torchlike/_cpuid*.so
