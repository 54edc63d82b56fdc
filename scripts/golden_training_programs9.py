"""Record PyTorch's answers for a ninth round of training programs, for
tests/test_training_programs9.py, about the autograd machinery a training
script leans on beyond backward(): grad modes as context managers and as
decorators (with and without parentheses, inference_mode(False) inside an
inference region), custom autograd Functions (several outputs, non-tensor
outputs, unmaterialized gradients, non-differentiable outputs, in-place
ones, double backward, setup_context), backward with inputs= and
create_graph (retained gradients keeping their history), differentiable
optimizer steps (meta-learning through an update), optimizer state dicts
and hooks, autocast's dtype rules and warnings, custom_fwd/custom_bwd,
GradScaler on the CPU, recurrent layers' argument handling and
nn.utils.rnn's padding and packing, gradient hooks and checkpointing.

As in rounds three to eight, every program takes the library as T and
builds its parameters and data from NumPy, so the test runs the very same
code on torchlike; nothing here draws random numbers.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs9.py
writes tests/golden/training_programs9.json ([call, outcome] pairs over T)."""
import numpy as np

from golden_calls import record
from golden_training_programs3 import _data, _init, _raised, _warned
from golden_training_programs6 import describe  # noqa: F401 - describe: the test's
from golden_training_programs7 import _fit, _mlp, _raised_head, _t


def _kind_raised(fn):
    """Only the kind of exception fn raises ("no error" when none): for the
    failures whose words name PyTorch's C++ types."""
    out = _raised(fn)
    return out if isinstance(out, str) else out[0]


# ---- grad modes -------------------------------------------------------------------------------

def inference_mode_nesting(T):
    """inference_mode(False) inside an inference region: recording is on
    there (even under no_grad), tensors made there are ordinary; the flags
    read inside and after each region."""
    out = []
    x = _t(T, 3, seed=1).requires_grad_()
    with T.no_grad():
        with T.inference_mode(False):
            out.append(T.is_grad_enabled())
        with T.inference_mode():
            out.append([T.is_grad_enabled(), T.is_inference_mode_enabled()])
    with T.inference_mode():
        frozen = x * 2
        with T.inference_mode(False):
            y = x * 3
            out += [T.is_grad_enabled(), T.is_inference_mode_enabled(), y.requires_grad,
                    y.is_inference()]
            y.sum().backward()
        out += [T.is_grad_enabled(), T.is_inference_mode_enabled(), frozen.is_inference(),
                frozen.requires_grad]
    out += [T.is_grad_enabled(), T.is_inference_mode_enabled(), x.grad]
    return out


def grad_mode_decorators(T):
    """no_grad, enable_grad and inference_mode as decorators without
    parentheses and with them, set_grad_enabled as one; what each wrapped
    function sees, and its name kept."""
    @T.no_grad
    def a(x):
        return (x * 2).requires_grad

    @T.enable_grad
    def b(x):
        return (x * 2).requires_grad

    @T.inference_mode
    def c(x):
        return [(x * 2).is_inference(), T.is_inference_mode_enabled(), T.is_grad_enabled()]

    @T.inference_mode(False)
    def d(x):
        return [T.is_inference_mode_enabled(), (x * 2).requires_grad]

    @T.set_grad_enabled(False)
    def e(x):
        return (x * 2).requires_grad

    @T.enable_grad()
    def f(x):
        return (x * 2).requires_grad

    x = _t(T, 2, seed=2).requires_grad_()
    with T.no_grad():
        inside = [b(x), f(x)]
    with T.inference_mode():
        inner = d(x)
    return [a(x), inside, c(x), inner, e(x), T.is_grad_enabled(),
            [g.__name__ for g in (a, b, c, d, e, f)]]


def grad_mode_generator(T):
    """A generator decorated with no_grad / enable_grad: each step runs in the
    mode, the caller's code between steps in its own."""
    x = _t(T, 2, seed=3).requires_grad_()

    @T.no_grad()
    def batches():
        for k in range(3):
            yield (x * k).requires_grad, T.is_grad_enabled()

    seen = []
    for item in batches():
        seen.append([list(item), T.is_grad_enabled()])
    return seen


def inference_tensors_in_training(T):
    """Features computed under inference_mode reused for training: cloned
    outside to become ordinary, the refusal of using them uncloned in a
    recorded op, and in-place refused on an inference tensor outside."""
    nn = T.nn
    backbone = _mlp(T, 1, (4, 6))
    head = _init(T, nn.Linear(6, 2), 2)
    x, y = _t(T, 5, 4, seed=3), _t(T, 5, 2, seed=4)
    with T.inference_mode():
        feats = backbone(x)
    bad = _raised(lambda: nn.functional.mse_loss(head(feats), y).backward())
    usable = feats.clone()
    opt = T.optim.SGD(head.parameters(), lr=0.1)
    losses = _fit(T, head, opt, usable, y)
    return [feats.is_inference(), usable.is_inference(), bad, losses, head.weight,
            _raised(lambda: feats.add_(1))]


def set_grad_enabled_function(T):
    """set_grad_enabled used as a plain call (it takes effect at once) and as
    a context manager, restoring the previous mode."""
    x = _t(T, 2, seed=5).requires_grad_()
    out = []
    T.set_grad_enabled(False)
    out.append((x * 2).requires_grad)
    T.set_grad_enabled(True)
    out.append((x * 2).requires_grad)
    with T.set_grad_enabled(False):
        out.append((x * 2).requires_grad)
        with T.set_grad_enabled(True):
            out.append((x * 2).requires_grad)
        out.append(T.is_grad_enabled())
    out.append(T.is_grad_enabled())
    return out


# ---- custom autograd Functions ----------------------------------------------------------------

