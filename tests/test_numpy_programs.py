"""Small NumPy programs, written the way user code is, run once with NumPy and
once with ``torchlike.numpy``; NumPy is the oracle for values, dtypes and
shapes (0-d, empty, non-contiguous and broadcast operands included).

Each program is a function of the namespace ``np`` returning a tuple of
results.  They exercise idioms that real programs (exercise collections,
simulations, fitting code) use and that differed before: the mean/std/var
methods of integer and bool arrays, ``@`` of two dtypes, ``arange`` bounds
that are 0-d arrays, ``clip`` of integers to float bounds, ``lstsq``'s four
results, real ``eig`` results, ``np.lib.stride_tricks``, ``flags.writeable``,
formatting and ``round()`` of 0-d results, rounding to tens, sorting complex
numbers, counts computed by the program used as sizes, string choices, object
results of ``np.frompyfunc``, and the errors for dtypes torchlike does not
have (docs/numpy.md, "NumPy programs")."""
import numpy
import pytest

import torchlike
import torchlike.numpy as tnp
from oracle import DEVICE_REFUSALS, TEST_DEVICE


def _host(x):
    # .cpu() first: on a device suite's run (tests/conftest.py) results live on
    # the device, whose memory NumPy cannot read
    if isinstance(x, torchlike.Tensor):
        return x.detach().cpu().numpy()
    return x


def _moved(obj, move):
    if isinstance(obj, torchlike.Tensor):
        return move(obj)
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_moved(e, move) for e in obj)
    if hasattr(obj, "_fields"):  # NumPy's named results
        return type(obj)(*[_moved(e, move) for e in obj])
    if isinstance(obj, dict):
        return {k: _moved(v, move) for k, v in obj.items()}
    return obj


def host_step(np, name, fn, *args, **kwargs):
    """One step of a program that has no device version: on a device run
    (tests/conftest.py) ``fn`` must refuse with a TypeError naming the device
    (``name`` listed in tests/golden/device_refusals.txt, with the reason),
    and the step then runs on host copies of its operands, its tensor results
    moved back to the device, so that the rest of the program still runs
    there.  With NumPy, or on the CPU, it is the call itself."""
    if np is numpy or not TEST_DEVICE:
        return fn(*args, **kwargs)
    device = torchlike.get_default_device()
    assert name in DEVICE_REFUSALS, f"{name}: not listed in tests/golden/device_refusals.txt"
    with pytest.raises(TypeError, match=str(device)):
        fn(*args, **kwargs)
    result = fn(*_moved(args, lambda t: t.cpu()), **_moved(kwargs, lambda t: t.cpu()))
    return _moved(result, lambda t: t.to(device))


def host_program(program, name):
    """A program whose every step is host semantics (np.nditer's zero-copy
    views of host memory): on a device run ``name`` (listed in
    tests/golden/device_refusals.txt) must refuse the device's tensors with
    a TypeError naming the device, and the program runs with the CPU as the
    default device; elsewhere, ``_run(program)``."""
    if TEST_DEVICE:
        assert name in DEVICE_REFUSALS, f"{name}: not listed in tests/golden/device_refusals.txt"
        with pytest.raises(TypeError, match=str(torchlike.get_default_device())):
            program(tnp)
        with torchlike.device("cpu"):
            return _run(program)
    return _run(program)


