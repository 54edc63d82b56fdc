"""torchlike.cuda answers on every machine; GPU-only checks skip without one."""
import pytest

import torchlike as tl

needs_gpu = pytest.mark.skipif(not tl.cuda.is_available(), reason="no CUDA device")


def test_is_available_agrees_with_device_count():
    n = tl.cuda.device_count()
    assert isinstance(n, int) and n >= 0
    assert tl.cuda.is_available() == (n > 0)


@pytest.mark.skipif(tl.cuda.is_available(), reason="a CUDA device is present")
def test_no_gpu_means_zero_devices_and_clear_errors():
    assert tl.cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="cuda"):
        tl.ones(3, device="cuda")


@needs_gpu
def test_gpu_devices_are_counted():
    assert tl.cuda.device_count() >= 1
