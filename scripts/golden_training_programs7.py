"""Record PyTorch's answers for a seventh round of training programs, for
tests/test_training_programs7.py, from corners the first six rounds left
out, mostly the machinery around a model: optimizers given unusual
parameters, the state PyTorch keeps (Adagrad's accumulator, LBFGS's
line-search history, named parameters), state dicts carried across
optimizers and checkpoints, schedulers chained and resumed, the functional
optimizer API, gradient clipping, module and optimizer hooks,
parametrizations, per-sample gradients, GradScaler, activation
checkpointing, the data loader's samplers, collate functions and
datasets, packed sequences, bags, CTC, Transformers with their masks,
weight averaging, pruning, low-precision parameters; and the refusals a
script meets (every optimizer's and scheduler's, the layers', losses',
modules', data utilities', autocast's, torch.func's), in PyTorch's words.

As in rounds three to six, every program takes the library as T and
builds its parameters and data from NumPy (moved to the default device,
so the device suites can run them), so the test runs the very same code
on torchlike; describe() is round six's.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs7.py
writes tests/golden/training_programs7.json ([call, outcome] pairs over T)."""
import io
import math

import numpy as np

from golden_calls import record
from golden_training_programs3 import _arr, _data, _init, _raised, _warned
from golden_training_programs6 import describe  # noqa: F401 - the test's describe()


def _raised_head(fn):
    """_raised(fn) with the message up to any parenthesised detail (the
    shapes, dtypes or counts torchlike adds to a message PyTorch words
    without them)."""
    out = _raised(fn)
    return out if isinstance(out, str) else [out[0], out[1].split(" (")[0]]


def _t(T, *shape, seed=0, scale=1.0):
    return _data(T, _arr(*shape, seed=seed, scale=scale))


def _mlp(T, seed, sizes=(4, 8, 2)):
    nn = T.nn
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.Tanh()]
    return _init(T, nn.Sequential(*layers[:-1]), seed)


def _fit(T, model, opt, x, y, steps=3, sched=None):
    """steps of MSE regression; the losses."""
    F = T.nn.functional
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(loss.item())
    return losses


def _state_types(state):
    """An optimizer state's entries as their kinds: a tensor's dtype and
    shape, a list's kinds, a float's or int's type."""
    def kind(v):
        if hasattr(v, "dtype") and hasattr(v, "shape"):
            return ["tensor", str(v.dtype).split(".")[-1], list(v.shape)]
        if isinstance(v, (list, tuple)):
            return [type(v).__name__, [kind(x) for x in v]]
        return type(v).__name__
    return {k: kind(v) for k, v in sorted(state.items())}


# ---- optimizers given unusual parameters ------------------------------------------------------

def optimizer_bad_params(T):
    """What an optimizer does with parameters a script gets wrong: an
    integer tensor, a non-leaf, an empty list, a set, a tensor given
    alone, a parameter in two groups, nesterov without momentum, a
    negative learning rate; and a complex parameter trained by Adam."""
    O = T.optim
    w = T.nn.Parameter(T.ones(3))
    leaf = T.ones(3, requires_grad=True)
    out = [
        _raised_head(lambda: T.nn.Parameter(T.arange(3))),
        _raised(lambda: O.SGD([T.arange(3)], lr=0.1)),
        _raised(lambda: O.SGD([leaf * 2], lr=0.1)),
        _raised(lambda: O.SGD([], lr=0.1)),
        _raised(lambda: O.Adam({w}, lr=0.1)),
        _raised(lambda: O.SGD(w, lr=0.1)),
        _raised(lambda: O.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)),
        _raised(lambda: O.SGD([w], lr=0.1, nesterov=True)),
        _raised(lambda: O.Adam([w], lr=-1.0)),
        _raised(lambda: O.Adam([w], betas=(1.0, 0.9))),
        _raised(lambda: O.SGD([w])),
    ]
    z = T.nn.Parameter(_data(T, (_arr(4, seed=1) + 1j * _arr(4, seed=2)).astype(np.complex64)))
    target = _data(T, (_arr(4, seed=3) - 1j * _arr(4, seed=4)).astype(np.complex64))
    opt = O.Adam([z], lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        loss = (z - target).abs().pow(2).sum()
        loss.backward()
        opt.step()
    out += [z, _state_types(opt.state[z])]
    return out


def adagrad_accumulator(T):
    """Adagrad with an initial accumulator and lr decay, with weight decay,
    its state (sum and step), resumed from a state dict mid-run: the
    resumed run matches the uninterrupted one."""
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)

    def make(m):
        return T.optim.Adagrad(m.parameters(), lr=0.2, lr_decay=0.05, weight_decay=0.01,
                               initial_accumulator_value=0.5, eps=1e-8)

    m = _mlp(T, 3)
    opt = make(m)
    losses = _fit(T, m, opt, x, y, 5)
    m2 = _mlp(T, 3)
    opt2 = make(m2)
    _fit(T, m2, opt2, x, y, 2)
    sd = opt2.state_dict()
    m3 = _mlp(T, 3)
    m3.load_state_dict(m2.state_dict())
    opt3 = make(m3)
    opt3.load_state_dict(sd)
    more = _fit(T, m3, opt3, x, y, 3)
    st = opt.state[m[0].weight]
    return [losses, more, m[0].weight, (m3[0].weight - m[0].weight).abs().max().item(),
            st["sum"], st["step"], _state_types(st), sorted(sd["param_groups"][0])]


def lbfgs_strong_wolfe_state(T):
    """LBFGS with the strong-Wolfe line search fitting a small least-squares
    model in float64 (in float32 the second step's line search compares
    losses equal to rounding, and the branch taken is float32 noise): the
    losses, and the state it keeps between steps (the search
    direction, step length, history lists, H_diag, the previous loss), as
    the kinds of value PyTorch stores them."""
    x, y = _t(T, 12, 3, seed=1).double(), _t(T, 12, 1, seed=2).double()
    m = _init(T, T.nn.Linear(3, 1), 4).double()
    opt = T.optim.LBFGS(m.parameters(), lr=1, max_iter=5, history_size=3,
                        line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(m(x), y) + 0.1 * m.weight.pow(4).sum()
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(2)]
    st = opt.state[opt.param_groups[0]["params"][0]]
    sd = opt.state_dict()
    return [losses, m.weight, m.bias, _state_types(st), st["func_evals"], st["n_iter"],
            len(st["old_dirs"]), sorted(sd["state"][0]), float(st["t"]),
            sorted(sd["param_groups"][0])]


def named_param_state_dict(T):
    """An optimizer given named_parameters(): its state dict names them, a
    second group added by add_param_group with names too, and a load into
    an optimizer built the same way; loading a dict whose groups differ in
    size is refused with PyTorch's message."""
    m = _mlp(T, 5)
    x, y = _t(T, 6, 4, seed=1), _t(T, 6, 2, seed=2)
    opt = T.optim.AdamW(m[0].named_parameters(), lr=0.01, weight_decay=0.1)
    opt.add_param_group({"params": list(m[2].named_parameters()), "lr": 0.05})
    _fit(T, m, opt, x, y, 2)
    sd = opt.state_dict()
    m2 = _mlp(T, 5)
    m2.load_state_dict(m.state_dict())
    opt2 = T.optim.AdamW(m2[0].named_parameters(), lr=0.01, weight_decay=0.1)
    opt2.add_param_group({"params": list(m2[2].named_parameters()), "lr": 0.05})
    opt2.load_state_dict(sd)
    a = _fit(T, m, opt, x, y, 2)
    b = _fit(T, m2, opt2, x, y, 2)
    bad = T.optim.AdamW(m.parameters(), lr=0.01)
    return [[g.get("param_names") for g in sd["param_groups"]], [g["params"] for g in
            sd["param_groups"]], a, b, sd["state"][2]["exp_avg"],
            _raised_head(lambda: bad.load_state_dict(sd)),
            _raised(lambda: opt.add_param_group({"params": [m[0].weight]}))]


def state_across_optimizers(T):
    """Momentum SGD's state dict loaded into a fresh SGD with a group added
    later, and the step after; a state dict of Adam loaded into SGD (the
    foreign entries kept, the step failing on Adam's groups); changing a
    group's lr after loading."""
    m = _mlp(T, 6)
    x, y = _t(T, 6, 4, seed=1), _t(T, 6, 2, seed=2)
    opt = T.optim.SGD([{"params": m[0].parameters()}], lr=0.1, momentum=0.9, dampening=0.1)
    opt.add_param_group({"params": m[2].parameters(), "lr": 0.01, "momentum": 0.5})
    _fit(T, m, opt, x, y, 2)
    sd = opt.state_dict()
    opt2 = T.optim.SGD([{"params": m[0].parameters()}], lr=0.3, momentum=0.0)
    opt2.add_param_group({"params": m[2].parameters()})
    opt2.load_state_dict(sd)
    groups = [{k: v for k, v in g.items() if k != "params"} for g in opt2.param_groups]
    adam = T.optim.Adam(m.parameters(), lr=0.01)
    _fit(T, m, adam, x, y, 1)
    sgd = T.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    sgd.load_state_dict(adam.state_dict())
    keys = sorted(sgd.state[m[0].weight])
    failed = _raised(lambda: _fit(T, m, sgd, x, y, 1))    # Adam's groups have no momentum
    opt2.param_groups[1]["lr"] = 0.02
    losses = _fit(T, m, opt2, x, y, 2)
    return [groups, keys, sorted(sgd.param_groups[0]), failed, losses, m[2].bias,
            opt2.state_dict()["param_groups"][1]["lr"]]


def optimizer_options(T):
    """Less common switches: Adam with amsgrad, maximize and weight decay;
    a tensor learning rate; fused Adam and
    AdamW on the CPU agreeing with the loop; zero_grad(set_to_none=False)."""
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    out = []
    for kw in ({"amsgrad": True, "weight_decay": 0.05},
               {"maximize": True},
               {"lr": T.tensor(0.02)},
               {"fused": True},
               {"foreach": False, "amsgrad": True}):
        m = _mlp(T, 7)
        kw = dict({"lr": 0.02}, **kw)
        opt = T.optim.Adam(m.parameters(), **kw)
        losses = _fit(T, m, opt, x, y, 3)
        st = opt.state[m[0].weight]
        out.append([sorted(k for k in kw), losses, m[0].bias, _state_types(st)])
    m = _mlp(T, 7)
    opt = T.optim.AdamW(m.parameters(), lr=0.02, fused=True)
    _fit(T, m, opt, x, y, 2)
    opt.zero_grad(set_to_none=False)
    out.append([m[0].bias, m[0].weight.grad.abs().sum().item()])
    opt.zero_grad()
    out.append(m[0].weight.grad is None)
    return out


# ---- schedulers -----------------------------------------------------------------------------

def warmup_then_cosine(T):
    """The common recipe: SequentialLR of a LinearLR warmup and a
    CosineAnnealingLR, per step, over two param groups; then its state dict
    resumed into a fresh scheduler and run on."""
    S = T.optim.lr_scheduler
    m = _mlp(T, 8)

    def make():
        opt = T.optim.SGD([{"params": m[0].parameters()},
                           {"params": m[2].parameters(), "lr": 0.5}], lr=0.1, momentum=0.9)
        sch = S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.1, total_iters=3),
                                   S.CosineAnnealingLR(opt, T_max=6, eta_min=0.001)],
                             milestones=[3])
        return opt, sch

    opt, sch = make()
    lrs = []
    for i in range(5):
        opt.step()
        sch.step()
        lrs.append(sch.get_last_lr())
    sd = sch.state_dict()
    opt2, sch2 = make()
    opt2.load_state_dict(opt.state_dict())
    sch2.load_state_dict(sd)
    more = []
    for i in range(4):
        opt2.step()
        sch2.step()
        more.append([g["lr"] for g in opt2.param_groups])
    return [lrs, more, sd["last_epoch"], sd["_milestones"], sorted(sd)]


def chained_with_plateau(T):
    """ChainedScheduler of a StepLR and an ExponentialLR stepping together,
    then ReduceLROnPlateau in 'max' mode with cooldown, an absolute
    threshold and a per-group min_lr, on a validation accuracy curve."""
    S = T.optim.lr_scheduler
    m = _mlp(T, 9)
    opt = T.optim.SGD(m.parameters(), lr=1.0)
    ch = S.ChainedScheduler([S.StepLR(opt, 2, gamma=0.5), S.ExponentialLR(opt, 0.9)])
    lrs = []
    for _ in range(5):
        opt.step()
        ch.step()
        lrs.append(round(ch.get_last_lr()[0], 7))
    opt = T.optim.SGD([{"params": m[0].parameters()}, {"params": m[2].parameters(), "lr": 0.1}],
                      lr=1.0)
    pl = S.ReduceLROnPlateau(opt, mode="max", factor=0.3, patience=1, threshold=0.01,
                             threshold_mode="abs", cooldown=2, min_lr=[0.05, 0.02])
    accs = [0.5, 0.6, 0.605, 0.61, 0.6, 0.62, 0.62, 0.615, 0.64, 0.63, 0.63, 0.63, 0.63]
    seen = []
    for a in accs:
        pl.step(a)
        seen.append([g["lr"] for g in opt.param_groups])
    sd = pl.state_dict()
    return [lrs, seen, pl.get_last_lr(), sd["best"], sd["num_bad_epochs"], sd["cooldown_counter"],
            sorted(k for k in sd)]


def onecycle_three_phase(T):
    """OneCycleLR with three phases and linear annealing on Adam, which
    cycles beta1 as its momentum; its lrs and betas per step, and the
    error for stepping past total_steps."""
    S = T.optim.lr_scheduler
    m = _mlp(T, 10)
    opt = T.optim.Adam(m.parameters(), lr=0.01)
    sch = S.OneCycleLR(opt, max_lr=0.1, total_steps=10, pct_start=0.3, three_phase=True,
                       anneal_strategy="linear", div_factor=10, final_div_factor=100,
                       base_momentum=0.8, max_momentum=0.95)
    seen = []
    for _ in range(9):
        opt.step()
        sch.step()
        g = opt.param_groups[0]
        seen.append([round(g["lr"], 8), round(g["betas"][0], 8)])
    opt.step()
    return [seen, _raised(sch.step), sorted(k for k in opt.param_groups[0] if "lr" in k),
            opt.param_groups[0]["initial_lr"], opt.param_groups[0]["max_lr"]]


def cyclic_exp_range(T):
    """CyclicLR's exp_range mode cycling SGD's momentum, and a custom
    scale_fn by iterations; the scheduler's state dict and a resumed copy."""
    S = T.optim.lr_scheduler
    m = _mlp(T, 11)
    opt = T.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    sch = S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2,
                     mode="exp_range", gamma=0.9, base_momentum=0.8, max_momentum=0.9)
    seen = []
    for _ in range(8):
        opt.step()
        sch.step()
        seen.append([round(opt.param_groups[0]["lr"], 8),
                     round(opt.param_groups[0]["momentum"], 8)])
    opt2 = T.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    sch2 = S.CyclicLR(opt2, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2,
                      mode="exp_range", gamma=0.9, base_momentum=0.8, max_momentum=0.9)
    sch2.load_state_dict(sch.state_dict())
    sch2.step()
    sch.step()
    opt3 = T.optim.SGD(m.parameters(), lr=0.01)
    sch3 = S.CyclicLR(opt3, 0.001, 0.01, step_size_up=2, scale_fn=lambda k: 1 / (k + 1),
                      scale_mode="iterations", cycle_momentum=False)
    lr3 = []
    for _ in range(6):
        opt3.step()
        sch3.step()
        lr3.append(round(sch3.get_last_lr()[0], 9))
    return [seen, sch.get_last_lr() == sch2.get_last_lr(), sch.get_last_lr(), lr3,
            sorted(k for k in sch.state_dict() if not k.startswith("_"))]


def lambda_schedulers_state(T):
    """LambdaLR with one lambda per group and MultiplicativeLR: their state
    dicts (functions are not saved, callable objects are), a resumed
    LambdaLR; and the warning for calling scheduler.step() before
    optimizer.step()."""
    S = T.optim.lr_scheduler
    m = _mlp(T, 12)

    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate ** epoch

    def make():
        opt = T.optim.SGD([{"params": m[0].parameters()}, {"params": m[2].parameters()}], lr=0.1)
        return opt, S.LambdaLR(opt, [lambda e: 1 / (1 + e), Decay(0.5)])

    opt, sch = make()
    for _ in range(3):
        opt.step()
        sch.step()
    sd = sch.state_dict()
    opt2, sch2 = make()
    sch2.load_state_dict(sd)
    opt2.step()
    sch2.step()
    opt3 = T.optim.SGD(m.parameters(), lr=0.1)
    mul = S.MultiplicativeLR(opt3, lambda e: 0.9)
    _, warned = _warned(mul.step)
    return [sch.get_last_lr(), sd["lr_lambdas"], sch2.get_last_lr(), sch2.last_epoch,
            [w[:60] for w in warned], mul.get_last_lr()]


# ---- gradient clipping ----------------------------------------------------------------------

