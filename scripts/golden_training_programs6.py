"""Record PyTorch's answers for a sixth round of training programs, for
tests/test_training_programs6.py, from areas the first five rounds left
out: normalizing flows built from torch.distributions' transforms, the
KL divergences and moments of many distributions, constrained parameters
through biject_to, Gaussian-process regression (cholesky, solves), the
torch.autograd.functional API and forward-mode AD, more torch.func
transforms (jacfwd, vmap's in_dims/out_dims, linearize), module
containers and state-dict surgery, the newer module hooks, EMA by the
_foreach ops, Embedding's padding_idx/max_norm and EmbeddingBag's
per-sample weights, 3-d and 1-d convolutions, style-transfer norms,
super-resolution (PixelShuffle, interpolate's modes), overlap-add by fold,
a sparse GCN, scaled_dot_product_attention's masks and MultiheadAttention's
kdim/vdim, a Fourier neural operator and other complex-valued networks,
rotary embeddings, adaptive softmax, an STFT loss, a Cox survival model,
PointNet with a Chamfer loss, RNN cells and truncated BPTT, conv-BN
fusion, CyclicLR and the other schedulers, and the multi-label losses;
then, in later batches, the autograd machinery, linear algebra and
special functions in losses, and the code around models: pre-1.0 training
code, a DataParallel script, print(model), versioned state dicts, the
errors a script meets, a user's tests, NumPy interplay, old checkpoints.

As in rounds three to five, every program takes the library as T and
builds its parameters and data from NumPy, so the test runs the very same
code on torchlike; describe() is round three's.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs6.py
writes tests/golden/training_programs6.json ([call, outcome] pairs over T)."""
import copy
import io
import math

import numpy as np

from golden_calls import record
from golden_training_programs3 import _arr, _init, describe as _describe3


def describe(r):
    """Round three's describe(), with complex tensors and numbers as their
    (real, imaginary) pairs (JSON has no complex numbers)."""
    if hasattr(r, "is_complex") and hasattr(r, "tolist") and r.is_complex():
        a = r.detach().resolve_conj()
        return ["tensor", str(r.dtype).split(".")[-1], list(r.shape),
                [a.real.tolist(), a.imag.tolist()]]
    if isinstance(r, complex):
        return ["complex", [r.real, r.imag]]
    if isinstance(r, (list, tuple)):
        return [type(r).__name__, [describe(x) for x in r]]
    if isinstance(r, dict):
        return ["dict", {str(k): describe(v) for k, v in r.items()}]
    return _describe3(r)


def _t(T, *shape, seed=0, scale=1.0):
    return T.from_numpy(_arr(*shape, seed=seed, scale=scale))


def _or_raised(fn):
    """fn()'s result, or the name of the exception it raises."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return ["raises", type(e).__name__]


# ---- distributions ---------------------------------------------------------------------------

def flow_transformed(T):
    """A one-dimensional flow as a TransformedDistribution: a learned
    affine map then a sigmoid over a Normal base, fitted to data in (0, 1)
    by maximum likelihood; LogNormal against Normal pushed through exp;
    the transforms' inverses and log-determinants."""
    D = T.distributions
    tr = D.transforms
    loc = T.zeros(1, requires_grad=True)
    log_scale = T.zeros(1, requires_grad=True)
    data = T.from_numpy(1 / (1 + np.exp(-(_arr(32, 1, seed=1) * 0.7 + 0.4))))
    opt = T.optim.Adam([loc, log_scale], lr=0.05)
    losses = []
    for _ in range(5):
        flow = D.TransformedDistribution(
            D.Normal(T.zeros(1), T.ones(1)),
            [tr.AffineTransform(loc, log_scale.exp()), tr.SigmoidTransform()])
        loss = -flow.log_prob(data).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    x = T.tensor([0.5, 1.0, 2.5])
    lognormal = D.LogNormal(T.tensor(0.3), T.tensor(0.8))
    pushed = D.TransformedDistribution(D.Normal(T.tensor(0.3), T.tensor(0.8)), tr.ExpTransform())
    comp = tr.ComposeTransform([tr.AffineTransform(1.0, 2.0), tr.TanhTransform()])
    y = comp(T.tensor([-0.3, 0.1, 0.2]))
    return [losses, loc, log_scale, lognormal.log_prob(x), pushed.log_prob(x),
            lognormal.mean, lognormal.variance, comp.inv(y),
            comp.log_abs_det_jacobian(T.tensor([-0.3, 0.1, 0.2]), y),
            flow.event_shape, comp.bijective, comp.sign]


def distribution_kls(T):
    """kl_divergence across the registered pairs a VAE or a policy uses,
    with gradients to the parameters; entropies, moments, cdf and icdf."""
    D = T.distributions
    mu = T.tensor([0.2, -0.5], requires_grad=True)
    sd = T.tensor([0.7, 1.3], requires_grad=True)
    p = D.Normal(mu, sd)
    q = D.Normal(T.zeros(2), T.ones(2))
    kl = D.kl_divergence(D.Independent(p, 1), D.Independent(q, 1))
    kl.backward()
    out = [kl, mu.grad, sd.grad]
    pairs = [
        (D.Bernoulli(probs=T.tensor([0.2, 0.7])), D.Bernoulli(logits=T.tensor([0.1, -0.4]))),
        (D.Categorical(logits=T.tensor([[1.0, 0.0, -1.0]])),
         D.Categorical(probs=T.tensor([[0.2, 0.5, 0.3]]))),
        (D.Beta(T.tensor(2.0), T.tensor(3.0)), D.Beta(T.tensor(1.5), T.tensor(1.5))),
        (D.Gamma(T.tensor(2.0), T.tensor(1.5)), D.Gamma(T.tensor(3.0), T.tensor(0.5))),
        (D.Dirichlet(T.tensor([1.0, 2.0, 3.0])), D.Dirichlet(T.tensor([2.0, 2.0, 2.0]))),
        (D.Exponential(T.tensor(2.0)), D.Exponential(T.tensor(0.5))),
        (D.Poisson(T.tensor(3.0)), D.Poisson(T.tensor(1.0))),
        (D.Laplace(T.tensor(0.0), T.tensor(1.0)), D.Laplace(T.tensor(1.0), T.tensor(2.0))),
        (D.Uniform(T.tensor(0.0), T.tensor(1.0)), D.Normal(T.tensor(0.0), T.tensor(1.0))),
        (D.MultivariateNormal(T.zeros(2), T.tensor([[2.0, 0.3], [0.3, 1.0]])),
         D.MultivariateNormal(T.ones(2), scale_tril=T.tensor([[1.0, 0.0], [0.5, 1.5]]))),
        (D.Geometric(T.tensor(0.3)), D.Geometric(T.tensor(0.6))),
        (D.Binomial(5, T.tensor(0.3)), D.Binomial(5, T.tensor(0.6))),
    ]
    for a, b in pairs:
        out.append([type(a).__name__, D.kl_divergence(a, b), _or_raised(a.entropy), a.mean,
                    a.variance])
    n = D.Normal(T.tensor(1.0), T.tensor(2.0))
    out.append([n.cdf(T.tensor([0.0, 1.5])), n.icdf(T.tensor([0.1, 0.9])),
                D.Gumbel(T.tensor(0.0), T.tensor(1.0)).log_prob(T.tensor(0.5)),
                D.StudentT(T.tensor(3.0)).log_prob(T.tensor(0.5)),
                D.VonMises(T.tensor(0.0), T.tensor(2.0)).log_prob(T.tensor(0.5)),
                D.Cauchy(T.tensor(0.0), T.tensor(1.0)).cdf(T.tensor(0.5))])
    return out


def constrained_params(T):
    """Parameters kept in their support by biject_to: a positive rate by
    softplus-free exp, a simplex by stick breaking, a covariance's
    lower-Cholesky factor; a Dirichlet-multinomial fitted by Adam."""
    D = T.distributions
    C = D.constraints
    to_pos = D.biject_to(C.positive)
    to_simplex = D.biject_to(C.simplex)
    to_chol = D.transform_to(C.lower_cholesky)
    u_rate = T.zeros(1, requires_grad=True)
    u_probs = T.zeros(2, requires_grad=True)
    u_chol = T.zeros(2, 2, requires_grad=True)
    counts = T.tensor([[3.0, 1.0, 1.0], [2.0, 2.0, 1.0], [4.0, 0.0, 1.0]])
    pts = _t(T, 16, 2, seed=4) * T.tensor([1.0, 0.5]) + T.tensor([0.3, -0.2])
    waits = T.from_numpy(np.abs(_arr(10, seed=5)) + 0.1)
    opt = T.optim.Adam([u_rate, u_probs, u_chol], lr=0.1)
    losses = []
    for _ in range(6):
        rate, probs, tril = to_pos(u_rate), to_simplex(u_probs), to_chol(u_chol)
        nll = -(D.Exponential(rate).log_prob(waits).sum()
                + D.Multinomial(5, probs=probs).log_prob(counts).sum()
                + D.MultivariateNormal(T.zeros(2), scale_tril=tril).log_prob(pts).sum())
        opt.zero_grad()
        nll.backward()
        opt.step()
        losses.append(nll.item())
    lkj = D.LKJCholesky(3, T.tensor(2.0))
    l3 = T.linalg.cholesky(T.tensor([[1.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]]))
    return [losses, to_pos(u_rate), to_simplex(u_probs), to_chol(u_chol),
            to_simplex.inv(T.tensor([0.2, 0.3, 0.5])), lkj.log_prob(l3),
            C.simplex.check(T.tensor([0.2, 0.3, 0.5])), C.positive_definite.check(l3 @ l3.T),
            str(to_simplex), str(C.interval(0.0, 1.0))]


def gp_regression(T):
    """Gaussian-process regression: an RBF kernel by cdist, hyperparameters
    through softplus, the marginal likelihood by cholesky,
    cholesky_solve and the diagonal's logs, Adam on it; the predictive
    mean and variance by solve_triangular; MultivariateNormal agrees."""
    F = T.nn.functional
    x = T.from_numpy(np.linspace(-2, 2, 12).astype(np.float32)).unsqueeze(1)
    y = T.sin(2 * x).squeeze(1) + T.from_numpy(_arr(12, seed=3) * 0.1)
    raw = T.tensor([0.0, 0.0, -1.0], requires_grad=True)   # length, signal, noise
    opt = T.optim.Adam([raw], lr=0.05)

    def kernel(a, b, ell, sig):
        return sig ** 2 * T.exp(-0.5 * T.cdist(a, b).pow(2) / ell ** 2)

    nlls = []
    for _ in range(6):
        ell, sig, noise = F.softplus(raw)
        K = kernel(x, x, ell, sig) + (noise ** 2 + 1e-4) * T.eye(12)
        L = T.linalg.cholesky(K)
        alpha = T.cholesky_solve(y.unsqueeze(1), L)
        nll = 0.5 * (y.unsqueeze(0) @ alpha).squeeze() + L.diagonal().log().sum() \
            + 6 * math.log(2 * math.pi)
        opt.zero_grad()
        nll.backward()
        opt.step()
        nlls.append(nll.item())
    with T.no_grad():
        ell, sig, noise = F.softplus(raw)
        K = kernel(x, x, ell, sig) + (noise ** 2 + 1e-4) * T.eye(12)
        L = T.linalg.cholesky(K)
        xs = T.tensor([[-1.5], [0.25], [1.8]])
        Ks = kernel(x, xs, ell, sig)
        v = T.linalg.solve_triangular(L, Ks, upper=False)
        mean = Ks.T @ T.cholesky_solve(y.unsqueeze(1), L)
        var = sig ** 2 - v.pow(2).sum(0)
        mvn = T.distributions.MultivariateNormal(T.zeros(12), scale_tril=L)
    return [nlls, raw, mean.squeeze(1), var, -mvn.log_prob(y), T.logdet(K),
            T.linalg.eigvalsh(K)[:3]]


# ---- differentiation APIs --------------------------------------------------------------------

def autograd_functional(T):
    """torch.autograd.functional on a small network's loss: jacobian (plain
    and vectorized), hessian, vjp, jvp, hvp, vhp; a Hessian-vector product
    by double backward agrees."""
    AF = T.autograd.functional
    W = _t(T, 3, 4, seed=1, scale=0.5)
    x0 = _t(T, 4, seed=2)

    def net(x):
        return T.tanh(W @ x)

    def loss(x):
        return (net(x) ** 2).sum() + x.pow(3).sum() / 3

    v = _t(T, 4, seed=3)
    u = _t(T, 3, seed=4)
    out = [AF.jacobian(net, x0), AF.jacobian(net, x0, vectorize=True), AF.hessian(loss, x0),
           AF.vjp(net, x0, u), AF.jvp(net, x0, v), AF.hvp(loss, x0, v), AF.vhp(loss, x0, v)]
    x = x0.clone().requires_grad_(True)
    (g,) = T.autograd.grad(loss(x), x, create_graph=True)
    (hv,) = T.autograd.grad(g @ v, x)
    out.append(hv)
    J2 = AF.jacobian(lambda a, b: (a * b).sum(0), (x0.unsqueeze(0).repeat(2, 1), v),
                     create_graph=False)
    out.append(list(J2))
    return out


def forward_ad(T):
    """Forward-mode AD with dual numbers through an MLP: the tangent of the
    output is the JVP (checked against torch.func.jvp and a finite
    difference), unpack_dual's named fields."""
    fwAD = T.autograd.forward_ad
    nn = T.nn
    model = _init(T, nn.Sequential(nn.Linear(3, 5), nn.Softplus(), nn.Linear(5, 2)), 1)
    x = _t(T, 4, 3, seed=2)
    tangent = _t(T, 4, 3, seed=3)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, tangent)
        out = model(dual)
        unpacked = fwAD.unpack_dual(out)
        primal, tan = unpacked.primal, unpacked.tangent
        y = fwAD.unpack_dual(T.sin(dual) * dual.exp()).tangent
    _, jvp = T.func.jvp(model, (x,), (tangent,))
    eps = 1e-3
    with T.no_grad():
        fd = (model(x + eps * tangent) - model(x - eps * tangent)) / (2 * eps)
    return [primal, tan, (tan - jvp).abs().max() < 1e-5, (tan - fd).abs().max() < 1e-2, y,
            type(unpacked).__name__]


def func_transforms(T):
    """torch.func beyond per-sample gradients: jacfwd and jacrev with
    argnums, has_aux, vmap with in_dims/out_dims and chunk_size, batched
    Jacobians by vmap(jacrev), grad_and_value, hessian over a model's
    parameters by functional_call, linearize."""
    tf = T.func
    nn = T.nn
    model = _init(T, nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1)), 2)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = _t(T, 5, 2, seed=3)
    y = _t(T, 5, 1, seed=4)

    def f(a, b):
        return T.sin(a) * b.sum(), a.norm()

    a, b = _t(T, 3, seed=5), _t(T, 2, seed=6)
    ja, aux = tf.jacrev(f, argnums=0, has_aux=True)(a, b)
    jab = tf.jacfwd(f, argnums=(0, 1), has_aux=True)(a, b)[0]
    batched = tf.vmap(tf.jacrev(lambda p: model(p)), in_dims=0)(x)
    swapped = tf.vmap(lambda r, s: r * s, in_dims=(1, None), out_dims=1, chunk_size=2)(
        x, T.tensor(2.0))

    def loss(p, xb, yb):
        return ((tf.functional_call(model, p, (xb,)) - yb) ** 2).mean()

    g, val = tf.grad_and_value(loss)(params, x, y)
    w_only = {"2.weight": params["2.weight"]}
    hess = tf.hessian(lambda w: loss({**params, **w}, x, y))(w_only)
    out, jvp_fn = tf.linearize(lambda p: T.tanh(p * 2), a)
    return [ja, aux, list(jab), batched, list(batched.shape), swapped, g["0.weight"], val,
            hess["2.weight"]["2.weight"], out, jvp_fn(T.ones(3))]


# ---- modules and their machinery -------------------------------------------------------------

def module_containers(T):
    """A multi-task model with a ModuleDict of heads, a ParameterDict of
    task temperatures and a ParameterList of prompt vectors, a
    non-persistent buffer; apply() initialisation, named_modules with
    prefixes, state-dict surgery with strict=False, get_submodule,
    get_parameter, deleting and replacing a child."""
    nn = T.nn
    F = nn.functional

    class MultiTask(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(nn.Linear(3, 6), nn.ReLU())
            self.heads = nn.ModuleDict({"cls": nn.Linear(6, 3), "reg": nn.Linear(6, 1)})
            self.temps = nn.ParameterDict({"cls": nn.Parameter(T.ones(1))})
            self.prompts = nn.ParameterList([nn.Parameter(T.zeros(3)) for _ in range(2)])
            self.register_buffer("steps", T.zeros((), dtype=T.long))
            self.register_buffer("cache", T.zeros(2), persistent=False)

        def forward(self, x):
            h = self.trunk(x + self.prompts[0] + self.prompts[1])
            return self.heads["cls"](h) / self.temps["cls"], self.heads["reg"](h).squeeze(1)

    model = MultiTask()
    counter = [0]

    def init(m):
        if isinstance(m, nn.Linear):
            counter[0] += 1
            rng = np.random.default_rng(counter[0])
            with T.no_grad():
                m.weight.copy_(T.from_numpy(rng.standard_normal(tuple(m.weight.shape))
                                            .astype(np.float32) * 0.4))
                nn.init.constant_(m.bias, 0.05)

    model.apply(init)
    x = _t(T, 6, 3, seed=7)
    yc = T.tensor([0, 1, 2, 0, 1, 2])
    yr = _t(T, 6, seed=8)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(3):
        logits, reg = model(x)
        loss = F.cross_entropy(logits, yc) + F.mse_loss(reg, yr)
        opt.zero_grad()
        loss.backward()
        opt.step()
        model.steps += 1
        losses.append(loss.item())
    sd = model.state_dict()
    names = [n for n, _ in model.named_modules(prefix="net")]
    del sd["heads.reg.bias"]
    sd["extra.weight"] = T.zeros(1)
    fresh = MultiTask()
    res = fresh.load_state_dict(sd, strict=False)
    fresh.heads["aux"] = nn.Identity()
    del fresh.heads["reg"]
    return [losses, list(model.state_dict().keys()), names, sorted(res.missing_keys),
            sorted(res.unexpected_keys), fresh.prompts[1], fresh.steps,
            str(model.get_submodule("heads.cls")), model.get_parameter("temps.cls"),
            list(fresh.heads.keys()), len(list(model.buffers())),
            [n for n, _ in model.named_parameters(prefix="m", recurse=True)][:4],
            str(model.prompts)]


def hooks_kwargs(T):
    """The newer hooks: forward pre-hooks and forward hooks with kwargs (one
    rewriting a keyword argument), a full backward pre-hook scaling the
    incoming gradient, state-dict post-hooks and load pre/post hooks, a
    gradient hook after accumulation stepping an optimizer per parameter,
    and a global forward hook."""
    nn = T.nn
    log = []

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)

        def forward(self, x, scale=1.0):
            return self.lin(x) * scale

    m = _init(T, Scaled(), 1)

    def pre(mod, args, kwargs):
        log.append(["pre", sorted(kwargs)])
        return args, {**kwargs, "scale": 2.0}

    def post(mod, args, kwargs, out):
        log.append(["post", kwargs["scale"]])
        return out + 1

    def bpre(mod, grad_out):
        log.append(["bpre", list(grad_out[0].shape)])
        return (grad_out[0] * 0.5,)

    h1 = m.register_forward_pre_hook(pre, with_kwargs=True)
    h2 = m.register_forward_hook(post, with_kwargs=True)
    h3 = m.register_full_backward_pre_hook(bpre)
    x = _t(T, 4, 3, seed=2)
    y = m(x, scale=3.0)
    y.sum().backward()
    grad_w = m.lin.weight.grad.clone()
    for h in (h1, h2, h3):
        h.remove()
    plain = m(x)

    def sd_post(mod, sd, prefix, local_metadata):
        log.append(["sd", prefix, sorted(sd)])
        sd[prefix + "tag"] = T.tensor(7)

    def load_pre(mod, sd, prefix, local_metadata, strict, missing, unexpected, errors):
        log.append(["load_pre", prefix])
        sd.pop(prefix + "tag", None)

    def load_post(mod, incompatible):
        log.append(["load_post", list(incompatible.missing_keys)])

    m.register_state_dict_post_hook(sd_post)
    m.register_load_state_dict_pre_hook(load_pre)
    m.register_load_state_dict_post_hook(load_post)
    sd = m.state_dict()
    m.load_state_dict(sd)
    net = _init(T, nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)), 3)
    opts = {p: T.optim.SGD([p], lr=0.1) for p in net.parameters()}

    def step(p):
        opts[p].step()
        opts[p].zero_grad()
        log.append(["acc", list(p.shape)])

    for p in net.parameters():
        p.register_post_accumulate_grad_hook(step)
    net(x).pow(2).mean().backward()
    seen = []
    g = nn.modules.module.register_module_forward_hook(
        lambda mod, inp, out: seen.append(type(mod).__name__))
    net(x)
    g.remove()
    net(x)
    return [log, y, grad_w, plain, sorted(sd), net[0].weight, net[2].bias,
            [p.grad for p in net.parameters()], seen]


