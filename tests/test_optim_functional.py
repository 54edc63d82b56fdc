"""The functional optimizer API (torch.optim.sgd.sgd, torch.optim.adam.adam,
torch.optim.adamw.adamw, torch.optim._functional): one step over lists with
the state kept by the caller.  The oracle is the optimizer classes (whose
steps tests/test_optim.py checks against PyTorch); the training program
functional_optimizers(T) in tests/test_training_programs7.py compares a
loop with PyTorch's."""
import numpy as np
import pytest

import torchlike as T
from torchlike.optim import _functional
from torchlike.optim.adam import adam
from torchlike.optim.adamw import adamw
from torchlike.optim.sgd import sgd


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    # T.tensor: on the default device, as the optimizers' step counters are
    w = T.nn.Parameter(T.tensor(rng.standard_normal((3, 2)).astype(np.float32)))
    b = T.nn.Parameter(T.tensor(rng.standard_normal(2).astype(np.float32)))
    x = T.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    return [w, b], lambda: ((x @ w + b) ** 2).mean()


def _grads(params, loss):
    for p in params:
        p.grad = None
    loss().backward()
    return [p.grad for p in params]


@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd_matches_the_class_and_fills_the_momentum_list(nesterov):
    params, loss = _problem()
    ref, ref_loss = _problem()
    opt = T.optim.SGD(ref, lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=nesterov)
    bufs = [None, None]
    for _ in range(3):
        grads = _grads(params, loss)
        with T.no_grad():
            sgd(params, grads, bufs, weight_decay=0.01, momentum=0.9, lr=0.1, dampening=0.0,
                nesterov=nesterov, maximize=False)
        opt.zero_grad()
        ref_loss().backward()
        opt.step()
    for p, q in zip(params, ref):
        np.testing.assert_array_equal(np.asarray(p.detach().cpu()), np.asarray(q.detach().cpu()))
    assert all(isinstance(b, T.Tensor) for b in bufs)
    np.testing.assert_array_equal(np.asarray(bufs[0].cpu()),
                                  np.asarray(opt.state[ref[0]]["momentum_buffer"].cpu()))


@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("decoupled", [False, True])
def test_adam_and_adamw_match_the_classes(amsgrad, decoupled):
    params, loss = _problem(1)
    ref, ref_loss = _problem(1)
    cls = T.optim.AdamW if decoupled else T.optim.Adam
    opt = cls(ref, lr=0.05, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=amsgrad)
    m = [T.zeros_like(p) for p in params]
    v = [T.zeros_like(p) for p in params]
    vmax = [T.zeros_like(p) for p in params] if amsgrad else []   # PyTorch's lists
    steps = [T.tensor(0.0) for _ in params]
    step = adamw if decoupled else adam
    for _ in range(3):
        grads = _grads(params, loss)
        with T.no_grad():
            step(params, grads, m, v, vmax, steps, amsgrad=amsgrad, beta1=0.8, beta2=0.99,
                 lr=0.05, weight_decay=0.1, eps=1e-8, maximize=False)
        opt.zero_grad()
        ref_loss().backward()
        opt.step()
    for p, q in zip(params, ref):
        np.testing.assert_array_equal(np.asarray(p.detach().cpu()), np.asarray(q.detach().cpu()))
    assert steps[0].item() == 3.0
    np.testing.assert_array_equal(np.asarray(v[1].cpu()),
                                  np.asarray(opt.state[ref[1]]["exp_avg_sq"].cpu()))


def test_refusals():
    p = T.nn.Parameter(T.ones(2))
    kw = dict(amsgrad=False, beta1=0.9, beta2=0.99, lr=0.1, weight_decay=0.0, eps=1e-8,
              maximize=False)
    with T.no_grad():
        # PyTorch's sentence for step counters that are not tensors
        with pytest.raises(RuntimeError, match="^API has changed, `state_steps` argument must "
                                               "contain a list of singleton tensors$"):
            adam([p], [T.ones(2)], [T.zeros(2)], [T.zeros(2)], [], [0], **kw)
        # the fused kernels' unscaling inputs have no per-parameter meaning here
        with pytest.raises(RuntimeError, match="grad_scale and found_inf"):
            adam([p], [T.ones(2)], [T.zeros(2)], [T.zeros(2)], [], [T.tensor(0.0)],
                 grad_scale=T.tensor(2.0), **kw)
    assert _functional.sgd is sgd and _functional.adam is adam and _functional.adamw is adamw
    assert T.optim.adamw.AdamW is T.optim.AdamW
    assert T.optim.functional.adam is adam and T.optim.functional.sgd is sgd