def clipping_variants(T):
    """clip_grad_norm_ by the foreach and per-tensor paths, with the inf
    norm and a fractional one, its total norm returned; a non-finite
    gradient refused with error_if_nonfinite and passed through without;
    clip_grad_value_; get_total_norm and clip_grads_with_norm_ in two
    stages as gradient-accumulation code does; an empty parameter list."""
    U = T.nn.utils
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    out = []
    for kw in ({"foreach": True}, {"foreach": False}, {"norm_type": float("inf")},
               {"norm_type": 1.5}, {"norm_type": 1}):
        m = _mlp(T, 13)
        T.nn.functional.mse_loss(m(x), y).mul(30).backward()
        total = U.clip_grad_norm_(m.parameters(), max_norm=0.5, **kw)
        out.append([total, m[0].weight.grad[0]])
    m = _mlp(T, 13)
    T.nn.functional.mse_loss(m(x), y).backward()
    m[2].bias.grad[0] = float("nan")
    out.append(_raised(lambda: U.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)))
    out.append([U.clip_grad_norm_(m.parameters(), 1.0), m[0].weight.grad[0]])
    m = _mlp(T, 13)
    T.nn.functional.mse_loss(m(x), y).mul(30).backward()
    U.clip_grad_value_(m.parameters(), 0.05)
    out.append(m[0].weight.grad[:2])
    m = _mlp(T, 13)
    T.nn.functional.mse_loss(m(x), y).mul(30).backward()
    grads = [p.grad for p in m.parameters()]
    total = U.get_total_norm(grads, norm_type=2.0)
    U.clip_grads_with_norm_(m.parameters(), 1.0, total)
    out.append([total, m[2].weight.grad])
    out.append(U.clip_grad_norm_([], 1.0))
    out.append(U.clip_grad_norm_(T.nn.Linear(2, 2).parameters(), 1.0))
    return out


# ---- hooks ----------------------------------------------------------------------------------

def hooks_pre_and_full(T):
    """A forward pre-hook with kwargs rewriting a keyword argument, a
    forward hook with always_call seeing an exception, prepended hooks'
    order, full backward pre-hooks scaling grad_output and full backward
    hooks reading grad_input, in one training step."""
    nn = T.nn
    log = []

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)

        def forward(self, x, scale=1.0):
            if scale < 0:
                raise ValueError("negative scale")
            return self.lin(x) * scale

    b = _init(T, Block(), 14)
    b.register_forward_pre_hook(lambda mod, args, kwargs: (args, {**kwargs, "scale": 2.0}),
                                with_kwargs=True)
    b.register_forward_hook(lambda mod, args, out: log.append("second"))
    b.register_forward_hook(lambda mod, args, out: log.append("first"), prepend=True)
    b.register_forward_hook(lambda mod, args, kwargs, out: log.append(["always", kwargs]),
                            with_kwargs=True, always_call=True)
    b.lin.register_full_backward_pre_hook(lambda mod, go: (go[0] * 0.5,))
    grads = []
    b.lin.register_full_backward_hook(lambda mod, gi, go: grads.append([gi[0], go[0]]))
    x = _t(T, 2, 4, seed=1).requires_grad_()
    y = b(x, scale=1.0)
    y.sum().backward()
    out = [y, log[:], grads, x.grad, b.lin.weight.grad]
    log.clear()
    b2 = _init(T, Block(), 14)
    b2.register_forward_hook(lambda mod, args, kwargs, out: log.append(["always", out]),
                             with_kwargs=True, always_call=True)
    out += [_raised(lambda: b2(x, scale=-1.0)), log]
    return out


def state_dict_hooks(T):
    """The state-dict hooks a checkpoint adapter uses: a state-dict
    pre-hook, a post-hook renaming keys, a load pre-hook mapping old names,
    a load post-hook reading the incompatible keys and clearing the
    unexpected ones; a non-persistent buffer left out."""
    nn = T.nn
    log = []

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)
            self.register_buffer("running", T.zeros(2))
            self.register_buffer("scratch", T.ones(2), persistent=False)

    net = _init(T, Net(), 15)
    net.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(["pre", prefix]))

    def post(mod, sd, prefix, local_metadata):
        sd["version_tag"] = T.tensor(7)
    net.register_state_dict_post_hook(post)

    def load_pre(mod, sd, prefix, local_metadata, strict, missing, unexpected, errors):
        for k in list(sd):
            if k.startswith(prefix + "old_fc."):
                sd[prefix + "fc." + k[len(prefix + "old_fc."):]] = sd.pop(k)

    def load_post(mod, incompatible):
        log.append(["post", list(incompatible.missing_keys), list(incompatible.unexpected_keys)])
        incompatible.unexpected_keys.clear()

    net.register_load_state_dict_pre_hook(load_pre)
    net.register_load_state_dict_post_hook(load_post)
    sd = net.state_dict()
    old = {"old_fc.weight": T.ones(2, 3), "old_fc.bias": T.zeros(2), "running": T.ones(2),
           "version_tag": T.tensor(1)}
    res = net.load_state_dict(old)
    return [sorted(sd), sd["version_tag"], log, net.fc.weight, list(res.missing_keys),
            list(res.unexpected_keys), net.running]


def optimizer_hooks_grad_accum(T):
    """Per-parameter post-accumulate-grad hooks stepping an optimizer per
    parameter (the optimizer-in-backward pattern), against an ordinary
    step."""
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    m = _mlp(T, 16)
    opts = {p: T.optim.SGD([p], lr=0.1, momentum=0.9) for p in m.parameters()}

    def hook(p):
        opts[p].step()
        opts[p].zero_grad()
    for p in m.parameters():
        p.register_post_accumulate_grad_hook(hook)
    losses = []
    for _ in range(3):
        loss = T.nn.functional.mse_loss(m(x), y)
        loss.backward()
        losses.append(loss.item())
    ref = _mlp(T, 16)
    ref_losses = _fit(T, ref, T.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9), x, y, 3)
    return [losses, ref_losses, m[0].weight, (m[0].weight - ref[0].weight).abs().max().item(),
            m[0].weight.grad]


# ---- parametrizations ---------------------------------------------------------------------

def parametrized_training(T):
    """weight_norm and orthogonal parametrizations trained by Adam: the
    original parameters' names, their gradients, the orthogonality kept;
    a spectral norm with its power-iteration vectors set from NumPy;
    remove_parametrizations keeping the trained weight."""
    nn = T.nn
    P = nn.utils.parametrizations
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 4, seed=2)
    lin = P.weight_norm(_init(T, nn.Linear(4, 4), 17), dim=0)
    orth = _init(T, nn.Linear(4, 4, bias=False), 18)
    with T.no_grad():
        orth.weight.copy_(_data(T, np.linalg.qr(_arr(4, 4, seed=19))[0].astype(np.float32)))
    P.orthogonal(orth)
    model = nn.Sequential(lin, nn.Tanh(), orth)
    opt = T.optim.Adam(model.parameters(), lr=0.05)
    losses = _fit(T, model, opt, x, y, 4)
    W = orth.weight
    names = sorted(n for n, _ in model.named_parameters())
    out = [losses, names, lin.parametrizations.weight.original0,
           (W @ W.T - T.eye(4)).abs().max().item() < 1e-5]
    sn = _init(T, nn.Linear(4, 3), 20)
    P.spectral_norm(sn)
    with T.no_grad():
        sn.parametrizations.weight[0]._u.copy_(_data(T, _arr(3, seed=21)))
        sn.parametrizations.weight[0]._v.copy_(_data(T, _arr(4, seed=22)))
    opt = T.optim.SGD(sn.parameters(), lr=0.1)
    l2 = _fit(T, sn, opt, x, y[:, :3], 3)
    sn.eval()
    w_eval = sn.weight
    T.nn.utils.parametrize.remove_parametrizations(lin, "weight")
    out += [l2, w_eval, sorted(sn.state_dict()), lin.weight, type(lin.weight).__name__]
    return out


# ---- per-sample gradients, mixed precision, checkpointing --------------------------------------

def dp_sgd(T):
    """DP-SGD without noise: per-sample gradients by vmap(grad) over
    functional_call, each clipped to norm 1, averaged and applied by hand;
    checked against per-sample backward passes."""
    from_func = T.func
    m = _mlp(T, 23)
    x, y = _t(T, 6, 4, seed=1), _t(T, 6, 2, seed=2)
    params = {k: v.detach() for k, v in m.named_parameters()}

    def loss_one(p, xi, yi):
        out = from_func.functional_call(m, p, (xi.unsqueeze(0),))
        return T.nn.functional.mse_loss(out, yi.unsqueeze(0))

    per = from_func.vmap(from_func.grad(loss_one), in_dims=(None, 0, 0))(params, x, y)
    norms = T.stack([g.flatten(1).norm(dim=1) for g in per.values()], 1).norm(dim=1)
    factor = (1.0 / norms).clamp(max=1.0)
    clipped = {k: (g * factor.view(-1, *[1] * (g.dim() - 1))).mean(0) for k, g in per.items()}
    ref = []
    for i in range(6):
        m.zero_grad()
        T.nn.functional.mse_loss(m(x[i:i + 1]), y[i:i + 1]).backward()
        ref.append(m[0].weight.grad.clone())
    with T.no_grad():
        for k, p in m.named_parameters():
            p -= 0.5 * clipped[k]
    return [norms, per["0.weight"][2], (per["0.weight"] - T.stack(ref)).abs().max().item() < 1e-6,
            clipped["2.bias"], m[2].weight]


def grad_scaler_skips(T):
    """GradScaler on the CPU with a small growth interval: a step whose
    gradients overflow is skipped and the scale backs off, finite steps
    grow it; unscale_ before clipping; the scaler's state dict round trip."""
    amp = T.amp
    m = _mlp(T, 24)
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    scaler = amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_factor=2.0, backoff_factor=0.25,
                            growth_interval=2)
    seen = []
    for i in range(5):
        opt.zero_grad()
        with amp.autocast("cpu", dtype=T.bfloat16):
            out = m(x)
        loss = T.nn.functional.mse_loss(out.float(), y)
        if i == 1:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        norm = T.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        before = m[0].bias.clone()
        scaler.step(opt)
        scaler.update()
        seen.append([scaler.get_scale(), bool(T.equal(before, m[0].bias)),
                     math.isfinite(norm.item())])
    sd = scaler.state_dict()
    s2 = amp.GradScaler("cpu")
    s2.load_state_dict(sd)
    return [seen, sd, s2.get_scale(), s2.get_growth_interval(), out.dtype]


