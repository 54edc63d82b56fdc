"""Differential fuzzer: torchlike.numpy against NumPy, call by call.

    scripts/fuzz_numpy_namespace.py --seconds 60 [--seed 1] [--only add,clip]
    scripts/fuzz_numpy_namespace.py --cases 2000 --seed 7 -v

Each case builds one call twice from the same random choices -- NumPy arrays
for NumPy, tensors with the same values, dtype and layout (transposed, sliced,
reversed, broadcast) for torchlike.numpy -- runs both and compares:

- whether each raised, and the exception's type (torchlike's must be an
  instance of one of the built-in classes NumPy's derives from: AxisError
  is a ValueError and an IndexError, a ufunc's casting error a TypeError);
- the result's dtype and shape, and its values (NaN where NaN, exact for
  integers and bools, a tolerance of the dtype's precision for floats);
- whether the result shares memory with an input exactly when NumPy's does
  (asarray/array copy semantics, astype(copy=False), out=);
- C/F contiguity where NumPy guarantees it (order='C'/'F', and 'K'/'A' of a
  dense input), and that out= returns the out array, filled as NumPy fills it.

The calls are the namespace's short paths (zeros/ones/empty/full, *_like,
arange, asarray/array, concatenate/stack/vstack/hstack, dot, clip,
ndarray.copy/astype) and their neighbours, the elementwise ufuncs with mixed
array / Python-number operands (NEP 50's weak scalars), the reductions
sum/mean/max/min/argmax/any/all/prod with axis/keepdims/dtype/out/where,
bfloat16 tensors (which NumPy lacks) against NumPy computing on the same
values in float32, whose float32 results must be bfloat16 ones here, and
the library (scripts/fuzz_numpy_library.py): manipulation, sorting and
sets, statistics, indexing helpers and ndarray methods with NumPy's
keywords, whose tuple results are compared one by one.

Deliberate differences documented in docs/numpy.md are not reported; each
skip below names the paragraph.  Exit status 1 when a discrepancy was found;
each is printed with the seed and case number that replays it
(``--seed S --replay N``).
"""
import argparse
import math
import os
import random
import sys
import time
import traceback
import warnings

import numpy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import torchlike  # noqa: E402
import torchlike.numpy as tnp  # noqa: E402

N = numpy
# run as a script, this module is also importable by its name (its case
# files import Gen, Pair and case from it)
sys.modules.setdefault("fuzz_numpy_namespace", sys.modules[__name__])
DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
INTS = [d for d in DTYPES if d[0] in "iu"]
SHAPES = [(), (0,), (1,), (3,), (4,), (2, 3), (3, 1), (1, 3), (0, 3), (2, 0), (2, 3, 2), (1, 2, 1)]
BIG_INTS = [127, 128, -128, -129, 255, 256, 300, -1, 2 ** 15, 2 ** 16, 2 ** 31 - 1, 2 ** 31,
            2 ** 32, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63, -2 ** 63, -2 ** 63 - 1, 2 ** 64 - 1,
            2 ** 64]
# Python ints past int64 (2**63, 2**64, -2**63 - 1) are left out of the
# settled runs' creation calls (NumPy's np.full_like(x, 2**63, dtype=bool)
# converts through a C long and refuses it); the ufuncs always draw them.
WHOLE_INTS = [i for i in BIG_INTS if -2 ** 63 <= i < 2 ** 63]
SPECIAL_FLOATS = [0.0, -0.0, 0.5, -1.5, 1e300, -1e-300, float("nan"), float("inf"), -float("inf"),
                  65504.0, 70000.0, 3.0]


class Pair:
    """One argument in both worlds: what NumPy gets and what torchlike gets."""

    def __init__(self, n, t):
        self.n, self.t = n, t


def split(tree):
    """(NumPy's, torchlike's) version of an argument tree holding Pairs."""
    if isinstance(tree, Pair):
        return tree.n, tree.t
    if isinstance(tree, (list, tuple)):
        parts = [split(x) for x in tree]
        return type(tree)(p[0] for p in parts), type(tree)(p[1] for p in parts)
    if isinstance(tree, dict):
        parts = {k: split(v) for k, v in tree.items()}
        return {k: v[0] for k, v in parts.items()}, {k: v[1] for k, v in parts.items()}
    return tree, tree


class Gen:
    """The random choices of one case."""

    def __init__(self, rng, ufunc_keywords=True):
        self.r = rng
        self.ufunc_keywords = ufunc_keywords  # dtype=/casting= on ufuncs
        self.arrays = []  # Pairs of the array inputs, for the memory checks

    def pick(self, xs):
        return xs[self.r.randrange(len(xs))]

    def chance(self, p):
        return self.r.random() < p

    def dtype(self, dtypes=DTYPES):
        return self.pick(dtypes)

    def shape(self, ndim=None):
        if ndim is None:
            return self.pick(SHAPES)
        return tuple(self.r.randint(0 if self.chance(0.1) else 1, 3) for _ in range(ndim))

    def values(self, dtype, n, tame=False):
        """n values of dtype: ordinary ones and its edges (NaN/inf/-0.0 for
        floats, the limits for integers).  tame: small exact values (sums and
        products whose order does not change them)."""
        d = N.dtype(dtype)
        if d.kind == "b":
            return N.array([self.chance(0.5) for _ in range(n)], dtype=d)
        if d.kind in "iu":
            info = N.iinfo(d)
            span = 4 if tame else 100
            lo, hi = max(info.min, -span), min(info.max, span)
            vals = [self.r.randint(lo, hi) for _ in range(n)]
            if not tame:
                vals = [self.pick([info.min, info.max, 0]) if self.chance(0.1) else v for v in vals]
            return N.array(vals, dtype=object).astype(d) if n else N.zeros(0, d)
        real = N.float64
        if tame:
            vals = [self.r.randint(-8, 8) / 2 if not self.chance(0.05) else self.pick(
                [float("nan"), float("inf"), -float("inf")]) for _ in range(2 * n)]
        else:
            vals = [self.pick(SPECIAL_FLOATS) if self.chance(0.15) else
                    round(self.r.uniform(-5, 5), 3) for _ in range(2 * n)]
        with N.errstate(all="ignore"):
            if d.kind == "c":
                return (N.array(vals[:n], real) + 1j * N.array(vals[n:], real)).astype(d)
            return N.array(vals[:n], real).astype(d)

    def array(self, dtype=None, shape=None, layout=True, tame=False):
        """A Pair: an ndarray and a tensor with its values, dtype and layout."""
        dtype = dtype or self.dtype()
        shape = self.shape() if shape is None else tuple(shape)
        how = self.pick(["c", "c", "T", "step", "rev", "bcast"]) if layout and shape else "c"
        if how == "T" and len(shape) < 2:
            how = "rev"
        base_shape = {"T": shape[::-1], "step": shape[:-1] + (2 * shape[-1],) if shape else shape,
                      "bcast": (1,) + shape[1:] if shape else shape}.get(how, shape)
        n = int(N.prod(base_shape))
        base = self.values(dtype, n, tame).reshape(base_shape)
        tbase = tnp.array(base)

        def view(a, ns):
            if how == "T":
                return a.T
            if how == "step":
                return a[..., ::2]
            if how == "rev":
                return a[::-1]
            if how == "bcast":
                return ns.broadcast_to(a, shape)
            return a
        p = Pair(view(base, N), view(tbase, tnp))
        self.arrays.append(p)
        return p

    def scalar(self, kind=None, big=False):
        """A Python number: int (the int64/uint64 edges too, past int64 when big
        or outside the settled runs), float, complex, bool."""
        kind = kind or self.pick("iiffcb")
        if kind == "i":
            big = BIG_INTS if self.ufunc_keywords or big else WHOLE_INTS
            return self.pick(big) if self.chance(0.4) else self.r.randint(-5, 5)
        if kind == "f":
            if self.chance(0.3):
                return self.pick(SPECIAL_FLOATS)
            return round(self.r.uniform(-5, 5), 2)
        if kind == "c":
            return complex(round(self.r.uniform(-3, 3), 2), self.pick([0.0, 1.5, -2.0]))
        return self.chance(0.5)

    def dtype_arg(self, allow_none=True):
        """None or a dtype spelled as NumPy code spells it (the same spelling on
        both sides: torchlike.numpy takes NumPy's), or a torchlike dtype object."""
        if allow_none and self.chance(0.4):
            return None
        name = self.dtype()
        how = self.r.randrange(4)
        if how == 0:
            return Pair(N.dtype(name), getattr(tnp, name))
        if how == 1:
            return name
        if how == 2:
            return N.dtype(name)
        return {"bool": bool, "int64": int, "float64": float, "complex128": complex}.get(
            name, getattr(N, name))

    def axis(self, ndim, none=True, tuples=False):
        r = self.r.random()
        if none and r < 0.2:
            return None
        if tuples and r < 0.35 and ndim:
            k = self.r.randint(1, ndim)
            return tuple(self.r.sample(range(-ndim, 0), k) if self.chance(0.5) else
                         self.r.sample(range(ndim), k))
        if r < 0.95:
            return self.r.randint(-ndim, max(ndim - 1, 0)) if ndim else 0
        return self.pick([ndim, -ndim - 1, 5])  # out of range