def _same(expected, got, where):
    """NumPy's result against ours: same dtype, shape and values (a NumPy
    scalar matches a 0-d tensor, by design)."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected), where
        for i, (e, g) in enumerate(zip(expected, got)):
            _same(e, g, f"{where}[{i}]")
        return
    if isinstance(expected, (numpy.ndarray, numpy.generic)):
        assert isinstance(got, (torchlike.Tensor, numpy.ndarray, numpy.generic)), \
            f"{where}: {type(got).__name__} where NumPy gives an array"
        e, g = numpy.asarray(expected), numpy.asarray(_host(got))
        assert g.dtype == e.dtype, f"{where}: dtype {g.dtype}, NumPy {e.dtype}"
        assert g.shape == e.shape, f"{where}: shape {g.shape}, NumPy {e.shape}"
        if e.dtype.kind in "fc":
            numpy.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-9, err_msg=where)
        else:
            numpy.testing.assert_array_equal(g, e, err_msg=where)
        return
    assert type(got) is type(expected) and got == expected, f"{where}: {got!r} vs {expected!r}"


def _run(program):
    expected = program(numpy)
    got = program(tnp)
    _same(expected, got, program.__name__)


# ---- the mean, std and var methods of integer and bool arrays -----------------

def hit_rate(np):
    """Monte Carlo: the fraction of points inside a quarter circle, counted
    with a bool mask's mean; an integer tally's statistics."""
    pts = np.asarray(numpy.random.default_rng(0).random((400, 2)))
    inside = (pts ** 2).sum(axis=1) <= 1
    tally = np.arange(12).reshape(3, 4)
    cols = tally[:, ::2]                                  # non-contiguous
    return (inside.mean(), 4 * inside.mean(), tally.mean(), tally.mean(axis=0),
            cols.mean(axis=1), tally.mean(axis=1, keepdims=True), tally.std(), tally.var(),
            tally.std(axis=0), cols.var(axis=1), inside.std(), np.asarray(7).mean(),
            np.asarray([[3]], dtype=np.int8).mean(axis=0))


def walk_statistics(np):
    """Random walks of +-1 steps: the spread of the end points, from int data."""
    steps = np.asarray(numpy.random.default_rng(1).choice([-1, 1], size=(50, 30)))
    walks = steps.cumsum(axis=1)
    ends = walks[:, -1]
    return ends.mean(), ends.std(), walks.var(axis=0)[-5:], (walks.max(axis=1) >= 5).mean()


def test_integer_and_bool_statistics():
    _run(hit_rate)
    _run(walk_statistics)


def test_mean_of_an_empty_integer_array_is_nan_as_numpy():
    e = numpy.zeros((0, 3), dtype=numpy.int64)
    with numpy.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = e.mean(axis=0)
    got = tnp.asarray(e).mean(axis=0)
    _same(want, got, "empty mean")


def test_float_mean_keeps_pytorch_method():
    # a float tensor's mean(dim) is PyTorch's (the INTEGRAL rule applies to
    # bool and integer tensors only)
    x = torchlike.arange(6.0).reshape(2, 3)
    assert x.mean(1).dtype == torchlike.float32
    numpy.testing.assert_allclose(_host(x.mean(1)), [1.0, 4.0])
    # an integer tensor spelled PyTorch's way (dim=) gets PyTorch's refusal
    with pytest.raises(NotImplementedError, match="could not infer output dtype"):
        torchlike.arange(4).mean(dim=0)


# ---- @ with operands of two dtypes -------------------------------------------

def grayscale(np):
    """uint8 RGB pixels times float64 luminance weights, then back to uint8."""
    img = (np.arange(48).reshape(4, 4, 3) * 5).astype(np.uint8)
    weights = np.asarray([0.299, 0.587, 0.114])
    gray = img @ weights
    patch = img[::2, 1:3] @ weights                       # non-contiguous
    return gray, gray.astype(np.uint8), patch


def mixed_products(np):
    counts = np.arange(6).reshape(2, 3)                  # int64
    probs = np.asarray([[0.5, 0.5], [0.25, 0.75], [1.0, 0.0]])
    batch = np.ones((4, 2, 3), dtype=np.float32)         # broadcast batch
    return (counts @ probs, probs.T @ counts.T, batch @ probs, counts[0] @ probs,
            np.asarray([True, False, True]) @ probs)


def test_matmul_of_two_dtypes_promotes():
    _run(grayscale)
    _run(mixed_products)


def test_matmul_of_one_dtype_is_unchanged_and_errors_name_shapes():
    a = torchlike.ones(2, 3)
    assert (a @ torchlike.ones(3)).dtype == torchlike.float32
    with pytest.raises((ValueError, RuntimeError), match="3"):
        tnp.arange(6).reshape(2, 3) @ tnp.ones((2, 2))


def test_reflected_matmul_of_two_dtypes():
    left = numpy.arange(6.0).reshape(2, 3)
    right = numpy.arange(3, dtype=numpy.int64)
    want = left @ right
    got = tnp.asarray(left) @ tnp.asarray(right)
    _same(want, got, "f64 @ i64")
    _same(right @ left.T, tnp.asarray(right) @ tnp.asarray(left.T), "i64 @ f64")
    # Tensor.__rmatmul__ called directly (as Python does for a left operand
    # that is not a tensor subclass-wise): other @ self, promoted
    _same(want, tnp.asarray(right).__rmatmul__(tnp.asarray(left)), "reflected")


# ---- arange with 0-d array bounds ---------------------------------------------

def box_counts(np):
    """Box counting over a mask: the box sizes come from an int array, so each
    size is a 0-d array when the loop reads it."""
    mask = np.asarray(numpy.random.default_rng(2).random((32, 32))) < 0.3
    out = []
    for k in 2 ** np.arange(4, 1, -1):
        starts = np.arange(0, mask.shape[0], k)
        boxes = np.add.reduceat(np.add.reduceat(mask, starts, axis=0), starts, axis=1)
        out.append(starts)
        out.append(((boxes > 0) & (boxes < k * k)).sum())
    n = np.asarray(5)
    out += [np.arange(n), np.arange(1, n, np.asarray(2)), np.arange(np.asarray(2.5)),
            np.arange(np.asarray(0))]
    return tuple(out)


def test_arange_with_0d_bounds():
    _run(box_counts)
    with pytest.raises(TypeError, match="shape"):
        tnp.arange(tnp.arange(3))


# ---- clip of integer data with float bounds ------------------------------------

def clipped_pixels(np):
    """Contrast stretch: pixels clipped to percentile bounds (0-d float64
    results), to Python floats, to a float32 row, and integer bounds."""
    img = (np.arange(24).reshape(4, 6) * 11).astype(np.uint8)
    lo, hi = np.percentile(img, [10, 90])
    return (np.clip(img, lo, hi), np.clip(img, 20.5, None), np.clip(img[:, ::2], 10, 200),
            np.clip(img, np.zeros(6, dtype=np.float32) + 0.5, 100),
            np.clip(np.arange(3), 0.5, 1.5), np.clip(np.zeros((0, 2), dtype=np.int32), 0.5, 1),
            np.clip(np.asarray([True, False]), 0.25, None))


def test_clip_of_integers_with_float_bounds_promotes():
    _run(clipped_pixels)


# ---- lstsq and eig ----------------------------------------------------------

def line_fits(np):
    x = np.linspace(0, 4, 9)
    A = np.vstack([x, np.ones(len(x))]).T
    y = 2 * x - 1 + np.asarray([0.1, -0.2, 0.0, 0.3, -0.1, 0.2, 0.0, -0.3, 0.1])
    Y = np.stack([y, -y, 3 * x], axis=1)
    fit = np.linalg.lstsq(A, y, rcond=None)
    multi = np.linalg.lstsq(A, Y, rcond=None)
    deficient = np.linalg.lstsq(np.ones((4, 2)), np.arange(4.0), rcond=None)
    wide = np.linalg.lstsq(np.arange(6.0).reshape(2, 3), np.asarray([1.0, 2.0]), rcond=None)
    single = np.linalg.lstsq(A.astype(np.float32), y.astype(np.float32), rcond=None)
    return tuple(fit) + tuple(multi) + tuple(deficient) + tuple(wide) + tuple(single)


def test_lstsq_gives_numpys_four_results():
    _run(line_fits)


def spectra(np):
    sym = np.asarray([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    w, v = np.linalg.eig(sym)
    order = np.argsort(w)
    upper = np.triu(np.arange(1.0, 10.0).reshape(3, 3))
    rot = np.asarray([[0.0, -1.0], [1.0, 0.0]])
    wr, vr = np.linalg.eig(rot)
    return (w[order], np.abs(v[:, order]), np.sort(np.linalg.eigvals(upper)),
            np.sort(np.linalg.eigvals(np.eye(3, dtype=np.float32) * 2)),
            np.sort_complex(wr), np.abs(vr))


def test_eig_of_real_spectra_is_real():
    _run(spectra)


# ---- np.lib.stride_tricks -----------------------------------------------------

def windows(np, tricks):
    x = np.arange(10)
    moving = tricks.sliding_window_view(x, 3).mean(axis=-1)
    img = np.arange(36.0).reshape(6, 6)
    kernel = np.asarray([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
    lap = (tricks.sliding_window_view(img, (3, 3)) * kernel).sum(axis=(-2, -1))
    cols = tricks.sliding_window_view(img.T, 2, axis=0)          # non-contiguous
    rows = tricks.sliding_window_view(img, (2, 4), axis=(1, 0))
    step = x[1:].strides[0]
    rolling = tricks.as_strided(x[1:], shape=(4, 3), strides=(step, step))
    tiles = tricks.as_strided(img[::2], shape=(3, 2, 2), strides=(img.strides[0] * 2, 8, 16))
    empty = tricks.sliding_window_view(np.zeros((0, 3)), 2, axis=1)
    return moving, lap, cols, rows, rolling, tiles, empty


def test_stride_tricks_on_tensors():
    want = windows(numpy, numpy.lib.stride_tricks)
    got = windows(tnp, tnp.lib.stride_tricks)
    _same(want, got, "windows")
    with pytest.raises(ValueError, match="larger than input"):
        tnp.lib.stride_tricks.sliding_window_view(tnp.arange(3), 4)
    with pytest.raises(ValueError, match="multiples"):
        tnp.lib.stride_tricks.as_strided(tnp.arange(4), (2,), (3,))


def test_stride_tricks_views_share_memory_and_gradient():
    x = torchlike.arange(6.0, requires_grad=True)
    w = tnp.lib.stride_tricks.sliding_window_view(x, 2)
    w.sum().backward()
    numpy.testing.assert_allclose(_host(x.grad), [1, 2, 2, 2, 2, 1])
    y = tnp.zeros(5)
    tnp.lib.stride_tricks.as_strided(y, (2,), (16,))[:] = 7
    numpy.testing.assert_array_equal(_host(y), [7, 0, 7, 0, 0])


# ---- flags.writeable, __version__, formatting, frompyfunc ----------------------

def test_flags_writeable_assignment():
    for np in (numpy, tnp):
        z = np.zeros(4)
        z.flags.writeable = False
        assert z.flags.writeable is False
        with pytest.raises(ValueError, match="read-only"):
            z[0] = 1
        z.flags.writeable = True
        z[0] = 1
        assert float(z[0]) == 1.0


def test_version_is_numpys():
    assert tnp.__version__ == numpy.__version__


def report(np):
    x = np.arange(5) * 0.5
    total = x.sum()
    return (f"{total:.2f}", f"{x.mean():>8.3f}", "{:e}".format(x.max()), f"{np.asarray(7):d}",
            f"{x.argmax():03d}", f"{np.asarray(True)}", "%.1f|%d" % (x[1], np.asarray(3)),
            f"{total}")


def test_formatting_0d_results():
    _run(report)
    with pytest.raises(TypeError, match="unsupported format string"):
        format(tnp.arange(3), ".2f")
    assert f"{tnp.arange(3)}" == str(tnp.arange(3))


def test_frompyfunc_object_result_stays_numpys():
    def doubled(np):
        f = np.frompyfunc(lambda v: v * 2, 1, 1)
        r = f(np.arange(4))
        return r.dtype == object, r.astype(np.int64)
    want, got = doubled(numpy), doubled(tnp)
    assert want[0] and got[0]
    _same(want[1], got[1], "frompyfunc")


def test_equality_with_a_marker_string_is_false():
    """A list mixing results and "" separators, printed with `if out == "":`."""
    def lines(np):
        x = np.arange(6).reshape(2, 3)
        outs = [x.sum(), "", x.max(), "", x.mean()]
        return tuple(("sep" if (isinstance(o, str) and o == "") else
                      bool(o == "") or bool(o != "") and float(o)) for o in outs)
    assert lines(tnp) == lines(numpy)
    t = tnp.arange(3)
    assert (t == "abc") is False and (t != "abc") is True and ("abc" == t) is False
    with pytest.raises(TypeError):
        t < "abc"


def rounding_report(np):
    """Python's round() of reduction results, rounding to tens, a fresh view."""
    sales = np.asarray([[17, 25, -35], [150, 44, 65]])
    avg = sales.mean()
    rounded = np.round(sales, -1)
    alias = sales[:, ::2].view()
    alias[0, 0] = 0
    return (round(avg), round(avg, 2), round(sales[1, 0], -2), round(sales.max()),
            rounded, np.around(sales.astype(np.int8), -1), sales.round(-2), alias, sales,
            np.round(np.zeros((0,), dtype=np.int32), -1))


