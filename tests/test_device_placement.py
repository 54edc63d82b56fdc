"""Tensors that library code makes for itself land on the right device: beside
the inputs when they take part in the computation, on the host when they are
host buffers (file reads, shared counters), whatever the default device.

A tensor made without `device=` follows the default device.  Two kinds of
bug hide there, and the device suites (default device = the test device)
see only one of them: an internal tensor that should follow the input but
lands on the CPU fails only when the input is on a device and the default
device is the CPU (the first group below); a host buffer that lands on the
default device fails only when that default is a device (the second).

Device-parametrised as tests/test_cuda_kernels.py: "cpu" everywhere,
"cuda" where a GPU is present, "emulated" (the fake device given the CPU's
kernels, its memory unreadable by host code outside them) in a process of
its own."""
import io

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn as nn
from torchlike.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from oracle import cuda_test_devices, device_array, host_array, run_emulated

DEVICES, EMULATED = cuda_test_devices()
on, host = device_array, host_array


def same_device(t, device):
    return t.device.type == ("fake" if device == "fake" else device)


# ---- internal tensors follow the input ----------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("spec, shape", [("ij->i", (2, 3)), ("ijk->j", (2, 3, 4)),
                                         ("ij->", (3, 5)), ("iij->j", (3, 3, 2))])
def test_einsum_summing_an_index_out(device, spec, shape):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 4.0
    got = tl.einsum(spec, on(device, a))
    assert same_device(got, device)
    np.testing.assert_allclose(host(got), np.einsum(spec, a), rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (3, 2, 2)])
def test_orthogonal_init_draws_on_the_tensors_device(device, shape):
    w = on(device, np.zeros(shape, dtype=np.float32))
    tl.manual_seed(0)
    nn.init.orthogonal_(w, gain=2.0)
    flat = host(w).reshape(shape[0], -1).astype(np.float64)
    gram = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(gram, 4.0 * np.eye(gram.shape[0]), atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(3, 4), (4, 2)])
def test_eye_init_fills_on_the_tensors_device(device, shape):
    """eye_ writes the identity where the tensor is: on the fake device no
    copy from the host (an identity made on the CPU and moved in)."""
    w = on(device, np.full(shape, 7.0, dtype=np.float32))
    before = tl._C._fake_counters()["copies_in"]
    nn.init.eye_(w)
    assert tl._C._fake_counters()["copies_in"] == before
    np.testing.assert_array_equal(host(w), np.eye(*shape, dtype=np.float32))


@pytest.mark.parametrize("device", DEVICES)
def test_unsorted_packing_keeps_indices_on_the_inputs_device(device):
    """As in PyTorch: sorted/unsorted indices beside the data, batch sizes and
    the lengths pad_packed_sequence returns on the CPU."""
    a = np.arange(24.0).reshape(4, 3, 2)        # T, B, *
    lengths = [2, 4, 3]
    packed = pack_padded_sequence(on(device, a), lengths, enforce_sorted=False)
    assert same_device(packed.data, device)
    assert same_device(packed.sorted_indices, device)
    assert same_device(packed.unsorted_indices, device)
    assert packed.batch_sizes.device.type == "cpu"
    np.testing.assert_array_equal(host(packed.sorted_indices), [1, 2, 0])
    padded, got_lengths = pad_packed_sequence(packed)
    assert got_lengths.device.type == "cpu"
    np.testing.assert_array_equal(np.asarray(got_lengths), lengths)
    want = a.copy()
    for b, n in enumerate(lengths):
        want[n:, b] = 0.0
    np.testing.assert_array_equal(host(padded), want)


@pytest.mark.parametrize("device", DEVICES)
def test_averaged_models_counter_is_on_its_device(device):
    model = nn.Linear(3, 2).to(device)
    swa = tl.optim.swa_utils.AveragedModel(model, device=device)
    assert same_device(swa.n_averaged, device)
    swa.update_parameters(model)
    swa.update_parameters(model)
    assert int(swa.n_averaged) == 2


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("cov", ["matrix", "diagonal", "scalar"])
def test_multivariate_normal_takes_arrays_to_the_points_device(device, cov):
    """mean and cov given as arrays join x's device, as every scipy.stats
    argument joins the first tensor's."""
    import scipy.stats as ss
    from torchlike.scipy import stats
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    c = {"matrix": a @ a.T + 3 * np.eye(3), "diagonal": np.array([1.0, 2.0, 0.5]),
         "scalar": 2.0}[cov]
    mean, x = rng.standard_normal(3), rng.standard_normal((2, 4, 3))
    got = stats.multivariate_normal.logpdf(on(device, x), mean, c)
    assert same_device(got, device)
    np.testing.assert_allclose(host(got), ss.multivariate_normal.logpdf(x, mean, c),
                               rtol=1e-12)