def foreach_ema(T):
    """An exponential moving average of a model's weights by the _foreach
    ops (lerp_, mul_/add_ with alpha, a decay warmup), the same by a loop,
    AveragedModel with get_ema_multi_avg_fn, and _foreach_norm for the
    gradient norm."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Sequential(nn.Linear(3, 6), nn.GELU(), nn.Linear(6, 2)), 4)
    ema = copy.deepcopy(model)
    loop = copy.deepcopy(model)
    swa = T.optim.swa_utils.AveragedModel(
        model, multi_avg_fn=T.optim.swa_utils.get_ema_multi_avg_fn(0.9))
    opt = T.optim.Adam(model.parameters(), lr=0.01)
    x, y = _t(T, 8, 3, seed=5), _t(T, 8, 2, seed=6)
    norms = []
    for step in range(5):
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        grads = [p.grad for p in model.parameters()]
        norms.append(T.stack(T._foreach_norm(grads)).tolist())
        opt.step()
        decay = min(0.9, (1 + step) / (10 + step))
        with T.no_grad():
            ep = list(ema.parameters())
            mp = list(model.parameters())
            if step % 2:
                T._foreach_lerp_(ep, mp, 1 - decay)
            else:
                T._foreach_mul_(ep, decay)
                T._foreach_add_(ep, mp, alpha=1 - decay)
            for a, b in zip(loop.parameters(), model.parameters()):
                a.mul_(decay).add_(b, alpha=1 - decay)
        swa.update_parameters(model)
    diffs = [(a - b).abs().max().item() < 1e-6 for a, b in zip(ema.parameters(),
                                                               loop.parameters())]
    sq = T._foreach_sqrt(T._foreach_abs([T.tensor([-4.0, 9.0]), T.tensor([16.0])]))
    return [norms, diffs, ema[0].weight, swa.module[2].bias, swa.n_averaged, sq,
            T._foreach_maximum([T.tensor([1.0, 5.0])], [T.tensor([3.0, 2.0])])]


def embeddings(T):
    """Embedding with padding_idx (no gradient to the pad row), max_norm
    (rows renormalised in place when looked up), scale_grad_by_freq;
    EmbeddingBag with offsets, include_last_offset, per_sample_weights,
    mode='max' and padding_idx; from_pretrained(freeze)."""
    nn = T.nn
    F = nn.functional
    w = _arr(6, 4, seed=1) * 2
    emb = nn.Embedding(6, 4, padding_idx=0)
    with T.no_grad():
        emb.weight.copy_(T.from_numpy(w))
    ids = T.tensor([[0, 2, 3], [3, 3, 0]])
    emb(ids).pow(2).sum().backward()
    pad_grad = emb.weight.grad[0]
    freq = nn.Embedding(6, 4, scale_grad_by_freq=True)
    with T.no_grad():
        freq.weight.copy_(T.from_numpy(w))
    freq(ids).sum().backward()
    capped = nn.Embedding(6, 4, max_norm=1.0)
    with T.no_grad():
        capped.weight.copy_(T.from_numpy(w))
    looked = capped(T.tensor([1, 2]))
    bag = nn.EmbeddingBag(6, 4, mode="sum", padding_idx=5)
    with T.no_grad():
        bag.weight.copy_(T.from_numpy(w))
    flat = T.tensor([1, 2, 5, 4, 3, 0])
    offsets = T.tensor([0, 2, 3])
    psw = T.tensor([0.5, 1.0, 2.0, 1.5, -1.0, 0.3], requires_grad=True)
    out = bag(flat, offsets, per_sample_weights=psw)
    out.pow(2).sum().backward()
    mx = F.embedding_bag(flat, T.from_numpy(w), T.tensor([0, 2, 4, 6]), mode="max",
                         include_last_offset=True)
    mean = F.embedding_bag(T.tensor([[1, 2], [3, 4]]), T.from_numpy(w), mode="mean")
    pre = nn.Embedding.from_pretrained(T.from_numpy(w), freeze=True, padding_idx=1)
    return [pad_grad, emb.weight.grad[3], freq.weight.grad, looked, capped.weight[:3],
            out, psw.grad, bag.weight.grad, mx, mean, pre.weight.requires_grad,
            pre.padding_idx, str(bag), str(capped)]


# ---- convolutions and images -----------------------------------------------------------------

def video_conv3d(T):
    """A small video classifier: Conv3d with padding and stride, BatchNorm3d,
    MaxPool3d, AdaptiveAvgPool3d; plus a 1-d branch with padding='same',
    dilation and a depthwise (groups) convolution, ConvTranspose1d."""
    nn = T.nn
    F = nn.functional
    video = _init(T, nn.Sequential(
        nn.Conv3d(2, 4, 3, padding=1, stride=(1, 2, 2), bias=False), nn.BatchNorm3d(4), nn.ReLU(),
        nn.MaxPool3d((1, 2, 2)), nn.Conv3d(4, 4, (2, 1, 1)), nn.AdaptiveAvgPool3d(1),
        nn.Flatten(), nn.Linear(4, 3)), 1)
    audio = _init(T, nn.Sequential(
        nn.Conv1d(3, 6, 3, padding="same", dilation=2), nn.ReLU(),
        nn.Conv1d(6, 6, 5, groups=6, padding=2), nn.ConvTranspose1d(6, 3, 4, stride=2,
                                                                      padding=1),
        nn.AdaptiveMaxPool1d(4), nn.Flatten(), nn.Linear(12, 3)), 2)
    clips = _t(T, 2, 2, 3, 8, 8, seed=3)
    wave = _t(T, 2, 3, 10, seed=4)
    labels = T.tensor([2, 0])
    opt = T.optim.Adam(list(video.parameters()) + list(audio.parameters()), lr=0.01)
    losses = []
    for _ in range(3):
        loss = F.cross_entropy(video(clips) + audio(wave), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    video.eval()
    return [losses, video(clips), video[1].running_mean, video[1].num_batches_tracked,
            audio[2].weight.grad[:2], F.avg_pool3d(clips, 2, ceil_mode=True).shape,
            F.max_pool1d(wave, 3, stride=2, return_indices=True)[1][0, 0]]


def style_norms(T):
    """Style-transfer layers: InstanceNorm2d with affine and running
    statistics, GroupNorm, LayerNorm over (C, H, W) without bias, AdaIN by
    hand, a Gram-matrix style loss, LocalResponseNorm; trained two steps,
    then evaluated."""
    nn = T.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect")
            self.inorm = nn.InstanceNorm2d(4, affine=True, track_running_stats=True)
            self.gn = nn.GroupNorm(2, 4)
            self.ln = nn.LayerNorm([4, 6, 6], bias=False)
            self.lrn = nn.LocalResponseNorm(3)
            self.c2 = nn.Conv2d(4, 3, 1)

        def forward(self, x, style):
            h = F.relu(self.inorm(self.c1(x)))
            s = self.c1(style)
            mu, sd = s.mean((2, 3), keepdim=True), s.std((2, 3), keepdim=True) + 1e-5
            h = F.instance_norm(h) * sd + mu
            return self.c2(self.lrn(self.ln(self.gn(h)))), h

    def gram(f):
        b, c, hh, ww = f.shape
        f = f.flatten(2)
        return f @ f.transpose(1, 2) / (c * hh * ww)

    net = _init(T, Net(), 3)
    x, style = _t(T, 2, 3, 6, 6, seed=1), _t(T, 2, 3, 6, 6, seed=2)
    opt = T.optim.Adam(net.parameters(), lr=0.01)
    losses = []
    for _ in range(2):
        out, feat = net(x, style)
        loss = F.mse_loss(out, x) + 10 * F.mse_loss(gram(feat), gram(net.c1(style)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    net.eval()
    return [losses, net.inorm.running_mean, net.inorm.running_var, net(x, style)[0][0, 0],
            net.gn.weight.grad, net.ln.weight.grad[0, 0], str(net.inorm), str(net.ln),
            F.group_norm(x, 3)[1, 2, 0]]


def super_resolution(T):
    """An ESPCN: convolutions then PixelShuffle, trained against a target
    made by bicubic interpolation; PixelUnshuffle undoes it; interpolate's
    modes (nearest, nearest-exact, bilinear with and without
    align_corners, antialias, bicubic, area, trilinear) and their
    gradients."""
    nn = T.nn
    F = nn.functional
    net = _init(T, nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.Tanh(),
                                 nn.Conv2d(8, 4, 3, padding=1), nn.PixelShuffle(2)), 1)
    lo = _t(T, 2, 1, 5, 5, seed=2)
    hi = F.interpolate(lo, scale_factor=2, mode="bicubic", align_corners=False)
    opt = T.optim.Adam(net.parameters(), lr=0.01)
    losses = []
    for _ in range(3):
        loss = F.l1_loss(net(lo), hi)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    img = _t(T, 1, 2, 5, 7, seed=3).requires_grad_(True)
    outs = []
    for kw in [dict(size=(8, 9), mode="nearest"), dict(size=(8, 9), mode="nearest-exact"),
               dict(scale_factor=1.5, mode="bilinear"),
               dict(size=(3, 4), mode="bilinear", align_corners=True),
               dict(size=(3, 4), mode="bilinear", antialias=True),
               dict(size=(4, 5), mode="bicubic", align_corners=True),
               dict(size=(2, 3), mode="area"),
               dict(scale_factor=(0.7, 1.3), mode="bilinear", recompute_scale_factor=True)]:
        o = F.interpolate(img, **kw)
        (g,) = T.autograd.grad((o * o).sum(), img)
        outs.append([list(o.shape), o[0, 1, 1], g[0, 0, 2]])
    vol = _t(T, 1, 1, 3, 4, 4, seed=4)
    tri = F.interpolate(vol, scale_factor=(2, 1.5, 1), mode="trilinear")
    lin = F.interpolate(_t(T, 1, 2, 5, seed=5), size=8, mode="linear", align_corners=False)
    shuffled = nn.PixelUnshuffle(2)(net(lo))
    return [losses, outs, tri[0, 0, 3], lin, list(shuffled.shape),
            nn.Upsample(scale_factor=2, mode="nearest")(lo)[0, 0, 1]]


def patch_fold(T):
    """Patch-based denoising: overlapping patches by F.unfold, a linear
    denoiser on each, overlap-add by F.fold divided by the fold of ones;
    Tensor.unfold framing a signal and the frames added back."""
    nn = T.nn
    F = nn.functional
    clean = T.from_numpy(np.sin(np.linspace(0, 6, 64)).reshape(1, 1, 8, 8)
                         .astype(np.float32))
    noisy = clean + _t(T, 1, 1, 8, 8, seed=1, scale=0.2)
    den = _init(T, nn.Linear(9, 9), 2, 0.1)
    opt = T.optim.Adam(den.parameters(), lr=0.02)
    ones = F.fold(F.unfold(T.ones(1, 1, 8, 8), 3, padding=1, stride=1), (8, 8), 3, padding=1)
    losses = []
    for _ in range(4):
        cols = F.unfold(noisy, kernel_size=3, padding=1)             # (1, 9, 64)
        out = F.fold(den(cols.transpose(1, 2)).transpose(1, 2), (8, 8), 3, padding=1) / ones
        loss = F.mse_loss(out, clean)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    sig = _t(T, 2, 20, seed=3)
    frames = sig.unfold(-1, 6, 3)                                     # (2, 5, 6)
    back = F.fold(frames.transpose(1, 2), (1, 18), (1, 6), stride=(1, 3))
    strided = F.unfold(_t(T, 2, 3, 7, 6, seed=4), (2, 3), dilation=(2, 1), stride=(2, 2))
    nn_fold = nn.Fold((5, 5), 2, stride=1)(T.arange(128.0).reshape(1, 8, 16) * 0.1)
    return [losses, ones[0, 0, 0], list(frames.shape), back[:, 0, 0], strided[1, 5],
            nn_fold[0, 0], den.bias]


def sparse_gcn(T):
    """A two-layer GCN with a sparse COO adjacency: coalesced duplicates,
    symmetric degree normalisation, torch.sparse.mm with gradients to the
    dense features and weights; sparse sums, a CSR copy's product."""
    nn = T.nn
    F = nn.functional
    src = [0, 1, 1, 2, 3, 4, 0, 2, 2]
    dst = [1, 0, 2, 1, 4, 3, 0, 2, 2]
    n = 5
    idx = T.tensor([src + list(range(n)), dst + list(range(n))])
    adj = T.sparse_coo_tensor(idx, T.ones(len(src) + n), (n, n)).coalesce()
    deg = T.sparse.sum(adj, 1).to_dense()
    dinv = deg.pow(-0.5)
    vals = adj.values() * dinv[adj.indices()[0]] * dinv[adj.indices()[1]]
    A = T.sparse_coo_tensor(adj.indices(), vals, (n, n))
    w1 = nn.Parameter(_t(T, 3, 4, seed=1, scale=0.5))
    w2 = nn.Parameter(_t(T, 4, 2, seed=2, scale=0.5))
    x = _t(T, n, 3, seed=3).requires_grad_(True)
    y = T.tensor([0, 1, 1, 0, 0])
    opt = T.optim.Adam([w1, w2], lr=0.05)
    losses = []
    for _ in range(4):
        h = F.relu(T.sparse.mm(A, x @ w1))
        loss = F.cross_entropy(T.sparse.mm(A, h @ w2), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    csr = A.to_sparse_csr()
    return [losses, adj.indices(), adj.values(), deg, x.grad, w1, (csr @ T.ones(n, 1)),
            adj.is_coalesced(), A.to_dense().sum(), T.sparse.sum(A).item(), csr.crow_indices(),
            str(adj.layout), adj._nnz()]


# ---- attention -------------------------------------------------------------------------------

def sdpa_masks(T):
    """scaled_dot_product_attention with a boolean mask, an additive float
    mask, is_causal, an explicit scale and grouped-query heads, each with
    the hand-written attention it replaces; MultiheadAttention with
    kdim/vdim, add_bias_kv, add_zero_attn, per-head weights and a float
    key_padding_mask, trained a step."""
    nn = T.nn
    F = nn.functional
    q = _t(T, 2, 2, 4, 3, seed=1)
    k = _t(T, 2, 2, 5, 3, seed=2)
    v = _t(T, 2, 2, 5, 3, seed=3)
    keep = T.from_numpy(np.random.default_rng(4).random((4, 5)) > 0.3)
    keep[:, 0] = True
    add = _t(T, 4, 5, seed=5)

    def manual(q, k, v, bias, scale):
        return T.softmax(q @ k.transpose(-2, -1) * scale + bias, -1) @ v

    s = 1 / math.sqrt(3)
    neg = T.zeros(4, 5).masked_fill(~keep, float("-inf"))
    causal = T.ones(4, 4, dtype=T.bool).tril()
    out = [F.scaled_dot_product_attention(q, k, v, attn_mask=keep),
           (F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
            - manual(q, k, v, neg, s)).abs().max() < 1e-5,
           F.scaled_dot_product_attention(q, k, v, attn_mask=add, scale=0.3),
           F.scaled_dot_product_attention(q, q, q, is_causal=True)[1, 0],
           (F.scaled_dot_product_attention(q, q, q, is_causal=True)
            - F.scaled_dot_product_attention(q, q, q, attn_mask=causal)).abs().max() < 1e-6]
    qg = _t(T, 1, 4, 3, 2, seed=6)
    kg = _t(T, 1, 2, 3, 2, seed=7)
    out.append(F.scaled_dot_product_attention(qg, kg, kg, enable_gqa=True)[0, 3])
    mha = _init(T, nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True,
                                         add_zero_attn=True, batch_first=True), 8)
    query = _t(T, 2, 3, 4, seed=9)
    key = _t(T, 2, 6, 3, seed=10)
    value = _t(T, 2, 6, 5, seed=11)
    pad = T.zeros(2, 6)
    pad[1, 4:] = float("-inf")
    att, w = mha(query, key, value, key_padding_mask=pad, average_attn_weights=False)
    opt = T.optim.SGD(mha.parameters(), lr=0.1)
    att.pow(2).mean().backward()
    grads = [mha.q_proj_weight.grad[0], mha.bias_k.grad, mha.v_proj_weight.grad[1]]
    opt.step()
    att2, w2 = mha(query, key, value, key_padding_mask=pad)
    out += [att, list(w.shape), w[1, 0], grads, att2[0], list(w2.shape),
            sorted(n for n, _ in mha.named_parameters())]
    return out


