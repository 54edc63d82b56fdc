"""Fuzz the public API's boundaries with hostile arguments.

    scripts/fuzz_api.py --seconds 60 [--seed 1] [--area nn] [--calls 200]
    scripts/fuzz_api.py --runs 2 --seed 7      # deterministic: two child runs

Each case calls one public function (tensor methods, torch-style functions,
nn.functional, linalg, fft, the NumPy namespace, random, save/load, autograd)
with arguments chosen to hurt: 0-d, empty and huge shapes, sizes whose product
overflows int64, out-of-range dims and indices, every dtype, non-contiguous and
stride-0 inputs for in-place ops and out=, NaN/inf, None, ints past int64,
ragged lists, object arrays, keywords of the wrong type.

A case passes when it returns (and, where the case has an oracle, the value
agrees with NumPy's) or raises one of the exceptions a user can catch
(TypeError, ValueError, IndexError, RuntimeError, NotImplementedError, ...).
It fails on a SystemError, an exception without a message, a wrong value, a
sanitizer report, a crash or a hang.

Cases run in child processes, a batch of calls each: the child writes the
case it is about to run to a file first, so when it dies (a signal, an ASan
abort, the per-call timeout) the parent names the call that killed it.
Run it under the sanitized build (docs: Makefile target test-asan) to catch
memory errors that do not crash; add max_allocation_size_mb=8192 to
ASAN_OPTIONS there (the children's address-space limit is off under ASan).
"""
import argparse
import faulthandler
import io
import math
import os
import pickle
import random
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What a user may see from bad input. SystemError, MemoryError from a small call,
# AssertionError from our own code, SystemError and crashes are defects.
# EOFError and UnpicklingError are what pickle (and PyTorch's load) raise for a
# truncated or refused file; AssertionError is PyTorch's own for embedding's
# padding_idx; MemoryError is NumPy's for a size that can be named but not held.
# (BufferError: the buffer protocol's own refusal, NumPy's too, e.g.
# np.frombuffer of a memoryview that is not C-contiguous)
ALLOWED = (TypeError, ValueError, IndexError, RuntimeError, NotImplementedError,
           OverflowError, ZeroDivisionError, KeyError, AttributeError, EOFError,
           pickle.UnpicklingError, AssertionError, MemoryError, BufferError)


class Defect(Exception):
    """Raised by a case that saw the library do something it must never do."""

# ---- hostile values ----------------------------------------------------------------------

HUGE = [2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 64, -2 ** 63, 2 ** 31, 2 ** 32 + 1, 10 ** 30]
# sizes no machine can hold (2**31 elements is merely large: a real allocation)
HUGE_SIZES = [2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 64, -2 ** 63, 10 ** 30, 2 ** 56 + 1]
BAD_SHAPES = [(2 ** 62,), (2 ** 40, 2 ** 40), (2 ** 31, 2 ** 31, 4), (-1,), (-2, 3), (3, -5),
              (2 ** 63 - 1, 2), (2 ** 64,), (0, 2 ** 62), (2 ** 62, 0), (1.5,), ("a",), (None,)]
SMALL_SHAPES = [(), (0,), (1,), (3,), (2, 3), (1, 0, 3), (2, 1, 3), (4, 1), (2, 2, 2)]


class Ctx:
    """The random source and the package, passed to every case."""

    def __init__(self, rng, tl, np):
        self.r, self.tl, self.np = rng, tl, np
        self.dtypes = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.float16,
                       tl.bfloat16, tl.float32, tl.float64, tl.complex64, tl.complex128]
        for extra in ("uint16", "uint32", "uint64"):
            if hasattr(tl, extra):
                self.dtypes.append(getattr(tl, extra))

    def pick(self, xs):
        return xs[self.r.randrange(len(xs))]

    def dim(self, ndim=3):
        r = self.r.random()
        if r < 0.6:
            return self.r.randint(-ndim - 1, ndim)
        if r < 0.8:
            return self.pick(HUGE + [-2 ** 62, -(2 ** 64)])
        return self.pick([None, 1.5, "a", True, [0, 0], (0, 5), (-1, -1), ()])

    def shape(self, hostile=0.3):
        if self.r.random() < hostile:
            return self.pick(BAD_SHAPES)
        return self.pick(SMALL_SHAPES)

    def size(self):
        r = self.r.random()
        if r < 0.6:
            return self.r.randint(-3, 6)
        return self.pick(HUGE_SIZES + [-2 ** 62, None, 1.5, "x", float("nan"), True])

    def dtype(self, float_only=False):
        if float_only:
            return self.pick([self.tl.float32, self.tl.float64])
        return self.pick(self.dtypes)

    def values(self, n):
        special = [0.0, -0.0, 1.0, -1.0, float("nan"), float("inf"), -float("inf"), 1e300, 3.5, -2.0]
        return [self.pick(special) if self.r.random() < 0.2 else self.r.uniform(-3, 3)
                for _ in range(n)]

    def tensor(self, shape=None, dtype=None, layout=True, float_only=False):
        """A tensor of the given or a random small shape and dtype, often a view:
        transposed, strided, reversed or expanded (stride 0)."""
        tl, np = self.tl, self.np
        shape = self.pick(SMALL_SHAPES) if shape is None else tuple(shape)
        dtype = self.dtype(float_only) if dtype is None else dtype
        n = int(np.prod(shape)) if shape else 1
        base = np.array(self.values(max(n, 1))[:n] if n else [], dtype=np.float64).reshape(shape)
        t = tl.tensor(base)
        try:
            t = t.to(dtype)
        except Exception:
            t = tl.tensor(np.round(np.nan_to_num(base)).astype(np.int64)).to(dtype)
        if not layout or not shape:
            return t
        r = self.r.random()
        if r < 0.15 and len(shape) >= 2:
            big = tl.zeros(shape[::-1], dtype=dtype)
            big.copy_(t.transpose(0, -1) if len(shape) == 2 else t.permute(*range(len(shape) - 1, -1, -1)))
            return big.permute(*range(len(shape) - 1, -1, -1))
        if r < 0.3:
            wide = tl.zeros(shape[:-1] + (shape[-1] * 2,), dtype=dtype)
            view = wide[..., ::2]
            view.copy_(t)
            return view
        if r < 0.4 and shape[0] == 1:
            return t.expand(3, *shape[1:])
        if r < 0.5:
            return t.flip(0)
        return t

    def index(self, n=3, dtype=None):
        tl = self.tl
        vals = [self.r.randint(-n - 2, n + 2) for _ in range(self.r.randint(0, 4))]
        if self.r.random() < 0.1:
            vals.append(self.pick(HUGE[:3] + [-2 ** 63]))
        return tl.tensor(vals, dtype=dtype or self.pick([tl.int64, tl.int64, tl.int32, tl.uint8,
                                                          tl.bool, tl.float32, tl.int16]))

    def anything(self):
        tl, np = self.tl, self.np
        return self.pick([None, 0, -1, 2 ** 70, 1.5, float("nan"), "abc", b"xy", [], [[1], [2, 3]],
                          (0, 1), object(), tl.float32, np.array([1, None], dtype=object),
                          np.zeros((2, 3)), {"a": 1}, self.tensor(), self.tensor(), self.tensor()])


# ---- cases: each returns (description, thunk, oracle-or-None) ----------------------------
# An oracle is a function of the result that raises AssertionError on a wrong value.

CASES = {}


def case(area):
    def register(fn):
        CASES.setdefault(area, []).append(fn)
        return fn
    return register


def _np_equal(np, got, want, dtype_check=False):
    got_a = np.asarray(got)
    want_a = np.asarray(want)
    assert got_a.shape == want_a.shape, (got_a.shape, want_a.shape)
    if got_a.dtype.kind in "fc" or want_a.dtype.kind in "fc":
        assert np.allclose(got_a, want_a, equal_nan=True, rtol=1e-5, atol=1e-6), (got_a, want_a)
    else:
        assert (got_a == want_a).all(), (got_a, want_a)


@case("shape")
def c_reshape_view(c):
    t = c.tensor()
    fn = c.pick(["reshape", "view", "expand", "broadcast_to", "new_empty", "new_zeros", "repeat",
                 "tile", "permute", "unflatten", "resize_"])
    args = [c.size() for _ in range(c.r.randint(0, 4))]
    if c.r.random() < 0.3:
        args = [c.pick(BAD_SHAPES)]
    if fn == "unflatten":
        args = [c.dim(t.ndim), c.pick(BAD_SHAPES + [(-1, -1), (2, -1), (1,)])]
    return f"{c.tl.Tensor.__name__}.{fn}({t.shape}, {t.dtype}, {args})", lambda: getattr(t, fn)(*args), None


@case("shape")
def c_as_strided(c):
    t = c.tensor()
    size = c.pick(BAD_SHAPES + SMALL_SHAPES + [(3, 3), (100,)])
    stride = c.pick([(1,), (0,), (-1,), (2 ** 62,), (1, 1), (0, 0), (3, 1), (2 ** 61, 4), (1, 1, 1)])
    off = c.pick([None, 0, 1, -1, 2 ** 62, 10 ** 3])
    return (f"as_strided({t.shape}, {size}, {stride}, {off})",
            lambda: c.tl.as_strided(t, size, stride, off), None)


