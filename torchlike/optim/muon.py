"""Muon (momentum orthogonalised by Newton-Schulz), as torch.optim.Muon.

For the 2-D weights of hidden layers; biases, embeddings and heads belong to
another optimizer (AdamW), as in PyTorch."""
import math

from .optimizer import Optimizer, _functional_step
from .. import _C

__all__ = ["Muon", "muon"]

_LR_ADJUSTMENTS = ("original", "match_rms_adamw", "spectral_unclamped")


class Muon(Optimizer):
    """B = momentum * B + (1 - momentum) * g (a lerp), the update
    lerp(g, B, momentum) with nesterov else B, orthogonalised by ns_steps
    Newton-Schulz iterations in bfloat16; decoupled decay
    p *= 1 - lr * weight_decay, then p -= adjusted_lr * O."""

    _refuses_complex = True  # as PyTorch's: complex parameters raise

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5,
                 adjust_lr_fn=None):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in _LR_ADJUSTMENTS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _init_state(self, p, state, group):
        state["momentum_buffer"] = _C.zeros_like(p.grad)

    def step(self, closure=None):
        return self._multi_or_single(None, ("momentum_buffer",), (), _single_tensor_muon,
                                     closure)


def _single_tensor_muon(params, grads, buffers, scalars, group):
    lr, momentum = float(group["lr"]), group["momentum"]
    for param, grad, buf in zip(params, grads, *buffers):
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if group["nesterov"] else buf
        update = _newton_schulz(update, group["ns_coefficients"], group["ns_steps"],
                                group["eps"])
        param.mul_(1 - lr * group["weight_decay"])
        param.add_(update, alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], param.shape))


def _newton_schulz(grad, coefficients, steps, eps):
    """An approximate U V^T of grad = U S V^T: X <- a X + (b G + c G^2) X with
    G = X X^T, from X = grad / |grad|_F.  The quintic's coefficients push the
    singular values towards ~[0.5, 1.5] fast rather than to 1 exactly, which
    is all the update needs; bfloat16 is precise enough for it.  A tall matrix
    is iterated transposed so that G is the smaller Gram matrix.

    grad (m, n) -> (m, n)"""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.to(dtype=_C.bfloat16, copy=True)
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(steps):
        gram = x @ x.T
        poly = _C.addmm(gram, gram, gram, beta=b, alpha=c)
        x = _C.addmm(x, poly, x, beta=a)
    return x.T if tall else x


def _adjusted_lr(lr, how, shape):
    """lr scaled for the matrix's shape (fan_out A, fan_in B): "original"
    (the default) sqrt(max(1, A/B)), "match_rms_adamw" 0.2 sqrt(max(A, B)),
    "spectral_unclamped" sqrt(A/B)."""
    fan_out, fan_in = shape[:2]
    if how is None or how == "original":
        return lr * math.sqrt(max(1, fan_out / fan_in))
    if how == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(fan_out, fan_in))
    return lr * math.sqrt(fan_out / fan_in)


def muon(params, grads, muon_momentum_bufs, *, foreach=None, lr, weight_decay, momentum,
         nesterov, ns_coefficients, ns_steps, eps, adjust_lr_fn, has_complex):
    """One Muon step over lists, as torch.optim._muon.muon (2-d parameters,
    their momentum buffers kept by the caller)."""
    group = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                 ns_coefficients=ns_coefficients, ns_steps=ns_steps, eps=eps,
                 adjust_lr_fn=adjust_lr_fn)
    _functional_step(_single_tensor_muon, params, grads, [muon_momentum_bufs], [], group)