# ---- complex-valued networks -----------------------------------------------------------------

def fourier_operator(T):
    """A 1-d Fourier neural operator layer: rfft, a complex weight (a
    complex Parameter) on the low modes by einsum, irfft, plus a pointwise
    Conv1d; Adam on complex and real parameters together, fitting an
    antiderivative operator."""
    nn = T.nn
    F = nn.functional

    class SpectralConv(nn.Module):
        def __init__(self, c, modes):
            super().__init__()
            self.modes = modes
            rng = np.random.default_rng(1)
            w = (rng.standard_normal((c, c, modes)) + 1j * rng.standard_normal((c, c, modes)))
            self.w = nn.Parameter(T.from_numpy((w * 0.2).astype(np.complex64)))

        def forward(self, x):
            xf = T.fft.rfft(x)
            out = T.zeros(x.shape[0], x.shape[1], xf.shape[-1], dtype=T.cfloat)
            out[..., :self.modes] = T.einsum("bim,iom->bom", xf[..., :self.modes], self.w)
            return T.fft.irfft(out, n=x.shape[-1])

    class FNO(nn.Module):
        def __init__(self):
            super().__init__()
            self.lift = nn.Conv1d(1, 3, 1)
            self.spec = SpectralConv(3, 4)
            self.point = nn.Conv1d(3, 3, 1)
            self.proj = nn.Conv1d(3, 1, 1)

        def forward(self, x):
            h = self.lift(x)
            h = F.gelu(self.spec(h) + self.point(h))
            return self.proj(h)

    model = _init(T, FNO(), 2)
    grid = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    xs = np.stack([np.sin(k * grid) for k in (1, 2, 3)])[:, None].astype(np.float32)
    ys = np.stack([-np.cos(k * grid) / k for k in (1, 2, 3)])[:, None].astype(np.float32)
    x, y = T.from_numpy(xs), T.from_numpy(ys)
    opt = T.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(4):
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    st = opt.state[model.spec.w]
    return [losses, model.spec.w[0, 1], model.spec.w.grad[1, 2], st["exp_avg"][0, 0],
            st["exp_avg_sq"][0, 0], model.lift.weight.grad.flatten(), str(model.spec.w.dtype)]


def complex_net(T):
    """A complex-valued MLP on a signal's spectrum: complex Linear layers
    (dtype=cfloat), a modReLU by abs and angle, a real loss on the
    magnitude and l1_loss on the complex outputs (their distance's
    modulus), SGD with momentum on complex weights, a complex Conv1d;
    view_as_real and
    polar round trips, complex gradients (conjugate Wirtinger)."""
    nn = T.nn
    F = nn.functional

    class ModReLU(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.b = nn.Parameter(T.full((n,), -0.1))

        def forward(self, z):
            return T.polar(F.relu(z.abs() + self.b), z.angle())

    model = nn.Sequential(nn.Linear(5, 6, dtype=T.cfloat), ModReLU(6),
                          nn.Linear(6, 2, dtype=T.cfloat))
    rng = np.random.default_rng(3)
    with T.no_grad():
        for p in model.parameters():
            if p.is_complex():
                p.copy_(T.from_numpy((0.4 * (rng.standard_normal(p.shape)
                                             + 1j * rng.standard_normal(p.shape)))
                                     .astype(np.complex64)))
    sig = _t(T, 4, 8, seed=4)
    z = T.fft.fft(sig)[:, :5]
    target = T.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])
    opt = T.optim.SGD(model.parameters(), lr=2e-4, momentum=0.9)
    losses = []
    for _ in range(3):
        out = model(z)
        loss = F.mse_loss(out.abs(), target) + F.l1_loss(out, target.to(T.cfloat) * 1j)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    cconv = nn.Conv1d(1, 2, 3, padding=1, dtype=T.cfloat)     # a complex CNN layer
    with T.no_grad():
        for p in cconv.parameters():
            p.copy_(T.from_numpy((0.3 * (rng.standard_normal(p.shape)
                                         + 1j * rng.standard_normal(p.shape))).astype(np.complex64)))
    feat = cconv(z.unsqueeze(1))
    feat.abs().pow(2).mean().backward()
    w = model[0].weight
    zz = T.tensor([1 + 2j, -0.5 + 0.3j], requires_grad=True)
    (zz * zz.conj() + zz.real * 2j).abs().sum().backward()
    return [losses, w[0, :2], w.grad[1, :2], T.view_as_real(model[2].bias),
            model[1].b.grad, zz.grad, T.view_as_complex(T.view_as_real(z))[0, 1],
            (z * 1j).imag[1], T.sgn(z[0, :2]), T.linalg.vector_norm(z, dim=1), feat[1, 0],
            cconv.weight.grad[1, 0], cconv.bias.grad]


def rotary_attention(T):
    """A causal attention block with rotary position embeddings built the
    way LLaMA-style code builds them: frequencies by outer, torch.polar,
    view_as_complex on pairs, multiply, view_as_real; RMSNorm; trained two
    steps on next-token prediction."""
    nn = T.nn
    F = nn.functional
    d, h, L, V = 8, 2, 6, 11
    hd = d // h
    freqs = 1.0 / (10000 ** (T.arange(0, hd, 2).float() / hd))
    cis = T.polar(T.ones(L, hd // 2), T.outer(T.arange(L).float(), freqs))

    def rope(x):                                  # (B, L, H, hd)
        xc = T.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return T.view_as_real(xc * cis.view(1, L, 1, hd // 2)).flatten(3).type_as(x)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, d)
            self.norm = nn.RMSNorm(d, eps=1e-6)
            self.qkv = nn.Linear(d, 3 * d, bias=False)
            self.out = nn.Linear(d, d, bias=False)
            self.head = nn.Linear(d, V, bias=False)

        def forward(self, ids):
            x = self.emb(ids)
            B = x.shape[0]
            q, k, v = self.qkv(self.norm(x)).view(B, L, 3, h, hd).unbind(2)
            q, k = rope(q), rope(k)
            a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                               v.transpose(1, 2), is_causal=True)
            x = x + self.out(a.transpose(1, 2).reshape(B, L, d))
            return self.head(x)

    model = _init(T, Block(), 5)
    ids = T.from_numpy(np.random.default_rng(6).integers(0, V, (3, L + 1)))
    opt = T.optim.AdamW(model.parameters(), lr=0.01)
    losses = []
    for _ in range(3):
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, V), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, cis[2], model.norm.weight.grad, model.qkv.weight.grad[0],
            rope(_t(T, 1, L, 1, hd, seed=7))[0, 3, 0]]


# ---- language and sequence models ------------------------------------------------------------

def adaptive_softmax(T):
    """A language model head by nn.AdaptiveLogSoftmaxWithLoss (a head and
    two tail clusters, div_value), trained a few steps; its log_prob rows
    sum to one, predict agrees with log_prob's argmax."""
    nn = T.nn
    asm = _init(T, nn.AdaptiveLogSoftmaxWithLoss(6, 20, cutoffs=[5, 12], div_value=2.0), 1)
    enc = _init(T, nn.Linear(4, 6), 2)
    x = _t(T, 10, 4, seed=3)
    y = T.tensor([0, 3, 7, 19, 12, 5, 4, 11, 15, 1])
    opt = T.optim.Adam(list(asm.parameters()) + list(enc.parameters()), lr=0.02)
    losses = []
    for _ in range(4):
        res = asm(enc(x), y)
        opt.zero_grad()
        res.loss.backward()
        opt.step()
        losses.append(res.loss.item())
    with T.no_grad():
        h = enc(x)
        lp = asm.log_prob(h)
        pred = asm.predict(h)
    return [losses, res.output, lp.exp().sum(1), (pred == lp.argmax(1)).all(), lp[2, :6],
            [n for n, _ in asm.named_parameters()], type(res).__name__, list(res._fields)]


def stft_loss(T):
    """A multi-resolution STFT loss (spectral convergence and log
    magnitude, log1p-compressed) training a small 1-d convolutional enhancer; stft with a
    Hann window, center and onesided, istft reconstructs the signal."""
    nn = T.nn
    F = nn.functional
    t = np.arange(256) / 64.0
    clean = T.from_numpy((np.sin(2 * np.pi * 3 * t) + 0.5 * np.sin(2 * np.pi * 7 * t))
                         .astype(np.float32)).unsqueeze(0)
    noisy = clean + _t(T, 1, 256, seed=1, scale=0.3)
    model = _init(T, nn.Sequential(nn.Conv1d(1, 4, 9, padding=4), nn.Tanh(),
                                   nn.Conv1d(4, 1, 9, padding=4)), 2, 0.2)

    def mag(x, n):
        s = T.stft(x, n_fft=n, hop_length=n // 4, window=T.hann_window(n), return_complex=True)
        return s.abs()

    def loss_fn(y, x):
        total = 0
        for n in (32, 64):
            my, mx = mag(y, n), mag(x, n)
            total = total + T.linalg.norm(mx - my) / T.linalg.norm(mx) \
                + F.l1_loss(my.log1p(), mx.log1p())
        return total

    opt = T.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(3):
        loss = loss_fn(model(noisy.unsqueeze(1)).squeeze(1), clean)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    win = T.hann_window(32)
    spec = T.stft(clean, 32, hop_length=8, window=win, return_complex=True)
    back = T.istft(spec, 32, hop_length=8, window=win, length=256)
    return [losses, list(spec.shape), spec[0, 3, 5], (back - clean).abs().max() < 1e-5,
            model[0].weight.grad[:2, 0], T.hamming_window(5, periodic=False),
            T.stft(clean, 16, return_complex=True, center=False,
                   window=T.ones(16)).abs()[0, :3, 0]]


def rnn_cells(T):
    """Recurrent pieces the earlier rounds did not use: a two-layer
    bidirectional nn.RNN with relu, an LSTM with proj_size, GRUCell and
    LSTMCell loops, truncated BPTT with detached hidden state,
    pack_sequence and pad_packed_sequence with total_length,
    pad_sequence with padding_side='left'."""
    nn = T.nn
    F = nn.functional
    R = nn.utils.rnn
    rnn = _init(T, nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bidirectional=True,
                          batch_first=True), 1)
    lstm = _init(T, nn.LSTM(3, 5, proj_size=2, batch_first=True), 2)
    seqs = [_t(T, n, 3, seed=10 + n) for n in (5, 3, 4)]
    packed = R.pack_sequence(seqs, enforce_sorted=False)
    out, h = rnn(packed)
    padded, lens = R.pad_packed_sequence(out, batch_first=True, total_length=6)
    lo, (lh, lc) = lstm(R.pad_sequence(seqs, batch_first=True))
    left = R.pad_sequence(seqs, batch_first=True, padding_side="left", padding_value=-1.0)
    (padded.sum() + lo.sum()).backward()
    grads = [rnn.weight_hh_l1_reverse.grad[0], lstm.weight_hr_l0.grad]
    gru = _init(T, nn.GRUCell(3, 4), 3)
    cell = _init(T, nn.LSTMCell(4, 4), 4)
    head = _init(T, nn.Linear(4, 1), 5)
    opt = T.optim.SGD(list(gru.parameters()) + list(cell.parameters())
                      + list(head.parameters()), lr=0.1)
    stream = _t(T, 12, 2, 3, seed=6)
    target = _t(T, 12, 2, 1, seed=7)
    hg = T.zeros(2, 4)
    hc = (T.zeros(2, 4), T.zeros(2, 4))
    losses = []
    for chunk in range(3):
        hg = hg.detach()
        hc = tuple(s.detach() for s in hc)
        loss = 0
        for t in range(4 * chunk, 4 * chunk + 4):
            hg = gru(stream[t], hg)
            hc = cell(hg, hc)
            loss = loss + F.mse_loss(head(hc[0]), target[t])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [padded[1], lens, list(h.shape), lo[0, -1], lh, lc, left[1], grads, losses,
            [n for n, _ in lstm.named_parameters()], packed.sorted_indices,
            packed.batch_sizes]


def cox_survival(T):
    """A Cox proportional-hazards model: risk scores from a Linear, the
    partial likelihood by sorting times descending and logcumsumexp over
    the risk set, censoring by a mask; a pinball (quantile) loss head;
    the concordance index by broadcasting."""
    nn = T.nn
    rng = np.random.default_rng(2)
    x = _t(T, 12, 3, seed=1)
    times = T.from_numpy(rng.exponential(2.0, 12).astype(np.float32))
    events = T.from_numpy(rng.random(12) > 0.3)
    model = _init(T, nn.Linear(3, 1), 3)
    qhead = _init(T, nn.Linear(3, 3), 4)
    qs = T.tensor([0.1, 0.5, 0.9])
    opt = T.optim.Adam(list(model.parameters()) + list(qhead.parameters()), lr=0.05)
    losses = []
    for _ in range(4):
        risk = model(x).squeeze(1)
        order = T.argsort(times, descending=True)
        r, e = risk[order], events[order]
        ll = (r - T.logcumsumexp(r, 0))[e].sum()
        nll = -ll / e.sum()
        diff = times.unsqueeze(1) - qhead(x)
        pinball = T.maximum(qs * diff, (qs - 1) * diff).mean()
        loss = nll + pinball
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append([nll.item(), pinball.item()])
    with T.no_grad():
        risk = model(x).squeeze(1)
        comparable = (times.unsqueeze(1) < times.unsqueeze(0)) & events.unsqueeze(1)
        concordant = (risk.unsqueeze(1) > risk.unsqueeze(0)) & comparable
        cindex = concordant.sum() / comparable.sum()
    return [losses, model.weight, cindex, T.quantile(times, qs),
            T.nanquantile(T.tensor([1.0, float("nan"), 3.0, 2.0]), 0.5),
            T.searchsorted(T.sort(times).values, T.tensor([1.0, 2.0]))]


def pointnet_chamfer(T):
    """A PointNet autoencoder: shared MLP by Conv1d(k=1), a symmetric max
    pool over points, a decoder to a point set, the Chamfer distance by
    cdist and min over both directions; kNN by topk and gather for a
    local feature."""
    nn = T.nn
    F = nn.functional
    enc = _init(T, nn.Sequential(nn.Conv1d(3, 8, 1), nn.BatchNorm1d(8), nn.ReLU(),
                                 nn.Conv1d(8, 16, 1)), 1)
    dec = _init(T, nn.Sequential(nn.Linear(16, 24), nn.ReLU(), nn.Linear(24, 6 * 3)), 2)
    pts = _t(T, 2, 10, 3, seed=3)
    opt = T.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.01)
    losses = []
    for _ in range(3):
        z = enc(pts.transpose(1, 2)).max(dim=2).values
        rec = dec(z).view(2, 6, 3)
        d = T.cdist(rec, pts)
        loss = d.min(2).values.pow(2).mean() + d.min(1).values.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    dist = T.cdist(pts, pts)
    knn = dist.topk(3, dim=2, largest=False).indices                 # (2, 10, 3)
    neigh = T.gather(pts.unsqueeze(1).expand(2, 10, 10, 3), 2,
                     knn.unsqueeze(-1).expand(2, 10, 3, 3))
    local = (neigh - pts.unsqueeze(2)).norm(dim=-1).mean(-1)
    return [losses, knn[0, :3], local[1], enc[1].running_var,
            F.pairwise_distance(pts[0], pts[1])[:3],
            T.cdist(pts[0], pts[1], p=1)[0, :3], T.cdist(pts[0], pts[1], p=float("inf"))[1, :2]]


# ---- training utilities ----------------------------------------------------------------------

def fused_inference(T):
    """Conv-BN and Linear-BN fusion for inference (torch.nn.utils.fusion)
    agree with the unfused eval model; parameters_to_vector and
    vector_to_parameters drive an evolution-strategies step with NumPy
    noise; clip_grad_norm_ with error_if_nonfinite, get_total_norm and
    clip_grads_with_norm_."""
    nn = T.nn
    fusion = nn.utils.fusion
    conv = _init(T, nn.Conv2d(2, 3, 3), 1)
    bn = nn.BatchNorm2d(3)
    with T.no_grad():
        bn.running_mean.copy_(T.tensor([0.1, -0.2, 0.3]))
        bn.running_var.copy_(T.tensor([1.5, 0.5, 2.0]))
        bn.weight.copy_(T.tensor([1.2, 0.8, 1.0]))
        bn.bias.copy_(T.tensor([0.0, 0.1, -0.1]))
    conv.eval()
    bn.eval()
    x = _t(T, 1, 2, 5, 5, seed=2)
    fused = fusion.fuse_conv_bn_eval(conv, bn)
    lin = _init(T, nn.Linear(3, 3), 3)
    bn1 = nn.BatchNorm1d(3).eval()
    with T.no_grad():
        bn1.running_var.fill_(0.5)
    flin = fusion.fuse_linear_bn_eval(lin.eval(), bn1)
    v = _t(T, 4, 3, seed=4)
    model = _init(T, nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1)), 5)
    xs, ys = _t(T, 8, 2, seed=6), _t(T, 8, 1, seed=7)
    theta = nn.utils.parameters_to_vector(model.parameters())
    rng = np.random.default_rng(8)
    rewards = []
    for _ in range(3):
        eps = T.from_numpy(rng.standard_normal((4, theta.numel())).astype(np.float32))
        scores = []
        for e in eps:
            nn.utils.vector_to_parameters(theta + 0.1 * e, model.parameters())
            with T.no_grad():
                scores.append(-((model(xs) - ys) ** 2).mean())
        s = T.stack(scores)
        s = (s - s.mean()) / (s.std() + 1e-8)
        theta = theta + 0.05 * (eps * s.unsqueeze(1)).mean(0)
        rewards.append(s.tolist())
    nn.utils.vector_to_parameters(theta, model.parameters())
    ((model(xs) - ys) ** 2).mean().backward()
    grads = [p.grad for p in model.parameters()]
    total = nn.utils.get_total_norm(grads, norm_type=2.0)
    nn.utils.clip_grads_with_norm_(model.parameters(), 0.5, total)
    model[0].weight.grad[0, 0] = float("nan")
    try:
        nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
        err = "no error"
    except RuntimeError as e:
        err = str(e).split(".")[0]
    return [(fused(x) - bn(conv(x))).abs().max() < 1e-5, fused.weight[0, 0],
            fused.bias, flin(v), (flin(v) - bn1(lin(v))).abs().max() < 1e-5, theta[:4],
            rewards, total, model[2].weight.grad, err]


