"""torchlike.masked (torchlike/masked/): PyTorch's recorded answers
(tests/golden/masked.json, scripts/golden_masked.py) for the masked
reductions, MaskedTensor's reprs, ops and errors; values against numpy.ma
over random inputs and masks (broadcast and non-contiguous ones included);
gradients of the masked functions and through MaskedTensor by finite
differences."""
import zlib

import numpy as np
import pytest

import torchlike as T
from oracle import described_close, golden_calls

M = T.masked
CALLS, _golden = golden_calls("masked")

# Calls whose message is ours on purpose (PyTorch names its dispatcher's
# internals, or an error of its own implementation); the type still matches.
OWN_WORDING = {
    "M.softmax(x.int(), 1, mask=m)", "M.norm(x.int(), 2, 1, mask=m)", "M.amax(xc, 1, mask=m)",
    "M.norm(x3, (0, 2), mask=m3)", "M.sum(x, 1, mask=m.T)", "mt.logical_not()", "mt.any()",
    "mt.max()", "mt.cumsum(1)", "mt.norm()", "mt.log_softmax(1)", "mt.T",
    "repr(T.masked.masked_tensor(T.zeros(0), T.zeros(0, dtype=T.bool)))",
}


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = _golden.inputs(T)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, repr(e.value))
        if call not in OWN_WORDING:
            assert str(e.value).splitlines()[0].replace("torchlike.", "torch.") == expected[2]
        return
    got = _golden.describe(eval(call, env))
    assert described_close(got, expected, 1e-4), (call, got, expected)


# ---- values against numpy.ma -------------------------------------------------------------

def _case(shape, seed, mask_shape=None, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-3, 3, size=shape).astype(dtype)
    m = rng.random(mask_shape if mask_shape is not None else shape) > 0.4
    return a, m


def _ma(a, m):
    return np.ma.masked_array(a, mask=~np.broadcast_to(m, a.shape))


def _filled(r, fill):
    return np.ma.filled(r, fill) if np.ma.isMaskedArray(r) else np.asarray(r)


REDUCTIONS = {
    # name: (numpy.ma reduction, value where nothing is left)
    "sum": (lambda x, d, k: x.sum(axis=d, keepdims=k), 0.0),
    "prod": (lambda x, d, k: x.prod(axis=d, keepdims=k), 1.0),
    "amax": (lambda x, d, k: x.max(axis=d, keepdims=k), -np.inf),
    "amin": (lambda x, d, k: x.min(axis=d, keepdims=k), np.inf),
    "mean": (lambda x, d, k: x.mean(axis=d, keepdims=k), np.nan),
    "var": (lambda x, d, k: x.var(axis=d, keepdims=k, ddof=1), np.nan),
    "std": (lambda x, d, k: x.std(axis=d, keepdims=k, ddof=1), np.nan),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
@pytest.mark.parametrize("shape,dim,keepdim,mask_shape", [
    ((4, 5), 1, False, None), ((3, 4, 5), (0, 2), True, None), ((6,), None, False, None),
    ((3, 4), 0, False, (4,)), ((2, 3, 4), -1, False, (3, 1)), ((3, 0), 0, False, None),
])
def test_reductions_match_numpy_ma(name, shape, dim, keepdim, mask_shape):
    a, m = _case(shape, zlib.crc32(f"{name}{shape}".encode()), mask_shape)
    if name in ("var", "std"):
        m[..., :1] = True if m.ndim else m   # keep some slices with one element
    fn, empty = REDUCTIONS[name]
    x = _ma(a, m)
    with np.errstate(all="ignore"):
        want = fn(x, dim, keepdim)
        count = np.sum(np.broadcast_to(m, a.shape), axis=dim, keepdims=keepdim)
    want = _filled(want, 0.0).astype(np.float64)
    want = np.where(count == 0, empty, want)
    if name in ("var", "std"):
        want = np.where(count == 1, np.nan, want)   # one element: 0 / (count - 1) = 0 / 0
    got = getattr(M, name)(T.tensor(a), dim, keepdim=keepdim, mask=T.tensor(m))
    assert got.dtype == T.float64 and tuple(got.shape) == np.shape(want)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-10, atol=1e-12)


