"""The differential fuzzer's cases for NumPy's library functions, registered
in scripts/fuzz_numpy_namespace.py (its docstring says how a case is built
and compared): manipulation (roll rot90 flip pad tile repeat, the split
family, insert delete append resize trim_zeros), sorting and searching
(sort argsort partition argpartition searchsorted lexsort), sets (unique
with its flags, intersect1d union1d setdiff1d setxor1d isin), statistics
(percentile quantile median and their nan forms, average histogram bincount
cov corrcoef ptp), indexing helpers (take put take_along_axis
put_along_axis choose compress extract place select diagonal triu tril)
and ndarray methods with NumPy's keywords.

Results that are tuples or lists (split, unique's flags, histogram) are
compared element by element; in-place functions (put, place, a.sort())
return the array they wrote into, compared as a result."""
import numpy as N

import torchlike.numpy as tnp
from fuzz_numpy_namespace import CASES, DTYPES, WHOLE_INTS, Pair, case, fn_of

REALS = [t for t in DTYPES if t[0] != "c"]


def in_place(call):
    """fn for a function that writes into its first argument: that argument."""
    def run(ns, a, *args, **kwargs):
        call(ns, a, *args, **kwargs)
        return a
    return run


def writable(g, **kw):
    """A Pair NumPy may write into: no broadcast (read-only) view."""
    while True:
        p = g.array(**kw)
        if p.n.flags.writeable:
            return p
        g.arrays.remove(p)


def int_list(g, lo, hi, n):
    return [g.r.randint(lo, hi) for _ in range(n)]


@case("roll")
def c_roll(g, name):
    x = g.array()
    nd = x.n.ndim
    kw = {}
    if g.chance(0.6):
        kw["axis"] = g.axis(nd, tuples=True)
    shift = g.r.randint(-5, 5)
    if isinstance(kw.get("axis"), tuple) and g.chance(0.5):
        shift = tuple(int_list(g, -4, 4, len(kw["axis"]) if g.chance(0.9) else 1))
    return fn_of(name), [x, shift], kw, {"share": True}


@case("rot90")
def c_rot90(g, name):
    x = g.array(shape=g.pick([g.shape(2), g.shape(3), g.shape(2), (3,)]))
    kw = {}
    if g.chance(0.6):
        kw["k"] = g.r.randint(-3, 5)
    if g.chance(0.4):
        kw["axes"] = g.pick([(0, 1), (1, 0), (-1, -2), (0, 2), (0, 0), (1, -1)])
    return fn_of(name), [x], kw, {"share": True}


@case("flip")
def c_flip(g, name):
    x = g.array()
    kw = {"axis": g.axis(x.n.ndim, tuples=True)} if g.chance(0.7) else {}
    return fn_of(name), [x], kw, {"share": True}


@case("pad")
def c_pad(g, name):
    x = g.array(shape=g.shape(g.r.randint(1, 3)))
    nd = x.n.ndim
    width = g.pick([g.r.randint(0, 3), (g.r.randint(0, 2), g.r.randint(0, 3)),
                    [(g.r.randint(0, 2), g.r.randint(0, 3)) for _ in range(nd)],
                    [[g.r.randint(0, 2)] for _ in range(nd)]])
    mode = g.pick(["constant", "constant", "edge", "reflect", "symmetric", "wrap", "maximum",
                   "minimum", "mean", "median", "linear_ramp"])
    kw = {} if mode == "constant" and g.chance(0.3) else {"mode": mode}
    if mode == "constant" and g.chance(0.5):
        # NumPy writes a constant out of an unsigned dtype's range by its own
        # scalar cast (wrapping some, saturating others): not drawn
        kw["constant_values"] = g.pick([g.scalar(g.pick("if")) if x.n.dtype.kind != "u" else
                                        g.r.randint(0, 9), (1, 2)])
    if mode in ("reflect", "symmetric") and g.chance(0.3):
        kw["reflect_type"] = g.pick(["even", "odd"])
    if mode in ("maximum", "minimum", "mean", "median") and g.chance(0.4):
        kw["stat_length"] = g.pick([1, 2, (1, 2)])
    if mode == "linear_ramp" and g.chance(0.5):
        kw["end_values"] = g.pick([2, (1, -1)])
    return fn_of(name), [x, width], kw, {}


