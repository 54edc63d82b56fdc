"""torchlike.accelerator, torchlike.Stream/Event, get_device_module, and the
torchlike.cuda queries added beside them, as PyTorch answers them: here on a
machine without a GPU (the cases that need one run where there is one), in
builds with and without CUDA."""

import numpy as np
import pytest

import torchlike
from torchlike import _C

COMPILED = _C._cuda_compiled()
GPU = torchlike.cuda.is_available()
needs_no_gpu = pytest.mark.skipif(GPU, reason="checks the answers without a GPU")
needs_gpu = pytest.mark.skipif(not GPU, reason="requires a CUDA device")


def test_the_accelerator_is_cuda_in_a_cuda_build():
    acc = torchlike.accelerator.current_accelerator()
    assert acc == (torchlike.device("cuda") if COMPILED else None)
    available = torchlike.accelerator.current_accelerator(check_available=True)
    assert available == (torchlike.device("cuda") if GPU else None)
    assert torchlike.accelerator.is_available() == GPU
    assert torchlike.accelerator.device_count() == torchlike.cuda.device_count()


@needs_no_gpu
def test_without_a_gpu_device_functions_raise_and_statistics_are_empty():
    acc = torchlike.accelerator
    for call in (acc.current_device_index, acc.synchronize, acc.current_stream,
                 lambda: acc.set_device_index(0), acc.get_memory_info):
        with pytest.raises(RuntimeError):
            call()
    assert acc.memory_allocated() == acc.max_memory_allocated() == 0
    assert acc.memory_reserved() == acc.max_memory_reserved() == 0
    assert dict(acc.memory_stats()) == {}
    acc.empty_cache()
    acc.empty_host_cache()
    acc.reset_peak_memory_stats()
    with acc.device_index(None):  # None: no change, nothing needed
        pass


@needs_gpu
def test_with_a_gpu_the_accelerator_is_torchlike_cuda():
    acc = torchlike.accelerator
    assert acc.current_device_index() == torchlike.cuda.current_device()
    s = acc.current_stream()
    assert isinstance(s, torchlike.Stream) and s == torchlike.cuda.current_stream()
    x = torchlike.ones(1024, 1024, device="cuda")
    assert acc.memory_allocated() >= x.nbytes
    free, total = acc.get_memory_info()
    assert 0 < free <= total
    assert (free, total)[1] == torchlike.cuda.mem_get_info()[1]
    with acc.device_index(0):
        assert acc.current_device_index() == 0
    e = torchlike.Event("cuda", enable_timing=True)
    assert isinstance(e, torchlike.Event) and isinstance(e, torchlike.cuda.Event)
    e.record()
    e.synchronize()
    assert torchlike.cuda.get_per_process_memory_fraction() == 1.0


def test_accelerator_refuses_another_device_type():
    if not COMPILED:
        pytest.skip("a build without CUDA has no accelerator to compare with")
    with pytest.raises(ValueError, match="cpu doesn't match the current accelerator cuda"):
        torchlike.accelerator.synchronize("cpu")


def test_cpu_stream_is_always_idle_and_has_no_events():
    s = torchlike.Stream("cpu")
    assert isinstance(s, torchlike.Stream)
    assert (s.device, s.device_type, s.device_index, s.stream_id) == \
        (torchlike.device("cpu"), "cpu", -1, 0)
    assert s.query() is True
    s.synchronize()
    s.wait_stream(s)
    assert s == torchlike.Stream("cpu") and hash(s) == hash(torchlike.Stream("cpu"))
    with s:
        pass
    with pytest.raises(RuntimeError, match="^cpu backend doesn't support events.$"):
        s.record_event()
    with pytest.raises(RuntimeError, match="^cpu backend doesn't support events.$"):
        torchlike.Event("cpu")
    assert "device_type=cpu, device_index=-1, stream_id=0" in repr(s)


@needs_no_gpu
def test_a_cuda_stream_without_a_gpu_raises_as_torchlike_cuda_does():
    with pytest.raises((RuntimeError, AssertionError)):
        torchlike.Stream("cuda")


def test_get_device_module():
    assert torchlike.get_device_module("cpu") is torchlike.cpu
    assert torchlike.get_device_module("cuda:1") is torchlike.cuda
    assert torchlike.get_device_module(torchlike.device("cuda", 0)) is torchlike.cuda
    assert torchlike.get_device_module() is (torchlike.cuda if COMPILED else torchlike.cpu)
    with pytest.raises(RuntimeError, match="^Device 'meta' does not have a corresponding module "
                                           "registered as 'torchlike.meta'.$"):
        torchlike.get_device_module("meta")