@case("shape")
def c_narrow_unfold_select(c):
    t = c.tensor()
    fn = c.pick(["narrow", "unfold", "select", "movedim", "swapaxes", "diagonal", "squeeze",
                 "unsqueeze", "flatten", "split", "chunk", "tensor_split", "roll", "flip", "rot90",
                 "diag_embed", "triu", "tril", "repeat_interleave", "unbind", "transpose"])
    arity = {"narrow": 3, "unfold": 3, "select": 2, "movedim": 2, "swapaxes": 2, "diagonal": 3,
             "squeeze": 1, "unsqueeze": 1, "flatten": 2, "split": 2, "chunk": 2, "tensor_split": 2,
             "roll": 2, "flip": 1, "rot90": 2, "diag_embed": 3, "triu": 1, "tril": 1,
             "repeat_interleave": 2, "unbind": 1, "transpose": 2}[fn]
    args = [c.dim(t.ndim) if c.r.random() < 0.5 else c.size() for _ in range(arity)]
    if fn in ("roll", "flip", "rot90") and c.r.random() < 0.4:
        args = [[c.dim(t.ndim) for _ in range(c.r.randint(0, 3))] for _ in range(arity)]
    return f"{fn}({t.shape}, {t.dtype}, {args})", lambda: getattr(c.tl, fn)(t, *args), None


@case("shape")
def c_cat_stack(c):
    tl = c.tl
    fn = c.pick(["cat", "stack", "hstack", "vstack", "dstack", "column_stack", "concatenate",
                 "block_diag", "cartesian_prod", "meshgrid", "broadcast_tensors", "atleast_3d"])
    ts = [c.tensor() for _ in range(c.r.randint(0, 3))]
    if c.r.random() < 0.2:
        ts.append(c.pick([None, 3, [1, 2], "x"]))
    kw = {}
    if fn in ("cat", "stack", "concatenate") and c.r.random() < 0.7:
        kw["dim"] = c.dim(2)
    if fn in ("cat", "stack") and c.r.random() < 0.3:
        kw["out"] = c.tensor()
    f = getattr(tl, fn, None)
    if f is None:
        return None
    if fn in ("block_diag", "cartesian_prod", "meshgrid", "broadcast_tensors", "atleast_3d"):
        return f"{fn}(*{[getattr(x, 'shape', x) for x in ts]})", lambda: f(*ts), None
    return f"{fn}({[getattr(x, 'shape', x) for x in ts]}, {kw.keys()})", lambda: f(ts, **kw), None


@case("index")
def c_index_ops(c):
    tl = c.tl
    t = c.tensor()
    fn = c.pick(["index_select", "gather", "take", "take_along_dim", "index_fill", "index_add",
                 "index_copy", "scatter", "scatter_add", "scatter_reduce", "put", "index_put",
                 "masked_fill", "masked_select", "masked_scatter", "nonzero", "searchsorted",
                 "bucketize", "embedding_like"])
    idx = c.index(max(t.shape or (1,)))
    if c.r.random() < 0.4 and t.ndim:
        idx = idx.reshape(-1, *([1] * (t.ndim - 1))) if idx.numel() else tl.zeros((0,) * t.ndim,
                                                                                dtype=tl.int64)
    d = c.dim(t.ndim)
    src = c.tensor(shape=c.pick([idx.shape, t.shape, (), (5,)]), dtype=c.pick([t.dtype, t.dtype,
                                                                              c.dtype()]))
    mask = c.tensor(shape=c.pick([t.shape, (), (1,), (7,)]), dtype=c.pick([tl.bool, tl.bool,
                                                                           tl.uint8, tl.float32]))
    calls = {
        "index_select": lambda: tl.index_select(t, d, idx),
        "gather": lambda: tl.gather(t, d, idx),
        "take": lambda: tl.take(t, idx),
        "take_along_dim": lambda: tl.take_along_dim(t, idx, d),
        "index_fill": lambda: t.clone().index_fill_(d, idx, c.pick([1.5, float("nan"), 2 ** 70])),
        "index_add": lambda: t.index_add(d, idx, src, alpha=c.pick([1, 2.5, None])),
        "index_copy": lambda: t.clone().index_copy_(d, idx, src),
        "scatter": lambda: t.scatter(d, idx, src),
        "scatter_add": lambda: t.scatter_add(d, idx, src),
        "scatter_reduce": lambda: t.scatter_reduce(d, idx, src, c.pick(["sum", "prod", "mean",
                                                                        "amax", "bogus", None])),
        "put": lambda: t.clone().put_(idx, src, accumulate=c.pick([True, False])),
        "index_put": lambda: t.clone().index_put_((idx,), src, accumulate=c.pick([True, False])),
        "masked_fill": lambda: t.masked_fill(mask, c.pick([1, 2.5, src])),
        "masked_select": lambda: tl.masked_select(t, mask),
        "masked_scatter": lambda: t.masked_scatter(mask, src),
        "nonzero": lambda: tl.nonzero(t, as_tuple=c.pick([True, False])),
        "searchsorted": lambda: tl.searchsorted(t, src, side=c.pick(["left", "right", "up"])),
        "bucketize": lambda: tl.bucketize(src, t),
        "embedding_like": lambda: t[idx],
    }
    return (f"{fn}({t.shape}, {t.dtype}, stride={t.stride()}, dim={d}, idx={idx.tolist()} "
            f"{idx.dtype}, src={src.shape} {src.dtype}, mask={mask.shape} {mask.dtype})"), calls[fn], None


@case("index")
def c_getitem_setitem(c):
    tl, np = c.tl, c.np
    t = c.tensor()
    keys = [0, -1, 5, -7, 2 ** 63, -2 ** 63, 2 ** 70, slice(None, None, -1), slice(0, 0, 0),
            slice(2 ** 63, None), slice(None, None, 2 ** 62), None, Ellipsis, (Ellipsis, Ellipsis),
            [0, 0, -1], [[0], [1]], [True, False], 1.5, "a", [1, [2]], (0, 0, 0, 0),
            np.array([0, 1]), np.array([True]), tl.tensor([0, 2]), tl.tensor(True),
            np.array([1, None], dtype=object), (slice(None), [0, 1], None)]
    key = c.pick(keys)
    value = c.pick([0, 1.5, float("nan"), 2 ** 70, None, "s", [1, 2], c.tensor(), c.tensor()])
    oracle = None
    a = None
    try:
        a = t.numpy() if t.dtype not in (tl.bfloat16,) else None
    except Exception:
        a = None
    if c.r.random() < 0.5:
        def run():
            return t[key]
        if a is not None and not isinstance(key, (float, str)) and not (
                isinstance(key, tuple) and any(isinstance(k, list) for k in key)):
            def oracle(got):
                try:
                    want = a[key.numpy() if isinstance(key, tl.Tensor) else key]
                except Exception:
                    return  # NumPy refuses too; either outcome is acceptable
                _np_equal(np, got.numpy(), want)
        return f"t[{key!r}] t={t.shape} {t.dtype}", run, oracle

    def run():
        u = t.clone()
        u[key] = value
        return u
    return f"t[{key!r}] = {getattr(value, 'shape', value)!r} t={t.shape} {t.dtype}", run, None


@case("index")
def c_setitem_python_lists(c):
    """t[key] = [...] of Python numbers for every dtype: ints past the dtype
    and past int64 (raise), floats, bools, complex, NaN/inf (stored or
    refused, never a crash), nested and ragged lists.  Where the values are
    ones NumPy and PyTorch store alike (ints that fit, finite floats that fit
    an integer dtype truncated), the result is NumPy's."""
    tl, np = c.tl, c.np
    dtype = c.dtype()
    t = c.tensor(shape=c.pick([(3,), (4,), (2, 3), (3, 2)]), dtype=dtype)
    n0 = t.shape[0]
    kind = c.pick(["slice", "index", "mask", "tensor_index", "int"])
    key = {"slice": slice(0, 2), "index": [0, n0 - 1], "tensor_index": tl.tensor([n0 - 1, 0]),
           "mask": tl.tensor([True] + [False] * (n0 - 2) + [True]), "int": 1}[kind]
    pool = [0, 1, -1, True, False, 127, 128, 255, 256, -129, 300, -5, 2 ** 31, -2 ** 31 - 1,
            2 ** 63 - 1, 2 ** 63, -2 ** 63, -2 ** 63 - 1, 2 ** 64 - 1, 2 ** 64, 1.5, -2.7, 0.1,
            1e40, float("nan"), float("inf"), -float("inf"), 1 + 2j, 3 + 0j, 65504.0, 1e-320]
    inner = t.shape[1:] if kind != "int" else t.shape[1:]
    count = 2 if kind != "int" else None

    def row():
        if not inner:
            return c.pick(pool)
        return [c.pick(pool) for _ in range(inner[0])]
    if kind == "int":
        value = row() if inner else [c.pick(pool)] if c.r.random() < 0.3 else c.pick(pool)
    else:
        value = [row() for _ in range(count)]
    r = c.r.random()
    if r < 0.1 and isinstance(value, list) and value:
        value = value[:-1] + [[value[-1], 1]]  # ragged
    elif r < 0.2 and isinstance(value, list):
        value = tuple(value)
    elif r < 0.25 and isinstance(value, list):
        value = [value]  # a leading 1 dim
    flat = np.ravel(np.array(value, dtype=object)).tolist() if not (
        isinstance(value, (list, tuple)) and r < 0.1) else None
    src = t.clone()

    def run():
        u = src.clone()
        u[key] = value
        return u
    oracle = None
    if flat is not None and dtype != tl.bfloat16 and all(
            type(v) in (int, bool, float) for v in flat):
        nd = np.dtype(str(dtype).split(".")[-1])
        ints = [v for v in flat if type(v) is int]
        if nd.kind in "iu":
            info = np.iinfo(nd)
            # PyTorch's rule: an unsigned dtype below 64 bits takes -max..max
            # (the negatives wrap); uint64 no negative int in a list, any
            # int64 alone (t[1] = -1 wraps, as fill_(-1) does)
            lo = -int(info.max) if nd.kind == "u" and nd.itemsize < 8 else \
                -2 ** 63 if nd.kind == "u" and not isinstance(value, (list, tuple)) else \
                int(info.min)
            bad_int = any(not lo <= v <= info.max for v in ints)
            floats_ok = all(type(v) is not float or (math.isfinite(v) and
                            info.min <= math.trunc(v) <= info.max) for v in flat)
        else:
            bad_int = any(not -2 ** 63 <= v < 2 ** 64 for v in ints) or (
                nd.kind == "b" and any(v >= 2 ** 63 for v in ints))
            floats_ok = nd.kind != "b"  # bool of NaN: True both, but keep it simple
        base = src.cpu().numpy()
        if nd.kind in "iu" and bad_int:
            def oracle(got):
                raise AssertionError(f"stored {value!r} into {dtype}: {got.tolist()}")
        elif not bad_int and floats_ok:
            def oracle(got):
                want = base.copy()
                k = key.numpy() if isinstance(key, tl.Tensor) else key
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        want[k] = value
                except Exception:
                    return  # NumPy refuses it: either outcome is acceptable
                _np_equal(np, got.cpu().numpy(), want)
    return f"t[{key!r}] = {value!r} t={tuple(t.shape)} {dtype}", run, oracle