def function_multi_output(T):
    """A Function with two tensor outputs: backward gets one gradient per
    output, a zero one for an output that got none (materialized)."""
    class Split(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2, x.pow(2)

        @staticmethod
        def backward(ctx, ga, gb):
            x, = ctx.saved_tensors
            return ga * 2 + gb * 2 * x

    x = _t(T, 3, seed=6).requires_grad_()
    a, b = Split.apply(x)
    (a * _t(T, 3, seed=7)).sum().backward(retain_graph=True)
    only_a = x.grad.clone()
    x.grad = None
    (a.sum() + (b * 3).sum()).backward()
    return [a, b, only_a, x.grad, type(a.grad_fn).__name__.startswith("Split")]


def function_non_tensor_outputs(T):
    """A Function returning a tensor, a Python number and an int tensor:
    backward takes one argument per output, None for the number; the int
    output does not require grad."""
    class Scaled(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k, k, x.argmax()

        @staticmethod
        def backward(ctx, g, g_k, g_idx):
            return g * ctx.k, None

    x = _t(T, 4, seed=8).requires_grad_()
    y, k, idx = Scaled.apply(x, 3.0)
    y.sum().backward()
    return [y, k, idx, idx.requires_grad, y.requires_grad, x.grad]


def function_materialize_off(T):
    """set_materialize_grads(False): an output without a gradient reaches
    backward as None."""
    class Two(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone(), x * 2

        @staticmethod
        def backward(ctx, ga, gb):
            seen.append([ga is None, gb is None])
            g = ga if ga is not None else 0
            return g + (gb * 2 if gb is not None else 0)

    seen = []
    x = _t(T, 3, seed=9).requires_grad_()
    a, b = Two.apply(x)
    a.sum().backward(retain_graph=True)
    g1 = x.grad.clone()
    x.grad = None
    b.sum().backward()
    return [seen, g1, x.grad]


def function_setup_context(T):
    """The forward/setup_context split, with mark_non_differentiable on an
    index output and save_for_backward of an input and an output."""
    class SoftmaxArg(T.autograd.Function):
        @staticmethod
        def forward(x):
            y = x.softmax(0)
            return y, y.argmax()

        @staticmethod
        def setup_context(ctx, inputs, output):
            y, idx = output
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(y)

        @staticmethod
        def backward(ctx, gy, gidx):
            y, = ctx.saved_tensors
            return y * (gy - (gy * y).sum())

    x = _t(T, 4, seed=10).requires_grad_()
    y, idx = SoftmaxArg.apply(x)
    (y * _t(T, 4, seed=11)).sum().backward()
    ref = _t(T, 4, seed=10).requires_grad_()
    (ref.softmax(0) * _t(T, 4, seed=11)).sum().backward()
    return [y, idx, idx.requires_grad, x.grad, T.allclose(x.grad, ref.grad)]


def function_double_backward(T):
    """A Function whose backward is itself differentiable (written with
    tensor ops): a gradient penalty through it by create_graph."""
    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2

    x = _t(T, 3, seed=12).requires_grad_()
    y = Cube.apply(x).sum()
    g, = T.autograd.grad(y, x, create_graph=True)
    g2, = T.autograd.grad(g.sum(), x)
    return [g, g2, g.requires_grad]


def function_once_differentiable(T):
    """once_differentiable: the first backward runs, differentiating its
    result again is refused."""
    fn = T.autograd.function.once_differentiable

    class Sq(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @fn
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = _t(T, 3, seed=13).requires_grad_()
    g, = T.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    return [g, g.requires_grad, _raised(lambda: g.sum().backward())]


def function_mark_dirty(T):
    """An in-place Function (mark_dirty) applied to a non-leaf: the output is
    the input tensor, its version bumped, the gradient through it."""
    class Double_(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    w = _t(T, 3, seed=14).requires_grad_()
    h = w + 1
    v0 = h._version
    out = Double_.apply(h)
    (out * _t(T, 3, seed=15)).sum().backward()
    return [out is h, h._version - v0, out, w.grad,
            _raised(lambda: Double_.apply(_t(T, 3, seed=16).requires_grad_()))]


def function_wrong_gradients(T):
    """Backward returning too many / too few gradients, a gradient of the
    wrong shape, one for a non-tensor input."""
    def make(ret):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return ret(g)
        return F

    out = []
    for ret in (lambda g: (g,), lambda g: (g, None, None, None), lambda g: (g, g),
                lambda g: (g.sum(), None)):
        x = _t(T, 3, seed=17).requires_grad_()
        F = make(ret)
        out.append(_raised(lambda: F.apply(x, 2.0).sum().backward()))
    return out


def function_needs_input_grad(T):
    """ctx.needs_input_grad seen in forward and backward; a Function on
    inputs of which only one requires grad."""
    seen = []

    class Mul(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            seen.append(ctx.needs_input_grad)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return (g * b if ctx.needs_input_grad[0] else None,
                    g * a if ctx.needs_input_grad[1] else None)

    a = _t(T, 3, seed=18).requires_grad_()
    b = _t(T, 3, seed=19)
    Mul.apply(a, b).sum().backward()
    c = Mul.apply(_t(T, 3, seed=20), b)
    return [seen, a.grad, c.requires_grad, c.grad_fn is None]


def straight_through_function(T):
    """A straight-through estimator (sign forward, clipped identity backward)
    in a tiny binarized net trained by SGD."""
    class SignSTE(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sign()

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * (x.abs() <= 1).to(g.dtype)

    nn = T.nn
    lin = _init(T, nn.Linear(4, 3), 21)
    out = _init(T, nn.Linear(3, 1), 22)
    x, y = _t(T, 6, 4, seed=23), _t(T, 6, 1, seed=24)
    opt = T.optim.SGD(list(lin.parameters()) + list(out.parameters()), lr=0.05)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = nn.functional.mse_loss(out(SignSTE.apply(lin(x))), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, lin.weight, out.bias]


# ---- backward(inputs=), retained gradients, create_graph --------------------------------------

def backward_inputs_non_leaf(T):
    """backward(inputs=[non-leaf]) accumulates into the non-leaf's .grad (and
    not the leaf's); twice adds up; inputs mixing a leaf and a non-leaf."""
    x = _t(T, 3, seed=25).requires_grad_()
    y = x * 3
    z = (y ** 2).sum()
    z.backward(inputs=[y], retain_graph=True)
    first = [y.grad.clone(), x.grad]
    z.backward(inputs=[y, x], retain_graph=True)
    second = [y.grad.clone(), x.grad.clone()]
    z.backward(inputs=x)
    return [first, second, x.grad, y.is_leaf, y.retains_grad]


def backward_inputs_refusals(T):
    """backward(inputs=[]), an input that does not require grad, and
    autograd.grad of an unused input with and without allow_unused."""
    x = _t(T, 3, seed=26).requires_grad_()
    w = _t(T, 3, seed=27).requires_grad_()
    return [_raised(lambda: (x * 2).sum().backward(inputs=[])),
            _raised(lambda: (x * 2).sum().backward(inputs=[_t(T, 3, seed=1)])),
            _raised(lambda: T.autograd.grad((x * 2).sum(), [x, w])),
            T.autograd.grad((x * 2).sum(), [x, w], allow_unused=True),
            T.autograd.grad((x * 2).sum(), [x, w], allow_unused=True,
                            materialize_grads=True)]


def retained_grad_create_graph(T):
    """retain_grad on an intermediate under backward(create_graph=True): the
    retained gradient keeps its history and can be differentiated."""
    x = _t(T, 3, seed=28).requires_grad_()
    y = x ** 2
    y.retain_grad()
    z = (y ** 2).sum()
    z.backward(create_graph=True)
    yg = y.grad
    second, = T.autograd.grad(yg.sum(), x)
    return [yg, yg.requires_grad, second, x.grad.requires_grad]


def retained_grad_accumulates(T):
    """A retained gradient across two backward passes adds up, and is reset
    by setting it to None; retains_grad flags."""
    x = _t(T, 3, seed=29).requires_grad_()
    h = x.tanh()
    h.retain_grad()
    loss = (h * _t(T, 3, seed=30)).sum()
    loss.backward(retain_graph=True)
    a = h.grad.clone()
    loss.backward(retain_graph=True)
    b = h.grad.clone()
    h.grad = None
    loss.backward()
    return [a, b, h.grad, h.retains_grad, x.retains_grad, x.grad]


def gradient_penalty_wgan(T):
    """A WGAN-GP critic step: the gradient of the critic at interpolates by
    autograd.grad(create_graph=True), its norm penalised, Adam on the
    total."""
    critic = _mlp(T, 31, (3, 8, 1))
    opt = T.optim.Adam(critic.parameters(), lr=0.01, betas=(0.5, 0.9))
    real, fake = _t(T, 6, 3, seed=32), _t(T, 6, 3, seed=33)
    alpha = _data(T, np.linspace(0, 1, 6, dtype=np.float32).reshape(6, 1))
    losses = []
    for _ in range(3):
        opt.zero_grad()
        mix = (alpha * real + (1 - alpha) * fake).requires_grad_()
        g, = T.autograd.grad(critic(mix).sum(), mix, create_graph=True)
        gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * gp
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, critic[0].weight[0]]


def hessian_vector_product(T):
    """A Hessian-vector product by double backward on a small network's
    loss, against autograd.functional.hvp."""
    w = _t(T, 4, seed=34).requires_grad_()
    x, y = _t(T, 5, 4, seed=35), _t(T, 5, seed=36)
    v = _t(T, 4, seed=37)

    def loss_fn(w):
        return ((x @ w).tanh() - y).pow(2).mean()

    g, = T.autograd.grad(loss_fn(w), w, create_graph=True)
    hv, = T.autograd.grad(g @ v, w)
    _, hv2 = T.autograd.functional.hvp(loss_fn, w.detach(), v)
    return [hv, T.allclose(hv, hv2, atol=1e-6)]


def grad_of_grad_accumulation(T):
    """create_graph=True backward into .grad, then a second backward on a
    function of the gradients accumulates into the leaves (a grad norm
    regulariser)."""
    lin = _init(T, T.nn.Linear(3, 2), 38)
    x = _t(T, 4, 3, seed=39)
    loss = lin(x).pow(2).sum()
    grads = T.autograd.grad(loss, list(lin.parameters()), create_graph=True)
    reg = sum(g.pow(2).sum() for g in grads)
    reg.backward()
    return [reg, lin.weight.grad, lin.bias.grad]


# ---- differentiable optimizers ----------------------------------------------------------------

def differentiable_sgd_meta(T):
    """Meta-learning a learning rate: a differentiable SGD step on a clone of
    the weights (lr a tensor), the validation loss differentiated back to
    the lr and to the initial weights."""
    w0 = _t(T, 3, seed=40).requires_grad_()
    x, y = _t(T, 6, 3, seed=41), _t(T, 6, seed=42)
    xv, yv = _t(T, 4, 3, seed=43), _t(T, 4, seed=44)
    w = w0.clone()
    opt = T.optim.SGD([w], lr=0.1, differentiable=True)
    loss = ((x @ w - y) ** 2).mean()
    w.grad, = T.autograd.grad(loss, w, create_graph=True)
    opt.step()
    val = ((xv @ w - yv) ** 2).mean()
    g0, = T.autograd.grad(val, w0)
    return [w, w.requires_grad, val, g0]


def differentiable_sgd_momentum(T):
    """Differentiable SGD with momentum and weight decay over two steps: the
    first buffer is the detached gradient (as PyTorch's), so the gradient
    to the initial weights flows through the parameter path and later
    gradients."""
    w0 = _t(T, 3, seed=45).requires_grad_()
    w = w0 * 1.0
    opt = T.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01, differentiable=True)
    for k in range(2):
        w.grad = w0 * (0.5 + k) + 1
        opt.step()
    g, = T.autograd.grad((w * _t(T, 3, seed=46)).sum(), w0)
    return [w, g, opt.state[w]["momentum_buffer"].requires_grad]


def differentiable_adaptive_optimizers(T):
    """One differentiable step of each adaptive optimizer: the updated
    parameter and the gradient of a function of it back to the weights the
    gradient was computed from."""
    out = {}
    for name in ("Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "NAdam", "RAdam", "ASGD"):
        w0 = _t(T, 3, seed=47).requires_grad_()
        w = w0 * 1.0
        opt = getattr(T.optim, name)([w], lr=0.1, differentiable=True)
        for k in range(2):
            w.grad = w0 * w0 * (1 + k)
            opt.step()
        g, = T.autograd.grad((w * _t(T, 3, seed=48)).sum(), w0)
        out[name] = [w, g]
    return out


def differentiable_optimizer_refusals(T):
    """differentiable=True where PyTorch takes no such option (LBFGS,
    SparseAdam), and a differentiable step on a leaf (its in-place update
    refused); the flag in the param group."""
    p = _t(T, 3, seed=49).requires_grad_()
    opt = T.optim.SGD([p], lr=0.1, differentiable=True)
    p.grad = _t(T, 3, seed=50)
    return [_raised(lambda: T.optim.LBFGS([p], differentiable=True)),
            _raised(lambda: T.optim.SparseAdam([p], differentiable=True)),
            _raised(opt.step), opt.param_groups[0]["differentiable"],
            T.optim.Adam([p]).defaults["differentiable"]]


def differentiable_step_variants(T):
    """Differentiable steps of the options with a running maximum or a sign
    (amsgrad, Adamax, Rprop, centered RMSprop, SGD's dampening, NAdam's
    decoupled decay): one step through each, and the second step of those
    whose in-place state updates then overwrite what the first recorded,
    which PyTorch refuses (compared by kind: its words name C++ types)."""
    cfgs = [("Adam", dict(amsgrad=True)), ("AdamW", dict(amsgrad=True)),
            ("RMSprop", dict(momentum=0.5, centered=True)), ("RMSprop", dict(momentum=0.5)),
            ("Adamax", {}), ("Rprop", {}), ("SGD", dict(momentum=0.9, dampening=0.1)),
            ("NAdam", dict(decoupled_weight_decay=True, weight_decay=0.1)),
            ("Adagrad", dict(lr_decay=0.1, weight_decay=0.1))]
    out = []
    for steps in (1, 2):
        for name, kw in cfgs:
            def run():
                w0 = _t(T, 3, seed=173).requires_grad_()
                w = w0 * 1.0
                opt = getattr(T.optim, name)([w], lr=0.1, differentiable=True, **kw)
                for k in range(steps):
                    w.grad = _t(T, 3, seed=174) * w0 + k
                    opt.step()
                return [w, T.autograd.grad((w * _t(T, 3, seed=175)).sum(), w0)[0]]
            res = _kind_raised(run)
            out.append(run() if res == "no error" else res)
    return out


def optimizer_param_group_keys(T):
    """Each optimizer's param-group keys and state keys in order after a step
    (what a state dict shows)."""
    out = {}
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
                 "RAdam", "ASGD", "Rprop"):
        p = _t(T, 2, seed=51).requires_grad_()
        opt = getattr(T.optim, name)([p], lr=0.01, **({"momentum": 0.9} if name == "SGD" else {}))
        p.grad = _t(T, 2, seed=52)
        opt.step()
        sd = opt.state_dict()
        out[name] = [list(sd["param_groups"][0]), [list(v) for v in sd["state"].values()]]
    return out


def radam_checkpoint_roundtrip(T):
    """RAdam (decoupled weight decay) trained, its state dict saved and loaded
    into a fresh optimizer that continues identically."""
    x, y = _t(T, 8, 4, seed=53), _t(T, 8, 2, seed=54)
    a = _mlp(T, 55)
    opt_a = T.optim.RAdam(a.parameters(), lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)
    first = _fit(T, a, opt_a, x, y, steps=2)
    sd = opt_a.state_dict()
    b = _mlp(T, 55)
    b.load_state_dict(a.state_dict())
    opt_b = T.optim.RAdam(b.parameters(), lr=0.01, weight_decay=0.1,
                          decoupled_weight_decay=True)
    opt_b.load_state_dict(sd)
    more_a = _fit(T, a, opt_a, x, y, steps=2)
    more_b = _fit(T, b, opt_b, x, y, steps=2)
    return [first, more_a, more_a == more_b, list(sd["param_groups"][0]),
            sd["state"][0]["step"], a[2].bias]


def optimizer_step_hooks(T):
    """Optimizer pre- and post-step hooks (one removed), a pre-hook that
    rescales gradients, and zero_grad's set_to_none choices."""
    lin = _init(T, T.nn.Linear(3, 2), 56)
    opt = T.optim.SGD(lin.parameters(), lr=0.1)
    calls = []

    def pre(o, args, kwargs):
        calls.append("pre")
        for p in o.param_groups[0]["params"]:
            p.grad.mul_(0.5)

    def post(o, args, kwargs):
        calls.append("post")

    h1 = opt.register_step_pre_hook(pre)
    h2 = opt.register_step_post_hook(post)
    x = _t(T, 4, 3, seed=57)
    lin(x).sum().backward()
    opt.step()
    h2.remove()
    opt.step()
    h1.remove()
    opt.zero_grad(set_to_none=False)
    zeroed = lin.weight.grad
    opt.zero_grad()
    return [calls, lin.weight, zeroed, lin.weight.grad]


def optimizer_state_dict_hooks(T):
    """state_dict / load_state_dict pre- and post-hooks on an optimizer."""
    lin = _init(T, T.nn.Linear(2, 2), 58)
    opt = T.optim.Adam(lin.parameters(), lr=0.01)
    lin(_t(T, 3, 2, seed=59)).sum().backward()
    opt.step()
    seen = []

    def sd_post(o, sd):
        sd["extra"] = 7
        return sd

    opt.register_state_dict_pre_hook(lambda o: seen.append("sd_pre"))
    opt.register_state_dict_post_hook(sd_post)
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append("load_pre"))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("load_post"))
    sd = opt.state_dict()
    opt.load_state_dict(sd)
    return [seen, sorted(sd), sd["extra"]]


def lr_as_tensor(T):
    """Adam and SGD with lr given as a 0-d tensor, changed in place between
    steps (as a scheduler does), and Adam's refusal of a tensor lr with
    foreach=True."""
    lin = _init(T, T.nn.Linear(3, 1), 60)
    lr = T.tensor(0.05)
    opt = T.optim.Adam(lin.parameters(), lr=lr)
    x, y = _t(T, 5, 3, seed=61), _t(T, 5, 1, seed=62)
    losses = _fit(T, lin, opt, x, y, steps=2)
    lr.fill_(0.01)
    losses += _fit(T, lin, opt, x, y, steps=2)
    return [losses, lin.weight, type(opt.param_groups[0]["lr"]).__name__,
            _raised(lambda: T.optim.Adam(lin.parameters(), lr=T.tensor(0.1), foreach=True))]


def maximize_and_weight_decay(T):
    """maximize=True ascends; SGD nesterov refusals; negative arguments
    refused in PyTorch's words."""
    p = _t(T, 3, seed=63).requires_grad_()
    opt = T.optim.SGD([p], lr=0.1, maximize=True, weight_decay=0.1)
    p.grad = _t(T, 3, seed=64)
    opt.step()
    return [p, _raised(lambda: T.optim.SGD([p], lr=0.1, nesterov=True)),
            _raised(lambda: T.optim.SGD([p], lr=-1)),
            _raised(lambda: T.optim.Adam([p], betas=(1.0, 0.9))),
            _raised(lambda: T.optim.RMSprop([p], alpha=-0.1)),
            _raised(lambda: T.optim.Adagrad([p], lr_decay=-1)),
            _raised(lambda: T.optim.SGD([], lr=0.1))]


# ---- autocast and AMP -------------------------------------------------------------------------

def autocast_dtype_warnings(T):
    """autocast with an unsupported dtype on the CPU, on CUDA without CUDA,
    and a non-bool enabled: the warnings (and the error)."""
    def enter(**kw):
        with T.autocast(**kw):
            return T.is_autocast_enabled("cpu")

    return [_warned(lambda: enter(device_type="cpu", dtype=T.float64)),
            _warned(lambda: enter(device_type="cpu", dtype=T.float32)),
            _warned(lambda: enter(device_type="cpu", dtype=T.bfloat16)),
            _warned(lambda: enter(device_type="cuda", dtype=T.float16)),
            _raised(lambda: enter(device_type="cpu", enabled="yes")),
            _kind_raised(lambda: enter(device_type="nodevice"))]  # names PyTorch's devices


def autocast_cpu_op_dtypes(T):
    """Under CPU autocast (bfloat16): a linear's output dtype, a softmax's, an
    add of its results, a matmul of float64 inputs, and a nested region
    with enabled=False."""
    nn = T.nn
    lin = _init(T, nn.Linear(4, 3), 65)
    x = _t(T, 2, 4, seed=66)
    with T.autocast("cpu"):
        y = lin(x)
        s = y.float().softmax(-1)
        z = y + 1
        m = T.mm(x.double(), x.double().t())
        with T.autocast("cpu", enabled=False):
            inner = lin(x)
        flags = [T.is_autocast_enabled("cpu"), T.get_autocast_dtype("cpu")]
    return [y.dtype, s.dtype, z.dtype, m.dtype, inner.dtype, flags,
            T.is_autocast_enabled("cpu")]


def autocast_training_loop(T):
    """A CPU bfloat16-autocast training loop: the loss in float32 after an
    explicit cast, the parameters' gradients float32, the losses."""
    nn = T.nn
    model = _mlp(T, 67, (4, 8, 2))
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    x, y = _t(T, 6, 4, seed=68), _t(T, 6, 2, seed=69)
    losses, dtypes = [], []
    for _ in range(2):
        opt.zero_grad()
        with T.autocast("cpu", dtype=T.bfloat16):
            out = model(x)
            loss = nn.functional.mse_loss(out.float(), y)
        dtypes.append([out.dtype, loss.dtype])
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 2))
    return [losses, dtypes, model[0].weight.grad.dtype]


def custom_fwd_plain_function(T):
    """torch.amp.custom_fwd(cast_inputs=...) on a plain function: its first
    argument is taken for the ctx and cast like the rest, float64 inputs
    are kept, and autocast is off inside; outside a region nothing changes."""
    @T.amp.custom_fwd(device_type="cpu", cast_inputs=T.bfloat16)
    def f(x, y, z):
        return [x.dtype, y.dtype, z.dtype, T.is_autocast_enabled("cpu")]

    a = f(T.ones(2), T.ones(2), T.ones(2, dtype=T.float64))
    with T.autocast("cpu"):
        b = f(T.ones(2), T.ones(2), T.ones(2, dtype=T.float64))
    return [a, b]


def custom_fwd_function(T):
    """custom_fwd/custom_bwd on an autograd.Function's forward and backward:
    forward's inputs cast to float32 inside a bfloat16 region, backward run
    under forward's autocast state."""
    seen = []

    class Lin(T.autograd.Function):
        @staticmethod
        @T.amp.custom_fwd(device_type="cpu", cast_inputs=T.float32)
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            seen.append([x.dtype, w.dtype, T.is_autocast_enabled("cpu")])
            return x @ w

        @staticmethod
        @T.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            seen.append(T.is_autocast_enabled("cpu"))
            return g @ w.t(), x.t() @ g

    x = _t(T, 2, 3, seed=70).to(T.bfloat16)
    w = _t(T, 3, 2, seed=71).requires_grad_()
    with T.autocast("cpu"):
        y = Lin.apply(x, w)
    y.sum().backward()
    return [seen, y.dtype, w.grad,
            _raised(lambda: T.amp.custom_fwd(lambda c, x: x, device_type=1))]


def grad_scaler_cpu(T):
    """GradScaler on the CPU: scaling, unscale_ before clipping, skipped steps
    on an inf gradient (scale halved), growth after the interval."""
    nn = T.nn
    lin = _init(T, nn.Linear(3, 1), 72)
    opt = T.optim.SGD(lin.parameters(), lr=0.1)
    scaler = T.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    x, y = _t(T, 4, 3, seed=73), _t(T, 4, 1, seed=74)
    scales, weights = [], []
    for k in range(4):
        opt.zero_grad()
        loss = nn.functional.mse_loss(lin(x), y)
        scaler.scale(loss).backward()
        if k == 1:
            lin.weight.grad[0, 0] = float("inf")
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(lin.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
        weights.append(lin.weight[0, 1].item())
    return [scales, weights, scaler.state_dict()["_growth_tracker"],
            _raised(lambda: scaler.unscale_(opt) or scaler.unscale_(opt))]


# ---- hooks, checkpointing ---------------------------------------------------------------------

def tensor_hooks_clip(T):
    """Gradient hooks on parameters clipping and recording their gradient,
    a hook on an intermediate replacing its gradient, one removed."""
    lin = _init(T, T.nn.Linear(3, 2), 75)
    seen = []
    h = lin.weight.register_hook(lambda g: g.clamp(-0.1, 0.1))
    lin.bias.register_hook(lambda g: seen.append(g.clone()))
    x = _t(T, 4, 3, seed=76)
    mid = lin(x)
    mid.register_hook(lambda g: g * 2)
    mid.pow(2).sum().backward()
    first = lin.weight.grad.clone()
    h.remove()
    lin.zero_grad()
    lin(x).pow(2).sum().backward()
    return [first, seen, lin.weight.grad]


def post_accumulate_grad_hook(T):
    """register_post_accumulate_grad_hook stepping each parameter as its
    gradient lands (the optimizer-in-backward pattern)."""
    nn = T.nn
    model = _mlp(T, 77, (3, 4, 1))
    opts = {p: T.optim.SGD([p], lr=0.1) for p in model.parameters()}
    order = []

    def hook(p):
        order.append(tuple(p.shape))
        opts[p].step()
        opts[p].zero_grad()

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(hook)
    x, y = _t(T, 5, 3, seed=78), _t(T, 5, 1, seed=79)
    losses = []
    for _ in range(2):
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        losses.append(loss.item())
    return [losses, sorted(set(order)), model[0].weight, model[2].weight.grad]


def checkpoint_equivalence(T):
    """torch.utils.checkpoint (non-reentrant) around a block: the same loss
    and gradients as without it."""
    from importlib import import_module
    cp = import_module(T.__name__ + ".utils.checkpoint")
    block = _mlp(T, 80, (4, 6, 4))
    x = _t(T, 3, 4, seed=81).requires_grad_()
    y1 = cp.checkpoint(block, x, use_reentrant=False).pow(2).sum()
    y1.backward()
    g1 = [x.grad.clone(), block[0].weight.grad.clone()]
    x.grad = None
    block.zero_grad()
    block(x).pow(2).sum().backward()
    return [y1, g1, T.allclose(g1[0], x.grad), T.allclose(g1[1], block[0].weight.grad)]


def anomaly_and_detect(T):
    """detect_anomaly around a backward that produces NaN: the error's words;
    set_detect_anomaly as a switch."""
    x = T.tensor([0.0, 1.0], requires_grad=True)

    def run():
        with T.autograd.detect_anomaly():
            (x.sqrt() * 0).sum().backward()
            y = T.tensor([-1.0], requires_grad=True)
            y.sqrt().sum().backward()
            (y.sqrt() * 0).sum().backward()
    T.autograd.set_detect_anomaly(False)
    out = _warned(lambda: _raised(run))
    return [out[0], T.is_anomaly_enabled()]


def saved_tensor_hooks(T):
    """saved_tensors_hooks packing saved tensors (counting and doubling
    them): the gradient computed from the unpacked copies."""
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t * 1

    def unpack(t):
        return t

    x = _t(T, 3, seed=82).requires_grad_()
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).sin().sum()
    y.backward()
    return [len(packed) > 0, x.grad]


# ---- recurrent layers and nn.utils.rnn --------------------------------------------------------

def lstm_hx_refusals(T):
    """An LSTM given hx in the wrong forms: one tensor (indexed as PyTorch
    does), a 1-tuple, a 3-tuple, states of the wrong rank or size; a GRU
    given a tuple."""
    nn = T.nn
    lstm = nn.LSTM(3, 4)
    x = T.zeros(5, 2, 3)
    z = T.zeros
    cases = [z(1, 2, 4), (z(1, 2, 4),), (z(1, 2, 4),) * 3, (z(1, 2, 4), z(2, 4)),
             z(2, 2, 4), (z(2, 2, 4), z(1, 2, 4)), (z(1, 2, 4), z(1, 3, 4)),
             (z(1, 2, 5), z(1, 2, 4))]
    out = [_raised(lambda hx=hx: lstm(x, hx)) for hx in cases]
    out.append(_raised(lambda: lstm(T.zeros(5, 3), z(1, 4))))
    out.append(_raised(lambda: lstm(T.zeros(5, 3), (z(1, 4),))))
    out.append(_raised(lambda: lstm(T.zeros(5, 3), (z(1, 2, 4), z(1, 2, 4)))))
    gru = nn.GRU(3, 4)
    out.append(_raised(lambda: gru(x, (z(1, 2, 4),))))
    out.append(_raised(lambda: gru(x, z(2, 2, 4))))
    ok = lstm(x, [z(1, 2, 4), z(1, 2, 4)])
    return [out, ok[0].shape, [h.shape for h in ok[1]]]


def pad_sequence_sides(T):
    """pad_sequence with padding_side left and right, batch_first both ways,
    a padding value; of 2-d sequences; and its refusals."""
    pad = T.nn.utils.rnn.pad_sequence
    seqs = [_t(T, 3, seed=83), _t(T, 1, seed=84), _t(T, 2, seed=85)]
    feats = [_t(T, 2, 2, seed=86), _t(T, 3, 2, seed=87)]
    return [pad(seqs, batch_first=True, padding_side="left"),
            pad(seqs, padding_side="left", padding_value=-1.0),
            pad(seqs, batch_first=True),
            pad(feats, batch_first=True, padding_side="left"),
            _raised(lambda: pad(seqs, padding_side="middle")),
            _raised(lambda: pad([], batch_first=True))]


def packed_lstm_classifier(T):
    """An LSTM classifier over variable-length sequences packed with
    enforce_sorted=False, the final hidden state per sequence, trained by
    Adam; pad_packed_sequence's lengths and total_length."""
    nn = T.nn
    rnn = nn.utils.rnn
    lstm = _init(T, nn.LSTM(3, 4, batch_first=True), 88)
    head = _init(T, nn.Linear(4, 2), 89)
    x = _t(T, 3, 5, 3, seed=90)
    lengths = T.tensor([2, 5, 3])
    target = T.tensor([0, 1, 1])
    opt = T.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=0.01)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        packed = rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = lstm(packed)
        loss = nn.functional.cross_entropy(head(h[-1]), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    padded, lens = rnn.pad_packed_sequence(out, batch_first=True, total_length=6)
    return [losses, padded.shape, lens, padded[0, 2:].abs().sum(), h[-1]]


def pack_sequence_roundtrip(T):
    """pack_sequence / unpack_sequence and pack_padded / unpad_sequence
    round trips; the refusal of unsorted lengths with enforce_sorted."""
    rnn = T.nn.utils.rnn
    seqs = [_t(T, 4, 2, seed=91), _t(T, 2, 2, seed=92), _t(T, 3, 2, seed=93)]
    packed = rnn.pack_sequence(seqs, enforce_sorted=False)
    back = rnn.unpack_sequence(packed)
    padded = rnn.pad_sequence(seqs, batch_first=True)
    unpadded = rnn.unpad_sequence(padded, T.tensor([4, 2, 3]), batch_first=True)
    return [packed.batch_sizes, packed.sorted_indices, [b.shape for b in back],
            all(T.equal(a, b) for a, b in zip(seqs, back)),
            all(T.equal(a, b) for a, b in zip(seqs, unpadded)),
            _raised(lambda: rnn.pack_sequence(seqs))]


def gru_bidirectional_tagger(T):
    """A bidirectional two-layer GRU tagger with dropout 0 trained by SGD; the
    final hidden state's layout (layers * directions)."""
    nn = T.nn
    gru = _init(T, nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True), 94)
    head = _init(T, nn.Linear(8, 3), 95)
    x = _t(T, 2, 5, 3, seed=96)
    tags = T.tensor([[0, 1, 2, 1, 0], [2, 2, 1, 0, 1]])
    opt = T.optim.SGD(list(gru.parameters()) + list(head.parameters()), lr=0.1)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        out, h = gru(x)
        loss = nn.functional.cross_entropy(head(out).reshape(-1, 3), tags.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, out.shape, h.shape, h[1, 0]]