# ---- host buffers stay on the host ----------------------------------------------------------

@pytest.fixture
def default_device(device):
    """The test's device as the default device, for the test's duration."""
    tl.set_default_device(device)
    try:
        yield device
    finally:
        tl.set_default_device("cpu")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mmap", [False, True])
def test_load_reads_into_host_buffers_whatever_the_default_device(device, default_device,
                                                                 tmp_path, mmap):
    values = {"w": np.arange(12.0).reshape(3, 4), "empty": np.zeros((0, 2)),
              "i": np.array([3, -1], dtype=np.int64)}
    path = tmp_path / "c.pt"
    tl.save({k: on(device, v) for k, v in values.items()}, path)
    got = tl.load(path, map_location="cpu", mmap=mmap)
    for k, v in values.items():
        assert got[k].device.type == "cpu"
        np.testing.assert_array_equal(np.asarray(got[k]), v)
    # an in-memory (unmapped, buffered) checkpoint takes the same path
    buf = io.BytesIO()
    tl.save(on(device, values["w"]), buf)
    buf.seek(0)
    np.testing.assert_array_equal(np.asarray(tl.load(buf, map_location="cpu")), values["w"])


@pytest.mark.parametrize("device", DEVICES)
def test_a_checkpoint_loads_back_onto_its_device(device, tmp_path):
    a = np.arange(6.0).reshape(2, 3)
    tl.save({"w": on(device, a)}, tmp_path / "c.pt")
    got = tl.load(tmp_path / "c.pt")["w"]
    assert same_device(got, device)
    np.testing.assert_array_equal(host(got), a)


@pytest.mark.parametrize("device", DEVICES)
def test_frombuffer_views_host_memory_whatever_the_default_device(device, default_device):
    """PyTorch's frombuffer has no device=, and its tensor is the buffer's."""
    buf = bytearray(np.arange(4, dtype=np.float32).tobytes())
    t = tl.frombuffer(buf, dtype=tl.float32)
    assert t.device.type == "cpu"
    buf[:4] = np.float32(7).tobytes()
    np.testing.assert_array_equal(np.asarray(t), [7, 1, 2, 3])
    with pytest.raises(TypeError, match="unexpected keyword argument 'device'"):
        tl.frombuffer(buf, dtype=tl.float32, device="cpu")


@pytest.mark.parametrize("device", DEVICES)
def test_as_tensor_of_a_host_tensor_goes_to_the_default_device(device, default_device):
    """PyTorch's set_default_device passes device= to as_tensor and asarray:
    a CPU tensor moves there (and copy=False cannot alias across devices)."""
    t = tl.tensor([1.0, 2.0], device="cpu")
    for f in (tl.as_tensor, tl.asarray):
        got = f(t)
        assert same_device(got, device) and (got is t) == (device == "cpu")
        np.testing.assert_array_equal(host(got), [1.0, 2.0])
        assert f(t, device="cpu") is t
    if device != "cpu":
        with pytest.raises(ValueError, match="can't alias tensor from device 'cpu'"):
            tl.asarray(t, copy=False)


@pytest.mark.parametrize("device", DEVICES)
def test_pickled_storages_rebuild_on_the_host(device, default_device):
    import pickle
    t = tl.tensor(np.arange(6.0), device="cpu")
    back = pickle.loads(pickle.dumps(t))
    assert back.device.type == "cpu"
    np.testing.assert_array_equal(np.asarray(back), np.arange(6.0))
    empty = pickle.loads(pickle.dumps(tl.empty(0, device="cpu")))
    assert empty.device.type == "cpu" and empty.numel() == 0