@case("inplace")
def c_inplace_out(c):
    tl = c.tl
    a = c.tensor()
    b = c.tensor(shape=c.pick([a.shape, (), (1,), (3,)]))
    fn = c.pick(["add", "mul", "sub", "div", "pow", "atan2", "maximum", "clamp", "where", "lerp",
                 "addcmul", "copy_", "fill_", "zero_", "exp", "abs", "neg", "bitwise_and",
                 "remainder", "fmod", "floor_divide", "matmul", "sum", "cumsum", "sort", "max"])
    out = c.pick([None, c.tensor(), a, b, a.expand_as(a) if a.ndim else a,
                  tl.zeros(1).expand(4) if c.r.random() < 0.5 else c.tensor()])
    if fn in ("copy_", "fill_", "zero_"):
        dst = c.pick([a, a.expand(2, *a.shape), a.t() if a.ndim == 2 else a,
                      tl.zeros(3).expand(2, 3), a.unsqueeze(0).expand(2, *a.shape)])
        arg = {"copy_": [b], "fill_": [c.pick([1, 2.5, 2 ** 70, float("nan"), b, True, "x"])],
               "zero_": []}[fn]
        return (f"{fn} dst={dst.shape} stride={dst.stride()} {dst.dtype} arg={arg!r:.60}",
                lambda: getattr(dst, fn)(*arg), None)
    f = getattr(tl, fn)
    inplace = c.r.random() < 0.3 and hasattr(a, fn + "_")
    if inplace:
        dst = c.pick([a, a.expand(2, *a.shape) if a.ndim < 3 else a, tl.zeros(1).expand(3)])
        return (f"{fn}_ dst={dst.shape} stride={dst.stride()} {dst.dtype}, b={b.shape} {b.dtype}",
                lambda: getattr(dst, fn + "_")(b) if fn not in ("exp", "abs", "neg", "zero_")
                else getattr(dst, fn + "_")(), None)
    args = {"where": [a.to(tl.bool) if a.dtype != tl.bool else a, a, b], "lerp": [a, b, 0.5],
            "addcmul": [a, a, b], "clamp": [a, b, None], "exp": [a], "abs": [a], "neg": [a],
            "sum": [a, c.dim(a.ndim)], "cumsum": [a, c.dim(a.ndim)], "sort": [a, c.dim(a.ndim)],
            "max": [a, c.dim(a.ndim)]}.get(fn, [a, b])
    kw = {"out": out}
    if fn in ("sort", "max") and out is not None:
        kw["out"] = c.pick([(out, c.tensor()), (out, out), out, (out,)])
    return (f"{fn}(a={a.shape} {a.dtype} stride={a.stride()}, b={b.shape} {b.dtype}, "
            f"out={getattr(out, 'shape', None)} {getattr(out, 'dtype', None)} "
            f"same={'a' if out is a else 'b' if out is b else '-'})"), lambda: f(*args, **kw), None


@case("math")
def c_products(c):
    tl = c.tl
    fn = c.pick(["matmul", "mm", "bmm", "mv", "dot", "vdot", "outer", "tensordot", "einsum", "kron",
                 "addmm", "baddbmm", "inner", "chain_matmul", "linalg.multi_dot", "cross"])
    a = c.tensor(shape=c.pick(SMALL_SHAPES + [(3, 3), (2, 3, 3), (3, 0), (0, 3)]))
    b = c.tensor(shape=c.pick(SMALL_SHAPES + [(3, 3), (2, 3, 3), (3, 2), (0, 2)]), dtype=c.pick(
        [a.dtype, a.dtype, c.dtype()]))
    if fn == "tensordot":
        dims = c.pick([0, 1, 2, -1, 5, 2 ** 63, ([0], [0]), ([0, 0], [1, 1]), ([5], [0]), ([], []),
                       ([0], [0, 1]), "x"])
        return f"tensordot({a.shape}, {b.shape}, dims={dims})", lambda: tl.tensordot(a, b, dims=dims), None
    if fn == "einsum":
        eq = c.pick(["ij,jk->ik", "ii->i", "i,i->", "...,...->...", "ij->ji", "ij,jk", "i->ii",
                     "ab,bc->ac,", "->", "i", "a...b,b...->a", "ij,ij,ij->", "Aa,aB->AB", "i j ,j",
                     "ij->k", "iij->j", ",->", "..ij", "ij->ij->ij", "\u00e9i,i->"])
        ops = c.pick([[a], [a, b], [a, b, a], []])
        return f"einsum({eq!r}, {[o.shape for o in ops]})", lambda: tl.einsum(eq, *ops), None
    if fn == "linalg.multi_dot":
        return f"multi_dot([{a.shape}, {b.shape}])", lambda: tl.linalg.multi_dot([a, b]), None
    if fn in ("addmm", "baddbmm"):
        d = c.tensor()
        return f"{fn}({d.shape}, {a.shape}, {b.shape})", lambda: getattr(tl, fn)(d, a, b, beta=c.pick(
            [0, 1, float("nan")]), alpha=c.pick([0, 2, 2 ** 70])), None
    if fn == "chain_matmul":
        return f"chain_matmul({a.shape},{b.shape})", lambda: tl.chain_matmul(a, b), None
    if fn == "cross":
        return f"cross({a.shape},{b.shape})", lambda: tl.cross(a, b, dim=c.dim(2)), None
    f = getattr(tl, fn)
    np = c.np

    def oracle(got):
        if a.dtype != b.dtype or a.dtype in (tl.bfloat16, tl.float16, tl.bool) or fn not in (
                "matmul", "outer", "kron", "inner"):
            return
        if not (np.isfinite(a.numpy()).all() and np.isfinite(b.numpy()).all()):
            return  # NumPy's BLAS paths differ on inf * 0 (np.inner(inf, 0.0) is 0, PyTorch's nan)
        want = {"matmul": np.matmul, "outer": np.outer, "kron": np.kron, "inner": np.inner}[fn](
            a.numpy(), b.numpy())
        _np_equal(np, got.numpy(), want)
    return f"{fn}({a.shape} {a.dtype}, {b.shape} {b.dtype})", lambda: f(a, b), oracle


@case("math")
def c_reductions(c):
    tl = c.tl
    t = c.tensor()
    fn = c.pick(["sum", "mean", "prod", "std", "var", "amax", "amin", "argmax", "argmin",
                 "logsumexp", "norm", "median", "nanmedian", "mode", "kthvalue", "topk", "quantile",
                 "cumsum", "cumprod", "cummax", "logcumsumexp", "sort", "argsort", "unique",
                 "histc", "bincount", "count_nonzero", "all", "any", "diff", "trapezoid",
                 "renorm", "var_mean", "aminmax", "unique_consecutive", "cov", "corrcoef"])
    d = c.pick([c.dim(t.ndim), None, (0, 0), (0, -1), [], (5,)])
    extra = {"kthvalue": [c.size()], "topk": [c.size()], "quantile": [c.pick(
        [0.5, -0.1, 1.5, float("nan"), tl.tensor([0.1, 2.0])])], "histc": [], "bincount": [],
             "renorm": [c.pick([2, 0, -1, float("inf")]), d, c.pick([1.0, -1.0])],
             "diff": [c.size(), d]}
    f = getattr(tl, fn)
    if fn in extra:
        args = [t] + extra[fn]
        if fn in ("kthvalue", "topk", "quantile"):
            args.append(d)
    elif fn in ("histc", "bincount", "count_nonzero", "cov", "corrcoef", "unique",
                "unique_consecutive"):
        args = [t]
    else:
        args = [t, d]
    kw = {}
    if fn == "histc":
        kw = {"bins": c.size(), "min": c.pick([0, float("nan"), 5]), "max": c.pick([0, 1, float("inf")])}
    if fn == "bincount":
        kw = {"minlength": c.size(), "weights": c.pick([None, c.tensor()])}
    if fn in ("std", "var", "var_mean") and c.r.random() < 0.5:
        kw = {"correction": c.pick([0, 1, 2 ** 70, -1, 1.5, 100])}
    return (f"{fn}({t.shape} {t.dtype} stride={t.stride()}, {args[1:]!r:.80}, {kw!r:.60})",
            lambda: f(*args, **kw), None)