def lstm_projection_states(T):
    """An LSTM with proj_size: hidden states of the projected size, cell
    states of the hidden size, the refusal of a wrong-size h0."""
    nn = T.nn
    lstm = _init(T, nn.LSTM(3, 5, proj_size=2), 97)
    x = _t(T, 4, 2, 3, seed=98)
    out, (h, c) = lstm(x)
    return [out.shape, h.shape, c.shape, out[-1],
            _raised(lambda: lstm(x, (T.zeros(1, 2, 5), T.zeros(1, 2, 5))))]


def rnn_cell_loop_training(T):
    """An RNNCell (relu) unrolled by hand with hidden state carried and
    detached every two steps (truncated BPTT)."""
    nn = T.nn
    cell = _init(T, nn.RNNCell(2, 3, nonlinearity="relu"), 99)
    head = _init(T, nn.Linear(3, 1), 100)
    xs = _t(T, 6, 4, 2, seed=101)
    ys = _t(T, 6, 4, 1, seed=102)
    opt = T.optim.SGD(list(cell.parameters()) + list(head.parameters()), lr=0.05)
    h = T.zeros(4, 3)
    losses = []
    for t in range(0, 6, 2):
        h = h.detach()
        opt.zero_grad()
        loss = 0
        for s in (t, t + 1):
            h = cell(xs[s], h)
            loss = loss + nn.functional.mse_loss(head(h), ys[s])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, cell.weight_hh]