def cyclic_schedulers(T):
    """CyclicLR (triangular, triangular2 and exp_range, cycling momentum),
    MultiplicativeLR, ConstantLR then ExponentialLR in SequentialLR,
    ReduceLROnPlateau with cooldown, threshold_mode='abs' and per-group
    min_lr; each state_dict resumed into a fresh scheduler."""
    nn = T.nn
    S = T.optim.lr_scheduler
    out = []

    def opt_for(**kw):
        m = nn.Linear(2, 1)
        return T.optim.SGD([{"params": [m.weight]}, {"params": [m.bias], "lr": 0.05}],
                           lr=0.1, momentum=0.9, **kw)

    for mode in ("triangular", "triangular2", "exp_range"):
        opt = opt_for()
        sch = S.CyclicLR(opt, base_lr=[0.01, 0.005], max_lr=[0.1, 0.05], step_size_up=2,
                         step_size_down=3, mode=mode, gamma=0.9, base_momentum=0.8,
                         max_momentum=0.95)
        lrs = []
        for _ in range(11):
            opt.step()
            sch.step()
            lrs.append([g["lr"] for g in opt.param_groups] + [opt.param_groups[0]["momentum"]])
        out.append(lrs)
    opt = opt_for()
    mult = S.MultiplicativeLR(opt, lambda e: 0.9 if e % 2 else 1.0)
    for _ in range(4):
        opt.step()
        mult.step()
    out.append(mult.get_last_lr())
    opt = opt_for()
    seq = S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=2),
                               S.ExponentialLR(opt, 0.8)], milestones=[3])
    lrs = []
    for i in range(6):
        opt.step()
        seq.step()
        lrs.append(seq.get_last_lr())
        if i == 2:
            saved = copy.deepcopy(seq.state_dict())
    out.append(lrs)
    opt = opt_for()
    plateau = S.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, cooldown=1,
                                  threshold=0.05, threshold_mode="abs", min_lr=[0.02, 0.01])
    metrics = [0.5, 0.52, 0.53, 0.6, 0.6, 0.61, 0.6, 0.6, 0.6, 0.6]
    lrs = []
    for m in metrics:
        opt.step()
        plateau.step(m)
        lrs.append([g["lr"] for g in opt.param_groups] + [plateau.num_bad_epochs])
    out.append(lrs)
    psd = plateau.state_dict()
    opt2 = opt_for()
    p2 = S.ReduceLROnPlateau(opt2, mode="max")
    p2.load_state_dict(psd)
    out.append([p2.best, p2.cooldown_counter, p2.min_lrs, p2.threshold_mode, p2.patience])
    out.append(sorted(k for k in saved if k != "_schedulers"))
    out.append(saved["_milestones"])
    return out