def _state_like_the_class(name, params):
    """The lists each optimizer's step keeps, laid out as PyTorch's
    _init_group lays them out, with the class's starting values."""
    z = [T.zeros_like(p) for p in params]
    s = [T.tensor(0.0) for _ in params]
    return {
        "adagrad": lambda: ([[T.full_like(p, 0.2) for p in params]], [s]),
        "rmsprop": lambda: ([[T.zeros_like(p) for p in params], [T.zeros_like(p) for p in params],
                             z], [s]),
        "nadam": lambda: ([z, [T.zeros_like(p) for p in params]],
                          [[T.tensor(1.0) for _ in params], s]),
        "asgd": lambda: ([z], [[T.tensor(1.0) for _ in params], [T.tensor(0.05) for _ in params],
                               s]),
    }[name]()


@pytest.mark.parametrize("name, cls, kw, call", [
    ("adagrad", T.optim.Adagrad, dict(lr=0.1, lr_decay=0.01, weight_decay=0.1,
                                      initial_accumulator_value=0.2),
     lambda ps, gs, b, sc: _functional.adagrad(ps, gs, b[0], sc[0], lr=0.1, weight_decay=0.1,
                                               lr_decay=0.01, eps=1e-10, maximize=False)),
    ("rmsprop", T.optim.RMSprop, dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1),
     lambda ps, gs, b, sc: _functional.rmsprop(ps, gs, b[0], b[1], b[2], sc[0], lr=0.01,
                                               alpha=0.99, eps=1e-8, weight_decay=0.1,
                                               momentum=0.5, centered=True)),
    ("nadam", T.optim.NAdam, dict(lr=0.02, weight_decay=0.1),
     lambda ps, gs, b, sc: _functional.nadam(ps, gs, b[0], b[1], sc[0], sc[1], beta1=0.9,
                                             beta2=0.999, lr=0.02, weight_decay=0.1,
                                             momentum_decay=0.004, eps=1e-8)),
    ("asgd", T.optim.ASGD, dict(lr=0.05, t0=1.0, weight_decay=0.1),
     lambda ps, gs, b, sc: _functional.asgd(ps, gs, b[0], sc[0], sc[1], sc[2], lambd=1e-4,
                                            lr=0.05, t0=1.0, alpha=0.75, weight_decay=0.1)),
])
def test_the_other_functional_forms_match_their_classes(name, cls, kw, call):
    params, loss = _problem(2)
    ref, ref_loss = _problem(2)
    opt = cls(ref, **kw)
    buffers, scalars = _state_like_the_class(name, params)
    for _ in range(3):
        grads = _grads(params, loss)
        with T.no_grad():
            call(params, grads, buffers, scalars)
        opt.zero_grad()
        ref_loss().backward()
        opt.step()
    for p, q in zip(params, ref):
        np.testing.assert_array_equal(np.asarray(p.detach().cpu()), np.asarray(q.detach().cpu()))
    assert sorted(T.optim.functional.__all__) == sorted(_functional.__all__)


def test_sparse_adam_matches_the_class_on_sparse_gradients():
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((6, 3)).astype(np.float32)
    emb, ref = (T.nn.Embedding(6, 3, sparse=True) for _ in range(2))
    with T.no_grad():
        emb.weight.copy_(T.tensor(w0))
        ref.weight.copy_(T.tensor(w0))
    opt = T.optim.SparseAdam(ref.parameters(), lr=0.1)
    idx = T.tensor([1, 3, 3, 5])
    m, v = T.zeros_like(emb.weight), T.zeros_like(emb.weight)
    for step in range(1, 4):
        emb.zero_grad()
        emb(idx).pow(2).sum().backward()
        with T.no_grad():
            _functional.sparse_adam([emb.weight], [emb.weight.grad], [m], [v], [step], eps=1e-8,
                                    beta1=0.9, beta2=0.999, lr=0.1, maximize=False)
        opt.zero_grad()
        ref(idx).pow(2).sum().backward()
        opt.step()
    np.testing.assert_array_equal(np.asarray(emb.weight.detach().cpu()),
                                  np.asarray(ref.weight.detach().cpu()))
    with pytest.raises(RuntimeError, match="sparse coordinate tensor layout"):
        _functional.sparse_adam([emb.weight], [T.ones(6, 3)], [m], [v], [4], eps=1e-8, beta1=0.9,
                                beta2=0.999, lr=0.1, maximize=False)