def activation_checkpointing(T):
    """torch.utils.checkpoint of blocks (non-reentrant and reentrant) and
    checkpoint_sequential over a deep MLP: the same loss and gradients as
    without, over two SGD steps (the reentrant form given an input that
    requires grad, as it needs); the reentrant form's failure when no input
    requires grad."""
    from_ckpt = T.utils.checkpoint
    nn = T.nn
    x, y = _t(T, 6, 4, seed=1), _t(T, 6, 4, seed=2)

    def blocks():
        return _init(T, nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.GELU())
                                        for _ in range(4)]), 25)

    out = []
    for how in ("plain", "nonreentrant", "reentrant", "sequential"):
        net = blocks()
        opt = T.optim.SGD(net.parameters(), lr=0.2)
        losses = []
        for _ in range(2):
            opt.zero_grad()
            if how == "plain":
                h = net(x)
            elif how == "sequential":
                h = from_ckpt.checkpoint_sequential(net, 2, x, use_reentrant=False)
            else:
                h = x.requires_grad_(how == "reentrant")
                for blk in net:
                    h = from_ckpt.checkpoint(blk, h, use_reentrant=(how == "reentrant"))
            loss = T.nn.functional.mse_loss(h, y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        out.append([how, losses, net[0][0].weight.grad[0]])
    net = blocks()
    h = from_ckpt.checkpoint(net, x.detach(), use_reentrant=True)
    out.append([h.requires_grad, _raised(lambda: h.sum().backward())])
    return out


# ---- data -----------------------------------------------------------------------------------

def loader_samplers(T):
    """A DataLoader with a custom Sampler (length-bucketed), a BatchSampler
    over a SequentialSampler with drop_last, a collate_fn padding
    variable-length sequences, worker_init_fn (num_workers=0: not called),
    a dict dataset collated by default_collate, a SubsetRandomSampler's
    indices as a set, and len() of each."""
    D = T.utils.data
    seqs = [list(range(1, n + 1)) for n in (3, 1, 4, 2, 5, 2, 3)]

    class Seqs(D.Dataset):
        def __len__(self):
            return len(seqs)

        def __getitem__(self, i):
            return T.tensor(seqs[i]), len(seqs[i])

    class ByLength(D.Sampler):
        def __init__(self, data):
            self.order = sorted(range(len(data)), key=lambda i: (len(seqs[i]), i))

        def __iter__(self):
            return iter(self.order)

        def __len__(self):
            return len(self.order)

    def pad(batch):
        xs, ns = zip(*batch)
        return T.nn.utils.rnn.pad_sequence(list(xs), batch_first=True), T.tensor(ns)

    called = []
    dl = D.DataLoader(Seqs(), batch_size=3, sampler=ByLength(seqs), collate_fn=pad,
                      worker_init_fn=lambda wid: called.append(wid))
    batches = [[b.tolist(), n.tolist()] for b, n in dl]
    bs = D.BatchSampler(D.SequentialSampler(range(7)), batch_size=3, drop_last=True)
    dl2 = D.DataLoader(Seqs(), batch_sampler=bs, collate_fn=lambda b: [len(x) for x, _ in b])

    class Dicts(D.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return {"x": T.full((2,), float(i)), "y": i, "name": f"s{i}", "pair": (i, 2.5 * i)}

    dict_batch = next(iter(D.DataLoader(Dicts(), batch_size=3)))
    sub = sorted(D.SubsetRandomSampler([5, 1, 3]))
    return [batches, called, list(dl2), list(bs), len(dl), len(dl2), dict_batch, sub,
            len(D.DataLoader(Dicts(), batch_size=3, drop_last=True))]


def packed_gru(T):
    """A bidirectional GRU over unsorted variable-length sequences packed
    with enforce_sorted=False, unpacked with total_length; the final
    hidden state in the original order; pad_sequence padding on the left;
    trained one step."""
    nn = T.nn
    R = nn.utils.rnn
    gru = _init(T, nn.GRU(3, 4, batch_first=True, bidirectional=True), 26)
    head = _init(T, nn.Linear(8, 1), 27)
    lens = T.tensor([3, 5, 2])
    x = _t(T, 3, 5, 3, seed=1)
    packed = R.pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
    out, h = gru(packed)
    padded, out_lens = R.pad_packed_sequence(out, batch_first=True, total_length=6)
    last = T.cat([h[0], h[1]], 1)
    loss = head(last).pow(2).mean()
    loss.backward()
    seqs = [T.tensor([1, 2]), T.tensor([3]), T.tensor([4, 5, 6])]
    return [padded.shape, out_lens, padded[0, 2:4], last, packed.sorted_indices,
            packed.unsorted_indices, packed.batch_sizes, gru.weight_hh_l0_reverse.grad[0],
            R.pad_sequence(seqs, batch_first=True, padding_value=-1, padding_side="left"),
            R.unpack_sequence(R.pack_sequence(seqs, enforce_sorted=False))]


def embedding_bag_offsets(T):
    """EmbeddingBag with offsets and include_last_offset in max and sum
    modes, with a padding_idx and per-sample weights, trained by
    Adagrad on a text classifier; an empty bag."""
    nn = T.nn
    tokens = T.tensor([1, 4, 0, 2, 5, 3, 3, 0, 6])
    offsets = T.tensor([0, 3, 5, 5, 9])
    weights = _data(T, np.abs(_arr(9, seed=1)))
    out = []
    for mode, kw in (("sum", {"per_sample_weights": weights}), ("max", {}), ("mean", {})):
        bag = _init(T, nn.EmbeddingBag(7, 3, mode=mode, include_last_offset=True,
                                       padding_idx=0), 28)
        head = _init(T, nn.Linear(3, 2), 29)
        opt = T.optim.Adagrad(list(bag.parameters()) + list(head.parameters()), lr=0.3)
        target = T.tensor([0, 1, 0, 1])
        losses = []
        for _ in range(2):
            opt.zero_grad()
            feats = bag(tokens, offsets, **kw)
            loss = nn.functional.cross_entropy(head(feats), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        out.append([mode, feats, losses, bag.weight.grad[0], bag.weight[3]])
    return out


def ctc_variants(T):
    """CTC loss with concatenated 1-d targets, a target too long for its
    input made finite by zero_infinity, sum and none reductions, and its
    gradient to the logits; a small recognizer trained two steps."""
    F = T.nn.functional
    logits = _t(T, 6, 3, 5, seed=1).requires_grad_()
    lp = logits.log_softmax(2)
    targets = T.tensor([1, 2, 2, 3, 4, 1, 1, 2, 3, 4, 1, 2, 3])
    in_lens = T.tensor([6, 5, 4])
    tgt_lens = T.tensor([3, 3, 7])
    out = []
    for kw in ({"reduction": "none"}, {"reduction": "none", "zero_infinity": True},
               {"reduction": "sum", "zero_infinity": True}, {"reduction": "mean",
                                                             "zero_infinity": True}):
        out.append(F.ctc_loss(lp, targets, in_lens, tgt_lens, blank=0, **kw))
    out[-1].backward()
    out.append(logits.grad[:, 2])
    rnn = _init(T, T.nn.LSTM(4, 6), 30)
    proj = _init(T, T.nn.Linear(6, 5), 31)
    ctc = T.nn.CTCLoss(blank=4, zero_infinity=True)
    opt = T.optim.Adam(list(rnn.parameters()) + list(proj.parameters()), lr=0.05)
    feats = _t(T, 8, 2, 4, seed=2)
    tg = T.tensor([[0, 1, 2], [3, 3, 0]])
    losses = []
    for _ in range(2):
        opt.zero_grad()
        h, _ = rnn(feats)
        loss = ctc(proj(h).log_softmax(2), tg, T.tensor([8, 7]), T.tensor([3, 2]))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return out + [losses]


def transformer_seq2seq(T):
    """nn.Transformer over token embeddings with a causal target mask,
    padding masks for source, target and memory, trained two steps by
    label-smoothed cross entropy ignoring pad; then greedy decoding."""
    nn = T.nn
    torch_mask = nn.Transformer.generate_square_subsequent_mask
    emb = _init(T, nn.Embedding(10, 8, padding_idx=0), 32)
    model = _init(T, nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True), 33)
    head = _init(T, nn.Linear(8, 10), 34)
    src = T.tensor([[3, 4, 5, 0], [6, 7, 0, 0]])
    tgt = T.tensor([[1, 5, 4, 3, 2], [1, 7, 6, 2, 0]])
    params = list(emb.parameters()) + list(model.parameters()) + list(head.parameters())
    opt = T.optim.AdamW(params, lr=0.01)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        dec_in, dec_out = tgt[:, :-1], tgt[:, 1:]
        h = model(emb(src), emb(dec_in), tgt_mask=torch_mask(4),
                  src_key_padding_mask=src == 0, tgt_key_padding_mask=dec_in == 0,
                  memory_key_padding_mask=src == 0, tgt_is_causal=True)
        loss = nn.functional.cross_entropy(head(h).reshape(-1, 10), dec_out.reshape(-1),
                                           ignore_index=0, label_smoothing=0.1)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with T.no_grad():
        memory = model.encoder(emb(src), src_key_padding_mask=src == 0)
        ys = T.ones(2, 1, dtype=T.long)
        for _ in range(3):
            h = model.decoder(emb(ys), memory, tgt_mask=torch_mask(ys.shape[1]),
                              memory_key_padding_mask=src == 0)
            ys = T.cat([ys, head(h[:, -1]).argmax(-1, keepdim=True)], 1)
    return [losses, ys, emb.weight.grad[0], memory[1, 1]]


# ---- averaging, pruning, checkpoints ----------------------------------------------------------

def swa_with_batchnorm(T):
    """AveragedModel with use_buffers=True over a net with BatchNorm, an
    EMA AveragedModel by multi_avg_fn, SWALR's cosine annealing, and
    update_bn recomputing the averaged model's statistics from a loader."""
    nn = T.nn
    swa = T.optim.swa_utils
    net = _init(T, nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(),
                                 nn.Linear(6, 2)), 35)
    x, y = _t(T, 16, 4, seed=1), _t(T, 16, 2, seed=2)
    avg = swa.AveragedModel(net, use_buffers=True)
    ema = swa.AveragedModel(net, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    sched = swa.SWALR(opt, swa_lr=0.02, anneal_epochs=3, anneal_strategy="cos")
    lrs = []
    for _ in range(4):
        _fit(T, net, opt, x, y, 1)
        avg.update_parameters(net)
        ema.update_parameters(net)
        sched.step()
        lrs.append(round(opt.param_groups[0]["lr"], 8))
    bn_before = avg.module[1].running_mean.clone()
    loader = T.utils.data.DataLoader(T.utils.data.TensorDataset(x), batch_size=8)
    swa.update_bn(loader, ema)
    return [lrs, avg.n_averaged, avg.module[0].weight[0], bn_before, ema.module[1].running_mean,
            ema.module[1].num_batches_tracked, ema.module[0].bias, sorted(avg.state_dict())[:4]]


def iterative_pruning(T):
    """Iterative magnitude pruning: l1_unstructured twice on one weight (a
    PruningContainer), ln_structured by rows, custom_from_mask, a retrain
    step keeping pruned weights at zero, then prune.remove and the state
    dict's keys before and after."""
    import importlib
    nn = T.nn
    prune = importlib.import_module(T.__name__ + ".nn.utils.prune")
    m = _mlp(T, 36)
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    prune.l1_unstructured(m[0], "weight", amount=0.25)
    prune.l1_unstructured(m[0], "weight", amount=3)
    prune.ln_structured(m[2], "weight", amount=0.5, n=2, dim=1)
    prune.custom_from_mask(m[0], "bias", T.tensor([1.0, 0, 1, 1, 0, 1, 1, 1]))
    keys_before = sorted(m.state_dict())
    hook = next(h for h in m[0]._forward_pre_hooks.values() if hasattr(h, "_tensor_name")
                and h._tensor_name == "weight")
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    losses = _fit(T, m, opt, x, y, 2)
    zeros = int((m[0].weight == 0).sum())
    for mod, name in ((m[0], "weight"), (m[0], "bias"), (m[2], "weight")):
        prune.remove(mod, name)
    return [keys_before, type(hook).__name__, [type(h).__name__ for h in hook._pruning_methods],
            losses, zeros, m[0].weight_orig.grad if hasattr(m[0], "weight_orig") else None,
            m[2].weight, sorted(m.state_dict()), prune.is_pruned(m)]


def checkpoint_resume(T):
    """A training checkpoint saved to bytes with the model, optimizer,
    scheduler, scaler and epoch, loaded with weights_only=True into fresh
    objects: the resumed run matches the uninterrupted one step for step."""
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    S = T.optim.lr_scheduler

    def make():
        m = _mlp(T, 37)
        opt = T.optim.AdamW(m.parameters(), lr=0.05, weight_decay=0.01)
        sch = S.StepLR(opt, step_size=2, gamma=0.5)
        return m, opt, sch

    m, opt, sch = make()
    full = _fit(T, m, opt, x, y, 6, sched=sch)
    m, opt, sch = make()
    _fit(T, m, opt, x, y, 3, sched=sch)
    buf = io.BytesIO()
    T.save({"epoch": 3, "model": m.state_dict(), "optim": opt.state_dict(),
            "sched": sch.state_dict(), "scaler": T.amp.GradScaler("cpu").state_dict()}, buf)
    buf.seek(0)
    ck = T.load(buf, weights_only=True)
    m2, opt2, sch2 = make()
    m2.load_state_dict(ck["model"])
    opt2.load_state_dict(ck["optim"])
    sch2.load_state_dict(ck["sched"])
    rest = _fit(T, m2, opt2, x, y, 3, sched=sch2)
    return [full, rest, ck["epoch"], ck["sched"], ck["optim"]["state"][0]["step"],
            sorted(ck["scaler"]), opt2.param_groups[0]["lr"], m2[2].bias]


# ---- the code around models -----------------------------------------------------------------

def anomaly_detection(T):
    """A training step whose loss has a NaN gradient (sqrt at zero times
    zero) run under detect_anomaly: the error names the backward function
    that produced the NaN; the same step without it leaves NaN gradients,
    which a guard then catches; set_detect_anomaly as a switch."""
    w = T.nn.Parameter(T.tensor([0.0, 1.0, 4.0]))

    def step():
        loss = (w.sqrt() * T.tensor([0.0, 1.0, 1.0])).sum()
        loss.backward()
        return loss

    with T.autograd.detect_anomaly():
        failed = _raised(step)
    w.grad = None
    step()
    finite = bool(T.isfinite(w.grad).all())
    was = T.is_anomaly_enabled()
    T.autograd.set_detect_anomaly(True)
    inside = T.is_anomaly_enabled()
    T.autograd.set_detect_anomaly(False)
    return [failed, w.grad, finite, was, inside, T.is_anomaly_enabled()]


def sam_optimizer(T):
    """Sharpness-aware minimisation as its users write it: an Optimizer
    subclass wrapping a base optimizer (sharing its param_groups), a first
    step climbing to the worst nearby point along the gradient, a second
    step descending from there with the base optimizer."""
    O = T.optim

    class SAM(O.Optimizer):
        def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
            super().__init__(params, dict(rho=rho, **kwargs))
            self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
            self.param_groups = self.base_optimizer.param_groups
            self.defaults.update(self.base_optimizer.defaults)

        @T.no_grad()
        def first_step(self):
            norm = T.norm(T.stack([p.grad.norm(p=2) for g in self.param_groups
                                   for p in g["params"] if p.grad is not None]), p=2)
            for group in self.param_groups:
                scale = group["rho"] / (norm + 1e-12)
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    self.state[p]["old_p"] = p.data.clone()
                    p.add_(p.grad * scale.to(p))
            self.zero_grad()

        @T.no_grad()
        def second_step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.data = self.state[p]["old_p"]
            self.base_optimizer.step()
            self.zero_grad()

    m = _mlp(T, 40)
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    opt = SAM(m.parameters(), O.SGD, rho=0.1, lr=0.1, momentum=0.9)
    losses = []
    for _ in range(3):
        loss = T.nn.functional.mse_loss(m(x), y)
        loss.backward()
        opt.first_step()
        T.nn.functional.mse_loss(m(x), y).backward()
        opt.second_step()
        losses.append(loss.item())
    return [losses, m[0].weight[0], sorted(opt.param_groups[0]),
            sorted(opt.base_optimizer.state[m[0].weight]), type(opt.base_optimizer).__name__]


def lookahead_wrapper(T):
    """Lookahead over Adam: slow weights in the wrapper's own state, synced
    every k steps; its state_dict holding the fast optimizer's and its own."""
    class Lookahead:
        def __init__(self, base, k=3, alpha=0.5):
            self.base, self.k, self.alpha = base, k, alpha
            self.param_groups = base.param_groups
            self.slow = {p: p.detach().clone() for g in self.param_groups for p in g["params"]}
            self.count = 0

        def zero_grad(self):
            self.base.zero_grad()

        @T.no_grad()
        def step(self):
            self.base.step()
            self.count += 1
            if self.count % self.k == 0:
                for p, slow in self.slow.items():
                    slow.add_(p - slow, alpha=self.alpha)
                    p.copy_(slow)

        def state_dict(self):
            return {"base": self.base.state_dict(), "count": self.count,
                    "slow": [self.slow[p] for g in self.param_groups for p in g["params"]]}

    m = _mlp(T, 41)
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    opt = Lookahead(T.optim.Adam(m.parameters(), lr=0.05))
    losses = _fit(T, m, opt, x, y, 7)
    sd = opt.state_dict()
    return [losses, m[2].weight, sd["count"], sd["slow"][3], sd["base"]["state"][3]["exp_avg_sq"],
            sd["base"]["state"][0]["step"]]


def gradient_centralization(T):
    """Gradient centralisation by an optimizer step pre-hook editing the
    gradients of the weight matrices before each step (and a post-hook
    counting steps); removed by its handle after two steps."""
    m = _mlp(T, 42)
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    opt = T.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
    count = []

    def centralize(optimizer, args, kwargs):
        for g in optimizer.param_groups:
            for p in g["params"]:
                if p.grad is not None and p.dim() > 1:
                    p.grad.sub_(p.grad.mean(dim=tuple(range(1, p.dim())), keepdim=True))

    h = opt.register_step_pre_hook(centralize)
    opt.register_step_post_hook(lambda o, a, k: count.append(len(count)))
    losses = _fit(T, m, opt, x, y, 2)
    grad_mean = m[0].weight.grad.mean(1)
    h.remove()
    losses += _fit(T, m, opt, x, y, 2)
    return [losses, grad_mean.abs().max().item() < 1e-7, m[0].weight.grad.mean(1), count,
            m[2].weight]


def input_gradient_penalty(T):
    """A penalty on the input gradient (double backward) through the
    activations and norms a model uses: GELU (both forms), SiLU, Softplus
    with a beta, ELU, LayerNorm, logsumexp; the parameters' gradients of the
    penalised loss."""
    nn = T.nn
    F = nn.functional
    acts = [nn.GELU(), nn.GELU(approximate="tanh"), nn.SiLU(), nn.Softplus(beta=2.0),
            nn.ELU(alpha=0.7), nn.Mish(), nn.Hardtanh(-0.5, 0.5)]
    out = []
    for act in acts:
        net = _init(T, nn.Sequential(nn.Linear(4, 6), nn.LayerNorm(6), act, nn.Linear(6, 3)),
                    43, scale=0.6)
        x = _t(T, 5, 4, seed=1).requires_grad_()
        logits = net(x)
        loss = logits.logsumexp(1).mean()
        gx, = T.autograd.grad(loss, x, create_graph=True)
        total = loss + gx.pow(2).sum(1).mean()
        total.backward()
        out.append([type(act).__name__, total, net[0].weight.grad[0], net[1].weight.grad])
    return out


def vq_vae(T):
    """A VQ-VAE step: encoder outputs snapped to their nearest codebook
    vectors (cdist, argmin), a straight-through gradient, commitment and
    codebook losses; then the EMA codebook update by one_hot counts and
    index_add_ as the VQ-VAE-2 code does it."""
    nn = T.nn
    F = nn.functional
    enc = _init(T, nn.Linear(6, 3), 44)
    dec = _init(T, nn.Linear(3, 6), 45)
    codebook = _data(T, _arr(5, 3, seed=46))
    ema_count = T.ones(5)
    ema_sum = codebook.clone()
    x = _t(T, 10, 6, seed=1)
    opt = T.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.02)
    losses, codes = [], []
    for _ in range(3):
        z = enc(x)
        idx = T.cdist(z.detach(), codebook).argmin(1)
        q = codebook[idx]
        st = z + (q - z).detach()
        loss = F.mse_loss(dec(st), x) + 0.25 * F.mse_loss(z, q)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with T.no_grad():
            onehot = F.one_hot(idx, 5).float()
            ema_count.mul_(0.9).add_(onehot.sum(0), alpha=0.1)
            summed = T.zeros(5, 3).index_add_(0, idx, z.detach())
            ema_sum.mul_(0.9).add_(summed, alpha=0.1)
            n = ema_count.sum()
            count = (ema_count + 1e-5) / (n + 5e-5) * n
            codebook = ema_sum / count.unsqueeze(1)
        losses.append(loss.item())
        codes.append(idx)
    return [losses, codes, codebook, T.bincount(idx, minlength=5), enc.weight.grad[0]]


def clip_contrastive(T):
    """CLIP's symmetric contrastive loss with a learnable temperature: the
    logit scale clamped through .data after each step, the two encoders'
    features normalised; accuracy by argmax."""
    nn = T.nn
    F = nn.functional
    img = _init(T, nn.Linear(5, 4), 47)
    txt = _init(T, nn.Linear(3, 4), 48)
    logit_scale = nn.Parameter(T.tensor(math.log(1 / 0.07)))
    opt = T.optim.AdamW(list(img.parameters()) + list(txt.parameters()) + [logit_scale],
                        lr=0.5, weight_decay=0.2)
    xi, xt = _t(T, 6, 5, seed=1), _t(T, 6, 3, seed=2)
    labels = T.arange(6)
    seen = []
    for _ in range(3):
        fi = F.normalize(img(xi), dim=-1)
        ft = F.normalize(txt(xt), dim=-1)
        logits = logit_scale.exp() * fi @ ft.t()
        loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
        opt.zero_grad()
        loss.backward()
        opt.step()
        logit_scale.data.clamp_(0, math.log(100))
        seen.append([loss.item(), logit_scale.item(), (logits.argmax(1) == labels).float().mean()])
    return [seen, logit_scale.grad, img.weight]


def amp_custom_fwd(T):
    """An autograd.Function decorated with custom_fwd(cast_inputs=float32)
    and custom_bwd under CPU autocast to bfloat16: its inputs arrive in
    float32 and autocast is off inside; a region with autocast disabled;
    GradScaler(enabled=False) passing losses and steps through."""
    amp = T.amp
    ctx_log = []

    class Square(T.autograd.Function):
        @staticmethod
        @amp.custom_fwd(device_type="cpu", cast_inputs=T.float32)
        def forward(ctx, a):
            ctx.save_for_backward(a)
            ctx_log.append([str(a.dtype), T.is_autocast_enabled("cpu"),
                            str((a @ a.t()).dtype)])
            return a * a

        @staticmethod
        @amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 2 * a * g

    lin = _init(T, T.nn.Linear(4, 3), 49)
    x = _t(T, 2, 4, seed=1)
    with amp.autocast("cpu", dtype=T.bfloat16):
        h = lin(x)
        y = Square.apply(h)
        with amp.autocast("cpu", enabled=False):
            z = lin(x.double().float())
    scaler = amp.GradScaler("cpu", enabled=False)
    opt = T.optim.SGD(lin.parameters(), lr=0.1)
    scaled = scaler.scale(y.float().sum())
    scaled.backward()
    scaler.step(opt)
    scaler.update()
    ctx_log.append(y.grad_fn is not None)
    return [h.dtype, y.dtype, z.dtype, y.float(), lin.weight, scaler.is_enabled(),
            scaler.get_scale(), ctx_log, scaled.dtype]


def gated_conv_lm(T):
    """A gated convolutional language model: causal Conv1d by left padding
    with F.pad, GLU gates, a residual stack, next-token cross entropy;
    trained two steps with RMSprop."""
    nn = T.nn
    F = nn.functional

    class GatedLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(12, 6)
            self.convs = nn.ModuleList([nn.Conv1d(6, 12, 3) for _ in range(2)])
            self.out = nn.Linear(6, 12)

        def forward(self, tok):
            h = self.emb(tok).transpose(1, 2)
            for conv in self.convs:
                h = h + F.glu(conv(F.pad(h, (2, 0))), dim=1)
            return self.out(h.transpose(1, 2))

    lm = _init(T, GatedLM(), 50)
    tok = _data(T, np.random.default_rng(3).integers(0, 12, (3, 9)))
    opt = T.optim.RMSprop(lm.parameters(), lr=0.01, alpha=0.9, momentum=0.5)
    losses = []
    for _ in range(2):
        logits = lm(tok[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 12), tok[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    probe = lm(tok[:1, :5])
    changed = tok[:1, :5].clone()
    changed[0, 4] = (changed[0, 4] + 1) % 12
    causal = (lm(changed)[0, :4] - probe[0, :4]).abs().max().item()
    return [losses, probe[0, -1], causal, nn.GLU(dim=-1)(_t(T, 2, 4, seed=4))]


def _raised_full(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return [type(e).__name__, str(e)]
    return "no error"


def finetune_surgery(T):
    """Fine-tuning a checkpoint: loading it into a model with a new head
    (strict load refused with PyTorch's full message, a size mismatch too
    even with strict=False), the head replaced, the backbone frozen, then
    unfrozen into a second param group with a smaller lr."""
    nn = T.nn

    class Net(nn.Module):
        def __init__(self, classes):
            super().__init__()
            self.backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8))
            self.head = nn.Linear(8, classes)

        def forward(self, x):
            return self.head(self.backbone(x))

    pre = _init(T, Net(5), 51)
    ck = pre.state_dict()
    ck["extra.scale"] = T.ones(1)
    net = _init(T, Net(3), 52)
    strict = _raised_full(lambda: net.load_state_dict(ck))
    mismatch = _raised_full(lambda: net.load_state_dict(ck, strict=False))
    body = {k: v for k, v in ck.items() if k.startswith("backbone.")}
    res = net.load_state_dict(body, strict=False)
    net.backbone.requires_grad_(False)
    opt = T.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1, momentum=0.9)
    x, y = _t(T, 8, 4, seed=1), T.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    F = nn.functional
    losses = []
    for epoch in range(4):
        if epoch == 2:
            net.backbone.requires_grad_(True)
            opt.add_param_group({"params": net.backbone.parameters(), "lr": 0.01})
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [strict, mismatch, list(res.missing_keys), list(res.unexpected_keys), losses,
            net.backbone[0].weight[0], (net.backbone[2].bias - pre.backbone[2].bias).abs().max(),
            [g["lr"] for g in opt.param_groups]]


def lr_finder(T):
    """A learning-rate range test: an exponential ramp by LambdaLR, losses
    smoothed, stopping at divergence, then the model and optimizer put back
    from deep copies of their state dicts taken before."""
    import copy
    m = _mlp(T, 53)
    x, y = _t(T, 16, 4, seed=1), _t(T, 16, 2, seed=2)
    opt = T.optim.SGD(m.parameters(), lr=1e-4, momentum=0.9)
    saved_model = copy.deepcopy(m.state_dict())
    saved_opt = copy.deepcopy(opt.state_dict())
    sch = T.optim.lr_scheduler.LambdaLR(opt, lambda i: 3.0 ** i)
    smooth, best, found = 0.0, float("inf"), []
    for i in range(12):
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        smooth = 0.7 * smooth + 0.3 * loss.item()
        value = smooth / (1 - 0.7 ** (i + 1))
        found.append([sch.get_last_lr()[0], value])
        if value > 4 * best or not math.isfinite(value):
            break
        best = min(best, value)
        sch.step()
    m.load_state_dict(saved_model)
    opt.load_state_dict(saved_opt)
    return [found, m[0].weight[0], opt.param_groups[0]["lr"], len(opt.state),
            saved_model["0.weight"].data_ptr() != m[0].weight.data_ptr()]


def warm_restarts_fractional(T):
    """CosineAnnealingWarmRestarts stepped with fractional epochs (epoch +
    i / iters, as its docs show) with T_mult=2; PolynomialLR; a scheduler
    built with last_epoch to resume, refused without initial_lr and
    working once the optimizer's state dict gives it."""
    S = T.optim.lr_scheduler
    m = _mlp(T, 54)
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    sch = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.001)
    lrs = []
    iters = 3
    for epoch in range(4):
        for i in range(iters):
            opt.step()
            sch.step(epoch + i / iters)
            lrs.append(round(opt.param_groups[0]["lr"], 8))
    opt2 = T.optim.SGD(m.parameters(), lr=0.1)
    poly = S.PolynomialLR(opt2, total_iters=4, power=2.0)
    plr = []
    for _ in range(5):
        opt2.step()
        poly.step()
        plr.append(round(poly.get_last_lr()[0], 8))
    fresh = T.optim.SGD(m.parameters(), lr=0.1)
    refused = _raised(lambda: S.StepLR(fresh, 2, last_epoch=3))
    fresh.load_state_dict(opt2.state_dict())
    resumed = S.StepLR(fresh, 2, gamma=0.5, last_epoch=3)
    return [lrs, sch.T_i, sch.T_cur, plr, refused, resumed.get_last_lr(), resumed.last_epoch]


