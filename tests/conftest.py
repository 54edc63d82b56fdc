import os
import sys

# The tests import torchlike from the source tree (make build puts _C there).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hypothesis import settings  # noqa: E402

# Derandomized: the same examples every run, so CI results are reproducible.
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          database=None)
settings.load_profile("ci")

# TORCHLIKE_TEST_DEVICE=emulated or cuda runs the tests with that device as
# the default device, so tensors the tests make (torchlike.tensor, zeros,
# randn) live there; tests/test_device_suites.py runs groups of test files
# this way.  "emulated" is the fake test device given the CPU's kernels as
# device kernels (_C._fake_emulate_device): every op runs its device paths,
# and with TORCHLIKE_FAKE_GUARD=1 a host read of its memory outside a kernel
# faults as on a GPU.  Tests marked host_only check host semantics (ndarrays
# and lists mixed with tensors, errors raised before any write) and are
# skipped.
TEST_DEVICE = os.environ.get("TORCHLIKE_TEST_DEVICE")


def pytest_configure(config):
    config.addinivalue_line("markers", "host_only: checks host semantics; skipped when "
                            "TORCHLIKE_TEST_DEVICE moves the tests to a device")
    if TEST_DEVICE:
        import torchlike
        device = TEST_DEVICE
        if TEST_DEVICE == "emulated":
            torchlike._C._fake_enable()
            torchlike._C._fake_emulate_device()
            device = "fake"
        torchlike.set_default_device(device)


def pytest_collection_modifyitems(config, items):
    if not TEST_DEVICE:
        return
    import pytest
    skip = pytest.mark.skip(reason=f"host semantics; the tests run on {TEST_DEVICE}")
    for item in items:
        if item.get_closest_marker("host_only"):
            item.add_marker(skip)