@case("tile")
def c_tile(g, name):
    x = g.array()
    reps = g.pick([g.r.randint(0, 3), tuple(int_list(g, 0, 3, g.r.randint(1, 3))), ()])
    return fn_of(name), [x, reps], {}, {}


@case("repeat")
def c_repeat(g, name):
    x = g.array()
    kw = {}
    if g.chance(0.6):
        kw["axis"] = g.axis(x.n.ndim)
    ax = kw.get("axis")
    n = x.n.size if ax is None else x.n.shape[ax] if isinstance(ax, int) and \
        -x.n.ndim <= ax < x.n.ndim else 2
    reps = g.pick([g.r.randint(0, 3), int_list(g, 0, 3, n), int_list(g, 0, 3, n), [-1] * n,
                   int_list(g, 0, 2, n + 1)])
    if isinstance(reps, list) and g.chance(0.4):
        reps = g.array(dtype=g.pick(["int64", "int32", "uint8"]), shape=(len(reps),),
                       layout=False)
        reps.n[...] = N.abs(reps.n) % 3
        reps.t = tnp.asarray(reps.n)
    return fn_of(name), [x, reps], kw, {}


@case("split", "array_split", "hsplit", "vsplit", "dsplit")
def c_split(g, name):
    x = g.array(shape=g.shape(g.r.randint(1, 3)))
    nd = x.n.ndim
    sections = g.pick([g.r.randint(1, 4), sorted(int_list(g, -1, 4, g.r.randint(0, 3))),
                       [3, 1], [0]])
    kw = {"axis": g.axis(nd, none=False)} if name in ("split", "array_split") and \
        g.chance(0.5) else {}
    return fn_of(name), [x, sections], kw, {}


@case("insert")
def c_insert(g, name):
    x = g.array()
    kw = {"axis": g.axis(x.n.ndim, none=False)} if g.chance(0.6) else {}
    n = x.n.size if "axis" not in kw else x.n.shape[kw["axis"]] if \
        -x.n.ndim <= kw["axis"] < x.n.ndim else 2
    obj = g.pick([g.r.randint(-n - 1, n + 1), int_list(g, -n, n, g.r.randint(0, 3)),
                  slice(0, None, 2), [n + 2]])
    values = g.pick([g.scalar(g.pick("ifb")), g.array(shape=g.pick([(), (1,), (2,)])),
                     int_list(g, -3, 3, 2)])
    return fn_of(name), [x, obj, values], kw, {}


@case("delete")
def c_delete(g, name):
    x = g.array()
    kw = {"axis": g.axis(x.n.ndim, none=False)} if g.chance(0.6) else {}
    n = x.n.size if "axis" not in kw else x.n.shape[kw["axis"]] if \
        -x.n.ndim <= kw["axis"] < x.n.ndim else 2
    obj = g.pick([g.r.randint(-n - 1, n), int_list(g, -n, n - 1, g.r.randint(0, 3)) if n else [],
                  slice(1, None, 2), [g.chance(0.5) for _ in range(n)], slice(None, None, -1)])
    return fn_of(name), [x, obj], kw, {}


@case("append")
def c_append(g, name):
    x = g.array()
    kw = {"axis": g.axis(x.n.ndim, none=False)} if g.chance(0.5) and x.n.ndim else {}
    shape = list(x.n.shape)
    if "axis" in kw and -len(shape) <= kw["axis"] < len(shape):
        shape[kw["axis"]] = g.r.randint(0, 2)
    values = g.pick([g.array(shape=shape), g.array(shape=shape), g.scalar(), int_list(g, 0, 3, 2)])
    return fn_of(name), [x, values], kw, {}