@pytest.mark.parametrize("text, arches", [
    ("", []),
    ("90", ["sm_90", "compute_90"]),
    ("80-real 90", ["sm_80", "sm_90", "compute_90"]),
    ("90-virtual", ["compute_90"]),
])
def test_arch_list_follows_the_built_architectures(text, arches, monkeypatch):
    monkeypatch.setattr(_C, "_cuda_arch_text", lambda: text)
    assert torchlike.cuda.get_arch_list() == arches
    flags = torchlike.cuda.get_gencode_flags().split(" -gencode ")
    assert len([f for f in flags if f]) == len(arches)


def test_arch_list_of_this_build():
    arches = torchlike.cuda.get_arch_list()
    assert (arches != []) == COMPILED
    assert all(a.split("_")[0] in ("sm", "compute") and a.split("_")[1].isdigit() for a in arches)


@needs_no_gpu
def test_cuda_queries_without_a_gpu():
    cuda = torchlike.cuda
    assert cuda.is_bf16_supported() is False and cuda.is_bf16_supported(False) is False
    assert cuda.is_tf32_supported() is False
    assert cuda.get_allocator_backend() == "native"
    with pytest.raises(RuntimeError, match="NVIDIA driver"):
        cuda.mem_get_info()
    with pytest.raises(RuntimeError, match="NVIDIA driver"):
        cuda.get_per_process_memory_fraction()


def test_cached_names_are_deprecated_aliases_of_reserved():
    cuda = torchlike.cuda
    for old, new in (("memory_cached", cuda.memory_reserved),
                     ("max_memory_cached", cuda.max_memory_reserved)):
        with pytest.warns(FutureWarning, match=f"{old} has been renamed to "
                                               f"torchlike.cuda.{new.__name__}"):
            assert getattr(cuda, old)() == new()
    with pytest.warns(FutureWarning, match="renamed to torchlike.cuda.reset_peak_memory_stats"):
        if GPU:
            cuda.reset_max_memory_cached()
        else:  # as reset_peak_memory_stats does without a GPU, in PyTorch too
            with pytest.raises(RuntimeError):
                cuda.reset_max_memory_cached()


# ---- cond and while_loop -----------------------------------------------------------------

@pytest.mark.parametrize("pred, expect", [
    (True, "true"), (False, "false"), (1, "true"), (0.0, "false"),
    (torchlike.tensor(True), "true"), (torchlike.tensor([0.5]), "true"),
    (torchlike.tensor([[0]]), "false")])
def test_cond_takes_the_branch_of_pred(pred, expect):
    x = torchlike.arange(3.0)
    out = torchlike.cond(pred, lambda a, b: a + b, lambda a, b: a - b, (x, 2 * x))
    ref = np.arange(3.0) * (3 if expect == "true" else -1)
    np.testing.assert_array_equal(np.asarray(out.cpu()), ref)


def test_cond_operands_are_pytrees_and_gradients_flow():
    w = torchlike.tensor([1.0, -2.0], dtype=torchlike.float64, requires_grad=True)
    out = torchlike.cond(w.sum() < 0, lambda d: (d["w"] ** 2).sum(), lambda d: d["w"].sum(),
                         ({"w": w},))
    out.backward()
    np.testing.assert_array_equal(np.asarray(w.grad), [2.0, -4.0])
    assert torchlike.cond(True, lambda: 7, lambda: 8) == 7  # no operands


def test_cond_refuses_a_predicate_of_several_elements():
    x = torchlike.ones(2)
    with pytest.raises(RuntimeError, match="^Expected pred to be bool or single-element tensor, "
                                           "but got tensor"):
        torchlike.cond(x, lambda a: a, lambda a: a, (x,))
    with pytest.raises(RuntimeError, match="Expected pred to be bool"):
        torchlike.cond("yes", lambda: 1, lambda: 2)


def test_while_loop_carries_values_until_cond_fails():
    i, acc = torchlike.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * 2),
                                  (torchlike.tensor(0), torchlike.ones(3)))
    assert i.item() == 5
    np.testing.assert_array_equal(np.asarray(acc.cpu()), [32.0] * 3)
    # a body returning one tensor gives one tensor back, as in PyTorch
    assert torchlike.while_loop(lambda i: i < 3, lambda i: i + 1,
                                (torchlike.tensor(0),)).item() == 3
    # a loop that never runs returns its inputs
    out = torchlike.while_loop(lambda i: i < 0, lambda i: (i + 1,), [torchlike.tensor(4)])
    assert isinstance(out, tuple) and out[0].item() == 4


def test_while_loop_errors():
    with pytest.raises(RuntimeError, match="carried_inputs must be a tuple or list"):
        torchlike.while_loop(lambda i: i < 3, lambda i: i + 1, torchlike.tensor(0))
    with pytest.raises(RuntimeError, match="should return as many values as carried_inputs"):
        torchlike.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,),
                             (torchlike.tensor(0), torchlike.tensor(1)))
