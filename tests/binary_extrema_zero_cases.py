"""torch.maximum/minimum/fmax/fmin over tied -0.0 and +0.0 (and NaN), run the
same way over PyTorch and torchlike.

``record(T)`` takes the library as T and builds each pair of operands from
NumPy: float32 and float64; contiguous, strided (every other element, and a
transposed 2-d view), broadcast (a row against a column, a 0-d tensor, a
Python float) and in-place; lengths around the vector widths (tails) and
long ones.  Each answer is the result's signs, one character per element:
'+' for +0.0, '-' for -0.0, 'n' for NaN, '1' for anything else
(the values themselves are NumPy-checked elsewhere)."""
import math

import numpy as np

OPS = ("maximum", "minimum", "fmax", "fmin")
DTYPES = ("float32", "float64")
LENGTHS = (1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1027)


def _signs(t):
    return "".join("n" if v != v else "1" if v != 0 else "-" if math.copysign(1.0, v) < 0
                   else "+" for v in t.double().reshape(-1).tolist())


def _operands(rs, n):
    """Two arrays of n: every pairing of -0.0, +0.0 and NaN, then random."""
    pool = np.array([-0.0, 0.0, np.nan, 1.0, -1.0])
    a = np.array([pool[i % 3] for i in range(n)])
    b = np.array([pool[(i // 3) % 3] for i in range(n)])
    if n > 9:
        a[9:] = rs.choice(pool, n - 9, p=[0.35, 0.35, 0.1, 0.1, 0.1])
        b[9:] = rs.choice(pool, n - 9, p=[0.35, 0.35, 0.1, 0.1, 0.1])
    return a, b


def record(T):
    rs = np.random.RandomState(5)
    out = {}
    for n in LENGTHS:
        a, b = _operands(rs, n)
        for dt in DTYPES:
            ta, tb = T.tensor(a).to(getattr(T, dt)), T.tensor(b).to(getattr(T, dt))
            wa = T.stack([ta, tb], 1).reshape(-1)[::2]   # strided views of the same values
            wb = T.stack([tb, ta], 1).reshape(-1)[::2]
            for op in OPS:
                f = getattr(T, op)
                r = {"contig": _signs(f(ta, tb)), "swapped": _signs(f(tb, ta)),
                     "strided": _signs(f(wa, wb)), "mixed": _signs(f(ta, wb)),
                     "scalar_neg": _signs(f(ta, T.tensor(-0.0, dtype=ta.dtype))),
                     "scalar_pos": _signs(f(T.tensor(0.0, dtype=ta.dtype), tb)),
                     "scalar_nan": _signs(f(ta, T.tensor(float("nan"), dtype=ta.dtype))),
                     "out": _signs(f(ta, tb, out=T.empty_like(ta)))}
                if n <= 33:
                    r["outer"] = _signs(f(ta[:, None], tb[None, :]))
                    r["outer_t"] = _signs(f(ta[:, None], tb[None, :]).t().contiguous())
                    r["outer_of_t"] = _signs(f(ta[None, :].expand(n, n).t(), tb[:, None]))
                r["method"] = _signs(getattr(ta, op)(tb))
                out[f"n{n}_{dt}_{op}"] = r
    out.update(_shaped(T, rs))
    return out


# n-d operands: contiguous ones run as one (coalesced) run, row slices of a
# wider tensor as one run per row, long ones past PyTorch's parallel grain
# (32768) in per-thread chunks (two threads, set by record's caller too)
SHAPES = ((5, 13), (3, 7, 3), (4, 33), (2, 40000))


def _bits(t):
    """The results' bit patterns where they are NaN (a NaN's payload and
    sign are the loop's choice too)."""
    width = "<u4" if t.dtype == t.new_zeros(()).float().dtype else "<u8"
    a = t.numpy()
    return [hex(int(v)) for v in a.view(width).reshape(-1)[np.isnan(a.reshape(-1))][:40]]


def _shaped(T, rs):
    out = {}
    threads = T.get_num_threads()
    T.set_num_threads(2)
    try:
        for shape in SHAPES:
            wide = tuple(shape[:-1]) + (shape[-1] + 3,)
            a, b = _operands(rs, int(np.prod(wide)))
            for dt in DTYPES:
                ta = T.tensor(a[:int(np.prod(shape))].reshape(shape)).to(getattr(T, dt))
                tb = T.tensor(b[:int(np.prod(shape))].reshape(shape)).to(getattr(T, dt))
                sa = T.tensor(a[:int(np.prod(wide))].reshape(wide)).to(getattr(T, dt))[..., :-3]
                sb = T.tensor(b[:int(np.prod(wide))].reshape(wide)).to(getattr(T, dt))[..., :-3]
                for op in ("maximum", "minimum"):
                    f = getattr(T, op)
                    r = {"contig": _signs(f(ta, tb)), "rows": _signs(f(sa, sb)),
                         "row_scalar": _signs(f(sa, T.tensor(-0.0, dtype=sa.dtype))),
                         "nan_bits": _bits(f(ta, tb)), "rows_nan_bits": _bits(f(sa, sb))}
                    if shape[-1] <= 40:
                        r["col_bcast"] = _signs(f(ta, tb[..., :1]))
                    out[f"shape{'x'.join(map(str, shape))}_{dt}_{op}"] = r
    finally:
        T.set_num_threads(threads)
    return out