@case("resize")
def c_resize(g, name):
    x = g.array()
    shape = g.pick([g.r.randint(0, 7), (2, 3), (3, 0), (), (1, 5), -1])
    return fn_of(name), [x, shape], {}, {}


@case("trim_zeros")
def c_trim_zeros(g, name):
    x = g.array(shape=(g.r.randint(0, 6),), layout=False)
    if x.n.size and g.chance(0.7):  # zeros at the ends to trim
        x.n[:g.r.randint(0, 2)] = 0
        x.n[x.n.size - g.r.randint(0, 2):] = 0
        x.t = tnp.asarray(x.n.copy())
    kw = {"trim": g.pick(["f", "b", "fb", "bf", "F"])} if g.chance(0.5) else {}
    return fn_of(name), [x], kw, {}


@case("sort")
def c_sort(g, name):
    x = g.array()
    kw = {}
    if g.chance(0.6):
        kw["axis"] = g.axis(x.n.ndim)
    if g.chance(0.3):
        kw["kind"] = g.pick(["quicksort", "stable", "mergesort", "heapsort"])
    if g.chance(0.2):
        kw["stable"] = g.pick([True, False])
    return fn_of(name), [x], kw, {}


def gathered(x_of, ns, idx, axis):
    """x's values at argsort-like indices (ties may be ordered either way),
    and the indices' dtype and shape (an empty last axis)."""
    taken = ns.take_along_axis(x_of, idx, axis=axis)
    return taken, idx[..., :0]


@case("argsort")
def c_argsort(g, name):
    x = g.array()
    kw = {}
    if g.chance(0.6):
        kw["axis"] = g.axis(x.n.ndim)
    if g.chance(0.4):
        kw["kind"] = g.pick(["quicksort", "stable", "mergesort", "heapsort"])
    stable = kw.get("kind") in ("stable", "mergesort")
    if stable:
        return fn_of(name), [x], kw, {}

    def run(ns, a, **k):
        idx = ns.argsort(a, **k)
        axis = k.get("axis", -1)
        if a.ndim == 0 and axis is not None:
            return idx
        return gathered(a if axis is not None else a.reshape(-1), ns, idx,
                        axis if axis is not None else 0)
    return run, [x], kw, {}


@case("partition", "argpartition")
def c_partition(g, name):
    x = g.array(shape=g.shape(g.r.randint(1, 3)))
    kw = {}
    if g.chance(0.5):
        kw["axis"] = g.axis(x.n.ndim)
    ax = kw.get("axis", -1)
    n = x.n.size if ax is None else x.n.shape[ax] if -x.n.ndim <= ax < x.n.ndim else 1
    kth = g.pick([g.r.randint(-n, max(n - 1, 0)), sorted(int_list(g, 0, max(n - 1, 0), 2)),
                  n, -n - 1])

    def run(ns, a, k, **kwa):
        r = getattr(ns, name)(a, k, **kwa)
        axis = kwa.get("axis", -1)
        flat = a.reshape(-1) if axis is None else a
        axis = 0 if axis is None else axis
        values = ns.take_along_axis(flat, r, axis=axis) if name == "argpartition" else r
        ks = [k] if isinstance(k, int) else list(k)
        # the kth values in place, and the same multiset of values
        return ns.sort(values, axis=axis), ns.take(values, ks, axis=axis)
    return run, [x, kth], kw, {}