# ---- utilities a training script meets ---------------------------------------------------------

def clip_grad_utilities(T):
    """clip_grad_norm_ with error_if_nonfinite and foreach, get_total_norm and
    clip_grads_with_norm_, clip_grad_value_; the norm returned."""
    nn = T.nn
    u = nn.utils
    model = _mlp(T, 103)
    x = _t(T, 3, 4, seed=104)
    model(x).pow(2).sum().backward()
    grads = [p.grad for p in model.parameters()]
    total = u.get_total_norm(grads, norm_type=2.0)
    norm = u.clip_grad_norm_(model.parameters(), 0.5, foreach=False)
    after = u.get_total_norm([p.grad for p in model.parameters()])
    model[0].weight.grad[0, 0] = float("nan")
    bad = _raised(lambda: u.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True))
    return [total, norm, after, bad]


def parameters_vector_and_grad_norms(T):
    """parameters_to_vector after a step, vector_to_parameters back, and the
    per-parameter gradient norms a script logs."""
    u = T.nn.utils
    model = _mlp(T, 105)
    x, y = _t(T, 3, 4, seed=106), _t(T, 3, 2, seed=107)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    _fit(T, model, opt, x, y, steps=1)
    vec = u.parameters_to_vector(model.parameters())
    norms = {n: p.grad.norm().item() for n, p in model.named_parameters()}
    u.vector_to_parameters(vec * 0 + 1, model.parameters())
    return [vec.shape, vec[:5], norms, model[0].bias]


