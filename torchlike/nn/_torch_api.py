"""nn ops that PyTorch also spells as ``torch.*`` functions and Tensor methods
(``torch.relu(x)``, ``torch.softmax(x, -1)``, ``x.softmax(-1)``), so model
code written that way runs.  Each is the nn.functional op, with the
positional order of PyTorch's torch-level spelling where it differs."""
from .. import _C
from . import functional as F

__all__ = ["relu", "relu_", "softmax", "log_softmax", "dropout", "alpha_dropout",
           "feature_dropout", "dropout_", "alpha_dropout_", "feature_dropout_",
           "feature_alpha_dropout", "feature_alpha_dropout_", "selu", "selu_", "celu", "celu_", "prelu", "rrelu", "rrelu_",
           "hardshrink", "threshold", "threshold_", "layer_norm", "group_norm", "instance_norm",
           "batch_norm", "rms_norm", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
           "conv_transpose2d", "conv_transpose3d", "max_pool1d", "max_pool2d", "max_pool3d",
           "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "conv_tbc", "cosine_similarity",
           "pairwise_distance", "cdist", "pdist", "bilinear", "binary_cross_entropy_with_logits", "ctc_loss",
           "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "kl_div", "poisson_nll_loss", "triplet_margin_loss"]


def softmax(input, dim, dtype=None):
    """``torch.softmax(input, dim, dtype=None)``."""
    return F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    """``torch.log_softmax(input, dim, dtype=None)``."""
    return F.log_softmax(input, dim, dtype=dtype)


def feature_dropout(input, p, train, inplace=False):
    """``torch.feature_dropout``: one draw per (dim 0, dim 1) entry."""
    F._check_p(p)
    if not train or p == 0.0:
        return input
    return F._dropout(input, p, min(2, input.ndim), False, inplace)


# The in-place twins of the torch-level dropouts, (input, p, train) each; a
# bad p is a RuntimeError at this level, as in PyTorch (nn.functional: ValueError).
def _torch_p(p):
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return p


def dropout_(input, p, train):
    """``torch.dropout_``: ``dropout`` written into ``input``."""
    return F.dropout(input, _torch_p(p), train, inplace=True)


def alpha_dropout_(input, p, train):
    """``torch.alpha_dropout_``: ``alpha_dropout`` written into ``input``."""
    return F.alpha_dropout(input, _torch_p(p), train, inplace=True)


def feature_dropout_(input, p, train):
    """``torch.feature_dropout_``: ``feature_dropout`` written into ``input``."""
    return feature_dropout(input, _torch_p(p), train, inplace=True)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout``: alpha dropout, one draw per (dim 0, dim 1) entry."""
    return F.feature_alpha_dropout(input, _torch_p(p), train)


def feature_alpha_dropout_(input, p, train):
    """``torch.feature_alpha_dropout_``: ``feature_alpha_dropout`` written into ``input``."""
    return F.feature_alpha_dropout(input, _torch_p(p), train, inplace=True)


relu, relu_, dropout, alpha_dropout = F.relu, F.relu_, F.dropout, F.alpha_dropout
selu, selu_, celu, celu_ = F.selu, F.selu_, F.celu, F.celu_
prelu, rrelu, rrelu_, hardshrink = F.prelu, F.rrelu, F.rrelu_, F.hardshrink
threshold, threshold_ = F.threshold, F.threshold_
layer_norm, group_norm, instance_norm = F.layer_norm, F.group_norm, F.instance_norm
batch_norm, rms_norm = F.batch_norm, F.rms_norm
conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d, conv_transpose3d = (F.conv_transpose1d, F.conv_transpose2d,
                                                        F.conv_transpose3d)
max_pool1d, max_pool2d, max_pool3d = F.max_pool1d, F.max_pool2d, F.max_pool3d
avg_pool1d, adaptive_avg_pool1d = F.avg_pool1d, F.adaptive_avg_pool1d
adaptive_max_pool1d = F.adaptive_max_pool1d
pixel_shuffle, pixel_unshuffle, channel_shuffle = (F.pixel_shuffle, F.pixel_unshuffle,
                                                   F.channel_shuffle)
conv_tbc = F.conv_tbc
cosine_similarity, pairwise_distance, cdist, pdist = (F.cosine_similarity, F.pairwise_distance,
                                                      F.cdist, F.pdist)
bilinear, ctc_loss = F.bilinear, F.ctc_loss
cosine_embedding_loss, margin_ranking_loss = F.cosine_embedding_loss, F.margin_ranking_loss
hinge_embedding_loss, kl_div, poisson_nll_loss = (F.hinge_embedding_loss, F.kl_div,
                                                  F.poisson_nll_loss)
triplet_margin_loss = F.triplet_margin_loss


def _reduction_number(fn, reduction):
    """A torch-level loss's reduction: the number of torch.nn._reduction
    (0 none, 1 mean, 2 sum), not the name nn.functional takes."""
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{fn}(): argument 'reduction' must be int, not "
                        f"{type(reduction).__name__}")
    if reduction not in (0, 1, 2):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return ("none", "mean", "sum")[reduction]


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``torch.binary_cross_entropy_with_logits(input, target, weight,
    pos_weight, reduction)``: the weights positional, the reduction a number.
    Unlike nn.functional's, no same-size check: a target may broadcast the
    input (x[:, :1] against a (3, 4) target gives (3, 4)), and what
    disagrees is refused by the formula's broadcasts.  NOTE: with no
    reduction given PyTorch's binding reduces nothing, though its stub says
    1 (mean); that is what it does, so that is what this does."""
    name = "binary_cross_entropy_with_logits"
    r = _reduction_number(name, reduction)
    F._tensor_or_none(name, "weight", 3, weight)
    F._tensor_or_none(name, "pos_weight", 4, pos_weight)
    F._bce_logits_shapes(input, target, weight, pos_weight)
    if tuple(input.shape) != tuple(target.shape):
        input = input.expand(target.shape)
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=r,
                                              pos_weight=pos_weight)


def _method(fn, name):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"``{name}(self, ...)``: see ``torchlike.nn.functional.{fn.__name__}``."
    return method


for _name, _fn in (("relu", relu), ("relu_", relu_), ("softmax", softmax),
                   ("log_softmax", log_softmax), ("prelu", prelu), ("hardshrink", hardshrink)):
    setattr(_C.Tensor, _name, _method(_fn, _name))