def iterable_datasets(T):
    """Streaming data: an IterableDataset splitting its range by
    get_worker_info (None in the main process), ChainDataset, StackDataset,
    Dataset + Dataset as a ConcatDataset, default_convert of NumPy arrays,
    and a DataLoader batching an iterable with drop_last."""
    D = T.utils.data

    class Stream(D.IterableDataset):
        def __init__(self, lo, hi):
            self.lo, self.hi = lo, hi

        def __iter__(self):
            info = D.get_worker_info()
            lo, hi = self.lo, self.hi
            if info is not None:
                per = (hi - lo) // info.num_workers
                lo = lo + info.id * per
                hi = lo + per
            return iter(T.tensor([float(i), float(i * i)]) for i in range(lo, hi))

    batches = [b.tolist() for b in D.DataLoader(Stream(0, 7), batch_size=3, drop_last=True)]
    chained = [int(v[0]) for v in D.ChainDataset([Stream(0, 2), Stream(5, 7)])]
    a = D.TensorDataset(T.arange(3.0), T.tensor([0, 1, 0]))
    b = D.TensorDataset(T.arange(10.0, 12.0), T.tensor([1, 1]))
    both = a + b
    stack = D.StackDataset(a, D.TensorDataset(T.arange(3) * 10))
    keyed = D.StackDataset(x=D.TensorDataset(T.arange(2.0)), y=D.TensorDataset(T.tensor([7, 8])))
    conv = D.default_convert({"a": np.arange(3), "b": [np.float32(1.5)], "c": "text"})
    loader = D.DataLoader(both, batch_size=2)
    return [batches, chained, type(both).__name__, len(both), both[3], both.cumulative_sizes,
            stack[1], keyed[1], conv, [[x.tolist(), y.tolist()] for x, y in loader],
            D.get_worker_info()]


def early_stopping(T):
    """Early stopping with the best weights kept as detached clones and put
    back at the end; ReduceLROnPlateau given the validation loss as a 0-d
    tensor with a relative threshold, eps keeping tiny changes out."""
    m = _mlp(T, 55)
    x, y = _t(T, 16, 4, seed=1), _t(T, 16, 2, seed=2)
    xv, yv = _t(T, 8, 4, seed=3), _t(T, 8, 2, seed=4)
    opt = T.optim.Adam(m.parameters(), lr=0.2)
    pl = T.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0, threshold=0.05,
                                                eps=1e-3)
    best, best_state, bad, hist = float("inf"), None, 0, []
    for epoch in range(10):
        _fit(T, m, opt, x, y, 1)
        with T.no_grad():
            val = T.nn.functional.mse_loss(m(xv), yv)
        pl.step(val)
        hist.append([val.item(), opt.param_groups[0]["lr"]])
        if val.item() < best:
            best, bad = val.item(), 0
            best_state = {k: v.detach().clone() for k, v in m.state_dict().items()}
        else:
            bad += 1
            if bad >= 3:
                break
    m.load_state_dict(best_state)
    with T.no_grad():
        final = T.nn.functional.mse_loss(m(xv), yv).item()
    return [hist, epoch, final == best, m[2].bias, pl.best, type(pl.best).__name__]


def deep_ensemble_vmap(T):
    """An ensemble of small models trained as one: stack_module_state,
    vmap over functional_call with the models' parameters batched and the
    data shared, the stacked parameters stepped by Adam directly."""
    fn = T.func
    models = [_mlp(T, 56 + i) for i in range(3)]
    params, buffers = fn.stack_module_state(models)
    base = _mlp(T, 56)
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)

    def one(p, b, xb):
        return fn.functional_call(base, (p, b), (xb,))

    opt = T.optim.Adam(list(params.values()), lr=0.05)
    losses = []
    for _ in range(3):
        preds = fn.vmap(one, in_dims=(0, 0, None))(params, buffers, x)
        loss = ((preds - y) ** 2).mean(dim=(1, 2))
        opt.zero_grad()
        loss.sum().backward()
        opt.step()
        losses.append(loss)
    single = T.nn.functional.mse_loss(models[1](x), y)
    return [losses, sorted(params), params["0.weight"].shape, params["2.bias"],
            single, params["0.weight"].requires_grad, params["0.weight"].is_leaf]


def masked_lm_tied(T):
    """Masked language modelling with the decoder tied to the embedding,
    masked positions chosen by a fixed pattern, labels -100 elsewhere
    (cross entropy's default ignore_index), AdamW with weight decay off for
    biases and norms picked by parameter name."""
    nn = T.nn
    F = nn.functional

    class MLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(15, 8)
            self.norm = nn.LayerNorm(8)
            self.mix = nn.Linear(8, 8)
            self.decoder = nn.Linear(8, 15)
            self.decoder.weight = self.emb.weight

        def forward(self, tok):
            return self.decoder(self.norm(self.emb(tok) + self.mix(self.emb(tok)).tanh()))

    model = _init(T, MLM(), 57)
    tok = _data(T, np.random.default_rng(4).integers(2, 15, (3, 6)))
    pattern = _data(T, np.array([[1, 0, 0, 1, 0, 0], [0, 1, 0, 0, 0, 1],
                                     [0, 0, 1, 0, 1, 0]], dtype=bool))
    inputs = tok.masked_fill(pattern, 1)
    labels = tok.masked_fill(~pattern, -100)
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if name.endswith("bias") or "norm" in name else decay).append(name)
    named = dict(model.named_parameters())
    opt = T.optim.AdamW([{"params": [named[n] for n in decay], "weight_decay": 0.1},
                         {"params": [named[n] for n in no_decay], "weight_decay": 0.0}], lr=0.05)
    losses = []
    for _ in range(3):
        loss = F.cross_entropy(model(inputs).reshape(-1, 15), labels.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, decay, no_decay, model.decoder.weight is model.emb.weight,
            model.emb.weight[1], model.decoder.bias, len(list(model.parameters()))]


def attention_decoder(T):
    """A GRUCell decoder with additive (Bahdanau) attention over a padded
    encoder output, masked by masked_fill before softmax, with teacher
    forcing on a fixed schedule of steps; gradients through the attention."""
    nn = T.nn
    F = nn.functional
    enc = _init(T, nn.GRU(3, 4, batch_first=True), 58)
    cell = _init(T, nn.GRUCell(4 + 5, 4), 59)
    wq, wk = _init(T, nn.Linear(4, 4, bias=False), 60), _init(T, nn.Linear(4, 4), 61)
    v = _init(T, nn.Linear(4, 1, bias=False), 62)
    emb = _init(T, nn.Embedding(5, 5), 63)
    out = _init(T, nn.Linear(4, 5), 64)
    src = _t(T, 2, 6, 3, seed=1)
    lens = T.tensor([6, 4])
    pad = T.arange(6).unsqueeze(0) >= lens.unsqueeze(1)
    tgt = T.tensor([[1, 2, 3, 4], [2, 2, 1, 0]])
    params = [p for mod in (enc, cell, wq, wk, v, emb, out) for p in mod.parameters()]
    opt = T.optim.Adam(params, lr=0.02)
    losses = []
    for _ in range(2):
        mem, h = enc(src)
        h = h[0]
        prev = T.zeros(2, dtype=T.long)
        loss = 0
        attn_seen = []
        for t in range(4):
            score = v(T.tanh(wq(h).unsqueeze(1) + wk(mem))).squeeze(-1)
            attn = score.masked_fill(pad, float("-inf")).softmax(-1)
            attn_seen.append(attn)
            ctx = (attn.unsqueeze(-1) * mem).sum(1)
            h = cell(T.cat([ctx, emb(prev)], -1), h)
            logits = out(h)
            loss = loss + F.cross_entropy(logits, tgt[:, t])
            prev = tgt[:, t] if t % 2 == 0 else logits.argmax(-1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, attn_seen[2], wk.weight.grad, cell.weight_ih.grad[0]]


# ---- corners of the optimizers, losses and layers --------------------------------------------

def sparse_embedding_optimizers(T):
    """An Embedding with sparse gradients trained by Adagrad, SGD with
    momentum and SparseAdam (its dense part by Adam); Adam refusing the
    sparse gradient with PyTorch's message; the sparse gradient's indices
    and values coalesced."""
    nn = T.nn
    idx = T.tensor([[1, 3, 3], [0, 5, 1]])
    target = _t(T, 2, 3, 4, seed=1)
    out = []
    for make in (lambda ps: T.optim.Adagrad(ps, lr=0.3, initial_accumulator_value=0.1),
                 lambda ps: T.optim.SGD(ps, lr=0.3, momentum=0.9),
                 lambda ps: T.optim.SparseAdam(ps, lr=0.1)):
        emb = _init(T, nn.Embedding(6, 4, sparse=True), 70)
        opt = make(list(emb.parameters()))
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = (emb(idx) - target).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        out.append([type(opt).__name__, losses, emb.weight, emb.weight.grad.is_sparse])
    emb = _init(T, nn.Embedding(6, 4, sparse=True), 70)
    (emb(idx) - target).pow(2).mean().backward()
    g = emb.weight.grad.coalesce()
    adam = T.optim.Adam(emb.parameters(), lr=0.1)
    out += [g.indices(), g.values()[0], _raised(adam.step)]
    return out


def tensor_lr_schedulers(T):
    """A tensor learning rate under schedulers: StepLR and CosineAnnealingLR
    keep the group's lr a tensor (updated in place), get_last_lr's values;
    Adam and SGD stepping with it."""
    S = T.optim.lr_scheduler
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    out = []
    for make_opt, make_sch in (
            (lambda ps: T.optim.Adam(ps, lr=T.tensor(0.05)), lambda o: S.StepLR(o, 1, 0.5)),
            (lambda ps: T.optim.SGD(ps, lr=T.tensor(0.2), momentum=0.9),
             lambda o: S.CosineAnnealingLR(o, T_max=3))):
        m = _mlp(T, 71)
        opt = make_opt(m.parameters())
        lr_obj = opt.param_groups[0]["lr"]
        sch = make_sch(opt)
        losses = _fit(T, m, opt, x, y, 3, sched=sch)
        g = opt.param_groups[0]
        out.append([losses, g["lr"], g["lr"] is lr_obj, type(g["initial_lr"]).__name__,
                    sch.get_last_lr(), m[0].bias])
    return out


def mixed_dtype_clipping(T):
    """A model with a float64 layer after a float32 one (a double head for
    a precise loss): clip_grad_norm_ over both dtypes by the foreach and
    the per-tensor paths, the total norm's dtype, clip_grad_value_, and
    parameters_to_vector refusing to mix them or not."""
    nn = T.nn
    body = _init(T, nn.Linear(4, 3), 72)
    head = _init(T, nn.Linear(3, 2), 73).double()
    x, y = _t(T, 6, 4, seed=1), _t(T, 6, 2, seed=2).double()
    out = []
    for fe in (True, False, None):
        body.zero_grad()
        head.zero_grad()
        loss = nn.functional.mse_loss(head(body(x).double()), y) * 50
        loss.backward()
        total = nn.utils.clip_grad_norm_(list(body.parameters()) + list(head.parameters()), 0.3,
                                         foreach=fe)
        out.append([total, body.weight.grad[0], head.weight.grad[0]])
    nn.utils.clip_grad_value_(list(body.parameters()) + list(head.parameters()), 0.01,
                              foreach=True)
    out.append([body.weight.grad.abs().max(), head.bias.grad])
    out.append(_raised(lambda: nn.utils.parameters_to_vector(
        list(body.parameters()) + list(head.parameters())).dtype))
    return out


def deepcopy_parametrized(T):
    """copy.deepcopy of a model with weight_norm and a custom
    parametrization (as EMA and teacher-student code does): the copy trains
    on its own, its parametrizations are its own objects; a state dict of
    it loaded back into the original."""
    import copy
    nn = T.nn
    P = nn.utils.parametrize

    class Positive(nn.Module):
        def forward(self, w):
            return nn.functional.softplus(w)

    lin = _init(T, nn.Linear(4, 3), 74)
    nn.utils.parametrizations.weight_norm(lin)
    other = _init(T, nn.Linear(3, 2), 75)
    P.register_parametrization(other, "bias", Positive())
    m = nn.Sequential(lin, nn.Tanh(), other)
    twin = copy.deepcopy(m)
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    losses = _fit(T, twin, T.optim.SGD(twin.parameters(), lr=0.2), x, y, 2)
    same_obj = twin[0].parametrizations.weight is m[0].parametrizations.weight
    before = m[0].weight.clone()
    m.load_state_dict(twin.state_dict())
    return [losses, same_obj, before, m[0].weight, m[2].bias, type(twin[2]).__name__,
            sorted(twin.state_dict()), P.is_parametrized(twin[2], "bias")]