def multilabel_losses(T):
    """A multi-label tagger: BCEWithLogitsLoss with pos_weight and weight,
    MultiLabelSoftMarginLoss, a sigmoid focal loss by hand; a multi-class
    head with class weights, ignore_index and label smoothing together;
    metrics by thresholds, bincount and bucketize."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Linear(4, 5), 1)
    x = _t(T, 6, 4, seed=2)
    tags = T.from_numpy((np.random.default_rng(3).random((6, 5)) > 0.6).astype(np.float32))
    cls = T.tensor([0, 2, -100, 1, 2, 0])
    bce = nn.BCEWithLogitsLoss(pos_weight=T.tensor([1.0, 2.0, 0.5, 3.0, 1.0]),
                               weight=T.tensor([1.0, 1.0, 2.0, 1.0, 0.5]))
    mlsm = nn.MultiLabelSoftMarginLoss(weight=T.tensor([1.0, 0.5, 1.0, 2.0, 1.0]))
    ce = nn.CrossEntropyLoss(weight=T.tensor([1.0, 2.0, 0.5]), ignore_index=-100,
                             label_smoothing=0.2)
    opt = T.optim.RMSprop(model.parameters(), lr=0.01, centered=True, momentum=0.5)
    losses = []
    for _ in range(3):
        logits = model(x)
        p = logits.sigmoid()
        pt = p * tags + (1 - p) * (1 - tags)
        focal = (-(0.25 * tags + 0.75 * (1 - tags)) * (1 - pt) ** 2
                 * F.logsigmoid(logits * (2 * tags - 1))).mean()
        parts = [bce(logits, tags), mlsm(logits, tags), focal, ce(logits[:, :3], cls)]
        loss = sum(parts)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append([q.item() for q in parts])
    with T.no_grad():
        pred = model(x).sigmoid() > 0.5
        tp = (pred & (tags > 0)).sum(0)
        prec = tp / pred.sum(0).clamp_min(1)
    return [losses, prec, T.bincount(T.tensor([0, 2, 2, 4]), minlength=6),
            T.bincount(T.tensor([0, 1, 1]), weights=T.tensor([0.5, 1.0, 2.0])),
            T.bucketize(T.tensor([0.1, 0.5, 0.9]), T.tensor([0.25, 0.5, 0.75]), right=True),
            T.histc(T.tensor([0.1, 0.5, 0.9, 0.95]), bins=4, min=0, max=1),
            F.binary_cross_entropy_with_logits(x, x.sigmoid(), reduction="none")[0],
            F.multilabel_margin_loss(x, T.tensor([[1, 3, -1, 0]] * 6)),
            F.soft_margin_loss(x, x.sign())]


def checkpoint_bytesio(T):
    """A whole training checkpoint (model, optimizer with param groups,
    scheduler, scaler-free AMP state, epoch, RNG-free extras) saved to a
    BytesIO, loaded with weights_only and map_location, training resumed:
    the resumed run's losses equal the uninterrupted one's."""
    nn = T.nn
    F = nn.functional

    def make():
        m = _init(T, nn.Sequential(nn.Linear(3, 5), nn.LayerNorm(5), nn.SiLU(),
                                   nn.Linear(5, 2)), 1)
        o = T.optim.AdamW([{"params": m[0].parameters()},
                           {"params": list(m[1].parameters()) + list(m[3].parameters()),
                            "lr": 5e-3, "weight_decay": 0.0}], lr=1e-2, amsgrad=True)
        s = T.optim.lr_scheduler.StepLR(o, 2, gamma=0.5)
        return m, o, s

    x, y = _t(T, 7, 3, seed=2), _t(T, 7, 2, seed=3)

    def train(m, o, s, n):
        out = []
        for _ in range(n):
            loss = F.smooth_l1_loss(m(x), y, beta=0.5)
            o.zero_grad()
            loss.backward()
            o.step()
            s.step()
            out.append(loss.item())
        return out

    m, o, s = make()
    full = train(m, o, s, 6)
    m, o, s = make()
    first = train(m, o, s, 3)
    buf = io.BytesIO()
    T.save({"model": m.state_dict(), "opt": o.state_dict(), "sched": s.state_dict(),
            "epoch": 3, "meta": {"name": "run", "dims": (3, 5)}}, buf)
    buf.seek(0)
    ck = T.load(buf, weights_only=True, map_location="cpu")
    m2, o2, s2 = make()
    m2.load_state_dict(ck["model"])
    o2.load_state_dict(ck["opt"])
    s2.load_state_dict(ck["sched"])
    rest = train(m2, o2, s2, 3)
    return [full, first + rest, ck["epoch"], ck["meta"], sorted(ck["opt"]["state"][0]),
            ck["opt"]["param_groups"][1]["params"], s2.last_epoch, o2.param_groups[1]["lr"],
            ck["opt"]["state"][0]["max_exp_avg_sq"].shape]


def bilinear_siamese(T):
    """A siamese network scored by nn.Bilinear, CosineSimilarity and
    PairwiseDistance; CosineEmbeddingLoss, MarginRankingLoss and
    TripletMarginWithDistanceLoss with a cosine distance and swap;
    nn.Unflatten in the encoder."""
    nn = T.nn
    F = nn.functional
    enc = _init(T, nn.Sequential(nn.Linear(6, 8), nn.Unflatten(1, (2, 4)), nn.Flatten(),
                                 nn.Mish(), nn.Linear(8, 4)), 1)
    bil = _init(T, nn.Bilinear(4, 4, 1), 2)
    a, b, c = _t(T, 5, 6, seed=3), _t(T, 5, 6, seed=4), _t(T, 5, 6, seed=5)
    same = T.tensor([1.0, -1.0, 1.0, -1.0, 1.0])
    cos_loss = nn.CosineEmbeddingLoss(margin=0.2)
    rank = nn.MarginRankingLoss(margin=0.1)
    trip = nn.TripletMarginWithDistanceLoss(
        distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.3, swap=True)
    opt = T.optim.Adamax(list(enc.parameters()) + list(bil.parameters()), lr=0.02)
    losses = []
    for _ in range(3):
        za, zb, zc = enc(a), enc(b), enc(c)
        s_ab, s_ac = bil(za, zb).squeeze(1), bil(za, zc).squeeze(1)
        parts = [cos_loss(za, zb, same), rank(s_ab, s_ac, same), trip(za, zb, zc)]
        loss = sum(parts)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append([p.item() for p in parts])
    za, zb = enc(a), enc(b)
    return [losses, nn.CosineSimilarity(dim=1, eps=1e-6)(za, zb),
            nn.PairwiseDistance(p=1.5, keepdim=True)(za, zb), bil.weight.grad[0, 0],
            F.triplet_margin_loss(za, zb, enc(c), p=1, swap=True), str(bil),
            str(enc[1])]


# ---- a second batch: the autograd machinery, linear algebra, the rarer APIs ------------------

def function_transforms(T):
    """autograd.Functions under the function transforms: one with
    setup_context and generate_vmap_rule under vmap and grad, one with a
    jvp staticmethod (save_for_forward) under forward-mode AD,
    set_materialize_grads(False) with an unused output,
    and the double-backward refusal of once_differentiable."""
    tf = T.func

    class Cube(T.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x ** 3, 3 * x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output[1])

        @staticmethod
        def backward(ctx, g, g_unused):
            (d,) = ctx.saved_tensors
            return g * d

    class Expm(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp() - 1
            ctx.save_for_backward(y)
            ctx.save_for_forward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * (y + 1)

        @staticmethod
        def jvp(ctx, t):
            (y,) = ctx.saved_tensors
            return t * (y + 1)

    seen = []

    class Split(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            seen.append([ga is None, gb is None])
            return (ga * 2 if ga is not None else 0) + (gb * 3 if gb is not None else 0)

    class Once(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

    x = _t(T, 4, 3, seed=1)
    out = [tf.vmap(lambda r: Cube.apply(r)[0].sum())(x),
           tf.vmap(tf.grad(lambda r: Cube.apply(r)[0].sum()))(x)[1]]
    fwAD = T.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(x[0], T.ones(3))
        out.append(fwAD.unpack_dual(Expm.apply(d)).tangent)
    xs = x[0].clone().requires_grad_(True)
    a, b = Split.apply(xs)
    a.sum().backward()
    out += [xs.grad, seen]
    z = x[3].clone().requires_grad_(True)
    (g,) = T.autograd.grad(Once.apply(z).sum(), z, create_graph=True)
    try:
        g.sum().backward()
        out.append("no error")
    except RuntimeError as e:
        out.append(str(e).splitlines()[0])
    return out


def autograd_graph(T):
    """Programs that walk the autograd graph: saved_tensors_hooks packing
    saved tensors (counted and rescaled), save_on_cpu, hooks on grad_fn
    nodes (pre and post), register_multi_grad_hook, grad with allow_unused
    and materialize_grads, is_grads_batched, backward(inputs=...),
    retain_grad, a tensor hook rewriting the gradient, enable_grad under
    no_grad, set_grad_enabled as a decorator."""
    nn = T.nn
    log = []
    model = _init(T, nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)), 1)
    x = _t(T, 5, 3, seed=2)
    packed = []

    def pack(t):
        packed.append(list(t.shape))
        return t * 2

    def unpack(t):
        return t / 2

    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = model(x).pow(2).sum()
    y.backward()
    g_hooked = model[0].weight.grad.clone()
    model.zero_grad()
    with T.autograd.graph.save_on_cpu():
        model(x).pow(2).sum().backward()
    out = [len(packed) >= 5, (g_hooked - model[0].weight.grad).abs().max() < 1e-6]
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = T.tensor([3.0, -1.0], requires_grad=True)
    h = a * b
    h.retain_grad()
    s = (h.exp() + b).sum()
    s.grad_fn.register_prehook(lambda gout: log.append(["pre", gout[0].item()]))
    s.grad_fn.register_hook(lambda gin, gout: log.append(["post", len(gin)]))
    b.register_hook(lambda g: g * 10)
    h2 = b * 2
    s = s + h2.sum()
    T.autograd.graph.register_multi_grad_hook(
        (h, h2), lambda grads: log.append(["multi", [g is None for g in grads]]))
    s.backward(retain_graph=True)
    out += [log, a.grad, b.grad, h.grad]
    a.grad = None
    b.grad = None
    s.backward(inputs=[a])
    out += [a.grad, b.grad]
    c = T.tensor([1.0, 1.0], requires_grad=True)
    ga, gc = T.autograd.grad((a * 2).sum(), (a, c), allow_unused=True)
    gm = T.autograd.grad((a * 2).sum(), (a, c), allow_unused=True, materialize_grads=True)
    out += [ga, gc, list(gm)]
    w = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    yy = w @ T.tensor([1.0, -1.0])
    (rows,) = T.autograd.grad(yy, w, T.eye(2), is_grads_batched=True)
    out.append(rows)
    with T.no_grad():
        with T.enable_grad():
            e = a * 3
        f = a * 3
    out += [e.requires_grad, f.requires_grad]

    @T.set_grad_enabled(False)
    def frozen(t):
        return t * 2

    @T.inference_mode()
    def infer(t):
        return t * 2

    out += [frozen(a).requires_grad, infer(a).is_inference(), type(s.grad_fn).__name__,
            type(h.grad_fn).__name__, s.grad_fn.name()]
    return out


def linalg_layers(T):
    """Linear algebra inside training: orthogonal Procrustes by SVD, a
    nuclear-norm regulariser, a matrix_exp rotation, an eigh spectral
    loss, QR, lstsq, pinv, det, slogdet, inv and solve (left=False), each
    differentiated; matrix_power, householder_product, cholesky_ex, the
    matrix norms."""
    L = T.linalg
    A = _t(T, 4, 3, seed=1)
    B = _t(T, 4, 3, seed=2)
    U, S, Vh = L.svd(A.T @ B)
    R = U @ Vh
    W = _t(T, 3, 3, seed=3, scale=0.3).requires_grad_(True)
    opt = T.optim.Adam([W], lr=0.05)
    losses = []
    for _ in range(4):
        loss = (A @ W - B).pow(2).mean() + 0.01 * L.matrix_norm(W, "nuc")
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    M = _t(T, 3, 3, seed=4).requires_grad_(True)
    sym = M + M.T
    evals, evecs = L.eigh(sym)
    Q, Rq = L.qr(M)
    parts = [L.matrix_exp(M - M.T).sum(), evals[-1], (evecs[:, 0] ** 4).sum(), Rq.diagonal().abs().sum(),
             L.pinv(M[:, :2]).sum(), L.det(M), L.slogdet(M).logabsdet, L.inv(M).sum(),
             L.solve(M, B[:3], left=False).sum(), L.lstsq(M, B[:3]).solution.sum(),
             L.svdvals(M).sum(), L.matrix_norm(M, 2), L.cond(M)]
    grads = []
    for p in parts:
        (g,) = T.autograd.grad(p, M, retain_graph=True, allow_unused=True, materialize_grads=True)
        grads.append(g)
    H = _t(T, 4, 2, seed=5)
    tau = T.tensor([1.2, 0.7])
    chol = L.cholesky_ex(T.tensor([[4.0, 1.0], [1.0, -3.0]]))
    return [losses, R, (R @ R.T - T.eye(3)).abs().max() < 1e-5, [p.detach() for p in parts],
            grads, L.matrix_power(M.detach(), -2), L.householder_product(H, tau),
            chol.info, L.matrix_norm(A, "fro"), L.norm(A, ord=-2), L.vector_norm(A, ord=0.5),
            L.matrix_rank(A @ A.T)]


def special_likelihoods(T):
    """Likelihoods written with torch.special: a beta regression (lgamma,
    digamma in the gradient), a zero-inflated negative binomial
    (xlogy, softplus, log1p), probit by log_ndtr, and the other special
    functions a loss reaches for, with their gradients."""
    nn = T.nn
    F = nn.functional
    sp = T.special
    x = _t(T, 8, 3, seed=1)
    yb = T.from_numpy(np.random.default_rng(2).uniform(0.05, 0.95, 8).astype(np.float32))
    counts = T.tensor([0.0, 3.0, 0.0, 7.0, 1.0, 0.0, 12.0, 2.0])
    head = _init(T, nn.Linear(3, 5), 3)
    opt = T.optim.Adam(head.parameters(), lr=0.02)
    losses = []
    for _ in range(4):
        o = head(x)
        mu, phi = o[:, 0].sigmoid(), F.softplus(o[:, 1]) + 0.1
        a, b = mu * phi, (1 - mu) * phi
        beta_nll = -(T.lgamma(phi) - T.lgamma(a) - T.lgamma(b) + sp.xlogy(a - 1, yb)
                     + sp.xlog1py(b - 1, -yb)).mean()
        m, r, pi = F.softplus(o[:, 2]), F.softplus(o[:, 3]) + 0.1, o[:, 4].sigmoid()
        nb = (T.lgamma(counts + r) - T.lgamma(r) - T.lgamma(counts + 1)
              + sp.xlogy(r, r / (r + m)) + sp.xlogy(counts, m / (r + m)))
        zinb = -T.where(counts == 0, T.log(pi + (1 - pi) * nb.exp()), T.log1p(-pi) + nb).mean()
        probit = -sp.log_ndtr(o[:, 0] * (2 * (counts > 0).float() - 1)).mean()
        loss = beta_nll + zinb + probit
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append([beta_nll.item(), zinb.item(), probit.item()])
    v = T.tensor([0.2, 1.5, 3.0], requires_grad=True)
    fns = [T.digamma, lambda t: T.polygamma(1, t), sp.erfcx, sp.i0e, sp.i1e, sp.ndtri_safe
           if False else (lambda t: sp.ndtri(t / 4)), lambda t: sp.logit(t / 4, eps=1e-3),
           sp.expit, sp.entr, lambda t: sp.multigammaln(t + 2, 2), sp.sinc, sp.log1p,
           lambda t: sp.logsumexp(t, 0), sp.erfinv if False else (lambda t: sp.erfinv(t / 4)),
           sp.ndtr, sp.gammaln]
    vals, grads = [], []
    for fn in fns:
        y = fn(v)
        vals.append(y.detach())
        if y.requires_grad:
            grads.append(T.autograd.grad(y.sum(), v)[0])
        else:
            grads.append("no grad")
    return [losses, vals, grads, head.bias]


def parametrize_maps(T):
    """Parametrizations trained in a loop: orthogonal with each
    orthogonal_map (matrix_exp, cayley, householder) and with and without
    trivialization, a parametrization with right_inverse so that
    assigning the weight works, two parametrizations chained on one
    tensor, parametrize.cached(), removal with leave_parametrized=False,
    weight_norm over the whole tensor (dim=None)."""
    nn = T.nn
    P = nn.utils.parametrizations
    pz = nn.utils.parametrize
    x = _t(T, 6, 4, seed=1)
    out = []
    for omap, triv in (("matrix_exp", True), ("cayley", True), ("householder", True),
                       ("matrix_exp", False)):
        lin = _init(T, nn.Linear(4, 4), 2)
        P.orthogonal(lin, orthogonal_map=omap, use_trivialization=triv)
        opt = T.optim.SGD(lin.parameters(), lr=0.1)
        for _ in range(2):
            loss = (lin(x) - x.flip(1)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        w = lin.weight
        out.append([omap, triv, loss.item(), (w @ w.T - T.eye(4)).abs().max() < 1e-5,
                    sorted(lin.state_dict()), type(lin).__name__])

    class Positive(nn.Module):
        def forward(self, X):
            return X.exp()

        def right_inverse(self, W):
            return W.log()

    class Scale(nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, W):
            return W / 2

    lin = _init(T, nn.Linear(4, 2), 3)
    with T.no_grad():
        lin.weight.abs_()
    pz.register_parametrization(lin, "weight", Positive())
    pz.register_parametrization(lin, "weight", Scale())
    orig = lin.parametrizations.weight.original.clone()
    lin.weight = T.full((2, 4), 4.0)
    after = lin.parametrizations.weight.original.clone()
    with pz.cached():
        same = lin.weight is lin.weight
        y = lin(x) + lin(x)
    y.sum().backward()
    grad = lin.parametrizations.weight.original.grad
    pz.remove_parametrizations(lin, "weight", leave_parametrized=False)
    wn = _init(T, nn.Linear(4, 3), 4)
    P.weight_norm(wn, dim=None)
    out += [orig, after, same, grad, lin.weight, pz.is_parametrized(lin), type(lin).__name__,
            [list(p.shape) for p in wn.parametrizations.weight.parameters()] if False else
            [list(wn.parametrizations.weight.original0.shape),
             list(wn.parametrizations.weight.original1.shape)], wn.weight]
    return out


def distributions_more(T):
    """The less common distributions as a model would score data with
    them: log_prob, entropy, cdf/icdf where defined, moments; batch and
    event shapes, expand, enumerate_support, reprs, support, perplexity,
    a TransformedDistribution's cdf and icdf, a mixture's cdf."""
    D = T.distributions
    v = T.tensor([0.3, 0.6])
    dists = [D.ContinuousBernoulli(probs=T.tensor([0.2, 0.7])),
             D.Weibull(T.tensor([1.0, 2.0]), T.tensor([1.5, 0.8])),
             D.Kumaraswamy(T.tensor([2.0, 1.0]), T.tensor([3.0, 0.5])),
             D.Pareto(T.tensor([0.1, 0.2]), T.tensor([2.0, 3.0])),
             D.HalfNormal(T.tensor([1.0, 0.5])), D.HalfCauchy(T.tensor([1.0, 2.0])),
             D.Chi2(T.tensor([3.0, 5.0])), D.FisherSnedecor(T.tensor([4.0, 6.0]), T.tensor([5.0, 7.0])),
             D.InverseGamma(T.tensor([3.0, 2.5]), T.tensor([1.0, 2.0])),
             D.GeneralizedPareto(T.tensor([0.0, 0.1]), T.tensor([1.0, 2.0]), T.tensor([0.2, -0.1])),
             D.Logistic(T.tensor([0.0, 1.0]), T.tensor([1.0, 0.5])) if hasattr(D, "Logistic")
             else D.Laplace(T.tensor([0.0, 1.0]), T.tensor([1.0, 0.5])),
             D.NegativeBinomial(T.tensor([3.0, 5.0]), probs=T.tensor([0.4, 0.7]))]
    out = []
    for d in dists:
        pt = T.tensor([1.0, 2.0]) if isinstance(d, D.NegativeBinomial) else v + 0.3
        row = [type(d).__name__, d.log_prob(pt), _or_raised(d.entropy), _or_raised(lambda: d.mean),
               _or_raised(lambda: d.variance), _or_raised(lambda: d.cdf(pt)),
               list(d.batch_shape), list(d.expand((3, 2)).batch_shape), str(d.support)]
        out.append(row)
    oh = D.OneHotCategorical(logits=T.tensor([0.2, -0.1, 0.5]))
    rb = D.RelaxedBernoulli(T.tensor(0.5), probs=T.tensor([0.3, 0.8]))
    rc = D.RelaxedOneHotCategorical(T.tensor(0.7), logits=T.tensor([0.2, -0.1, 0.5]))
    ln = D.LogisticNormal(T.tensor([0.1, -0.2]), T.tensor([1.0, 0.5]))
    wish = D.Wishart(T.tensor(4.0), covariance_matrix=T.tensor([[2.0, 0.3], [0.3, 1.0]]))
    tdist = D.TransformedDistribution(D.Uniform(T.tensor(0.0), T.tensor(1.0)),
                                      [D.transforms.AffineTransform(2.0, -3.0)])
    mix = D.MixtureSameFamily(D.Categorical(T.tensor([0.3, 0.7])),
                              D.Normal(T.tensor([-1.0, 2.0]), T.tensor([0.5, 1.5])))
    cat = D.Categorical(logits=T.tensor([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]]))
    out += [oh.log_prob(T.tensor([0.0, 0.0, 1.0])), oh.enumerate_support(), oh.entropy(),
            rb.log_prob(T.tensor([0.2, 0.9])), rc.log_prob(T.tensor([0.2, 0.3, 0.5])),
            ln.log_prob(T.tensor([0.2, 0.3, 0.5])), wish.log_prob(T.tensor([[3.0, 0.5], [0.5, 2.0]])),
            wish.mean, tdist.cdf(T.tensor([-0.5, 1.0])), tdist.icdf(T.tensor([0.25])),
            tdist.log_prob(T.tensor(0.5)), mix.cdf(T.tensor([0.0, 1.0])), mix.mean, mix.variance,
            cat.perplexity(), cat.enumerate_support(expand=False),
            D.Binomial(3, T.tensor([0.2, 0.5])).enumerate_support(), repr(D.Normal(T.tensor([0.0, 1.0]), T.tensor(2.0))),
            repr(cat), repr(mix), str(D.constraints.real_vector), str(D.constraints.integer_interval(0, 3)),
            list(cat.expand((4, 2)).batch_shape), cat.event_shape, cat.param_shape,
            sorted(D.Normal.arg_constraints)]
    return out


def fake_quant_training(T):
    """Quantization-aware training by hand: weights and activations passed
    through fake_quantize_per_tensor_affine / per_channel_affine (the
    straight-through gradient), scales from observed ranges, a few SGD
    steps; the quantized model's outputs against the float model's."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3)), 1, 0.5)
    x = _t(T, 8, 4, seed=2, scale=2.0)
    y = T.tensor([0, 1, 2, 0, 1, 2, 0, 1])

    def fq_weight(w):
        scale = (w.detach().abs().amax(1) / 127).clamp_min(1e-8)
        return T.fake_quantize_per_channel_affine(w, scale, T.zeros(w.shape[0], dtype=T.int32),
                                                  0, -128, 127)

    def fq_act(a):
        lo, hi = a.detach().min().item(), a.detach().max().item()
        scale = max(hi - lo, 1e-8) / 255
        zp = int(round(-lo / scale))
        return T.fake_quantize_per_tensor_affine(a, scale, min(max(zp, 0), 255), 0, 255)

    def forward(inp):
        h = F.relu(F.linear(fq_act(inp), fq_weight(model[0].weight), model[0].bias))
        return F.linear(fq_act(h), fq_weight(model[2].weight), model[2].bias)

    opt = T.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(3):
        loss = F.cross_entropy(forward(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with T.no_grad():
        gap = (forward(x) - model(x)).abs().max()
    return [losses, model[0].weight.grad, model[2].bias, gap, forward(x)[:2]]


def tensor_surgery(T):
    """Indexing and reshaping ops a model's code uses, each differentiated:
    index_put_ with accumulate, masked_scatter, take_along_dim, scatter
    with reduce, index_reduce, the *_scatter ops, as_strided,
    repeat_interleave with tensor repeats, tensor_split, block_diag,
    cartesian_prod, combinations, kron, cummax, diff with prepend,
    trapezoid, renorm, unravel_index."""
    x = _t(T, 4, 5, seed=1).requires_grad_(True)
    idx = (T.tensor([0, 2, 0]), T.tensor([1, 3, 1]))
    vals = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    parts = [x.clone().index_put_(idx, vals, accumulate=True),
             x.masked_scatter(x > 0.5, T.arange(20.0).reshape(4, 5)),
             T.take_along_dim(x, x.argsort(1)[:, :2], 1),
             x.detach().scatter(1, T.tensor([[0, 1], [2, 2], [4, 0], [1, 1]]), 2.0, reduce="multiply"),
             x.index_reduce(0, T.tensor([0, 0, 1, 1]), T.ones(4, 5), "amax", include_self=False),
             x.diagonal_scatter(T.zeros(4), 1), x.select_scatter(T.ones(5), 0, 2),
             x.slice_scatter(T.zeros(4, 2), 1, 0, 4, 2), x.as_strided((3, 3), (5, 1), 1),
             x.repeat_interleave(T.tensor([1, 0, 2, 1]), dim=0, output_size=4),
             T.block_diag(x[:2, :2], x[2:, 3:]), T.kron(x[:2, :2], x[2:, :2]),
             T.cummax(x, 1).values, T.diff(x, dim=1, prepend=x[:, :1]),
             T.trapezoid(x, dx=0.5, dim=1), x.renorm(2, 0, 1.0),
             T.cartesian_prod(x[0, :2], x[1, :3]), T.combinations(x[0, :3], 2)]
    out = [[list(p.shape), p.detach()] for p in parts]
    total = sum(p.pow(2).sum() for p in parts)
    total.backward()
    out += [x.grad, vals.grad, list(T.tensor_split(T.arange(10), T.tensor([2, 5]))),
            list(T.unravel_index(T.tensor([7, 13]), (4, 5))), T.tril_indices(3, 4, 1),
            T.cummax(T.tensor([1, 3, 2, 5]), 0).indices]
    return out


def jit_trace(T):
    """A model traced by torch.jit.trace and a function scripted by
    torch.jit.script, both saved to a BytesIO and loaded back; the traced
    module's outputs, graph-free attributes and state dict keys, and
    training through it."""
    nn = T.nn
    model = _init(T, nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)), 1)
    x = _t(T, 5, 3, seed=2)
    traced = T.jit.trace(model, x)

    @T.jit.script
    def scaled_gelu(t, s: float):
        return nn.functional.gelu(t) * s

    buf = io.BytesIO()
    T.jit.save(traced, buf)
    buf.seek(0)
    loaded = T.jit.load(buf)
    opt = T.optim.SGD(traced.parameters(), lr=0.1)
    for _ in range(2):
        loss = traced(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return [loaded(x), traced(x), model[0].weight, scaled_gelu(x, 2.0)[0],
            sorted(loaded.state_dict()), isinstance(traced, T.jit.ScriptModule),
            T.jit.is_scripting(), loss.item()]


def module_api(T):
    """The nn.Module API around training: freezing a trunk by
    requires_grad_(False) (its grads stay None, the optimizer skips it),
    zero_grad(set_to_none=False), to_empty from the meta device then
    load_state_dict(assign=True), double() and half() round trips,
    state_dict(keep_vars=True), named_children, reprs of the common
    layers, a whole model pickled by torch.save and loaded."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)), 1)
    model[0].requires_grad_(False)
    opt = T.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=0.01)
    x, y = _t(T, 5, 3, seed=2), _t(T, 5, 2, seed=3)
    for _ in range(2):
        loss = F.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()
    out = [model[0].weight.grad, model[2].weight.grad, model[2].bias, len(opt.state)]
    with T.device("meta"):
        shell = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    out.append(str(shell[0].weight.device))
    shell = shell.to_empty(device="cpu")
    shell.load_state_dict(model.state_dict(), assign=True)
    out.append((shell(x) - model(x)).abs().max() < 1e-7)
    d = copy.deepcopy(model).double()
    h = copy.deepcopy(model).half()
    out += [d(x.double()).dtype, h[0].weight.dtype, h.float()(x)[0], sorted(
        k for k, v in model.state_dict(keep_vars=True).items() if v.requires_grad)]
    out.append([n for n, _ in model.named_children()])
    layers = [nn.Conv2d(3, 8, (3, 5), stride=2, padding=(1, 2), dilation=1, groups=1, bias=False,
                        padding_mode="circular"),
              nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1),
              nn.LSTM(4, 8, num_layers=2, dropout=0.1, bidirectional=True),
              nn.MultiheadAttention(8, 2, dropout=0.1, batch_first=True),
              nn.BatchNorm2d(4, momentum=None, affine=False), nn.Dropout2d(0.3, inplace=True),
              nn.Embedding(10, 3, padding_idx=0, max_norm=2.0, sparse=True),
              nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True),
              nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), nn.AvgPool1d(3, count_include_pad=False),
              nn.Upsample(scale_factor=2, mode="bilinear"), nn.LeakyReLU(0.1, inplace=True),
              nn.Softmax(dim=-1), nn.Hardtanh(-2, 2), nn.PReLU(3), nn.GRU(3, 5, batch_first=True),
              nn.Identity(), nn.Unfold(3, padding=1), nn.ZeroPad2d((1, 2, 0, 1)),
              nn.ReflectionPad1d(2), nn.ChannelShuffle(2), nn.AdaptiveAvgPool2d((None, 4)),
              nn.RNN(2, 3, nonlinearity="relu"), nn.CrossEntropyLoss(label_smoothing=0.1),
              nn.SyncBatchNorm(4), nn.LPPool2d(2, 3), nn.FractionalMaxPool2d(2, output_size=3) if False
              else nn.Threshold(0.1, 20.0)]
    out.append([repr(m) for m in layers])
    buf = io.BytesIO()
    T.save(model, buf)
    buf.seek(0)
    back = T.load(buf, weights_only=False)
    out += [type(back).__name__, back(x), back[0].weight.requires_grad,
            sum(p.numel() for p in model.parameters())]
    return out


# ---- a third batch: the code around the model ------------------------------------------------

def legacy_training_code(T):
    """Training code from before PyTorch 1.0 that still runs: Variable,
    the typed constructors (FloatTensor, LongTensor), new(), type()
    strings, a hand-written SGD with momentum by the deprecated
    add_(scalar, tensor) / addcmul_(value, t1, t2) overloads on .data,
    F.sigmoid and F.tanh, F.upsample, size_average/reduce on losses,
    loss.data.item()."""
    nn = T.nn
    F = nn.functional
    Var = T.autograd.Variable
    model = _init(T, nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)), 1)
    x = Var(_t(T, 6, 3, seed=2))
    y = Var(_t(T, 6, 1, seed=3), requires_grad=False)
    bufs = [T.zeros_like(p.data) for p in model.parameters()]
    sq = [p.data.new(p.size()).zero_() for p in model.parameters()]
    crit = nn.MSELoss(size_average=False)
    losses = []
    for _ in range(3):
        model.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        for p, b, v in zip(model.parameters(), bufs, sq):
            b.mul_(0.9).add_(1.0, p.grad.data)
            v.mul_(0.99).addcmul_(0.01, p.grad.data, p.grad.data)
            p.data.addcdiv_(-0.01, b, v.sqrt().add_(1e-8))
        losses.append(loss.data.item())
    ft = T.FloatTensor(2, 3).zero_()
    lt = T.LongTensor([1, 2, 3])
    return [losses, model[0].weight, ft, ft.type(), lt.type(), lt.dtype,
            T.DoubleTensor([1.5]).type(T.FloatTensor).dtype, x.type(), isinstance(x, Var),
            F.sigmoid(x)[0], F.tanh(x)[0],
            F.upsample(x.view(1, 1, 6, 3), scale_factor=2, mode="nearest")[0, 0, 1],
            nn.L1Loss(reduce=False)(x, x * 2)[0], nn.MSELoss(size_average=True)(x, 2 * x),
            x.new_tensor([1, 2]).dtype, x.new(2, 2).shape, T.IntTensor(2).dtype,
            T.BoolTensor([True]).dtype]


def data_parallel_script(T):
    """The top of a typical training script on a machine without a GPU:
    device choice, backend switches, nn.DataParallel wrapping (its
    "module." keys, consume_prefix_in_state_dict_if_present when loading
    into a bare model), a disabled GradScaler and a disabled
    torch.cuda.amp.autocast that leave the loop as it was."""
    nn = T.nn
    F = nn.functional
    device = T.device("cuda" if T.cuda.is_available() else "cpu")
    prev_prec = T.get_float32_matmul_precision()
    T.set_float32_matmul_precision("high")
    bench = T.backends.cudnn.benchmark
    T.backends.cudnn.benchmark = True
    model = nn.DataParallel(_init(T, nn.Sequential(nn.Linear(3, 4), nn.ReLU(),
                                                   nn.Linear(4, 2)), 1)).to(device)
    scaler = T.amp.GradScaler("cuda", enabled=False)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    x = _t(T, 5, 3, seed=2).to(device, non_blocking=True)
    y = T.tensor([0, 1, 1, 0, 1], device=device)
    losses = []
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        with T.autocast(device_type="cuda", enabled=False):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    sd = model.state_dict()
    keys = list(sd)
    nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "module.")
    bare = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    res = bare.load_state_dict(sd)
    out = [losses, keys, list(sd), str(res), str(device), scaler.is_enabled(),
           scaler.get_scale(), type(model.module).__name__, T.get_float32_matmul_precision(),
           (bare(x) - model(x)).abs().max().item(), T.distributed.is_available(),
           T.cuda.device_count(), str(model)[:60]]
    T.set_float32_matmul_precision(prev_prec)
    T.backends.cudnn.benchmark = bench
    return out


def model_repr(T):
    """What print(model) and logging show: a model with a ModuleList of
    identical blocks (collapsed to "(0-2): 3 x Block"), a ModuleDict, a
    named OrderedDict Sequential, a ParameterList and ParameterDict, an
    extra_repr; tensors with grad_fn and requires_grad; Parameter's repr;
    set_printoptions (precision, sci_mode) and back."""
    import collections
    nn = T.nn

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc = nn.Linear(d, d)
            self.act = nn.GELU(approximate="tanh")
            self.drop = nn.Dropout(0.1)

        def forward(self, x):
            return self.drop(self.act(self.fc(x)))

    class Gate(nn.Module):
        def __init__(self, d, k):
            super().__init__()
            self.d, self.k = d, k
            self.w = nn.Parameter(T.zeros(d, k))

        def extra_repr(self):
            return f"d={self.d}, k={self.k}"

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(collections.OrderedDict(
                [("conv", nn.Conv1d(2, 4, 3, padding=1)), ("bn", nn.BatchNorm1d(4)),
                 ("relu", nn.ReLU(inplace=True))]))
            self.blocks = nn.ModuleList([Block(4) for _ in range(3)] + [nn.Linear(4, 4)])
            self.heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": Gate(4, 2)})
            self.plist = nn.ParameterList([nn.Parameter(T.ones(2)), nn.Parameter(T.ones(2, 3))])
            self.pdict = nn.ParameterDict({"s": nn.Parameter(T.ones(1))})

    x = T.tensor([[1.5, -2.25], [3.125, 1e-4]], requires_grad=True)
    y = x * 2
    z = (x @ x).sum()
    p = nn.Parameter(T.tensor([0.5, 1.0]))
    small = T.tensor([1e-5, 123.456, 7.0])
    T.set_printoptions(precision=2, sci_mode=False)
    opts = [repr(small), repr(x)]
    T.set_printoptions(profile="default")
    big = T.arange(2000.0)
    return [str(Net()), repr(y), repr(z), repr(p), opts, repr(small), repr(big),
            repr(T.tensor([1, 2], dtype=T.int32)), repr(T.zeros(2, 0)),
            repr(T.tensor(3.5, dtype=T.float64)), repr(T.tensor([True, False])),
            repr(x.detach()[0]), repr(T.tensor([1.0, 2.0]).half())]


def migrated_state_dict(T):
    """A module that renames a parameter between versions migrates old
    checkpoints in _load_from_state_dict by its _version; tied weights
    (an embedding and its output layer) in named_parameters and the state
    dict, still tied after loading, an optimizer given the tied weight
    twice (PyTorch warns and keeps both); the size-mismatch and missing-key
    errors as a script prints them."""
    nn = T.nn

    class Scale(nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.gain = nn.Parameter(T.ones(3))

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                  missing_keys, unexpected_keys, error_msgs):
            version = local_metadata.get("version", None)
            if version is None or version < 2:
                old = prefix + "scale"
                if old in state_dict:
                    state_dict[prefix + "gain"] = state_dict.pop(old)
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                          missing_keys, unexpected_keys, error_msgs)

    net = nn.Sequential(nn.Linear(3, 3), Scale())
    old = {"0.weight": T.eye(3), "0.bias": T.zeros(3), "1.scale": T.tensor([1.0, 2.0, 3.0])}
    net.load_state_dict(old)
    meta = net.state_dict()._metadata

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(5, 3)
            self.out = nn.Linear(3, 5, bias=False)
            self.out.weight = self.emb.weight

        def forward(self, ids):
            return self.out(self.emb(ids))

    lm = _init(T, LM(), 2)
    names = [n for n, _ in lm.named_parameters()]
    all_names = [n for n, _ in lm.named_parameters(remove_duplicate=False)]
    sd = lm.state_dict()
    fresh = LM()
    fresh.load_state_dict(sd)
    lm(T.tensor([1, 2, 3])).sum().backward()
    tied = _warned(lambda: T.optim.Adam(list(lm.emb.parameters()) + list(lm.out.parameters()),
                                        lr=0.01))
    opt = tied[0]
    for _ in range(2):    # the tied weight listed twice: stepped once per appearance
        opt.zero_grad()
        lm(T.tensor([1, 2, 3])).pow(2).mean().backward()
        opt.step()
    errors = []
    for bad in ({"weight": T.zeros(2, 3), "bias": T.zeros(3)}, {"weight": T.zeros(3, 3)}):
        try:
            nn.Linear(3, 3).load_state_dict(bad)
        except RuntimeError as e:
            errors.append(str(e))
    return [tied[1], lm.emb.weight, net[1].gain, meta[""], meta["1"], names, all_names, sorted(sd),
            fresh.out.weight is fresh.emb.weight, lm.emb.weight.grad[1], errors,
            len(list(lm.parameters()))]


def optimizer_extras(T):
    """Optimizer features a training loop leans on: step pre/post hooks,
    state-dict hooks, print(optimizer), the foreach and single-tensor
    paths agreeing, print(optimizer) with two groups, NAdam and RAdam with
    decoupled weight decay, Adagrad
    with lr_decay, Rprop, SGD with nesterov and maximize, a custom
    LRScheduler subclass."""
    nn = T.nn
    F = nn.functional
    O = T.optim
    x, y = _t(T, 6, 3, seed=1), _t(T, 6, 2, seed=2)
    log = []
    out = []
    for make in (lambda ps, fe: O.NAdam(ps, lr=0.01, weight_decay=0.1,
                                        decoupled_weight_decay=True, foreach=fe),
                 lambda ps, fe: O.RAdam(ps, lr=0.01, weight_decay=0.1,
                                        decoupled_weight_decay=True, foreach=fe),
                 lambda ps, fe: O.Adagrad(ps, lr=0.1, lr_decay=0.01,
                                          initial_accumulator_value=0.1, foreach=fe),
                 lambda ps, fe: O.Rprop(ps, lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-4, 1),
                                        foreach=fe),
                 lambda ps, fe: O.SGD(ps, lr=0.05, momentum=0.9, nesterov=True,
                                      weight_decay=0.01, maximize=True, foreach=fe)):
        row = []
        for fe in (False, True):
            m = _init(T, nn.Linear(3, 2), 3)
            opt = make(m.parameters(), fe)
            for _ in range(3):
                loss = F.mse_loss(m(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
            row.append(m.weight)
        out.append([type(opt).__name__, row[0], (row[0] - row[1]).abs().max().item() < 1e-6])
    m = _init(T, nn.Linear(3, 2), 4)
    opt = O.AdamW(m.parameters(), lr=0.01)
    opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: log.append("post"))
    opt.register_state_dict_pre_hook(lambda o: log.append("sd_pre"))
    opt.register_state_dict_post_hook(lambda o, sd: log.append(["sd_post", sorted(sd)]))
    opt.register_load_state_dict_pre_hook(lambda o, sd: log.append("load_pre"))
    opt.register_load_state_dict_post_hook(lambda o: log.append("load_post"))
    F.mse_loss(m(x), y).backward()
    opt.step()
    opt.load_state_dict(opt.state_dict())

    class Warmup(O.lr_scheduler.LRScheduler):
        def __init__(self, optimizer, warm, last_epoch=-1):
            self.warm = warm
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            f = min(1.0, (self.last_epoch + 1) / self.warm)
            return [base * f for base in self.base_lrs]

    sch = Warmup(opt, 4)
    lrs = []
    for _ in range(5):
        opt.step()
        sch.step()
        lrs.append(sch.get_last_lr()[0])
    two = O.SGD([{"params": [m.weight]}, {"params": [m.bias], "lr": 0.5}], lr=0.1)
    out += [log, lrs, repr(opt), repr(O.SGD(m.parameters(), lr=0.1)), repr(two),
            sch.state_dict()]
    return out


def grid_sample_modes(T):
    """A 3-d spatial transformer (affine_grid and grid_sample over a
    volume) and the 2-d sampler's modes and padding modes, with gradients
    to the input and the grid."""
    F = T.nn.functional
    vol = _t(T, 1, 2, 4, 5, 6, seed=1).requires_grad_(True)
    theta = T.tensor([[[0.9, 0.1, 0.0, 0.05], [-0.1, 1.0, 0.1, 0.0], [0.0, 0.05, 1.1, -0.1]]],
                     requires_grad=True)
    grid = F.affine_grid(theta, (1, 2, 3, 4, 5), align_corners=False)
    out = F.grid_sample(vol, grid, align_corners=False)
    out.pow(2).sum().backward()
    res = [out[0, 1, 1, 2], theta.grad, vol.grad[0, 0, 1, 2]]
    img = _t(T, 1, 2, 5, 6, seed=2).requires_grad_(True)
    g2 = (T.tanh(_t(T, 1, 3, 4, 2, seed=3)) * 0.95).requires_grad_(True)
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                o = F.grid_sample(img, g2, mode=mode, padding_mode=pad, align_corners=ac)
                gi, gg = T.autograd.grad(o.pow(2).sum(), (img, g2))
                res.append([mode, pad, ac, o[0, 0, 1], gi[0, 1, 2], gg[0, 2]])
    return res


def scheduler_extras(T):
    """OneCycleLR with three phases and linear annealing (momentum and
    betas cycled), CosineAnnealingLR run past T_max, PolynomialLR,
    LinearLR, ChainedScheduler; their state_dict keys."""
    nn = T.nn
    S = T.optim.lr_scheduler
    m = nn.Linear(2, 1)
    out = []
    opt = T.optim.Adam(m.parameters(), lr=0.1)
    one = S.OneCycleLR(opt, max_lr=0.5, total_steps=10, three_phase=True,
                       anneal_strategy="linear", pct_start=0.3, div_factor=10.0,
                       final_div_factor=100.0)
    vals = []
    for _ in range(9):
        opt.step()
        one.step()
        vals.append([opt.param_groups[0]["lr"], opt.param_groups[0]["betas"][0]])
    out.append(vals)
    for make in (lambda o: S.CosineAnnealingLR(o, T_max=3, eta_min=0.01),
                 lambda o: S.PolynomialLR(o, total_iters=4, power=2.0),
                 lambda o: S.LinearLR(o, start_factor=0.2, end_factor=1.0, total_iters=3),
                 lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.5, total_iters=2),
                                               S.ExponentialLR(o, gamma=0.9)])):
        opt = T.optim.SGD(m.parameters(), lr=0.1)
        sch = make(opt)
        vals = []
        for _ in range(7):
            opt.step()
            sch.step()
            vals.append(sch.get_last_lr()[0])
        out.append([type(sch).__name__, vals, sorted(sch.state_dict())])
    return out


# ---- a fourth batch: what a program meets when it goes wrong, and its tests ------------------

def _message(fn):
    """[exception type, first line of its message] for fn(), or "no error"."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return [type(e).__name__, str(e).splitlines()[0] if str(e) else ""]
    return "no error"


def _broadcast(fn):
    """A broadcasting failure: whether it is a RuntimeError and its first
    line up to PyTorch's end (torchlike's BroadcastError, a RuntimeError and
    a ValueError, adds the shapes)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return [isinstance(e, RuntimeError), str(e).split(": shapes")[0]]
    return "no error"


def common_mistakes(T):
    """The errors a training script meets most: shapes that do not
    multiply, float64 data into a float32 model, a target out of range,
    channels that do not match, batch norm over one sample, view of a
    non-contiguous tensor, backward twice, in-place on a leaf, a saved
    tensor modified, an embedding index out of range, an LSTM's input
    size, backward of a non-scalar, numpy() of a tensor that requires
    grad, norm layers and class targets of the wrong size, tensor() of
    ragged lists."""
    nn = T.nn
    F = nn.functional
    lin = nn.Linear(3, 2)
    conv = nn.Conv2d(3, 8, 3)
    bn = nn.BatchNorm1d(4)
    emb = nn.Embedding(5, 2)
    lstm = nn.LSTM(3, 4)
    w = T.ones(3, requires_grad=True)

    def twice():
        y = (w * w).sum()
        y.backward()
        y.backward()

    def saved():
        a = w * 2
        b = a.sigmoid()
        a.add_(1)
        b.sum().backward()

    def leaf():
        w.add_(1)

    import numpy as _np
    return [_message(lambda: lin(T.ones(5, 4))), _message(lambda: lin(T.from_numpy(_np.ones((5, 3))))),
            _message(lambda: F.cross_entropy(T.zeros(2, 3), T.tensor([0, 5]))),
            _message(lambda: conv(T.ones(2, 4, 8, 8))), _message(lambda: bn(T.ones(1, 4))),
            _message(lambda: T.ones(3, 4).t().view(12)), _message(twice), _message(leaf),
            _message(saved), _message(lambda: emb(T.tensor([1, 7]))),
            _message(lambda: lstm(T.ones(2, 1, 5))), _message(lambda: (w * 2).backward()),
            _message(lambda: (w * 2).numpy()), _broadcast(lambda: F.mse_loss(T.ones(3), T.ones(4))),
            _message(lambda: T.cat([T.ones(2, 3), T.ones(3, 2)])),
            _message(lambda: F.nll_loss(T.zeros(2, 3), T.tensor([0.0, 1.0]))),
            _message(lambda: nn.MultiheadAttention(6, 4)),
            _message(lambda: T.optim.Adam([w], lr=-1.0)),
            _message(lambda: T.optim.SGD([], lr=0.1)),
            _message(lambda: F.binary_cross_entropy(T.tensor([0.5, 1.5]), T.tensor([0.0, 1.0]))),
            _message(lambda: T.stack([T.ones(2), T.ones(3)])),
            _message(lambda: T.ones(2, 3) @ T.ones(2, 3)),
            _message(lambda: T.ones(2, 3).reshape(4, 2)),
            _message(lambda: nn.Linear(3, 2)(T.ones(5, 3, dtype=T.long))),
            _message(lambda: nn.BatchNorm1d(3)(T.ones(2, 4))),
            _message(lambda: nn.InstanceNorm2d(3, affine=True)(T.ones(1, 2, 4, 4))),
            _message(lambda: nn.NLLLoss()(T.ones(2, 3), T.tensor([[1], [2]]))),
            _message(lambda: nn.CrossEntropyLoss()(T.ones(2, 3, 4, 5), T.zeros(2, 4, 4).long())),
            _message(lambda: F.nll_loss(T.ones(2, 3, 4), T.tensor([[1], [2]]))),
            _message(lambda: nn.Linear(3, 2)(T.tensor(1.0))),
            _message(lambda: F.interpolate(T.ones(1, 1, 4), size=(2, 2))),
            _message(lambda: lstm(T.ones(2, 1, 3), (T.zeros(1, 1, 4), T.zeros(1, 2, 4)))),
            _message(lambda: T.tensor([[1, 2, 3], [4, 5]])),
            _message(lambda: T.tensor([[[1], [2]], [[3], [4, 5]]])),
            _message(lambda: F.cross_entropy(T.ones(2, 3), T.full((2, 3), 1 / 3), ignore_index=0))]


def user_gradcheck(T):
    """A user's tests of custom Functions: gradcheck and gradgradcheck of a
    correct one pass, of one with a wrong backward fail (raise_exception
    False, and the message raised otherwise), fast_mode, a
    non-differentiable output, check_undefined_grad."""
    AF = T.autograd

    class Softplus(AF.Function):
        @staticmethod
        def forward(ctx, x, beta):
            ctx.save_for_backward(x)
            ctx.beta = beta
            return T.log1p(T.exp(beta * x)) / beta

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * T.sigmoid(ctx.beta * x), None

    class Wrong(AF.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x      # should be 2 x

    x = T.from_numpy(np.linspace(-1, 1, 5)).requires_grad_(True)
    ok = AF.gradcheck(Softplus.apply, (x, 2.0))
    okgg = AF.gradgradcheck(lambda t: Softplus.apply(t, 2.0), (x,))
    fast = AF.gradcheck(Softplus.apply, (x, 2.0), fast_mode=True)
    bad = AF.gradcheck(Wrong.apply, (x,), raise_exception=False)
    try:
        AF.gradcheck(Wrong.apply, (x,))
        msg = "no error"
    except Exception as e:  # noqa: BLE001
        msg = [type(e).__name__, str(e).splitlines()[0]]
    x32 = T.ones(3, requires_grad=True)
    low = _message(lambda: AF.gradcheck(lambda t: t * 2, (x32,)))
    lin = T.nn.Linear(3, 2).double()
    mod = AF.gradcheck(lambda t: lin(t).tanh(), (T.from_numpy(_arr(4, 3).astype(np.float64))
                                                 .requires_grad_(True),))
    return [ok, okgg, fast, bad, msg, low, mod,
            AF.gradcheck(lambda t: (t.sum(), t.argmax()), (x,), check_undefined_grad=True)]


def assert_close_messages(T):
    """torch.testing.assert_close as a user's test calls it: passing within
    tolerance, failing with its message (mismatched elements, greatest
    differences), dtype and shape mismatches, equal_nan, check_dtype=False,
    and lists of tensors."""
    tt = T.testing

    def msg(fn):
        try:
            fn()
        except AssertionError as e:
            return [line.strip() for line in str(e).splitlines() if line.strip()]
        except Exception as e:  # noqa: BLE001
            return [type(e).__name__, str(e).splitlines()[0]]
        return "passed"

    a = T.tensor([1.0, 2.0, 3.0])
    return [msg(lambda: tt.assert_close(a, a + 1e-7)),
            msg(lambda: tt.assert_close(a, T.tensor([1.0, 2.5, 3.0]))),
            msg(lambda: tt.assert_close(a, T.tensor([1.0, 2.0, 3.0], dtype=T.float64))),
            msg(lambda: tt.assert_close(a, T.tensor([1.0, 2.0]))),
            msg(lambda: tt.assert_close(T.tensor([float("nan")]), T.tensor([float("nan")]))),
            msg(lambda: tt.assert_close(T.tensor([float("nan")]), T.tensor([float("nan")]),
                                        equal_nan=True)),
            msg(lambda: tt.assert_close(a, a.double(), check_dtype=False)),
            msg(lambda: tt.assert_close([a, a * 2], [a, a * 2.01])),
            msg(lambda: tt.assert_close(T.tensor([1, 2]), T.tensor([1, 3]))),
            msg(lambda: tt.assert_close(a, a + 0.01, rtol=0, atol=0.1)),
            msg(lambda: tt.assert_close(1.0, 1.0 + 1e-9)),
            msg(lambda: tt.assert_close(T.ones(2, 2), T.eye(2), msg="identity differs"))]


def default_double(T):
    """Scientific code that sets the default dtype to float64 first: the
    layers, factories and Python-float tensors it makes are float64, a
    small regression is trained in double; the default put back."""
    nn = T.nn
    F = nn.functional
    prev = T.get_default_dtype()
    T.set_default_dtype(T.float64)
    try:
        model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
        rng = np.random.default_rng(1)
        with T.no_grad():
            for p in model.parameters():
                p.copy_(T.tensor(rng.standard_normal(tuple(p.shape)) * 0.5))
        x = T.tensor(np.linspace(-1, 1, 20).reshape(10, 2))
        y = T.sin(3 * x[:, :1]) * x[:, 1:]
        opt = T.optim.LBFGS(model.parameters(), lr=0.5, max_iter=10)

        def closure():
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            return loss

        losses = [opt.step(closure).item() for _ in range(3)]
        kinds = [model[0].weight.dtype, T.tensor([1.5]).dtype, T.zeros(2).dtype,
                 T.arange(3.0).dtype, T.arange(3).dtype, T.tensor(2).dtype, T.randn(2).dtype,
                 T.tensor([1 + 2j]).dtype, nn.BatchNorm1d(2).running_mean.dtype,
                 T.linspace(0, 1, 3).dtype, T.full((2,), 1.5).dtype, T.empty(1).dtype,
                 T.as_tensor([0.5]).dtype, (T.ones(2, dtype=T.float32) * 1.5).dtype]
    finally:
        T.set_default_dtype(prev)
    return [losses, model(x)[:3], kinds, T.get_default_dtype(), T.tensor([1.5]).dtype]


def legacy_api_more(T):
    """More of what old code calls: softmax without dim (the implicit-dim
    warning), nn.init's functions without the underscore,
    clip_grad_norm (no underscore), F.upsample_bilinear, torch.Tensor on a
    list and on a NumPy array, resize_, masked_fill with a bool mask from a
    comparison, norm(p, dim) positionally, max(dim) unpacked, the
    deprecated nn.Upsampling modules, indexing with a bool mask, the
    nuclear norm by torch.norm(p='nuc') and its gradient, chain_matmul, a
    loss class of PyTorch 0.3 (_Loss with size_average, nn._reduction)."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 3, 4, seed=1)
    out = []
    for fn in (lambda: F.softmax(x), lambda: F.log_softmax(x[0]), lambda: nn.Softmax()(x),
               lambda: F.softmin(x), lambda: nn.init.constant(T.empty(2), 0.5),
               lambda: nn.init.uniform(T.empty(2), 0.0, 0.0),
               lambda: F.upsample_bilinear(x.view(1, 1, 3, 4), scale_factor=2)[0, 0, 1],
               lambda: nn.UpsamplingNearest2d(scale_factor=2)(x.view(1, 1, 3, 4))[0, 0, 0],
               lambda: nn.UpsamplingBilinear2d(size=(5, 5))(x.view(1, 1, 3, 4))[0, 0, 2],
               lambda: T.Tensor([[1, 2], [3, 4]]), lambda: T.Tensor(np.array([1.5, 2.5])),
               lambda: x.clone().resize_(2, 3), lambda: x.norm(2, 1), lambda: x.max(1)[1],
               lambda: x.masked_fill(x > 0, 0.0), lambda: x[(x > 0).to(T.bool)],
               lambda: F.tanh(x).sum(), lambda: x.sum(0, True), lambda: T.norm(x, p="nuc"),
               lambda: T.norm(x.view(1, 3, 4), "nuc", dim=(1, 2), keepdim=True)):
        with __import__("warnings").catch_warnings(record=True) as caught:
            __import__("warnings").simplefilter("always")
            try:
                r = fn()
            except Exception as e:  # noqa: BLE001
                r = [type(e).__name__, str(e).splitlines()[0]]
        out.append([r, [str(w.message).split(" (Triggered internally")[0] for w in caught]])
    m = _init(T, nn.Linear(4, 2), 2)
    m(x).sum().mul(100).backward()
    with __import__("warnings").catch_warnings(record=True) as caught:
        __import__("warnings").simplefilter("always")
        total = nn.utils.clip_grad_norm(m.parameters(), 1.0)
    w = x.clone().requires_grad_(True)
    T.norm(w, p="nuc").backward()      # a full-rank matrix: its gradient is U V^T
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")   # its notice comes once per process
        chained = T.chain_matmul(x, x.t(), x)[0]
    out += [total, m.weight.grad, [str(w.message) for w in caught], w.grad, chained]

    class OldHuber(nn.modules.loss._Loss):       # a loss class written for PyTorch 0.3
        def __init__(self, delta=1.0, size_average=None, reduce=None, reduction="mean"):
            super(OldHuber, self).__init__(size_average, reduce, reduction)
            self.delta = delta

        def forward(self, inp, target):
            d = (inp - target).abs()
            loss = T.where(d < self.delta, 0.5 * d ** 2, self.delta * (d - 0.5 * self.delta))
            enum = F._Reduction.get_enum(self.reduction)
            return loss if enum == 0 else loss.mean() if enum == 1 else loss.sum()

    R = T.nn._reduction
    out.append([_warned(lambda: OldHuber(size_average=False)(x, x * 0.5)),
                OldHuber(reduction="none")(x[0], x[0] * 2), R.legacy_get_string(False, True, False),
                R.legacy_get_enum(None, False, False), _warned(lambda: R.get_enum("elementwise_mean")),
                T.utils.data._utils.collate.default_collate([1, 2])])
    return out


# ---- a fifth batch: more old code, in-place autograd, dtypes of state ------------------------

def _warned(fn):
    """[fn()'s result or its exception, the warnings' messages]."""
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001
            r = [type(e).__name__, str(e).splitlines()[0]]
    return [r, [str(w.message).split(" (Triggered internally")[0] for w in caught]]


def legacy_optim_sched(T):
    """An optimizer written the old way (Optimizer.__init__ with defaults, a
    step over param_groups and self.state with an int step, .data updates,
    a closure), the old _LRScheduler base, scheduler.step(epoch) and
    get_lr() called directly (their warnings), the optimizer's state dict
    and a reload."""
    nn = T.nn
    F = nn.functional

    class OldAdagrad(T.optim.Optimizer):
        def __init__(self, params, lr=0.1, eps=1e-10):
            defaults = dict(lr=lr, eps=eps)
            super(OldAdagrad, self).__init__(params, defaults)

        def step(self, closure=None):
            loss = None
            if closure is not None:
                loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad.data
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["sum"] = T.zeros_like(p.data)
                    state["step"] += 1
                    state["sum"].addcmul_(1, grad, grad)
                    std = state["sum"].sqrt().add_(group["eps"])
                    p.data.addcdiv_(-group["lr"], grad, std)
            return loss

    model = _init(T, nn.Linear(3, 2), 1)
    x, y = _t(T, 5, 3, seed=2), _t(T, 5, 2, seed=3)
    opt = OldAdagrad(model.parameters(), lr=0.05)

    def closure():
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        return loss

    class OldStep(T.optim.lr_scheduler._LRScheduler):
        def __init__(self, optimizer, gamma, last_epoch=-1):
            self.gamma = gamma
            super(OldStep, self).__init__(optimizer, last_epoch)

        def get_lr(self):
            return [base * self.gamma ** (self.last_epoch // 2) for base in self.base_lrs]

    sch = OldStep(opt, 0.5)
    losses = []
    for epoch in range(4):
        losses.append(opt.step(closure).item())
        sch.step()
    sd = opt.state_dict()
    fresh = OldAdagrad(_init(T, nn.Linear(3, 2), 1).parameters())
    fresh.load_state_dict(sd)
    o2 = T.optim.SGD(model.parameters(), lr=0.1)
    s2 = T.optim.lr_scheduler.StepLR(o2, 2, 0.1)
    return [losses, model.weight, sd["state"][0]["step"], sd["param_groups"],
            fresh.state[fresh.param_groups[0]["params"][0]]["sum"], sch.get_last_lr(),
            _warned(lambda: s2.step(3)), o2.param_groups[0]["lr"], _warned(s2.get_lr),
            repr(opt).splitlines()[:4], isinstance(sch, T.optim.lr_scheduler.LRScheduler)]


def old_rnn_code(T):
    """An LSTM language model as 2017 code wrote it: hidden state built by
    init_hidden from weight.new(...).zero_() and Variable, repackaged by
    detach between batches, flatten_parameters, the single-layer dropout
    warning, all_weights, pack_padded_sequence from a list of lengths, a
    hidden state carried across packed batches."""
    nn = T.nn
    F = nn.functional
    Var = T.autograd.Variable
    warn = _warned(lambda: nn.LSTM(3, 4, num_layers=1, dropout=0.5))

    class RNNModel(nn.Module):
        def __init__(self, ntoken, ninp, nhid, nlayers):
            super(RNNModel, self).__init__()
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = nn.LSTM(ninp, nhid, nlayers)
            self.decoder = nn.Linear(nhid, ntoken)
            self.nhid, self.nlayers = nhid, nlayers

        def forward(self, inp, hidden):
            emb = self.encoder(inp)
            self.rnn.flatten_parameters()
            output, hidden = self.rnn(emb, hidden)
            decoded = self.decoder(output.view(output.size(0) * output.size(1), output.size(2)))
            return decoded.view(output.size(0), output.size(1), decoded.size(1)), hidden

        def init_hidden(self, bsz):
            weight = next(self.parameters()).data
            return (Var(weight.new(self.nlayers, bsz, self.nhid).zero_()),
                    Var(weight.new(self.nlayers, bsz, self.nhid).zero_()))

    def repackage(h):
        if isinstance(h, T.Tensor):
            return h.detach()
        return tuple(repackage(v) for v in h)

    model = _init(T, RNNModel(9, 4, 5, 2), 2)
    data = T.from_numpy(np.random.default_rng(3).integers(0, 9, (13, 2)))
    hidden = model.init_hidden(2)
    opt = T.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for i in range(0, 12, 4):
        inp, target = data[i:i + 4], data[i + 1:i + 5].contiguous().view(-1)
        hidden = repackage(hidden)
        model.zero_grad()
        out, hidden = model(inp, hidden)
        loss = F.cross_entropy(out.view(-1, 9), target)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
        losses.append(loss.item())
    R = nn.utils.rnn
    seqs = T.from_numpy(_arr(5, 3, 4, seed=4))
    packed = R.pack_padded_sequence(seqs, [5, 3, 2])
    lstm = model.rnn
    out, (h, c) = nn.LSTM(4, 5, 2)(packed) if False else lstm(
        R.pack_padded_sequence(model.encoder(data[:5, :2]), [5, 3], enforce_sorted=True))
    padded, lens = R.pad_packed_sequence(out)
    return [warn[1], losses, [list(w.shape) for w in lstm.all_weights[1]], padded[:, 1, 0], lens,
            h[-1], packed.batch_sizes, lstm._flat_weights_names[:4], hidden[0].requires_grad]


def tensor_methods_old(T):
    """The tensor API older scripts poke at: nelement, ndimension, size(d),
    type_as, element_size, get_device, is_cuda, storage sizes and offsets,
    data_ptr sharing, is_leaf and grad_fn, in-place shape methods (t_,
    unsqueeze_, squeeze_, resize_as_), apply_ and map_, item() of a
    one-element tensor and its error for more, torch.typename, is_tensor,
    Size arithmetic."""
    x = T.arange(6.0).view(2, 3)
    y = x[:, 1:]
    z = x.clone()
    z.t_()
    u = T.ones(3)
    u.unsqueeze_(0)
    v = T.ones(1, 3, 1)
    v.squeeze_()
    w = T.ones(4)
    w.resize_as_(x)
    a = T.arange(4.0)
    a.apply_(lambda t: t * 2 + 1)
    b = T.arange(4.0)
    b.map_(T.ones(4), lambda p, q: p - q)
    leaf = T.ones(2, requires_grad=True)
    nonleaf = leaf * 2
    return [x.nelement(), x.ndimension(), x.size(1), x.size(-1), T.ones(2, dtype=T.long)
            .type_as(x).dtype, x.element_size(), x.get_device(), x.is_cuda,
            y.storage_offset(), y.stride(), y.is_contiguous(),
            y.untyped_storage().nbytes(), y.data_ptr() - x.data_ptr(),
            leaf.is_leaf, nonleaf.is_leaf, nonleaf.grad_fn is None, z, list(u.shape),
            list(v.shape), list(w.shape), a, b, T.tensor([2.5]).item(),
            _message(lambda: T.ones(2).item()), T.typename(x), T.is_tensor(x),
            T.is_floating_point(x), x.size() == (2, 3), x.shape[1:].numel(),
            list(x.size() + (4,)), T.numel(x), T.Size([2, 3]), x.data.requires_grad,
            T.is_storage(x.untyped_storage()), x.is_shared(), x.is_pinned(),
            x.new_empty((2,)).shape, x.new_full((2,), 3).tolist(), x.new_ones(1).dtype]


def init_facts(T):
    """nn.init as a model's reset_parameters uses it: calculate_gain for
    each nonlinearity, fan in and out (conv and linear), the bounds and
    spreads of kaiming_uniform_, xavier_uniform_ and a Linear's own
    initialisation (random values: their bounds, not the draws), eye_,
    dirac_ with groups, zeros_/ones_, sparse_'s zero fraction, orthogonal_'s
    orthogonality."""
    nn = T.nn
    I = nn.init
    gains = [I.calculate_gain(n) for n in ("linear", "conv2d", "sigmoid", "tanh", "relu",
                                            "selu")]
    gains += [I.calculate_gain("leaky_relu", 0.2), I.calculate_gain("leaky_relu")]
    fans = [I._calculate_fan_in_and_fan_out(T.empty(8, 4, 3, 3)),
            I._calculate_fan_in_and_fan_out(T.empty(5, 7)),
            I._calculate_correct_fan(T.empty(5, 7), "fan_out")]
    w = T.empty(64, 32)
    T.manual_seed(0)
    I.kaiming_uniform_(w, a=math.sqrt(5))
    bound_k = w.abs().max().item() <= 1 / math.sqrt(32) + 1e-7
    I.xavier_uniform_(w, gain=2.0)
    bound_x = w.abs().max().item() <= 2.0 * math.sqrt(6 / 96) + 1e-7
    I.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    spread = abs(w.std().item() / math.sqrt(2 / 64) - 1) < 0.1
    lin = nn.Linear(32, 16)
    lin_bound = lin.weight.abs().max().item() <= 1 / math.sqrt(32) + 1e-7 and \
        lin.bias.abs().max().item() <= 1 / math.sqrt(32) + 1e-7
    conv = nn.Conv2d(4, 6, 3, groups=2, bias=False)
    I.dirac_(conv.weight, groups=2)
    e = I.eye_(T.empty(3, 5))
    sp = I.sparse_(T.empty(10, 6), sparsity=0.3)
    q = I.orthogonal_(T.empty(4, 6))
    tn = I.trunc_normal_(T.empty(1000), std=1.0, a=-0.5, b=0.5)
    return [gains, fans, bound_k, bound_x, spread, lin_bound, conv.weight.sum((2, 3)),
            conv.weight[1, 0], e, (sp == 0).sum(0), (q @ q.T - T.eye(4)).abs().max() < 1e-5,
            tn.min().item() >= -0.5 and tn.max().item() <= 0.5,
            I.zeros_(T.empty(2)), I.ones_(T.empty(2)), I.constant_(T.empty(2), 0.25)]


def state_dtypes(T):
    """Dtypes across a model's life: half() and bfloat16() keep integer
    buffers (num_batches_tracked) int64, a float32 state dict loads into a
    half model by casting, to(float64) and back, a state dict's tensors
    share storage with the parameters until cloned, load_state_dict of an
    int64 tensor into a float parameter casts."""
    nn = T.nn
    model = _init(T, nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2)), 1)
    model(_t(T, 5, 3, seed=2))
    sd32 = {k: v.clone() for k, v in model.state_dict().items()}
    half = copy.deepcopy(model).half()
    bf = copy.deepcopy(model).bfloat16()
    dbl = copy.deepcopy(model).to(T.float64)
    half.load_state_dict(sd32)
    sd = model.state_dict()
    shared = sd["0.weight"].data_ptr() == model[0].weight.data_ptr()
    m2 = nn.Linear(2, 2)
    m2.load_state_dict({"weight": T.tensor([[1, 2], [3, 4]]), "bias": T.tensor([0, 1])})
    return [[str(v.dtype) for v in half.state_dict().values()],
            [str(v.dtype) for v in bf.state_dict().values()], dbl[1].running_var.dtype,
            half[0].weight, half[1].num_batches_tracked, shared, m2.weight, m2.bias.dtype,
            dbl.float()[0].weight.dtype, half(_t(T, 2, 3, seed=3).half()).dtype,
            model[1].num_batches_tracked.dtype]


def inplace_autograd(T):
    """In-place ops inside a differentiated model: ReLU(inplace=True) after
    batch norm, sigmoid_ and exp_ on intermediates (their saved outputs),
    += on a view of an intermediate, F.relu_ / leaky_relu_,
    dropout(p=0, inplace); gradients
    against the out-of-place program; the version-counter error when a
    saved input or a saved output (sigmoid_'s) is overwritten (its words up
    to the tensor's description), and in-place on a view of a leaf."""
    nn = T.nn
    F = nn.functional
    W = _t(T, 3, 4, seed=1)

    def run(inplace):
        w = W.clone().requires_grad_(True)
        x = _t(T, 5, 3, seed=2)
        h = x @ w
        h = F.batch_norm(h, None, None, training=True)
        h = F.relu(h, inplace=inplace)
        a = h * 1.5
        a = a.sigmoid_() if inplace else a.sigmoid()
        b = h + 0.5
        b = b.exp_() if inplace else b.exp()
        c = a * b
        if inplace:
            c[:, 1:3] += 1.0
            c = F.leaky_relu_(c - 2, 0.1)
            c = F.elu(c)     # elu_ would overwrite what leaky_relu_ saved
            c = F.dropout(c, 0.0, training=True, inplace=True)
            c = c.masked_fill(c > 3, 3.0)
        else:
            c = c + T.cat([T.zeros(5, 1), T.ones(5, 2), T.zeros(5, 1)], 1)
            c = F.leaky_relu(c - 2, 0.1)
            c = F.elu(c)
            c = c.masked_fill(c > 3, 3.0)
        c.pow(2).sum().backward()
        return c, w.grad

    c1, g1 = run(True)
    c2, g2 = run(False)

    def overwrite():
        w = W.clone().requires_grad_(True)
        h = w * 2
        s = h.sin()
        h.add_(1)
        s.sum().backward()

    def fill_saved_output():
        w = W.clone().requires_grad_(True)
        c = (w * 2).sigmoid_()
        c.masked_fill_(c > 0.7, 1.0)
        c.sum().backward()

    def leaf_view():
        w = W.clone().requires_grad_(True)
        w[0].mul_(2)

    def leaf_view_nograd():
        w = W.clone().requires_grad_(True)
        with T.no_grad():
            w[0].mul_(2)
        return w[0]

    return [c1, (c1 - c2).abs().max().item() < 1e-6, g1, (g1 - g2).abs().max().item() < 1e-5,
            _message(overwrite)[1].split(":")[0], _message(fill_saved_output)[1].split(":")[0],
            _message(leaf_view),
            leaf_view_nograd(),
            type(c1.grad_fn).__name__]


def create_graph_grads(T):
    """backward(create_graph=True) leaves gradients that carry a graph; a
    gradient-norm penalty from them, differentiated again; zero_grad
    afterwards (set_to_none False: detached and zeroed in place), the
    warning for .grad of a non-leaf, torch.autograd.backward over two
    losses with their own grad_tensors, a module used twice (weight
    sharing) accumulating."""
    nn = T.nn
    model = _init(T, nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1)), 1)
    x = _t(T, 4, 2, seed=2)
    loss = model(x).pow(2).mean()
    loss.backward(create_graph=True)
    g = model[0].weight.grad
    out = [g.requires_grad, g.grad_fn is not None]
    penalty = sum(p.grad.pow(2).sum() for p in model.parameters())
    grads2 = T.autograd.grad(penalty, list(model.parameters()))
    out.append(grads2[0])
    model.zero_grad(set_to_none=False)
    out += [model[0].weight.grad.requires_grad, model[0].weight.grad.abs().sum().item()]
    h = x * 2
    out.append(_warned(lambda: h.grad))
    enc = _init(T, nn.Linear(2, 2), 3)
    enc.zero_grad()
    l1 = enc(x).sum()
    l2 = enc(x * 2).pow(2).sum()
    T.autograd.backward([l1, l2], [T.tensor(1.0), T.tensor(0.5)])
    out.append(enc.weight.grad)
    a, b = enc(x[:2]), enc(x[2:])
    enc.zero_grad(set_to_none=True)
    out.append(enc.weight.grad)
    (a - b).pow(2).sum().backward()
    out.append(enc.weight.grad)
    return out