def no_grad_eval_loop(T):
    """The train/eval split of a script: eval() with no_grad, a BatchNorm and
    a Dropout in the model, the running statistics untouched in eval."""
    nn = T.nn
    model = _init(T, nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(),
                                   nn.Dropout(0.0), nn.Linear(4, 1)), 108)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    x, y = _t(T, 6, 3, seed=109), _t(T, 6, 1, seed=110)
    losses = _fit(T, model, opt, x, y, steps=2)
    mean = model[1].running_mean.clone()
    model.eval()
    with T.no_grad():
        pred = model(x)
    return [losses, pred.requires_grad, T.equal(mean, model[1].running_mean), pred[:3],
            model.training, model[1].num_batches_tracked]


def torch_func_grad_training(T):
    """A functional training step by torch.func: grad of a loss over a dict of
    parameters by functional_call, applied by hand."""
    nn = T.nn
    model = _init(T, nn.Linear(3, 1), 111)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = _t(T, 5, 3, seed=112), _t(T, 5, 1, seed=113)

    def loss_fn(p):
        return nn.functional.mse_loss(T.func.functional_call(model, p, (x,)), y)

    losses = []
    for _ in range(3):
        g = T.func.grad(loss_fn)(params)
        losses.append(loss_fn(params).item())
        params = {k: params[k] - 0.1 * g[k] for k in params}
    return [losses, params["weight"], sorted(g)]


def vmap_per_sample_grads(T):
    """Per-sample gradients by vmap(grad(...)) over a batch, against a loop."""
    nn = T.nn
    model = _init(T, nn.Linear(3, 2), 114)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = _t(T, 4, 3, seed=115), _t(T, 4, 2, seed=116)

    def loss_one(p, xi, yi):
        out = T.func.functional_call(model, p, (xi.unsqueeze(0),))
        return nn.functional.mse_loss(out, yi.unsqueeze(0))

    per = T.func.vmap(T.func.grad(loss_one), in_dims=(None, 0, 0))(params, x, y)
    loop = [T.func.grad(loss_one)(params, x[i], y[i])["weight"] for i in range(4)]
    return [per["weight"].shape, per["bias"],
            all(T.allclose(per["weight"][i], loop[i], atol=1e-6) for i in range(4))]


def requires_grad_toggles(T):
    """Freezing by requires_grad_(False) on a submodule, the optimizer over
    the trainable ones only, and the errors of backward with nothing to
    differentiate."""
    model = _mlp(T, 117, (3, 4, 2))
    model[0].requires_grad_(False)
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = T.optim.SGD(trainable, lr=0.1)
    x, y = _t(T, 4, 3, seed=118), _t(T, 4, 2, seed=119)
    losses = _fit(T, model, opt, x, y, steps=2)
    frozen_out = model[0](x)
    return [len(trainable), losses, model[0].weight.grad, frozen_out.requires_grad,
            _raised(lambda: frozen_out.sum().backward())]


def detach_and_data(T):
    """detach() sharing memory with its source (a write seen), .data writes
    not recorded, and the version counter refusal after an in-place write
    into a saved tensor."""
    x = _t(T, 3, seed=120).requires_grad_()
    y = x * 2
    d = y.detach()
    d[0] = 100.0
    z = x.exp()
    s = z.sum() * 1
    z.data.mul_(0)
    w = x.sigmoid()
    out = (w * 2).sum()
    w.add_(1)
    return [y, z, _kind_raised(lambda: out.backward()), s]


def grad_accumulation_dtype_device(T):
    """Gradients accumulated across micro-batches into float64 parameters,
    the loss scaled by the number of steps; the gradient equals the
    full-batch one."""
    nn = T.nn
    model = _init(T, nn.Linear(3, 1), 121).double()
    x, y = _t(T, 8, 3, seed=122).double(), _t(T, 8, 1, seed=123).double()
    for k in range(4):
        (nn.functional.mse_loss(model(x[2 * k:2 * k + 2]), y[2 * k:2 * k + 2]) / 4).backward()
    acc = model.weight.grad.clone()
    model.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    return [acc, T.allclose(acc, model.weight.grad), acc.dtype]


