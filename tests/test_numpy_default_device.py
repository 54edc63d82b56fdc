"""NumPy code with a device as the default device (a GPU program's
``import torchlike.numpy as np``): what the fifth and sixth rounds of NumPy
programs (tests/test_numpy_programs5.py, 6) found on the emulated device.

Arrays a program makes from numbers meet on the default device: a call given
numbers and lists only (``np.cumsum([0.1, 0.8])``) computes there, as
``np.asarray`` of them lands there, and ``np.frombuffer`` copies the bytes
there; a tensor or an ndarray among the operands keeps the call where its
memory is (docs/numpy.md, "Devices").  Device-parametrised as
tests/test_device_placement.py: "cpu" here, "emulated" in a process of its
own (its memory unreadable by host code outside its kernels)."""
import numpy
import pytest

import torchlike as tl
import torchlike.numpy as np
from oracle import cuda_test_devices, host_array, run_emulated

DEVICES, EMULATED = cuda_test_devices()


@pytest.fixture
def default_device(device):
    """The test's device as the default device, for the test's duration."""
    tl.set_default_device(device)
    try:
        yield device
    finally:
        tl.set_default_device("cpu")


def on(t, device):
    return t.device.type == device


@pytest.mark.parametrize("device", DEVICES)
def test_calls_given_numbers_only_compute_on_the_default_device(device, default_device):
    cum = np.cumsum([0.01, 0.85, 0.07, 0.07])
    assert on(cum, device)
    u = np.asarray([0.3, 0.95, 0.0])
    k = np.searchsorted(cum, u * cum[-1], side="right")  # met device arrays: raised
    numpy.testing.assert_array_equal(host_array(k), [1, 3, 0])
    for result in (np.sum([1, 2]), np.exp([0.5, 1.0]), np.add([1, 2], [3, 4]),
                   np.add([1, 2], 3), np.maximum(2, [1, 3]), np.deg2rad(30.0),
                   np.concatenate([[1], [2, 3]]), np.mean(3.5),
                   # NumPy's own functions (the namespace's __getattr__, np.emath)
                   np.polyadd([1, 2], [1, 0, 0]), np.roots([1, 0, 0, -8]), np.emath.sqrt(-2),
                   # the ufuncs' methods
                   np.logical_and.outer([True, False], [True, True, False]),
                   np.add.reduce([1, 2, 3]), np.multiply.accumulate([1, 2, 3]),
                   np.add.reduceat([1, 2, 3, 4], [0, 2])):
        assert on(result, device), result
    numpy.testing.assert_array_equal(host_array(np.add([1, 2], 3)), [4, 5])


@pytest.mark.parametrize("device", DEVICES)
def test_host_arrays_keep_a_call_on_the_host(device, default_device):
    # an ndarray or a CPU tensor among the operands: host memory, not copied
    a = numpy.arange(3.0)
    cpu = tl.arange(3.0, device="cpu")
    for result in (np.take(a, [0, 2]), np.cumsum(a), np.add(a, [1.0, 2.0, 3.0]),
                   np.polyadd(a, [1.0]), np.add.outer(a, [1.0]), np.add.reduce(a),
                   np.concatenate([cpu, [1.0]]), np.add(cpu, [1.0, 2.0, 3.0]),
                   np.sum([cpu, cpu])):
        assert on(result, "cpu"), result


@pytest.mark.parametrize("device", DEVICES)
def test_numbers_only_calls_inside_a_host_call_stay_on_the_host(device, default_device):
    # the function apply_along_axis calls on CPU slices makes an array of numbers:
    # it joins the slices on the host, not the default device
    cpu = tl.arange(6.0, dtype=tl.float64, device="cpu").reshape(2, 3)
    got = np.apply_along_axis(lambda r: np.cumsum([1.0, 2.0]) + r[:2], 1, cpu)
    assert on(got, "cpu")
    numpy.testing.assert_array_equal(host_array(got), [[1.0, 4.0], [4.0, 7.0]])
    assert on(np.cumsum([1.0, 2.0]), device)  # outside it, the default device