def test_round_and_view_idioms():
    _run(rounding_report)
    with pytest.raises(TypeError, match="np.round"):
        round(tnp.arange(3.0))


def test_choice_and_permutation_of_strings_are_numpys_arrays():
    for rng in (tnp.random.default_rng(5), tnp.random.RandomState(5)):
        flips = rng.choice(["H", "T"], size=(3, 4))
        assert isinstance(flips, numpy.ndarray) and flips.shape == (3, 4)
        assert set(flips.ravel()) <= {"H", "T"}
        one = rng.choice(["a", "b", "c"], p=[0.0, 1.0, 0.0])
        assert one == "b"
        perm = rng.permutation(["x", "y", "z"])
        assert sorted(perm) == ["x", "y", "z"] and perm.dtype.kind == "U"
    picked = tnp.random.default_rng(1).choice([["a", "b"], ["c", "d"]], 3, axis=1)
    assert picked.shape == (2, 3) and set(picked[0]) <= {"a", "b"}
    assert tnp.random.default_rng(1).choice(["a", "b"], 0).shape == (0,)


def spectrum_order(np):
    """Eigenvalues of a rotation-like matrix ordered as NumPy orders complex
    numbers (real part, then imaginary part), along rows, columns, flattened,
    descending by index reversal; and Fortran-ordered copies."""
    z = np.asarray([[3 + 1j, 1 + 2j, 1 - 1j, 3 + 0j], [0j, -1 + 5j, -1 - 5j, 2j]])
    w = np.linalg.eigvals(np.asarray([[0.0, -2.0], [2.0, 0.0]]))
    grid = np.arange(12.0).reshape(3, 4)
    return (np.sort(z), np.sort(z, axis=0), np.sort(z, axis=None), np.argsort(z),
            np.argsort(z[:, ::-1], axis=0), np.sort(w), np.argsort(w)[::-1],
            np.sort(np.zeros((0, 2), dtype=np.complex64)),
            np.copy(grid, order="F").strides, np.copy(grid.T).strides,
            np.copy(grid.T, order="C").strides, np.copy(grid[:, ::2], order="F"))