def inplace_on_leaf_refusals(T):
    """In-place ops on a leaf that requires grad, on a view of one, and under
    no_grad (allowed); the version after it."""
    w = _t(T, 3, seed=124).requires_grad_()
    a = _raised(lambda: w.add_(1))
    b = _raised(lambda: w[:2].mul_(2))
    v0 = w._version
    with T.no_grad():
        w.add_(1)
    return [a, b, w._version - v0, w, w.requires_grad, w.is_leaf]


def nondifferentiable_ops(T):
    """Gradients through ops that have none (argmax, round, comparisons): the
    result does not require grad; backward through floor is zero."""
    x = _t(T, 4, seed=125).requires_grad_()
    idx = x.argmax()
    r = x.round()
    c = x > 0
    (x.floor() * 3 + x).sum().backward()
    return [idx.requires_grad, r.requires_grad, c.requires_grad, x.grad,
            _raised(lambda: idx.float().sum().backward())]


def autograd_grad_outputs(T):
    """autograd.grad with grad_outputs for a non-scalar output, is_grads_batched
    for a Jacobian's rows, and backward of a non-scalar refused without
    a gradient."""
    x = _t(T, 3, seed=126).requires_grad_()
    y = x.sin() * 2
    v = _t(T, 3, seed=127)
    g, = T.autograd.grad(y, x, grad_outputs=v, retain_graph=True)
    jac, = T.autograd.grad(y, x, grad_outputs=T.eye(3), is_grads_batched=True,
                           retain_graph=True)
    return [g, jac, _raised(lambda: y.backward())]


def jacobian_hessian_functional(T):
    """autograd.functional.jacobian and hessian of a small function, with
    create_graph off, and vectorize=True."""
    F = T.autograd.functional
    x = _t(T, 3, seed=128)

    def f(x):
        return (x ** 2).cumsum(0) * x.sum()

    def s(x):
        return (x.sin() * x).sum()

    return [F.jacobian(f, x), F.jacobian(f, x, vectorize=True), F.hessian(s, x),
            F.vjp(f, x, T.ones(3))[1], F.jvp(f, x, T.ones(3))[1]]


def forward_ad_dual(T):
    """Forward-mode AD by dual numbers: the tangent of an MLP's output along
    an input direction, against a jvp by double backward."""
    fwAD = T.autograd.forward_ad
    model = _mlp(T, 129, (3, 4, 2))
    x, v = _t(T, 2, 3, seed=130), _t(T, 2, 3, seed=131)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, v)
        out = model(dual)
        primal, tangent = fwAD.unpack_dual(out)
    _, jvp = T.autograd.functional.jvp(model, x, v)
    return [primal, tangent, T.allclose(tangent, jvp, atol=1e-6)]


def module_hooks_training(T):
    """Forward pre-hooks, forward hooks with kwargs and full backward hooks on
    a model being trained; what they record."""
    model = _mlp(T, 132, (3, 4, 1))
    seen = []
    model[0].register_forward_pre_hook(lambda m, args: seen.append(("pre", tuple(args[0].shape))))
    model[0].register_forward_hook(lambda m, args, out: seen.append(("fwd", tuple(out.shape))))
    model[2].register_full_backward_hook(
        lambda m, gin, gout: seen.append(("bwd", tuple(gout[0].shape), gin[0] is None)))
    x, y = _t(T, 5, 3, seed=133), _t(T, 5, 1, seed=134)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    losses = _fit(T, model, opt, x, y, steps=2)
    return [seen, losses]


def cosine_warm_restarts_training(T):
    """CosineAnnealingWarmRestarts stepped with fractional epochs inside an
    epoch loop; OneCycleLR's momentum cycling of Adam's betas."""
    lin = _init(T, T.nn.Linear(2, 1), 135)
    opt = T.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    sched = T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.01)
    lrs = []
    for epoch in range(3):
        for i in range(2):
            sched.step(epoch + i / 2)
            lrs.append(round(opt.param_groups[0]["lr"], 10))
    opt2 = T.optim.Adam(lin.parameters(), lr=0.1)
    one = T.optim.lr_scheduler.OneCycleLR(opt2, max_lr=0.5, total_steps=6)
    betas = []
    for _ in range(5):
        opt2.step()
        one.step()
        betas.append([round(opt2.param_groups[0]["lr"], 10),
                      round(opt2.param_groups[0]["betas"][0], 10)])
    return [lrs, betas]


def swa_averaged_model(T):
    """AveragedModel (SWA and EMA multi_avg_fn) updated over a short run,
    SWALR's annealing, update_bn on a loader of tensors."""
    nn = T.nn
    swa = T.optim.swa_utils
    model = _init(T, nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Linear(3, 1)), 136)
    avg = swa.AveragedModel(model)
    ema = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    sched = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=2)
    x, y = _t(T, 6, 2, seed=137), _t(T, 6, 1, seed=138)
    lrs = []
    for _ in range(3):
        _fit(T, model, opt, x, y, steps=1)
        avg.update_parameters(model)
        ema.update_parameters(model)
        sched.step()
        lrs.append(round(opt.param_groups[0]["lr"], 10))
    swa.update_bn([x[:3], x[3:]], avg)
    return [lrs, avg.n_averaged, avg.module[0].weight, ema.module[2].bias,
            avg.module[1].running_mean]


# ---- more of the machinery --------------------------------------------------------------------

def grad_modes_inside_inference(T):
    """enable_grad and set_grad_enabled(True) inside inference_mode: the grad
    flag turns on, yet tensors made there stay inference tensors; no_grad
    inside inference_mode(False)."""
    x = _t(T, 2, seed=139).requires_grad_()
    out = []
    with T.inference_mode():
        with T.enable_grad():
            y = x * 2
            out += [T.is_grad_enabled(), T.is_inference_mode_enabled(), y.is_inference(),
                    y.requires_grad]
        with T.set_grad_enabled(True):
            out.append(T.is_grad_enabled())
        with T.inference_mode(False):
            with T.no_grad():
                z = x * 2
                out += [z.requires_grad, z.is_inference(), T.is_inference_mode_enabled()]
    return out


def backward_twice_and_freed_graph(T):
    """A second backward through a freed graph, retain_graph keeping it, and
    reading a Function's saved tensors after the graph was freed."""
    class Sq(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = _t(T, 3, seed=140).requires_grad_()
    y = (x.exp() * 2).sum()
    y.backward()
    first = _raised(lambda: y.backward())
    z = Sq.apply(x)
    z.sum().backward()
    second = _raised(lambda: z.sum().backward())
    w = (x * 3).sum()
    w.backward(retain_graph=True)
    w.backward()
    return [first, second, x.grad]


def grad_fn_graph_walk(T):
    """Walking grad_fn.next_functions of a small graph: the node names, the
    AccumulateGrad variables, metadata on a node, a node's pre-hook."""
    w = _t(T, 3, seed=141).requires_grad_()
    b = _t(T, 1, seed=142).requires_grad_()
    y = (w * 2 + b).sum()
    names = []

    def walk(fn, depth=0):
        if fn is None:
            return
        names.append([depth, fn.name()])
        for nxt, _ in fn.next_functions:
            walk(nxt, depth + 1)

    walk(y.grad_fn)
    acc = y.grad_fn.next_functions[0][0].next_functions[1][0]
    y.grad_fn.metadata["tag"] = 3
    seen = []
    y.grad_fn.register_prehook(lambda gouts: seen.append(gouts[0].item()))
    y.backward()
    return [names, acc.variable is b, y.grad_fn.metadata, seen, b.grad]


def multi_grad_hook(T):
    """register_multi_grad_hook over two tensors: called once per backward
    with the gradients present (None for one not reached), in 'all' mode."""
    a = _t(T, 2, seed=143).requires_grad_()
    b = _t(T, 2, seed=144).requires_grad_()
    seen = []
    T.autograd.graph.register_multi_grad_hook(
        (a, b), lambda grads: seen.append([g is None for g in grads]))
    (a * 2).sum().backward()
    (a * b).sum().backward()
    return [seen, a.grad, b.grad]


def hook_refusals(T):
    """register_hook on a tensor that does not require grad, a hook returning
    the wrong shape, retain_grad on a tensor without grad."""
    x = _t(T, 3, seed=145)
    w = _t(T, 3, seed=146).requires_grad_()
    y = w * 2
    y.register_hook(lambda g: g[:2])
    return [_raised(lambda: x.register_hook(lambda g: g)),
            _raised_head(lambda: y.sum().backward()),
            _raised(lambda: x.retain_grad())]


def full_backward_pre_hook(T):
    """register_full_backward_pre_hook scaling the output gradient of a
    layer, and a full backward hook replacing grad_input."""
    nn = T.nn
    lin = _init(T, nn.Linear(3, 2), 147)
    act = nn.Tanh()
    lin.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 10,))
    act.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 0.5,))
    x = _t(T, 4, 3, seed=148).requires_grad_()
    act(lin(x)).sum().backward()
    return [lin.weight.grad, x.grad]


