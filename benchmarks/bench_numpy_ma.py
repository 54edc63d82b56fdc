"""Masked arrays: torchlike.numpy.ma against numpy.ma on the same data
(1000x1000 float64, 10% masked), in this process."""
import numpy as np
import numpy.ma as nma

import torchlike.numpy as tnp
import torchlike.numpy.ma as ma


def cases():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((1000, 1000))
    mask = rng.random((1000, 1000)) < 0.1
    theirs = nma.array(data, mask=mask)
    ours = ma.array(tnp.asarray(data.copy()), mask=mask)
    yield "ma.mean axis=0 1000x1000 10% masked", lambda: ours.mean(axis=0), \
        lambda: theirs.mean(axis=0), "numpy.ma"
    yield "ma.mean axis=1 1000x1000 10% masked", lambda: ours.mean(axis=1), \
        lambda: theirs.mean(axis=1), "numpy.ma"
    yield "ma.sum 1000x1000 10% masked", lambda: ours.sum(), lambda: theirs.sum(), "numpy.ma"
    yield "ma.std axis=0 1000x1000 10% masked", lambda: ours.std(axis=0), \
        lambda: theirs.std(axis=0), "numpy.ma"
    yield "ma.max axis=1 1000x1000 10% masked", lambda: ours.max(axis=1), \
        lambda: theirs.max(axis=1), "numpy.ma"
    yield "ma a/b (domain) 1000x1000 10% masked", lambda: ours / ours, \
        lambda: theirs / theirs, "numpy.ma"
    # the extras: statistics, set operations, convolution (smaller inputs)
    small = data[:200, :500]
    small_mask = mask[:200, :500]
    theirs_s = nma.array(small, mask=small_mask)
    ours_s = ma.array(tnp.asarray(small.copy()), mask=small_mask)
    yield "ma.cov 200x500 10% masked", lambda: ma.cov(ours_s), \
        lambda: nma.cov(theirs_s), "numpy.ma"
    ints = rng.integers(0, 1000, 100_000)
    int_mask = rng.random(100_000) < 0.1
    theirs_i = nma.array(ints, mask=int_mask)
    ours_i = ma.array(tnp.asarray(ints.copy()), mask=int_mask)
    yield "ma.unique 1e5 int64 10% masked", lambda: ma.unique(ours_i), \
        lambda: nma.unique(theirs_i), "numpy.ma"
    yield "ma.isin 1e5 in 1e4 int64 10% masked", lambda: ma.isin(ours_i, ours_i[:10_000]), \
        lambda: nma.isin(theirs_i, theirs_i[:10_000]), "numpy.ma"
    sig_t, ker_t = theirs[0].ravel(), theirs[1, :31]
    sig_o, ker_o = ours[0].ravel(), ours[1, :31]
    yield "ma.convolve 1000 x 31 10% masked", lambda: ma.convolve(sig_o, ker_o), \
        lambda: nma.convolve(sig_t, ker_t), "numpy.ma"