# ---- cases: each returns (description, run(ns, args, kwargs) -> result, args, kwargs, opts) ----

CASES = {}


def case(*names):
    def register(fn):
        for name in names:
            CASES[name] = fn
        return fn
    return register


def fn_of(name):
    return lambda ns, *a, **k: getattr(ns, name)(*a, **k)


@case("zeros", "ones", "empty", "full")
def c_create(g, name):
    shape = g.pick([g.shape(), g.r.randint(0, 4), [2, 3], -1, (2, -1), (2.0,), N.int64(3)])
    kw = {}
    args = [shape]
    if name == "full":
        args.append(g.pick([g.scalar(), g.scalar(), g.array(shape=(), layout=False),
                            g.array(shape=(3,), layout=False)]))
    if g.chance(0.6):
        kw["dtype"] = g.dtype_arg()
    if g.chance(0.5):
        kw["order"] = g.pick(["C", "F", "C", "F", "A", "K", "X"])
    return fn_of(name), args, kw, {"values": name != "empty", "order": kw.get("order", "C")}


@case("zeros_like", "ones_like", "empty_like", "full_like")
def c_like(g, name):
    args = [g.array()]
    if name == "full_like":
        args.append(g.pick([g.scalar(), g.scalar(), g.array(shape=(), layout=False)]))
    kw = {}
    if g.chance(0.5):
        kw["dtype"] = g.dtype_arg()
    if g.chance(0.5):
        kw["order"] = g.pick(["C", "F", "A", "K"])
    if g.chance(0.2):
        kw["shape"] = g.pick([(2, 3), 4, (), (3, 0)])
    order = kw.get("order", "K")
    return fn_of(name), args, kw, {"values": name != "empty_like",
                                   "order": order if "shape" not in kw or order in "CF" else None}


@case("arange")
def c_arange(g, name):
    def bound():
        r = g.r.random()
        if r < 0.6:
            return g.r.randint(-6, 12)
        if r < 0.8:
            return round(g.r.uniform(-5, 10), 1)
        return g.pick(BIG_INTS[10:] + [N.int64(4), N.float32(2.5)])
    args = [bound()]
    if g.chance(0.7):
        args.append(bound())
    if g.chance(0.4) and len(args) == 2:
        args.append(g.pick([1, 2, -1, -3, 0.5, -0.25, 2 ** 40, 2 ** 70, 7]))
    if len(args) == 1:
        args = [0] + args if abs(args[0]) > 1000 else args
    if len(args) >= 2:  # a few elements, even between big bounds (no 2**53-element arrays)
        step = args[2] if len(args) == 3 else 1
        try:
            count = math.ceil((float(args[1]) - float(args[0])) / float(step))
        except ZeroDivisionError:
            count = 0
        if count > 50:
            args[1] = args[0] + g.r.randint(0, 5) * (1 if step == 2 ** 70 else step)
    kw = {}
    if g.chance(0.3):
        kw["dtype"] = g.dtype_arg()
    return fn_of(name), args, kw, {"arange": True}


def nested(g):
    """A Pair of nested lists: numbers (the edges too), sometimes ragged,
    sometimes with arrays among them."""
    kind = g.pick("iifcbm")
    shape = g.pick([(3,), (2, 2), (0,), (2, 0), (1, 2, 2), (2,)])
    n = int(N.prod(shape))
    vals = [g.scalar(kind if kind != "m" else None) for _ in range(n)]
    flat = N.empty(n, dtype=object)
    flat[:] = vals
    lst = flat.reshape(shape).tolist() if n else N.zeros(shape).tolist()
    if g.chance(0.1) and len(lst) >= 2:
        lst[0] = [lst[0], lst[0]] if not isinstance(lst[0], list) else lst[0][:-1] or [1, 2]
    if g.chance(0.15) and len(shape) == 1 and n:
        a = g.array(shape=(), layout=False)
        return Pair([a.n] + lst[1:], [a.t] + lst[1:])
    return lst


@case("asarray", "array")
def c_asarray(g, name):
    obj = g.pick([nested(g), nested(g), g.array(), g.scalar()])
    kw = {}
    if g.chance(0.4):
        kw["dtype"] = g.dtype_arg()
    if g.chance(0.4):
        kw["copy"] = g.pick([None, True, False])
    if g.chance(0.4):
        kw["order"] = g.pick(["C", "F", "A", "K"] + ([None] if name == "asarray" else []))
    if name == "array" and g.chance(0.2):
        kw["ndmin"] = g.r.randint(0, 3)
    if name == "asarray" and "order" in kw and kw["order"] is None:
        del kw["order"]
    return fn_of(name), [obj], kw, {"order": kw.get("order") or "K", "share": True}