# ---- a sixth batch: the data and evaluation code around the model ---------------------------

def text_pipeline(T):
    """A text classifier's data code: a vocabulary from token counts, ids by
    unique(return_inverse, return_counts), padding, one_hot, stable sorts
    by length, bucketing by searchsorted, isin for stop words, integer
    arithmetic on ids (floor division and remainder of negatives), then a
    bag-of-embeddings model trained a few steps."""
    import collections
    nn = T.nn
    F = nn.functional
    docs = ["the cat sat on the mat", "a dog ate the cat food", "the the end",
            "dogs and cats and mats"]
    counts = collections.Counter(w for d in docs for w in d.split())
    itos = ["<pad>", "<unk>"] + [w for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
                                 if c >= 1]
    stoi = {w: i for i, w in enumerate(itos)}
    seqs = [T.tensor([stoi.get(w, 1) for w in d.split()]) for d in docs]
    lens = T.tensor([len(q) for q in seqs])
    order = T.argsort(lens, descending=True, stable=True)
    padded = nn.utils.rnn.pad_sequence([seqs[i] for i in order], batch_first=True)
    flat = T.cat(seqs)
    uniq, inverse, cnt = T.unique(flat, sorted=True, return_inverse=True, return_counts=True)
    consec = T.unique_consecutive(T.tensor([1, 1, 2, 2, 2, 1, 3, 3]), return_counts=True)
    stop = T.isin(flat, T.tensor([stoi["the"], stoi["a"], stoi["and"]]))
    buckets = T.searchsorted(T.tensor([2, 4, 6]), lens, right=False)
    neg = T.tensor([-7, -3, 4, 9])
    ints = [neg // 2, neg % 3, T.div(neg, 2, rounding_mode="floor"),
            T.div(neg, 2, rounding_mode="trunc"), T.fmod(neg, 3), T.remainder(neg, -4),
            neg.cumsum(0), neg.sum().dtype, (neg / 2).dtype, T.true_divide(neg, 4)]
    emb = _init(T, nn.EmbeddingBag(len(itos), 4, mode="mean", padding_idx=0), 1)
    head = _init(T, nn.Linear(4, 2), 2)
    y = T.tensor([0, 1, 0, 1])[order]
    opt = T.optim.Adam(list(emb.parameters()) + list(head.parameters()), lr=0.05)
    losses = []
    for _ in range(3):
        loss = F.cross_entropy(head(emb(padded)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [itos, padded, order, uniq, inverse, cnt, list(consec), stop, buckets, ints,
            F.one_hot(T.tensor([0, 3, 1])), F.one_hot(T.tensor([2]), num_classes=5),
            T.nonzero(stop).squeeze(1), list(T.where(padded == 0)),
            T.masked_select(flat, ~stop), losses]


def metrics_eval(T):
    """An evaluation loop's metrics: accuracy, top-k accuracy, a confusion
    matrix by bincount, precision/recall/F1 with zero-division guards, ROC
    AUC by sorting and cumulative sums, average precision, mean IoU of a
    segmentation, each formatted for the log (percent and fixed formats of
    0-d tensors)."""
    logits = _t(T, 12, 4, seed=1)
    target = T.tensor([0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 1, 2])
    pred = logits.argmax(1)
    acc = (pred == target).float().mean()
    top2 = (logits.topk(2, 1).indices == target.unsqueeze(1)).any(1).float().mean()
    conf = T.bincount(target * 4 + pred, minlength=16).view(4, 4)
    tp = conf.diag().float()
    prec = tp / conf.sum(0).clamp(min=1)
    rec = tp / conf.sum(1).clamp(min=1)
    f1 = T.where(prec + rec > 0, 2 * prec * rec / (prec + rec), T.zeros_like(prec))
    score = logits[:, 0]
    pos = (target == 0).float()
    idx = T.argsort(score, descending=True)
    tps = T.cumsum(pos[idx], 0)
    fps = T.cumsum(1 - pos[idx], 0)
    tpr = T.cat([T.zeros(1), tps / tps[-1]])
    fpr = T.cat([T.zeros(1), fps / fps[-1]])
    auc = T.trapezoid(tpr, fpr)
    ap = ((tps / T.arange(1, 13)) * pos[idx]).sum() / pos.sum()
    seg_pred = T.from_numpy(np.random.default_rng(2).integers(0, 3, (2, 5, 5)))
    seg_true = T.from_numpy(np.random.default_rng(3).integers(0, 3, (2, 5, 5)))
    cm = T.bincount((seg_true * 3 + seg_pred).flatten(), minlength=9).view(3, 3)
    iou = cm.diag() / (cm.sum(0) + cm.sum(1) - cm.diag())
    line = f"acc {acc:.2%} top2 {top2:.3f} auc {auc:.4f} ap {ap:.3e} miou {iou.mean():.4f}"
    return [acc, top2, conf, prec, rec, f1, auc, ap, iou, line, "%.3f" % acc,
            "{:>8.4f}".format(f1.mean()), round(auc.item(), 3), int(conf.sum()),
            float(iou.nanmean())]


def sampling_filters(T):
    """Decoding filters as generation code writes them: temperature, a
    repetition penalty by gather and scatter_, top-k and top-p (nucleus)
    filtering with sort, cumsum and a scatter back, the finfo minimum as
    the masked value, greedy picks over a few steps of a GRU decoder."""
    nn = T.nn
    F = nn.functional
    V = 10
    cell = _init(T, nn.GRUCell(4, 6), 1)
    emb = _init(T, nn.Embedding(V, 4), 2)
    out = _init(T, nn.Linear(6, V), 3)

    def top_k_top_p(logits, k, p):
        kth = T.topk(logits, k)[0][..., -1, None]
        logits = logits.masked_fill(logits < kth, T.finfo(logits.dtype).min)
        sorted_logits, sorted_idx = T.sort(logits, descending=True)
        cum = T.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        remove = cum > p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        mask = remove.scatter(1, sorted_idx, remove)
        return logits.masked_fill(mask, -float("inf"))

    tokens = T.tensor([[1], [4]])
    h = T.zeros(2, 6)
    steps = []
    with T.no_grad():
        for _ in range(5):
            h = cell(emb(tokens[:, -1]), h)
            logits = out(h) / 0.7
            prev = T.gather(logits, 1, tokens)
            logits.scatter_(1, tokens, T.where(prev < 0, prev * 1.3, prev / 1.3))
            filtered = top_k_top_p(logits, 4, 0.8)
            probs = F.softmax(filtered, -1)
            nxt = probs.argmax(-1, keepdim=True)
            steps.append([filtered, probs.max(-1).values])
            tokens = T.cat([tokens, nxt], 1)
    return [tokens, steps, T.finfo(T.float32).min, T.finfo(T.float16).max,
            T.finfo(T.bfloat16).eps, T.iinfo(T.int32).max, T.finfo().tiny, str(T.finfo(T.float32))]


def numpy_interop(T):
    """How training code mixes NumPy and tensors: NumPy scalars times
    tensors (result dtypes), torch.tensor of NumPy scalars and 0-d arrays,
    as_tensor's dtype and sharing, from_numpy sharing and writes back,
    indexing a tensor by NumPy integers, a tensor as a NumPy function's
    argument, numpy() views."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = T.from_numpy(a)
    t[0, 0] = 10.0
    shared = bool(a[0, 0] == 10.0)
    x = T.ones(3)
    prods = [(x * np.float64(2.0)).dtype, (x * np.float32(2.0)).dtype, (x * np.int64(2)).dtype,
             (T.ones(3, dtype=T.int32) * np.int64(3)).dtype,
             (T.ones(3, dtype=T.int32) * np.float64(1.5)).dtype]
    made = [T.tensor(np.float64(1.0)).dtype, T.tensor(np.array(3)).dtype,
            T.tensor([np.float32(1), np.float32(2)]).dtype, T.as_tensor(np.arange(3, dtype=np.int32)).dtype,
            T.tensor(np.array([1.5, 2.5])).dtype, T.as_tensor([1, 2], dtype=T.float32).dtype]
    c = np.zeros(3, dtype=np.float32)
    ct = T.as_tensor(c)
    ct += 1
    v = t.numpy()
    v[1, 1] = -1.0
    idx = [t[np.int64(1)], t[np.int32(0), np.int64(2)], t[:, np.array([2, 0])]]
    return [shared, prods, made, c.tolist(), t[1, 1], idx, float(np.mean(T.arange(4.0).numpy())),
            np.asarray(T.arange(3)).dtype.name, T.arange(3.0).numpy().dtype.name,
            T.tensor([1, 2]).numpy().tolist(),
            T.nn.functional.cosine_similarity(T.from_numpy(np.array([[3, 4]])),
                                              T.tensor([[4.0, 3.0]]))]


# ---- a seventh batch: checkpoints the old ways, the old backward hook ------------------------

class _RunConfig:
    """A user's own class pickled into a checkpoint (module level, so that
    pickle can find it)."""

    def __init__(self, lr, layers):
        self.lr, self.layers = lr, layers

    def __eq__(self, other):
        return isinstance(other, _RunConfig) and (self.lr, self.layers) == (other.lr, other.layers)


def serialization_old_ways(T):
    """Checkpoints as scripts of every age write and read them: the legacy
    (non-zip) format, pickle_protocol, map_location as a lambda, a dict and
    a device, views saved together keeping their shared storage, dtypes,
    devices and Sizes inside, a user class refused by weights_only's
    default (its error) and allowed by add_safe_globals / safe_globals,
    weights_only=False."""
    import os
    import tempfile
    model = _init(T, T.nn.Linear(3, 2), 1)
    base = T.arange(6.0)
    view = base[2:5]
    ck = {"model": model.state_dict(), "pair": [base, view], "dtype": T.float16,
          "device": T.device("cpu"), "size": T.Size([2, 3]), "step": 7, "tup": (1.5, "a")}
    out = []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ck.pt")
        for kw in ({}, {"_use_new_zipfile_serialization": False}, {"pickle_protocol": 2}):
            T.save(ck, path, **kw)
            for ml in (None, lambda storage, loc: storage, {"cuda:0": "cpu"}, T.device("cpu"), "cpu"):
                back = T.load(path, map_location=ml)
                b0, b1 = back["pair"]
                b0[3] = 100.0
                out.append([b1.tolist(), back["dtype"], str(back["device"]), back["size"],
                            back["step"], back["tup"], back["model"]["weight"]])
        cfg_path = os.path.join(d, "cfg.pt")
        T.save({"cfg": _RunConfig(0.1, 3), "w": T.ones(2)}, cfg_path)
        try:
            T.load(cfg_path)
            refused = "no error"
        except Exception as e:  # noqa: BLE001
            # the wording is torchlike's own (no "In PyTorch 2.6 ..." history)
            refused = [type(e).__name__, str(e).startswith("Weights only load failed"),
                       "_RunConfig was not an allowed global by default" in str(e),
                       "add_safe_globals" in str(e)]
        with T.serialization.safe_globals([_RunConfig]):
            in_ctx = T.load(cfg_path)["cfg"] == _RunConfig(0.1, 3)
        T.serialization.add_safe_globals([_RunConfig])
        try:
            allowed = T.load(cfg_path)["cfg"] == _RunConfig(0.1, 3)
        finally:
            T.serialization.clear_safe_globals()
        full = T.load(cfg_path, weights_only=False)["cfg"].layers
    return [out, refused, in_ctx, allowed, full]


def old_backward_hook(T):
    """The module backward hooks that Grad-CAM era code registers: the
    full backward hook (grad_input and grad_output of the module's
    inputs and outputs) on a conv layer and a block, a hook replacing the
    input gradient, forward hooks keeping activations for a CAM, the
    activations' gradients by retain_grad."""
    nn = T.nn
    F = nn.functional
    net = _init(T, nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(3, 2, 3, padding=1), nn.AdaptiveAvgPool2d(1),
                                 nn.Flatten(), nn.Linear(2, 3)), 1)
    log = []
    acts = {}

    def keep(name):
        def hook(mod, inp, out):
            out.retain_grad()
            acts[name] = out
        return hook

    def bhook(mod, gin, gout):
        log.append([type(mod).__name__, [None if g is None else list(g.shape) for g in gin],
                    [list(g.shape) for g in gout]])

    def scale(mod, gin, gout):
        return tuple(None if g is None else g * 0.5 for g in gin)

    net[2].register_forward_hook(keep("feat"))
    net[2].register_full_backward_hook(bhook)
    net[0].register_full_backward_hook(scale)
    x = _t(T, 2, 1, 5, 5, seed=2).requires_grad_(True)
    logits = net(x)
    logits[:, 1].sum().backward()
    feat = acts["feat"]
    weights = feat.grad.mean((2, 3), keepdim=True)
    cam = F.relu((weights * feat).sum(1))
    cam = cam / cam.amax((1, 2), keepdim=True).clamp_min(1e-8)
    return [log, x.grad[0, 0], cam[1], net[0].weight.grad[0, 0], feat.grad.abs().sum()]