@case("nn")
def c_conv_pool(c):
    tl = c.tl
    F = tl.nn.functional
    nd = c.pick([1, 2, 3])
    fn = c.pick([f"conv{nd}d", f"conv_transpose{nd}d", f"max_pool{nd}d", f"avg_pool{nd}d",
                 f"adaptive_avg_pool{nd}d", f"adaptive_max_pool{nd}d", f"lp_pool{nd}d" if nd < 3
                 else "lp_pool2d", "fold", "unfold", f"max_unpool{nd}d", "pixel_shuffle",
                 "pixel_unshuffle", "channel_shuffle" if hasattr(F, "channel_shuffle") else "unfold"])
    shp = c.pick([(1, 2) + (5,) * nd, (2,) + (4,) * nd, (1, 2) + (0,) * nd, (1, 0) + (3,) * nd,
                  (1, 2) + (1,) * nd, (), (1, 2, 3), c.pick(BAD_SHAPES[:3]) if False else (1, 1)])
    x = c.tensor(shape=shp, dtype=c.pick([tl.float32, tl.float64, tl.float32, c.dtype()]))

    def k():
        return c.pick([1, 2, 3, 0, -1, 2 ** 62, 2 ** 63, (2,) * nd, (0,) * nd, (1,) * (nd + 1),
                       (2 ** 31,) * nd, None, 1.5, "x", ()])
    kw = {}
    if fn.startswith("conv"):
        w = c.tensor(shape=c.pick([(2, 2) + (3,) * nd, (2, 1) + (2,) * nd, (0, 2) + (1,) * nd,
                                   (2, 2) + (0,) * nd, (2, 2), (3, 2) + (9,) * nd]),
                     dtype=c.pick([x.dtype, x.dtype, c.dtype()]))
        b = c.pick([None, c.tensor(shape=(2,)), c.tensor(shape=(3,)), c.tensor(shape=())])
        for key in ("stride", "padding", "dilation"):
            if c.r.random() < 0.5:
                kw[key] = c.pick([k(), "same", "valid", "full"]) if key == "padding" else k()
        if c.r.random() < 0.3:
            kw["groups"] = c.pick([0, -1, 2, 3, 2 ** 63])
        if "transpose" in fn and c.r.random() < 0.4:
            kw["output_padding"] = k()
        return (f"{fn}(x={x.shape} {x.dtype}, w={w.shape} {w.dtype}, b={getattr(b, 'shape', b)}, "
                f"{kw})", lambda: getattr(F, fn)(x, w, b, **kw), None)
    if fn in ("fold", "unfold"):
        args = {"kernel_size": k(), "dilation": c.pick([1, k()]), "padding": c.pick([0, k()]),
                "stride": c.pick([1, k()])}
        if fn == "fold":
            args["output_size"] = c.pick([(4, 4), (0, 0), (-1, 4), 3, (2 ** 62, 2), k()])
        return f"{fn}({x.shape}, {args})", lambda: getattr(F, fn)(x, **args), None
    if fn.startswith("adaptive"):
        # (2**31 positions is a real, large allocation: not a hostile size here)
        os_ = c.pick([1, 2, 3, 0, -1, 2 ** 62, 2 ** 63, (2,) * nd, (0,) * nd, (1,) * (nd + 1), None,
                      1.5, "x", (), (None,) * nd, -3, (2 ** 62,) * nd])
        return f"{fn}({x.shape} {x.dtype}, {os_})", lambda: getattr(F, fn)(x, os_), None
    if fn.startswith("max_unpool"):
        idx = c.index(10, dtype=tl.int64)
        return (f"{fn}({x.shape}, {idx.tolist()}, k={2})",
                lambda: getattr(F, fn)(x, idx.reshape(x.shape) if idx.numel() == x.numel() else idx,
                                       2, output_size=c.pick([None, (9,) * nd, (2 ** 62,) * nd])),
                None)
    if fn in ("pixel_shuffle", "pixel_unshuffle", "channel_shuffle"):
        s = c.size()
        return f"{fn}({x.shape}, {s})", lambda: getattr(F, fn)(x, s), None
    kw = {"kernel_size": k()}
    for key in ("stride", "padding", "dilation", "ceil_mode"):
        if c.r.random() < 0.4:
            kw[key] = k() if key != "ceil_mode" else c.pick([True, False])
    if fn.startswith("avg") and c.r.random() < 0.3:
        kw["divisor_override"] = c.pick([0, -1, 2 ** 63, 1.5, None])
    if fn.startswith("lp_pool"):
        kw.pop("padding", None)
        kw.pop("dilation", None)
        kw["norm_type"] = c.pick([0, 1, 2, float("inf"), -1, float("nan")])
    if fn.startswith("avg"):
        kw.pop("dilation", None)
    if fn.startswith("max") and c.r.random() < 0.3:
        kw["return_indices"] = True
    return f"{fn}({x.shape} {x.dtype}, {kw})", lambda: getattr(F, fn)(x, **kw), None


