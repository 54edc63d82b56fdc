"""NumPy dispatch overhead on a small tensor: ``np.sin(t)`` (NEP 13,
``__array_ufunc__``), ``np.sum(t)`` (NEP 18, ``__array_function__``) and
``torchlike.numpy.sin(t)`` against the direct torchlike call.

Here the "peer" is torchlike itself called directly, so the printed ratio
peer/tl is direct_time / dispatched_time: 1.0 means dispatch costs nothing,
and the target for ``np.sin(t)`` is at least 0.67 (dispatch at most 1.5x the
direct call).

The "small" rows time common calls of the ``torchlike.numpy`` namespace on a
4x4 float64 tensor against NumPy's on a 4x4 ndarray: what drop-in code with
small arrays pays per call (peer/tl < 1: NumPy is faster)."""
import numpy as np

import torchlike as tl
import torchlike.numpy as tnp


class _Trivial:
    """An object whose ``__array_ufunc__`` does nothing: what NumPy's override
    protocol alone costs."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return None


def cases():
    t = tl.from_numpy(np.linspace(0.0, 1.0, 16, dtype=np.float32))
    m = tl.from_numpy(np.ones((4, 4), dtype=np.float32))
    yield "dispatch np.sin(t) vs t.sin() [16 f32]", lambda: np.sin(t), lambda: t.sin(), \
        "t.sin()"
    for n in (1024, 4096):  # where NumPy's fixed override cost stops dominating
        tn = tl.from_numpy(np.linspace(0.0, 1.0, n, dtype=np.float32))
        yield f"dispatch np.sin(t) vs t.sin() [{n} f32]", (lambda tn=tn: np.sin(tn)), \
            (lambda tn=tn: tn.sin()), "t.sin()"
    yield "dispatch np.add(t, t) vs t + t [16 f32]", lambda: np.add(t, t), lambda: t + t, \
        "t + t"
    yield "dispatch np.exp(t, out=t) vs t.exp_() [16 f32]", lambda: np.exp(t, out=t), \
        lambda: t.exp_(), "t.exp_()"
    yield "dispatch np.sum(t) vs t.sum() [16 f32]", lambda: np.sum(t), lambda: t.sum(), \
        "t.sum()"
    yield "dispatch np.mean(m, axis=0) vs m.mean(0) [4x4 f32]", \
        lambda: np.mean(m, axis=0), lambda: m.mean(0), "m.mean(0)"
    yield "dispatch np.concatenate vs tl.cat [4x4 f32]", \
        lambda: np.concatenate([m, m]), lambda: tl.cat([m, m]), "tl.cat"
    yield "namespace tnp.sin(t) vs t.sin() [16 f32]", lambda: tnp.sin(t), lambda: t.sin(), \
        "t.sin()"
    yield "namespace tnp.sum(m, axis=0) vs m.sum(0) [4x4 f32]", \
        lambda: tnp.sum(m, axis=0), lambda: m.sum(0), "m.sum(0)"
    yield from _small_calls()
    trivial = _Trivial()
    yield "dispatch np.sin(t) vs NumPy's override floor", lambda: np.sin(t), \
        lambda: np.sin(trivial), "np.sin(no-op override)"



# (label, call): the same source text runs with np = torchlike.numpy and
# x a tensor, then np = numpy and x an ndarray
_SMALL = ["np.zeros((4, 4))", "np.asarray([1.0, 2.0, 3.0])", "np.add(x, x)", "np.exp(x)",
          "np.maximum(x, 0.5)", "np.clip(x, 0.0, 1.0)", "np.concatenate([x, x])",
          "np.vstack([x, x])", "np.dot(x, x)", "np.arange(1, 10, 2)", "np.empty_like(x)",
          "np.squeeze(x)", "x.copy()", "x.astype(np.float32)", "np.sum(x)", "np.mean(x, axis=0)",
          "np.zeros_like(x)", "np.asarray(x)", "x.T", "np.array([1.0, 2.0, 3.0])",
          "x + x", "x.ravel()", "x.reshape(2, 8)", "x[1]", "x[1:3]"]


def _small_calls():
    for source in _SMALL:
        ours = eval(f"lambda: {source}", {"np": tnp, "x": tnp.ones((4, 4))})
        theirs = eval(f"lambda: {source}", {"np": np, "x": np.ones((4, 4))})
        yield f"small {source}", ours, theirs, "NumPy"