def soft_target_losses(T):
    """Loss weighting corners: cross entropy with probability targets,
    class weights and label smoothing; a segmentation loss over (N, C, H, W)
    with weights and ignore_index; every target ignored (nan); BCE with
    logits with pos_weight over the last dim; kl_div's 'mean' against
    'batchmean'; multilabel margin with its -1 terminator; the gradients."""
    F = T.nn.functional
    logits = _t(T, 4, 3, seed=1).requires_grad_()
    probs = _t(T, 4, 3, seed=2).softmax(1)
    w = T.tensor([0.2, 1.0, 3.0])
    out = [F.cross_entropy(logits, probs, weight=w),
           F.cross_entropy(logits, probs, weight=w, label_smoothing=0.2),
           F.cross_entropy(logits, T.tensor([0, 2, 1, 2]), weight=w, label_smoothing=0.2)]
    sum(out).backward()
    out.append(logits.grad)
    seg = _t(T, 2, 3, 2, 2, seed=3).requires_grad_()
    lab = T.tensor([[[0, 1], [255, 2]], [[2, 2], [1, 255]]])
    loss = F.cross_entropy(seg, lab, weight=w, ignore_index=255)
    loss.backward()
    out += [loss, seg.grad[0, :, 1]]
    out.append(F.nll_loss(logits.log_softmax(1), T.tensor([1, 1, 1, 1]), ignore_index=1))
    bl = _t(T, 3, 4, seed=4).requires_grad_()
    bt = T.tensor([[1.0, 0, 0, 1], [0, 0, 1, 1], [1, 1, 0, 0]])
    b = F.binary_cross_entropy_with_logits(bl, bt, pos_weight=T.tensor([1.0, 2.0, 0.5, 4.0]),
                                           weight=T.tensor([1.0, 0.5, 2.0, 1.0]),
                                           reduction="sum")
    b.backward()
    lp = _t(T, 4, 3, seed=5).log_softmax(1)
    out += [b, bl.grad[1], F.kl_div(lp, probs, reduction="mean"),
            F.kl_div(lp, probs, reduction="batchmean"),
            F.multilabel_margin_loss(_t(T, 2, 4, seed=6), T.tensor([[3, 0, -1, 1],
                                                                    [1, 2, 3, -1]]))]
    return out


def packed_lstm_h0(T):
    """An LSTM with proj_size over unsorted packed sequences given its own
    initial state: the state is read in the batch's order (PyTorch permutes
    it to the packed order and back), the last hidden states compared with
    running each sequence alone."""
    nn = T.nn
    R = nn.utils.rnn
    lstm = _init(T, nn.LSTM(3, 5, num_layers=2, proj_size=2), 76)
    lens = [2, 4, 3]
    x = _t(T, 4, 3, 3, seed=1)
    h0 = _t(T, 2, 3, 2, seed=2)
    c0 = _t(T, 2, 3, 5, seed=3)
    packed = R.pack_padded_sequence(x, T.tensor(lens), enforce_sorted=False)
    out, (h, c) = lstm(packed, (h0, c0))
    alone = []
    for i, n in enumerate(lens):
        _, (hi, ci) = lstm(x[:n, i:i + 1], (h0[:, i:i + 1].contiguous(),
                                            c0[:, i:i + 1].contiguous()))
        alone.append((hi[:, 0] - h[:, i]).abs().max().item() < 1e-6)
    (h.sum() + c.pow(2).sum()).backward()
    padded, _ = R.pad_packed_sequence(out)
    return [h, c[1], alone, padded[:, 0], lstm.weight_hr_l1.grad, h.shape, c.shape]


def mha_3d_mask(T):
    """MultiheadAttention given a 3-d attn_mask (one per batch element and
    head, float), a bool key_padding_mask, batch_first, per-head weights;
    trained one step; the mask's wrong shape refused."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(4, 2, batch_first=True), 77)
    x = _t(T, 2, 3, 4, seed=1)
    mask = _t(T, 4, 3, 3, seed=2)
    kpm = T.tensor([[False, False, True], [False, False, False]])
    out, w = mha(x, x, x, attn_mask=mask, key_padding_mask=kpm, average_attn_weights=False)
    out.pow(2).sum().backward()
    bad = _raised(lambda: mha(x, x, x, attn_mask=_t(T, 3, 3, 3, seed=3)))
    return [out, w, mha.in_proj_weight.grad[0], mha.out_proj.bias.grad, bad]


def ppo_update(T):
    """A PPO update: GAE over a short rollout computed backwards, a
    categorical policy with invalid actions masked to -inf (log_prob and
    entropy staying finite), the clipped surrogate, a clipped value loss,
    a tanh-squashed Normal's log-prob correction for a continuous head."""
    nn = T.nn
    D = T.distributions
    pol = _init(T, nn.Linear(4, 3), 78)
    val = _init(T, nn.Linear(4, 1), 79)
    obs = _t(T, 5, 4, seed=1)
    actions = T.tensor([0, 2, 1, 0, 2])
    rewards = T.tensor([1.0, 0.0, 0.5, -1.0, 2.0])
    dones = T.tensor([0.0, 0.0, 1.0, 0.0, 0.0])
    invalid = T.tensor([[False, True, False], [False, False, False], [True, False, False],
                        [False, False, True], [False, True, False]])
    with T.no_grad():
        values = val(obs).squeeze(1)
        old_logp = D.Categorical(logits=pol(obs).masked_fill(invalid, float("-inf"))).log_prob(
            actions)
    adv = T.zeros(5)
    last, next_value = 0.0, 0.3
    for t in reversed(range(5)):
        nv = next_value if t == 4 else values[t + 1]
        delta = rewards[t] + 0.99 * nv * (1 - dones[t]) - values[t]
        last = delta + 0.99 * 0.95 * (1 - dones[t]) * last
        adv[t] = last
    returns = adv + values
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    opt = T.optim.Adam(list(pol.parameters()) + list(val.parameters()), lr=0.05)
    seen = []
    for _ in range(3):
        dist = D.Categorical(logits=pol(obs).masked_fill(invalid, float("-inf")))
        ratio = (dist.log_prob(actions) - old_logp).exp()
        surr = T.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
        v = val(obs).squeeze(1)
        v_clip = values + (v - values).clamp(-0.2, 0.2)
        v_loss = T.max((v - returns) ** 2, (v_clip - returns) ** 2).mean()
        ent = dist.entropy().mean()
        loss = -surr + 0.5 * v_loss - 0.01 * ent
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen.append([loss.item(), ent.item(), ratio])
    mu, log_std = _t(T, 3, 2, seed=2), _t(T, 3, 2, seed=3, scale=0.3)
    base = D.Normal(mu, log_std.exp())
    pre = T.tensor([[0.3, -1.2], [2.0, 0.1], [-0.5, 0.5]])
    a = T.tanh(pre)
    logp = (base.log_prob(pre) - T.log(1 - a.pow(2) + 1e-6)).sum(-1)
    squashed = D.TransformedDistribution(base, [D.transforms.TanhTransform()])
    return [adv, returns, seen, pol.weight.grad, logp, squashed.log_prob(a * 0.999).sum(-1)]


def grad_assignment_errors(T):
    """What a script meets assigning gradients by hand and swapping
    parameters: .grad of the wrong dtype or shape refused with PyTorch's
    messages, a grad assigned right stepped, a parameter's data replaced by
    another shape and the optimizer's state then refusing it."""
    p = T.nn.Parameter(T.ones(2, 3))
    out = [_raised(lambda: setattr(p, "grad", T.ones(2, 3, dtype=T.float64))),
           _raised(lambda: setattr(p, "grad", T.ones(3, 2))),
           _raised(lambda: setattr(p, "grad", T.ones(2, 3, dtype=T.int64)))]
    p.grad = T.full((2, 3), 0.5)
    opt = T.optim.Adam([p], lr=0.1)
    opt.step()
    out.append(p)
    p.data = T.zeros(4)
    p.grad = T.ones(4)
    out.append(_raised(opt.step))
    q = T.nn.Parameter(T.ones(3))
    q.grad = T.ones(3)
    sgd = T.optim.SGD([q], lr=0.5, momentum=0.9)
    sgd.step()
    q.grad = None
    sgd.step()      # a parameter without a gradient is skipped, momentum and all
    out.append(q)
    return out


