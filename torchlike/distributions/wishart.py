import math
import numbers
import warnings

import torchlike
from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _ScaleTrilMatrices, _scale_tril_of
from .utils import eps

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function: sum_i digamma(x - i / 2), i < p."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = torchlike.arange(p, dtype=x.dtype, device=x.device) / 2
    return torchlike.digamma(x.unsqueeze(-1) - halves).sum(-1)


class Wishart(_ScaleTrilMatrices, ExponentialFamily):
    """Wishart distribution of (p, p) positive definite matrices with ``df``
    degrees of freedom and scale given by exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``.
    rsample is Bartlett's decomposition (chi-squared diagonal, normal
    below it), reparameterised through the Chi2 draws."""
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = torchlike.Size(tuple(param.shape[:-2]))
            self.df = torchlike.tensor(float(df), dtype=param.dtype, device=param.device)
        else:
            batch_shape = torchlike.Size(torchlike.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(tuple(batch_shape))
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        matrix_shape = tuple(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = param.expand(matrix_shape)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(matrix_shape)
        else:
            self.precision_matrix = param.expand(matrix_shape)
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        self._unbroadcasted_scale_tril = _scale_tril_of(scale_tril, covariance_matrix, precision_matrix)
        self._dist_chi2 = self._bartlett_chi2(batch_shape)

    def _bartlett_chi2(self, batch_shape):
        """Chi2(df - i) for the i-th diagonal entry of Bartlett's factor."""
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        steps = torchlike.arange(p, dtype=L.dtype, device=L.device).expand(tuple(batch_shape) + (-1,))
        return Chi2(df=self.df.unsqueeze(-1) - steps)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = torchlike.Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(tuple(batch_shape))
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        new._event_shape = self._event_shape
        new._dist_chi2 = new._bartlett_chi2(batch_shape)
        ExponentialFamily.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    def _df_matrix(self, df):
        return df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = torchlike.where(factor <= 0, torchlike.full_like(factor, math.nan), factor)
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(0, -2, -1)
        return self._df_matrix(self.df) * (V.pow(2) + diag_V.unsqueeze(-1) * diag_V.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps(self.df.dtype))
        n_below = p * (p - 1) // 2
        normal = torchlike.randn(tuple(sample_shape) + tuple(self._batch_shape) + (n_below,),
                                 dtype=diag.dtype, device=diag.device)
        # scatter the normal draws below the diagonal, row by row
        rows, cols = torchlike.tril_indices(p, p, offset=-1, device=diag.device)
        flat = torchlike.zeros(tuple(normal.shape[:-1]) + (p * p,), dtype=diag.dtype, device=diag.device)
        flat = flat.index_copy(-1, rows * p + cols, normal) if n_below else flat
        noise = flat.reshape(tuple(normal.shape[:-1]) + (p, p)) + torchlike.diag_embed(diag)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.mT

    def rsample(self, sample_shape=torchlike.Size(), max_try_correction=None):
        """Bartlett draws; a draw that is not positive definite (possible when
        df is close to p - 1) is redrawn up to ``max_try_correction`` times."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = torchlike.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        is_singular = self._singular(sample)
        if bool(is_singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(sample_shape)
                keep = is_singular.reshape(tuple(is_singular.shape) + (1,) * (sample.dim() - is_singular.dim()))
                sample = torchlike.where(keep, sample_new, sample)
                is_singular = self._singular(sample)
                if not bool(is_singular.any()):
                    break
        return sample

    def _singular(self, sample):
        """Per sample (batch dimensions reduced): whether any of its matrices
        is not positive definite."""
        bad = ~self.support.check(sample)
        return bad.amax(self._batch_dims) if self._batch_shape else bad

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return (-nu * (p * _LOG_2 / 2 + L.diagonal(0, -2, -1).log().sum(-1))
                - torchlike.mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * torchlike.linalg.slogdet(value).logabsdet
                - torchlike.cholesky_solve(value, L).diagonal(0, -2, -1).sum(-1) / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return ((p + 1) * (p * _LOG_2 / 2 + L.diagonal(0, -2, -1).log().sum(-1))
                + torchlike.mvlgamma(nu / 2, p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-torchlike.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + torchlike.mvlgamma(y + (p + 1) / 2, p))