def weight_drop_lstm(T):
    """AWD-LSTM's WeightDrop: an LSTM's hidden-to-hidden weight taken out of
    its parameters, kept as a raw Parameter and set back as a plain tensor
    (raw times a DropConnect mask, fixed here) before every forward;
    trained a few steps; the LSTM's _all_weights and _flat_weights as such
    code reads them."""
    nn = T.nn

    class WeightDrop(nn.Module):
        def __init__(self, module, weights, mask):
            super().__init__()
            self.module, self.weights, self.mask = module, weights, mask
            for name_w in self.weights:
                w = getattr(self.module, name_w)
                del self.module._parameters[name_w]
                self.module.register_parameter(name_w + "_raw", nn.Parameter(w.data))

        def _setweights(self):
            for name_w in self.weights:
                raw_w = getattr(self.module, name_w + "_raw")
                setattr(self.module, name_w, raw_w * self.mask)

        def forward(self, *args):
            self._setweights()
            return self.module(*args)

    lstm = _init(T, nn.LSTM(3, 4, num_layers=2), 1)
    mask = T.from_numpy((np.random.default_rng(2).random((16, 4)) > 0.3).astype(np.float32))
    wd = WeightDrop(lstm, ["weight_hh_l0", "weight_hh_l1"], mask)
    x = _t(T, 5, 2, 3, seed=3)
    opt = T.optim.SGD(wd.parameters(), lr=0.5)
    losses = []
    for _ in range(3):
        out, (h, c) = wd(x)
        loss = out.pow(2).mean() + h.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, sorted(n for n, _ in wd.named_parameters()), lstm.weight_hh_l1_raw.grad[1],
            lstm._all_weights, [type(w).__name__ for w in lstm._flat_weights], out[-1]]