def test_sorting_complex_numbers_and_fortran_copies():
    _run(spectrum_order)


def test_string_functions_are_numpys():
    assert tnp.char.upper(numpy.asarray(["ab", "c"])).tolist() == ["AB", "C"]
    assert tnp.strings.str_len(["abc"]).tolist() == [3]


def counts_as_sizes(np):
    """A count computed by the program (a 0-d integer result) used where
    NumPy code uses a Python int: repetitions, sections, a population."""
    x = np.arange(9.0)
    n = np.sum(x > 5)                       # 3, a 0-d result
    label = "ab" * n
    parts = np.split(x, n)
    chunks = np.array_split(x[::2], n)
    draws = np.random.default_rng(4).choice(n, 5)
    return (np.tile(x[:2], n), np.tile(x[:2], (2, n)), label, len(parts), parts[-1],
            [c.shape for c in chunks], draws.shape, bool((draws < 3).all()), np.zeros(n),
            np.eye(n)[n - 1], x[:n], np.repeat(x[:2], n))


def test_counts_computed_by_the_program_work_as_sizes():
    expected, got = counts_as_sizes(numpy), counts_as_sizes(tnp)
    _same(expected[:6], got[:6], "counts")
    assert got[6] == (5,) and got[7]
    _same(expected[8:], got[8:], "counts")
    with pytest.raises(TypeError, match="unsupported operand"):
        tnp.arange(3) + "a"