@case("searchsorted")
def c_searchsorted(g, name):
    d = g.dtype([t for t in DTYPES if t[0] != "c"])
    raw = g.values(d, g.r.randint(0, 6))
    kw = {}
    if g.chance(0.3):
        order = N.argsort(raw, kind="stable")
        a = Pair(raw, tnp.asarray(raw))
        kw["sorter"] = Pair(order, tnp.asarray(order))
    else:
        s = N.sort(raw)
        a = Pair(s, tnp.asarray(s))
    # values of another kind meet a's in PyTorch's promotion here (uint64 with
    # float16 in float16: Promotion (by design)), in float64 in NumPy: values
    # of a's kind (ints and bools beside ints), small numbers beside floats
    kinds = "biu" if d[0] in "biu" else "f"
    v = g.pick([g.array(dtype=g.pick([d, g.dtype([t for t in REALS if N.dtype(t).kind in kinds])]),
                        shape=g.pick([(), (3,), (2, 2)])),
                g.scalar(g.pick("ib")) if kinds == "biu" else g.r.randint(-5, 5) / 2])
    if g.chance(0.5):
        kw["side"] = g.pick(["left", "right"])
    return fn_of(name), [a, v], kw, {}


@case("lexsort")
def c_lexsort(g, name):
    n = g.r.randint(0, 5)
    keys = [g.array(dtype=g.dtype([t for t in DTYPES if t[0] != "c"]), shape=(n,), tame=True)
            for _ in range(g.r.randint(1, 3))]
    kw = {"axis": g.pick([-1, 0])} if g.chance(0.2) else {}
    arg = tuple(keys) if g.chance(0.6) else g.array(dtype="int16", shape=(2, n), tame=True)
    return fn_of(name), [arg], kw, {}


@case("unique")
def c_unique(g, name):
    x = g.array(tame=True)
    kw = {}
    if g.chance(0.3):
        kw["axis"] = g.axis(x.n.ndim)
    if kw.get("axis") is not None and x.n.dtype.kind in "fc":
        # NumPy orders slices holding NaN as its sort of a structured view
        # leaves them (an order of its implementation): finite values only
        x.n = N.nan_to_num(x.n)
        x.t = tnp.asarray(x.n)
    for flag in ("return_index", "return_inverse", "return_counts"):
        if g.chance(0.35):
            kw[flag] = True
    if g.chance(0.2):
        kw["equal_nan"] = g.chance(0.5)
    return fn_of(name), [x], kw, {}


@case("intersect1d", "union1d", "setdiff1d", "setxor1d", "isin")
def c_sets(g, name):
    d = g.dtype()
    a = g.array(dtype=d, tame=True)
    # a big Python int beside floats meets them in float16 here, in float64 in
    # NumPy (Promotion (by design), as a comparison's operands)
    number = g.scalar("i") if a.n.dtype.kind in "biu" else g.r.randint(-5, 5)
    b = g.pick([g.array(dtype=d, tame=True), g.array(tame=True), number])
    kw = {}
    if name == "intersect1d" and g.chance(0.3):
        kw["return_indices"] = True
    if name == "isin" and g.chance(0.3):
        kw["invert"] = True
    if name == "isin" and g.chance(0.2):
        kw["kind"] = g.pick(["sort", "table", None])
    return fn_of(name), [a, b], kw, {}


@case("percentile", "quantile", "median", "nanmedian", "nanpercentile", "nanquantile")
def c_quantile(g, name):
    x = g.array(dtype=g.dtype(REALS if g.chance(0.9) else DTYPES))
    args = [x]
    if "median" not in name:
        scale = 100 if "percentile" in name else 1
        q = g.pick([0.5 * scale, 0.25 * scale, [0, 0.3 * scale, scale], 1.5 * scale,
                    0, scale])
        args.append(g.pick([q, q, g.array(dtype="float64", shape=(2,), tame=True) if
                            g.chance(0.1) else q]))
        if g.chance(0.5):
            args[1] = q
    kw = {}
    if g.chance(0.6):
        kw["axis"] = g.axis(x.n.ndim, tuples=True)
    if g.chance(0.3):
        kw["keepdims"] = True
    if "median" not in name and g.chance(0.4):
        kw["method"] = g.pick(["linear", "lower", "higher", "nearest", "midpoint",
                               "inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                               "interpolated_inverted_cdf", "hazen", "weibull",
                               "median_unbiased", "normal_unbiased"])
    return fn_of(name), args, kw, {"reduce": True}