def test_noncontiguous_inputs_and_masks():
    a, m = _case((5, 6), 3)
    ta = T.tensor(a.T.copy()).T          # a transposed (non-contiguous) layout
    tm = T.tensor(np.ascontiguousarray(m[:, ::-1]))[:, ::-1] if False else T.tensor(m.T.copy()).T
    assert not ta.is_contiguous() and not tm.is_contiguous()
    got = M.sum(ta, 0, mask=tm)
    np.testing.assert_allclose(got.cpu().numpy(), _filled(_ma(a, m).sum(axis=0), 0.0), rtol=1e-12)
    got = M.amax(ta[:, ::2], 1, mask=tm[:, ::2])
    want = _filled(_ma(a[:, ::2], m[:, ::2]).max(axis=1), -np.inf)
    np.testing.assert_allclose(got.cpu().numpy(), want)


@pytest.mark.parametrize("op,fill", [("cumsum", 0.0), ("cumprod", 1.0)])
def test_scans_match_numpy(op, fill):
    a, m = _case((3, 5), 7)
    got = getattr(M, op)(T.tensor(a), 1, mask=T.tensor(m))
    want = getattr(np, op)(np.where(m, a, fill), axis=1)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)


def test_softmaxes_and_normalize_match_numpy():
    a, m = _case((4, 6), 11)
    m[2] = False                           # one fully masked row: NaN
    ta, tm = T.tensor(a), T.tensor(m)
    e = np.where(m, np.exp(a - a.max(axis=1, keepdims=True)), 0.0)
    with np.errstate(all="ignore"):
        soft = e / e.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(M.softmax(ta, 1, mask=tm).cpu().numpy(), soft, rtol=1e-12)
        np.testing.assert_allclose(M.log_softmax(ta, 1, mask=tm).cpu().numpy(), np.log(soft),
                                   rtol=1e-12)
        e2 = np.where(m, np.exp(-a + a.min(axis=1, keepdims=True)), 0.0)
        np.testing.assert_allclose(M.softmin(ta, 1, mask=tm).cpu().numpy(),
                                   e2 / e2.sum(axis=1, keepdims=True), rtol=1e-12)
    nrm = np.sqrt(np.sum(np.where(m, a, 0.0) ** 2, axis=1, keepdims=True))
    np.testing.assert_allclose(M.normalize(ta, 2.0, 1, mask=tm).cpu().numpy(),
                               np.where(m, a, 0.0) / np.maximum(nrm, 1e-12), rtol=1e-12)
    with np.errstate(divide="ignore"):   # log(0): -inf for the fully masked row
        lse = np.log(np.sum(np.where(m, np.exp(a), 0.0), axis=1))
    np.testing.assert_allclose(M.logsumexp(ta, 1, mask=tm).cpu().numpy(), lse, rtol=1e-12)


