"""scripts/run_test_files.py, the GPU check's per-file runner: each file's
verdict (a crash, a failure, a forbidden skip, a timeout, the deadline) on
small generated test files."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "scripts", "run_test_files.py")

FILES = {
    "test_good.py": "def test_a():\n    assert 1 + 1 == 2\n",
    "test_bad.py": "def test_a():\n    assert 1 + 1 == 3\n\ndef test_b():\n    pass\n",
    "test_abort.py": "import os\n\ndef test_a():\n    os.abort()\n",
    "test_gpu_skip.py": "import pytest\n\n@pytest.mark.skip(reason='requires a CUDA device')\n"
                        "def test_a():\n    pass\n\ndef test_b():\n    pass\n",
    "test_slow.py": "import time\n\ndef test_a():\n    time.sleep(60)\n",
}


def run(tmp_path, *args):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    p = subprocess.run([sys.executable, RUNNER, *args], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    lines = re.findall(r"^(ok|failed|crashed|error|timed out|not run) +(\S+): ", p.stdout, re.M)
    return p, {name: state for state, name in lines}


def test_each_file_gets_its_own_verdict(tmp_path):
    p, v = run(tmp_path, "--jobs", "4", "--timeout", "60", "--logs", str(tmp_path / "logs"),
               "--forbid-skip", "requires a CUDA device", "--",
               "test_good.py", "test_bad.py", "test_abort.py", "test_gpu_skip.py")
    assert v == {"test_good.py": "ok", "test_bad.py": "failed", "test_abort.py": "crashed",
                 "test_gpu_skip.py": "failed"}, p.stdout
    assert p.returncode == 1
    assert "FAILED test_bad.py::test_a" in p.stdout
    assert "skipped with 'requires a CUDA device'" in p.stdout
    assert "1 of 4 files ok (1 failed, 3 passed, 1 skipped)" in p.stdout  # counts summed
    # every file's whole output is kept
    assert sorted(os.listdir(tmp_path / "logs")) == [
        "test_abort.log", "test_bad.log", "test_good.log", "test_gpu_skip.log"]


def test_split_files_and_allowed_skips(tmp_path):
    """--split runs each test of a file alone; skips pass unless forbidden."""
    p, v = run(tmp_path, "--jobs", "3", "--logs", str(tmp_path / "logs"), "--split", "test_bad.py",
               "--", "test_bad.py", "test_gpu_skip.py")
    assert v == {"test_bad.py::test_a": "failed", "test_bad.py::test_b": "ok",
                 "test_gpu_skip.py": "ok"}, p.stdout
    assert sorted(os.listdir(tmp_path / "logs")) == [
        "test_bad_test_a.log", "test_bad_test_b.log", "test_gpu_skip.log"]


@pytest.mark.parametrize("flag, seconds", [("--timeout", "12"), ("--deadline", "4")])
def test_a_hang_costs_its_file_only(tmp_path, flag, seconds):
    # --timeout 12 s: time enough for the good file's pytest to start on a busy
    # machine; under --deadline the good file never starts, so any limit will do
    p, v = run(tmp_path, "--jobs", "1", flag, seconds, "--serial", "test_good.py", "--",
               "test_slow.py", "test_good.py")
    # serial files run after the others: with --deadline nothing is left for them
    expected = {"test_slow.py": "timed out"}
    expected["test_good.py"] = "ok" if flag == "--timeout" else "not run"
    assert v == expected, p.stdout
    assert p.returncode == 1


def test_batches_share_a_process_and_count_their_files(tmp_path):
    """--batch 2: two files to a pytest process; a failure fails its batch,
    the files are counted one by one, and serial files stay alone."""
    p, _ = run(tmp_path, "--jobs", "2", "--batch", "2", "--serial", "test_gpu_skip.py", "--",
               "test_good.py", "test_bad.py", "test_gpu_skip.py")
    verdicts = re.findall(r"^(ok|failed) +(.+?): ", p.stdout, re.M)
    batch = sorted(v for v in verdicts if " " in v[1])
    assert len(batch) == 1 and batch[0][0] == "failed", p.stdout
    assert sorted(batch[0][1].split()) == ["test_bad.py", "test_good.py"]
    assert ("ok", "test_gpu_skip.py") in verdicts
    assert "FAILED test_bad.py::test_a" in p.stdout
    assert "1 of 3 files ok (1 failed, 3 passed, 1 skipped)" in p.stdout
    assert p.returncode == 1