@case("concatenate", "stack", "vstack", "hstack")
def c_join(g, name):
    nd = g.r.randint(0 if name in ("vstack", "hstack", "stack") else 1, 3)
    shape = list(g.shape(nd))
    axis = g.axis(nd + (name == "stack"), none=name == "concatenate")
    arrays = []
    same = g.chance(0.6)
    d0 = g.dtype()
    for _ in range(g.r.randint(1 if g.chance(0.1) else 2, 3)):
        s = list(shape)
        if name in ("concatenate", "hstack", "vstack") and s and g.chance(0.5):
            ax = axis if name == "concatenate" and isinstance(axis, int) and -nd <= axis < nd else \
                (0 if name == "vstack" or nd == 1 else 1 if nd > 1 else 0)
            s[ax] = g.r.randint(0, 3)
        if g.chance(0.05) and s:
            s = s[:-1]  # another rank
        arrays.append(g.array(dtype=d0 if same else g.dtype(), shape=s))
    seq = tuple(arrays) if g.chance(0.3) else arrays
    kw = {}
    if name in ("concatenate", "stack"):
        kw["axis"] = axis
    if g.chance(0.25):
        kw["dtype"] = g.dtype_arg(allow_none=False)
    if g.chance(0.25):
        kw["casting"] = g.pick(["no", "equiv", "safe", "same_kind", "unsafe"])
    opts = {}
    if name in ("concatenate", "stack") and g.chance(0.2):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = getattr(N, name)(split(seq)[0], **{k: split(v)[0] for k, v in kw.items()})
            kw["out"] = g.array(dtype=g.pick([want.dtype.name, g.dtype()]), shape=want.shape,
                                layout=False)
        except Exception:
            pass
    return fn_of(name), [seq], kw, opts


@case("dot")
def c_dot(g, name):
    n = g.r.randint(0, 3)
    shapes = g.pick([((n,), (n,)), ((2, n), (n,)), ((n,), (n, 2)), ((2, n), (n, 3)), ((), (3,)),
                     ((2, 3), ()), ((2, n), (2, n)), ((3,), (4,)), ((2, 2, n), (n, 2))])
    d = g.pick(DTYPES)
    a = g.array(dtype=d, shape=shapes[0], tame=True)
    b = g.array(dtype=d if g.chance(0.7) else g.dtype(), shape=shapes[1], tame=True)
    ops = [a, b]
    if g.chance(0.3):
        ops[g.r.randrange(2)] = g.scalar()
    return fn_of(name), ops, {}, {"reduce": True}


@case("clip")
def c_clip(g, name):
    x = g.array()

    def bound():
        r = g.r.random()
        if r < 0.15:
            return None
        if r < 0.7:
            return g.scalar(g.pick("iff"))
        return g.array(dtype=g.pick([x.n.dtype.name, g.dtype()]),
                       shape=g.pick([(), x.n.shape[-1:]]))
    lo, hi = bound(), bound()
    kw = {}
    args = [x, lo, hi]
    if g.chance(0.15):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = N.clip(*split(args)[0])
            kw["out"] = g.array(dtype=g.pick([want.dtype.name, g.dtype()]), shape=want.shape,
                                layout=False)
        except Exception:
            pass
    return fn_of(name), args, kw, {}


@case("copy")
def c_copy(g, name):
    x = g.array()
    kw = {}
    if g.chance(0.7):
        kw["order"] = g.pick(["C", "F", "A", "K", "c", "f"])
    return (lambda ns, a, **k: a.copy(**k)), [x], kw, {"order": kw.get("order", "C").upper(),
                                                      "share": True}


@case("astype")
def c_astype(g, name):
    x = g.array()
    kw = {}
    if g.chance(0.4):
        kw["order"] = g.pick(["C", "F", "A", "K"])
    if g.chance(0.4):
        kw["casting"] = g.pick(["no", "equiv", "safe", "same_kind", "unsafe"])
    if g.chance(0.4):
        kw["copy"] = g.pick([True, False])
    d = g.dtype_arg(allow_none=False)
    return (lambda ns, a, dt, **k: a.astype(dt, **k)), [x, d], kw, {
        "order": kw.get("order", "K"), "share": True, "cast": True}


UNARY = ["negative", "positive", "absolute", "exp", "sqrt", "sin", "floor", "ceil", "trunc",
         "rint", "isnan", "isfinite", "logical_not", "invert", "sign", "square", "reciprocal",
         "log1p", "conjugate", "signbit", "fabs", "spacing", "cbrt", "deg2rad"]
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
          "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less", "greater_equal",
          "logical_and", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
          "right_shift", "arctan2", "hypot", "copysign", "heaviside", "fmod", "nextafter", "lcm", "gcd"]


@case(*UNARY, *BINARY)
def c_ufunc(g, name):
    nin = 1 if name in UNARY else 2
    shape = g.shape()
    ops = []
    for i in range(nin):
        r = g.r.random()
        if nin == 2 and r < 0.35 and not (i == 1 and isinstance(ops[0], (int, float, complex))):
            ops.append(g.scalar(big=True))
        elif r < 0.45:
            ops.append(g.array(shape=()))
        else:
            s = shape if g.chance(0.7) else g.pick([shape[-1:], (1,) + shape[1:], (), (5,)])
            ops.append(g.array(shape=s))
    kw = {}
    if g.chance(0.15) and g.ufunc_keywords:
        kw["dtype"] = g.dtype_arg(allow_none=False)
    if g.chance(0.1) and g.ufunc_keywords:
        kw["casting"] = g.pick(["no", "safe", "same_kind", "unsafe"])
    if g.chance(0.08) and g.ufunc_keywords and "dtype" not in kw:
        # signature=: one of NumPy's loops, as its type string or a tuple
        # fixing only the output's dtype (the loop whose output it is)
        loops = [t for t in getattr(N, name).types if not set(t) & set("OgGmMqQPp")]
        if loops:
            loop = g.pick(loops)
            kw["signature"] = loop if g.chance(0.5) else \
                (None,) * nin + (N.dtype(loop.rsplit(">", 1)[-1][0]).type,)
    if g.chance(0.15):
        try:
            with warnings.catch_warnings(), N.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                want = getattr(N, name)(*split(ops)[0], **split(kw)[0])
            # out= as the result's shape, larger (NumPy broadcasts the operands
            # to it), smaller (a ValueError), an operand itself, or an ndarray
            # given to torchlike too (NumPy's ufunc writes a CPU tensor's result)
            how = g.pick(["same"] * 6 + ["larger", "smaller", "alias", "ndarray"])
            out_shape = (2,) + want.shape if how == "larger" else \
                want.shape[1:] if how == "smaller" and want.ndim else want.shape
            kw["out"] = g.array(dtype=g.pick([want.dtype.name, g.dtype()]), shape=out_shape,
                                layout=False)
            alias = [o for o in ops if isinstance(o, Pair) and o.n.shape == want.shape and
                     o.n.flags.writeable and o.n.dtype != N.object_]
            if how == "alias" and alias:
                g.arrays.remove(kw["out"])
                kw["out"] = g.pick(alias)
            elif how == "ndarray":
                g.arrays.remove(kw["out"])
                kw["out"] = Pair(kw["out"].n, kw["out"].n.copy())
            # NumPy 2.4 itself crashes on where= with a Python int out of the
            # array's range (np.not_equal(uint16_array, 2**53 + 1, where=mask),
            # np.not_equal(-1, uint16_array, out=f32, where=mask))
            python_int = any(type(o) is int for o in ops)
            if g.chance(0.4) and not python_int:
                kw["where"] = g.array(dtype="bool", shape=g.pick([want.shape, want.shape[-1:]]),
                                      layout=False)
        except Exception:
            pass
    return fn_of(name), ops, kw, {"ufunc": name, "share": True}