def optimizer_add_param_group_refusals(T):
    """add_param_group with a parameter already in a group, a group without
    a required hyperparameter, a set of parameters; load_state_dict with
    mismatched groups."""
    a = _t(T, 2, seed=149).requires_grad_()
    b = _t(T, 2, seed=150).requires_grad_()
    opt = T.optim.SGD([a], lr=0.1)
    out = [_raised(lambda: opt.add_param_group({"params": [a]})),
           _raised(lambda: T.optim.SGD([{"params": [b]}])),
           _raised(lambda: T.optim.SGD({a, b}, lr=0.1)),
           _raised(lambda: opt.add_param_group({"params": b, "lr": 0.01}))]
    two = T.optim.SGD([a, b], lr=0.1)
    one = T.optim.SGD([a], lr=0.1)
    out.append(_raised_head(lambda: one.load_state_dict(two.state_dict())))
    out.append([len(g["params"]) for g in opt.param_groups])
    return out


def reduce_on_plateau_schedule(T):
    """ReduceLROnPlateau with patience, cooldown, threshold_mode='abs' and
    min_lr per group, over a loss sequence; its state dict."""
    p = _t(T, 2, seed=151).requires_grad_()
    q = _t(T, 2, seed=152).requires_grad_()
    opt = T.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.05}], lr=0.1)
    sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1,
                                                   threshold=0.01, threshold_mode="abs",
                                                   min_lr=[0.02, 0.01])
    lrs = []
    for loss in [1.0, 0.995, 0.99, 0.99, 0.98, 0.985, 0.99, 0.99, 0.99, 0.5]:
        sched.step(loss)
        lrs.append([g["lr"] for g in opt.param_groups])
    sd = sched.state_dict()
    return [lrs, sd["best"], sd["num_bad_epochs"], sd["cooldown_counter"],
            sched.get_last_lr()]


def grad_scaler_state(T):
    """GradScaler's state dict round trip, its disabled form (scale is the
    identity), and scale() of a list of losses."""
    s = T.amp.GradScaler("cpu", init_scale=4.0, growth_factor=3.0, backoff_factor=0.25)
    sd = s.state_dict()
    s2 = T.amp.GradScaler("cpu")
    s2.load_state_dict(sd)
    off = T.amp.GradScaler("cpu", enabled=False)
    x = _t(T, 2, seed=153)
    return [sd, s2.get_scale(), s2.get_growth_factor(), s2.get_backoff_factor(),
            off.scale(x), off.is_enabled(), s.scale([x, x * 2]), off.state_dict()]


def autocast_decorator_and_cache(T):
    """autocast as a decorator on a forward, the float16 CPU path with a
    region nested inside that turns autocast off.  (PyTorch's cast cache
    is left out: a bfloat16 region nested in a float16 one meets the
    float16 weight it cached, and PyTorch's matmul refuses the pair.)"""
    nn = T.nn
    lin = _init(T, nn.Linear(3, 2), 154)
    x = _t(T, 2, 3, seed=155)

    @T.autocast("cpu", dtype=T.bfloat16)
    def fwd(inp):
        return lin(inp)

    y = fwd(x)
    with T.autocast("cpu", dtype=T.float16):
        h = lin(x)
        with T.autocast("cpu", enabled=False):
            b = lin(x)
        dt = T.get_autocast_dtype("cpu")
    return [y.dtype, h.dtype, b.dtype, dt, y.requires_grad, T.get_autocast_dtype("cpu")]


def rnn_module_argument_refusals(T):
    """RNN with an unknown nonlinearity, dropout out of range or of the wrong
    type, a non-int hidden size; the warning for dropout with one layer."""
    nn = T.nn
    return [_raised(lambda: nn.RNN(3, 4, nonlinearity="gelu")),
            _raised(lambda: nn.LSTM(3, 4, dropout=1.5)),
            _raised(lambda: nn.GRU(3, 4, dropout="x")),
            _raised(lambda: nn.LSTM(3, 4.0)),
            _raised(lambda: nn.GRU(3, 0)),
            _warned(lambda: nn.LSTM(3, 4, dropout=0.5).dropout)]


def rnn_batch_first_hidden(T):
    """batch_first LSTM: hx keeps the (layers, N, H) layout; an unbatched
    GRU input with an unbatched hidden state; GRUCell without hx."""
    nn = T.nn
    lstm = _init(T, nn.LSTM(2, 3, batch_first=True, num_layers=2), 156)
    x = _t(T, 4, 5, 2, seed=157)
    h0, c0 = _t(T, 2, 4, 3, seed=158), _t(T, 2, 4, 3, seed=159)
    out, (h, c) = lstm(x, (h0, c0))
    gru = _init(T, nn.GRU(2, 3), 160)
    o2, h2 = gru(_t(T, 5, 2, seed=161), _t(T, 1, 3, seed=162))
    cell = _init(T, nn.GRUCell(2, 3), 163)
    h3 = cell(_t(T, 4, 2, seed=164))
    h4 = cell(_t(T, 2, seed=165))
    return [out.shape, h.shape, out[0, -1], h[1, 0], o2.shape, h2.shape, h2, h3.shape, h4]


def packed_sequence_refusals(T):
    """pack_padded_sequence with a zero length, unsorted lengths under
    enforce_sorted, lengths on the wrong device; pad_packed_sequence with a
    total_length too short."""
    rnn = T.nn.utils.rnn
    x = _t(T, 3, 4, 2, seed=166)
    packed = rnn.pack_padded_sequence(x, T.tensor([4, 3, 1]), batch_first=True)
    return [_raised(lambda: rnn.pack_padded_sequence(x, T.tensor([4, 0, 1]),
                                                     batch_first=True, enforce_sorted=False)),
            _raised(lambda: rnn.pack_padded_sequence(x, T.tensor([1, 3, 4]), batch_first=True)),
            _raised(lambda: rnn.pad_packed_sequence(packed, batch_first=True, total_length=2)),
            packed.batch_sizes, packed.data.shape]


def function_jvp_forward_ad(T):
    """A Function with a jvp used under forward-mode AD, and its vjp/backward
    under reverse mode."""
    fwAD = T.autograd.forward_ad

    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            ctx.y = y
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

        @staticmethod
        def jvp(ctx, t):
            return t * ctx.y

    x, v = _t(T, 3, seed=167), _t(T, 3, seed=168)
    with fwAD.dual_level():
        out = Exp.apply(fwAD.make_dual(x, v))
        tangent = fwAD.unpack_dual(out).tangent
    xr = x.clone().requires_grad_()
    Exp.apply(xr).sum().backward()
    return [tangent, xr.grad]


def function_apply_edge_cases(T):
    """Function.apply on no tensor requiring grad (a plain call, no grad_fn),
    on a tensor and None, returning an input unchanged (a new tensor takes
    the history), and calling forward directly refused."""
    class Ident(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, maybe):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3, None

    x = _t(T, 2, seed=169)
    a = Ident.apply(x, None)
    w = _t(T, 2, seed=170).requires_grad_()
    b = Ident.apply(w, None)
    b.sum().backward()
    return [a is x, a.grad_fn is None, b is w, b.requires_grad, w.grad,
            _raised_head(lambda: Ident()(w, None))]


def allow_mutation_on_saved(T):
    """allow_mutation_on_saved_tensors: an in-place update of a saved tensor
    inside the context keeps the original for backward."""
    x = _t(T, 3, seed=171).requires_grad_()
    with T.autograd.graph.allow_mutation_on_saved_tensors():
        h = x * 1
        y = (h * h).sum()
        h.add_(10)
        y.backward()
    return [x.grad, h]


def grad_accumulation_in_place_hooks(T):
    """Gradients accumulated in place into an existing .grad (the same tensor
    object kept), and a .grad replaced by one of another dtype refused."""
    w = _t(T, 3, seed=172).requires_grad_()
    (w * 2).sum().backward()
    g = w.grad
    (w * 3).sum().backward()
    same = g is w.grad
    bad = _raised(lambda: setattr(w, "grad", T.zeros(3, dtype=T.float64)))
    shape = _raised(lambda: setattr(w, "grad", T.zeros(4)))
    return [same, w.grad, bad, shape]



# ---- a third look: AMP op lists, named parameters, more recurrent handling --------------------

def autocast_fp32_ops(T):
    """CPU bfloat16 autocast's lists: ops that run in float32 (softmax,
    log_softmax, layer_norm, mse_loss, cross_entropy, exp... as PyTorch
    lists them), ops that promote (cat, stack, addcmul of mixed inputs), a
    conv1d and a bmm lowered; integer and float64 inputs left alone."""
    F = T.nn.functional
    x = _t(T, 2, 4, seed=176)
    w = _t(T, 3, 4, seed=177)
    with T.autocast("cpu"):
        lo = F.linear(x, w)
        res = {
            "linear": lo.dtype,
            "softmax": F.softmax(lo, -1).dtype,
            "log_softmax": F.log_softmax(lo, -1).dtype,
            "layer_norm": F.layer_norm(lo, (3,)).dtype,
            "mse": F.mse_loss(lo, _t(T, 2, 3, seed=178)).dtype,
            "ce": F.cross_entropy(lo, T.tensor([0, 2])).dtype,
            "exp": lo.exp().dtype,
            "cat": T.cat([lo, _t(T, 2, 3, seed=179)]).dtype,
            "stack": T.stack([lo, _t(T, 2, 3, seed=180)]).dtype,
            "conv1d": F.conv1d(_t(T, 1, 2, 5, seed=181), _t(T, 3, 2, 2, seed=182)).dtype,
            "bmm": T.bmm(_t(T, 2, 2, 3, seed=183), _t(T, 2, 3, 2, seed=184)).dtype,
            "int_add": (T.tensor([1, 2]) + 1).dtype,
            "double_mm": T.mm(x.double(), w.double().t()).dtype,
            "relu": F.relu(lo).dtype,
            "sum": lo.sum().dtype,
        }
    return res