@pytest.mark.parametrize("device", DEVICES)
def test_safetensors_load_keeps_every_entry_on_the_host(device, default_device, tmp_path):
    from test_serialization_safetensors import build_file
    from torchlike.utils import safetensors as st
    path = tmp_path / "m.safetensors"
    path.write_bytes(build_file({"a": tl.arange(4.0, device="cpu"),
                                 "nothing": tl.empty(0, 3, device="cpu")}))
    got = st.load_file(path)
    assert {k: v.device.type for k, v in got.items()} == {"a": "cpu", "nothing": "cpu"}
    assert tuple(got["nothing"].shape) == (0, 3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_batch_sizes_and_lengths_stay_on_the_host_whatever_the_default_device(
        device, default_device, enforce_sorted):
    """As in PyTorch: batch_sizes and the lengths pad_packed_sequence returns
    are host buffers, the data and its permutations on the data's device."""
    a = np.arange(24.0).reshape(4, 3, 2)        # T, B, *
    lengths = [4, 3, 2] if enforce_sorted else [2, 4, 3]
    packed = pack_padded_sequence(tl.tensor(a), lengths, enforce_sorted=enforce_sorted)
    assert same_device(packed.data, device)
    assert packed.batch_sizes.device.type == "cpu"
    np.testing.assert_array_equal(np.asarray(packed.batch_sizes), [3, 3, 2, 1])
    padded, got_lengths = pad_packed_sequence(packed)
    assert got_lengths.device.type == "cpu"
    np.testing.assert_array_equal(np.asarray(got_lengths), lengths)
    assert same_device(padded, device)


@pytest.mark.parametrize("device", DEVICES)
def test_odeint_runs_its_host_pass_on_the_host_whatever_the_default_device(device,
                                                                          default_device):
    """odeint integrates on host values (SciPy's LSODA): func gets y, t and
    args as CPU tensors, t too, and its gradient comes back beside y0."""
    import scipy.integrate as si
    from torchlike.scipy import integrate
    import torchlike.numpy as tnp
    seen = set()

    def decay(y, t, k):
        seen.update({y.device.type, t.device.type, k.device.type})
        return -k * y + 0.3 * tnp.sin(t) * y[::-1]

    y0, times = np.array([1.0, 0.5]), np.linspace(0.0, 1.0, 4)
    want = si.odeint(lambda y, tt: -0.7 * y + 0.3 * np.sin(tt) * y[::-1], y0, times)
    y = on(device, y0).requires_grad_()
    got = integrate.odeint(decay, y, on(device, times), args=(on(device, np.array(0.7)),))
    assert same_device(got, device) and seen == {"cpu"}
    np.testing.assert_allclose(host(got.detach()), want, rtol=1e-6, atol=1e-8)
    got.sum().backward()                        # the adjoint pass calls func on the host too
    assert same_device(y.grad, device) and seen == {"cpu"}


@pytest.mark.parametrize("device", DEVICES)
def test_creation_from_numbers_and_bytes_follows_the_default_device(device, default_device):
    """np.logspace and np.geomspace are creation functions, as np.linspace:
    given numbers they land on the default device.  They made their end
    points as host data given to a call (CPU tensors), so a program's
    log-spaced bins met its device data on the CPU (np.histogram's
    searchsorted then refused the mix).  np.frombuffer's bytes likewise
    stayed on the CPU, where np.asarray puts host data on the default
    device (a lookup table indexed by them refused the mix)."""
    import torchlike.numpy as tnp
    cases = [("logspace", (2, 3, 6), {}), ("logspace", (0, 10, 11), {"base": 2.0}),
             ("logspace", (0, 2, 3), {"dtype": "int64"}), ("logspace", (0.5, 1, 4), {"axis": -1}),
             ("logspace", (np.float32(0), 1, 3), {}), ("geomspace", (1, 1000, 4), {}),
             ("geomspace", (-1000, -1, 4), {}), ("geomspace", (2, 32, 5), {"dtype": "int32"}),
             ("geomspace", (np.int64(3), 48, 5), {"endpoint": False})]
    for name, args, kwargs in cases:
        got, want = getattr(tnp, name)(*args, **kwargs), getattr(np, name)(*args, **kwargs)
        assert same_device(got, device), (name, args, got.device)
        assert host(got).dtype == want.dtype, (name, args)
        np.testing.assert_allclose(host(got), want, rtol=1e-12)
    raw = tnp.frombuffer(b"ACGTTGCA", dtype=tnp.uint8)   # host bytes, as np.asarray makes them
    assert same_device(raw, device)
    np.testing.assert_array_equal(host(raw), np.frombuffer(b"ACGTTGCA", dtype=np.uint8))
    lut = tnp.full(256, -1, dtype=tnp.int8)
    lut[tnp.frombuffer(b"ACGT", dtype=tnp.uint8)] = tnp.arange(4)
    np.testing.assert_array_equal(host(lut[raw]), [0, 1, 2, 3, 3, 2, 1, 0])
    x = on(device, np.arange(1.0, 60.0) ** 1.5)
    counts, edges = tnp.histogram(x, bins=tnp.logspace(0, 3, 7))
    want_counts, want_edges = np.histogram(np.arange(1.0, 60.0) ** 1.5, bins=np.logspace(0, 3, 7))
    assert same_device(counts, device) and same_device(edges, device)
    np.testing.assert_array_equal(host(counts), want_counts)


@pytest.mark.parametrize("device", DEVICES)
def test_odd_reflection_pads_both_sides_on_the_device(device):
    """np.pad(reflect_type='odd') on device data ran NumPy's own code, which
    got both widths as one 0-d device tensor: ``left_pad -= n`` emptied the
    right width too, and the right pad kept np.empty's contents."""
    import torchlike.numpy as tnp
    x = np.arange(1.0, 5.0)
    for mode, width in (("reflect", 3), ("symmetric", (2, 6)), ("reflect", (7, 0))):
        got = tnp.pad(on(device, x), width, mode=mode, reflect_type="odd")
        assert same_device(got, device)
        np.testing.assert_array_equal(host(got), np.pad(x, width, mode=mode, reflect_type="odd"))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rule", ["auto", "fd", "doane", "scott", "stone", "rice", "sturges",
                                  "sqrt"])