COMPARISONS = ["equal", "not_equal", "less", "greater_equal", "maximum", "minimum", "fmax",
               "fmin"]
REDUCTIONS = ["sum", "mean", "max", "min", "argmax", "any", "all", "prod"]


@case(*REDUCTIONS)
def c_reduce(g, name):
    x = g.array(tame=True, dtype=g.pick(DTYPES))
    nd = x.n.ndim
    kw = {}
    if g.chance(0.7):
        kw["axis"] = g.axis(nd, tuples=name != "argmax")
    if g.chance(0.4):
        kw["keepdims"] = g.chance(0.5)
    if name in ("sum", "mean", "prod") and g.chance(0.3):
        kw["dtype"] = g.dtype_arg(allow_none=False)
    if name != "argmax" and g.chance(0.2):
        where_shape = x.n.shape if g.chance(0.6) else x.n.shape[-1:]
        kw["where"] = g.array(dtype="bool", shape=where_shape, layout=False)
        if name in ("max", "min") and g.chance(0.7):
            kw["initial"] = g.scalar("i")
    elif name in ("sum", "prod", "max", "min") and g.chance(0.15):
        kw["initial"] = g.scalar(g.pick("if"))
    if g.chance(0.15):
        try:
            with warnings.catch_warnings(), N.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                want = N.asarray(getattr(N, name)(x.n, **split(kw)[0]))
            if want.ndim:
                kw["out"] = g.array(dtype=g.pick([want.dtype.name, g.dtype()]), shape=want.shape,
                                    layout=False)
        except Exception:
            pass
    return fn_of(name), [x], kw, {"reduce": True}


BF16_UNARY = ["negative", "absolute", "exp", "sqrt", "sin", "floor", "ceil", "trunc", "isnan",
              "isfinite", "signbit", "square", "sign"]
BF16_BINARY = ["add", "multiply", "subtract", "maximum", "minimum", "less", "equal", "fmax"]


@case("bfloat16")
def c_bfloat16(g, name):
    """torchlike's bfloat16, which NumPy lacks: the tensor holds bfloat16
    values, NumPy computes on the same values in float32, and a float32
    result of NumPy's must be a bfloat16 one here (the other dtypes equal)."""
    def bf16(shape=None):
        p = g.array(dtype="float32", shape=shape)
        t = p.t.astype(tnp.bfloat16)
        p.n, p.t = N.asarray(t), t  # NumPy gets the values bfloat16 holds
        return p
    kind = g.pick(["unary", "binary", "reduce", "like", "copy", "astype"])
    x = bf16()
    if kind == "unary":
        return fn_of(g.pick(BF16_UNARY)), [x], {}, {"bf16": True}
    if kind == "binary":
        other = g.pick([g.scalar("f"), g.scalar("i"), bf16(x.n.shape), bf16(x.n.shape[-1:])])
        if type(other) in (int, float):  # rounded to bfloat16 first, as NumPy would (NEP 50)
            number = float(torchlike.tensor(float(other)).to(torchlike.bfloat16))
            other = Pair(number, other)
        ops = [x, other] if g.chance(0.5) else [other, x]
        return fn_of(g.pick(BF16_BINARY)), ops, {}, {"bf16": True}
    if kind == "reduce":
        kw = {"axis": g.axis(x.n.ndim)} if g.chance(0.7) else {}
        if g.chance(0.3):
            kw["keepdims"] = True
        return fn_of(g.pick(["sum", "mean", "max", "min", "argmax", "any"])), [x], kw, \
            {"bf16": True, "reduce": True}
    if kind == "like":
        like = g.pick(["zeros_like", "ones_like", "full_like"])
        args = [x] + ([g.scalar("f")] if like == "full_like" else [])
        return fn_of(like), args, {}, {"bf16": True}
    if kind == "copy":
        return (lambda ns, a: a.copy()), [x], {}, {"bf16": True}
    dtype = g.pick(["float64", "int32", "bool", "float16"])
    return (lambda ns, a, d: a.astype(d)), [x, dtype], {}, {"bf16": True, "cast": True}


# The library's cases (manipulation, sorting and sets, statistics, indexing
# helpers, ndarray methods) are in their own file; importing it registers them.
import fuzz_numpy_library  # noqa: E402,F401


# ---- comparison ------------------------------------------------------------------------------

class Mismatch(Exception):
    pass


def builtin_bases(exc_type):
    return tuple(c for c in exc_type.__mro__
                 if c.__module__ == "builtins" and c not in (Exception, BaseException, object))


def tl_dtype_name(t):
    if isinstance(t, torchlike.Tensor):
        return str(t.dtype).rsplit(".", 1)[-1]
    return N.asarray(t).dtype.name


def host(t):
    return N.asarray(t)


def shares(a, b, is_tensor):
    if a is None or b is None:
        return False
    try:
        if is_tensor:
            if not isinstance(a, torchlike.Tensor) or not isinstance(b, torchlike.Tensor):
                return False
            if a.numel() == 0 or b.numel() == 0:
                return False
            return N.shares_memory(N.asarray(a), N.asarray(b))
        if not isinstance(a, N.ndarray) or not isinstance(b, N.ndarray):
            return False
        if a.size == 0 or b.size == 0:
            return False
        return N.shares_memory(a, b)
    except TypeError:
        return False


def tolerance(dtype, opts):
    base = {"bfloat16": 1e-2, "float16": 2e-3, "complex64": 2e-6, "float32": 2e-6}.get(
        dtype, 1e-12)
    return base * (10 if opts.get("reduce") else 1) * opts.get("tol_scale", 1)


