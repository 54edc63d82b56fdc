"""The Distribution base class: shapes, argument validation and the default
sample/rsample/expand plumbing every family builds on."""
import warnings

import torchlike
from . import constraints
from .utils import broadcast_params, lazy_property

__all__ = ["Distribution"]


class Distribution:
    """A probability distribution with a ``batch_shape`` of independent
    parameter sets, each over events of ``event_shape``.

    Parameters are checked against ``arg_constraints`` and values against
    ``support`` when ``validate_args`` is true (the default follows
    :meth:`set_default_validate_args`, initially ``__debug__`` as in PyTorch)."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions made later."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=torchlike.Size(), event_shape=torchlike.Size(),
                 validate_args=None):
        self._batch_shape = torchlike.Size(batch_shape)
        self._event_shape = torchlike.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. "
                              "Please set `arg_constraints = {}` or initialize the distribution "
                              "with `validate_args=False` to turn off validation.")
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # the other parametrisation was given
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A view of this distribution with a larger batch shape (parameters
        are expanded, not copied)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=torchlike.Size()):
        """Draws ``sample_shape`` samples, outside the autograd graph."""
        with torchlike.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=torchlike.Size()):
        """Draws reparameterised samples: gradients flow to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(torchlike.Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return torchlike.exp(self.entropy())

    def _extended_shape(self, sample_shape=torchlike.Size()):
        """``sample_shape + batch_shape + event_shape``."""
        if not isinstance(sample_shape, torchlike.Size):
            sample_shape = torchlike.Size(sample_shape)
        return torchlike.Size(tuple(sample_shape) + tuple(self._batch_shape)
                              + tuple(self._event_shape))

    def _validate_sample(self, value):
        """Checks that ``value`` is a tensor whose shape fits this distribution
        and whose entries lie in the support."""
        if not isinstance(value, torchlike.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {torchlike.Size(expected_shape)}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable "
                          "sample validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.")
            return
        assert support is not None
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _expand_params(self, cls, batch_shape, _instance, names):
        """The ``expand`` of a family whose parameters all have the batch
        shape: each parameter of ``names`` present on this instance is
        expanded (a view, no copy) onto the new instance."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = torchlike.Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
        if "_param" in self.__dict__:
            given = "probs" if self._param is self.__dict__.get("probs") else "logits"
            new._param = new.__dict__[given]
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in names)
        return self.__class__.__name__ + "(" + args + ")"


class _LocationScale(Distribution):
    """A symmetric location-scale family on the real line (Normal, Laplace):
    ``loc`` and ``scale`` broadcast to the batch shape; mean and mode are
    ``loc``."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        (self.loc, self.scale), batch_shape = broadcast_params(loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        # the family itself (Normal, Laplace), so that a subclass with its own
        # __init__ is told to define expand, as in PyTorch
        family = next(c for c in type(self).__mro__ if _LocationScale in c.__bases__)
        return self._expand_params(family, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