def test_histogram_bin_estimators_of_integers_run_on_the_device(device, rule):
    """bin_estimators: NumPy's code picks an estimator from a table of its
    helpers, which ran with NumPy's own np.asarray (the width of integer data
    is an unsigned subtraction of np.asarray(x.max())): a device's tensors
    were refused.  The table's helpers are NumPy's code on tensors now."""
    import torchlike.numpy as tnp
    x = np.array([3, 9, 1, 14, 7, 7, 2, 30, 11, 5, 8, 6])
    for data in (x, x.astype(np.float32) / 3):
        got = tnp.histogram_bin_edges(on(device, data), bins=rule)
        assert same_device(got, device)
        np.testing.assert_allclose(host(got), np.histogram_bin_edges(data, bins=rule),
                                   rtol=1e-12)
        hist, _ = tnp.histogram(on(device, data), bins=rule, range=(0, 40))
        np.testing.assert_array_equal(host(hist), np.histogram(data, bins=rule, range=(0, 40))[0])


@pytest.mark.parametrize("device", DEVICES)
def test_lcm_accumulate_and_masked_nan_moments_run_on_the_device(device):
    """np.lcm.accumulate and np.nanmean/nanvar/nanstd with where= were NumPy's
    own code, refused on a device; they are torchlike's now."""
    import torchlike.numpy as tnp
    x = np.array([[4, 6, 10], [15, 7, 3]])
    got = tnp.lcm.accumulate(on(device, x), axis=1)
    assert same_device(got, device)
    np.testing.assert_array_equal(host(got), np.lcm.accumulate(x, axis=1))
    t = np.array([[1.0, np.nan, 3.0, 4.0], [5.0, 1.0, np.nan, 0.5]])
    mask = np.array([True, False, True, True])
    for name in ("nanmean", "nanvar", "nanstd"):
        got = getattr(tnp, name)(on(device, t), axis=1, where=on(device, mask))
        assert same_device(got, device)
        np.testing.assert_allclose(host(got), getattr(np, name)(t, axis=1, where=mask))


# ---- the emulated run -------------------------------------------------------------------------

@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)