@case("average")
def c_average(g, name):
    x = g.array(dtype=g.dtype(REALS), tame=True)
    kw = {}
    if g.chance(0.6):
        kw["axis"] = g.axis(x.n.ndim, tuples=True)
    if g.chance(0.5):
        ax = kw.get("axis")
        wshape = x.n.shape if ax is None or not isinstance(ax, int) or g.chance(0.4) else \
            x.n.shape[ax:ax + 1] if -x.n.ndim <= ax < x.n.ndim and ax != -1 else x.n.shape[-1:]
        kw["weights"] = g.array(dtype=g.pick(["float64", "int32", "float32", "bool"]),
                                shape=wshape, tame=True)
    if g.chance(0.3):
        kw["returned"] = True
    if g.chance(0.2):
        kw["keepdims"] = True
    return fn_of(name), [x], kw, {"reduce": True}


@case("histogram")
def c_histogram(g, name):
    x = g.array(dtype=g.dtype([t for t in REALS if t != "bool"]), tame=True)
    kw = {}
    if g.chance(0.6):
        kw["bins"] = g.pick([1, 3, 10, [0, 1, 2.5], [-3, 0, 3]])
    if g.chance(0.3):
        kw["range"] = g.pick([(0, 2), (-1, 1), (2, 2)])
    if g.chance(0.3):
        kw["density"] = True
    if g.chance(0.3):
        kw["weights"] = g.array(dtype=g.pick(["float64", "int64", "float32"]), shape=x.n.shape,
                                tame=True)
    return fn_of(name), [x], kw, {"reduce": True}


@case("bincount")
def c_bincount(g, name):
    x = g.array(dtype=g.pick(["int64", "int32", "uint8", "int8", "bool"]),
                shape=(g.r.randint(0, 6),), tame=True)
    if not g.chance(0.1):
        x.n = N.abs(x.n.astype("int64")).astype(x.n.dtype) if x.n.dtype != bool else x.n
        x.t = tnp.asarray(x.n)
    kw = {}
    if g.chance(0.4):
        kw["weights"] = g.array(dtype=g.pick(["float64", "int32", "float32"]),
                                shape=x.n.shape, tame=True)
    if g.chance(0.3):
        kw["minlength"] = g.r.randint(0, 7)
    return fn_of(name), [x], kw, {"reduce": True}


@case("cov", "corrcoef")
def c_cov(g, name):
    x = g.array(dtype=g.dtype(REALS + ["complex128"]), shape=g.pick([(3,), (2, 4), (3, 2), (1, 3)]),
                tame=True)
    args = [x]
    kw = {}
    if g.chance(0.25):
        kw["y"] = g.array(dtype=g.dtype(REALS), shape=x.n.shape, tame=True)
    if g.chance(0.3):
        kw["rowvar"] = False
    if name == "cov":
        if g.chance(0.2):
            kw["bias"] = True
        if g.chance(0.2):
            kw["ddof"] = g.r.randint(0, 2)
    if g.chance(0.15):
        kw["dtype"] = g.pick(["float32", "float64"])
    return fn_of(name), args, kw, {"reduce": True}


@case("ptp")
def c_ptp(g, name):
    x = g.array(dtype=g.dtype(REALS))
    kw = {}
    if g.chance(0.6):
        kw["axis"] = g.axis(x.n.ndim, tuples=True)
    if g.chance(0.3):
        kw["keepdims"] = True
    return fn_of(name), [x], kw, {}


def indices_for(g, n, k, out_of_range=0.1):
    lo, hi = (-n, n - 1) if n else (0, 0)
    if g.chance(out_of_range):
        hi = n + 2
    return [g.r.randint(lo, hi) for _ in range(k)]


