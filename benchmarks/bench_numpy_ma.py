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