def autograd_function_options(T):
    """autograd.Function options a custom layer uses: set_materialize_grads
    (False: None for an unused output's gradient), needs_input_grad,
    mark_dirty for an in-place op; a per-parameter gradient clamp by a
    tensor hook; retain_grad on an intermediate."""
    class TwoOut(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(a, b)
            return a * b, a + b

        @staticmethod
        def backward(ctx, g1, g2):
            a, b = ctx.saved_tensors
            seen.append([g1 is None, g2 is None, list(ctx.needs_input_grad)])
            ga = gb = None
            if g1 is not None:
                ga, gb = g1 * b, g1 * a
            if g2 is not None:
                ga = g2 if ga is None else ga + g2
                gb = g2 if gb is None else gb + g2
            return ga, (gb if ctx.needs_input_grad[1] else None)

    class ScaleInPlace(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            return a.mul_(3)

        @staticmethod
        def backward(ctx, g):
            return g * 3

    seen = []
    a = _t(T, 3, seed=1).requires_grad_()
    b = _t(T, 3, seed=2)
    prod, _ = TwoOut.apply(a, b)
    prod.sum().backward()
    b2 = b.clone().requires_grad_()
    _, total = TwoOut.apply(a, b2)
    total.sum().backward()
    lin = _init(T, T.nn.Linear(3, 2), 80)
    lin.weight.register_hook(lambda g: g.clamp(-0.1, 0.1))
    h = lin(a.detach() * 5)
    h.retain_grad()
    z = ScaleInPlace.apply(h.clone())
    z.pow(2).sum().backward()
    return [seen, a.grad, b2.grad, lin.weight.grad, h.grad, lin.bias.grad, z]


def schedulers_more(T):
    """MultiStepLR with a repeated milestone (the rate drops twice there),
    ConstantLR, LinearLR to an end factor, OneCycleLR by epochs and
    steps_per_epoch with a max_lr per group and no momentum cycling;
    calling get_lr() outside step warns."""
    S = T.optim.lr_scheduler
    m = _mlp(T, 81)
    out = []
    for make in (lambda o: S.MultiStepLR(o, milestones=[2, 2, 4], gamma=0.5),
                 lambda o: S.ConstantLR(o, factor=0.25, total_iters=3),
                 lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=4)):
        opt = T.optim.SGD(m.parameters(), lr=0.4)
        sch = make(opt)
        lrs = []
        for _ in range(6):
            opt.step()
            sch.step()
            lrs.append(round(sch.get_last_lr()[0], 9))
        out.append([type(sch).__name__, lrs])
    opt = T.optim.SGD([{"params": m[0].parameters()}, {"params": m[2].parameters()}], lr=0.1,
                      momentum=0.9)
    sch = S.OneCycleLR(opt, max_lr=[0.2, 0.05], epochs=2, steps_per_epoch=3,
                       cycle_momentum=False)
    lrs = []
    for _ in range(5):
        opt.step()
        sch.step()
        lrs.append([round(g["lr"], 9) for g in opt.param_groups])
    _, warned = _warned(sch.get_lr)
    out += [lrs, [g["momentum"] for g in opt.param_groups], sch.total_steps,
            [w[:50] for w in warned]]
    return out


def feature_matching_hooks(T):
    """Forward hooks collecting a frozen teacher's activations for a
    feature-matching loss, a hook returning a replaced output (the
    student's features clamped), hooks removed by their handles before
    evaluation; the student's gradients."""
    nn = T.nn
    teacher = _mlp(T, 82, (4, 6, 6, 2)).requires_grad_(False)
    student = _mlp(T, 83, (4, 6, 6, 2))
    feats = {}

    def keep(name):
        def hook(mod, args, out):
            feats[name] = out
        return hook

    handles = [teacher[0].register_forward_hook(keep("t0")),
               teacher[2].register_forward_hook(keep("t2")),
               student[0].register_forward_hook(keep("s0")),
               student[2].register_forward_hook(lambda mod, args, out: out.clamp(-1, 1))]
    handles.append(student[2].register_forward_hook(keep("s2")))
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    opt = T.optim.Adam(student.parameters(), lr=0.05)
    losses = []
    for _ in range(3):
        pred = student(x)
        with T.no_grad():
            teacher(x)
        loss = (nn.functional.mse_loss(pred, y) + nn.functional.mse_loss(feats["s0"], feats["t0"])
                + nn.functional.mse_loss(feats["s2"], feats["t2"]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    clamped = feats["s2"].abs().max().item() <= 1.0
    for h in handles:
        h.remove()
    feats.clear()
    student(x)
    return [losses, clamped, sorted(feats), student[0].weight.grad[0],
            teacher[0].weight.grad is None, len(student[2]._forward_hooks)]


# ---- what a checkpoint and a log hold -------------------------------------------------------

def _plain(v):
    """A state value as a JSON-friendly form that keeps its kind: tensors
    as themselves, a Counter or dict as a dict, functions as their kind."""
    if callable(v) and not hasattr(v, "dtype"):
        return "callable"
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_plain(x) for x in v)
    return v


def optimizer_state_dicts(T):
    """Every optimizer's state dict after two steps, as a checkpoint holds
    it: each group's options with their values and the state's entries
    (with their kinds), and print(optimizer)."""
    O = T.optim
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    makers = [lambda ps: O.SGD(ps, lr=0.1, momentum=0.9),
              lambda ps: O.Adam(ps, lr=0.01),
              lambda ps: O.AdamW(ps, lr=0.01, amsgrad=True),
              lambda ps: O.Adamax(ps),
              lambda ps: O.NAdam(ps),
              lambda ps: O.RAdam(ps),
              lambda ps: O.Adagrad(ps),
              lambda ps: O.Adadelta(ps),
              lambda ps: O.RMSprop(ps, centered=True, momentum=0.5),
              lambda ps: O.Rprop(ps),
              lambda ps: O.ASGD(ps, t0=1),
              lambda ps: O.Adafactor(ps, lr=0.01)]
    out = []
    for make in makers:
        m = _mlp(T, 90)
        opt = make(m.parameters())
        _fit(T, m, opt, x, y, 2)
        sd = opt.state_dict()
        group = {k: v for k, v in sd["param_groups"][0].items() if k != "params"}
        out.append([type(opt).__name__, _plain(group), _state_types(sd["state"][0]),
                    {k: v for k, v in sd["state"][1].items()}, repr(opt)])
    return out


def scheduler_state_dicts(T):
    """Every scheduler's state dict after three steps (what a resumed run
    loads back), callables shown as such; SWALR's saved and loaded through
    a weights_only checkpoint."""
    S = T.optim.lr_scheduler
    makers = [lambda o: S.StepLR(o, 2, 0.5),
              lambda o: S.MultiStepLR(o, [1, 3, 3], 0.5),
              lambda o: S.ConstantLR(o, 0.5, 2),
              lambda o: S.LinearLR(o, 0.2, 1.0, 4),
              lambda o: S.ExponentialLR(o, 0.9),
              lambda o: S.PolynomialLR(o, 5, 2.0),
              lambda o: S.CosineAnnealingLR(o, 4, 0.01),
              lambda o: S.CosineAnnealingWarmRestarts(o, 2, 2, 0.01),
              lambda o: S.CyclicLR(o, 0.01, 0.1, 2),
              lambda o: S.OneCycleLR(o, 0.5, total_steps=8),
              lambda o: S.LambdaLR(o, lambda e: 0.9 ** e),
              lambda o: S.MultiplicativeLR(o, lambda e: 0.9),
              lambda o: S.SequentialLR(o, [S.ConstantLR(o, 0.5, 2), S.ExponentialLR(o, 0.8)], [2]),
              lambda o: S.ChainedScheduler([S.ConstantLR(o, 0.5, 2), S.ExponentialLR(o, 0.8)]),
              lambda o: T.optim.swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=2)]
    out = []
    for make in makers:
        opt = T.optim.SGD([T.nn.Parameter(T.ones(2))], lr=0.2, momentum=0.9)
        sch = make(opt)
        for _ in range(3):
            opt.step()
            sch.step()
        out.append([type(sch).__name__, _plain(sch.state_dict()), opt.param_groups[0]["lr"]])
    opt = T.optim.SGD([T.nn.Parameter(T.ones(2))], lr=0.2)
    pl = S.ReduceLROnPlateau(opt, patience=0, cooldown=1)
    for v in (1.0, 2.0, 3.0):
        pl.step(v)
    out.append(["ReduceLROnPlateau", _plain(pl.state_dict())])
    opt = T.optim.SGD([T.nn.Parameter(T.ones(2))], lr=0.2)
    swa = T.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear")
    opt.step()
    swa.step()
    buf = io.BytesIO()
    T.save(swa.state_dict(), buf)
    buf.seek(0)
    opt2 = T.optim.SGD([T.nn.Parameter(T.ones(2))], lr=0.2)
    swa2 = T.optim.swa_utils.SWALR(opt2, swa_lr=0.05, anneal_epochs=3)
    swa2.load_state_dict(T.load(buf, weights_only=True))
    opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    swa2.step()
    out.append([swa2.anneal_func(0.5), opt2.param_groups[0]["lr"]])
    return out


def loader_argument_errors(T):
    """The DataLoader's refusals of contradictory arguments, in PyTorch's
    words: sampler with shuffle, batch_sampler with batch_size or
    drop_last, an iterable dataset with shuffle, len() of a loader over an
    iterable without __len__, batch_size=0; default_collate of None and of
    tensors of unequal sizes; one_hot with too few classes."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(6.0))

    class Stream(D.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    bs = D.BatchSampler(D.SequentialSampler(ds), 2, False)
    return [_raised(lambda: D.DataLoader(ds, sampler=D.SequentialSampler(ds), shuffle=True)),
            _raised(lambda: D.DataLoader(ds, batch_sampler=bs, batch_size=3)),
            _raised(lambda: D.DataLoader(ds, batch_sampler=bs, drop_last=True)),
            _raised(lambda: D.DataLoader(ds, batch_sampler=bs, shuffle=True)),
            _raised(lambda: D.DataLoader(Stream(), shuffle=True)),
            _raised(lambda: len(D.DataLoader(Stream(), batch_size=2))),
            _raised(lambda: D.DataLoader(ds, batch_size=0)),
            _raised(lambda: D.DataLoader(ds, batch_size=None, drop_last=True)),
            _raised(lambda: D.default_collate([None, None])),
            _raised(lambda: D.default_collate([T.ones(2), T.ones(3)])),
            _raised(lambda: T.nn.functional.one_hot(T.tensor([0, 3]), 3)),
            [b for b in D.DataLoader(Stream(), batch_size=2)],
            [b for b in D.DataLoader(ds, batch_size=None)][:2]]


def module_state_dict_order(T):
    """The order of a state dict's keys (a checkpoint's, which some loaders
    read positionally) for the layers with buffers and many weights:
    BatchNorm, InstanceNorm tracking statistics, an LSTM with proj_size,
    MultiheadAttention with kdim/vdim, a Transformer encoder layer,
    GroupNorm and a parametrized Linear."""
    nn = T.nn
    mods = [nn.BatchNorm2d(3), nn.InstanceNorm1d(2, affine=True, track_running_stats=True),
            nn.LSTM(3, 4, num_layers=2, proj_size=2, bidirectional=True),
            nn.MultiheadAttention(4, 2, kdim=3, vdim=5),
            nn.TransformerEncoderLayer(4, 2, 8),
            nn.GroupNorm(2, 4), nn.utils.parametrizations.weight_norm(nn.Linear(2, 3)),
            nn.Bilinear(2, 3, 4), nn.PReLU(3), nn.Embedding(4, 2, padding_idx=1)]
    return [[type(m).__name__, list(m.state_dict()),
             [(n, list(p.shape)) for n, p in m.named_parameters()],
             [n for n, _ in m.named_buffers()]] for m in mods]


def grad_scaler_errors(T):
    """GradScaler's bookkeeping errors: unscale_ twice before update, a
    closure given to step; its state dict, and its growth tracker counting
    good steps."""
    amp = T.amp
    m = _mlp(T, 91)
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    scaler = amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
    scaler.scale(T.nn.functional.mse_loss(m(x), y)).backward()
    scaler.unscale_(opt)
    twice = _raised(lambda: scaler.unscale_(opt))
    other = amp.GradScaler("cpu")
    closure = _raised(lambda: other.step(opt, lambda: None))
    scaler.step(opt)
    scaler.update()
    seen = [scaler.get_scale(), scaler._growth_tracker]
    for _ in range(3):
        opt.zero_grad()
        scaler.scale(T.nn.functional.mse_loss(m(x), y)).backward()
        scaler.step(opt)
        scaler.update()
        seen.append([scaler.get_scale(), int(scaler._growth_tracker)])
    sd = scaler.state_dict()
    return [twice, closure, seen, sd, m[0].bias, scaler.get_backoff_factor(),
            scaler.get_growth_factor()]



# ---- the refusals around pruning, parametrizations, transforms and checkpointing ----------------

def module_metadata(T):
    """The version metadata a state dict carries per module (what lets an
    old checkpoint load): BatchNorm's, LayerNorm's, a Linear's; an old
    BatchNorm checkpoint without num_batches_tracked (version 1) loading
    strictly."""
    nn = T.nn
    net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.LayerNorm(3),
                        nn.MultiheadAttention(4, 2), nn.LSTM(2, 2))
    sd = net.state_dict()
    meta = {k: dict(v) for k, v in sd._metadata.items()}
    bn = nn.BatchNorm1d(3)
    old = {"weight": T.ones(3) * 2, "bias": T.zeros(3), "running_mean": T.ones(3),
           "running_var": T.ones(3) * 3}
    old = type(bn.state_dict())(old)
    old._metadata = {"": {"version": 1}}
    res = bn.load_state_dict(old)
    new_style = dict(old)
    refused = _raised_full(lambda: nn.BatchNorm1d(3).load_state_dict(new_style))
    return [meta, list(res.missing_keys), bn.num_batches_tracked, bn.weight, refused]


def prune_errors(T):
    """torch.nn.utils.prune's refusals in PyTorch's words: an amount out of
    range or above the number of weights, remove before pruning, a missing
    parameter; identity pruning's mask; pruning a pruned tensor with
    another method building a container."""
    import importlib
    nn = T.nn
    prune = importlib.import_module(T.__name__ + ".nn.utils.prune")
    lin = _init(T, nn.Linear(3, 2), 92)
    out = [_raised_full(lambda: prune.l1_unstructured(lin, "weight", amount=1.5)),
           _raised_full(lambda: prune.l1_unstructured(lin, "weight", amount=-1)),
           _raised_full(lambda: prune.l1_unstructured(lin, "weight", amount=7)),
           _raised_full(lambda: prune.remove(lin, "weight")),
           _raised_full(lambda: prune.l1_unstructured(lin, "nope", amount=1))]
    prune.identity(lin, "bias")
    prune.l1_unstructured(lin, "weight", amount=2)
    prune.ln_structured(lin, "weight", amount=1, n=1, dim=0)
    hook = [h for h in lin._forward_pre_hooks.values() if getattr(h, "_tensor_name", "") ==
            "weight"][0]
    out += [lin.bias_mask, lin.weight_mask, type(hook).__name__,
            [type(m).__name__ for m in hook._pruning_methods], lin.weight]
    return out


def parametrize_errors(T):
    """register_parametrization's refusals: a parametrization changing the
    dtype or the shape without unsafe, a name the module lacks; unsafe=True
    allowing a shape change; remove_parametrizations with
    leave_parametrized=False putting the original back."""
    nn = T.nn
    P = nn.utils.parametrize

    class ToDouble(nn.Module):
        def forward(self, w):
            return w.double()

    class Flatten(nn.Module):
        def forward(self, w):
            return w.reshape(-1)

    class Double(nn.Module):
        def forward(self, w):
            return 2 * w

    out = [_raised_full(lambda: P.register_parametrization(nn.Linear(2, 2), "weight",
                                                           ToDouble())),
           _raised_full(lambda: P.register_parametrization(nn.Linear(2, 2), "weight", Flatten())),
           _raised_full(lambda: P.register_parametrization(nn.Linear(2, 2), "w", Double()))]
    lin = _init(T, nn.Linear(2, 3), 93)
    P.register_parametrization(lin, "weight", Flatten(), unsafe=True)
    out.append(lin.weight.shape)
    lin2 = _init(T, nn.Linear(2, 3), 93)
    P.register_parametrization(lin2, "weight", Double())
    doubled = lin2.weight.clone()
    P.remove_parametrizations(lin2, "weight", leave_parametrized=False)
    out += [doubled, lin2.weight, type(lin2).__name__, P.is_parametrized(lin2)]
    return out


def func_transform_errors(T):
    """torch.func's refusals a per-sample-gradient script meets: dropout
    under vmap in randomness='error' mode, functional_call given an unknown
    key with strict=True, grad of a non-scalar; grad's has_aux and jacrev
    over a dict of parameters."""
    fn = T.func
    nn = T.nn
    drop = nn.Dropout(0.5)
    x = _t(T, 3, 4, seed=1)
    out = [_raised_full(lambda: fn.vmap(drop)(x))]
    lin = _init(T, nn.Linear(4, 2), 94)
    params = dict(lin.named_parameters())
    out.append(_raised_full(lambda: fn.functional_call(
        lin, {**params, "extra": T.ones(1)}, (x,), strict=True)))
    out.append(_raised_full(lambda: fn.grad(lambda p: fn.functional_call(lin, p, (x,)))(params)))

    def loss_aux(p):
        y = fn.functional_call(lin, p, (x,))
        return y.pow(2).sum(), y.mean()

    g, aux = fn.grad(loss_aux, has_aux=True)(params)
    jac = fn.jacrev(lambda p: fn.functional_call(lin, p, (x[:1],)).squeeze(0))(params)
    same_mask = fn.vmap(lambda r: nn.functional.dropout(T.ones(5), 0.5), randomness="same")(
        T.ones(3))
    return out + [g["weight"], aux, jac["bias"], jac["weight"].shape,
                  bool((same_mask == same_mask[0]).all())]


def checkpoint_errors(T):
    """torch.utils.checkpoint's refusals and notices: the reentrant form
    given keyword arguments, checkpoint_sequential's segments, the warning
    when use_reentrant is left out; a non-reentrant checkpoint under
    no_grad returning a plain result."""
    ckpt = T.utils.checkpoint
    lin = _init(T, T.nn.Linear(3, 3), 95)
    x = _t(T, 2, 3, seed=1).requires_grad_()

    def f(a, scale=1.0):
        return lin(a) * scale

    out = [_raised_full(lambda: ckpt.checkpoint(f, x, use_reentrant=True, scale=2.0))]
    y, warned = _warned(lambda: ckpt.checkpoint(f, x, scale=2.0, use_reentrant=False))
    out += [y, warned]
    with T.no_grad():
        z = ckpt.checkpoint(f, x, use_reentrant=False)
    out += [z.requires_grad, z.grad_fn is None]
    seq = T.nn.Sequential(lin, T.nn.Tanh(), lin)
    out.append(_raised_full(lambda: ckpt.checkpoint_sequential(seq, 5, x, use_reentrant=False)))
    return out



def low_precision_params(T):
    """Parameters held in bfloat16 and float16 (a model cast with .to()
    before training, as memory-bound scripts do; the forward computed from
    float32 copies) stepped by Adam, AdamW, RMSprop and Adagrad: each op
    rounds to the parameter's dtype, so the values follow PyTorch's step by
    step; the state's dtypes.  Left out, as PyTorch's own artefacts: SGD
    (its add with alpha rounds the tail of PyTorch's vectorised CPU loop,
    the elements past the last full vector, otherwise than the body, so
    which elements round which way depends on the tensor's length and the
    machine's vector width), and the foreach paths of RMSprop and Adagrad
    (PyTorch's differ from its own per-parameter paths in the last bit)."""
    O = T.optim
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    makers = [(lambda ps, fe: O.Adam(ps, lr=0.01, foreach=fe), (False, True)),
              (lambda ps, fe: O.AdamW(ps, lr=0.01, amsgrad=True, foreach=fe), (False, True)),
              (lambda ps, fe: O.RMSprop(ps, lr=0.01, foreach=fe), (False,)),
              (lambda ps, fe: O.Adagrad(ps, lr=0.1, foreach=fe), (False,))]
    out = []
    for dtype in (T.bfloat16, T.float16):
        for make, paths in makers:
            row = []
            for fe in paths:
                m = _mlp(T, 96).to(dtype)
                opt = make(m.parameters(), fe)
                for _ in range(3):
                    opt.zero_grad()
                    # the forward in float32 (the low-precision matmul rounds as
                    # its kernel accumulates), the gradients cast back to dtype
                    F = T.nn.functional
                    h = F.linear(x, m[0].weight.float(), m[0].bias.float()).tanh()
                    loss = F.mse_loss(F.linear(h, m[2].weight.float(), m[2].bias.float()), y)
                    loss.backward()
                    opt.step()
                row.append([loss.item(), m[0].weight[0].float(), m[2].bias.float()])
            st = opt.state[m[0].weight]
            out.append([str(dtype), type(opt).__name__, row,
                        {k: str(v.dtype) for k, v in st.items() if hasattr(v, "dtype")}])
    return out



# ---- editing models ---------------------------------------------------------------------------

def module_containers_edit(T):
    """Editing a model's containers before training: del seq[i] (the keys
    renumbered), insert/append/extend/pop, slicing, ModuleList +=,
    ModuleDict.update, a ParameterList given plain tensors; the state
    dict's keys after each edit and a training step through the result."""
    nn = T.nn
    seq = _init(T, nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.Tanh(),
                                 nn.Linear(4, 2)), 97)
    keys = [list(seq.state_dict())]
    del seq[1]
    keys.append(list(seq.state_dict()))
    seq.insert(1, nn.GELU())
    seq.append(nn.Identity())
    keys.append([type(m).__name__ for m in seq])
    popped = seq.pop(2)
    keys.append(list(seq.state_dict()))
    head = seq[-2:]
    ml = nn.ModuleList([nn.Linear(2, 2)])
    ml += [nn.Linear(2, 3)]
    ml.insert(0, nn.Identity())
    md = nn.ModuleDict({"a": nn.Linear(2, 2)})
    md.update([("b", nn.Tanh()), ("a", nn.Linear(2, 1))])
    pl = nn.ParameterList([T.ones(2), nn.Parameter(T.zeros(3))])
    pl.append(T.full((1,), 2.0))
    x, y = _t(T, 6, 4, seed=1), _t(T, 6, 2, seed=2)
    losses = _fit(T, seq, T.optim.SGD(seq.parameters(), lr=0.1), x, y, 2)
    return [keys, type(popped).__name__, type(head).__name__, list(head.state_dict()),
            [type(m).__name__ for m in ml], list(md.keys()), md["a"].out_features,
            [type(p).__name__ for p in pl], [p.requires_grad for p in pl], losses,
            list(nn.Sequential(seq[0], seq[1]).state_dict())]


def module_dtype_moves(T):
    """Moving a model between dtypes after its optimizer exists: .double()
    and .to(dtype) keep the same Parameter objects (the optimizer keeps
    working), integer buffers stay integer, .to(int) refused; assigning a
    plain tensor over a parameter refused; train() given a non-bool."""
    nn = T.nn
    m = _init(T, nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2)), 98)
    before = [id(p) for p in m.parameters()]
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    m.double()
    same = [id(p) for p in m.parameters()] == before
    x = _t(T, 4, 3, seed=1).double()
    loss = m(x).pow(2).mean()
    loss.backward()
    opt.step()
    out = [same, m[0].weight.dtype, m[1].num_batches_tracked.dtype, m[0].weight,
           m[1].running_mean]
    m.to(T.float16)
    out += [m[0].weight.dtype, m[1].running_var.dtype, m[1].num_batches_tracked.dtype]
    out.append(_raised_full(lambda: m.to(T.int64)))
    lin = nn.Linear(2, 2)
    out.append(_raised_full(lambda: setattr(lin, "weight", T.ones(2, 2))))
    out.append(_raised_full(lambda: lin.register_parameter("w", T.ones(2))))
    out.append(_raised_full(lambda: lin.train("yes")))
    lin.weight = None
    out.append([n for n, _ in lin.named_parameters()])
    return out


def autograd_batched_grads(T):
    """A Jacobian the ways a script asks for one: autograd.grad with
    is_grads_batched over the identity, autograd.functional.jacobian with
    vectorize=True (reverse and forward-mode strategies) and hessian; a
    Jacobian-norm regulariser trained two steps."""
    A = T.autograd
    lin = _init(T, T.nn.Linear(3, 3), 99)
    x = _t(T, 3, seed=1).requires_grad_()
    y = T.tanh(lin(x))
    jac_b, = A.grad(y, x, grad_outputs=T.eye(3), is_grads_batched=True, retain_graph=True)
    f = lambda v: T.tanh(lin(v))
    jac_rev = A.functional.jacobian(f, x.detach(), vectorize=True)
    jac_fwd = A.functional.jacobian(f, x.detach(), vectorize=True, strategy="forward-mode")
    hess = A.functional.hessian(lambda v: f(v).pow(2).sum(), x.detach())
    opt = T.optim.SGD(lin.parameters(), lr=0.1)
    regs = []
    for _ in range(2):
        xs = _t(T, 3, seed=2).requires_grad_()
        out = T.tanh(lin(xs))
        jac, = A.grad(out, xs, grad_outputs=T.eye(3), is_grads_batched=True, create_graph=True)
        reg = jac.pow(2).sum() + out.pow(2).sum()
        opt.zero_grad()
        reg.backward()
        opt.step()
        regs.append(reg.item())
    return [jac_b, (jac_rev - jac_b).abs().max().item() < 1e-6,
            (jac_fwd - jac_b).abs().max().item() < 1e-6, hess, regs, lin.weight.grad]


def orthogonal_maps(T):
    """The orthogonal parametrization's maps (matrix_exp, cayley,
    householder) and use_trivialization=False, each on a square and a
    wide weight, trained three Adam steps from a weight set to an
    orthogonal matrix; the weight stays orthogonal."""
    nn = T.nn
    P = nn.utils.parametrizations
    x = _t(T, 6, 4, seed=1)
    out = []
    for kw in ({"orthogonal_map": "matrix_exp"}, {"orthogonal_map": "cayley"},
               {"orthogonal_map": "householder"}, {"use_trivialization": False}):
        for shape in ((4, 4), (3, 4)):
            lin = nn.Linear(shape[1], shape[0], bias=False)
            q = np.linalg.qr(_arr(4, 4, seed=100))[0].astype(np.float32)[:shape[0]]
            with T.no_grad():
                lin.weight.copy_(_data(T, q))
            P.orthogonal(lin, **kw)
            target = _t(T, 6, shape[0], seed=2)
            opt = T.optim.Adam(lin.parameters(), lr=0.05)
            losses = _fit(T, lin, opt, x, target, 3)
            W = lin.weight
            out.append([kw, shape, losses, W, (W @ W.T - T.eye(shape[0])).abs().max().item()
                        < 1e-5])
    return out