@case("take")
def c_take(g, name):
    x = g.array()
    kw = {}
    if g.chance(0.6):
        kw["axis"] = g.axis(x.n.ndim)
    ax = kw.get("axis")
    n = x.n.size if ax is None else x.n.shape[ax] if -x.n.ndim <= ax < x.n.ndim else 1
    if g.chance(0.3):
        kw["mode"] = g.pick(["raise", "wrap", "clip"])
    idx = g.pick([indices_for(g, n, 3), g.r.randint(-n, max(n - 1, 0)) if n else 0,
                  [[0, 0]] if n else [], []])
    if g.chance(0.3) and isinstance(idx, list):
        a = N.array(idx, dtype=g.pick(["int64", "int32", "uint8", "int16"])
                    if min(N.ravel(idx), default=0) >= 0 else "int64")
        idx = Pair(a, tnp.asarray(a))
    return fn_of(name), [x, idx], kw, {}


@case("put")
def c_put(g, name):
    x = writable(g)
    n = x.n.size
    ind = indices_for(g, n, g.r.randint(1, 3))
    v = g.pick([g.scalar(g.pick("ifb")), g.array(shape=g.pick([(), (2,), (1,)]))])
    kw = {"mode": g.pick(["raise", "wrap", "clip"])} if g.chance(0.4) else {}
    return in_place(lambda ns, a, *r, **k: ns.put(a, *r, **k)), [x, ind, v], kw, {"cast": True}


@case("take_along_axis", "put_along_axis")
def c_along(g, name):
    x = writable(g, shape=g.shape(g.r.randint(1, 3)))
    axis = g.pick([g.axis(x.n.ndim, none=False), None]) if g.chance(0.9) else 7
    n = x.n.size if axis is None else x.n.shape[axis] if -x.n.ndim <= axis < x.n.ndim else 1
    ishape = (g.r.randint(0, 3),) if axis is None else list(x.n.shape)
    if axis is not None and -x.n.ndim <= axis < x.n.ndim:
        ishape[axis] = g.r.randint(0 if g.chance(0.1) else 1, 3)
    k = int(N.prod(ishape))
    idx = N.array(indices_for(g, n, k) if n else [0] * k, dtype=g.pick(["int64", "int32"])
                  ).reshape(ishape)
    ip = Pair(idx, tnp.asarray(idx))
    if name == "take_along_axis":
        return fn_of(name), [x, ip], {"axis": axis}, {}
    v = g.pick([g.scalar(g.pick("if")), g.array(dtype=x.n.dtype.name, shape=idx.shape)])
    return in_place(lambda ns, a, i, vv, **kk: ns.put_along_axis(a, i, vv, **kk)), \
        [x, ip, v], {"axis": axis}, {"cast": True}


@case("choose")
def c_choose(g, name):
    shape = g.shape()
    n = g.r.randint(1, 3)
    choices = [g.array(dtype=g.pick(["int32", "float64", "int64", "float32"]), shape=g.pick(
        [shape, shape[-1:], ()])) for _ in range(n)]
    a = N.array([g.r.randint(-1 if g.chance(0.1) else 0, n - (0 if g.chance(0.05) else 1))
                 for _ in range(int(N.prod(shape)))], dtype="int64").reshape(shape)
    kw = {"mode": g.pick(["raise", "wrap", "clip"])} if g.chance(0.3) else {}
    return fn_of(name), [Pair(a, tnp.asarray(a)), choices], kw, {}


@case("compress", "extract")
def c_compress(g, name):
    x = g.array()
    kw = {}
    if name == "compress" and g.chance(0.6):
        kw["axis"] = g.axis(x.n.ndim)
    ax = kw.get("axis")
    n = x.n.size if ax is None else x.n.shape[ax] if -x.n.ndim <= ax < x.n.ndim else 1
    if name == "extract":
        cond = g.array(dtype=g.pick(["bool", "int8", "float32"]), shape=x.n.shape, tame=True)
        return fn_of(name), [cond, x], {}, {}
    cond = g.pick([[g.chance(0.5) for _ in range(n)], [True] * (n + 1), [1, 0]])
    return fn_of(name), [cond, x], kw, {}