def power_scale(opts, nargs, want):
    """A complex power's relative error grows with its exponent n (NumPy's
    loop is exp(n log z) past |n| of 100, whose float32 form is off by about
    n ulps): the tolerance is scaled by the largest |n|.  1 for the rest."""
    if opts.get("ufunc") not in ("power", "float_power") or want.dtype.kind != "c" or \
            nargs is None or len(nargs) != 2:
        return 1
    with N.errstate(all="ignore"):
        n = N.abs(N.asarray(nargs[1]).astype(N.complex128))
    n = n[N.isfinite(n)]
    return max(1.0, float(n.max())) if n.size else 1


def float_loop_into_ints(opts, nargs, nkw):
    """The least precise float of the loop NumPy runs when its result is a
    float that casting= lets into an integer out= (exp(uint64, out=uint64,
    casting='unsafe'): a 1-ulp difference of exp(27) in float32 is 32768
    there); else None."""
    loop = numpy_loop(opts["ufunc"], nargs, nkw) if opts.get("ufunc") and nargs is not None \
        else None
    if not loop or loop[-1].kind not in "fc":
        return None
    return max((dt.name for dt in loop if dt.kind in "fc"), key=lambda d: tolerance(d, {}))


def float_result_in_range(opts, nargs, nkw, dtype):
    """Whether NumPy's float result of the ufunc call (out= and where= left
    out) is finite and within integer ``dtype``'s range."""
    keep = {k: v for k, v in nkw.items() if k not in ("out", "where")}
    with warnings.catch_warnings(), N.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            r = N.asarray(getattr(N, opts["ufunc"])(*nargs, **keep))
        except Exception:  # noqa: BLE001 - no plain result: nothing to vouch for
            return False
    r = (r.real if r.dtype.kind == "c" else r).astype(N.float64)  # (the bounds as floats)
    info = N.iinfo(dtype)
    return bool(N.isfinite(r).all() and (r >= info.min).all() and (r <= info.max).all())


def numpy_loop(ufunc_name, nargs, nkw):
    """The dtypes of the loop NumPy runs for a ufunc call (its
    resolve_dtypes: Python numbers as their types, NEP 50's weak scalars;
    signature=, dtype= and casting= as given), or None where it cannot say.
    dtype= names the loop's output, or, failing that, the whole loop."""
    ufunc = getattr(N, ufunc_name, None)
    if not isinstance(ufunc, N.ufunc) or len(nargs) != ufunc.nin:
        return None
    operands = tuple(type(a) if type(a) in (bool, int, float, complex) else N.asarray(a).dtype
                     for a in nargs) + (None,) * ufunc.nout
    signature = nkw.get("signature", nkw.get("sig"))
    tries = [signature]
    if nkw.get("dtype") is not None and signature is None:
        dtype = N.dtype(nkw["dtype"])
        tries = [(None,) * ufunc.nin + (dtype,) * ufunc.nout, (dtype,) * ufunc.nargs]
    for sig in tries:
        try:
            # (resolve_dtypes refuses signature=None: left out then)
            return ufunc.resolve_dtypes(operands, casting=nkw.get("casting", "same_kind"),
                                        **({} if sig is None else {"signature": sig}))
        except Exception:  # noqa: BLE001 - no loop: the next guess, or none
            continue
    return None


def loop_tolerance_dtype(tol_dtype, opts, nargs, nkw):
    """``tol_dtype``, or the least precise float of the loop NumPy runs when
    that is coarser: a result NumPy computes in float32 and casts into a
    float64 out= (signature=(None, None, float32)) is only float32's."""
    loop = numpy_loop(opts["ufunc"], nargs, nkw) if opts.get("ufunc") and nargs is not None \
        else None
    for dt in loop or ():
        if dt.kind in "fc" and tolerance(dt.name, {}) > tolerance(tol_dtype, {}):
            tol_dtype = dt.name
    return tol_dtype


def compare_values(want, got, opts, dtype):
    if want.shape != got.shape:
        raise Mismatch(f"shape {got.shape} != NumPy's {want.shape}")
    if want.dtype.kind in "biu" and opts.get("cast_undefined"):
        return
    if want.dtype.kind in "biu" and not opts.get("truncated") or \
            dtype != "bfloat16" and N.dtype(dtype).kind in "biu":
        if not N.array_equal(want, got):
            raise Mismatch(f"values differ:\n  torchlike {got!r}\n  NumPy     {want!r}")
        return
    tol = tolerance(dtype, opts)
    w = want.astype(N.complex128) if want.dtype.kind == "c" else want.astype(N.float64)
    h = got.astype(w.dtype)
    same_nan = N.isnan(w) == N.isnan(h)
    with N.errstate(all="ignore"):
        # (a float loop's result truncated into integers: one more unit)
        slack = 1 if opts.get("truncated") else 0
        close = (w == h) | (N.abs(w - h) <= slack + tol * N.maximum(1.0, N.abs(w))) | \
            (N.isnan(w) & N.isnan(h))
    if not (same_nan.all() and close.all()):
        raise Mismatch(f"values differ (tol {tol}):\n  torchlike {got!r}\n  NumPy     {want!r}")


DEFAULT_FLOATS = {"float32": "float", "complex64": "complex"}


KINDS = "biufc"


def pytorch_promotion(g, args, want, name=None, inputs=None):
    """The dtype torchlike's documented rule gives where NumPy's result is
    ``want`` (a float or complex dtype): the promotion of the inputs of the
    highest kind, or the default float when every input is exact.  dot takes
    a Python number as an array (int64, float64, complex128), as NumPy's
    asarray makes it."""
    if want.kind not in "fc":
        return None
    arrays = [p.n.dtype for p in (g.arrays if inputs is None else inputs)
              if p.n.dtype.kind in KINDS]
    if name == "dot":
        arrays += [N.asarray(a).dtype for a in args if isinstance(a, (int, float, complex))]
        args = [a for a in args if not isinstance(a, (int, float, complex))]
    top = max((KINDS.index(d.kind) for d in arrays), default=0)
    scalars = [a for a in args if isinstance(a, (float, complex)) and not isinstance(a, bool)]
    if top < KINDS.index("f"):
        if not scalars and want.kind == "c":
            return None
        return "complex64" if want.kind == "c" else "float32"
    best = N.result_type(*[d for d in arrays if KINDS.index(d.kind) == top])
    if want.kind == "c" and best.kind == "f":
        best = N.result_type(best, N.complex64)
    return best.name