def functional_optimizers(T):
    """The functional optimizer API (torch.optim.sgd.sgd, adam.adam,
    adamw.adamw, torch.optim._functional) driving a training loop that
    keeps its own state, as functional and distributed optimizer wrappers
    do: the same weights as the classes give; SGD's momentum list filled in
    place; step counters that are not tensors refused."""
    import importlib
    O = T.optim
    fnl = importlib.import_module(T.__name__ + ".optim._functional")
    sgd = importlib.import_module(T.__name__ + ".optim.sgd").sgd
    adam = importlib.import_module(T.__name__ + ".optim.adam").adam
    adamw = importlib.import_module(T.__name__ + ".optim.adamw").adamw
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    out = []
    for kind in ("sgd", "adam", "adamw"):
        m = _mlp(T, 101)
        params = list(m.parameters())
        bufs = [None] * len(params)
        exp_avgs = [T.zeros_like(p) for p in params]
        exp_avg_sqs = [T.zeros_like(p) for p in params]
        maxes = [T.zeros_like(p) for p in params]
        steps = [T.tensor(0.0) for _ in params]
        losses = []
        for _ in range(3):
            m.zero_grad()
            loss = T.nn.functional.mse_loss(m(x), y)
            loss.backward()
            grads = [p.grad for p in params]
            with T.no_grad():
                if kind == "sgd":
                    sgd(params, grads, bufs, weight_decay=0.01, momentum=0.9, lr=0.1,
                        dampening=0.0, nesterov=True, maximize=False)
                elif kind == "adam":
                    fnl.adam(params, grads, exp_avgs, exp_avg_sqs, [], steps, amsgrad=False,
                             beta1=0.9, beta2=0.99, lr=0.02, weight_decay=0.01, eps=1e-8,
                             maximize=False)
                else:
                    adamw(params, grads, exp_avgs, exp_avg_sqs, maxes, steps,
                          amsgrad=True, beta1=0.9, beta2=0.99, lr=0.02,
                          weight_decay=0.1, eps=1e-8, maximize=False)
            losses.append(loss.item())
        ref = _mlp(T, 101)
        make = {"sgd": lambda ps: O.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01,
                                        nesterov=True),
                "adam": lambda ps: O.Adam(ps, lr=0.02, betas=(0.9, 0.99), weight_decay=0.01),
                "adamw": lambda ps: O.AdamW(ps, lr=0.02, betas=(0.9, 0.99), weight_decay=0.1,
                                            amsgrad=True)}[kind]
        ref_losses = _fit(T, ref, make(ref.parameters()), x, y, 3)
        out.append([kind, losses, ref_losses, m[0].weight[0],
                    (m[0].weight - ref[0].weight).abs().max().item() < 1e-6,
                    [type(b).__name__ for b in bufs], steps[0]])
    p = T.nn.Parameter(T.ones(2))
    p.grad = T.ones(2)
    with T.no_grad():
        out.append(_raised_full(lambda: adam(
            [p], [p.grad], [T.zeros(2)], [T.zeros(2)], [], [0], amsgrad=False, beta1=0.9,
            beta2=0.99, lr=0.1, weight_decay=0.0, eps=1e-8, maximize=False)))
    return out



# ---- recipes around the schedulers and the newer optimizers -------------------------------------

def muon_recipe(T):
    """The Muon recipe: Muon for the hidden 2-d weights (with the
    match_rms_adamw lr adjustment), AdamW for biases and the head; Muon's
    refusal of a 1-d parameter; its state dict."""
    O = T.optim
    m = _mlp(T, 102, (4, 8, 8, 2))
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    hidden = [m[0].weight, m[2].weight]
    rest = [m[0].bias, m[2].bias, m[4].weight, m[4].bias]
    opts = [O.Muon(hidden, lr=0.02, adjust_lr_fn="match_rms_adamw"), O.AdamW(rest, lr=0.01)]
    losses = []
    for _ in range(3):
        for o in opts:
            o.zero_grad()
        loss = T.nn.functional.mse_loss(m(x), y)
        loss.backward()
        for o in opts:
            o.step()
        losses.append(loss.item())
    bad = _raised_full(lambda: O.Muon([m[0].bias], lr=0.02))
    sd = opts[0].state_dict()
    return [losses, m[2].weight[0], m[4].bias, bad,
            _plain({k: v for k, v in sd["param_groups"][0].items() if k != "params"}),
            _state_types(sd["state"][0])]


def scheduler_group_added_later(T):
    """A param group added after the scheduler was built (unfreezing a
    backbone mid-run): PyTorch's scheduler keeps rates for the groups it
    knew, the new group keeps its own lr; a new scheduler then built over
    all groups."""
    S = T.optim.lr_scheduler
    m = _mlp(T, 103)
    opt = T.optim.SGD(m[2].parameters(), lr=0.1)
    sch = S.ExponentialLR(opt, 0.5)
    seen = []
    for i in range(4):
        if i == 2:
            opt.add_param_group({"params": m[0].parameters(), "lr": 0.01})
        opt.step()
        sch.step()
        seen.append([g["lr"] for g in opt.param_groups])
    sch2 = S.StepLR(opt, 1, 0.1)
    opt.step()
    sch2.step()
    return [seen, sch.get_last_lr(), sch2.base_lrs, sch2.get_last_lr(),
            [sorted(k for k in g if k != "params") for g in opt.param_groups]]


def swa_schedule_switch(T):
    """The SWA recipe's schedule: CosineAnnealingLR until swa_start, then
    SWALR with the model averaged each epoch; update_bn at the end over a
    loader of (input, target) pairs."""
    nn = T.nn
    swa = T.optim.swa_utils
    S = T.optim.lr_scheduler
    net = _init(T, nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2)),
                104)
    x, y = _t(T, 16, 4, seed=1), _t(T, 16, 2, seed=2)
    opt = T.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    cos = S.CosineAnnealingLR(opt, T_max=6)
    avg = swa.AveragedModel(net)
    swa_sched = swa.SWALR(opt, swa_lr=0.03, anneal_epochs=2, anneal_strategy="linear")
    lrs = []
    for epoch in range(6):
        _fit(T, net, opt, x, y, 1)
        if epoch >= 3:
            avg.update_parameters(net)
            swa_sched.step()
        else:
            cos.step()
        lrs.append(round(opt.param_groups[0]["lr"], 8))
    loader = T.utils.data.DataLoader(T.utils.data.TensorDataset(x, y), batch_size=8)
    swa.update_bn(loader, avg)
    return [lrs, avg.n_averaged, avg.module[1].running_mean, avg.module[1].running_var,
            avg(x[:2]), avg.module[0].weight[0]]


def plateau_in_chains(T):
    """ReduceLROnPlateau where a chain does not fit it: ChainedScheduler and
    SequentialLR given one refuse or fail on step as PyTorch does; and the
    usual pairing, a warmup LambdaLR for the first steps then the plateau
    scheduler on a validation loss."""
    S = T.optim.lr_scheduler
    m = _mlp(T, 105)
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    pl = S.ReduceLROnPlateau(opt, patience=0)
    chained = _raised_full(lambda: S.ChainedScheduler([S.ExponentialLR(opt, 0.9), pl]).step())
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    seq = _raised_full(lambda: S.SequentialLR(opt, [S.ConstantLR(opt, 0.5, 2),
                                                   S.ReduceLROnPlateau(opt)], [2]))
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    warm = S.LambdaLR(opt, lambda e: min(1.0, (e + 1) / 3))
    pl = S.ReduceLROnPlateau(opt, factor=0.5, patience=0)
    seen = []
    for i, val in enumerate([1.0, 0.9, 0.8, 0.85, 0.86, 0.7, 0.75]):
        opt.step()
        if i < 3:
            warm.step()
        else:
            pl.step(val)
        seen.append(round(opt.param_groups[0]["lr"], 8))
    return [chained, seq, seen, pl.get_last_lr()]



def optimizer_arg_errors(T):
    """Every optimizer's refusal of a bad hyperparameter, in PyTorch's words
    (a config file's typo reaches these): negative lr, eps, momentum or
    weight decay, betas outside [0, 1), rho outside [0, 1], Adagrad's
    lr_decay and initial accumulator, Rprop's etas, LBFGS's line search,
    Adafactor's beta2_decay, SGD's dampening with nesterov, a tensor lr of
    several elements."""
    O = T.optim
    w = [T.nn.Parameter(T.ones(2, 2))]
    cases = [lambda: O.SGD(w, lr=-0.1), lambda: O.SGD(w, lr=0.1, momentum=-1),
             lambda: O.SGD(w, lr=0.1, weight_decay=-1),
             lambda: O.SGD(w, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
             lambda: O.Adam(w, eps=-1), lambda: O.Adam(w, betas=(0.9, 1.0)),
             lambda: O.Adam(w, betas=(-0.1, 0.9)), lambda: O.Adam(w, weight_decay=-0.1),
             lambda: O.Adam(w, lr=T.tensor([0.1, 0.2])),
             lambda: O.AdamW(w, lr=T.tensor(0.01), foreach=True),
             lambda: O.Adamax(w, betas=(0.9, 1.5)), lambda: O.NAdam(w, momentum_decay=-1),
             lambda: O.RAdam(w, eps=-1e-8), lambda: O.Adagrad(w, lr_decay=-1),
             lambda: O.Adagrad(w, initial_accumulator_value=-1),
             lambda: O.Adadelta(w, rho=1.5), lambda: O.Adadelta(w, lr=-1),
             lambda: O.RMSprop(w, alpha=-0.5), lambda: O.RMSprop(w, momentum=-1),
             lambda: O.Rprop(w, etas=(1.2, 0.5)), lambda: O.Rprop(w, lr=-1),
             lambda: O.ASGD(w, weight_decay=-1), lambda: O.SparseAdam(w, betas=(1.0, 0.9)),
             lambda: O.LBFGS(w, line_search_fn="armijo"),
             lambda: O.Adafactor(w, beta2_decay=0.5), lambda: O.Adafactor(w, lr=-1),
             lambda: O.Muon(w, momentum=-1), lambda: O.Adam(w, lr=0.1, fused=True, foreach=True)]
    return [_raised_full(c) for c in cases]



def scheduler_arg_errors(T):
    """The schedulers' refusals of bad arguments in PyTorch's words: a
    non-optimizer, factors out of range, OneCycleLR without its step count
    or with a bad pct_start or strategy, CyclicLR's mode and momentum on an
    optimizer without it, CosineAnnealingWarmRestarts' T_0 and T_mult,
    ReduceLROnPlateau's mode, factor and threshold mode, SequentialLR's
    milestones, SWALR's strategy and AveragedModel's two averaging
    functions."""
    S = T.optim.lr_scheduler
    p = [T.nn.Parameter(T.ones(2))]

    def sgd():
        return T.optim.SGD(p, lr=0.1)

    cases = [lambda: S.StepLR("not an optimizer", 2),
             lambda: S.ConstantLR(sgd(), factor=1.5),
             lambda: S.LinearLR(sgd(), start_factor=0.0),
             lambda: S.LinearLR(sgd(), end_factor=1.5),
             lambda: S.OneCycleLR(sgd(), max_lr=0.1),
             lambda: S.OneCycleLR(sgd(), max_lr=0.1, total_steps=10, pct_start=1.5),
             lambda: S.OneCycleLR(sgd(), max_lr=0.1, total_steps=10, anneal_strategy="exp"),
             lambda: S.OneCycleLR(sgd(), max_lr=0.1, epochs=0, steps_per_epoch=3),
             lambda: S.OneCycleLR(T.optim.Adagrad(p), max_lr=0.1, total_steps=10),
             lambda: S.CyclicLR(sgd(), 0.01, 0.1, mode="sine"),
             lambda: S.CyclicLR(T.optim.Adagrad(p), 0.01, 0.1),
             lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=0),
             lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=2, T_mult=0),
             lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=2.5),
             lambda: S.ReduceLROnPlateau(sgd(), mode="up"),
             lambda: S.ReduceLROnPlateau(sgd(), factor=1.0),
             lambda: S.ReduceLROnPlateau(sgd(), threshold_mode="percent"),
             lambda: S.ReduceLROnPlateau(sgd(), min_lr=[0.1, 0.2]),
             lambda: S.SequentialLR(sgd(), [S.ConstantLR(sgd())], milestones=[1]),
             lambda: S.MultiStepLR(sgd(), milestones=[3, 1]).milestones,
             lambda: T.optim.swa_utils.SWALR(sgd(), swa_lr=0.1, anneal_strategy="exp"),
             lambda: T.optim.swa_utils.SWALR(sgd(), swa_lr=0.1, anneal_epochs=-1),
             lambda: T.optim.swa_utils.SWALR(sgd(), swa_lr=[0.1, 0.2])]
    out = []
    for c in cases:
        r = _raised_full(c)
        out.append(r if isinstance(r, list) else _plain(c()))
    return out


def rnn_utils_errors(T):
    """torch.nn.utils.rnn's refusals in PyTorch's words: unsorted lengths
    with enforce_sorted, a zero length, a total_length too short to unpack
    into, pad_sequence of mismatched trailing sizes; pack_sequence of one
    sequence; PackedSequence's to() and its fields.  A length longer than
    the input is left out: PyTorch's CPU kernel reads past the input and
    returns batch_sizes that do not add up to its data, where torchlike
    refuses it (docs/nn.md)."""
    R = T.nn.utils.rnn
    x = _t(T, 4, 3, 2, seed=1)
    out = [_raised_full(lambda: R.pack_padded_sequence(x, T.tensor([2, 4, 1]))),
           _raised_full(lambda: R.pack_padded_sequence(x, T.tensor([4, 0, 1]))),
           _raised_full(lambda: R.pad_packed_sequence(
               R.pack_padded_sequence(x, T.tensor([4, 2, 1])), total_length=3)),
           _raised_full(lambda: R.pad_sequence([T.ones(2, 3), T.ones(3, 2)]))]
    one = R.pack_sequence([T.tensor([1.0, 2.0, 3.0])])
    packed = R.pack_padded_sequence(x, T.tensor([4, 2, 1]))
    moved = packed.to(T.float64)
    out += [one.data, one.batch_sizes, one.sorted_indices, moved.data.dtype,
            moved.batch_sizes.dtype, packed.is_cuda, list(packed._fields)]
    return out



def module_api_errors(T):
    """nn.Module's refusals a model-building script meets, in PyTorch's
    words: buffer and parameter names (dotted, empty, taken), add_module of
    a non-module, get_submodule/get_parameter/get_buffer of a missing
    name, load_state_dict of a non-mapping, mixing old and full backward
    hooks on one module."""
    nn = T.nn
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    cases = [lambda: lin.register_buffer("a.b", T.ones(1)),
             lambda: lin.register_buffer("", T.ones(1)),
             lambda: lin.register_buffer("weight", T.ones(1)),
             lambda: lin.register_parameter("bias", nn.Parameter(T.ones(2))),
             lambda: lin.register_parameter("x.y", nn.Parameter(T.ones(2))),
             lambda: lin.register_buffer("buf", [1, 2]),
             lambda: lin.add_module("sub", T.ones(2)),
             lambda: lin.add_module("a.b", nn.ReLU()),
             lambda: seq.get_submodule("0.nope"),
             lambda: seq.get_submodule("1.inplace"),
             lambda: seq.get_parameter("0.nope"),
             lambda: seq.get_parameter("1"),
             lambda: seq.get_buffer("0.weight"),
             lambda: lin.load_state_dict([("weight", T.ones(2, 2))]),
             lambda: seq[5],
             lambda: nn.Sequential(nn.ReLU()).append(T.ones(1))]
    out = [_raised_full(c) for c in cases]
    both = nn.Linear(2, 2)
    both.register_full_backward_hook(lambda m, gi, go: None)
    out.append(_raised_full(lambda: both.register_backward_hook(lambda m, gi, go: None)))
    both2 = nn.Linear(2, 2)
    both2.register_backward_hook(lambda m, gi, go: None)
    out.append(_raised_full(lambda: both2.register_full_backward_hook(lambda m, gi, go: None)))
    return out