def test_median_and_argmax_match_numpy():
    a, m = _case((4, 7), 5)
    m[1] = False
    ta, tm = T.tensor(a), T.tensor(m)
    want = np.array([np.nan if not r.any() else np.sort(v[r])[(r.sum() - 1) // 2]
                     for v, r in zip(a, m)])
    np.testing.assert_allclose(M.median(ta, 1, mask=tm).cpu().numpy(), want)
    got = M.argmax(ta, 1, mask=tm)
    assert got.dtype == T.float64           # indices in input's dtype, as PyTorch
    np.testing.assert_array_equal(got.cpu().numpy(), np.argmax(np.where(m, a, -np.inf), axis=1))
    got = M.argmin(ta, 1, mask=tm, dtype=T.int64)
    np.testing.assert_array_equal(got.cpu().numpy(), np.argmin(np.where(m, a, np.inf), axis=1))


@pytest.mark.parametrize("ord", [2.0, 1.0, 3.0, float("inf"), -float("inf"), 0.0])
def test_norm_matches_numpy(ord):
    a, m = _case((3, 6), 2)
    m[0] = False
    got = M.norm(T.tensor(a), ord, 1, mask=T.tensor(m)).cpu().numpy()
    x = np.abs(np.where(m, a, 0.0 if ord != -np.inf else np.inf))
    if ord == np.inf:
        want = x.max(axis=1)
    elif ord == -np.inf:
        want = x.min(axis=1)
    elif ord == 0:
        want = (x != 0).sum(axis=1).astype(float)
    else:
        want = (x ** ord).sum(axis=1) ** (1 / ord)
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ---- gradients -----------------------------------------------------------------------------

def _numeric_grad(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        hi, lo = a.copy(), a.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (f(hi) - f(lo)) / (2 * eps)
    return g


GRAD_CASES = {
    "sum": lambda x, m: M.sum(x, 1, mask=m),
    "prod": lambda x, m: M.prod(x, 1, mask=m),
    "amax": lambda x, m: M.amax(x, 1, mask=m),
    "mean": lambda x, m: M.mean(x, 1, mask=m),
    "var": lambda x, m: M.var(x, 1, mask=m),
    "std": lambda x, m: M.std(x, 0, mask=m),
    "norm": lambda x, m: M.norm(x, 2.0, 1, mask=m),
    "logsumexp": lambda x, m: M.logsumexp(x, 1, mask=m),
    "softmax": lambda x, m: M.softmax(x, 1, mask=m),
    "log_softmax": lambda x, m: M.log_softmax(x, 1, mask=m),
    "softmin": lambda x, m: M.softmin(x, 0, mask=m),
    "normalize": lambda x, m: M.normalize(x, 2.0, 1, mask=m),
    "cumsum": lambda x, m: M.cumsum(x, 1, mask=m),
    "cumprod": lambda x, m: M.cumprod(x, 1, mask=m),
    "median": lambda x, m: M.median(x, 1, mask=m),
    "logaddexp": lambda x, m: M.logaddexp(x, T.ones_like(x) * 0.5, input_mask=m,
                                          other_mask=m.flip(0)),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients_by_finite_differences(name):
    rng = np.random.default_rng(4)
    a = rng.uniform(0.5, 2.0, size=(3, 4)) * rng.choice([-1.0, 1.0], size=(3, 4))
    m = np.array([[True, False, True, True], [False, True, True, False],
                  [True, True, False, True]])
    fn = GRAD_CASES[name]
    tm = T.tensor(m)
    x = T.tensor(a, requires_grad=True)
    out = fn(x, tm)
    w = rng.standard_normal(tuple(out.shape))   # a random weighting of the outputs

    def scalar(arr):
        out = fn(T.tensor(arr), tm).cpu().numpy()
        return float(np.sum(np.where(np.isfinite(out), out, 0.0) * w))
    weight = T.tensor(w)
    (T.where(T.isfinite(out), out, T.zeros(())) * weight).sum().backward()
    got = x.grad.cpu().numpy()
    np.testing.assert_allclose(got, _numeric_grad(scalar, a), rtol=1e-5, atol=1e-6)
    assert np.all(got[~m] == 0), "masked-out elements get no gradient"


# ---- MaskedTensor ------------------------------------------------------------------------

def test_masked_tensor_backward_gives_masked_gradients():
    a = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    m = np.array([[True, False, True], [True, True, False]])
    mt = M.masked_tensor(T.tensor(a), T.tensor(m), requires_grad=True)
    assert mt.is_leaf and mt.requires_grad
    out = (mt * mt).sin().sum(1)
    assert isinstance(out, M.MaskedTensor) and out.requires_grad
    out.to_tensor(0).sum().backward()
    grad = mt.grad
    assert isinstance(grad, M.MaskedTensor)
    np.testing.assert_array_equal(grad.get_mask().cpu().numpy(), m)
    want = np.cos(a * a) * 2 * a
    np.testing.assert_allclose(grad.get_data().cpu().numpy()[m], want[m], rtol=1e-12)


def test_masked_tensor_reductions_and_softmax_gradients():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((3, 4))
    m = rng.random((3, 4)) > 0.3
    m[:, 0] = True
    tm = T.tensor(m)

    def f(arr, grad=False):
        mt = M.masked_tensor(T.tensor(arr), tm, requires_grad=grad)
        out = mt.softmax(1).mean(1) + mt.amax(1) * 2 + mt.var(1)
        return mt, out.to_tensor(0).sum()
    mt, s = f(a, True)
    s.backward()
    num = _numeric_grad(lambda arr: float(f(arr)[1].cpu().numpy()), a)
    np.testing.assert_allclose(mt.grad.get_data().cpu().numpy()[m], num[m], rtol=1e-5, atol=1e-7)


def test_as_masked_tensor_keeps_history():
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    mt = M.as_masked_tensor(x * 3, T.tensor([[True, False], [True, True]]))
    assert not mt.is_leaf
    mt.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [[3.0, 0.0], [3.0, 3.0]])


def test_masked_tensor_values_against_numpy_ma():
    a, m = _case((4, 5), 21)
    b, _ = _case((4, 5), 22)
    ma, mb = M.masked_tensor(T.tensor(a), T.tensor(m)), M.masked_tensor(T.tensor(b), T.tensor(m))
    xa, xb = _ma(a, m), _ma(b, m)
    for got, want in [(ma + mb, xa + xb), (ma * mb - 1, xa * xb - 1), (ma / mb, xa / xb),
                      (ma.exp(), np.ma.exp(xa)), (T.maximum(ma, mb), np.ma.maximum(xa, xb)),
                      (ma.sum(0), xa.sum(axis=0)), (ma.mean(1), xa.mean(axis=1)),
                      (ma.amin(1), xa.min(axis=1)), (ma.var(), xa.var(ddof=1))]:
        want = np.ma.masked_array(want)
        keep = ~np.ma.getmaskarray(want)
        np.testing.assert_array_equal(got.get_mask().cpu().numpy(), keep)
        np.testing.assert_allclose(got.get_data().cpu().numpy()[keep], want.data[keep], rtol=1e-12)
    cmp = ma > mb
    np.testing.assert_array_equal(cmp.get_data().cpu().numpy()[m], (a > b)[m])


def test_torch_function_reaches_every_op():
    # every op on a MaskedTensor goes through its __torch_function__: an op
    # with no rule refuses rather than computing over masked-out values
    mt = M.masked_tensor(T.ones(2, 2), T.tensor([[True, False], [True, True]]))
    for call in (lambda: T.cumsum(mt, 0), lambda: mt.max(), lambda: T.nn.functional.gelu(mt),
                 lambda: mt.sort()):
        with pytest.raises(TypeError, match="MaskedTensor does not support"):
            call()
    assert type(T.nn.functional.relu(mt)) is M.MaskedTensor
    assert type(T.where(mt.get_mask(), mt, 0.0)) is M.MaskedTensor
    assert type(mt.where(mt.get_mask(), mt)) is M.MaskedTensor


def test_copies_pickles_and_numpy():
    import copy
    import pickle
    mt = M.masked_tensor(T.tensor([1.0, 2.0, 3.0]), T.tensor([True, False, True]),
                         requires_grad=True)
    for other in (copy.deepcopy(mt), pickle.loads(pickle.dumps(mt))):
        assert type(other) is M.MaskedTensor and other.requires_grad
        assert repr(other) == repr(mt)
    # NumPy never sees the masked-out values; its ufuncs come back as MaskedTensors
    with pytest.raises(RuntimeError, match="not supported for tensor subclasses"):
        np.asarray(mt)
    out = np.sin(mt.detach())
    assert type(out) is M.MaskedTensor
    np.testing.assert_allclose(out.get_data().cpu().numpy()[[0, 2]], np.sin([1.0, 3.0]))


def test_methods_read_first_and_get_device_reach_torch_function():
    # MaskedTensor and NestedTensor rely on every Tensor method reaching
    # __torch_function__: x.size read as an attribute and called later (as
    # pytest's assert rewriting does), and get_device, did not
    seen = []

    class Logged(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(T.overrides.resolve_name(func))
            return super().__torch_function__(func, types, args, kwargs)

    t = T.ones(2, 3).as_subclass(Logged)
    size = t.size
    assert size(1) == 3 and t.get_device() == T.ones(1).get_device()
    assert "torchlike.Tensor.size" in seen and "torchlike.Tensor.get_device" in seen