def skip_reason(name, kw, n_exc, n_res, t_exc, t_res, g, args, label=None):
    """A documented deliberate difference: the paragraph of docs/numpy.md, or None."""
    if n_exc is None and t_exc is None and isinstance(t_res, torchlike.Tensor) and \
            "dtype" not in kw and "out" not in kw:
        got, want = tl_dtype_name(t_res), N.asarray(n_res).dtype
        if got != want.name and got == pytorch_promotion(g, args, want, name):
            # "Promotion (by design)" (docs/numpy.md, NumPy programs; docs/design.md,
            # Type promotion): across kinds the higher kind's dtype wins (int32 +
            # float16 is float16), and float functions of integers, integers with
            # Python floats, give the default float (float32/complex64)
            return "promotion: PyTorch's rule across kinds (docs/numpy.md)"
    if name in ("multiply", "divide", "true_divide", "floor_divide") and len(args) == 2 and \
            isinstance(args[0], N.ndarray) and args[0].dtype == N.float16 and \
            type(args[1]) in (int, float) and abs(args[1]) > 65504:
        # x * s, x / s, x // s of float16 read the scalar's full value, as
        # PyTorch's kernels do, where NumPy rounds it to float16 first
        # (docs/elementwise.md): past float16's range it is inf there
        return "a float16 array by a Python scalar's full value (docs/elementwise.md)"
    if "dot" in (name, label and label.split(".")[-1]) and \
            any(N.any(N.asarray(a) == 0) for a in args) and \
            not all(N.isfinite(a).all() for a in args if isinstance(a, N.ndarray)):
        # NumPy's dot is BLAS's axpy or gemv, which skip a zero factor: 0
        # times NaN is 0 there, NaN here (IEEE, as np.multiply)
        return "NumPy's dot skips a zero factor beside NaN (BLAS axpy, gemv)"
    if name in ("nanquantile", "nanpercentile") and n_exc is None and t_exc is None and \
            N.asarray(n_res).dtype != N.float64 and tl_dtype_name(t_res) == "float64" and \
            N.isnan(N.asarray(args[0], dtype=float)).any():
        # NumPy gives the data's dtype where a reduced slice is all NaN (its
        # shortcut fills NaN of that dtype); torchlike's dtype does not
        # depend on the values (docs/numpy.md, the fuzzer's paragraph)
        return "NumPy's all-NaN nanquantile keeps the data's dtype"
    if name == "arange" and any(isinstance(a, N.integer) for a in args) and \
            any(type(a) is int and abs(a) >= 2 ** 62 for a in args):
        # NumPy computes stop - start with its int64 scalar, which wraps (an
        # overflow warning) before the length is taken
        return "NumPy's int64 scalar arithmetic wraps in arange's length"
    if name == "put_along_axis" and kw.get("axis", 0) is None and n_exc is not None and \
            "read-only" in str(n_exc):
        # NumPy writes through arr.flat, whose fancy assignment into an array
        # that is not C-contiguous goes to a read-only copy: a ValueError
        # there, where torchlike writes (docs/numpy.md, the fuzzer's paragraph)
        return "NumPy's put_along_axis(axis=None) of a non-contiguous array"
    if isinstance(t_exc, TypeError) and ("no dtype object" in str(t_exc) or
                                         "no object dtype" in str(t_exc)) and any(
            type(a) is int and not -2 ** 63 <= a < 2 ** 64 for a in args):
        # a Python int past uint64 is an object array to NumPy (setdiff1d(x, 2**64)
        # compares objects), which torchlike refuses with a TypeError naming it
        return "no object dtype (docs/numpy.md, NumPy's scalar types torchlike lacks)"
    if n_exc is None and isinstance(n_res, N.ndarray) and n_res.dtype.kind in "OUSVMm":
        # "`import torchlike.numpy as np`": no object/string dtypes; a TypeError names it
        return "no object dtype (docs/numpy.md, NumPy's scalar types torchlike lacks)"
    return None


def collect_ids(tree, seen):
    if isinstance(tree, N.ndarray):
        seen.add(id(tree))
    elif isinstance(tree, (list, tuple)):
        for x in tree:
            collect_ids(x, seen)
    elif isinstance(tree, dict):
        for x in tree.values():
            collect_ids(x, seen)


def run_case(rng, names, verbose=False, ufunc_keywords=True):
    g = Gen(rng, ufunc_keywords)
    name = g.pick(names)
    fn, args, kw, opts = CASES[name](g, name)
    g.last_args = args
    (nargs, nkw), (targs, tkw) = split((args, kw))
    seen = set()
    collect_ids((nargs, nkw), seen)
    g.arrays = [p for p in g.arrays if id(p.n) in seen]  # drawn but not passed: not inputs
    desc = f"{getattr(fn, 'label', name)}({describe(nargs)}, {describe(nkw)})"
    if verbose:
        print(desc)
    out0 = nkw["out"].copy() if isinstance(nkw.get("out"), N.ndarray) else None
    results = [attempt(fn, ns, a, k) for ns, a, k in ((N, nargs, nkw), (tnp, targs, tkw))]
    (n_res, n_exc), (t_res, t_exc) = results
    # out= that is an input too: NumPy's reruns below read the input as it was
    aliased = out0 is not None and any(a is nkw["out"] for a in nargs)
    written = nkw["out"].copy() if aliased else None
    if aliased:
        nkw["out"][...] = out0
    loop = documented_loop(fn, g, name, opts, nargs, nkw, targs, tkw, out0) \
        if n_exc is None and t_exc is None else None
    if aliased:
        nkw["out"][...] = out0 if loop is not None else written
    if loop is not None:
        # the dtype torchlike's promotion computes in (docs/numpy.md, Promotion
        # (by design)) where NumPy's differs and the result does not show it:
        # NumPy in that dtype is the oracle, into the out array as it was
        with N.errstate(all="ignore"):  # (values past the loop's range: as NumPy casts them)
            nargs = [a.astype(loop) if isinstance(a, N.ndarray) else a for a in nargs]
        if out0 is not None:
            nkw["out"][...] = out0
        n_res, n_exc = attempt(fn, N, nargs, nkw)
    why = skip_reason(name, nkw, n_exc, n_res, t_exc, t_res, g, nargs,
                      getattr(fn, "label", None))
    if why:
        return desc, None
    try:
        check(name, opts, g, nkw, tkw, n_res, n_exc, t_res, t_exc, nargs)
    except Mismatch as m:
        return desc, str(m)
    return desc, None


def attempt(fn, ns, args, kwargs):
    """(result, None) or (None, the exception) of one call, warnings off."""
    with warnings.catch_warnings(), N.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(ns, *args, **kwargs), None
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return None, e


def promoted_loop(fn, g, name, nargs, nkw, targs, tkw):
    """For a ufunc call with out= (no dtype=): torchlike's loop dtype when it
    is the documented promotion where NumPy's differs, else None."""
    if "dtype" in nkw or "signature" in nkw:  # (the loop is named)
        return None
    plain = ("out", "where")
    n_plain, n_exc = attempt(fn, N, nargs, {k: v for k, v in nkw.items() if k not in plain})
    t_plain, t_exc = attempt(fn, tnp, targs, {k: v for k, v in tkw.items() if k not in plain})
    if n_exc or t_exc or not isinstance(t_plain, torchlike.Tensor):
        return None
    got, want = tl_dtype_name(t_plain), N.asarray(n_plain).dtype
    inputs = [p for p in g.arrays if any(p.n is a for a in nargs)]  # not out=
    if got != want.name and got == pytorch_promotion(g, nargs, want, name, inputs):
        return got
    return None


