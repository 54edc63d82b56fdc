"""NumPy programs, third round: kinds the first two rounds
(tests/test_numpy_programs.py, tests/test_numpy_programs2.py) do not cover --
signal processing, uint8/uint16 image processing, data wrangling, numerical
methods, random-number programs, printing and iteration -- run once with
NumPy and once with ``torchlike.numpy``; NumPy is the oracle for values,
dtypes and shapes (docs/numpy.md, "NumPy programs").

Programs are written as NumPy code is, except where the result would only
show a difference docs/numpy.md already names (PyTorch's promotion of an
integer array with a Python float, ``x.sum()`` of unsigned integers): there
the program spells its float64 data as NumPy code often does (``np.arange(64.0)``)."""
import numpy
import pytest

import torchlike
import torchlike.numpy as tnp
from test_numpy_programs import _run, _same, host_program, host_step

_RNG = numpy.random.default_rng(3)
IMG8 = _RNG.integers(0, 256, (6, 7), dtype=numpy.uint8)
IMG16 = _RNG.integers(0, 65536, (5, 4), dtype=numpy.uint16)
RGB = _RNG.integers(0, 256, (4, 5, 3), dtype=numpy.uint8)
KEYS = _RNG.integers(0, 5, 20)
VALS = _RNG.random(20)
ROWS = _RNG.integers(0, 3, (10, 2))


# ---- signal processing -----------------------------------------------------------

def spectrum(np):
    """Two tones: the spectrum's peak, the inverse transform, frequency axes."""
    t = np.arange(64.0) / 64
    x = np.sin(2 * np.pi * 5 * t) + 0.5 * np.cos(2 * np.pi * 12 * t)
    X = np.fft.rfft(x)
    f = np.fft.rfftfreq(64, d=1 / 64)
    z = np.asarray([1 + 1j, 2, 3 - 1j, 4j, 0])
    m = np.arange(24.0).reshape(2, 3, 4)
    return (X, f, f[np.argmax(np.abs(X))], np.fft.irfft(X, n=64), np.fft.fftfreq(8),
            np.fft.fftfreq(7, d=0.5), np.fft.fftshift(np.fft.fftfreq(8)),
            np.fft.ifftshift(np.arange(7)),
            np.fft.fft(np.arange(8)), np.fft.rfft(np.arange(8), n=10),
            np.fft.fft(np.arange(8), norm="ortho"),
            np.fft.fft2(np.arange(12).reshape(3, 4)), np.fft.rfftn(np.ones((2, 3, 4)), axes=(0, 2)),
            np.fft.fft(np.arange(8, dtype=np.float32)), np.fft.hfft(np.asarray([1, 2j, 3])),
            np.fft.fftshift(np.arange(12).reshape(3, 4), axes=0), np.fft.ifft(z),
            np.fft.fft(z, n=3),
            np.fft.irfft(np.asarray([1, 2, 3]), n=5), np.fft.fftn(m, s=(2, 2), axes=(1, 2)),
            np.fft.fft(m[:, ::2, 1], axis=0), np.fft.rfft(np.arange(8, dtype=np.int32)),
            np.fft.fft(m, norm="forward", axis=1), np.fft.ihfft(np.arange(5.0)),
            np.fft.irfft(np.fft.rfft(np.arange(7.0)), 7), np.fft.rfftfreq(9, 0.1))