def named_parameters_optimizer(T):
    """An optimizer built from model.named_parameters(): param_names kept in
    its groups and state dict, a second group by name, the state dict
    loaded into an optimizer built the same way."""
    model = _mlp(T, 185)
    decay = [(n, p) for n, p in model.named_parameters() if n.endswith("weight")]
    no_decay = [(n, p) for n, p in model.named_parameters() if n.endswith("bias")]
    opt = T.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                         {"params": no_decay, "weight_decay": 0.0}], lr=0.01)
    x, y = _t(T, 5, 4, seed=186), _t(T, 5, 2, seed=187)
    losses = _fit(T, model, opt, x, y, steps=2)
    sd = opt.state_dict()
    opt2 = T.optim.AdamW(list(model.named_parameters()), lr=0.01)
    return [losses, [g.get("param_names") for g in sd["param_groups"]],
            sorted(sd["param_groups"][0]), [g.get("param_names") for g in opt2.param_groups],
            _raised(lambda: T.optim.SGD([("a", model[0].weight), model[0].bias], lr=0.1))]


def zero_grad_and_none_grads(T):
    """Steps over parameters some of which have no gradient (skipped, no
    state made), zero_grad(set_to_none=False) on those, and Adam's state
    made only for parameters that had one."""
    a = _t(T, 2, seed=188).requires_grad_()
    b = _t(T, 2, seed=189).requires_grad_()
    opt = T.optim.Adam([a, b], lr=0.1)
    (a * 2).sum().backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
    return [a, b, len(opt.state), a.grad, b.grad, sorted(opt.state[a])]


def scaler_multiple_optimizers(T):
    """One GradScaler over two optimizers (a GAN-like pair), unscale_ on each,
    an inf in one optimizer's gradients skipping only that step."""
    nn = T.nn
    g = _init(T, nn.Linear(2, 2), 190)
    d = _init(T, nn.Linear(2, 1), 191)
    og = T.optim.SGD(g.parameters(), lr=0.1)
    od = T.optim.SGD(d.parameters(), lr=0.1)
    scaler = T.amp.GradScaler("cpu", init_scale=2.0 ** 4)
    x = _t(T, 3, 2, seed=192)
    loss_d = d(g(x).detach()).pow(2).mean()
    loss_g = -d(g(x)).mean()
    scaler.scale(loss_d).backward()
    scaler.scale(loss_g).backward()
    g.weight.grad[0, 0] = float("nan")
    scaler.unscale_(og)
    scaler.step(og)
    scaler.step(od)
    scaler.update()
    return [g.weight, d.weight, scaler.get_scale(), d.weight.grad]


def lstm_packed_bidirectional(T):
    """A bidirectional LSTM over a packed batch with an initial state given in
    the caller's order (permuted by sorted_indices and back), its outputs
    at padded positions zero."""
    nn = T.nn
    rnn = nn.utils.rnn
    lstm = _init(T, nn.LSTM(2, 3, bidirectional=True), 193)
    x = _t(T, 4, 3, 2, seed=194)
    h0, c0 = _t(T, 2, 3, 3, seed=195), _t(T, 2, 3, 3, seed=196)
    packed = rnn.pack_padded_sequence(x, T.tensor([2, 4, 3]), enforce_sorted=False)
    out, (h, c) = lstm(packed, (h0, c0))
    padded, lens = rnn.pad_packed_sequence(out, padding_value=-1.0)
    return [padded.shape, lens, padded[:, 0], h[:, 1], c[1, 2]]


def rnn_flatten_and_weights(T):
    """An RNN's flatten_parameters (a no-op here and in PyTorch on the CPU),
    all_weights' layout, _flat_weights_names, and a weight replaced through
    setattr still used by forward."""
    nn = T.nn
    gru = _init(T, nn.GRU(2, 3, num_layers=2), 197)
    gru.flatten_parameters()
    shapes = [[tuple(w.shape) for w in layer] for layer in gru.all_weights]
    names = list(gru._flat_weights_names)
    with T.no_grad():
        gru.weight_hh_l1.zero_()
    out, h = gru(_t(T, 3, 1, 2, seed=198))
    return [shapes, names, out[-1], h]


def autograd_function_in_module(T):
    """A custom Function used inside an nn.Module (a clipped-gradient
    identity), the module in a training loop, and torch.autograd.gradcheck
    of the Function in float64."""
    class ClipGrad(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, bound):
            ctx.bound = bound
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return g.clamp(-ctx.bound, ctx.bound), None

    nn = T.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 4)
            self.b = nn.Linear(4, 1)

        def forward(self, x):
            return self.b(ClipGrad.apply(self.a(x).relu(), 0.01))

    net = _init(T, Net(), 199)
    opt = T.optim.SGD(net.parameters(), lr=0.5)
    x, y = _t(T, 6, 3, seed=200), _t(T, 6, 1, seed=201)
    losses = _fit(T, net, opt, x, y)
    xd = _t(T, 3, seed=202).double().requires_grad_()
    return [losses, net.a.weight, T.autograd.gradcheck(lambda t: ClipGrad.apply(t, 10.0), (xd,))]


def inputs(T):
    return {"T": T, **{name: globals()[name] for name in _PROGRAMS}}


_PROGRAMS = [
    "inference_mode_nesting", "grad_mode_decorators", "grad_mode_generator",
    "inference_tensors_in_training", "set_grad_enabled_function", "function_multi_output",
    "function_non_tensor_outputs", "function_materialize_off", "function_setup_context",
    "function_double_backward", "function_once_differentiable", "function_mark_dirty",
    "function_wrong_gradients", "function_needs_input_grad", "straight_through_function",
    "backward_inputs_non_leaf", "backward_inputs_refusals", "retained_grad_create_graph",
    "retained_grad_accumulates", "gradient_penalty_wgan", "hessian_vector_product",
    "grad_of_grad_accumulation", "differentiable_sgd_meta", "differentiable_sgd_momentum",
    "differentiable_adaptive_optimizers", "differentiable_step_variants",
    "differentiable_optimizer_refusals",
    "optimizer_param_group_keys", "radam_checkpoint_roundtrip", "optimizer_step_hooks",
    "optimizer_state_dict_hooks", "lr_as_tensor", "maximize_and_weight_decay",
    "autocast_dtype_warnings", "autocast_cpu_op_dtypes", "autocast_training_loop",
    "custom_fwd_plain_function", "custom_fwd_function", "grad_scaler_cpu", "tensor_hooks_clip",
    "post_accumulate_grad_hook", "checkpoint_equivalence", "anomaly_and_detect",
    "saved_tensor_hooks", "lstm_hx_refusals", "pad_sequence_sides", "packed_lstm_classifier",
    "pack_sequence_roundtrip", "gru_bidirectional_tagger", "lstm_projection_states",
    "rnn_cell_loop_training", "clip_grad_utilities", "parameters_vector_and_grad_norms",
    "no_grad_eval_loop", "torch_func_grad_training", "vmap_per_sample_grads",
    "requires_grad_toggles", "detach_and_data", "grad_accumulation_dtype_device",
    "inplace_on_leaf_refusals", "nondifferentiable_ops", "autograd_grad_outputs",
    "jacobian_hessian_functional", "forward_ad_dual", "module_hooks_training",
    "cosine_warm_restarts_training", "swa_averaged_model", "grad_modes_inside_inference",
    "backward_twice_and_freed_graph", "grad_fn_graph_walk", "multi_grad_hook", "hook_refusals",
    "full_backward_pre_hook", "optimizer_add_param_group_refusals", "reduce_on_plateau_schedule",
    "grad_scaler_state", "autocast_decorator_and_cache", "rnn_module_argument_refusals",
    "rnn_batch_first_hidden", "packed_sequence_refusals", "function_jvp_forward_ad",
    "function_apply_edge_cases", "allow_mutation_on_saved", "grad_accumulation_in_place_hooks",
    "autocast_fp32_ops", "named_parameters_optimizer", "zero_grad_and_none_grads",
    "scaler_multiple_optimizers", "lstm_packed_bidirectional", "rnn_flatten_and_weights",
    "autograd_function_in_module",
]
CALLS = [name + "(T)" for name in _PROGRAMS]


def main():
    record(CALLS, inputs, describe, "training_programs9", messages=True)


if __name__ == "__main__":
    main()
