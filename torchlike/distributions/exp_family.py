"""ExponentialFamily: the base class of families whose density is
p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)). Subclasses give the natural
parameters theta, the log normaliser F and the carrier measure's mean E[k(x)];
the entropy (and the generic KL in kl.py) follow from F's gradient, taken by
autograd, as the Bregman divergence of F."""
import torchlike
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family (see the module docstring)."""

    @property
    def _natural_params(self):
        """The natural parameters theta, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log normaliser F(theta)."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """E[k(x)], the expected carrier measure."""
        raise NotImplementedError

    def _log_normalizer_and_grads(self, create_graph=True):
        """(theta, F(theta), dF/dtheta) with theta detached from this
        distribution's parameters; dF/dtheta = E[t(x)]."""
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with torchlike.enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            grads = torchlike.autograd.grad(lg_normal.sum(), nparams, create_graph=create_graph)
        return nparams, lg_normal, grads

    def entropy(self):
        """H = F(theta) - <theta, dF/dtheta> - E[k(x)]."""
        nparams, result, grads = self._log_normalizer_and_grads()
        result = result - self._mean_carrier_measure
        for theta, g in zip(nparams, grads):
            # each parameter's entries summed per batch element, whatever its own shape
            result = result - (theta * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