def filters(np):
    """Convolution and correlation modes, moving averages, a median filter,
    an exponential average and zero crossings."""
    a = np.asarray([1, 2, 3, 4, 5])
    k = np.asarray([0.25, 0.5, 0.25])
    x = np.asarray([3.0, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
    ma = np.convolve(x, np.ones(3) / 3, mode="valid")
    med = np.median(np.lib.stride_tricks.sliding_window_view(np.pad(x, 1, mode="edge"), 3), axis=1)
    ema = np.zeros_like(x)
    ema[0] = x[0]
    for i in range(1, len(x)):
        ema[i] = 0.3 * x[i] + 0.7 * ema[i - 1]
    crossings = np.nonzero(np.diff(np.sign(x - x.mean())))[0]
    return (np.convolve(a, k), np.convolve(a, k, "same"), np.convolve(a, k, mode="valid"),
            np.correlate(a, k), np.correlate(a, k, "full"), np.correlate(a, [1, 2], "same"),
            np.convolve(a, a), np.convolve([1, 2], a, "valid"),
            np.correlate(np.asarray([1 + 1j, 2]), np.asarray([1j, 1]), "full"),
            np.convolve(a.astype(np.float32), k.astype(np.float32)), np.convolve(a, [True, False]),
            np.convolve(np.ones(3, dtype=np.int8), np.ones(3, dtype=np.int8)),
            ma, med, ema, crossings, np.diff(x, n=2), np.diff(x, prepend=0),
            np.diff(x, append=x[-1]),
            np.ediff1d(x, to_begin=[0]))


def windows_and_phases(np):
    """Window functions, a windowed spectrogram, interpolation with bounds and
    a period, phase unwrapping."""
    sig = np.sin(np.linspace(0, 40, 256))
    frames = np.lib.stride_tricks.sliding_window_view(sig, 32)[::16] * np.hanning(32)
    power = np.abs(np.fft.rfft(frames, axis=-1)) ** 2
    xp = np.asarray([0.0, 1.0, 2.0, 3.0])
    fp = np.asarray([0, 10, 5, 0])
    x = np.linspace(-1, 4, 11)
    phase = np.linspace(0, 6 * np.pi, 20) % (2 * np.pi)
    return (np.hanning(8), np.hamming(7), np.blackman(5), np.bartlett(6), np.kaiser(6, 14),
            np.hanning(1),
            np.hanning(0), np.kaiser(5, 0.0), power.shape,
            np.round(10 * np.log10(power + 1e-12), 3),
            np.argmax(power, axis=1), np.interp(x, xp, fp), np.interp(x, xp, fp, left=-1, right=99),
            np.interp(2.5, xp, fp),
            np.interp(np.asarray([0, 180, 370]), np.asarray([350.0, 10.0, 30.0]),
                                              np.asarray([1.0, 2, 3]), period=360),
            np.interp(x, xp, fp.astype(np.float32)), np.interp(x, xp, fp + 1j),
            np.interp(np.arange(3), [0, 1, 2], [1, 2, 3]), np.unwrap(phase),
            np.unwrap(np.asarray([0, 3, 6, 1, 4]), period=6),
            np.unwrap(np.asarray([0, 170, 350, 10]), period=360),
            np.unwrap(np.asarray([[0.0, 3.0, 6.5], [1.0, 7.0, 1.0]]), axis=0),
            np.unwrap(phase, discont=4.0))


def fft_filtering(np):
    """2-d convolution through the FFT (zero padded), a separable window."""
    img = np.arange(30.0).reshape(5, 6)
    k = np.asarray([[1.0, 2, 1], [0, 0, 0], [-1, -2, -1]])
    full = np.fft.irfft2(np.fft.rfft2(img, s=(7, 8)) * np.fft.rfft2(k, s=(7, 8)), s=(7, 8))
    return (np.round(full, 8), np.outer(np.hanning(5), np.hanning(5)), np.kron(np.eye(2), k),
            np.fft.irfftn(np.fft.rfftn(img), s=img.shape, axes=(0, 1)), np.fft.ifft2(img))


def test_signal_processing():
    _run(spectrum)
    _run(filters)
    _run(windows_and_phases)
    _run(fft_filtering)


# ---- images of uint8 and uint16 pixels ---------------------------------------------

def histograms(np):
    """Histogram equalisation, co-occurrence counts, binning of pixel values."""
    img = np.asarray(IMG8)
    h, edges = np.histogram(img, bins=8, range=(0, 256))
    cdf = h.cumsum()
    H, xe, ye = np.histogram2d(img[:, :-1].ravel(), img[:, 1:].ravel(), bins=4,
                               range=[[0, 256], [0, 256]])
    return (h, edges, np.histogram(img, bins=[0, 50, 100, 255]),
            np.histogram(img, bins=5, density=True),
            (cdf[img // 32] * 255 // cdf[-1]).astype(np.uint8), H, xe, ye,
            np.digitize(img, [64, 128, 192]),
            np.digitize(img, [64, 128, 192], right=True),
            np.bincount(img.ravel() // 16, minlength=16),
            np.histogram(img, bins=4, weights=img.astype(float)),
            np.histogram_bin_edges(img, bins="auto"))


def lookup_tables(np):
    """Gamma, inversion and equalisation tables applied by indexing with the
    pixels; Otsu's threshold."""
    img = np.asarray(IMG8)
    gamma = (255 * (np.arange(256) / 255.0) ** 0.5).astype(np.uint8)
    inv = np.arange(255, -1, -1, dtype=np.uint8)
    cdf = np.cumsum(np.bincount(img.ravel(), minlength=256))
    eq = np.round((cdf - cdf.min()) * 255 / (cdf.max() - cdf.min())).astype(np.uint8)
    hist, _ = np.histogram(img, bins=256, range=(0, 256))
    p = hist / hist.sum()
    omega, mu = np.cumsum(p), np.cumsum(p * np.arange(256.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mu[-1] * omega - mu) ** 2 / (omega * (1 - omega))
    t = np.nanargmax(between)
    return (gamma[img], np.take(gamma, img), inv[img], eq[img], cdf[-1],
            np.searchsorted(cdf, [0.25 * cdf[-1], 0.5 * cdf[-1]]), np.take(inv, img[:, ::2]),
            gamma[img.ravel()[:5]], np.interp(img, [0, 128, 255], [0, 200, 255]).astype(np.uint8),
            np.where(img > 128, np.uint8(255), np.uint8(0)), (img > t).astype(np.uint8) * 255)


def uint16_images(np):
    """A 16-bit sensor image: scaling, byte halves, saturation, statistics."""
    img = np.asarray(IMG16)
    f = img.astype(np.float32) / 65535
    return (f, np.round(f * 65535).astype(np.uint16), (img >> 8).astype(np.uint8), img & 0xFF,
            img + np.uint16(1000),
            np.minimum(img.astype(np.uint32) + 1000, 65535).astype(np.uint16),
            np.abs(img.astype(np.int32) - img[::-1].astype(np.int32)), img.astype(np.int16),
            np.sort(img, axis=None)[:5], np.argsort(img.ravel(), kind="stable")[:5],
            np.unique(img >> 14, return_counts=True), np.max(img, axis=0), np.sum(img), img.mean(),
            np.cumsum(img, axis=1, dtype=np.uint32), np.mean(img, axis=1), img.T.copy().ravel(),
            np.searchsorted(np.sort(img.ravel()), np.uint16(30000)), np.histogram(img, bins=4)[0],
            np.percentile(img, 50), np.median(img), img.view(np.int16)[0], img.byteswap()[0])


def padding_and_geometry(np):
    """np.pad's modes on uint8 pixels; rotations, flips and channel moves."""
    a = np.arange(6, dtype=np.uint8).reshape(2, 3)
    rgb = np.asarray(RGB)
    return (np.pad(a, 1, mode="reflect"), np.pad(a, ((1, 0), (2, 1)), mode="edge"),
            np.pad(a, 2, mode="wrap"),
            np.pad(a.astype(float), 2, mode="linear_ramp", end_values=(5, -1)),
            np.pad(a, (1, 2), mode="symmetric"),
            np.pad(a, 1, mode="constant", constant_values=255), np.pad(a, 1, mode="maximum"),
            np.pad(a, 1, mode="mean"),
            np.pad(a, ((0, 0), (3, 3)), mode="reflect", reflect_type="odd"),
            np.pad(a, 1, mode="minimum"), np.pad(a, 1, mode="median"),
            np.pad(a, 1, mode="empty").shape,
            np.pad(np.arange(5), (2, 3), mode="linear_ramp"), np.rot90(rgb),
            np.rot90(rgb, k=-1, axes=(0, 1)),
            np.rot90(rgb, 2, (1, 0)), np.flip(rgb, axis=2), np.flipud(rgb), np.fliplr(rgb),
            rgb[::-1, :, ::-1].copy(),
            np.transpose(rgb, (2, 0, 1)), np.swapaxes(rgb, 0, 1)[0], rgb.mean(axis=(0, 1)),
            rgb.astype(np.float32).mean(axis=2),
            (rgb * np.asarray([0.2126, 0.7152, 0.0722])).sum(-1).astype(np.uint8))


def percentiles(np):
    """Contrast bounds by every percentile method NumPy has."""
    img = np.asarray(IMG8)
    out = [np.percentile(img, [5, 50, 95], method=m) for m in (
        "linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
        "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
        "normal_unbiased")]
    out += [np.percentile(img, 30, axis=0, keepdims=True),
            np.quantile(img.astype(np.float32), 0.25, axis=1),
            np.nanpercentile(np.where(img > 200, np.nan, img.astype(float)), 50, axis=1)]
    return out


def filters_and_masks(np):
    """3x3 filters over sliding windows; binary morphology on a mask; bit
    planes packed and unpacked."""
    img = np.asarray(IMG8).astype(np.int32)
    w = np.lib.stride_tricks.sliding_window_view(img, (3, 3))
    mask = np.asarray(IMG8) > 128
    mw = np.lib.stride_tricks.sliding_window_view(np.pad(mask, 1), (3, 3))
    ero = mw.all(axis=(-2, -1))
    b = np.asarray([0b10110000, 0b00000001, 255], dtype=np.uint8)
    bits = np.unpackbits(b)
    return (w.mean(axis=(-1, -2)), w.max(axis=(-1, -2)), np.median(w, axis=(-1, -2)),
            (w * np.asarray([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])).sum(axis=(-1, -2)),
            img[:6, :6].reshape(3, 2, 3, 2).max(axis=(1, 3)), np.gradient(img.astype(float)),
            mw.any(axis=(-2, -1)), ero, np.cumsum(mask.ravel()).reshape(mask.shape) * mask,
            mask ^ ero,
            np.argwhere(mask ^ ero)[:4], np.packbits(mask, axis=1), bits, np.packbits(bits),
            np.unpackbits(b, bitorder="little"), np.packbits(np.asarray([1, 0, 1])),
            np.bitwise_count(b),
            np.invert(b), ~b, b << 1, b >> np.uint8(2), np.right_shift(b.astype(np.uint16), 4),
            b & 0x0F,
            b ^ np.uint8(255), np.bitwise_and.reduce(b), np.bitwise_xor.accumulate(b),
            np.unpackbits(b, count=5), np.packbits(np.ones(3, dtype=bool), bitorder="little"))


def small_integer_data(np):
    """NumPy's float ufuncs of 8- and 16-bit integers give float16 and
    float32 (deg2rad, cbrt, modf, frexp, angle gave float64); sinc and
    heaviside, whose code mixes in a Python float, give float64."""
    headings = np.asarray([0, 90, 180, 270, 359], dtype=np.int16)
    img = np.asarray(IMG8[:2, :4])
    codes = np.asarray([-3, 0, 7], dtype=np.int8)
    return (np.deg2rad(headings), np.radians(codes), np.rad2deg(codes),
            np.degrees(headings.astype(np.uint16)),
            np.cbrt(img), np.cbrt(headings), np.modf(codes), np.frexp(img), np.ldexp(codes, 2),
            np.spacing(img),
            np.angle(codes), np.angle(headings, deg=True), np.angle(np.asarray([True, False])),
            np.sinc(codes), np.heaviside(codes, 0.5), np.deg2rad(np.arange(3)),
            np.cbrt(np.arange(3, dtype=np.int32)))


def edits_through_views(np):
    """Image edits written into views of the image: NumPy's flips and
    rot90 are views (they were copies, so the writes were lost), as are
    slices, transposes, reshapes and splits; fancy indexing copies."""
    out = []
    writes = [("neg step", lambda a: a[::-1].__setitem__((0, 0), -1)),
              ("flip", lambda a: np.flip(a).__setitem__((0, 0), -1)),
              ("flip axis", lambda a: np.flip(a, axis=1).__setitem__((1, 0), -1)),
              ("fliplr", lambda a: np.fliplr(a).__setitem__((0, 0), -1)),
              ("flipud", lambda a: np.flipud(a)[0].fill(-1)),
              ("rot90", lambda a: np.rot90(a).__setitem__((0, 0), -1)),
              ("rot90 k=2", lambda a: np.rot90(a, 2)[:, 0].fill(-1)),
              ("rot90 k=-1", lambda a: np.rot90(a, -1, axes=(1, 0)).__setitem__((1, 2), -1)),
              ("T", lambda a: a.T.__setitem__((0, 1), -1)),
              ("swapaxes", lambda a: np.swapaxes(a, 0, 1).__setitem__((0, 1), -1)),
              ("moveaxis", lambda a: np.moveaxis(a, 0, 1).__setitem__((0, 1), -1)),
              ("reshape", lambda a: a.reshape(4, 3).__setitem__((0, 1), -1)),
              ("ravel", lambda a: np.ravel(a).__setitem__(1, -1)),
              ("expand_dims", lambda a: np.expand_dims(a, 0).__setitem__((0, 0, 1), -1)),
              ("split", lambda a: np.split(a, 3)[1].__setitem__((0, 0), -1)),
              ("hsplit", lambda a: np.hsplit(a, 2)[1].__setitem__((0, 0), -1)),
              ("asarray", lambda a: np.asarray(a).__setitem__((0, 0), -1)),
              ("array", lambda a: np.array(a).__setitem__((0, 0), -1)),
              ("real", lambda a: a.real.__setitem__((0, 0), -1)),
              ("fancy", lambda a: a[[0, 1]].__setitem__((0, 0), -1)),
              ("mask", lambda a: a[a > 5].__setitem__(0, -1)),
              ("roll", lambda a: np.roll(a, 1).__setitem__((0, 0), -1)),
              ("unstack", lambda a: np.unstack(a)[0].__setitem__(0, -1)),
              ("take", lambda a: np.take(a, [0], axis=0).__setitem__((0, 0), -1))]
    for name, write in writes:
        a = np.arange(12.0).reshape(3, 4)
        write(a)
        out.append((name, a))
    img = np.asarray(IMG8).copy()
    np.fliplr(img)[:, :2] = 0                     # blank the right edge
    np.rot90(img)[0] = 255                        # the last column, seen rotated
    return out + [img, np.flip(np.arange(6)).strides, np.rot90(np.arange(6).reshape(2, 3)).strides]


def test_image_processing():
    _run(histograms)
    _run(lookup_tables)
    _run(uint16_images)
    _run(padding_and_geometry)
    _run(percentiles)
    _run(filters_and_masks)
    _run(small_integer_data)
    _run(edits_through_views)
    # documented collision: Tensor.flatten is PyTorch's (a view when it can be)
    a = tnp.arange(4.0)
    a.flatten()[0] = 7
    assert float(a[0]) == 7 and numpy.arange(4.0).flatten().base is None


def test_documented_promotions_of_image_code():
    """What docs/numpy.md names as PyTorch's: the Tensor method's sum of
    unsigned pixels is int64 (np.sum gives NumPy's uint64), and an integer
    image with a Python float is float32."""
    img = tnp.asarray(IMG16)
    assert img.sum().dtype == tnp.int64 and tnp.sum(img).dtype == tnp.uint64
    assert int(img.sum()) == int(IMG16.sum(dtype=numpy.uint64))
    assert (tnp.asarray(IMG8) / 255.0).dtype == tnp.float32
    assert tnp.where(tnp.asarray(IMG8) > 200, tnp.nan, tnp.asarray(IMG8)).dtype == tnp.float32


# ---- data wrangling ------------------------------------------------------------------

def group_by(np):
    """Per-key totals, maxima and means by unique/inverse, ufunc.at and
    reduceat over a sort by key."""
    keys, vals = np.asarray(KEYS), np.asarray(VALS)
    u, inv, cnt = np.unique(keys, return_inverse=True, return_counts=True)
    sums = np.zeros(len(u))
    np.add.at(sums, inv, vals)
    mx = np.full(len(u), -np.inf)
    np.maximum.at(mx, inv, vals)
    order = np.argsort(keys, kind="stable")
    starts = np.r_[0, np.cumsum(cnt)[:-1]]
    rows = np.asarray(ROWS)
    ur, idx, rinv, rcnt = np.unique(rows, axis=0, return_index=True, return_inverse=True,
                                    return_counts=True)
    return (u, inv, cnt, sums, mx, np.add.reduceat(vals[order], starts),
            np.unique(keys, return_index=True)[1],
            np.bincount(inv, weights=vals) / cnt, ur, idx, rinv, rcnt, np.unique(rows.T, axis=1),
            np.sort(np.unique_values(rows.ravel())), tuple(np.unique_counts(rows.ravel())),
            tuple(np.unique_inverse(rows)), tuple(np.unique_all(rows.ravel())),
            np.unique(np.asarray([2.0, np.nan, 1.0, np.nan])),
            np.unique(np.asarray([2.0, np.nan, np.nan]), equal_nan=False))


def orderings(np):
    """Sorting by two keys, top-k by partition, lookups through a sorter,
    splits into chunks."""
    surname = np.asarray([3, 1, 2, 1, 3, 2])
    first = np.asarray([1, 2, 1, 1, 0, 1])
    x = np.asarray([9, 1, 7, 3, 8, 2, 6])
    part = np.partition(x, (1, 4))
    s = np.asarray([5, 1, 3, 4, 2])
    sorter = np.argsort(s)
    v = np.arange(10)
    m = np.arange(24).reshape(4, 6)
    return (np.lexsort((first, surname)), np.lexsort(np.asarray([first, surname])),
            np.sort(np.argpartition(x, 3)[:3]), np.sort(x[np.argpartition(x, -3)[-3:]]), part[1],
            part[4],
            np.searchsorted(s, [0, 3, 3.5, 9], sorter=sorter),
            np.searchsorted(s, np.asarray([[3, 1]]), side="right", sorter=sorter),
            np.argsort(-x, kind="stable"), np.sort(x)[::-1],
            np.argmin(np.asarray([[3, 1], [0, 5]]), axis=1),
            np.split(v, [3, 7]), np.array_split(v, 3), np.array_split(v, 4), np.split(m, 3, axis=1),
            np.array_split(m, [1, 5], axis=1), np.hsplit(m, 2), np.vsplit(m, [1]),
            np.dsplit(np.arange(8).reshape(1, 2, 4), 2), np.array_split(np.arange(0), 3),
            np.split(v, [3, 20]))


def ufunc_methods(np):
    """at, accumulate, reduceat and outer of several ufuncs."""
    x = np.arange(1, 7)
    m = np.arange(12).reshape(3, 4)
    counts = np.zeros(5, dtype=np.int64)
    np.add.at(counts, [0, 1, 1, 4, 4, 4], 1)
    y = np.ones(4)
    np.subtract.at(y, [0, 0, 2], np.asarray([1.0, 2.0, 3.0]))
    z = np.zeros((3, 3))
    np.add.at(z, (np.asarray([0, 1, 1]), np.asarray([2, 0, 0])), 5)
    mm = np.asarray([5, 5, 5])
    np.minimum.at(mm, [0, 2], [1, 9])
    return (np.add.accumulate(x), np.multiply.accumulate(x),
            np.maximum.accumulate(np.asarray([1, 3, 2, 5, 4])),
            np.add.accumulate(m, axis=1), np.add.reduceat(x, [0, 2, 5]),
            np.add.reduceat(x, [0, 4, 1, 5]),
            np.maximum.reduceat(m, [0, 2], axis=1), np.multiply.outer(x[:3], x[:2]),
            np.subtract.outer(np.arange(3), np.arange(2.0)), np.equal.outer(x[:3], x[:3]),
            np.add.reduce(m, axis=(0, 1)), np.logical_and.reduce(m > 0, axis=0), counts, y, z, mm,
            np.bitwise_or.reduce(np.asarray([1, 2, 8])),
            np.add.outer(np.arange(2), np.arange(3)).shape,
            np.minimum.accumulate(m[::-1], axis=0))


def ufunc_objects(np):
    """Code that checks isinstance(f, np.ufunc) before calling its methods
    (np.ufunc did not exist), and reductions of more ufuncs."""
    m = np.arange(1, 13).reshape(3, 4)
    f = np.asarray([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])

    def fold(func, values):
        return func.reduce(values) if isinstance(func, np.ufunc) else func(values)
    return (isinstance(np.add, np.ufunc), isinstance(np.sum, np.ufunc),
            isinstance(np.frompyfunc(abs, 1, 1), np.ufunc),
            fold(np.maximum, m), fold(np.sum, m), np.add.identity, np.multiply.identity,
            np.maximum.identity,
            np.add.nin, np.add.nout, np.add.__name__, np.add.reduce(m, keepdims=True, axis=1),
            np.add.reduce(m, axis=None),
            np.maximum.reduce(np.zeros((0, 2)), axis=0, initial=-1.0),
            np.add.accumulate(m, dtype=np.float64),
            np.logaddexp.reduce(np.log(np.arange(1.0, 4))),
            np.hypot.reduce(np.asarray([3.0, 4.0, 12.0])),
            np.subtract.reduce(np.asarray([10, 1, 2])),
            np.divide.accumulate(np.asarray([64.0, 2, 4])),
            np.power.outer(np.arange(3), np.arange(3)),
            np.arctan2.outer(np.asarray([1.0, -1]), np.asarray([1.0, 2])),
            np.greater.outer(np.arange(3), np.arange(3)),
            np.logical_xor.reduce(np.asarray([True, True, False])),
            np.gcd.reduce(np.asarray([12, 18, 24])), np.lcm.reduce(np.asarray([4, 6, 10])),
            np.bitwise_and.reduce(m, axis=None),
            np.minimum.reduce(m, axis=None), np.fmax.reduce(f, axis=1),
            np.fmin.accumulate(f, axis=1), np.maximum.reduce(f, axis=1),
            np.multiply.reduceat(np.arange(1, 7), [4, 1]), np.add.reduce(m, dtype=np.float32),
            np.add.reduce(np.ones(3, dtype=np.uint8)),
            np.multiply.reduce(np.full(10, 3, dtype=np.int8)),
            np.add.reduce(m, axis=-1, out=np.zeros(3, dtype=np.int64)),
            np.equal.reduce(np.asarray([True, False, False])),
            np.minimum.reduceat(m, [0, 2], axis=0),
            np.logical_or.accumulate(np.asarray([False, True, False])),
            np.add.reduce([[1, 2], [3, 4]]),
            np.maximum.accumulate(np.asarray([[3, 1], [2, 5]]), axis=1), np.negative.nin,
            np.divmod.nout)


def selections_and_sets(np):
    """where/select/piecewise with broadcasting; membership and set algebra;
    age bands."""
    x = np.linspace(-2, 2, 9)
    a = np.arange(6).reshape(2, 3)
    p = np.asarray([1, 5, 3, 7, 3, 9])
    q = np.asarray([3, 4, 5, 10])
    ages = np.asarray([3, 17, 18, 25, 64, 65, 90])
    edges = np.asarray([0, 18, 65])
    labels = np.searchsorted(edges, ages, side="right") - 1
    return (np.where(a > 2, a, -a), np.where(a[:, :1] > 0, a, np.asarray([10, 20, 30])),
            np.where(x > 0),
            np.where(a > 10, 1.5, a.astype(float)),
            np.select([x < -1, x > 1], [x ** 2, -x], default=0.5),
            np.select([a > 3, a > 1], [a * 10, a], 0),
            np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]),
            np.piecewise(x, [x < -1, x > 1], [0, 1, 0.5]),
            np.piecewise(a, [a < 2], [lambda v: v * 100, -1]),
            np.isin(p, q), np.isin(p, q, invert=True), np.isin(p.reshape(2, 3), [3, 9]),
            np.setdiff1d(p, q),
            np.intersect1d(p, q), np.intersect1d(p, q, return_indices=True), np.union1d(p, q),
            np.setxor1d(p, q),
            np.isin(p, q, kind="table"), np.isin(p.astype(np.float32), [3.0]),
            np.intersect1d([1, 2, 2], [2, 2, 3], assume_unique=True), labels, np.bincount(labels),
            np.digitize(ages, edges) - 1, np.histogram(ages, bins=edges)[0])


def complex_order(np):
    """Eigenvalues and roots compared, clipped and matched in NumPy's order
    of complex numbers (real part, then imaginary part; a NaN in either part
    compares False): the comparisons, extrema, clip, searchsorted,
    intersect1d and setxor1d raised for complex input."""
    z = np.roots(np.asarray([1.0, 0.0, 1.0, 2.0, 1.0]))
    w = np.asarray([1 + 1j, 1 + 1j, 0 + 5j, 3j, 0j, 2 + 0j, np.nan])
    v = np.asarray([1 + 2j, 1 - 1j, 0 + 5j, 2 + 0j, 1 + 2j, np.nan + 1j, 1 + np.nan * 1j])
    s = np.sort(v[:5])
    return (np.sort(z), np.greater(z, 0), np.maximum(v, w), np.minimum(v, w), np.fmax(v, w),
            np.fmin(v, w), np.less(v, w),
            np.less_equal(v, w), np.greater(v, w), np.greater_equal(v, w), np.maximum(v, 1 + 1j),
            np.less(2.0, v),
            np.maximum(v, w.real), np.maximum(v.astype(np.complex64), np.float32(1)),
            np.clip(v, 1, 2 + 2j),
            np.clip(v[:5], w[:5], None), np.searchsorted(s, w), np.searchsorted(s, w, side="right"),
            np.searchsorted(v[:5], w, sorter=np.argsort(v[:5])), np.searchsorted(s, w[0]),
            np.intersect1d(v[:5], w), np.intersect1d(v[:5], w[:6], return_indices=True),
            np.setxor1d(v[:5], w[:6]))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # NumPy's, comparing NaNs
def test_data_wrangling():
    _run(group_by)
    _run(orderings)
    _run(ufunc_methods)
    _run(ufunc_objects)
    with pytest.raises(TypeError, match="cannot create"):
        tnp.ufunc()
    _run(selections_and_sets)
    _run(complex_order)


# ---- numerical methods ---------------------------------------------------------------

def iterations(np):
    """Newton's square roots to convergence, a polynomial root by Newton,
    bisection on NumPy scalars, a fixed point, Euler's method, Jacobi."""
    a = np.asarray([2.0, 9.0, 10.0, 0.25])
    x = np.ones_like(a)
    steps = 0
    while True:
        nx = 0.5 * (x + a / x)
        steps += 1
        if np.all(np.abs(nx - x) < 1e-12):
            break
        x = nx
    p = np.asarray([1.0, 0.0, -2.0, -5.0])
    dp = np.polyder(p)
    r = 2.0
    for _ in range(20):
        r = r - np.polyval(p, r) / np.polyval(dp, r)
    lo, hi = np.float64(0.0), np.float64(2.0)
    for _ in range(40):
        mid = (lo + hi) / 2
        if np.cos(mid) - mid > 0:
            lo = mid
        else:
            hi = mid
    growth = np.empty(50)
    growth[0] = 5
    for i in range(49):
        growth[i + 1] = growth[i] + 0.05 * growth[i] * (1 - growth[i] / 100.0)
    n = 6
    A = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    D = np.diag(A)
    R = A - np.diagflat(D)
    xj = np.zeros(n)
    for _ in range(200):
        xj = (np.ones(n) - R @ xj) / D
    return (x, steps, r, np.roots(p), np.polyint(p), np.poly([1, 2, 3]),
            np.polyadd([1, 2], [1, 0, 0]),
            np.polymul([1, 1], [1, -1]), np.polydiv([1, 0, -1], [1, 1]), np.polysub([3, 2, 1], [1]),
            mid,
            growth[::7], xj, np.linalg.solve(A, np.ones(n)))


def linear_algebra(np):
    """lstsq with rcond, pseudo-inverses, ranks, powers, a nonsymmetric
    eigenproblem, condition numbers, decompositions and batches."""
    A = np.asarray([[4.0, 2, 0], [1, 3, 1], [0, 1, 2], [1, 1, 1]])
    B = np.asarray([[1.0, 2], [2, 4.0000001]])
    N = np.asarray([[2.0, 1, 0], [0, 3, 1], [1, 0, 1]])
    S = np.asarray([[2.0, -1, 0], [-1, 2, -1], [0, -1, 2]])
    w, _ = np.linalg.eig(N)
    q, r = np.linalg.qr(A)
    u, s, vh = np.linalg.svd(A, full_matrices=False)
    wc, _ = np.linalg.eig(np.asarray([[1.0, 2], [-2, 1]]))
    b = np.stack([np.eye(2), 2 * np.eye(2)])
    return (tuple(np.linalg.lstsq(A, np.asarray([1.0, 2, 3, 4]), rcond=1e-10)), np.linalg.pinv(A),
            np.linalg.pinv(B, rcond=1e-5), np.linalg.matrix_rank(B),
            np.linalg.matrix_rank(B, tol=1e-3),
            np.linalg.matrix_power(N, 3), np.linalg.matrix_power(N, -2), w[np.argsort(w.real)],
            np.linalg.cond(N), np.linalg.cond(N, 1), np.linalg.cond(N, "fro"),
            np.linalg.cond(N, -np.inf),
            np.linalg.det(N), tuple(np.linalg.slogdet(N)), np.linalg.inv(N),
            np.linalg.matrix_rank(np.ones((3, 3))),
            np.linalg.matrix_rank(np.zeros((2, 2))), np.abs(q), np.abs(r),
            np.abs(np.linalg.qr(A, mode="r")),
            np.linalg.qr(A, mode="complete")[0].shape, np.abs(u), s, np.abs(vh),
            np.linalg.eigh(S, UPLO="U")[0],
            np.sort_complex(wc), np.linalg.eigvalsh(np.asarray([[2, 1j], [-1j, 3]])),
            np.linalg.inv(b),
            np.linalg.det(b), np.linalg.solve(b, np.ones((2, 2, 1))),
            np.linalg.multi_dot([A.T, A, np.ones(3)]),
            np.linalg.pinv(S, hermitian=True), np.linalg.matrix_rank(S, hermitian=True),
            np.linalg.svd(A, compute_uv=False),
            np.linalg.tensorsolve(np.eye(6).reshape(6, 2, 3), np.arange(6.0)),
            np.linalg.tensorinv(np.eye(4).reshape(4, 2, 2), ind=1),
            np.linalg.cholesky(S, upper=True),
            np.linalg.norm(b, axis=(1, 2)))


def norms(np):
    M = np.asarray([[1.0, -2, 3], [-4, 5, -6]])
    v = np.asarray([3.0, -4, 0])
    out = [np.linalg.norm(v, o) for o in (None, 0, 1, 2, np.inf, -np.inf, 3, -1, 0.5)]
    out += [np.linalg.norm(M, o) for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)]
    return out + [np.linalg.norm(M, axis=1), np.linalg.norm(M, 1, axis=0),
                  np.linalg.norm(M, axis=1, keepdims=True),
                  np.linalg.norm(M, axis=(0, 1)), np.linalg.norm(np.arange(4)),
                  np.linalg.norm(np.arange(6).reshape(2, 3), "fro"),
                  np.linalg.vector_norm(M, ord=3), np.linalg.matrix_norm(M, ord="nuc")]


def calculus(np):
    """Derivatives with spacing, coordinates and edge order; integrals by the
    trapezoid rule, Simpson's rule and midpoints; running sums."""
    y = np.asarray([1.0, 4, 9, 16, 25])
    x = np.asarray([0.0, 1, 2, 4, 7])
    f = np.arange(12.0).reshape(3, 4) ** 2
    t = np.linspace(0, np.pi, 101)
    s = np.sin(t)
    h = t[1] - t[0]
    return (np.gradient(y), np.gradient(y, 2.0), np.gradient(y, x), np.gradient(y, edge_order=2),
            np.gradient(y, x, edge_order=2), np.gradient(f), np.gradient(f, 0.5, 2.0),
            np.gradient(f, axis=1),
            np.gradient(f, np.asarray([0.0, 1, 3]), axis=0), np.gradient(np.asarray([1, 2, 4, 8])),
            np.cumulative_sum(y), np.cumulative_sum(y, include_initial=True),
            np.cumulative_sum(f, axis=0),
            np.cumulative_prod(np.asarray([1, 2, 3])),
            np.cumulative_sum(np.asarray([1, 2], dtype=np.int8)),
            np.trapezoid(s, t), h / 3 * (s[0] + 4 * s[1:-1:2].sum() + 2 * s[2:-1:2].sum() + s[-1]),
            np.sum(np.sin((t[:-1] + t[1:]) / 2) * np.diff(t)),
            np.trapezoid(np.vstack([s, 2 * s]), t, axis=1))


def polynomials(np):
    """np.polynomial's classes and modules; polyfit with weights and
    covariance, several right-hand sides, poly1d."""
    P = np.polynomial.Polynomial
    p = P([1, 2, 3])
    fit = P.fit(np.linspace(0, 1, 10), np.linspace(0, 1, 10) ** 2, 2)
    x = np.linspace(0, 1, 8)
    y = 3 * x ** 2 - x + 0.5 + np.asarray([0.01, -0.02, 0.0, 0.03, -0.01, 0.02, -0.03, 0.0])
    c, cov = np.polyfit(x, y, 2, cov=True)
    q = np.poly1d([1, -3, 2])
    return (p(np.asarray([0.0, 1, 2])), p.deriv().coef, p.integ().coef, (p * p).coef, p.roots(),
            fit.convert().coef,
            np.polynomial.polynomial.polyfit(np.arange(5.0), np.arange(5.0) ** 2, 2),
            np.polynomial.chebyshev.chebfit(np.linspace(-1, 1, 7), np.linspace(-1, 1, 7) ** 3, 3),
            np.polynomial.polynomial.polyval(np.asarray([1.0, 2]), np.asarray([1.0, 0, 1])),
            np.polynomial.legendre.legval(0.5, [1, 2, 3]),
            np.polynomial.hermite.hermval(np.asarray([0.0, 1.0]), [1, 1]),
            c, cov, np.polyfit(x, y, 2, w=np.linspace(1, 2, 8)),
            tuple(np.polyfit(x, y, 1, full=True)),
            np.polyfit(x, np.stack([y, 2 * y], axis=1), 1), q(np.asarray([0.0, 1, 2])), q.r,
            q.deriv().c, (q * q).c,
            np.polyval(q, 3), np.vander(np.asarray([1, 2, 3]), 3),
            np.vander(x[:3], increasing=True))


def float_ranges(np):
    """Grids made with float steps, compared exactly as programs compare
    them (np.arange(-3, 3, 0.7) differed from NumPy's in the last bit:
    NumPy steps by the difference of its first two values)."""
    grids = [np.arange(-3, 3, 0.7), np.arange(1, 0, -0.3), np.arange(0.1, 1, 0.1),
             np.arange(0, 0.3, 0.1),
             np.arange(0.5, 10.25, 0.25), np.arange(1e-3, 1e-2, 1e-3), np.arange(-2.2, 7.9, 0.37),
             np.arange(0, 1, 0.1, dtype=np.float32), np.arange(-1, 1, 0.3, dtype=np.float16),
             np.arange(2.5), np.arange(0, 1, 1 / 3)]
    return grids + [(g == np.round(g, 12)).sum() for g in grids[:4]] + [np.arange(0, 1,
                                                                                  0.1)[3] == 0.3]


def complex_fits(np):
    """A real design matrix with complex data (a phasor fit): lstsq cast b to
    a's real dtype and dropped the imaginary parts."""
    t = np.linspace(0, 1, 6)
    z = np.exp(1j * np.pi * t) + np.asarray([0.01, -0.02, 0.0, 0.02, -0.01, 0.0])
    A = np.vander(t, 2)
    return (tuple(np.linalg.lstsq(A, z, rcond=None)), np.polyfit(t, z, 2),
            tuple(np.linalg.lstsq(A.astype(complex), z.real, rcond=None)),
            tuple(np.linalg.lstsq(A.astype(np.float32), z.astype(np.complex64), rcond=None)),
            tuple(np.linalg.lstsq(A, np.stack([z, 2 * z], axis=1), rcond=None)))


def products(np):
    """einsum forms, the NumPy 2 product functions (vecdot, matvec, vecmat:
    matvec and vecmat recursed forever), the Array API's linalg names."""
    a = np.arange(24.0).reshape(2, 3, 4)
    b = np.arange(12.0).reshape(4, 3)
    m = np.arange(6.0).reshape(2, 3)
    v = np.asarray([1.0, 2.0, 3.0])
    z = np.asarray([[1 + 1j, 2], [3, 4j]])
    zv = np.asarray([1j, 2])
    return (np.einsum("...ij,jk->...ik", a, b), np.einsum("bij->b", a),
            np.einsum("ii->i", np.eye(3) * 2),
            np.einsum("ij->", b), np.einsum("ijk,kj->i", a, b),
            np.einsum(a, [0, 1, 2], b, [2, 1], [0]),
            np.einsum("i,i", np.arange(3), np.arange(3)),
            np.einsum("ij,ij->ij", b, b, optimize=True),
            np.einsum("i...->...", a), np.einsum("ji", b),
            np.einsum("ab,bc,cd->ad", b.T, b, b.T, optimize="greedy"),
            np.einsum("i,j", np.arange(2, dtype=np.int8), np.arange(2, dtype=np.int8)),
            np.vecdot(m, v), np.matvec(m, v), np.vecmat(v[:2], m), np.matvec(z, zv),
            np.vecmat(zv, z),
            np.matvec(np.ones((4, 2, 3)), np.ones((1, 3))),
            np.matvec(np.ones((2, 3), dtype=np.int8), np.ones(3, dtype=np.float32)),
            np.vecmat(np.arange(2), np.ones((3, 2, 2))), np.linalg.vecdot(m, v),
            np.linalg.outer(v, v[:2]),
            np.linalg.cross(v, v[::-1]), np.linalg.diagonal(m), np.linalg.matrix_transpose(m),
            np.permute_dims(m, (1, 0)),
            np.unstack(m, axis=1), np.astype(m, np.int32), np.linalg.svdvals(m),
            np.linalg.trace(np.eye(3)),
            np.linalg.tensordot(m, m.T, axes=1), np.linalg.matmul(m, m.T),
            np.linalg.vector_norm(m, axis=0))


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # NumPy's norm(v, -1) of a 0
def test_numerical_methods():
    _run(iterations)
    _run(linear_algebra)
    _run(norms)
    _run(calculus)
    _run(polynomials)
    _run(complex_fits)
    _run(float_ranges)
    _run(products)


def test_matvec_and_vecmat_errors_and_out():
    for np in (numpy, tnp):
        for call in (lambda: np.matvec(np.ones((2, 3)), np.ones(2)),
                     lambda: np.matvec(np.ones(3), np.ones(3)),
                     lambda: np.vecmat(np.ones(3), np.ones((2, 3)))):
            with pytest.raises(ValueError, match="core dimension|enough dimensions"):
                call()
    out = tnp.zeros(2)
    assert tnp.matvec(tnp.ones((2, 3)), tnp.ones(3), out=out) is out and out.tolist() == [3.0, 3.0]
    # numpy.matvec on tensors (NEP 13) runs the same implementation
    got = numpy.matvec(tnp.ones((2, 3)), tnp.arange(3.0))
    assert isinstance(got, torchlike.Tensor) and got.tolist() == [3.0, 3.0]
    # the gufunc's axes= takes NumPy's own route (host tensors only)
    _same(numpy.matvec(numpy.arange(6.0).reshape(2, 3), numpy.ones(2), axes=[(1, 0), 0, 0]),
          host_step(tnp, "matvec", tnp.matvec, tnp.arange(6.0).reshape(2, 3), tnp.ones(2),
                    axes=[(1, 0), 0, 0]), "axes")


# ---- arrays of NumPy's older styles: np.matrix, complex64 end points -------------------

def old_style(np):
    """np.matrix code (its * is the matrix product) and linspace between
    complex64 end points (it gave complex128)."""
    m = np.matrix([[1.0, 2], [3, 4]])
    e = np.asmatrix(np.eye(2) * 2)
    return (np.asarray(m * m), np.asarray(m.I), np.asarray(e * e), np.asarray(np.bmat([[e, e]])),
            np.linspace(numpy.complex64(0), numpy.complex64(1j), 5, retstep=True),
            np.linspace(0, numpy.complex64(1 + 1j), 3),
            np.linspace(np.asarray([1j, 2], dtype=np.complex64),
                                                                    np.asarray([3, 4j],
                                                                               dtype=np.complex64),
                        4))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_matrix_class_and_complex64_linspace():
    _run(old_style)
    assert type(tnp.asmatrix(tnp.eye(2))) is numpy.matrix
    assert tnp.matrix is numpy.matrix


# ---- random-number programs ----------------------------------------------------------

def random_properties(np):
    """What a seeded program may rely on beyond the stream itself (which is
    torchlike's Philox, docs/random.md): shapes, dtypes, ranges, supports,
    sums, determinism per seed, permutations that are permutations."""
    rng = np.random.default_rng(42)
    out = []
    c = rng.choice(10, size=5, replace=False)
    out += [c.shape, c.dtype == np.int64, len(set(c.tolist()))]
    c = rng.choice(np.arange(5), size=(2, 3), p=[0.1, 0.2, 0.3, 0.4, 0.0])
    out += [c.shape, bool((c != 4).all())]
    out.append(rng.choice(np.arange(12).reshape(4, 3), 2, axis=0, replace=False).shape)
    p = rng.permutation(np.arange(12).reshape(3, 4))
    out += [p.shape, sorted(p[:, 0].tolist()), sorted(rng.permutation(7).tolist())]
    p = rng.permuted(np.arange(12).reshape(3, 4), axis=1)
    out.append([sorted(r) for r in p.tolist()])
    i = rng.integers(1, 6, size=1000, endpoint=True)
    out += [i.dtype == np.int64, int(i.min()), int(i.max())]
    out += [rng.integers(5, size=(2, 2), dtype=np.uint8).dtype == np.uint8,
            rng.integers([1, 10], [5, 20]).shape]
    a = np.arange(10)
    rng.shuffle(a)
    m = np.arange(12).reshape(4, 3)
    rng.shuffle(m, axis=1)
    lst = [1, 2, 3, 4]
    rng.shuffle(lst)
    out += [sorted(a.tolist()), sorted(m[0].tolist()), sorted(lst)]
    out.append(rng.random((3, 2), dtype=np.float32).dtype == np.float32)
    u = rng.uniform(-1, 1, 100)
    out.append(bool((u >= -1).all() and (u < 1).all()))
    same_seed = np.random.default_rng(3).random(4) == np.random.default_rng(3).random(4)
    out.append(bool(same_seed.all()))
    out.append(rng.choice(["a", "b"], p=[1.0, 0.0], size=3).tolist())
    out += [rng.multinomial(20, [0.2, 0.8], size=3).sum(axis=1).tolist(),
            rng.normal(0, [1, 10], size=(5, 2)).shape]
    out += [sorted(rng.choice(np.arange(6), 6, replace=False, shuffle=False).tolist()),
            len(rng.bytes(5))]
    out += [rng.integers(0, 2, 5, dtype=bool).dtype == np.bool_,
            np.round(rng.dirichlet([1, 1, 1], 2).sum(axis=1), 12).tolist()]
    img = np.zeros((4, 5))
    out += [rng.integers(0, 10, size=img.shape).shape, rng.choice(img.size, 3).shape]
    # shuffles of views write into the base; the rest of it is untouched
    v = np.arange(10)
    rng.shuffle(v[::2])
    b = np.arange(12).reshape(3, 4)
    rng.shuffle(b.T)
    c = np.arange(12).reshape(3, 4)
    rng.permuted(c, axis=1, out=c)
    out += [sorted(v[::2].tolist()), v[1::2].tolist(), [sorted(r) for r in b.tolist()],
            bool((b[1] - b[0] == 4).all()), [sorted(r) for r in c.tolist()]]
    return out


def test_random_programs_keep_numpys_properties():
    want, got = random_properties(numpy), random_properties(tnp)
    assert [tuple(w) if isinstance(w, tuple) else w for w in want] == \
        [tuple(g) if isinstance(g, torchlike.Size) else g for g in got]


# ---- printing, error states, iteration ------------------------------------------------

def printing(np):
    x = np.asarray([[1.0, 2.5, -3.25], [1e-5, 1e5, np.nan]])
    y = np.asarray([1.123456789, 2.0, 1e-7])
    out = [np.array2string(x), np.array2string(x, precision=2),
           np.array2string(x, precision=2, suppress_small=True),
           np.array2string(np.arange(6).reshape(2, 3), separator=","),
           np.array2string(np.arange(2000)),
           np.array2string(x, formatter={"float_kind": lambda v: f"{v:.1f}"}),
           np.array2string(np.asarray([True, False])),
           np.array2string(np.asarray([1 + 2j, 3.5 - 1j])),
           np.array2string(np.arange(10), threshold=5, edgeitems=2),
           np.array2string(np.asarray(3.14159)),
           np.array2string(np.asarray([0.1, 0.25]), floatmode="fixed", precision=3),
           np.array2string(np.asarray([1.0, 2.0]), sign="+"), np.array2string(np.zeros((2, 0))),
           np.array2string(np.arange(3, dtype=np.uint8), prefix="x = "),
           np.array2string(np.linspace(0, 1, 12), max_line_width=30),
           np.array2string(np.asarray([1e-10, 1.0]), floatmode="unique"),
           np.array2string(np.asarray([100000000.0, 1.0]))]
    with np.printoptions(precision=3, suppress=True):
        out += [np.array2string(y), np.array_str(y), np.array_repr(y),
                np.get_printoptions()["precision"]]
    out.append(np.array2string(y))
    old = np.get_printoptions()
    np.set_printoptions(precision=2, threshold=4, edgeitems=1)
    try:
        out += [np.array2string(np.arange(10.0)), np.array_repr(np.arange(10))]
    finally:
        np.set_printoptions(**old)
    with np.printoptions(formatter={"int": lambda v: hex(v)}):
        out.append(np.array2string(np.arange(3)))
    with np.printoptions(legacy="1.13"):
        out.append(np.array2string(np.asarray([1.0, 2.5])))
    out += [np.format_float_positional(np.float64(1 / 3), precision=4),
            np.format_float_positional(0.1),
            np.format_float_scientific(12345.678, precision=2),
            np.format_float_positional(np.float32(0.1)),
            np.format_float_positional(1.0, trim="-"),
            np.format_float_scientific(np.float32(1e-5), exp_digits=3),
            np.format_float_positional(np.asarray(2.5)), np.base_repr(255, 16),
            np.binary_repr(-3, width=4)]
    out += [np.array_repr(np.asarray([1, 2], dtype=np.int32)),
            np.array_repr(np.asarray([1.0, 2.0], dtype=np.float16)),
            np.array_repr(np.asarray([[1j]], dtype=np.complex64)),
            np.array_repr(np.zeros((0, 3), dtype=np.int64)),
            np.array_repr(np.zeros(3, dtype=np.uint16)),
            np.array_repr(np.asarray(5, dtype=np.int8)),
            np.array_repr(np.asarray([np.nan, 1.0])), np.array_str(np.asarray([1e20, 1.0])),
            np.array_str(np.asarray(1.5)),
            np.array_repr(np.arange(12).reshape(2, 2, 3)),
            np.array_repr(np.asarray([1.0, 2.0], dtype=np.float32) * 0.1),
            np.array_repr(np.asarray([True, False])[None]), np.array_repr(np.arange(1001))]
    return out


def error_states(np):
    out = []
    with np.errstate(divide="ignore", invalid="ignore"):
        out += [np.asarray([1.0, 0.0, -1.0]) / np.asarray([0.0, 0.0, 0.0]),
                np.log(np.asarray([0.0, 1.0, -1.0]))]
    out.append(np.geterr()["divide"])
    old = np.seterr(over="ignore")
    out.append(np.exp(np.asarray([1000.0])))
    np.seterr(**old)
    out.append(np.geterr() == old)
    return out


def iteration(np):
    a = np.arange(6).reshape(2, 3)
    out = [int(x) for x in np.nditer(a)] + [int(x) for x in np.nditer(a.T, order="C")]
    out += [x.tolist() for x in np.nditer(a, flags=["external_loop"], order="F")]
    b = np.zeros((2, 3))
    with np.nditer([a, b], op_flags=[["readonly"], ["writeonly"]]) as it:
        for x, y in it:
            y[...] = x * 2
    out.append(b)
    it = np.nditer(a, flags=["multi_index"])
    out += [(it.multi_index, int(x)) for x in it]
    c = np.arange(3.0)
    for x in np.nditer(c, op_flags=["readwrite"]):
        x[...] = x ** 2
    out.append(c)
    it = np.nditer([np.arange(3), np.arange(2)[:, None], None])
    for x, y, z in it:
        z[...] = x + y
    return out + [it.operands[2]]


def test_printing_error_states_and_iteration():
    _run(printing)
    _run(error_states)
    host_program(iteration, "nditer")
    # documented: torchlike ops do not raise FloatingPointError under
    # errstate(all="raise"); NumPy's own scalars still do
    with tnp.errstate(all="raise"):
        assert bool(tnp.isinf(tnp.log(tnp.asarray([0.0])))[0])
        with pytest.raises(FloatingPointError):
            numpy.float64(1.0) / numpy.float64(0.0)


# ---- array methods, in-place updates, integer wrap-around, casting errors ----------------

def methods(np):
    a = np.arange(12).reshape(3, 4)
    f = np.linspace(0, 1, 6).reshape(2, 3)
    b = a.copy()
    b.fill(7)
    c = a.copy()
    c.flat[[1, 5]] = -1
    d = a.copy()
    d.put([0, 2], [9, 8])
    return (a.ravel("F"), a.flatten("F"), a.reshape(2, -1, order="F"), a.reshape((4, 3)), b, c, d,
            a.repeat(2, axis=1),
            a.swapaxes(0, 1), a[None].squeeze(), a.clip(3), a.clip(max=5), a.trace(), a.trace(1),
            a.dot(np.ones(4)),
            a.any(axis=0), a.all(), a.cumsum(), a.round(), f.round(2), a.argmax(axis=1), a.argmin(),
            a.compress([True, False, True], axis=0), a.take([0, 5]), a.take(indices=1), a.itemsize,
            a.nbytes, a.strides, a.T.strides,
            a.ndim, a.flat[5], a.item(3), a.item(1, 2), a.tolist(),
            f.astype(np.float32).tobytes()[:8],
            a.view(np.uint8).shape, a.conj(), a.min(initial=-1), a.max(axis=1, initial=100),
            a.sum(axis=0, dtype=np.int8),
            a.prod(axis=1), a.mean(axis=0, dtype=np.float32), a.std(ddof=1), a.var(axis=1, ddof=1),
            a.cumprod(axis=0),
            a.diagonal(), a.transpose(1, 0), a.transpose((1, 0)), a.T.reshape(-1),
            a[:, ::2].ravel(), f.flatten(),
            a.argpartition(1, axis=1)[:, :1], a.dtype.kind, a.dtype.name, a.dtype.char, a.dtype.str,
            a.real, a.astype(complex).imag)


def updates(np):
    """out= on ufuncs and reductions, augmented assignment through masks and
    fancy indices, row swaps, unsigned wrap-around."""
    a = np.arange(6.0)
    np.multiply(a, 2, out=a)
    b = np.zeros(3)
    np.add(np.arange(3), 1, out=b)
    c = np.arange(10.0)
    np.sqrt(c[::2], out=c[::2])
    d = np.arange(5.0)
    np.clip(d, 1, 3, out=d)
    e = np.zeros(4)
    np.cumsum(np.arange(4), out=e)
    f = np.arange(6).reshape(2, 3)
    f[f > 2] += 10
    g = np.zeros(4, dtype=int)
    g[[1, 1, 2]] += 1
    h = np.arange(6.0).reshape(2, 3)
    h[:, 1] = [7, 8]
    h[0] = 5
    i = np.ones((2, 3))
    i *= np.arange(3)
    i /= 2
    i -= 0.25
    i **= 2
    j = np.arange(5)
    j[::-1] = j.copy()
    m = np.zeros((3, 3))
    m[np.diag_indices(3)] = 1
    m[np.triu_indices(3, 1)] = 2
    n = np.arange(4, dtype=np.uint8)
    n -= 1
    p = np.arange(5.0)
    p[np.asarray([True, False, True, False, True])] = np.asarray([1, 2, 3])
    q = np.arange(9).reshape(3, 3)
    q[[0, 2]] = q[[2, 0]]
    r = np.ones(3)
    np.divide(r, np.asarray([2, 4, 8]), out=r)
    s = np.zeros(3)
    np.matmul(np.eye(3), np.arange(3.0), out=s)
    t = np.zeros(2, dtype=np.int64)
    np.floor_divide(np.asarray([7, 9]), 2, out=t)
    u = np.zeros(3)
    np.sum(np.ones((2, 3)), axis=0, out=u)
    v = np.zeros(())
    np.mean(np.arange(4.0), out=v)
    w8 = np.asarray([100, 120], dtype=np.int8)
    u8 = np.asarray([250], dtype=np.uint8)
    return (a, b, c, d, e, f, g, h, i, j, m, n, p, q, r, s, t, u, v, w8 + w8, w8 * 2,
            -np.asarray([-128], dtype=np.int8),
            u8 + u8, np.abs(np.asarray([-128], dtype=np.int8)), w8.astype(np.uint8),
            np.negative(u8), u8 - np.uint8(251),
            np.asarray([2**31 - 1], dtype=np.int32) + 1, np.square(w8), w8.sum(dtype=np.int8),
            np.add(w8, w8, dtype=np.int16))


def casting_errors(np):
    out = []
    for f in (lambda: np.add(np.arange(3), 1.5, out=np.zeros(3, dtype=np.int64)),
              lambda: np.arange(3).__iadd__(1.5),
              lambda: np.add(np.arange(3), 1.5, out=np.zeros(3, dtype=np.int64), casting="unsafe"),
              lambda: np.asarray([1, 2], dtype=np.uint8) + 300,
              lambda: np.asarray([1.5]).astype(np.int64, casting="same_kind"),
              lambda: np.copyto(np.zeros(2, dtype=np.int64), np.asarray([1.5, 2.5])),
              lambda: np.copyto(np.zeros(2, dtype=np.int64), np.asarray([1.5, 2.5]),
                                casting="unsafe")):
        try:
            out.append(f())
        except (TypeError, ValueError, OverflowError) as err:
            out.append("TypeError" if isinstance(err, TypeError) else type(err).__name__)
    return out


def layout_and_rolls(np):
    """Found by a sweep of every NumPy function on small arrays:
    np.isfortran raised (flags had no fnc), np.roll with an array of shifts
    raised, np.bmat of one array gave None."""
    a = np.arange(12).reshape(3, 4)
    f = np.asfortranarray(a)
    flags = [(x.flags.fnc, x.flags.forc, x.flags.carray, x.flags.farray, x.flags["FNC"],
              x.flags["CA"],
              x.flags.behaved) for x in (a, f, a[:, ::2], np.arange(3))]
    return (np.isfortran(a), np.isfortran(f), np.isfortran(a.T), flags, np.roll(a, [1, 2]),
            np.roll(a, np.asarray([3, 1, 2])), np.roll(a, (1, 2), (0, 1)), np.roll(a, 1, (0, 1)),
            np.roll(a, [1, 1], 0), np.roll(a, [1, 2, 3], (0, 1, 0)), np.roll(a, np.int64(2), -1),
            np.roll(np.zeros(0), 3), np.roll(np.asarray(5), 1), np.asarray(np.bmat(a)))


def ufunc_spellings(np):
    """More of the sweep: out arrays given by position (None too) and
    partial out pairs; fabs and rint of integers are floats, rint rounds
    complex parts; gcd/lcm and heaviside/nextafter keep NumPy's dtypes with
    Python numbers; tril/triu of a row; transpose of a vector by an int;
    size over axes; writes into empty arrays NumPy hands over with zero
    strides."""
    u = np.asarray([7, 200, 3], dtype=np.uint8)
    i = np.asarray([12, -8, 0])
    f = np.asarray([0.5, -1.5, 2.5])
    out = np.zeros(3)
    np.sin(f, out)
    o1, o2, o3, o4 = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3, dtype=np.int32)
    np.sign(f, o1)
    np.deg2rad(f, o2)
    frac, whole = np.modf(f, o3)
    mant, expo = np.frexp(f, None, o4)
    q, r = np.divmod(f, 2, out=(None, np.zeros(3)))
    # (NumPy's integer reciprocal of 0 depends on the dtype and platform: no zeros)
    recips = [np.reciprocal(np.asarray([1, -1, 2, -3, 5], dtype=d)) for d in (np.int8, np.int64)]
    recips += [np.reciprocal(np.asarray([1, 2, 255], dtype=np.uint8)), np.reciprocal(f),
               np.reciprocal(np.asarray([True]))]
    empty = np.asarray(numpy.zeros((0, 3)))
    np.nan_to_num(empty, copy=False)
    empty[...] = 1
    return (np.sin(f, None), out, o1, o2, frac, whole, o3, mant, expo, o4, q, r, np.add(f, 1, None),
            np.fabs(u), np.fabs(i), np.fabs(f), np.rint(u), np.rint(f),
            np.rint(np.asarray([1.5 + 2.5j, -0.5j])),
            np.rint(i), np.gcd(u, 8), np.lcm(u, 3), np.gcd(12, i), np.heaviside(u, u),
            np.heaviside(u, 2),
            np.heaviside(i, 0.5), np.heaviside(f.astype(np.float32), 0.5), np.nextafter(i, 3),
            np.nextafter(u, u),
            np.nextafter(f, 0), np.nextafter(0.0, f), np.nextafter(f.astype(np.float32), 1.0),
            np.tril(i),
            np.triu(f, 1), np.transpose(i, 0), np.permute_dims(i, 0),
            np.size(np.ones((2, 3)), (0, 1)), empty, recips)


def masks_and_scalars(np):
    """A sweep of 0-d, bool and 8-bit inputs: np.bincount of a mask raised
    (NumPy counts its False and True), linspace from a float32 end point and
    a Python float was float64, argsort of a 0-d array raised."""
    mask = np.asarray([True, False, True, True])
    lo32 = np.asarray([0.0, 1.0], dtype=np.float32)
    return (np.bincount(mask), np.bincount(mask, weights=np.asarray([0.5, 1, 2, 4])),
            np.bincount(mask, minlength=3), np.linspace(numpy.float32(0), 2.0, 5),
            np.linspace(lo32, 2.0, 3), np.linspace(2.0, lo32, 3, retstep=True),
            np.linspace(np.asarray([0, 1], dtype=np.int8), 2, 3),
            np.linspace(numpy.complex64(1j), 2.0, 3),
            np.argsort(np.asarray(2.5)), np.argsort(np.asarray(3), axis=None))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.bmat's matrix
def test_methods_updates_and_casting():
    _run(methods)
    _run(updates)
    _run(casting_errors)
    _run(layout_and_rolls)
    _run(ufunc_spellings)
    _run(masks_and_scalars)


# ---- empty and 0-d inputs, and the exception classes programs catch --------------------

def edges_and_errors(np):
    """Empty, 0-d and 1-d inputs to the functions above, and the class each
    mistake raises (matrix_rank of a vector raised LinAlgError; a wrong
    sorter, rot90's axes were RuntimeErrors; cumulative_sum of a 0-d array
    raised AxisError)."""
    cases = [lambda: np.fft.fft(np.zeros(0)), lambda: np.convolve(np.zeros(0), np.ones(2)),
             lambda: np.interp([1.0], np.zeros(0), np.zeros(0)),
             lambda: np.interp([1.0], [0, 1, 2], [0, 1]),
             lambda: np.interp([1.0], [0, 1], [0, 1], period=0),
             lambda: np.histogram(np.arange(3), bins=2, range=(2, 1)),
             lambda: np.histogram(np.arange(3), bins=[3, 1]),
             lambda: np.pad(np.zeros((0,)), 1, mode="reflect"),
             lambda: np.pad(np.arange(3), -1), lambda: np.pad(np.arange(3), 1, mode="nope"),
             lambda: np.argpartition(np.arange(3), 5), lambda: np.array_split(np.arange(3), 0),
             lambda: np.split(np.arange(5), 2), lambda: np.add.at(np.zeros(3), [5], 1),
             lambda: np.add.reduceat(np.arange(4), [0, 9]), lambda: np.gradient(np.asarray([1.0])),
             lambda: np.gradient(np.arange(4.0), edge_order=3),
             lambda: np.percentile(np.arange(3), 101),
             lambda: np.quantile(np.arange(3), 0.5, method="bogus"),
             lambda: np.polyfit([1, 2], [1, 2], -1),
             lambda: np.polyfit([1, 2, 3], [1, 2], 1),
             lambda: np.linalg.lstsq(np.ones(3), np.ones(3), rcond=None),
             lambda: np.linalg.norm(np.ones((2, 2)), 3), lambda: np.linalg.norm(np.ones(3), "fro"),
             lambda: np.linalg.inv(np.ones((2, 2))), lambda: np.linalg.cholesky(-np.eye(2)),
             lambda: np.linalg.solve(np.zeros((2, 2)), np.ones(2)),
             lambda: np.linalg.matrix_power(np.eye(2), 2.5),
             lambda: np.digitize([1], [1, 3, 2]), lambda: np.bincount(np.asarray([-1, 2])),
             lambda: np.bincount(np.asarray([1.0])), lambda: np.searchsorted([1, 2], 1, sorter=[0]),
             lambda: np.searchsorted([1, 2], 1, sorter=[1, -3]),
             lambda: np.select([np.asarray([1, 0])], [np.asarray([1, 2])]),
             lambda: np.hanning(-2), lambda: np.fft.irfft(np.ones(3), n=1),
             lambda: np.fft.rfft(np.ones(3), axis=2),
             lambda: np.correlate(np.ones(3), np.zeros(0)),
             lambda: np.convolve(np.ones((2, 2)), np.ones(2)),
             lambda: np.lib.stride_tricks.sliding_window_view(np.arange(3), 0),
             lambda: np.rot90(np.arange(3)),
             lambda: np.rot90(np.eye(2), axes=(0, 0)), lambda: np.rot90(np.eye(2), axes=(0,)),
             lambda: np.flip(np.eye(2), axis=3), lambda: np.cumulative_sum(np.ones((2, 2))),
             lambda: np.histogram2d([1, 2], [1], bins=2), lambda: np.choose([2], [[1], [2]]),
             lambda: np.argmax(np.zeros(0)), lambda: np.max(np.zeros((0, 2)), axis=0),
             lambda: np.nanargmax(np.asarray([np.nan, np.nan])),
             lambda: np.unique(np.zeros((2, 3)), axis=2),
             # (nditer is host-only: its error comes from the host run)
             lambda: host_step(np, "nditer", lambda a: [x for x in np.nditer(a)], np.zeros(0))]
    caught = []
    for case in cases:
        try:
            case()
            caught.append("no error")
        except np.linalg.LinAlgError:
            caught.append("LinAlgError")
        except (ValueError, IndexError, TypeError, ZeroDivisionError) as error:
            # (an AxisError is a ValueError and an IndexError, as NumPy's)
            caught.append("ValueError" if isinstance(error, ValueError) else type(error).__name__)
    a = np.zeros(3)
    np.add.at(a, [], [])
    return (caught, np.linalg.matrix_rank(np.asarray([1.0, 0.0])),
            np.linalg.matrix_rank(np.zeros(3)),
            np.linalg.matrix_rank(np.asarray(0.0)), np.linalg.matrix_rank(np.zeros((2, 3))),
            np.cumulative_sum(np.asarray(3)),
            np.cumulative_sum(np.asarray(3), include_initial=True),
            np.cumulative_prod(np.asarray(3.0), axis=-1),
            np.searchsorted([1, 2, 3], [2, 3], sorter=[0, 1, 2]),
            np.fft.fftshift(np.zeros(0)), np.interp(np.zeros(0), [0, 1], [0, 1]),
            np.unwrap(np.zeros(0)),
            np.histogram(np.zeros(0, dtype=np.uint8), bins=3), np.pad(np.zeros((0, 2)), 1),
            np.unique(np.zeros(0, dtype=np.int64), return_inverse=True, return_counts=True,
                      return_index=True),
            np.unique(np.asarray(3)), np.lexsort((np.zeros(0),)), a,
            np.add.reduceat(np.arange(4), []),
            np.gradient(np.arange(2.0), edge_order=1), np.isin(np.zeros(0), [1]),
            np.setdiff1d(np.zeros(0, dtype=np.int64), [1]),
            np.piecewise(np.asarray(1.5), [np.asarray(True)], [lambda v: v * 2]),
            np.kaiser(1, 5.0), np.fft.fftfreq(1), np.clip(np.arange(3), None, None),
            np.cumsum(np.asarray(3)),
            np.digitize(np.zeros(0), [1, 2]), np.unwrap(np.asarray([0, 4, 8])),
            np.array2string(np.zeros(0)),
            np.pad(np.arange(3), ((1, 2),)),
            np.pad(np.ones((1, 1)), [(1, 0), (0, 1)], constant_values=((5, 6), (7, 8))),
            np.percentile(np.arange(6).reshape(2, 3), [[10, 90]], axis=1),
            np.unique(np.zeros((0, 3)), axis=0),
            np.linalg.pinv(np.zeros((0, 3))), np.linalg.det(np.zeros((0, 0))),
            np.linalg.cond(np.ones((2, 2))))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_empty_inputs_and_exception_classes():
    _run(edges_and_errors)