def inputs(T):
    return {"T": T, **{name: globals()[name] for name in _PROGRAMS}}


_PROGRAMS = [
    "flow_transformed", "distribution_kls", "constrained_params", "gp_regression",
    "autograd_functional", "forward_ad", "func_transforms", "module_containers",
    "hooks_kwargs", "foreach_ema", "embeddings", "video_conv3d", "style_norms",
    "super_resolution", "patch_fold", "sparse_gcn", "sdpa_masks", "fourier_operator",
    "complex_net", "rotary_attention", "adaptive_softmax", "stft_loss", "rnn_cells",
    "cox_survival", "pointnet_chamfer", "fused_inference", "cyclic_schedulers",
    "multilabel_losses", "checkpoint_bytesio", "bilinear_siamese",
    "function_transforms", "autograd_graph", "linalg_layers", "special_likelihoods",
    "parametrize_maps", "distributions_more", "fake_quant_training", "tensor_surgery",
    "jit_trace", "module_api", "legacy_training_code", "data_parallel_script", "model_repr",
    "migrated_state_dict", "optimizer_extras", "grid_sample_modes", "scheduler_extras",
    "common_mistakes", "user_gradcheck", "assert_close_messages", "default_double",
    "legacy_api_more", "legacy_optim_sched", "old_rnn_code", "tensor_methods_old", "init_facts",
    "state_dtypes", "inplace_autograd", "create_graph_grads", "text_pipeline", "metrics_eval",
    "sampling_filters", "numpy_interop", "serialization_old_ways", "old_backward_hook",
    "weight_drop_lstm",
]
CALLS = [name + "(T)" for name in _PROGRAMS]


def main():
    record(CALLS, inputs, describe, "training_programs6", messages=True)


if __name__ == "__main__":
    main()