@case("place")
def c_place(g, name):
    x = writable(g)
    mask = g.array(dtype="bool", shape=x.n.shape, layout=False)
    vals = g.pick([[1, 2], [3.5], g.array(dtype=x.n.dtype.name, shape=(2,)), []])
    return in_place(lambda ns, a, m, v: ns.place(a, m, v)), [x, mask, vals], {}, {"cast": True}


@case("select")
def c_select(g, name):
    shape = g.shape()
    n = g.r.randint(1, 3)
    conds = [g.array(dtype="bool", shape=g.pick([shape, shape[-1:]])) for _ in range(n)]
    d = g.dtype()
    choices = [g.array(dtype=d if g.chance(0.7) else g.dtype(), shape=g.pick([shape, ()]))
               for _ in range(n)]
    # (NumPy writes the default with np.full, which converts nothing into an
    # empty result: Python ints past int64 are not drawn)
    kw = {"default": g.pick([g.scalar("f"), g.pick(WHOLE_INTS), g.r.randint(-5, 5)])} \
        if g.chance(0.4) else {}
    return fn_of(name), [conds, choices], kw, {}


@case("diagonal", "triu", "tril")
def c_diagonal(g, name):
    x = g.array(shape=g.pick([g.shape(2), g.shape(3), (3,), g.shape(2)]))
    kw = {}
    if g.chance(0.5):
        kw["k" if name != "diagonal" else "offset"] = g.r.randint(-3, 3)
    if name == "diagonal" and g.chance(0.4):
        kw["axis1"], kw["axis2"] = g.pick([(0, 1), (1, 0), (-1, 0), (0, 2), (1, 1)])
    return fn_of(name), [x], kw, {"share": name == "diagonal"}


# ndarray methods spelled as only NumPy spells them (docs/numpy.md, "The ndarray
# surface of Tensor": a PyTorch spelling keeps PyTorch's meaning, so x.sum()
# accumulates small integers in int64 and x.repeat(2) tiles): a reduction
# always gets axis=, ravel/flatten order=, squeeze and repeat axis=
def _method_kwargs(g, name, x):
    nd = x.n.ndim
    kw = {}
    if name in ("sum", "mean", "std", "var", "max", "min", "prod", "any", "all", "argmax",
                "argmin", "cumsum", "cumprod"):
        kw["axis"] = g.axis(nd, tuples=name not in ("argmax", "argmin", "cumsum", "cumprod"))
        if name not in ("cumsum", "cumprod") and g.chance(0.3):
            kw["keepdims"] = True
        if name in ("sum", "mean", "prod", "cumsum") and g.chance(0.2):
            kw["dtype"] = g.pick(["float64", "int64", "float32", "complex128"])
        if name in ("std", "var") and g.chance(0.4):
            kw["ddof"] = g.r.randint(0, 2)
    elif name == "round" and g.chance(0.7):
        kw["decimals"] = g.r.randint(-2, 3)
    elif name in ("reshape", "ravel", "flatten"):
        kw["order"] = g.pick(["C", "F", "A"] + (["K"] if name != "reshape" else []))
    elif name in ("squeeze", "repeat"):
        kw["axis"] = g.axis(nd)
    elif name in ("trace", "diagonal") and g.chance(0.5):
        kw["offset"] = g.r.randint(-2, 2)
    elif name in ("sort", "argsort"):
        kw["axis"] = g.axis(nd)
        if name == "argsort":
            kw["kind"] = "stable"
    return kw


METHODS = ["sum", "mean", "std", "var", "max", "min", "prod", "any", "all", "argmax", "argmin",
           "cumsum", "cumprod", "round", "clip", "reshape", "ravel", "flatten", "squeeze",
           "transpose", "swapaxes", "trace", "diagonal", "sort", "argsort", "fill",
           "item", "tolist", "repeat", "take", "conj", "dot", "searchsorted", "compress"]