# ---- dtypes torchlike does not have: clear errors -------------------------------

@pytest.mark.parametrize("name, words", [
    ("longdouble", "float128"), ("clongdouble", "complex256"),
    ("datetime64", "datetime64"), ("timedelta64", "timedelta64"),
    ("object_", "object"), ("str_", "string"), ("void", "raw bytes")])
def test_missing_scalar_types_name_what_is_missing(name, words):
    assert not hasattr(tnp, name)
    with pytest.raises(AttributeError, match=words):
        getattr(tnp, name)


@pytest.mark.parametrize("make, words", [
    (lambda: tnp.zeros(3, dtype=[("x", float), ("y", float)]), "structured dtype, fields x, y"),
    (lambda: tnp.asarray(numpy.zeros(2, "M8[D]")), "datetime64"),
    (lambda: tnp.asarray(["ab", "c"]), "string"),
    (lambda: tnp.asarray(numpy.array([1, "a"], dtype=object)), "object"),
    (lambda: tnp.arange(3, dtype="longdouble"), "float128"),
    (lambda: tnp.asarray([[1], [2, 3]]), "inhomogeneous"),   # NumPy's own ValueError
])
def test_missing_dtypes_raise_type_errors_naming_them(make, words):
    with pytest.raises((TypeError, ValueError), match=words):
        make()