@pytest.mark.parametrize("device", DEVICES)
def test_frombuffer_lands_on_the_default_device(device, default_device):
    codes = np.frombuffer(b"ACGT", dtype=np.uint8)
    assert on(codes, device)
    comp = np.asarray([3, 2, 1, 0])
    numpy.testing.assert_array_equal(host_array(codes[comp]), list(b"TGCA"))
    assert bytes(codes) == b"ACGT"
    if device == "cpu":  # a view of the buffer, as NumPy's
        buf = bytearray(b"ab")
        view = np.frombuffer(buf, dtype=np.uint8)
        buf[0] = ord("z")
        assert int(view[0]) == ord("z")


@pytest.mark.parametrize("device", DEVICES)
def test_bytes_of_a_tensor_are_its_memory_in_c_order(device):
    a = numpy.arange(6, dtype=numpy.int16).reshape(2, 3)
    t = tl.from_numpy(a).to(device)
    assert bytes(t) == bytes(a) and bytes(t.T) == bytes(a.T)


@pytest.mark.parametrize("device", DEVICES)
def test_i0_runs_the_core_op_in_numpys_dtypes(device, default_device):
    for dtype in ("float64", "float32", "int64", "uint8", "bool"):
        a = (numpy.asarray([-3, 0, 0.5, 2, 7]) * (dtype != "bool")).astype(dtype)
        want = numpy.i0(a)
        got = np.i0(x=np.asarray(a))
        assert on(got, device) and got.dtype == want.dtype
        numpy.testing.assert_allclose(host_array(got), want, rtol=2e-7)
    with pytest.raises(TypeError, match="complex"):
        np.i0(np.asarray([1j]))
    x = tl.tensor([0.5, 2.0], dtype=tl.float64, requires_grad=True)
    np.i0(x).sum().backward()  # on the tape: i0' = i1
    numpy.testing.assert_allclose(host_array(x.grad), [0.25789430539089636, 1.5906368546373291])


@pytest.mark.parametrize("device", DEVICES)
def test_masked_average_weights_join_the_data(device, default_device):
    data = np.arange(8).reshape((2, 2, 2))
    weights = [[1. / 4, 3. / 4], [1., 1. / 2]]
    got = np.ma.average(data, axis=(0, 1), weights=weights)
    want = numpy.ma.average(numpy.arange(8).reshape((2, 2, 2)), axis=(0, 1), weights=weights)
    numpy.testing.assert_allclose(host_array(got.filled(-1)), want.filled(-1))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("dtype", ["float64", "int64", "uint8"])
def test_odd_reflection_pads_as_numpy(device, default_device, mode, dtype):
    # NumPy's own pad on tensors met 0-d tensor widths it updates in place
    # (left_pad -= n: one view of both sides), and padded zeros on the right
    for n in (1, 2, 3, 5):
        a = (numpy.arange(n * 3).reshape(3, n) ** 2 % 7 + 1).astype(dtype)
        for width in ((0, 2), (3, 3), (9, 5), (2, 11)):
            want = numpy.pad(a, ((1, 2), width), mode=mode, reflect_type="odd")
            got = np.pad(np.asarray(a), ((1, 2), width), mode=mode, reflect_type="odd")
            assert on(got, device) and got.dtype == want.dtype
            numpy.testing.assert_array_equal(host_array(got), want)


@pytest.mark.parametrize("device", DEVICES)
def test_odd_reflection_is_recorded(device):
    x = tl.tensor([1.0, 2.0, 4.0], dtype=tl.float64, device=device, requires_grad=True)
    y = np.pad(x, (2, 1), mode="reflect", reflect_type="odd")  # 2x0-x2, 2x0-x1, x, 2x2-x1
    numpy.testing.assert_array_equal(host_array(y.detach()), [-2.0, 0.0, 1.0, 2.0, 4.0, 6.0])
    y.sum().backward()
    numpy.testing.assert_array_equal(host_array(x.grad), [5.0, -1.0, 2.0])


