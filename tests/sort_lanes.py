"""The lanes the sort tests draw (test_sort_short.py, test_sort_values.py)
and NumPy's stable order they compare with."""
import numpy as np

from oracle import NP_DTYPES


def lanes(dtype, n, rng, rows=3):
    """rows lanes of n: row 0 a few distinct values (ties), row 1 all equal,
    the rest wide-ranging; floats get NaNs with several payloads and signs,
    signed zeros and infinities."""
    npdt = NP_DTYPES[dtype]
    if dtype == "bool":
        return rng.integers(0, 2, (rows, n)).astype(bool)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(npdt)
        a = rng.integers(info.min, info.max, (rows, n), dtype=npdt, endpoint=True)
        a[0] = rng.integers(0, 4, n).astype(npdt)
        a[1] = info.max
        if dtype == "int64" and rows > 3:  # within 2^32 of the minimum: the packed path
            a[3] = rng.integers(-2 ** 31, 2 ** 31, n)
        return a
    a = rng.standard_normal((rows, n)) * 10.0 ** rng.integers(-3, 4, (rows, n))
    a[0] = rng.integers(-2, 3, n)
    a[1] = -0.0
    for v in (np.nan, 0.0, -0.0, np.inf, -np.inf):
        a[2:][rng.random((rows - 2, n)) < 0.06] = v
    if dtype == "bfloat16":  # values bfloat16 holds exactly
        return (a.astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)
    a = a.astype(npdt)
    if n > 4:  # NaNs of other payloads and of both signs
        bits = a.view(f"u{a.itemsize}")
        nan_bits = np.isnan(a)
        bits[nan_bits] |= np.array(rng.integers(1, 4, nan_bits.sum()), dtype=bits.dtype)
        size = 8 * a.itemsize  # NaNs of both signs with every payload bit, and -0.0
        bits[2, :3] = np.array([(1 << size) - 1, (1 << (size - 1)) - 1, 1 << (size - 1)],
                               dtype=bits.dtype)
    return a


def stable_order(a, axis, descending):
    """NumPy's stable argsort; descending keeps ties (NaNs, zeros) in input order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    return n - 1 - np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)
