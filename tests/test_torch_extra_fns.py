"""torch.linalg.vander, torch.combinations, torch.unravel_index,
torch.gradient, torch.index_reduce (torchlike/_torch_extra.py): PyTorch's
recorded answers (tests/golden/torch_extra.json, scripts/golden_torch_extra.py)
for values and messages; NumPy references for values (float32/float64,
batched, non-contiguous, empty); gradcheck in float64; the device paths."""
import itertools

import numpy as np
import pytest

import torchlike as T
from golden_tolerant import check_recorded, recorded_params
from oracle import cuda_test_devices, golden_calls, host_array, run_emulated
from test_composites import _noncontig, _rand

CALLS, _golden = golden_calls("torch_extra")
DEVICES, EMULATED = cuda_test_devices()


# the CPU checks indices before writing; on a device (PyTorch's CUDA kernel
# asserts there) a bad index is found by the kernel
@pytest.mark.parametrize("call,expected", recorded_params(CALLS, ["index out of range in self"]))
def test_matches_pytorch(call, expected):
    check_recorded(_golden, call, expected)


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vander_against_numpy(dtype):
    a = _rand(2, 3, 5, dtype=dtype)
    for n in (None, 2, 7):
        got = T.linalg.vander(_noncontig(a), N=n)
        np.testing.assert_allclose(got.cpu().numpy(), np.stack(
            [np.vander(r, n or 5, increasing=True) for r in a.reshape(-1, 5)]).reshape(
                2, 3, 5, n or 5), **_tol(dtype))
    ints = np.array([3, -2, 0, 5], dtype=np.int16)
    got = T.linalg.vander(T.tensor(ints), N=6)
    assert got.dtype == T.int64
    np.testing.assert_array_equal(got.cpu().numpy(), np.vander(ints.astype(np.int64), 6, True))


@pytest.mark.parametrize("r", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations_against_itertools(r, with_replacement):
    a = _rand(5)
    t = _noncontig(a)
    got = T.combinations(t, r, with_replacement)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    want = np.array(list(pick(a.tolist(), r))).reshape(-1, r) if r else np.zeros(0)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.cpu().numpy(), want)


def test_unravel_index_against_numpy():
    rng = np.random.default_rng(0)
    for shape in ((7,), (3, 4), (2, 3, 5), (1, 1, 4, 2)):
        flat = rng.integers(0, int(np.prod(shape)), (3, 4))
        for dt in (T.int64, T.int32, T.int16):
            got = T.unravel_index(T.tensor(flat).to(dt).mT.contiguous().mT, shape)
            want = np.unravel_index(flat, shape)
            assert len(got) == len(shape)
            for g, w in zip(got, want):
                assert g.dtype == T.int64
                np.testing.assert_array_equal(g.cpu().numpy(), w)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_against_numpy(dtype, edge_order):
    a = _rand(4, 6, dtype=dtype)
    t = _noncontig(a)
    for got, want in zip(T.gradient(t, edge_order=edge_order),
                         np.gradient(a, edge_order=edge_order)):
        np.testing.assert_allclose(got.cpu().numpy(), want, **_tol(dtype))
    got = T.gradient(t, spacing=[0.5, 2.0], edge_order=edge_order)
    for g, w in zip(got, np.gradient(a, 0.5, 2.0, edge_order=edge_order)):
        np.testing.assert_allclose(g.cpu().numpy(), w, **_tol(dtype))
    xs = np.cumsum(np.abs(_rand(6, seed=3)) + 0.2).astype(dtype)
    ys = np.cumsum(np.abs(_rand(4, seed=4)) + 0.2).astype(dtype)
    got = T.gradient(t, spacing=[T.tensor(ys), T.tensor(xs)], edge_order=edge_order)
    for g, w in zip(got, np.gradient(a, ys, xs, edge_order=edge_order)):
        np.testing.assert_allclose(g.cpu().numpy(), w, rtol=1e-4 if dtype == np.float32 else 1e-10,
                                   atol=1e-4 if dtype == np.float32 else 1e-10)
    (g,) = T.gradient(t, spacing=(T.tensor(xs),), dim=1, edge_order=edge_order)
    np.testing.assert_allclose(g.cpu().numpy(), np.gradient(a, xs, axis=1, edge_order=edge_order),
                               rtol=1e-4 if dtype == np.float32 else 1e-10)