def documented_loop(fn, g, name, opts, nargs, nkw, targs, tkw, out0):
    """The loop dtype torchlike's documented promotion picks where it is
    hidden from the comparison -- by out= (exp(uint32) into a float64 out
    runs in float32), or by a comparison's bool result (int32 with float16
    meets in float16) -- and differs from NumPy's; else None."""
    loop = None
    if out0 is not None and opts.get("ufunc"):
        loop = promoted_loop(fn, g, name, nargs, nkw, targs, tkw)
    # (a casting= other than the default runs NumPy's own loop: nothing hidden)
    if loop is None and opts.get("ufunc") in COMPARISONS and "dtype" not in nkw and \
            "signature" not in nkw and nkw.get("casting", "same_kind") == "same_kind":
        loop = compared_in(nargs, targs)
    return loop


def compared_in(nargs, targs):
    """The dtype a comparison's operands meet in under torchlike's promotion,
    where it differs from NumPy's; else None."""
    try:
        ours = str(torchlike.result_type(*targs)).rsplit(".", 1)[-1] if len(targs) == 2 else None
        theirs = N.result_type(*nargs).name
    except Exception:  # noqa: BLE001 - a refused pair: compared as it is
        return None
    return ours if ours not in (None, theirs, "bfloat16") else None


def check(name, opts, g, nkw, tkw, n_res, n_exc, t_res, t_exc, nargs=None):
    if n_exc is not None or t_exc is not None:
        if t_exc is None:
            lenient = opts.get("ufunc") and ("dtype" in nkw or "casting" in nkw)
            raise Mismatch(("lenient: " if lenient else "") +
                           f"NumPy raised {type(n_exc).__name__}: {n_exc}; torchlike "
                           f"returned {t_res!r}")
        if n_exc is None:
            raise Mismatch(f"torchlike raised {type(t_exc).__name__}: {t_exc}\n"
                           + "".join(traceback.format_exception(t_exc)[-4:])
                           + f"NumPy returned {n_res!r}")
        bases = builtin_bases(type(n_exc))
        if not isinstance(t_exc, bases):
            raise Mismatch(f"torchlike raised {type(t_exc).__name__}: {t_exc}; NumPy "
                           f"{type(n_exc).__name__}: {n_exc}")
        return
    if opts.get("python"):  # a.item(), a.tolist(): Python objects, NaN where NaN
        if python_form(n_res) != python_form(t_res):
            raise Mismatch(f"torchlike gave {t_res!r}, NumPy {n_res!r}")
        return
    if isinstance(n_res, (tuple, list)):  # split, unique's flags, histogram: each result
        if not isinstance(t_res, (tuple, list)) or len(t_res) != len(n_res):
            raise Mismatch(f"torchlike gave {type(t_res).__name__} {t_res!r}, NumPy "
                           f"{len(n_res)} results")
        for i, (n_one, t_one) in enumerate(zip(n_res, t_res)):
            if isinstance(t_one, torchlike.Tensor) and tl_dtype_name(t_one) == pytorch_promotion(
                    g, split(g.last_args)[0], N.asarray(n_one).dtype, name):
                continue  # the documented promotion across kinds (skip_reason's first)
            try:
                check(name, dict(opts, order=None), g, {}, {}, n_one, None, t_one, None)
            except Mismatch as m:
                raise Mismatch(f"result {i}: {m}") from None
        return
    if "out" in nkw and n_res is nkw["out"] and t_res is not tkw["out"]:
        raise Mismatch("out= given: NumPy returns the out array, torchlike another object")
    want = N.asarray(n_res)
    tdt = tl_dtype_name(t_res)
    expected = want.dtype.name
    if opts.get("bf16") and expected == "float32":
        expected = "bfloat16"  # NumPy's float32 stands for bfloat16
    if tdt != expected:
        raise Mismatch(f"dtype {tdt} != NumPy's {want.dtype.name}")
    got = host(t_res)
    cast_undefined, tol_dtype = False, want.dtype.name
    # Complex infinities and NaNs: products, quotients and sign of them follow
    # C99's corner rules in NumPy, plain formulas here (docs/numpy.md, the
    # fuzzer's paragraph); the values of such calls are not compared.
    complex_result = want.dtype.kind == "c"
    complex_nonfinite = any((p.n.dtype.kind == "c" or complex_result) and
                            not N.isfinite(p.n).all() for p in g.arrays) or \
        complex_result and not N.isfinite(want).all()  # an overflow: an infinity
    # An integer array against a Python float compares in the default float
    # (float32: docs/numpy.md, Promotion (by design)), NumPy in float64: the
    # answers differ where float32 rounds (-1e-300 == 0)
    float32_compare = opts.get("ufunc") in COMPARISONS and \
        all(p.n.dtype.kind in "biu" for p in g.arrays) and \
        any(type(a) is float for a in split(g.last_args)[0])
    if opts.get("values", True) and not complex_nonfinite and not float32_compare:
        if opts.get("cast") or (name in ("full", "full_like", "asarray", "array", "arange")
                                or "dtype" in nkw or "out" in nkw):
            cast_undefined = True  # float -> int of NaN/inf/out-of-range: C leaves it undefined
        if cast_undefined and want.dtype.kind in "iub":
            cast_undefined = not all_float_inputs_castable(g, want.dtype) or \
                reduced_in_float(opts, nkw, g)
        tol_dtype = want.dtype.name
        if ("out" in nkw or "dtype" in nkw) and want.dtype.kind in "fc":
            # computed in the dtype of torchlike's promotion (docs/numpy.md,
            # Promotion (by design)) or NumPy's loop, then cast to out's or
            # dtype='s: the precision of the least precise input counts
            exact = any(p.n.dtype.kind in "biu" for p in g.arrays)
            # float16 inputs, and 8-bit integers (NumPy's float16 loop)
            small = any(p.n.dtype == N.float16 or p.n.dtype.kind in "biu" and
                        p.n.dtype.itemsize == 1 for p in g.arrays)
            single = any(p.n.dtype in (N.float32, N.complex64) for p in g.arrays)
            if small:
                tol_dtype = "float16"
            elif exact or single:
                tol_dtype = "float32"
        if want.dtype.kind in "fc":
            tol_dtype = loop_tolerance_dtype(tol_dtype, opts, nargs, nkw)
            opts = dict(opts, tol_scale=power_scale(opts, nargs, want))
        elif want.dtype.kind in "iu" and not cast_undefined:
            floats = float_loop_into_ints(opts, nargs, nkw)
            if floats:  # a float result cast into an integer out: the loop's tolerance
                tol_dtype, opts = floats, dict(opts, truncated=True)
                # past the integer's range the cast is C's undefined behaviour
                # (a wrap, here and in NumPy alike, of values 1 ulp apart)
                cast_undefined = not float_result_in_range(opts, nargs, nkw, want.dtype)
        if opts.get("bf16") and tdt == "bfloat16":
            tol_dtype = "bfloat16"
        compare_values(want, got, dict(opts, cast_undefined=cast_undefined), tol_dtype)
    if "out" in nkw and not complex_nonfinite and not float32_compare:
        compare_values(N.asarray(nkw["out"]), host(tkw["out"]),
                       dict(opts, cast_undefined=cast_undefined), tol_dtype)
    if (opts.get("share") or "out" in nkw) and not opts.get("bf16"):
        for p in g.arrays:
            ns, ts = shares(n_res, p.n, False), shares(t_res, p.t, True)
            if ns != ts:
                raise Mismatch(f"shares memory with an input: torchlike {ts}, NumPy {ns}")
    order = opts.get("order")
    if order and not opts.get("bf16") and isinstance(n_res, N.ndarray) and \
            isinstance(t_res, torchlike.Tensor):
        dense_in = all(p.n.flags.c_contiguous or p.n.flags.f_contiguous for p in g.arrays)
        if order in ("C", "F") or dense_in:
            for flag in ("c_contiguous", "f_contiguous"):
                nf, tf = bool(getattr(n_res.flags, flag)), bool(getattr(t_res.flags, flag))
                if nf != tf:
                    raise Mismatch(f"order={order!r}: {flag} torchlike {tf}, NumPy {nf} "
                                   f"(strides {t_res.strides} vs {n_res.strides})")