def dataset_split_errors(T):
    """torch.utils.data's refusals around splitting and indexing: lengths
    that do not add up, fractions that do not, a Subset's indices, a
    TensorDataset of tensors of different lengths, a ConcatDataset of none,
    a negative index into a ConcatDataset; and fractions taken as counts
    (the leftover spread round-robin), checked by the split's sizes."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(10.0))
    gen = T.Generator().manual_seed(0)
    out = [_raised_full(lambda: D.random_split(ds, [3, 3])),
           _raised_full(lambda: D.random_split(ds, [0.5, 0.4])),
           _raised_full(lambda: D.TensorDataset(T.ones(3), T.ones(4))),
           _raised_full(lambda: D.ConcatDataset([])),
           _raised_full(lambda: D.ConcatDataset([ds, ds])[-25]),
           _raised_full(lambda: D.ConcatDataset([D.TensorDataset(T.ones(2)), Stream()])),
           [len(s) for s in D.random_split(ds, [0.33, 0.33, 0.34], generator=gen)],
           [len(s) for s in D.random_split(range(7), [0.5, 0.5], generator=gen)],
           D.ConcatDataset([ds, ds])[-3], D.Subset(ds, [4, 2])[1],
           len(D.Subset(ds, range(2, 9, 3)))]
    return out


class Stream(object):
    """A minimal iterable dataset for the refusals above (defined where
    the programs' library is not known: the class is plain Python)."""

    def __iter__(self):
        return iter(range(3))


def amp_errors(T):
    """Autocast and GradScaler's refusals and notices: an unknown device
    type, a dtype the CPU does not autocast to, autocast's enabled flag of
    the wrong type, GradScaler given a bad growth factor; the CPU's float16
    autocast (allowed) and what it casts."""
    amp = T.amp
    lin = _init(T, T.nn.Linear(3, 2), 106)
    x = _t(T, 2, 3, seed=1)
    # the type only: PyTorch's message lists its own device types
    out = [_raised_full(lambda: amp.autocast("tpu"))[0],
           _raised_full(lambda: amp.GradScaler("cpu", growth_factor=0.5))]
    r, warned = _warned(lambda: _enter(amp.autocast("cpu", dtype=T.float32), lambda: lin(x)))
    out += [str(r.dtype), [w[:80] for w in warned]]
    with amp.autocast("cpu", dtype=T.float16):
        h = lin(x)
        sm = h.softmax(-1)
        s2 = (h + 1).sum()
    out += [h.dtype, sm.dtype, s2.dtype, T.get_autocast_dtype("cpu"),
            amp.is_autocast_available("cpu")]
    return out


def _enter(ctx, fn):
    with ctx:
        return fn()



def loss_shape_mistakes(T):
    """The losses' warnings and refusals for shapes and types a training
    script gets wrong: mse and l1 broadcasting a (N, 1) prediction against
    an (N,) target (a warning, and the broadcast value), binary cross
    entropy refusing it, cross entropy's batch mismatch and probability
    targets of an integer type, an unknown reduction, nll_loss's class
    count, huber's negative delta, kl_div's input/target sizes."""
    F = T.nn.functional
    pred = _t(T, 4, 1, seed=1)
    target = _t(T, 4, seed=2)
    mse, w1 = _warned(lambda: F.mse_loss(pred, target))
    l1, w2 = _warned(lambda: F.l1_loss(pred, target))
    sl1, w3 = _warned(lambda: F.smooth_l1_loss(pred, target))
    out = [mse, w1, l1, w2, sl1, w3,
           _raised_full(lambda: F.binary_cross_entropy(pred.sigmoid(), target.sigmoid())),
           _raised_full(lambda: F.binary_cross_entropy_with_logits(pred, target)),
           _raised_full(lambda: F.cross_entropy(_t(T, 4, 3, seed=3), T.tensor([0, 1, 2]))),
           _raised_full(lambda: F.cross_entropy(_t(T, 4, 3, seed=3), T.ones(4, 3,
                                                                               dtype=T.long))),
           _raised_full(lambda: F.mse_loss(pred, pred, reduction="avg")),
           _raised_full(lambda: F.huber_loss(pred, pred, delta=-1.0)),
           _raised_full(lambda: F.nll_loss(_t(T, 4, 3, seed=3), T.tensor([0, 1, 2, 1]),
                                           weight=T.ones(4)))]
    kl, w4 = _warned(lambda: F.kl_div(_t(T, 2, 3, seed=4), _t(T, 2, 3, seed=5).softmax(1)))
    out += [kl, w4]
    return out



def layer_input_mistakes(T):
    """The layers' refusals for inputs a CNN or sequence script gets wrong,
    in PyTorch's words: a pooling window larger than the map, a padding
    over half the kernel, padding='same' with a stride, a conv's rank, a
    float64 input into a float32 conv, LayerNorm's normalized shape, a
    transformer layer's d_model, an Embedding's float indices, a
    GRU's hidden state of the wrong batch, Unflatten's sizes, an RNN's
    rank, adaptive pooling's input rank.  (A bad padding string is left
    out: PyTorch's message prints a set, whose order changes from one
    process to the next.)"""
    nn = T.nn
    F = nn.functional
    img = _t(T, 2, 3, 4, 4, seed=1)
    conv = nn.Conv2d(3, 4, 3)
    cases = [lambda: nn.MaxPool2d(5)(img),
             lambda: nn.MaxPool2d(3, padding=2)(img),
             lambda: nn.AvgPool2d(2, padding=2)(img),
             lambda: nn.Conv2d(3, 4, 3, stride=2, padding="same"),
             lambda: conv(img[0, 0]),
             lambda: conv(img.double()),
             lambda: F.conv2d(img, T.ones(4, 3, 5, 5)),
             lambda: nn.LayerNorm(5)(img),
             lambda: nn.TransformerEncoderLayer(6, 2)(_t(T, 3, 2, 4, seed=2)),
             lambda: nn.Embedding(5, 2)(T.tensor([1.0, 2.0])),
             lambda: nn.GRU(4, 3)(_t(T, 5, 2, 4, seed=3), T.zeros(1, 3, 3)),
             lambda: nn.Unflatten(1, (2, 3))(T.ones(2, 5)),
             lambda: nn.LSTM(4, 3)(T.ones(2, 3, 4, 5)),
             lambda: nn.AdaptiveAvgPool2d((2, 2))(T.ones(4)),
             lambda: nn.AdaptiveMaxPool3d((1, None, 2))(T.ones(2, 3, 4)),
             lambda: nn.AdaptiveAvgPool2d(2)(T.ones(4)),
             lambda: nn.Upsample(scale_factor=2, mode="bilinear")(T.ones(1, 2, 3))]
    return [_raised_full(c) for c in cases]



def weights_only_checkpoints(T):
    """Every scheduler's and optimizer's state dict through torch.save and a
    weights_only=True load (what a resume script does by default now): which
    load, what the loaded values are (a MultiStepLR's Counter of
    milestones, CyclicLR's and OneCycleLR's strategy names, the plateau
    scheduler's inf), and the refusal where one does not load."""
    S = T.optim.lr_scheduler
    O = T.optim
    out = []
    makers = [lambda o: S.MultiStepLR(o, [2, 2, 5]), lambda o: S.CyclicLR(o, 0.01, 0.1),
              lambda o: S.OneCycleLR(o, 0.5, total_steps=6),
              lambda o: S.CosineAnnealingWarmRestarts(o, 2),
              lambda o: S.SequentialLR(o, [S.ConstantLR(o), S.StepLR(o, 2)], [2]),
              lambda o: S.ReduceLROnPlateau(o),
              lambda o: S.LambdaLR(o, lambda e: 0.5)]
    for make in makers:
        opt = O.SGD([T.nn.Parameter(T.ones(2))], lr=0.1, momentum=0.9)
        sch = make(opt)
        buf = io.BytesIO()
        T.save(sch.state_dict(), buf)
        buf.seek(0)
        try:
            loaded = _plain(T.load(buf, weights_only=True))
        except Exception as e:  # noqa: BLE001 - the refusal is the answer
            loaded = [type(e).__name__, str(e).splitlines()[0][:60]]
        out.append([type(sch).__name__, loaded])
    for make in (lambda ps: O.Adam(ps, lr=T.tensor(0.01)), lambda ps: O.LBFGS(ps),
                 lambda ps: O.ASGD(ps), lambda ps: O.Adafactor(ps)):
        p = T.nn.Parameter(T.ones(2, 2))
        opt = make([p])

        def closure():
            opt.zero_grad()
            loss = (p ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
        buf = io.BytesIO()
        T.save(opt.state_dict(), buf)
        buf.seek(0)
        loaded = T.load(buf, weights_only=True)
        out.append([type(opt).__name__, _plain(loaded["param_groups"][0]),
                    _state_types(loaded["state"][0])])
    return out



def loader_worker_options(T):
    """The DataLoader's worker options refused without workers, in
    PyTorch's words (a script tuned for a GPU box run where num_workers is
    0): persistent_workers, prefetch_factor, a negative num_workers or
    timeout, multiprocessing_context; pin_memory on a machine without an
    accelerator (a warning, then plain batches); a generator given to a
    shuffling loader (the order compared as a set)."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(6.0))
    cases = [lambda: D.DataLoader(ds, persistent_workers=True),
             lambda: D.DataLoader(ds, prefetch_factor=2),
             lambda: D.DataLoader(ds, num_workers=-1),
             lambda: D.DataLoader(ds, timeout=-1),
             lambda: D.DataLoader(ds, multiprocessing_context="spawn")]
    out = [_raised_full(c) for c in cases]
    g = T.Generator().manual_seed(3)
    shuffled = [int(b[0]) for (b,) in D.DataLoader(ds, shuffle=True, generator=g)]
    out.append(sorted(shuffled))
    dl = D.DataLoader(ds, batch_size=4, pin_memory=True)
    batches, warned = _warned(lambda: [b[0].tolist() for b in dl])
    out += [batches, dl.pin_memory, len(dl)]
    return out



def freezing_mistakes(T):
    """Freezing and unfreezing as fine-tuning scripts do it, and the
    refusals met on the way: requires_grad_() and the requires_grad
    attribute on an integer buffer (PyTorch words the two differently),
    turning off requires_grad of a non-leaf, an integer Parameter made
    without gradients; the frozen layer's weights unchanged by training."""
    nn = T.nn
    m = _init(T, nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2)),
              107)
    out = [_raised_head(lambda: m[1].num_batches_tracked.requires_grad_()),
           _raised_head(lambda: setattr(m[1].num_batches_tracked, "requires_grad", True))]
    h = m[0](_t(T, 3, 4, seed=1))
    out.append(_raised_full(lambda: setattr(h, "requires_grad", False)))
    out.append(_raised_full(lambda: h.requires_grad_(False)))
    ip = nn.Parameter(T.arange(3), requires_grad=False)
    out += [ip.requires_grad, ip.dtype, type(ip).__name__]
    for p in m[0].parameters():
        p.requires_grad = False
    before = m[0].weight.clone()
    opt = T.optim.SGD(filter(lambda p: p.requires_grad, m.parameters()), lr=0.1)
    x, y = _t(T, 8, 4, seed=2), _t(T, 8, 2, seed=3)
    losses = _fit(T, m, opt, x, y, 2)
    out += [losses, bool(T.equal(before, m[0].weight)), m[0].weight.grad,
            len(opt.param_groups[0]["params"]), m[3].bias]
    return out



def functional_optimizers_more(T):
    """The other optimizers' functional forms (torch.optim.functional's
    adagrad, rmsprop, adadelta, adamax, nadam, radam, rprop, asgd, adafactor,
    muon and, on an Embedding's sparse gradients, sparse_adam) driving a
    loop with the state laid out as each optimizer's _init_group lays it
    out (empty lists where an option leaves a buffer out)."""
    import importlib
    fnl = importlib.import_module(T.__name__ + ".optim.functional")
    x, y = _t(T, 8, 4, seed=1), _t(T, 8, 2, seed=2)
    out = []

    def zeros(ps):
        return [T.zeros_like(p) for p in ps]

    def steps(ps, v=0.0):
        return [T.tensor(v) for _ in ps]

    runs = {
        "adagrad": lambda ps, gs, st: fnl.adagrad(
            ps, gs, st.setdefault("sums", [T.full_like(p, 0.1) for p in ps]),
            st.setdefault("steps", steps(ps)), lr=0.1, weight_decay=0.01, lr_decay=0.01,
            eps=1e-10, maximize=False),
        "rmsprop": lambda ps, gs, st: fnl.rmsprop(
            ps, gs, st.setdefault("sq", zeros(ps)), st.setdefault("ga", zeros(ps)),
            st.setdefault("mom", zeros(ps)), st.setdefault("steps", steps(ps)), lr=0.01,
            alpha=0.9, eps=1e-8, weight_decay=0.01, momentum=0.5, centered=True),
        "rmsprop_plain": lambda ps, gs, st: fnl.rmsprop(
            ps, gs, st.setdefault("sq", zeros(ps)), [], [], st.setdefault("steps", steps(ps)),
            lr=0.01, alpha=0.9, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False),
        "adadelta": lambda ps, gs, st: fnl.adadelta(
            ps, gs, st.setdefault("sq", zeros(ps)), st.setdefault("acc", zeros(ps)),
            st.setdefault("steps", steps(ps)), lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.01,
            maximize=False),
        "adamax": lambda ps, gs, st: fnl.adamax(
            ps, gs, st.setdefault("m", zeros(ps)), st.setdefault("u", zeros(ps)),
            st.setdefault("steps", steps(ps)), eps=1e-8, beta1=0.9, beta2=0.99, lr=0.02,
            weight_decay=0.01),
        "nadam": lambda ps, gs, st: fnl.nadam(
            ps, gs, st.setdefault("m", zeros(ps)), st.setdefault("v", zeros(ps)),
            st.setdefault("mu", steps(ps, 1.0)), st.setdefault("steps", steps(ps)), beta1=0.9,
            beta2=0.99, lr=0.02, weight_decay=0.01, momentum_decay=0.004, eps=1e-8),
        "radam": lambda ps, gs, st: fnl.radam(
            ps, gs, st.setdefault("m", zeros(ps)), st.setdefault("v", zeros(ps)),
            st.setdefault("steps", steps(ps)), decoupled_weight_decay=True, beta1=0.9,
            beta2=0.99, lr=0.02, weight_decay=0.1, eps=1e-8),
        "rprop": lambda ps, gs, st: fnl.rprop(
            ps, gs, st.setdefault("prev", zeros(ps)),
            st.setdefault("sizes", [T.full_like(p, 0.01) for p in ps]),
            st.setdefault("steps", steps(ps)), step_size_min=1e-6, step_size_max=1.0,
            etaminus=0.5, etaplus=1.2),
        "asgd": lambda ps, gs, st: fnl.asgd(
            ps, gs, st.setdefault("ax", zeros(ps)), st.setdefault("mu", steps(ps, 1.0)),
            st.setdefault("eta", steps(ps, 0.05)), st.setdefault("steps", steps(ps)), lambd=1e-4,
            lr=0.05, t0=2.0, alpha=0.75, weight_decay=0.01),
    }
    def rows(ps, axis):
        return [T.zeros([1 if i == p.dim() + axis else n for i, n in enumerate(p.shape)])
                if p.dim() > 1 else None for p in ps]

    runs["adafactor"] = lambda ps, gs, st: fnl.adafactor(
        ps, gs, st.setdefault("row", rows(ps, -1)), st.setdefault("col", rows(ps, -2)),
        st.setdefault("var", [T.zeros_like(p) if p.dim() == 1 else None for p in ps]),
        st.setdefault("steps", steps(ps)), d=1.0, lr=0.01, beta2_decay=-0.8,
        weight_decay=0.01, eps1=None, eps2=1e-3, maximize=False)
    runs["muon"] = lambda ps, gs, st: (st.setdefault("steps", [T.tensor(0.0)]), fnl.muon(
        [p for p in ps if p.dim() == 2], [g for g in gs if g.dim() == 2],
        st.setdefault("bufs", [T.zeros_like(p) for p in ps if p.dim() == 2]), lr=0.02,
        weight_decay=0.1, momentum=0.95, nesterov=True, ns_coefficients=(3.4445, -4.775, 2.0315),
        ns_steps=5, eps=1e-7, adjust_lr_fn=None, has_complex=False))
    for name, run in runs.items():
        m = _mlp(T, 108)
        params = list(m.parameters())
        state = {}
        losses = []
        for _ in range(3):
            m.zero_grad()
            loss = T.nn.functional.mse_loss(m(x), y)
            loss.backward()
            with T.no_grad():
                run(params, [p.grad for p in params], state)
            losses.append(loss.item())
        out.append([name, losses, m[0].weight[0], m[2].bias, state["steps"][0]])
    emb = _init(T, T.nn.Embedding(6, 3, sparse=True), 109)
    idx = T.tensor([[1, 3, 3], [0, 5, 1]])
    target = _t(T, 2, 3, 3, seed=3)
    m1, m2 = T.zeros_like(emb.weight), T.zeros_like(emb.weight)
    losses = []
    for step in range(1, 4):
        emb.zero_grad()
        loss = (emb(idx) - target).pow(2).mean()
        loss.backward()
        with T.no_grad():
            fnl.sparse_adam([emb.weight], [emb.weight.grad], [m1], [m2], [step], eps=1e-8,
                            beta1=0.9, beta2=0.999, lr=0.1, maximize=False)
        losses.append(loss.item())
    out.append(["sparse_adam", losses, emb.weight, m2[3]])
    return out


def inputs(T):
    return {"T": T, **{name: globals()[name] for name in _PROGRAMS}}


_PROGRAMS = [
    "optimizer_bad_params", "adagrad_accumulator", "lbfgs_strong_wolfe_state",
    "named_param_state_dict", "state_across_optimizers", "optimizer_options",
    "warmup_then_cosine", "chained_with_plateau", "onecycle_three_phase", "cyclic_exp_range",
    "lambda_schedulers_state", "clipping_variants", "hooks_pre_and_full", "state_dict_hooks",
    "optimizer_hooks_grad_accum", "parametrized_training", "dp_sgd", "grad_scaler_skips",
    "activation_checkpointing", "loader_samplers", "packed_gru", "embedding_bag_offsets",
    "ctc_variants", "transformer_seq2seq", "swa_with_batchnorm", "iterative_pruning",
    "checkpoint_resume", "anomaly_detection", "sam_optimizer", "lookahead_wrapper",
    "gradient_centralization", "input_gradient_penalty", "vq_vae", "clip_contrastive",
    "amp_custom_fwd", "gated_conv_lm", "finetune_surgery", "lr_finder",
    "warm_restarts_fractional", "iterable_datasets", "early_stopping", "deep_ensemble_vmap",
    "masked_lm_tied", "attention_decoder", "sparse_embedding_optimizers", "tensor_lr_schedulers",
    "mixed_dtype_clipping", "deepcopy_parametrized", "soft_target_losses", "packed_lstm_h0",
    "mha_3d_mask", "ppo_update", "grad_assignment_errors", "autograd_function_options",
    "schedulers_more", "feature_matching_hooks", "optimizer_state_dicts",
    "scheduler_state_dicts", "loader_argument_errors", "module_state_dict_order",
    "grad_scaler_errors", "module_metadata", "prune_errors", "parametrize_errors",
    "func_transform_errors", "checkpoint_errors", "low_precision_params",
    "module_containers_edit", "module_dtype_moves", "autograd_batched_grads", "orthogonal_maps",
    "functional_optimizers", "muon_recipe", "scheduler_group_added_later", "swa_schedule_switch",
    "plateau_in_chains", "optimizer_arg_errors", "scheduler_arg_errors", "rnn_utils_errors",
    "module_api_errors", "dataset_split_errors", "amp_errors", "loss_shape_mistakes",
    "layer_input_mistakes", "weights_only_checkpoints", "loader_worker_options",
    "freezing_mistakes", "functional_optimizers_more",
]
CALLS = [name + "(T)" for name in _PROGRAMS]


def main():
    record(CALLS, inputs, describe, "training_programs7", messages=True)


if __name__ == "__main__":
    main()
