"""PyTorch's own functions against PyTorch itself, in the same process: the
compositions added for its top-level functions (stft, istft, histogram,
gradient, index_reduce, lu_unpack, ldl_factor); the gather/scatter family
with an expanded index (index = idx.view(-1, 1).expand(-1, D): segment sums,
embedding-bag style code) and with a full 2-d index ("scatter:" rows); and
torch.special on 10^6 elements ("special:" rows; ndtri on (0, 1), J and Y on
(0, 30), K on (0, 10), Ai on (-10, 10)).  Without PyTorch the module
yields nothing: run it as `PYTHONPATH=. <python with torch>
benchmarks/run.py fns:` (or scatter:, special:)."""
import warnings

import numpy as np

import torchlike as tl

try:
    import torch
except ImportError:
    torch = None

# special_cases' input ranges
RANGES = {
    "ndtri": (0.0, 1.0),
    "bessel_j0": (0.0, 30.0), "bessel_j1": (0.0, 30.0),
    "bessel_y0": (0.0, 30.0), "bessel_y1": (0.0, 30.0),
    "modified_bessel_k0": (0.0, 10.0), "modified_bessel_k1": (0.0, 10.0),
    "airy_ai": (-10.0, 10.0),
}


def cases():
    if torch is None:
        return
    torch.set_num_threads(tl.get_num_threads())
    warnings.simplefilter("ignore")  # the deprecated spellings warn on every call
    rng = np.random.default_rng(0)

    def both(a):
        return tl.from_numpy(a), torch.from_numpy(a)

    x = rng.standard_normal((8, 16000)).astype(np.float32)
    xl, xt = both(x)
    wl, wt = tl.hann_window(512), torch.hann_window(512)
    yield "fns: stft 8x16000 n_fft=512 hop=128", \
        lambda: tl.stft(xl, 512, 128, window=wl, return_complex=True), \
        lambda: torch.stft(xt, 512, 128, window=wt, return_complex=True), "torch"
    sl = tl.stft(xl, 512, 128, window=wl, return_complex=True)
    st = torch.stft(xt, 512, 128, window=wt, return_complex=True)
    yield "fns: istft of that", lambda: tl.istft(sl, 512, 128, window=wl), \
        lambda: torch.istft(st, 512, 128, window=wt), "torch"
    h = rng.standard_normal(10 ** 6).astype(np.float32)
    hl, ht = both(h)
    yield "fns: histogram 1e6 float32, 100 bins", lambda: tl.histogram(hl, 100), \
        lambda: torch.histogram(ht, 100), "torch"
    g = rng.standard_normal((1000, 1000)).astype(np.float32)
    gl, gt = both(g)
    yield "fns: gradient 1000x1000 float32", lambda: tl.gradient(gl), \
        lambda: torch.gradient(gt), "torch"
    s = rng.standard_normal((10000, 64)).astype(np.float32)
    idx = rng.integers(0, 100, 10000)
    sl_, st_ = both(s)
    il, it = both(idx)
    zl, zt = tl.zeros(100, 64), torch.zeros(100, 64)
    yield "fns: index_reduce amax 10000x64 -> 100", \
        lambda: zl.index_reduce(0, il, sl_, "amax"), \
        lambda: zt.index_reduce(0, it, st_, "amax"), "torch"
    a = rng.standard_normal((64, 32, 32))
    al, at = both(a)
    lul, pivl = tl.linalg.lu_factor(al)
    lut, pivt = torch.linalg.lu_factor(at)
    yield "fns: lu_unpack 64x32x32 float64", lambda: tl.lu_unpack(lul, pivl), \
        lambda: torch.lu_unpack(lut, pivt), "torch"
    sym = a + np.swapaxes(a, -1, -2)
    syl, syt = both(sym)
    yield "fns: ldl_factor 64x32x32 float64", lambda: tl.linalg.ldl_factor(syl), \
        lambda: torch.linalg.ldl_factor(syt), "torch"
    yield from scatter_cases(both, rng)
    yield from special_cases(rng)


def scatter_cases(both, rng):
    n, d, m = 200000, 64, 1000
    src = rng.standard_normal((n, d)).astype(np.float32)
    seg = rng.integers(0, m, n)
    sl, st = both(src)
    il, it = both(seg)
    el, et = il.view(-1, 1).expand(-1, d), it.view(-1, 1).expand(-1, d)
    ol, ot = tl.zeros(m, d), torch.zeros(m, d)
    tag = f"{n}x{d} -> {m} f32"
    yield f"scatter: scatter_add expanded {tag}", \
        lambda: ol.scatter_add(0, el, sl), lambda: ot.scatter_add(0, et, st), "torch"
    for red in ("sum", "amax", "mean"):
        yield f"scatter: scatter_reduce {red} expanded {tag}", \
            lambda red=red: ol.scatter_reduce(0, el, sl, red, include_self=False), \
            lambda red=red: ot.scatter_reduce(0, et, st, red, include_self=False), "torch"
    yield f"scatter: index_reduce amax {tag}", \
        lambda: ol.index_reduce(0, il, sl, "amax"), \
        lambda: ot.index_reduce(0, it, st, "amax"), "torch"
    yield f"scatter: index_add {tag}", \
        lambda: ol.index_add(0, il, sl), lambda: ot.index_add(0, it, st), "torch"
    small = rng.standard_normal((m, d)).astype(np.float32)
    ml, mt = both(small)
    yield f"scatter: gather expanded {m}x{d} -> {n} rows f32", \
        lambda: ml.gather(0, el), lambda: mt.gather(0, et), "torch"
    src64 = src.astype(np.float64)
    s64l, s64t = both(src64)
    o64l, o64t = tl.zeros(m, d, dtype=tl.float64), torch.zeros(m, d, dtype=torch.float64)
    yield f"scatter: scatter_add expanded {n}x{d} -> {m} f64", \
        lambda: o64l.scatter_add(0, el, s64l), lambda: o64t.scatter_add(0, et, s64t), "torch"
    full = rng.integers(0, m, (n, d))
    fl, ft = both(full)
    yield f"scatter: scatter_add full 2-d index {tag}", \
        lambda: ol.scatter_add(0, fl, sl), lambda: ot.scatter_add(0, ft, st), "torch"


def special_cases(rng):
    for name, (lo, hi) in RANGES.items():
        x = rng.uniform(lo, hi, 10 ** 6)
        for dt in (np.float32, np.float64):
            a = x.astype(dt)
            xl, xt = tl.from_numpy(a), torch.from_numpy(a)
            fl, ft = getattr(tl.special, name), getattr(torch.special, name)
            yield f"special: {name} 1e6 {np.dtype(dt).name}", \
                lambda fl=fl, xl=xl: fl(xl), lambda ft=ft, xt=xt: ft(xt), "torch"
