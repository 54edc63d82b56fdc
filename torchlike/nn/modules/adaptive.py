"""AdaptiveLogSoftmaxWithLoss (Grave et al., 2016): a softmax over many
classes split by frequency into a head and tail clusters.

Parameters, as PyTorch's: ``head`` is Linear(in_features, shortlist +
n_clusters) (bias only with ``head_bias``) scoring the shortlist classes
[0, cutoffs[0]) and one logit per cluster; ``tail[i]`` is
Sequential(Linear(in_features, in_features // div_value**(i+1)),
Linear(that, cluster size)), both without bias.  The log-probability of a
class in cluster i is log p(cluster i | head) + log p(class | tail[i])."""
from collections import namedtuple

from ... import _C
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """``forward(input, target)``: input (N, in_features) or (in_features,),
    target (N,) or () of class indices; returns ``(output, loss)`` with
    output (N,) the log-probability of each target and loss the mean of
    ``-output``.  ``log_prob(input)`` gives all (N, n_classes)
    log-probabilities, ``predict(input)`` the most likely class (N,)."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 \
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, **kw),
                                        Linear(hsz, osz, bias=False, **kw)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        targ_dim = target_.ndim
        if targ_dim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.ndim != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.shape}")
        elif targ_dim == 0:
            if input_.ndim != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.shape}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)

        batch_size = target.shape[0]
        # output: the tail log-probability of each row's class (0 for the
        # shortlist); gather_inds: the head column each row reads
        output = input.new_zeros((batch_size,))
        gather_inds = target.new_empty((batch_size,))
        used_rows = 0
        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low, high = cutoff_values[i], cutoff_values[i + 1]
            target_mask = (target >= low) & (target < high)
            row_indices = target_mask.nonzero().reshape(-1)
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds = gather_inds.index_copy(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - low
                cluster_output = self.tail[i - 1](input.index_select(0, row_indices))
                gather_inds = gather_inds.index_fill(0, row_indices, self.shortlist_size + i - 1)
                local_logprob = F.log_softmax(cluster_output, dim=1).gather(
                    1, relative_target.unsqueeze(1))
                output = output.index_copy(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()
        if used_rows != batch_size:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        """(N, n_classes): the shortlist's head log-probabilities, then each
        cluster's tail log-probabilities plus its head log-probability."""
        head_logprob = F.log_softmax(head_output, dim=1)
        pieces = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            pieces.append(cluster_logprob
                          + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return _C.cat(pieces, dim=1)

    def log_prob(self, input):
        """(N, in_features) -> (N, n_classes) log-probabilities."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """(N, in_features) -> (N,) the most likely class; the tails are only
        evaluated for rows whose head does not pick a shortlist class."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not bool(not_in_shortlist.any()):
            return output
        if bool(not_in_shortlist.all()):
            return self._get_full_log_prob(input, head_output).argmax(dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist],
                                           head_output[not_in_shortlist])
        output[not_in_shortlist] = log_prob.argmax(dim=1)
        return output