A = numpy.arange(24.0).reshape(2, 3, 4)
ALONG = [(lambda xp: lambda r: r.max() - r.min(), 1),
         (lambda xp: lambda r: xp.stack([r, r * 2]), 0),
         (lambda xp: lambda r: r[0] + r[-1], 2),
         (lambda xp: lambda r: xp.asarray([r.min(), r.max(), r.mean()]), -1),
         (lambda xp: lambda r: xp.diag(r), 1),
         (lambda xp: lambda r: (r > 5).sum(), 0)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("i", range(len(ALONG)))
def test_apply_along_axis_runs_on_the_device(device, default_device, i):
    func, axis = ALONG[i]
    want = numpy.apply_along_axis(func(numpy), axis, A)
    got = np.apply_along_axis(func(np), axis, np.asarray(A))
    assert on(got, device) and got.dtype == want.dtype and got.shape == want.shape
    numpy.testing.assert_allclose(host_array(got), want)


@pytest.mark.parametrize("device", DEVICES)
def test_apply_along_axis_is_recorded_and_checks_as_numpy(device):
    x = tl.tensor(A, dtype=tl.float64, device=device, requires_grad=True)
    y = np.apply_along_axis(lambda r: (r ** 2).sum(), 1, x)
    y.sum().backward()
    numpy.testing.assert_allclose(host_array(x.grad), 2 * A)
    with pytest.raises(ValueError, match="iteration dimensions are 0"):
        np.apply_along_axis(lambda r: r, 1, tl.zeros((0, 3), device=device))
    # later results take the first one's dtype, as NumPy's buffer does
    flip = iter([1, 2.5])
    got = np.apply_along_axis(lambda r: next(flip), 1, tl.zeros((2, 3), device=device))
    assert got.dtype == tl.int64 and host_array(got).tolist() == [1, 2]


SERIES = ["Polynomial", "Chebyshev", "Legendre", "Laguerre", "Hermite", "HermiteE"]
FITS = [("polynomial", "polyfit"), ("chebyshev", "chebfit"), ("legendre", "legfit"),
        ("laguerre", "lagfit"), ("hermite", "hermfit"), ("hermite_e", "hermefit")]
XS = numpy.linspace(-1, 3, 25)
YS = numpy.exp(-XS) * numpy.cos(2 * XS)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", SERIES)
def test_series_fit_of_device_samples_runs_there(device, default_device, name):
    # NumPy's fit converted the samples with np.array: a device tensor was refused
    ours, theirs = getattr(np.polynomial, name), getattr(numpy.polynomial, name)
    x, y = np.asarray(XS), np.asarray(YS)
    got, want = ours.fit(x, y, 5), theirs.fit(XS, YS, 5)
    assert isinstance(got, ours) and isinstance(got.coef, numpy.ndarray)  # host coefficients
    numpy.testing.assert_allclose(got.coef, want.coef, rtol=1e-9, atol=1e-12)
    numpy.testing.assert_array_equal(got.domain, want.domain)
    numpy.testing.assert_allclose(host_array(got(x[::6])), want(XS[::6]), rtol=1e-9)
    w = numpy.linspace(1, 2, XS.size)
    (got, (res, rank, sv, rcond)), (want, status) = (
        ours.fit(x, y, [0, 2, 3], w=np.asarray(w), domain=[-2, 4], full=True),
        theirs.fit(XS, YS, [0, 2, 3], w=w, domain=[-2, 4], full=True))
    numpy.testing.assert_allclose(got.coef, want.coef, rtol=1e-9, atol=1e-12)
    numpy.testing.assert_allclose(host_array(res), status[0], rtol=1e-9)
    assert int(rank) == status[1]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("module, name", FITS)
def test_module_fits_of_device_samples_stay_there(device, default_device, module, name):
    ours = getattr(getattr(np.polynomial, module), name)
    theirs = getattr(getattr(numpy.polynomial, module), name)
    got = ours(np.asarray(XS / 3), np.asarray(YS), 4)
    assert on(got, device)
    numpy.testing.assert_allclose(host_array(got), theirs(XS / 3, YS, 4), rtol=1e-8, atol=1e-12)
    two = numpy.stack([YS, 2 * YS], axis=1)  # several right-hand sides
    numpy.testing.assert_allclose(host_array(ours(np.asarray(XS / 3), np.asarray(two), 3)),
                                  theirs(XS / 3, two, 3), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_module_fits_record_the_samples_gradient(device):
    # the fit is linear in y: d sum(c) / dy_j is the sum of the fit of e_j
    x = XS / 3
    y = tl.tensor(YS, dtype=tl.float64, device=device, requires_grad=True)
    c = np.polynomial.chebyshev.chebfit(tl.from_numpy(x).to(device), y, 3)
    c.sum().backward()
    want = [numpy.polynomial.chebyshev.chebfit(x, e, 3).sum() for e in numpy.eye(x.size)]
    numpy.testing.assert_allclose(host_array(y.grad), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_series_fit_refuses_samples_that_require_grad(device):
    x = tl.tensor(XS, dtype=tl.float64, device=device, requires_grad=True)
    with pytest.raises((RuntimeError, TypeError), match="grad"):
        np.polynomial.Polynomial.fit(x, x.detach() ** 2, 2)  # host coefficients: no gradient


@pytest.mark.parametrize("device", DEVICES)
def test_polynomial_code_on_device_coefficients(device, default_device):
    c = np.asarray([1.0, 0.0, 1.0])
    numpy.testing.assert_allclose(host_array(np.polynomial.polynomial.polyval(
        np.asarray([1.0, 2.0]), c)), [2.0, 5.0])
    r = np.asarray([1.0, -2.0])
    got = np.polynomial.polynomial.polyvalfromroots(np.asarray([0.5, 3.0]),
                                                    np.stack([r, -r], axis=1), tensor=False)
    rr = numpy.asarray([1.0, -2.0])
    numpy.testing.assert_allclose(host_array(got), numpy.polynomial.polynomial.polyvalfromroots(
        numpy.asarray([0.5, 3.0]), numpy.stack([rr, -rr], axis=1), tensor=False))
    q, rem = np.polydiv(np.asarray([1.0, 0.0, -1.0]), [1.0, -1.0])  # a list divisor
    assert on(q, device) and on(rem, device)
    numpy.testing.assert_allclose(host_array(q), [1.0, 1.0])
    numpy.testing.assert_allclose(host_array(rem), [0.0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["polynomial.polyval", "chebyshev.chebval",
                                  "hermite_e.hermeval"])
def test_evaluation_with_coefficients_that_require_grad_is_recorded(device, name):
    module, func = name.split(".")
    ours = getattr(getattr(np.polynomial, module), func)
    theirs = getattr(getattr(numpy.polynomial, module), func)
    c = tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64, device=device, requires_grad=True)
    x = numpy.asarray([0.5, 2.0])
    y = ours(tl.from_numpy(x).to(device), c)
    numpy.testing.assert_allclose(host_array(y.detach()), theirs(x, [1.0, 2.0, 3.0]))
    y.sum().backward()  # d/dc_k: the k-th basis function summed over x
    numpy.testing.assert_allclose(host_array(c.grad),
                                  [theirs(x, numpy.eye(3)[k]).sum() for k in range(3)])


@pytest.mark.parametrize("device", DEVICES)
def test_frompyfunc_methods_on_device_tensors(device, default_device):
    cat = np.frompyfunc(lambda a, b: a + b, 2, 1)
    x = np.asarray([1, 2, 3, 4])
    # object results stay NumPy's arrays, as frompyfunc's calls do
    assert cat.accumulate(x).astype(int).tolist() == [1, 3, 6, 10]
    assert cat.reduce(np.arange(5)) == 10
    outer = cat.outer(np.asarray([1, 2]), np.asarray([10, 20]))
    assert outer.astype(int).tolist() == [[11, 21], [12, 22]]


@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_on_the_emulated_device():
    run_emulated(__file__)


@pytest.mark.parametrize("device", DEVICES)
def test_dtype_questions_about_numbers_answer_as_numpy(device, default_device):
    """np.min_scalar_type(255) met its number as a 0-d device array and refused
    it (no host copy of device memory): a dtype question is answered by value,
    as NumPy answers it, whatever the default device."""
    for x in (255, -1, 70000, 1.5, 2 ** 40, True, 1j, numpy.float32(3.0)):
        assert np.min_scalar_type(x) == numpy.min_scalar_type(x), x
    # an array with dimensions answers with its dtype, a 0-d one by its value
    assert np.min_scalar_type(np.asarray([1, 2], dtype=np.int16)) == numpy.int16
    assert np.min_scalar_type(np.asarray(300)) == numpy.uint16
