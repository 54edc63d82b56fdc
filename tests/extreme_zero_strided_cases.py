"""max/min reductions over tied -0.0 and +0.0 in inputs of every layout,
run the same way over PyTorch and torchlike (tests/extreme_zero_cases.py
holds the contiguous ones).

``record(T)`` takes the library as T and returns, per (input, layout,
dtype), the signs that amax/amin (whole, along one dim, along several,
with keepdim), max()/min(), aminmax() and max/min along a dim give:
"+"/"-" per zero, "1" for any other value (see _signs).  The layouts are
views of one contiguous tensor built from NumPy: transposed and permuted,
stepped along the last or a leading dim, with an offset, expanded
(broadcast, stride 0), and sizes past PyTorch's parallel grain (32768) on
two threads, which the recording and the test both set.  Which zero PyTorch
returns follows the order its reduction iterator lays the dims out in
(src/ndcore/kernels/reduce_zero_sign.c).  scripts/golden_extreme_zero_strided.py
writes PyTorch's answers to tests/golden/extreme_zero_strided.json;
tests/test_extreme_zero_strided.py compares."""
import math

import numpy as np

DTYPES = ("float32", "float16", "bfloat16", "float64")


def _signs(t):
    """'+'/'-' per element (the sign of each zero), '1' otherwise."""
    return "".join("1" if v != 0 else "-" if math.copysign(1.0, v) < 0 else "+"
                   for v in t.double().reshape(-1).tolist())


def _zeros(rs, shape, p=0.5):
    return np.where(rs.rand(*shape) < p, -0.0, 0.0)


def _views(T, rs):
    """[(name, view, dim lists to reduce over)]"""
    out = []

    def add(name, base, make, dims):
        out.append((name, base, make, dims))

    for shape in ((9, 7), (40, 33), (3, 100), (130, 70), (64, 64), (17, 300), (200, 48)):
        x = _zeros(rs, shape)
        add(f"{shape}_t", x, lambda t: t.t(), ((0,), (1,), (0, 1)))
        add(f"{shape}_colstep", x, lambda t: t[:, ::2], ((0,), (1,)))
        add(f"{shape}_rowstep", x, lambda t: t[::2], ((0,), (1,)))
        add(f"{shape}_offset", x, lambda t: t[1:, 3:], ((0,), (1,)))
        add(f"{shape}_t_step", x, lambda t: t.t()[::3], ((0,), (1,)))
    for shape, perm in (((4, 5, 6), (2, 0, 1)), ((6, 33, 5), (1, 2, 0)), ((3, 40, 70), (2, 1, 0)),
                        ((8, 16, 9), (0, 2, 1))):
        x = _zeros(rs, shape)
        add(f"{shape}_perm{perm}", x, lambda t, perm=perm: t.permute(*perm),
            ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)))
    for shape, dims in (((3, 4, 5, 6), ((0, 2), (1, 3), (0, 3), (0, 1, 3))),
                        ((5, 40, 3, 33), ((0, 2), (1, 3), (0, 1, 3)))):
        x = _zeros(rs, shape)
        add(f"{shape}_contig", x, lambda t: t, dims)
        add(f"{shape}_step", x, lambda t: t[:, ::2], dims)
    for shape, to in (((1, 70), (9, 70)), ((33, 1), (33, 40)), ((5, 1, 7), (5, 6, 7)),
                      ((100,), (3, 100))):
        x = _zeros(rs, shape)
        dims = tuple((d,) for d in range(len(to))) + (tuple(range(len(to))),)
        add(f"{shape}_expand{to}", x, lambda t, to=to: t.expand(*to), dims)
    # past the parallel grain: two chunks of the flat range, strided tiles
    x = _zeros(rs, (300, 250), p=0.97)
    add("big_t", x, lambda t: t.t(), ((0,), (1,), (0, 1)))
    add("big_rowstep", x, lambda t: t[::2].t(), ((0, 1),))
    x = _zeros(rs, (200, 401), p=0.99)
    add("big_colstep", x, lambda t: t[:, 1::2], ((0, 1),))
    return out


def record(T):
    """{case: {dtype: {call: signs}}} over library T, on two threads."""
    rs = np.random.RandomState(4242)
    threads = T.get_num_threads()
    T.set_num_threads(2)
    try:
        out = {}
        for name, base, make, dims in _views(T, rs):
            per = {}
            for dt in DTYPES:
                t = make(T.tensor(base).to(getattr(T, dt)))
                r = {"amax": _signs(t.amax()), "amin": _signs(t.amin()),
                     "max": _signs(t.max()), "min": _signs(t.min())}
                lo, hi = T.aminmax(t)
                r["aminmax"] = _signs(lo) + _signs(hi)
                for dim in dims:
                    key = ",".join(map(str, dim))
                    r[f"amax{key}"] = _signs(t.amax(dim))
                    r[f"amin{key}"] = _signs(t.amin(dim))
                    r[f"amax{key}k"] = _signs(t.amax(dim, keepdim=True))
                    if len(dim) == 1:
                        v, i = t.max(dim[0])
                        r[f"max{key}"] = _signs(v) + str(i.reshape(-1).tolist()[:16])
                        v, i = t.min(dim[0], keepdim=True)
                        r[f"min{key}k"] = _signs(v) + str(i.reshape(-1).tolist()[:16])
                per[dt] = r
            out[name] = per
        return out
    finally:
        T.set_num_threads(threads)