# PyTorch's round and clamp take no complex numbers (the same spellings as
# NumPy's), and NumPy's round of bools is float16
REAL_ONLY = {"round", "clip"}
# (x.any(axis=)/x.all(axis=) are PyTorch's methods, whose uint8 result is uint8:
# docs/numpy.md, "The ndarray surface of Tensor")
# Integer sums and products in PyTorch's int64 (docs/numpy.md, unsigned dtypes:
# "the Tensor methods (x.sum()) keep PyTorch's int64")
INT64_ACCUMULATING = {"sum", "prod", "cumsum", "cumprod", "trace"}


@case("method")
def c_method(g, name):
    m = g.pick(METHODS)
    # (round of integers past their range wraps in NumPy's multiply: tame values)
    tame = m in ("sum", "mean", "std", "var", "prod", "cumsum", "cumprod", "dot", "trace",
                 "round")
    dtype = g.dtype(REALS[1:]) if m in REAL_ONLY else \
        g.dtype([t for t in DTYPES if t[0] not in "biu"]) if m in INT64_ACCUMULATING else \
        g.dtype([t for t in DTYPES if t != "uint8"]) if m in ("any", "all") else None
    x = writable(g, tame=tame, dtype=dtype) if m in ("sort", "fill") else \
        g.array(tame=tame, dtype=dtype)
    nd = x.n.ndim
    kw = _method_kwargs(g, m, x)
    args = []
    if m == "reshape":
        args = [g.pick([(-1,), (x.n.size,), (1, -1), (-1, 1)])]
    elif m == "transpose" and nd > 2 and g.chance(0.5):  # (x.transpose(0, 1): PyTorch's swap)
        args = list(g.r.sample(range(nd), nd))
    elif m == "swapaxes":  # (of a 0-d array PyTorch's dims -1 and 0 exist)
        x = g.array(shape=g.shape(g.r.randint(1, 3)))
        args = [g.axis(x.n.ndim, none=False), g.axis(x.n.ndim, none=False)]
    elif m in ("trace", "diagonal") and nd < 2:
        x = g.array(shape=g.shape(2), dtype=dtype, tame=tame)
    elif m == "fill":
        args = [g.scalar(g.pick("ifb"))]
    elif m == "item":  # (x.item() of many elements: PyTorch's RuntimeError)
        args = [] if x.n.size == 1 else g.pick([[0], [-1]])
    elif m == "repeat":
        args = [g.r.randint(0, 2)]
    elif m == "clip":
        args = list(g.pick([(0, 2), (None, 1.5), (-1, None), (3, 1)]))
    elif m == "take":
        args = [indices_for(g, x.n.size, 2)]
    elif m == "dot":
        args = [g.array(dtype=x.n.dtype.name, shape=x.n.shape[-1:] or (), tame=True)]
    elif m == "searchsorted":
        x = g.array(shape=(g.r.randint(0, 5),), dtype=g.dtype(REALS))
        x.n = N.sort(x.n)
        x.t = tnp.asarray(x.n)
        args = [g.scalar(g.pick("if"))]
    elif m == "compress":
        args = [[g.chance(0.5) for _ in range(x.n.shape[0] if nd else 1)]]
        kw = {"axis": 0} if nd else {}
    opts = {"share": m in ("reshape", "ravel", "squeeze", "transpose", "swapaxes", "diagonal")}
    if m in ("item", "tolist"):
        opts["python"] = True
    if m in ("sum", "mean", "std", "var", "prod", "cumsum", "dot", "trace"):
        opts["reduce"] = True

    def run(ns, a, *r, **k):
        result = getattr(a, m)(*r, **k)
        return a if m in ("sort", "fill") else result
    run.label = f"method.{m}"
    return run, [x] + args, kw, opts


# every library case: all their discrepancies found so far are fixed
SETTLED = [name for name, fn in CASES.items() if fn.__module__ == __name__]
