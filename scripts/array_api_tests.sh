#!/usr/bin/env bash
# Run the Array API conformance suite (data-apis/array-api-tests) against
# torchlike.numpy, when the suite is checked out, and print the pass count.
#
#   scripts/array_api_tests.sh [pytest args...]     e.g. array_api_tests/test_sorting_functions.py
#
# ARRAY_API_TESTS_DIR  the suite's checkout, with its array-api submodule
#                      (default: ../array-api-tests beside this worktree)
# ARRAY_API_PYTHON     an interpreter with numpy, pytest, hypothesis and ndindex
#                      (default: ../aat-venv/bin/python, else .venv/bin/python)
# The suite is never committed here; without it the script says so and exits 0.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
suite="${ARRAY_API_TESTS_DIR:-$root/../array-api-tests}"
if [ ! -d "$suite/array_api_tests" ] || [ ! -d "$suite/array-api/src" ]; then
    echo "array-api-tests not found at $suite (set ARRAY_API_TESTS_DIR): skipped"
    exit 0
fi
py="${ARRAY_API_PYTHON:-}"
if [ -z "$py" ]; then
    if [ -x "$root/../aat-venv/bin/python" ]; then py="$root/../aat-venv/bin/python"
    else py="$root/.venv/bin/python"; fi
fi
if ! "$py" -c "import hypothesis, ndindex, pytest" 2>/dev/null; then
    echo "$py lacks hypothesis/ndindex/pytest (set ARRAY_API_PYTHON): skipped"
    exit 0
fi
[ $# -eq 0 ] && set -- array_api_tests/
log="$(mktemp)"
cd "$suite" || exit 1
ARRAY_API_TESTS_MODULE=torchlike.numpy PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" \
    "$py" -m pytest -q -p no:cacheprovider -rf "$@" 2>&1 | tee "$log" | grep -E "^(FAILED|ERROR)"
summary="$(grep -E "^[0-9]+ (passed|failed)|[0-9]+ passed|[0-9]+ failed" "$log" | tail -1)"
echo "$summary"
"$py" - "$summary" <<'PY'
import re, sys
counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", sys.argv[1])}
passed, failed = counts.get("passed", 0), counts.get("failed", 0) + counts.get("error", 0) \
    + counts.get("errors", 0)
total = passed + failed
if total:
    print(f"array-api-tests: {passed}/{total} passed ({100 * passed / total:.1f}%), "
          f"{counts.get('skipped', 0)} skipped")
PY
rm -f "$log"
