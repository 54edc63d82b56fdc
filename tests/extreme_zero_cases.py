"""Whole-tensor max/min over tied -0.0 and +0.0 (and NaN among them), run the
same way over PyTorch and torchlike.

``record(T)`` takes the library as T, builds every input from NumPy (float64
arrays of signed zeros in runs and scatters, some with a -1.0/+1.0 or a NaN,
cast to float32, float16, bfloat16 and float64) and returns, per input, what
max(), min(), amax(), amin(), aminmax(), max(0)/min(0) (value and index) and
a row-wise amax/max along the last dim give: the value's repr with its sign
("-0.0", "0.0", "nan", ...) and any index.  Sizes run from 1 to past
PyTorch's parallel grain (32768) on two threads, which the recording and the
test both set: which zero PyTorch returns follows the shape of its
reduction trees and chunks (src/ndcore/kernels/reduce_zero_sign.c).
scripts/golden_extreme_zero.py writes PyTorch's answers to
tests/golden/extreme_zero.json; tests/test_extreme_zero.py compares."""
import math

import numpy as np

DTYPES = ("float32", "float16", "bfloat16", "float64")
SIZES = (1, 2, 3, 5, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129, 1000, 4099,
         32768, 40000, 65537, 100003)


def _runs(rs, n):
    """Signed zeros in runs of random length, each all -0.0, all +0.0, or mixed."""
    x = np.zeros(n)
    pos = 0
    while pos < n:
        k = min(int(rs.randint(1, max(2, n // 3))), n - pos)
        p = rs.choice([0.0, 1.0, 0.5, 0.02, 0.98])
        x[pos:pos + k] = np.where(rs.rand(k) < p, -0.0, 0.0)
        pos += k
    return x


def inputs():
    """[(name, float64 array)]: three zero patterns per size, then the same
    with a -1.0 and a +1.0 dropped in, and with a NaN."""
    rs = np.random.RandomState(2026)
    out = []
    for n in SIZES:
        for k in range(3):
            x = _runs(rs, n)
            out.append((f"n{n}_runs{k}", x))
        y = _runs(rs, n)
        y[rs.randint(n)] = -1.0
        if n > 2:
            y[rs.randint(n)] = 1.0
        out.append((f"n{n}_pm1", y))
        if n <= 4099:
            z = _runs(rs, n)
            z[rs.randint(n)] = np.nan
            out.append((f"n{n}_nan", z))
    return out


def _s(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    return repr(v) if v != 0 else ("-0.0" if math.copysign(1.0, v) < 0 else "0.0")


def _run(T, t):
    r = {"max": _s(t.max()), "min": _s(t.min()), "amax": _s(t.amax()), "amin": _s(t.amin())}
    lo, hi = T.aminmax(t)
    r["aminmax"] = [_s(lo), _s(hi)]
    v, i = t.max(0)
    r["max0"] = [_s(v), int(i)]
    v, i = t.min(0)
    r["min0"] = [_s(v), int(i)]
    if t.numel() % 4 == 0 and t.numel() <= 4099:   # rows of a 2-d view along the last dim
        rows = t.reshape(4, -1)
        r["amax_rows"] = [_s(v) for v in rows.amax(1)]
        vals, idx = rows.max(1)
        r["max_rows"] = [[_s(v), int(j)] for v, j in zip(vals, idx)]
    return r


# amax/amin along dims of contiguous n-d tensors: over a trailing run
# (rows), a leading or middle run (columns: PyTorch's vector columns and its
# scalar remainder), and over two runs (left as it is; it agrees here)
DIM_CASES = (((9, 7), 0), ((40, 33), 0), ((3, 100), 0), ((300, 130), 0), ((4, 20, 33), 1),
             ((5, 7, 300), 1), ((2, 40000), 1), ((40000, 2), 0), ((4, 20000), -1),
             ((3, 4, 5, 6), (0, 2)))


def _signs(t):
    """'+'/'-' per element (the sign of each zero), 'n' for NaN, '1' otherwise."""
    return "".join("n" if v != v else "1" if v != 0 else "-" if math.copysign(1.0, v) < 0
                   else "+" for v in t.double().reshape(-1).tolist())


def _dims(T):
    rs = np.random.RandomState(77)
    out = {}
    for shape, dim in DIM_CASES:
        x = np.where(rs.rand(*shape) < 0.5, -0.0, 0.0)
        for dt in DTYPES:
            t = T.tensor(x).to(getattr(T, dt))
            r = {"amax": _signs(t.amax(dim)), "amin": _signs(t.amin(dim))}
            if isinstance(dim, int):
                v, i = t.max(dim)
                r["max"] = [_signs(v), i.reshape(-1).tolist()[:64]]
            out[f"{shape}_{dim}_{dt}"] = r
    return out


def record(T):
    """{input name: {dtype: {call: answer}}} over library T, on two threads,
    and {"dims": {case: answers}} for the n-d reductions."""
    threads = T.get_num_threads()
    T.set_num_threads(2)
    try:
        out = {}
        for name, x in inputs():
            base = T.tensor(x)
            out[name] = {dt: _run(T, base.to(getattr(T, dt))) for dt in DTYPES}
        out["dims"] = _dims(T)
        return out
    finally:
        T.set_num_threads(threads)