def _np_index_reduce(x, dim, index, src, reduce, include_self):
    out = np.moveaxis(x.copy(), dim, 0)
    s = np.moveaxis(src, dim, 0)
    groups = {}
    for k, i in enumerate(index):
        groups.setdefault(int(i), []).append(s[k])
    for i, rows in groups.items():
        vals = ([out[i]] if include_self else []) + rows
        out[i] = {"prod": lambda v: np.prod(v, 0), "mean": lambda v: np.mean(v, 0),
                  "amax": lambda v: np.max(v, 0), "amin": lambda v: np.min(v, 0)}[reduce](
                      np.stack(vals))
    return np.moveaxis(out, 0, dim)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_against_numpy(reduce, include_self, dtype):
    x = _rand(3, 4, 5, dtype=dtype)
    src = _rand(3, 6, 5, seed=1, dtype=dtype)
    index = np.array([2, 0, 2, 3, 2, 0])
    got = T.index_reduce(_noncontig(x), 1, T.tensor(index), _noncontig(src), reduce,
                         include_self=include_self)
    np.testing.assert_allclose(got.cpu().numpy(), _np_index_reduce(x, 1, index, src, reduce,
                                                             include_self), **_tol(dtype))
    t = T.tensor(x)
    out = t.index_reduce_(1, T.tensor(index, dtype=T.int32), T.tensor(src), reduce,
                          include_self=include_self)
    assert out is t
    np.testing.assert_allclose(t.cpu().numpy(), got.cpu().numpy(), **_tol(dtype))


def _g(*shape, seed=0):
    return T.tensor(_rand(*shape, seed=seed), requires_grad=True)


@pytest.mark.parametrize("name,fn,shapes", [
    ("vander", lambda x: T.linalg.vander(x, N=4), [(2, 3)]),
    ("combinations", lambda x: T.combinations(x, 3), [(5,)]),
    ("combinations_replacement", lambda x: T.combinations(x, 2, True), [(4,)]),
    ("gradient", lambda f: T.gradient(f), [(4, 5)]),
    ("gradient_edge2", lambda f: T.gradient(f, spacing=0.5, dim=1, edge_order=2), [(4, 5)]),
    ("gradient_coordinates", lambda f, c: T.gradient(
        f, spacing=[T.cumsum(c.abs() + 0.5, 0)], dim=1, edge_order=2), [(3, 5), (5,)]),
    ("index_reduce_prod", lambda x, s: T.index_reduce(
        x, 0, T.tensor([1, 0, 1]), s, "prod"), [(2, 3), (3, 3)]),
    ("index_reduce_mean", lambda x, s: T.index_reduce(
        x, 1, T.tensor([2, 2]), s, "mean", include_self=False), [(2, 3), (2, 2)]),
    ("index_reduce_amax", lambda x, s: T.index_reduce(x, 0, T.tensor([1, 0, 1]), s, "amax"),
     [(2, 3), (3, 3)]),
    ("index_reduce_amin", lambda x, s: T.index_reduce(x, 0, T.tensor([1, 0, 1]), s, "amin"),
     [(2, 3), (3, 3)]),
])
def test_gradients(name, fn, shapes):
    args = [_g(*s, seed=k) for k, s in enumerate(shapes)]
    assert T.autograd.gradcheck(fn, args)
    if name in ("vander", "gradient_coordinates", "index_reduce_prod"):
        assert T.autograd.gradgradcheck(fn, args)


_ON_DEVICE = {
    "vander": lambda a: [T.linalg.vander(a[0], N=4)],
    "combinations": lambda a: [T.combinations(a[0], 2), T.combinations(a[1], 3, True)],
    "unravel_index": lambda a: list(T.unravel_index(
        T.argsort(a, dim=1), (2, 3))),
    "gradient": lambda a: list(T.gradient(a, spacing=[T.arange(3.0, dtype=T.float64,
                                                                device=a.device).exp(),
                                                       0.5], edge_order=2)),
    "index_reduce": lambda a: [T.index_reduce(a, 1, T.tensor([0, 2, 0], device=a.device),
                                              a[:, :3] * 2, r) for r in
                               ("prod", "mean", "amax", "amin")],
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(_ON_DEVICE))
def test_on_device(name, device):
    a = _rand(3, 5)
    want = _ON_DEVICE[name](T.tensor(a))
    got = _ON_DEVICE[name](T.tensor(a).to(device))
    for g, w in zip(got, want):
        assert g.device.type == (device if device != "cpu" else "cpu")
        np.testing.assert_allclose(host_array(g), w.cpu().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bad", [5, -1])
def test_index_reduce_bad_index_on_device(bad, device):
    """The CPU refuses before writing; on a device the kernel finds the index
    (a negative one too, which torchlike's scatters would otherwise wrap)."""
    x = T.tensor(_rand(3, 2)).to(device)
    index = T.tensor([0, bad, 0, 1]).to(device)
    src = T.tensor(_rand(4, 2)).to(device)
    for reduce in ("prod", "mean", "amax", "amin"):
        with pytest.raises(IndexError if device == "cpu" else RuntimeError,
                           match="index out of range in self" if device == "cpu" else
                           "out of bounds for dimension 0 with size 3"):
            host_array(x.index_reduce(0, index, src, reduce))


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this process is the emulated run")
def test_emulated():
    run_emulated(__file__)
