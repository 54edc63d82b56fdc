"""torchlike.scipy: SciPy's functions, written with differentiable torchlike ops.

Most of scipy.stats, scipy.linalg and scipy.signal convert their inputs with
``np.asarray``, which cannot keep a tensor (nor its gradient).  These modules
spell the same calls -- SciPy's names, signatures and values -- over torchlike
ops, as ``cupyx.scipy`` and ``jax.scipy`` do for their arrays, so they run on
tensors that require grad and on any device the ops run on."""
from . import integrate, linalg, signal, special, stats  # noqa: F401

__all__ = ["integrate", "linalg", "signal", "special", "stats"]
