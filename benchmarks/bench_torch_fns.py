"""The compositions added for PyTorch's top-level functions (stft, istft,
histogram, gradient, index_reduce, lu_unpack, ldl_factor) against PyTorch
itself, in the same process.  Without PyTorch the module yields nothing:
run it as `PYTHONPATH=. <python with torch> benchmarks/run.py fns:`."""
import warnings

import numpy as np

import torchlike as tl

try:
    import torch
except ImportError:
    torch = None


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