def python_form(x):
    """x's Python value with its types, NaN made comparable."""
    if isinstance(x, list):
        return [python_form(v) for v in x]
    if isinstance(x, float) and math.isnan(x):
        return (float, "nan")
    if isinstance(x, complex) and (math.isnan(x.real) or math.isnan(x.imag)):
        return (complex, repr(x))
    return (type(x), x)


def reduced_in_float(opts, nkw, g):
    """A reduction into an integer out= whose loop (dtype=, or out's dtype
    with the data's) is a float one (uint64 with int16): its result may lie
    past out's range, a cast C leaves undefined."""
    out = nkw.get("out")
    if not (opts.get("reduce") and isinstance(out, N.ndarray)):
        return False
    if nkw.get("dtype") is not None:  # dtype= is the loop
        return N.dtype(nkw["dtype"]).kind in "fc"
    return any(N.promote_types(out.dtype, p.n.dtype).kind == "f" for p in g.arrays
               if p.n is not out)


def all_float_inputs_castable(g, dtype):
    """Every float input value fits dtype (a cast of the rest is undefined in C)."""
    info = N.iinfo(dtype) if dtype.kind in "iu" else None
    for p in g.arrays:
        a = p.n
        if a.dtype.kind in "fc":
            v = (a.real if a.dtype.kind == "c" else a).astype(N.float64)
            if info is None:
                continue
            if not N.isfinite(v).all() or (v.size and (v.min() < float(info.min) or
                                                       v.max() > float(info.max))):
                return False
    return True


def describe(x):
    if isinstance(x, N.ndarray):
        return f"array({x.tolist()!r}, {x.dtype.name}, strides={x.strides})" if x.size <= 12 else \
            f"array(shape={x.shape}, {x.dtype.name}, strides={x.strides})"
    if isinstance(x, dict):
        return ", ".join(f"{k}={describe(v)}" for k, v in x.items())
    if isinstance(x, list):
        return "[" + ", ".join(describe(v) for v in x) + "]"
    if isinstance(x, tuple):
        return "(" + ", ".join(describe(v) for v in x) + ("," if len(x) == 1 else "") + ")"
    return repr(x)


# The calls whose every discrepancy found so far is fixed (the test suite runs
# these); ufuncs' dtype=/casting= still differ in corners (docs/numpy.md).
SETTLED = ["zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
           "full_like", "arange", "asarray", "array", "concatenate", "stack", "vstack",
           "hstack", "dot", "clip", "copy", "astype", "bfloat16"] + \
    UNARY + BINARY + REDUCTIONS + fuzz_numpy_library.SETTLED


def fuzz(seed, cases=None, seconds=None, only=None, verbose=False, stop_after=20,
         ufunc_keywords=True):
    """Run cases from seed; return (the list of (seed, index, description,
    message), the number of cases run).  ufunc_keywords=False leaves dtype=
    and casting= out of the ufunc calls."""
    names = sorted(only or CASES)
    failures = []
    start = time.monotonic()
    i = 0
    while (cases is None or i < cases) and (seconds is None or time.monotonic() - start < seconds):
        rng = random.Random(f"{seed}:{i}")
        desc, msg = run_case(rng, names, verbose, ufunc_keywords)
        if msg:
            failures.append((seed, i, desc, msg))
            if len(failures) >= stop_after:
                break
        i += 1
    return failures, i


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seconds", type=float, default=None)
    p.add_argument("--cases", type=int, default=None)
    p.add_argument("--only", default=None, help="comma-separated case names")
    p.add_argument("--replay", type=int, default=None, help="run one case of --seed, verbosely")
    p.add_argument("--max-failures", type=int, default=20)
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--settled", action="store_true",
                   help="only the calls the test suite runs (SETTLED), ufuncs without "
                        "dtype=/casting=")
    p.add_argument("--strict", action="store_true",
                   help="fail on the 'lenient' kind too (a ufunc's dtype=/casting= NumPy refuses)")
    o = p.parse_args()
    only = o.only.split(",") if o.only else SETTLED if o.settled else None
    if o.replay is not None:
        desc, msg = run_case(random.Random(f"{o.seed}:{o.replay}"), sorted(only or CASES), True,
                             ufunc_keywords=not o.settled)
        print(msg or "agrees with NumPy")
        return 1 if msg else 0
    if o.cases is None and o.seconds is None:
        o.seconds = 30
    failures, n = fuzz(o.seed, o.cases, o.seconds, only, o.verbose, o.max_failures,
                       ufunc_keywords=not o.settled)
    for seed, i, desc, msg in failures:
        print(f"--- seed {seed} case {i}: {desc}\n{msg}\n")
    lenient = sum(msg.startswith("lenient:") for *_, msg in failures)
    print(f"{n} cases, {len(failures) - lenient} discrepancies, {lenient} calls NumPy refuses "
          f"for their ufunc dtype=/casting= that torchlike computes (seed {o.seed})")
    return 1 if len(failures) > lenient or o.strict and failures else 0


if __name__ == "__main__":
    sys.exit(main())
