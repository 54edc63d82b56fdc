"""scripts/gpu_check.sh's bookkeeping, checked without a GPU.

The script runs once per lent GPU session, with minutes to spare, so what
matters most is that it always leaves a report: steps skipped, failed or cut
off by the budget are named in the summary, and the per-file logs come back
as one archive beside the report (the device tool returns at most 8 files).
The GPU steps themselves are skipped here (TL_GPU_CHECK_SKIP); the suite step
runs a small test file of our own (TL_GPU_CHECK_TESTS)."""
import os
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "gpu_check.sh")
GPU_STEPS = "environment,wheels,build,smoke,benchmarks,sanitizer"


def run_check(tmp_path, **env):
    report = tmp_path / "out" / "report.txt"
    report.parent.mkdir()
    full = dict(os.environ, PYTHON=sys.executable, TL_SITE=str(tmp_path / "site"),
                TL_GPU_CHECK_LOGS=str(tmp_path / "logs"))
    full.update(env)
    p = subprocess.run(["bash", SCRIPT, str(report)], env=full, capture_output=True,
                       text=True, timeout=300)
    return p, report.read_text(), report.parent


def test_all_steps_skipped_still_ends_with_a_summary(tmp_path):
    p, text, out = run_check(tmp_path, TL_GPU_CHECK_SKIP=GPU_STEPS + ",suite")
    assert p.returncode == 0, p.stderr
    for step in GPU_STEPS.split(",") + ["suite"]:
        assert f"---- {step}: skipped" in text
    assert text.rstrip().splitlines()[-1] == "gpu-check passed"
    assert os.listdir(out) == ["report.txt"]  # no logs, no archive


def test_a_failing_step_is_named_and_stops_the_steps_that_need_it(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    p, text, _ = run_check(tmp_path, PYTHON=str(fake), TL_GPU_CHECK_SKIP="environment")
    assert p.returncode == 1
    assert "---- wheels: rc=1" in text
    assert "==== build" not in text and "==== suite" not in text
    assert "gpu-check FAILED: wheels" in text


def write_tests(tmp_path):
    f = tmp_path / "test_sample.py"
    f.write_text("def test_ok():\n    assert 1 + 1 == 2\n\n"
                 "def test_bad():\n    assert 1 + 1 == 3, 'planted failure'\n")
    return f


def test_suite_logs_come_back_as_one_archive_beside_the_report(tmp_path):
    f = write_tests(tmp_path)
    p, text, out = run_check(tmp_path, TL_GPU_CHECK_SKIP=GPU_STEPS, TL_GPU_CHECK_TESTS=str(f))
    assert p.returncode == 1
    assert "1 failed, 1 passed" in text
    assert "gpu-check FAILED: suite" in text
    assert sorted(os.listdir(out)) == ["report-logs.tar.gz", "report.txt"]
    with tarfile.open(out / "report-logs.tar.gz") as tar:
        log = tar.extractfile("logs/suite/test_sample.log").read().decode()
    assert "planted failure" in log and "FAILED" in log


def test_a_spent_budget_reports_files_not_run_and_still_ends(tmp_path):
    # with nothing left, each limit is one second (never `timeout 0`, which
    # would mean none): the files are reported as not run, not as passed
    f = write_tests(tmp_path)
    p, text, _ = run_check(tmp_path, TL_GPU_CHECK_SKIP=GPU_STEPS, TL_GPU_CHECK_TESTS=str(f),
                           TL_GPU_CHECK_SECONDS="0")
    assert p.returncode == 1
    assert "test_sample.py: not run" in text and "0 of 1 files ok" in text
    assert "gpu-check FAILED: suite" in text