@case("nn")
def c_interp_grid(c):
    tl = c.tl
    F = tl.nn.functional
    fn = c.pick(["interpolate", "grid_sample", "affine_grid", "pad", "upsample"])
    x = c.tensor(shape=c.pick([(1, 1, 4), (1, 2, 3, 3), (1, 1, 2, 2, 2), (1, 1, 0, 3), (2,), (),
                               (1, 0, 3, 3)]), dtype=c.pick([tl.float32, tl.float64, c.dtype()]))
    if fn in ("interpolate", "upsample"):
        kw = {}
        if c.r.random() < 0.5:
            kw["size"] = c.pick([0, -1, 3, 2 ** 62, (3, 3), (3,), (1, 2, 3, 4), 1.5, None])
        if c.r.random() < 0.6:
            kw["scale_factor"] = c.pick([0, -1.0, 0.5, 2, 1e30, float("nan"), float("inf"), (2, 2),
                                         (2,), 2 ** 62])
        kw["mode"] = c.pick(["nearest", "linear", "bilinear", "bicubic", "trilinear", "area",
                             "nearest-exact", "bogus"])
        if c.r.random() < 0.3:
            kw["align_corners"] = c.pick([True, False, 3])
        return f"interpolate({x.shape} {x.dtype}, {kw})", lambda: F.interpolate(x, **kw), None
    if fn == "grid_sample":
        g = c.tensor(shape=c.pick([(1, 2, 2, 2), (1, 3, 3, 2), (1, 2, 2, 2, 3), (1, 2, 2, 3),
                                   (2, 2, 2, 2), (1, 0, 0, 2)]), dtype=c.pick([x.dtype, tl.float64]))
        kw = {"mode": c.pick(["bilinear", "nearest", "bicubic", "x"]),
              "padding_mode": c.pick(["zeros", "border", "reflection", "y"]),
              "align_corners": c.pick([True, False])}
        if c.r.random() < 0.3:
            g = g * 1e30
        return f"grid_sample({x.shape}, {g.shape}, {kw})", lambda: F.grid_sample(x, g, **kw), None
    if fn == "affine_grid":
        th = c.tensor(shape=c.pick([(1, 2, 3), (1, 3, 4), (2, 2, 3), (1, 3, 3), (0, 2, 3)]))
        size = c.pick([(1, 1, 2, 2), (1, 1, 2, 2, 2), (2, 1, 0, 2), (1, 1, -2, 2), (1, 1, 2 ** 62, 2 ** 62)])
        return f"affine_grid({th.shape}, {size})", lambda: F.affine_grid(th, size, align_corners=False), None
    pad = c.pick([(1, 1), (2 ** 62, 0), (-5, -5), (1,), (1, 1, 1, 1, 1, 1, 1, 1), (), (-1, 2),
                  (3, 3, 3, 3), (2 ** 61, 2 ** 61), [1.5, 1]])
    mode = c.pick(["constant", "reflect", "replicate", "circular", "bogus"])
    value = c.pick([None, 0, float("nan"), 2 ** 70, "v"]) if mode == "constant" else None
    np = c.np

    def oracle(got):
        if mode != "constant" or value is None or x.dtype in (tl.bfloat16,) or not isinstance(
                value, (int, float)) or abs(value) > 1e9:
            return
        if any(p < 0 for p in pad) or len(pad) % 2 or len(pad) // 2 > x.ndim:
            return
        widths = [(0, 0)] * x.ndim
        for i in range(len(pad) // 2):
            widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
        want = np.pad(x.numpy(), widths, constant_values=value)
        _np_equal(np, got.numpy(), want)
    return f"pad({x.shape} {x.dtype}, {pad}, {mode}, {value!r})", lambda: F.pad(
        x, pad, mode=mode, value=value), oracle


@case("nn")
def c_embedding_losses(c):
    tl = c.tl
    F = tl.nn.functional
    fn = c.pick(["embedding", "embedding_bag", "one_hot", "cross_entropy", "nll_loss", "mse_loss",
                 "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
                 "ctc_loss", "multi_margin_loss", "multilabel_margin_loss", "margin_ranking_loss",
                 "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "huber_loss",
                 "smooth_l1_loss", "hinge_embedding_loss", "cosine_embedding_loss",
                 "multilabel_soft_margin_loss", "soft_margin_loss", "l1_loss"])
    w = c.tensor(shape=c.pick([(5, 3), (0, 3), (5,), (5, 0)]), dtype=c.pick([tl.float32, tl.float64,
                                                                             c.dtype()]))
    idx = c.index(5, dtype=c.pick([tl.int64, tl.int32, tl.float32, tl.bool, tl.uint8]))
    if fn == "embedding":
        kw = {"padding_idx": c.pick([None, 0, -1, 5, -6, 2 ** 63]),
              "max_norm": c.pick([None, None, 1.0, -1.0, 0.0, float("nan")])}
        return f"embedding({idx.tolist()} {idx.dtype}, {w.shape} {w.dtype}, {kw})", lambda: F.embedding(
            idx, w.clone(), **kw), None
    if fn == "embedding_bag":
        off = c.pick([None, tl.tensor([0]), tl.tensor([0, 5]), tl.tensor([3, 0]), tl.tensor([-1]),
                      tl.tensor([0, 2 ** 62])])
        mode = c.pick(["sum", "mean", "max", "x"])
        return (f"embedding_bag({idx.tolist()}, {w.shape}, offsets={off}, mode={mode})",
                lambda: F.embedding_bag(idx, w, off, mode=mode, include_last_offset=c.pick(
                    [True, False]), per_sample_weights=c.pick([None, c.tensor()])), None)
    if fn == "one_hot":
        n = c.pick([-1, 0, 3, 2 ** 62, -5, 2 ** 40])
        return f"one_hot({idx.tolist()} {idx.dtype}, {n})", lambda: F.one_hot(idx, n), None
    x = c.tensor(shape=c.pick([(3, 4), (3,), (), (0, 4), (3, 4, 2), (2, 5)]),
                 dtype=c.pick([tl.float32, tl.float64, c.dtype()]))
    y = c.pick([c.index(4, dtype=c.pick([tl.int64, tl.int32, tl.uint8, tl.float32])),
                c.tensor(shape=x.shape), c.tensor(), c.tensor(shape=x.shape, dtype=tl.int64)])
    kw = {}
    if c.r.random() < 0.4:
        kw["reduction"] = c.pick(["mean", "sum", "none", "bogus", None, 3])
    if fn in ("cross_entropy", "nll_loss") and c.r.random() < 0.4:
        kw["ignore_index"] = c.pick([-100, 0, 2 ** 63, -1])
        kw["weight"] = c.pick([None, c.tensor(shape=(4,)), c.tensor(shape=(2,))])
    if fn == "cross_entropy" and c.r.random() < 0.3:
        kw["label_smoothing"] = c.pick([0.1, -0.5, 1.5, float("nan")])
    if fn == "ctc_loss":
        lp = c.tensor(shape=(5, 2, 4), float_only=True).log_softmax(-1)
        tg = c.index(4, dtype=tl.int64)
        il = c.pick([tl.tensor([5, 5]), tl.tensor([9, 5]), tl.tensor([-1, 0]), (5, 5), (2 ** 62, 1)])
        tlen = c.pick([tl.tensor([1, 1]), tl.tensor([10, 0]), tl.tensor([-1, 2]), (1, 1)])
        return (f"ctc_loss({lp.shape}, {tg.tolist()}, {il}, {tlen})",
                lambda: F.ctc_loss(lp, tg, il, tlen, blank=c.pick([0, 4, -1, 2 ** 62])), None)
    f = getattr(F, fn)
    if fn in ("margin_ranking_loss", "triplet_margin_loss", "cosine_embedding_loss",
              "gaussian_nll_loss"):
        z = c.pick([c.tensor(shape=x.shape), c.tensor()])
        return f"{fn}({x.shape}, {y.shape}, {z.shape}, {kw})", lambda: f(x, y, z, **kw), None
    return (f"{fn}({x.shape} {x.dtype}, {y.shape} {y.dtype} {y.tolist()!r:.40}, {kw!r:.80})",
            lambda: f(x, y, **kw), None)


@case("nn")
def c_norms_misc(c):
    tl = c.tl
    F = tl.nn.functional
    fn = c.pick(["batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm",
                 "local_response_norm", "normalize", "softmax", "log_softmax", "glu", "dropout",
                 "scaled_dot_product_attention", "linear", "bilinear", "prelu", "cdist", "pdist",
                 "cosine_similarity", "gumbel_softmax", "hardtanh", "threshold", "rrelu",
                 "multi_head_attention_forward" if False else "elu"])
    x = c.tensor(shape=c.pick([(2, 3), (2, 3, 4), (0, 3), (), (3,), (1, 3, 2, 2)]),
                 dtype=c.pick([tl.float32, tl.float64, c.dtype()]))
    f = getattr(F, fn)
    calls = {
        "batch_norm": lambda: f(x, c.pick([None, c.tensor(shape=(3,))]), c.pick(
            [None, c.tensor(shape=(3,)), c.tensor(shape=(2,))]), training=c.pick([True, False]),
            momentum=c.pick([0.1, None, -1, float("nan")]), eps=c.pick([1e-5, -1.0, 0.0])),
        "layer_norm": lambda: f(x, c.pick([(3,), (4,), (), (0,), (-1,), [2 ** 62], x.shape]),
                                weight=c.pick([None, c.tensor(shape=(3,)), c.tensor()])),
        "group_norm": lambda: f(x, c.pick([0, 1, 2, 3, -1, 2 ** 62]), weight=c.pick(
            [None, c.tensor(shape=(3,))])),
        "instance_norm": lambda: f(x, use_input_stats=c.pick([True, False]),
                                   running_mean=c.pick([None, c.tensor(shape=(3,))])),
        "rms_norm": lambda: f(x, c.pick([(3,), (4,), (), [-1]]), eps=c.pick([None, -1.0])),
        "local_response_norm": lambda: f(x, c.pick([0, 1, 2, -1, 2 ** 62])),
        "normalize": lambda: f(x, p=c.pick([2, 0, -1, float("inf"), float("nan")]), dim=c.dim(x.ndim)),
        "softmax": lambda: f(x, dim=c.dim(x.ndim), dtype=c.pick([None, tl.int64, tl.float64])),
        "log_softmax": lambda: f(x, dim=c.dim(x.ndim)),
        "glu": lambda: f(x, c.dim(x.ndim)),
        "dropout": lambda: f(x, p=c.pick([0.5, 0.0, 1.0, -0.1, 1.1, float("nan")]),
                             training=True, inplace=c.pick([True, False])),
        "scaled_dot_product_attention": lambda: f(x, c.tensor(shape=c.pick([x.shape, (2, 5, 4)])),
                                                  c.tensor(shape=c.pick([x.shape, (2, 5, 4)])),
                                                  attn_mask=c.pick([None, c.tensor(), c.tensor(
                                                      dtype=tl.bool)]), is_causal=c.pick(
                                                      [True, False]), dropout_p=c.pick([0.0, 2.0]),
                                                  scale=c.pick([None, 0.0, float("nan")])),
        "linear": lambda: f(x, c.tensor(shape=c.pick([(2, 3), (3,), (2, 4), ()])),
                            c.pick([None, c.tensor(shape=(2,)), c.tensor(shape=(5,))])),
        "bilinear": lambda: f(x, x, c.tensor(shape=c.pick([(2, 3, 3), (2, 3), (1, 3, 4)]))),
        "prelu": lambda: f(x, c.tensor(shape=c.pick([(1,), (3,), (2,), ()]))),
        "cdist": lambda: f(x, c.tensor(shape=c.pick([x.shape, (4, 3), (2, 4)])),
                           p=c.pick([2, 0, -1, float("inf"), float("nan")])),
        "pdist": lambda: f(x, p=c.pick([2, -1, 0])),
        "cosine_similarity": lambda: f(x, c.tensor(), dim=c.dim(x.ndim)),
        "gumbel_softmax": lambda: f(x, tau=c.pick([1.0, 0.0, -1.0]), dim=c.dim(x.ndim)),
        "hardtanh": lambda: f(x, min_val=c.pick([1.0, -1.0, float("nan")]), max_val=c.pick(
            [-1.0, 1.0]), inplace=c.pick([True, False])),
        "threshold": lambda: f(x, c.pick([0.5, float("nan"), 2 ** 70]), c.pick([1.0, "x"])),
        "rrelu": lambda: f(x, lower=c.pick([0.1, 0.9, -1.0]), upper=c.pick([0.3, 0.05]),
                           training=True),
        "elu": lambda: f(x, alpha=c.pick([1.0, -1.0, float("nan")]), inplace=c.pick([True, False])),
    }
    return f"{fn}({x.shape} {x.dtype} stride={x.stride()})", calls[fn], None


@case("linalg")
def c_linalg(c):
    tl = c.tl
    L = tl.linalg
    fn = c.pick(["inv", "det", "slogdet", "solve", "cholesky", "qr", "svd", "svdvals", "eig",
                 "eigh", "eigvals", "eigvalsh", "lstsq", "pinv", "matrix_rank", "matrix_norm",
                 "vector_norm", "norm", "matrix_power", "matrix_exp", "lu", "lu_factor", "lu_solve",
                 "cond", "cross", "householder_product", "tensorinv", "tensorsolve", "vander",
                 "solve_triangular", "cholesky_ex", "inv_ex", "ldl_factor", "diagonal", "vecdot"])
    x = c.tensor(shape=c.pick([(3, 3), (2, 3, 3), (0, 0), (2, 3), (3,), (), (1, 0, 0), (3, 2)]),
                 dtype=c.pick([tl.float32, tl.float64, tl.complex64, c.dtype()]))
    if c.r.random() < 0.2:
        x = x * float("nan")
    f = getattr(L, fn, None)
    if f is None:
        return None
    b = c.tensor(shape=c.pick([(3,), (3, 1), (2, 3, 2), (0,), (4,)]), dtype=c.pick([x.dtype, c.dtype()]))
    calls = {
        "solve": lambda: f(x, b, left=c.pick([True, False])),
        "lstsq": lambda: f(x, b, rcond=c.pick([None, -1.0]), driver=c.pick([None, "gelsd", "bad"])),
        "matrix_power": lambda: f(x, c.pick([0, -1, 3, 2 ** 62, -2 ** 63, 2 ** 70])),
        "matrix_norm": lambda: f(x, ord=c.pick(["fro", "nuc", 2, -2, 1, 3, float("inf"), "x"]),
                                 dim=c.pick([(-2, -1), (0, 0), (5, 6), (0,)])),
        "vector_norm": lambda: f(x, ord=c.pick([2, 0, -1, float("inf"), float("nan"), "x"]),
                                 dim=c.pick([None, 0, (0, 0), 5])),
        "norm": lambda: f(x, ord=c.pick([None, "fro", 2, "nuc", 0]), dim=c.pick([None, 0, (0, 1)])),
        "lu_solve": lambda: f(x, tl.tensor([1, 2, 3], dtype=tl.int32), b),
        "cross": lambda: f(x, b, dim=c.dim(2)),
        "householder_product": lambda: f(x, c.tensor(shape=c.pick([(3,), (4,), (2,)]))),
        "tensorinv": lambda: f(x, ind=c.pick([0, 1, 2, -1, 5])),
        "tensorsolve": lambda: f(x, b),
        "vander": lambda: f(b, N=c.pick([None, 0, -1, 3, 2 ** 62])),
        "solve_triangular": lambda: f(x, b, upper=c.pick([True, False])),
        "diagonal": lambda: f(x, offset=c.size()),
        "vecdot": lambda: f(x, b, dim=c.dim(2)),
        "matrix_rank": lambda: f(x, atol=c.pick([None, -1.0, float("nan")]), hermitian=c.pick(
            [True, False])),
        "pinv": lambda: f(x, hermitian=c.pick([True, False])),
        "cond": lambda: f(x, p=c.pick([None, 2, "fro", "nuc", 3])),
    }
    return (f"linalg.{fn}({x.shape} {x.dtype}, b={b.shape} {b.dtype})",
            calls.get(fn, lambda: f(x)), None)


@case("fft")
def c_fft(c):
    tl = c.tl
    fn = c.pick(["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
                 "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
                 "hfft2", "ihfftn"])
    x = c.tensor(shape=c.pick([(4,), (3, 4), (0,), (), (2, 0), (1,), (2, 3, 4)]), dtype=c.pick(
        [tl.float32, tl.float64, tl.complex64, tl.complex128, c.dtype()]))
    f = getattr(tl.fft, fn, None)
    if f is None:
        return None
    norm = c.pick([None, "ortho", "forward", "backward", "bogus", 3])
    if fn in ("fftfreq", "rfftfreq"):
        n = c.size()
        d = c.pick([1.0, 0.0, -1.0, float("nan"), "x"])
        return f"fft.{fn}({n}, {d})", lambda: f(n, d), None
    if fn in ("fftshift", "ifftshift"):
        dims = c.pick([None, 0, -1, 5, (0, 0), [], (2 ** 63,)])
        return f"fft.{fn}({x.shape}, {dims})", lambda: f(x, dims), None
    if fn.endswith("2") or fn.endswith("n"):
        s = c.pick([None, (0, 4), (-1, 2), (4,), (2 ** 62, 2), (3, 3, 3, 3), (), (-1, -1)])
        dim = c.pick([None, (0, 1), (0, 0), (-1,), (5, 6), ()])
        return (f"fft.{fn}({x.shape} {x.dtype}, s={s}, dim={dim}, norm={norm})",
                lambda: f(x, s=s, dim=dim, norm=norm), None)
    n = c.pick([None, 0, -1, 1, 3, 8, 2 ** 62, 2 ** 70, 1.5])
    dim = c.dim(x.ndim)
    np = c.np

    def oracle(got):
        if fn != "fft" or norm not in (None, "ortho", "forward", "backward") or x.dtype not in (
                tl.float64, tl.complex128) or not isinstance(n, (int, type(None))) or not isinstance(
                dim, int) or isinstance(dim, bool) or (n or 0) > 64:
            return
        try:
            want = np.fft.fft(x.numpy(), n=n, axis=dim, norm=norm)
        except Exception:
            return
        _np_equal(np, got.numpy(), want)
    return f"fft.{fn}({x.shape} {x.dtype}, n={n}, dim={dim}, norm={norm})", lambda: f(
        x, n=n, dim=dim, norm=norm), oracle


@case("numpy")
def c_numpy_ns(c):
    tl = c.tl
    tnp = tl.numpy
    np = c.np
    fn = c.pick(["reshape", "astype", "frombuffer", "arange", "linspace", "logspace", "full",
                 "eye", "tri", "asarray", "array", "zeros", "empty", "ones", "identity",
                 "broadcast_to", "take", "repeat", "moveaxis", "squeeze", "expand_dims", "pad",
                 "split", "concat", "stack", "clip", "where", "unique_values", "tile", "roll",
                 "argsort", "searchsorted", "meshgrid", "diff", "cumulative_sum", "histogram",
                 "percentile", "bincount", "fromiter", "interp", "polyval", "trace"])
    x = c.tensor(layout=True)
    a = None if x.dtype == tl.bfloat16 else x.numpy()
    f = getattr(tnp, fn, None)
    if f is None:
        return None

    def same(want_fn):
        def oracle(got):
            if a is None:
                return
            try:
                want = want_fn()
            except Exception:
                return
            _np_equal(np, got, want)
        return oracle
    if fn == "reshape":
        s = c.pick([(-1, -1), (-1,), (2, -1), (0, -1), (-2,), (2 ** 62, -1), (-1, 0), ()])
        return f"np.reshape({x.shape}, {s})", lambda: f(x, s), same(lambda: np.reshape(a, s))
    if fn == "astype":
        dt = c.pick(["float32", "bogus", object, np.dtype("U3"), np.dtype("V4"), np.float128 if hasattr(
            np, "float128") else "f16", "M8[s]", np.dtype([("a", "i4")]), tl.int8, None, 5, "c8"])
        return f"np.astype({x.shape}, {dt!r})", lambda: f(x, dt), None
    if fn == "frombuffer":
        buf = c.pick([b"", b"abc", b"\x00" * 8, bytearray(7), memoryview(b"12345678")[::2]])
        dt = c.pick(["float64", "int32", "uint8", object, "V0"])
        kw = {"count": c.pick([-1, 0, 2, 2 ** 62, -5]), "offset": c.pick([0, 1, -1, 9, 2 ** 63])}
        return (f"np.frombuffer({buf!r}, {dt!r}, {kw})", lambda: f(buf, dtype=dt, **kw),
                same(lambda: np.frombuffer(buf, dtype=dt, **kw)) if x.dtype != tl.bfloat16 else None)
    if fn == "arange":
        args = c.pick([(0, 10, 0), (0, 1, 1e-300), (10, 0, 1), (0, 2 ** 63), (float("nan"),),
                       (0, float("inf")), (2 ** 70,), (0, 10, -1), (1, 5, 0.5), (5,), (-2 ** 63, 2 ** 63 - 1),
                       (0, 1e19, 1), (3, 4, 2 ** 62)])
        return f"np.arange{args}", lambda: f(*args), same(lambda: np.arange(*args))
    if fn in ("linspace", "logspace"):
        num = c.pick([-1, 0, 1, 5, 2 ** 62, 2.5, 2 ** 70])
        return (f"np.{fn}(0, 1, {num})", lambda: f(0, 1, num),
                same(lambda: getattr(np, fn)(0, 1, num)) if isinstance(num, int) and 0 <= num < 100 else None)
    if fn in ("full", "zeros", "empty", "ones"):
        s = c.shape(hostile=0.6)
        extra = [c.pick([1, 2 ** 70, float("nan"), "x", None])] if fn == "full" else []
        return f"np.{fn}({s}, {extra})", lambda: f(s, *extra), None
    if fn in ("eye", "tri", "identity"):
        n = c.size()
        return f"np.{fn}({n})", lambda: f(n), None
    if fn in ("asarray", "array"):
        obj = c.pick([[[1, 2], [3]], [1, [2]], [2 ** 70], [1, 2 ** 64], np.array([1, None], dtype=object),
                      np.array(["a"]), [[[]]], [1, "a"], [tl.tensor([1]), tl.tensor([1, 2])],
                      [None], {1, 2}, np.zeros((2, 0, 3)), [float("nan")], b"abc",
                      np.datetime64("2020-01-01"), [1 + 2j, 2 ** 64]])
        dt = c.pick([None, "float32", "int8", "bool", "complex64", "uint64"])
        return f"np.{fn}({obj!r:.60}, dtype={dt})", lambda: f(obj, dtype=dt), None
    if fn in ("histogram", "percentile", "bincount", "interp", "polyval", "trace", "fromiter",
              "searchsorted", "argsort"):
        calls = {
            "histogram": lambda: f(x, bins=c.pick([0, -1, 3, 2 ** 62, [1, 0], "auto"]),
                                   range=c.pick([None, (0, 0), (1, 0), (0, float("nan"))])),
            "percentile": lambda: f(x, c.pick([50, -1, 101, float("nan"), [10, 200]])),
            "bincount": lambda: f(x, minlength=c.pick([0, -1, 2 ** 62])),
            "interp": lambda: f(x, c.tensor(), c.tensor()),
            "polyval": lambda: f(x, c.tensor()),
            "trace": lambda: f(x, offset=c.size()),
            "fromiter": lambda: f(iter(c.pick([[1, 2], [], [1, "a"]])), dtype=c.pick(
                ["float32", object]), count=c.pick([-1, 5, 2 ** 62])),
            "searchsorted": lambda: f(x, c.tensor(), side=c.pick(["left", "x"])),
            "argsort": lambda: f(x, axis=c.dim(x.ndim), kind=c.pick([None, "stable", "x"])),
        }
        return f"np.{fn}({x.shape} {x.dtype})", calls[fn], None
    args = {
        "broadcast_to": [x, c.shape(0.5)], "take": [x, c.index(4), c.pick([None, 0, 5])],
        "repeat": [x, c.pick([2, -1, [1, 2], 2 ** 62]), c.pick([None, 0, 3])],
        "moveaxis": [x, c.dim(x.ndim), c.dim(x.ndim)], "squeeze": [x, c.dim(x.ndim)],
        "expand_dims": [x, c.pick([0, -1, 5, (0, 0), (0, 1)])],
        "pad": [x, c.pick([1, (1, 2), ((1, 1),), -1, 2 ** 62, ((1, 2, 3),)])],
        "split": [x, c.pick([0, 2, [1, 0], [-1], 2 ** 62])], "concat": [[x, c.tensor()]],
        "stack": [[x, c.tensor()]], "clip": [x, c.pick([None, 0, float("nan")]), c.pick([None, -1])],
        "where": [x], "unique_values": [x], "tile": [x, c.pick([0, -1, (2, 2), 2 ** 62])],
        "roll": [x, c.size(), c.pick([None, c.dim(x.ndim)])], "meshgrid": [x, c.tensor()],
        "diff": [x, c.size()], "cumulative_sum": [x], "argsort": [x],
    }[fn]
    np_args = [a if v is x else v for v in args]
    # NumPy's diff differences n times whatever the length (diff(x, 2**56)
    # ran for ever in the oracle, outside the per-call timeout)
    huge_diff = fn == "diff" and not (type(args[1]) is int and args[1] <= 64)
    return (f"np.{fn}({x.shape} {x.dtype}, {args[1:]!r:.80})", lambda: f(*args),
            same(lambda: getattr(np, fn)(*np_args)) if fn in (
                "broadcast_to", "moveaxis", "squeeze", "expand_dims", "tile", "roll", "diff")
            and a is not None and not huge_diff else None)


@case("random")
def c_random(c):
    tl = c.tl
    fn = c.pick(["randint", "multinomial", "normal", "rand", "randn", "randperm", "bernoulli",
                 "poisson", "uniform_", "exponential_", "geometric_", "cauchy_", "random_",
                 "log_normal_", "randint_like", "manual_seed_generator"])
    if fn == "randint":
        lo, hi = c.pick([(0, 0), (5, 1), (-2 ** 63, 2 ** 63), (0, 2 ** 70), (0, 1), (0, 2 ** 63 - 1)])
        size = c.shape(0.4)
        dt = c.pick([None, tl.uint8, tl.bool, tl.float16, tl.int8])
        return f"randint({lo}, {hi}, {size}, dtype={dt})", lambda: tl.randint(lo, hi, size, dtype=dt), None
    if fn == "multinomial":
        w = c.pick([tl.tensor([1.0, -1.0]), tl.tensor([[0.0, 0.0], [1.0, 1.0]]), tl.tensor([]),
                    tl.tensor([float("nan"), 1.0]), tl.tensor([float("inf"), 1.0]), tl.tensor(1.0),
                    tl.tensor([1, 2]), tl.ones(2, 2, 2), tl.tensor([1.0, 0.0])])
        n = c.pick([0, 1, 3, -1, 2 ** 62])
        return (f"multinomial({w.tolist()}, {n})", lambda: tl.multinomial(w, n, replacement=c.pick(
            [True, False])), None)
    if fn in ("normal",):
        return "normal(bad std)", lambda: tl.normal(c.pick([0.0, c.tensor()]), c.pick(
            [-1.0, float("nan"), c.tensor(), 0.0]), size=c.pick([None, (2,), (-1,)])), None
    if fn in ("rand", "randn"):
        s = c.shape(0.6)
        return f"{fn}({s})", lambda: getattr(tl, fn)(s, dtype=c.pick([None, tl.int64, tl.float16])), None
    if fn == "randperm":
        n = c.size()
        return f"randperm({n})", lambda: tl.randperm(n, dtype=c.pick([None, tl.uint8, tl.float16,
                                                                      tl.bool])), None
    if fn in ("bernoulli", "poisson"):
        p = c.tensor()
        return f"{fn}({p.tolist()!r:.60} {p.dtype})", lambda: getattr(tl, fn)(p), None
    if fn == "randint_like":
        t = c.tensor()
        return f"randint_like({t.shape} {t.dtype})", lambda: tl.randint_like(t, c.pick([0, -1, 2 ** 63, 300])), None
    if fn == "manual_seed_generator":
        return "Generator().manual_seed(bad)", lambda: tl.Generator().manual_seed(c.pick(
            [-1, 2 ** 64, 2 ** 70, -2 ** 64, 1.5, "x"])), None
    t = c.tensor()
    args = {"uniform_": [c.pick([1.0, 0.0]), c.pick([0.0, float("nan"), float("inf")])],
            "exponential_": [c.pick([0.0, -1.0, float("nan")])], "geometric_": [c.pick([0.0, 1.5, -1])],
            "cauchy_": [0.0, c.pick([-1.0, 0.0])], "random_": [c.pick([0, 5, -1]), c.pick([0, 2 ** 70, None])],
            "log_normal_": [0.0, c.pick([-1.0, 0.0])]}[fn]
    return f"{fn}({t.shape} {t.dtype} stride={t.stride()}, {args})", lambda: getattr(t, fn)(*args), None


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo FUZZ_PWNED > " + os.path.join(tempfile.gettempdir(), "fuzz_pwned"),))


@case("serialize")
def c_load(c):
    tl = c.tl
    buf = io.BytesIO()
    tl.save({"w": c.tensor(layout=False), "n": [1, 2]}, buf)
    good = buf.getvalue()
    kind = c.pick(["truncate", "flip", "evil_zip", "evil_raw", "empty", "garbage", "bad_storage",
                   "huge_size", "evil_ok"])
    if kind == "truncate":
        data = good[:c.r.randrange(len(good))]
    elif kind == "flip":
        data = bytearray(good)
        for _ in range(c.r.randint(1, 8)):
            i = c.r.randrange(len(data))
            data[i] = c.r.randrange(256)
        data = bytes(data)
    elif kind in ("evil_zip", "evil_ok"):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            z.writestr("archive/data.pkl", pickle.dumps(_Evil(), protocol=2))
            z.writestr("archive/version", "3\n")
        data = out.getvalue()
    elif kind == "evil_raw":
        data = pickle.dumps(_Evil(), protocol=2)
    elif kind == "empty":
        data = b""
    elif kind == "garbage":
        data = bytes(c.r.randrange(256) for _ in range(c.r.randint(1, 64)))
    else:
        # a well-formed archive whose tensor claims more bytes than its storage holds
        src = zipfile.ZipFile(io.BytesIO(good))
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            for info in src.infolist():
                body = src.read(info.filename)
                if info.filename.endswith(".pkl") and kind == "huge_size":
                    body = body.replace(b"K\x03", b"J\x00\x00\x00\x40")
                elif "/data/" in info.filename and kind == "bad_storage":
                    body = body[: len(body) // 2]
                z.writestr(info.filename, body)
        data = out.getvalue()

    def run():
        marker = os.path.join(tempfile.gettempdir(), "fuzz_pwned")
        if os.path.exists(marker):
            os.remove(marker)
        try:
            if kind == "evil_ok":
                return tl.load(io.BytesIO(data), weights_only=True)
            return tl.load(io.BytesIO(data), weights_only=c.pick([True, None]))
        finally:
            if os.path.exists(marker):
                os.remove(marker)
                raise Defect("load executed code from the file")
    return f"load({kind}, {len(data)} bytes)", run, None


@case("autograd")
def c_autograd(c):
    tl = c.tl
    kind = c.pick(["twice", "nonscalar", "hook_shape", "hook_dtype", "grad_wrong", "inplace_leaf",
                   "version", "grad_outputs", "retain_grad_int", "double", "grad_none_input",
                   "set_grad", "hook_raises", "function_wrong"])
    x = tl.tensor(c.values(3), dtype=c.pick([tl.float32, tl.float64]), requires_grad=True)

    def run():
        if kind == "twice":
            y = (x * x).sum()
            y.backward()
            return y.backward()
        if kind == "nonscalar":
            return (x * 2).backward()
        if kind in ("hook_shape", "hook_dtype"):
            y = x * 2
            y.register_hook(lambda g: tl.zeros(5) if kind == "hook_shape" else g.to(tl.int64))
            return y.sum().backward()
        if kind == "hook_raises":
            y = x * 2
            y.register_hook(lambda g: 1 / 0)
            return y.sum().backward()
        if kind == "grad_wrong":
            return tl.autograd.grad((x * 2).sum(), c.pick([x.detach(), [x, x], [], None, 3]))
        if kind == "inplace_leaf":
            return x.add_(1)
        if kind == "version":
            y = x.exp()
            y.add_(1)
            return y.sum().backward()
        if kind == "grad_outputs":
            return tl.autograd.grad(x * 2, x, grad_outputs=c.pick([tl.ones(5), tl.ones(3, dtype=tl.int64),
                                                                   tl.ones(()), 3, [None]]))
        if kind == "retain_grad_int":
            return tl.tensor([1, 2]).requires_grad_()
        if kind == "double":
            y = (x * x).sum()
            (g,) = tl.autograd.grad(y, x)
            return g.sum().backward()
        if kind == "grad_none_input":
            return tl.autograd.grad((x * 2).sum(), [x, tl.ones(3, requires_grad=True)])
        if kind == "set_grad":
            x.grad = c.pick([tl.zeros(5), tl.zeros(3, dtype=tl.int64), 3, tl.zeros(3)])
            return (x * 2).sum().backward()

        class Bad(tl.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return c.pick([tl.zeros(7), None, (g, g), "x", g.to(tl.int64)])
        return Bad.apply(x).sum().backward()
    return f"autograd {kind}", run, None


# Python-level functions with arbitrary hostile arguments: a tensor-taking
# function given None, a string or a huge int must say so (TypeError/ValueError
# naming the argument), not fail inside with an AttributeError on None.
GENERIC_MODULES = ["nn.functional", "linalg", "fft", "special", "numpy", "numpy.linalg",
                   "numpy.fft", "numpy.random", "random"]
GENERIC_SKIP = {"set_printoptions", "seed", "manual_seed", "set_rng_state", "get_rng_state",
                "set_default_dtype", "fork_rng", "use_deterministic_algorithms", "save", "load",
                "set_num_threads", "set_state", "default_rng", "SeedSequence"}
# The orthogonal polynomials of torch.special take time in proportion to the
# degree n (a recurrence, as PyTorch's kernels): a random n of 1e12 is no hang.
GENERIC_SKIP_PARTS = ("_polynomial_",)


def _generic_functions(tl):
    out = []
    for mod in GENERIC_MODULES:
        obj = tl
        for part in mod.split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            continue
        for name in sorted(dir(obj)):
            f = getattr(obj, name)
            if (name.startswith("_") or name in GENERIC_SKIP or isinstance(f, type)
                    or not callable(f) or any(p in name for p in GENERIC_SKIP_PARTS)):
                continue
            out.append((f"{mod}.{name}", f))
    return out


@case("generic")
def c_generic(c):
    if not hasattr(c, "generic"):
        c.generic = _generic_functions(c.tl)
    name, f = c.pick(c.generic)
    args = [c.tensor() for _ in range(c.r.randint(0, 3))]
    if args and c.r.random() < 0.7:
        args[c.r.randrange(len(args))] = c.pick([None, "abc", 2 ** 70, -1, 1.5, [], object(),
                                                  c.np.array([1, None], dtype=object), (2 ** 62,)])
    desc = f"{name}({[getattr(a, 'shape', a) for a in args]!r:.120})"
    return desc, lambda: f(*args), None


# Errors from inside the library's Python code rather than from its checks
# ("'NoneType' object has no attribute 'ndim'"): reported with --strict-types
# only, as PyTorch's own Python-level functions raise many of them too.
CONFUSED = (AttributeError, KeyError, UnboundLocalError, NameError, RecursionError)
STRICT_TYPES = False


# ---- driver -----------------------------------------------------------------------------

def run_child(seed, calls, areas, log_path, per_call):
    import numpy as np
    import resource
    # A call asking for more memory than a small machine has (a 17 GB
    # repeat_interleave) gets its MemoryError, as it would there, instead of
    # paging for minutes on this one and counting as a hang.  Under ASan,
    # whose shadow memory reserves terabytes of address space (every child
    # died importing with the limit), its own max_allocation_size_mb=8192
    # (with allocator_may_return_null=1) sets that bound instead.
    if "ASAN_OPTIONS" not in os.environ and "libasan" not in os.environ.get("LD_PRELOAD", ""):
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.RLIM_INFINITY))
    sys.path.insert(0, ROOT)
    import torchlike as tl
    import warnings
    warnings.simplefilter("ignore")
    rng = random.Random(seed)
    ctx = Ctx(rng, tl, np)
    gens = [g for area in areas for g in CASES[area]]
    failures = 0
    with open(log_path, "w", buffering=1) as log:
        for i in range(calls):
            gen = rng.choice(gens)
            try:
                made = gen(ctx)
            except Exception as e:  # a bug in a case (or its setup) is not a bug in the library
                log.write(f"SETUP {gen.__name__}: {type(e).__name__}: {e}\n")
                continue
            if made is None:
                continue
            desc, thunk, oracle = made
            log.write(f"CALL seed={seed} #{i} {desc}\n")
            faulthandler.dump_traceback_later(per_call, exit=True)
            try:
                result = thunk()
            except ALLOWED as e:
                faulthandler.cancel_dump_traceback_later()
                msg = str(e)
                confused = STRICT_TYPES and isinstance(e, CONFUSED) and gen is c_generic and \
                    "has no attribute" in msg and "'torchlike" not in msg and "module" not in msg
                if confused or not msg.strip() or "without exception set" in msg or "NULL" in msg:
                    failures += 1
                    where = traceback.format_exc(limit=-2)
                    log.write(f"FAIL unclear message {type(e).__name__}: {msg!r}\n{where}\n")
                continue
            except BaseException as e:
                faulthandler.cancel_dump_traceback_later()
                failures += 1
                tb = traceback.format_exc(limit=-4)
                log.write(f"FAIL {type(e).__name__}: {e}\n{tb}\n")
                continue
            faulthandler.cancel_dump_traceback_later()
            if oracle is not None:
                try:
                    oracle(result)
                except AssertionError as e:
                    failures += 1
                    log.write(f"FAIL wrong value: {str(e)[:400]}\n")
                except Exception:
                    pass
            del result
        log.write(f"DONE failures={failures}\n")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--runs", type=int, default=None,
                   help="exactly this many child runs (deterministic), whatever --seconds says")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--calls", type=int, default=300, help="calls per child process")
    p.add_argument("--area", action="append", choices=sorted(CASES), help="repeatable; default all")
    p.add_argument("--per-call", type=int, default=20, help="seconds before a call counts as a hang")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--log", default=None, help=argparse.SUPPRESS)
    p.add_argument("--report", default=None, help="write the failures here too")
    p.add_argument("--strict-types", action="store_true",
                   help="also report an AttributeError from inside a Python-level function "
                        "given a non-tensor (area generic)")
    args = p.parse_args()
    global STRICT_TYPES
    STRICT_TYPES = args.strict_types
    areas = args.area or sorted(CASES)
    if args.child:
        return run_child(args.seed, args.calls, areas, args.log, args.per_call)

    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    deadline = time.time() + args.seconds
    problems = []
    runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        while (runs < args.runs) if args.runs is not None else (time.time() < deadline):
            log = os.path.join(tmp, f"child{seed}.log")
            cmd = [sys.executable, os.path.abspath(__file__), "--child", "--seed", str(seed),
                   "--calls", str(args.calls), "--log", log, "--per-call", str(args.per_call)]
            cmd += ["--strict-types"] if args.strict_types else []
            for a in areas:
                cmd += ["--area", a]
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  timeout=args.per_call * args.calls + 60)
            runs += 1
            lines = open(log).read().splitlines() if os.path.exists(log) else []
            last_call = next((ln for ln in reversed(lines) if ln.startswith("CALL")), "(none)")
            for j, ln in enumerate(lines):
                if ln.startswith("FAIL"):
                    call = next((x for x in reversed(lines[:j]) if x.startswith("CALL")), "")
                    problems.append(f"{call}\n  {ln}\n" + "\n".join(
                        "  " + x for x in lines[j + 1:j + 6] if not x.startswith(("CALL", "FAIL"))))
            if proc.returncode != 0 or not (lines and lines[-1].startswith("DONE")):
                tail = (proc.stderr or "")[-3000:]
                problems.append(f"{last_call}\n  DIED rc={proc.returncode}\n{tail}")
            seed += 1
    print(f"{runs} child runs, {len(problems)} problems")
    text = "\n\n".join(problems)
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
