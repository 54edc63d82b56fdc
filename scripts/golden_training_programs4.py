"""Record PyTorch's answers for a fourth round of training programs, for
tests/test_training_programs4.py, from areas the first three rounds left
out: a DCGAN step (ConvTranspose2d, BatchNorm2d, two optimizers), a graph
network (index_add_ / scatter_reduce message passing, segment softmax,
pooling), REINFORCE and PPO with torch.distributions, a GPT-style language
model (scaled_dot_product_attention, tied weights, label smoothing, warmup
then cosine), a contrastive InfoNCE / NT-Xent loss, custom
autograd.Functions (save_for_backward, mark_dirty, mark_non_differentiable,
setup_context, double backward), per-sample gradients and ensembles with
torch.func, a physics-informed network (higher-order grads, LBFGS), a CTC
speech model, a small U-Net for segmentation, a recommender (EmbeddingBag,
sparse gradients, SparseAdam), a mixture density network, a checkpoint
round trip, knowledge distillation, a bfloat16-autocast ResNet block, a
RealNVP flow, a temporal convolutional net and a spatial transformer.

As in round three, every program takes the library as T and builds its
parameters and data from NumPy, so the test runs the very same code on
torchlike; describe() is round three's.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs4.py
writes tests/golden/training_programs4.json ([call, outcome] pairs over T)."""
import copy
import io

import numpy as np

from golden_calls import record
from golden_training_programs3 import _arr, _data, _init, _raised, describe  # noqa: F401 - describe is the test's


# ---- a DCGAN step ---------------------------------------------------------------------------

def dcgan(T):
    """DCGAN on 8x8 images: the generator up-samples with ConvTranspose2d,
    BatchNorm2d in both nets, DCGAN's weights_init through apply(), BCELoss
    on a sigmoid output, labels made with full() and fill_()."""
    nn = T.nn

    def weights_init(m):
        if m.__class__.__name__.find("BatchNorm") != -1:
            nn.init.constant_(m.weight, 1.0)
            nn.init.constant_(m.bias, 0.0)

    G = nn.Sequential(nn.ConvTranspose2d(4, 8, 4, 1, 0, bias=False), nn.BatchNorm2d(8),
                      nn.ReLU(True), nn.ConvTranspose2d(8, 1, 4, 2, 1, bias=False), nn.Tanh())
    D = nn.Sequential(nn.Conv2d(1, 8, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                      nn.Conv2d(8, 8, 4, 2, 1, bias=False), nn.BatchNorm2d(8),
                      nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(8, 1, 2, 1, 0, bias=False),
                      nn.Sigmoid())
    _init(T, G, 1, 0.2).apply(weights_init)
    _init(T, D, 2, 0.2).apply(weights_init)
    criterion = nn.BCELoss()
    opt_d = T.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_g = T.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    real = _data(T, np.tanh(_arr(6, 1, 8, 8, seed=3)))
    log = []
    for step in range(3):
        D.zero_grad()
        label = T.full((6,), 1.0, dtype=T.float)
        out = D(real).view(-1)
        err_real = criterion(out, label)
        err_real.backward()
        d_x = out.mean().item()
        fake = G(_data(T, _arr(6, 4, 1, 1, seed=10 + step)))
        label.fill_(0.0)
        out = D(fake.detach()).view(-1)
        err_fake = criterion(out, label)
        err_fake.backward()
        opt_d.step()
        G.zero_grad()
        label.fill_(1.0)
        out = D(fake).view(-1)
        err_g = criterion(out, label)
        err_g.backward()
        opt_g.step()
        log.append([(err_real + err_fake).item(), err_g.item(), d_x, out.mean().item()])
    return [log, fake.shape, G[1].running_mean, G[1].running_var, D[3].running_var,
            G[0].weight.grad, D[0].weight.grad]


# ---- a graph network ------------------------------------------------------------------------

def graph_network(T):
    """Two graphs in one batch: a GCN layer (degrees by index_add_, messages
    gathered by index_select), a GAT layer (segment softmax by scatter_reduce
    amax, scatter_add_), mean / max pooling per graph by scatter_reduce, and
    index_reduce's mean; Adam on graph labels plus a node loss."""
    nn = T.nn
    F = nn.functional
    rng = np.random.default_rng(7)
    n, e = 7, 16
    src = _data(T, rng.integers(0, n, e))
    dst = _data(T, rng.integers(0, n, e))
    x = _data(T, _arr(n, 5, seed=8))
    batch = T.tensor([0, 0, 0, 0, 1, 1, 1])
    y_graph = T.tensor([1, 0])
    y_node = _data(T, _arr(n, seed=9))

    class GCN(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.lin = nn.Linear(i, o)

        def forward(self, x, src, dst):
            h = self.lin(x)
            deg = T.zeros(x.size(0)).index_add_(0, dst, T.ones(src.numel())) + 1
            norm = deg[src].rsqrt() * deg.index_select(0, dst).rsqrt()
            msg = h.index_select(0, src) * norm.unsqueeze(-1)
            return T.zeros_like(h).index_add_(0, dst, msg) + h / deg.unsqueeze(-1)

    class GAT(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.lin = nn.Linear(i, o, bias=False)
            self.a_src = nn.Parameter(T.empty(o))
            self.a_dst = nn.Parameter(T.empty(o))

        def forward(self, x, src, dst):
            h = self.lin(x)
            s = F.leaky_relu((h * self.a_src).sum(-1)[src] + (h * self.a_dst).sum(-1)[dst], 0.2)
            m = T.full((x.size(0),), float("-inf")).scatter_reduce(0, dst, s, "amax")
            ex = (s - m[dst]).exp()
            den = T.zeros(x.size(0)).index_add(0, dst, ex)
            alpha = ex / den[dst]
            idx = dst.unsqueeze(-1).expand(-1, h.size(1))
            return T.zeros_like(h).scatter_add_(0, idx, alpha.unsqueeze(-1) * h[src]), alpha

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.gcn, self.gat = GCN(5, 8), GAT(8, 8)
            self.node = nn.Linear(8, 1)
            self.head = nn.Linear(16, 2)

        def forward(self, x, src, dst, batch):
            h = F.relu(self.gcn(x, src, dst))
            h, alpha = self.gat(h, src, dst)
            h = F.elu(h)
            idx = batch.unsqueeze(-1).expand(-1, 8)
            mean = T.zeros(2, 8).scatter_reduce(0, idx, h, "mean", include_self=False)
            mx = T.zeros(2, 8).scatter_reduce(0, idx, h, "amax", include_self=False)
            return self.head(T.cat([mean, mx], 1)), self.node(h).squeeze(-1), alpha

    net = _init(T, Net(), 11)
    opt = T.optim.Adam(net.parameters(), lr=5e-3)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        logits, node, alpha = net(x, src, dst, batch)
        loss = F.cross_entropy(logits, y_graph) + 0.5 * F.mse_loss(node, y_node)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    h = _data(T, _arr(n, 3, seed=12)).requires_grad_()
    pooled = T.zeros(2, 3).index_reduce(0, batch, h, "mean", include_self=False)
    pooled.pow(2).sum().backward()
    return [losses, logits, alpha, net.gat.a_src.grad, net.gcn.lin.weight.grad, pooled, h.grad]


# ---- policy gradients -----------------------------------------------------------------------

def policy_gradient(T):
    """REINFORCE with a value baseline over a fixed episode (the actions
    given, as if sampled), discounted and normalised returns, an entropy
    bonus; then a PPO update (clipped ratio, KL between old and new
    Categorical) and a Gaussian policy (Independent Normal)."""
    nn = T.nn
    F = nn.functional
    D = T.distributions
    policy = _init(T, nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3)), 1)
    value = _init(T, nn.Linear(4, 1), 2)
    opt = T.optim.Adam(list(policy.parameters()) + list(value.parameters()), lr=1e-2)
    obs = _data(T, _arr(6, 4, seed=3))
    actions = T.tensor([0, 2, 1, 1, 0, 2])
    rewards = [1.0, 0.0, 0.5, -1.0, 1.0, 2.0]
    R, returns = 0.0, []
    for r in reversed(rewards):
        R = r + 0.99 * R
        returns.insert(0, R)
    returns = T.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    out = []
    for _ in range(2):
        dist = D.Categorical(logits=policy(obs))
        logp = dist.log_prob(actions)
        v = value(obs).squeeze(-1)
        adv = returns - v.detach()
        loss = -(logp * adv).mean() - 0.01 * dist.entropy().mean() + \
            F.smooth_l1_loss(v, returns)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append([loss.item(), dist.probs])
    old = D.Categorical(logits=policy(obs).detach())
    old_logp = old.log_prob(actions)
    for _ in range(2):
        new = D.Categorical(probs=F.softmax(policy(obs), -1))
        ratio = (new.log_prob(actions) - old_logp).exp()
        surr = T.min(ratio * adv, T.clamp(ratio, 0.8, 1.2) * adv)
        kl = D.kl_divergence(old, new).mean()
        loss = -surr.mean() + 0.1 * kl
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append([loss.item(), kl.item()])
    mu = policy(obs)[:, :2]
    log_std = nn.Parameter(T.full((2,), -0.5))
    gauss = D.Independent(D.Normal(mu, log_std.exp()), 1)
    a = _data(T, _arr(6, 2, seed=4))
    lp = gauss.log_prob(a)
    (-lp.mean() - 0.01 * gauss.entropy().mean()).backward()
    return [out, lp, gauss.entropy(), log_std.grad, old.entropy(), gauss.batch_shape,
            gauss.event_shape]


# ---- a GPT-style language model -------------------------------------------------------------

def gpt_lm(T):
    """A two-block causal LM as nanoGPT writes one: fused qkv split,
    scaled_dot_product_attention with is_causal, tied embedding and head,
    weight decay only on matrices, warmup then cosine (SequentialLR of
    LambdaLR and CosineAnnealingLR), label smoothing with ignore_index,
    gradient clipping; then greedy top-k decoding in eval mode."""
    nn = T.nn
    F = nn.functional
    V, C, H, L = 13, 16, 2, 8

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(C), nn.LayerNorm(C)
            self.qkv = nn.Linear(C, 3 * C)
            self.proj = nn.Linear(C, C)
            self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(approximate="tanh"),
                                     nn.Linear(4 * C, C))

        def forward(self, x):
            B, N, _ = x.size()
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, N, H, C // H).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(B, N, C))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(V, C)
            self.wpe = nn.Embedding(L, C)
            self.blocks = nn.ModuleList([Block() for _ in range(2)])
            self.ln_f = nn.LayerNorm(C)
            self.head = nn.Linear(C, V, bias=False)
            self.head.weight = self.wte.weight

        def forward(self, idx, targets=None):
            pos = T.arange(0, idx.size(1), dtype=T.long)
            x = self.wte(idx) + self.wpe(pos)
            for b in self.blocks:
                x = b(x)
            logits = self.head(self.ln_f(x))
            if targets is None:
                return logits[:, [-1], :], None
            return logits, F.cross_entropy(logits.view(-1, V), targets.view(-1),
                                           ignore_index=-1, label_smoothing=0.1)

    model = _init(T, GPT(), 1, 0.2)
    params = {n: p for n, p in model.named_parameters()}
    groups = [{"params": [p for p in params.values() if p.dim() >= 2], "weight_decay": 0.1},
              {"params": [p for p in params.values() if p.dim() < 2], "weight_decay": 0.0}]
    opt = T.optim.AdamW(groups, lr=3e-3, betas=(0.9, 0.95))
    warm = T.optim.lr_scheduler.LambdaLR(opt, lambda s: (s + 1) / 3)
    cos = T.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=1e-4)
    sched = T.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[2])
    data = np.random.default_rng(2).integers(0, V, (3, L + 1))
    x, y = _data(T, data[:, :-1].copy()), _data(T, data[:, 1:].copy())
    y[2, 5:] = -1
    log = []
    for _ in range(5):
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        log.append([loss.item(), norm.item(), sched.get_last_lr()[0]])
    model.eval()
    idx = x[:1, :3]
    with T.no_grad():
        for _ in range(4):
            logits, _ = model(idx[:, -L:])
            logits = logits[:, -1, :] / 0.8
            v, _ = T.topk(logits, 3)
            logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx = T.cat((idx, probs.argmax(-1, keepdim=True)), dim=1)
    return [log, idx, probs, model.head.weight is model.wte.weight,
            len(list(model.parameters())), model.wpe.weight.grad]


# ---- contrastive learning -------------------------------------------------------------------

def contrastive(T):
    """CLIP's symmetric InfoNCE with a learned temperature (logit_scale,
    clamped), SimCLR's NT-Xent (self-similarity masked with -inf before
    cross entropy), and a triplet loss on cdist; SGD with Nesterov."""
    nn = T.nn
    F = nn.functional
    img = _init(T, nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4)), 1)
    txt = _init(T, nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 4)), 2)
    logit_scale = nn.Parameter(T.ones([]) * np.log(1 / 0.07))
    opt = T.optim.SGD(list(img.parameters()) + list(txt.parameters()) + [logit_scale], lr=0.05,
                      momentum=0.9, nesterov=True)
    a, b = _data(T, _arr(5, 6, seed=3)), _data(T, _arr(5, 5, seed=4))
    n = a.size(0)
    log = []
    for _ in range(3):
        za, zb = F.normalize(img(a), dim=-1), F.normalize(txt(b), dim=-1)
        logits = logit_scale.exp().clamp(max=100) * za @ zb.t()
        labels = T.arange(n)
        clip = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
        z = T.cat([za, F.normalize(img(a + 0.1), dim=1)], 0)
        sim = (z @ z.T / 0.5).masked_fill(T.eye(2 * n, dtype=T.bool), float("-inf"))
        nt_xent = F.cross_entropy(sim, (T.arange(2 * n) + n) % (2 * n))
        loss = clip + nt_xent
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([clip.item(), nt_xent.item(), logit_scale.item()])
    anchor, pos = img(a), img(a.flip(0))
    d = T.cdist(anchor, pos)
    neg = pos[d.argmax(1)]
    trip = nn.TripletMarginLoss(margin=0.5)(anchor, pos, neg)
    cos = F.cosine_similarity(anchor.unsqueeze(1), pos.unsqueeze(0), dim=-1)
    return [log, logit_scale.grad, d, trip, cos, F.pairwise_distance(anchor, pos)]


# ---- custom autograd functions --------------------------------------------------------------

def custom_functions(T):
    """Functions a program writes: an in-place clamp with mark_dirty, a
    top-1 with a non-differentiable index, a linear with needs_input_grad,
    setup_context and once_differentiable, a straight-through round, a
    double backward through a Function, and the errors PyTorch raises."""
    F = T.autograd.Function

    class ClampInplace(F):
        @staticmethod
        def forward(ctx, x, lo):
            ctx.mark_dirty(x)
            ctx.save_for_backward(x.ge(lo))
            return x.clamp_(min=lo)

        @staticmethod
        def backward(ctx, g):
            (keep,) = ctx.saved_tensors
            return g * keep, None

    class Top1(F):
        @staticmethod
        def forward(ctx, x):
            v, i = x.max(-1)
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(i)
            ctx.shape = x.shape
            return v, i

        @staticmethod
        def backward(ctx, gv, gi):
            (i,) = ctx.saved_tensors
            return T.zeros(ctx.shape).scatter(-1, i.unsqueeze(-1), gv.unsqueeze(-1))

    class Linear(F):
        @staticmethod
        def forward(x, w, b):
            return x @ w.t() + b

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, w, b = inputs
            ctx.save_for_backward(x, w)

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            gx = g @ w if ctx.needs_input_grad[0] else None
            gw = g.t() @ x if ctx.needs_input_grad[1] else None
            gb = g.sum(0) if ctx.needs_input_grad[2] else None
            return gx, gw, gb

    class RoundSTE(F):
        @staticmethod
        def forward(ctx, x):
            return x.round()

        @staticmethod
        def backward(ctx, g):
            return g

    class Cube(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = _data(T, _arr(3, 4, seed=1)).requires_grad_()
    w = _data(T, _arr(2, 4, seed=2)).requires_grad_()
    b = T.zeros(2, requires_grad=True)
    h = x * 2
    c = ClampInplace.apply(h, 0.1)
    v, i = Top1.apply(c)
    y = Linear.apply(RoundSTE.apply(c * 3), w, b)
    (v.sum() + y.pow(2).sum()).backward()
    out = [c is h, c.grad_fn.__class__.__name__, i.requires_grad, x.grad, w.grad, b.grad]
    x2 = _data(T, _arr(2, 4, seed=3))
    x2.requires_grad_(False)
    out.append(Linear.apply(x2, w.detach(), b.detach()).requires_grad)
    z = T.tensor([0.5, -1.5], requires_grad=True)
    (g,) = T.autograd.grad(Cube.apply(z).sum(), z, create_graph=True)
    (gg,) = T.autograd.grad(g.sum(), z)
    out += [g, gg]
    zd = _data(T, _arr(3, seed=5)).double().requires_grad_()
    out.append(T.autograd.gradcheck(Cube.apply, (zd,)))
    leaf = T.ones(2, requires_grad=True)
    out.append(_raised(lambda: ClampInplace.apply(leaf, 0.0)))
    out.append(_raised(lambda: ClampInplace.apply(leaf[:1], 0.0)))
    out.append(_raised(lambda: T.autograd.grad(
        Linear.apply(x, w, b).sum(), x, create_graph=True)[0].sum().backward()))
    return out


# ---- torch.func ------------------------------------------------------------------------------

def per_sample_grads(T):
    """Per-sample gradients by vmap(grad(...)) over functional_call, the
    same by a loop; an ensemble by stack_module_state; jacrev, hessian and
    jvp of a small function."""
    nn = T.nn
    F = nn.functional
    tf = T.func
    model = _init(T, nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)), 1)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = _data(T, _arr(4, 3, seed=2)), T.tensor([0, 1, 1, 0])

    def loss_fn(p, xi, yi):
        out = tf.functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(out, yi.unsqueeze(0))

    per = tf.vmap(tf.grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
    loops = []
    for i in range(4):
        model.zero_grad()
        F.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        loops.append(model[0].weight.grad.clone())
    g, loss = tf.grad_and_value(loss_fn)(params, x[0], y[0])
    models = [_init(T, nn.Linear(3, 2), s) for s in (3, 4, 5)]
    stacked, buffers = tf.stack_module_state(models)
    base = copy.deepcopy(models[0])

    def call(p, b, xi):
        return tf.functional_call(base, (p, b), (xi,))

    ens = tf.vmap(call, in_dims=(0, 0, None))(stacked, buffers, x)

    def f(u):
        return (u.sin() * u.sum()).sum()

    u = _data(T, _arr(3, seed=6))
    _, tangent = tf.jvp(lambda t: t.sin() * t.sum(), (u,), (T.ones(3),))
    return [per["0.weight"], T.stack(loops), per["2.bias"], loss, g["2.weight"], ens,
            stacked["weight"].shape, tf.jacrev(lambda t: t.sin() * t.sum())(u),
            tf.hessian(f)(u), tangent]


def meta_ensemble(T):
    """PyTorch's model-ensembling recipe as written: the stateless base
    module moved to the meta device (no storage) before functional_call."""
    nn = T.nn
    tf = T.func
    models = [_init(T, nn.Linear(3, 2), s) for s in (3, 4, 5)]
    stacked, buffers = tf.stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    x = _data(T, _arr(4, 3, seed=2))
    out = tf.vmap(lambda p, b, xi: tf.functional_call(base, (p, b), (xi,)),
                  in_dims=(0, 0, None))(stacked, buffers, x)
    return [out, str(base.weight.device), base.weight.shape]


# ---- knowledge distillation with mixup ------------------------------------------------------

def distillation(T):
    """A student distilled from a frozen teacher on mixup batches: the soft
    loss by KLDivLoss(batchmean) of temperature-scaled log_softmax (and
    F.kl_div with log_target), the hard loss by cross entropy with
    probability targets and label smoothing; OneCycleLR on AdamW."""
    nn = T.nn
    F = nn.functional
    teacher = _init(T, nn.Sequential(nn.Linear(6, 24), nn.ReLU(), nn.Linear(24, 4)), 1).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    student = _init(T, nn.Sequential(nn.Linear(6, 8), nn.Hardswish(), nn.Linear(8, 4)), 2)
    opt = T.optim.AdamW(student.parameters(), lr=1e-2)
    sched = T.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=4)
    x = _data(T, _arr(8, 6, seed=3))
    y = T.tensor([0, 1, 2, 3, 3, 2, 1, 0])
    kl = nn.KLDivLoss(reduction="batchmean")
    Tm, lam = 2.0, 0.7
    log = []
    for step in range(4):
        perm = _data(T, np.random.default_rng(step).permutation(8))
        xm = lam * x + (1 - lam) * x[perm]
        ym = lam * F.one_hot(y, 4).float() + (1 - lam) * F.one_hot(y[perm], 4).float()
        with T.no_grad():
            t_logits = teacher(xm)
        s_logits = student(xm)
        soft = kl(F.log_softmax(s_logits / Tm, -1), F.softmax(t_logits / Tm, -1)) * Tm * Tm
        hard = F.cross_entropy(s_logits, ym, label_smoothing=0.05)
        loss = 0.5 * soft + 0.5 * hard
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        log.append([soft.item(), hard.item(), sched.get_last_lr()[0]])
    s_lp, t_lp = F.log_softmax(student(x), -1), F.log_softmax(teacher(x), -1)
    return [log, F.kl_div(s_lp, t_lp, reduction="none", log_target=True),
            F.kl_div(s_lp, t_lp.exp(), reduction="sum"),
            F.cross_entropy(student(x), y, reduction="none", label_smoothing=0.1),
            student[0].weight.grad]


# ---- a ResNet block under CPU autocast ------------------------------------------------------

def resnet_autocast(T):
    """A residual block run under torch.autocast("cpu", bfloat16): the
    dtypes of conv, batch norm, pooling and the loss; two SGD steps with the
    weights kept float32 (no GradScaler on bfloat16)."""
    nn = T.nn
    F = nn.functional

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.b1 = nn.BatchNorm2d(c)
            self.c2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.b2 = nn.BatchNorm2d(c)

        def forward(self, x):
            h = F.relu(self.b1(self.c1(x)))
            return F.relu(self.b2(self.c2(h)) + x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(1, 4, 3, padding=1)
            self.block = Block(4)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            h = self.block(self.stem(x))
            return self.fc(T.flatten(self.pool(h), 1)), h

    m = _init(T, Net(), 1, 0.3)
    opt = T.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    x = _data(T, _arr(4, 1, 6, 6, seed=2))
    y = T.tensor([0, 2, 1, 2])
    log = []
    for _ in range(2):
        with T.autocast("cpu", dtype=T.bfloat16):
            logits, h = m(x)
            loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([str(logits.dtype), str(h.dtype), str(loss.dtype), loss.item()])
    return [log, [str(p.grad.dtype) for p in m.parameters()], [str(p.dtype) for p in
                                                                m.parameters()],
            m.block.b1.running_mean.dtype, m.fc.weight.grad.float()]


# ---- a normalizing flow ---------------------------------------------------------------------

def realnvp(T):
    """RealNVP on 2-d points: affine couplings with alternating masks
    (register_buffer), tanh-bounded log scales, the log-determinant summed
    per sample, a MultivariateNormal base; sampling by the inverse from
    fixed latents."""
    nn = T.nn
    D = T.distributions

    class Coupling(nn.Module):
        def __init__(self, mask):
            super().__init__()
            self.register_buffer("mask", mask)
            self.s = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2), nn.Tanh())
            self.t = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))

        def forward(self, x):
            xm = x * self.mask
            s, t = self.s(xm) * (1 - self.mask), self.t(xm) * (1 - self.mask)
            return xm + (1 - self.mask) * (x * s.exp() + t), s.sum(-1)

        def inverse(self, z):
            zm = z * self.mask
            s, t = self.s(zm) * (1 - self.mask), self.t(zm) * (1 - self.mask)
            return zm + (1 - self.mask) * ((z - t) * (-s).exp())

    flows = nn.ModuleList([Coupling(T.tensor([1.0, 0.0])), Coupling(T.tensor([0.0, 1.0])),
                           Coupling(T.tensor([1.0, 0.0]))])
    _init(T, flows, 1, 0.4)
    base = D.MultivariateNormal(T.zeros(2), T.eye(2))
    x = _data(T, _arr(10, 2, seed=2) * np.array([2.0, 0.5], dtype=np.float32))
    opt = T.optim.Adam(flows.parameters(), lr=1e-2)
    losses = []
    for _ in range(3):
        z, logdet = x, T.zeros(x.size(0))
        for f in flows:
            z, ld = f(z)
            logdet = logdet + ld
        loss = -(base.log_prob(z) + logdet).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with T.no_grad():
        s = _data(T, _arr(4, 2, seed=5))
        for f in reversed(flows):
            s = f.inverse(s)
    return [losses, s, list(dict(flows.named_buffers())), flows[1].s[0].weight.grad,
            base.entropy()]


# ---- a temporal convolutional forecaster ----------------------------------------------------

def tcn(T):
    """Causal dilated Conv1d blocks (left padding by F.pad), weight norm
    parametrization, activation checkpointing with checkpoint_sequential,
    ReduceLROnPlateau on the loss, and parameters_to_vector for a snapshot
    restored by vector_to_parameters."""
    nn = T.nn
    F = nn.functional
    P = nn.utils.parametrizations

    class Causal(nn.Module):
        def __init__(self, c, d):
            super().__init__()
            self.d = d
            self.conv = P.weight_norm(nn.Conv1d(c, c, 2, dilation=d))

        def forward(self, x):
            return x + F.gelu(self.conv(F.pad(x, (self.d, 0))))

    body = nn.Sequential(nn.Conv1d(1, 4, 1), Causal(4, 1), Causal(4, 2), Causal(4, 4),
                         nn.Conv1d(4, 1, 1))
    _init(T, body, 1, 0.4)
    t = np.arange(24, dtype=np.float32)
    series = _data(T, np.stack([np.sin(0.4 * t), np.cos(0.3 * t)])[:, None, :])
    x, y = series[..., :-1], series[..., 1:]
    opt = T.optim.Adam(body.parameters(), lr=2e-2)
    sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0, threshold=0.1)
    snap = nn.utils.parameters_to_vector(body.parameters()).detach().clone()
    log = []
    for _ in range(4):
        xr = x.clone().requires_grad_(True)
        pred = T.utils.checkpoint.checkpoint_sequential(body, 2, xr, use_reentrant=False)
        loss = F.mse_loss(pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step(loss.item())
        log.append([loss.item(), opt.param_groups[0]["lr"]])
    grad = body[1].conv.parametrizations.weight.original1.grad
    moved = nn.utils.parameters_to_vector(body.parameters()).detach().clone()
    nn.utils.vector_to_parameters(snap, body.parameters())
    return [log, grad, xr.grad, snap.shape, (moved - snap).abs().max(),
            nn.utils.parameters_to_vector(body.parameters()).equal(snap), body(x)[:, :, -3:]]


# ---- a spatial transformer -------------------------------------------------------------------

def spatial_transformer(T):
    """PyTorch's spatial transformer tutorial in small: a localisation net
    whose last layer starts at the identity transform (weight zeroed, bias
    [1, 0, 0, 0, 1, 0]), so the first grid samples pixel centres, the edge
    ones exactly on the border; affine_grid, grid_sample with border
    padding, a classifier, SGD."""
    nn = T.nn
    F = nn.functional

    class STN(nn.Module):
        def __init__(self):
            super().__init__()
            self.loc = nn.Sequential(nn.Conv2d(1, 4, 3), nn.MaxPool2d(2), nn.ReLU(True))
            self.fc_loc = nn.Sequential(nn.Linear(4 * 2 * 2, 8), nn.ReLU(True), nn.Linear(8, 6))
            self.cls = nn.Linear(36, 3)

        def forward(self, x):
            theta = self.fc_loc(self.loc(x).view(-1, 16)).view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size(), align_corners=False)
            x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
            return F.log_softmax(self.cls(x.view(-1, 36)), 1), theta

    m = _init(T, STN(), 1, 0.3)
    m.fc_loc[2].weight.data.zero_()
    m.fc_loc[2].bias.data.copy_(T.tensor([1, 0, 0, 0, 1, 0], dtype=T.float))
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    x = _data(T, _arr(4, 1, 6, 6, seed=2))
    y = T.tensor([0, 1, 2, 1])
    log = []
    for _ in range(3):
        opt.zero_grad()
        out, theta = m(x)
        loss = F.nll_loss(out, y)
        loss.backward()
        opt.step()
        log.append(loss.item())
    return [log, theta, m.fc_loc[2].bias.grad, m.fc_loc[2].weight.grad]


# ---- half-precision batch norm ----------------------------------------------------------------

def half_batch_norm(T):
    """BatchNorm1d/2d moved to bfloat16 and float16 with the model
    (model.to(dtype)): training-mode outputs, running statistics over two
    batches and gradients, for (N, C), (N, C, L), (N, C, H, W) and
    channels-last inputs; and with float32 parameters (autocast's case)."""
    nn = T.nn
    out = []
    for dt in (T.bfloat16, T.float16):
        for shape in ((6, 4), (3, 4, 5), (2, 3, 4, 4)):
            x = _data(T, _arr(*shape, seed=len(shape), scale=2.0) + 0.3).to(dt)
            bn = (nn.BatchNorm1d if len(shape) < 4 else nn.BatchNorm2d)(shape[1]).to(dt)
            with T.no_grad():
                bn.weight.copy_(T.linspace(0.5, 1.5, shape[1]))
                bn.bias.copy_(T.linspace(-0.2, 0.3, shape[1]))
                bn.running_var.fill_(1.7)
            x = x.requires_grad_()
            y = bn(x)
            y2 = bn(x.detach() * 2)
            (y.float() * T.arange(y.numel()).view(y.shape).float().sin()).sum().backward()
            out.append([y, y2, bn.running_mean, bn.running_var, x.grad, bn.weight.grad,
                        bn.bias.grad])
        bn = nn.BatchNorm2d(3).to(dt)
        cl = _data(T, _arr(2, 3, 4, 4, seed=9)).to(dt).to(memory_format=T.channels_last)
        out.append([bn(cl), bn.running_var])
        out.append(nn.BatchNorm1d(4)(_data(T, _arr(6, 4, seed=2)).to(dt)))
    return out


def resumed_schedulers(T):
    """Each scheduler built to resume a run (the optimizer's state loaded,
    so its groups carry lr and initial_lr, and last_epoch = the epoch
    reached): the rates of the next steps.  PyTorch's chainable schedulers
    leave the loaded rates alone in the constructor's step."""
    L = T.optim.lr_scheduler
    makers = {
        "StepLR": lambda o, e: L.StepLR(o, 2, gamma=0.5, last_epoch=e),
        "MultiStepLR": lambda o, e: L.MultiStepLR(o, [3, 5], gamma=0.5, last_epoch=e),
        "ConstantLR": lambda o, e: L.ConstantLR(o, 0.5, total_iters=4, last_epoch=e),
        "LinearLR": lambda o, e: L.LinearLR(o, 0.5, total_iters=4, last_epoch=e),
        "ExponentialLR": lambda o, e: L.ExponentialLR(o, 0.9, last_epoch=e),
        "PolynomialLR": lambda o, e: L.PolynomialLR(o, total_iters=5, power=2.0, last_epoch=e),
        "CosineAnnealingLR": lambda o, e: L.CosineAnnealingLR(o, T_max=5, eta_min=0.01,
                                                              last_epoch=e),
        "MultiplicativeLR": lambda o, e: L.MultiplicativeLR(o, lambda k: 0.95, last_epoch=e),
        "LambdaLR": lambda o, e: L.LambdaLR(o, lambda k: 1 / (k + 1), last_epoch=e),
    }
    out = {}
    for name, make in makers.items():
        opt = T.optim.SGD([T.nn.Parameter(T.ones(2))], lr=0.1, momentum=0.9)
        sched = make(opt, -1)
        for _ in range(2):
            opt.step()
            sched.step()
        saved = opt.state_dict()
        opt2 = T.optim.SGD([T.nn.Parameter(T.ones(2))], lr=0.1, momentum=0.9)
        opt2.load_state_dict(saved)
        resumed = make(opt2, 1)
        rates = [opt2.param_groups[0]["lr"]]
        for _ in range(4):
            opt2.step()
            resumed.step()
            rates.append(opt2.param_groups[0]["lr"])
        out[name] = [saved["param_groups"][0]["lr"], rates, resumed.last_epoch]
    return out


def half_mse_loss(T):
    """mse_loss of float16/bfloat16 tensors (each reduction) and its
    gradients by input and target."""
    F = T.nn.functional
    out = []
    for dt in (T.bfloat16, T.float16):
        for red in ("mean", "sum", "none"):
            for shape in ((12,), (7, 300)):
                a = _data(T, _arr(*shape, seed=shape[0], scale=3.0)).to(dt).requires_grad_()
                b = _data(T, _arr(*shape, seed=shape[0] + 1)).to(dt).requires_grad_()
                loss = F.mse_loss(a, b, reduction=red)
                w = T.linspace(0.5, 1.5, loss.numel()).view(loss.shape) if red == "none" else 1
                (loss.float() * w).sum().backward()
                out.append([loss.flatten()[:40], a.grad.flatten()[:40], b.grad.flatten()[:40]])
    return out


def bf16_model(T):
    """A regression MLP moved whole to bfloat16 (model.to(torch.bfloat16),
    no autocast): Linear, BatchNorm1d, ReLU, mse_loss, three AdamW steps."""
    nn = T.nn
    F = nn.functional
    m = _init(T, nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8), nn.ReLU(),
                               nn.Linear(8, 2)), 1, 0.5).to(T.bfloat16)
    opt = T.optim.AdamW(m.parameters(), lr=0.01)
    x = _data(T, _arr(10, 3, seed=2)).to(T.bfloat16)
    y = _data(T, _arr(10, 2, seed=3)).to(T.bfloat16)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = F.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, m[0].weight, m[0].weight.grad, m[1].running_var, m[3].bias.grad,
            F.mse_loss(m(x), y, reduction="none")]


# ---- a physics-informed network -------------------------------------------------------------

def pinn(T):
    """u(x, t) fitted to u_t = 0.1 u_xx by residuals from autograd.grad with
    create_graph (second derivatives), in float64; Adam steps then LBFGS
    with a strong Wolfe line search."""
    nn = T.nn
    net = _init(T, nn.Sequential(nn.Linear(2, 10), nn.Tanh(), nn.Linear(10, 10), nn.Tanh(),
                                 nn.Linear(10, 1)), 1, 0.5).double()
    pts = _data(T, np.random.default_rng(2).random((12, 2)))
    x0 = _data(T, np.linspace(0, 1, 6)).unsqueeze(1)
    u0 = T.sin(np.pi * x0)

    def loss_fn():
        xt = pts.clone().requires_grad_(True)
        u = net(xt)
        du = T.autograd.grad(u, xt, grad_outputs=T.ones_like(u), create_graph=True)[0]
        u_x, u_t = du[:, 0:1], du[:, 1:2]
        u_xx = T.autograd.grad(u_x.sum(), xt, create_graph=True)[0][:, 0:1]
        res = u_t - 0.1 * u_xx
        ic = net(T.cat([x0, T.zeros_like(x0)], 1)) - u0
        return res.pow(2).mean() + ic.pow(2).mean()

    opt = T.optim.Adam(net.parameters(), lr=1e-2)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    lbfgs = T.optim.LBFGS(net.parameters(), lr=1.0, max_iter=6, history_size=4,
                          line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    for _ in range(2):
        losses.append(lbfgs.step(closure).item())
    state = lbfgs.state[lbfgs._params[0]]
    return [losses, state["func_evals"], state["n_iter"], net[0].weight]


# ---- a CTC speech model ---------------------------------------------------------------------

def ctc_speech(T):
    """Conv1d front end, bidirectional LSTM over packed frames, log_softmax
    over (T, N, C) and ctc_loss with concatenated targets (mean and sum,
    zero_infinity for an impossible alignment); greedy decoding by
    unique_consecutive."""
    nn = T.nn
    F = nn.functional
    rnn = nn.utils.rnn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(4, 8, 3, stride=2, padding=1)
            self.lstm = nn.LSTM(8, 6, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(12, 5)

        def forward(self, feats, lens):
            h = F.relu(self.conv(feats)).transpose(1, 2)
            lens = (lens + 1) // 2
            out, _ = self.lstm(rnn.pack_padded_sequence(h, lens, batch_first=True,
                                                        enforce_sorted=False))
            out, lens = rnn.pad_packed_sequence(out, batch_first=True)
            return self.fc(out).log_softmax(2).transpose(0, 1), lens

    m = _init(T, Model(), 1, 0.4)
    feats = _data(T, _arr(3, 4, 16, seed=2))
    lens = T.tensor([16, 11, 14])
    targets = T.tensor([1, 2, 2, 3, 4, 1, 3, 2, 4])
    tlens = T.tensor([4, 2, 3])
    opt = T.optim.Adam(m.parameters(), lr=1e-2)
    losses = []
    for _ in range(3):
        logp, olens = m(feats, lens)
        loss = F.ctc_loss(logp, targets, olens, tlens, blank=0)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(m.parameters(), 5.0)
        opt.step()
        losses.append(loss.item())
    logp, olens = m(feats, lens)
    padded = T.tensor([[1, 2, 2, 3], [4, 1, 0, 0], [3, 2, 4, 0]])
    summed = nn.CTCLoss(reduction="sum")(logp, padded, olens, tlens)
    impossible = T.tensor([1, 2, 1, 2, 1, 2, 1, 2, 1, 2])
    inf = F.ctc_loss(logp[:, :1], impossible, olens[:1], T.tensor([10]), reduction="none")
    zero = nn.CTCLoss(zero_infinity=True)(logp[:, :1], impossible, olens[:1], T.tensor([10]))
    best = logp.argmax(2).t()
    decoded = [[int(c) for c in T.unique_consecutive(best[i, :olens[i]]) if c != 0]
               for i in range(3)]
    return [losses, olens, summed, inf, zero, decoded]


# ---- a small U-Net ----------------------------------------------------------------------------

def unet(T):
    """Two-level U-Net: conv-BN-ReLU blocks, max pooling, bilinear upsampling
    (F.interpolate, align_corners False) and a ConvTranspose2d path, skip
    concatenation; class-weighted cross entropy with ignore_index over
    (N, C, H, W) plus a soft Dice loss from one_hot; SGD with weight decay
    under PolynomialLR; IoU from a bincount confusion matrix."""
    nn = T.nn
    F = nn.functional

    def block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o),
                             nn.ReLU(inplace=True))

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.d1, self.d2 = block(2, 4), block(4, 8)
            self.up_t = nn.ConvTranspose2d(8, 4, 2, stride=2)
            self.u1 = block(16, 4)
            self.out = nn.Conv2d(4, 3, 1)

        def forward(self, x):
            a = self.d1(x)
            b = self.d2(F.max_pool2d(a, 2))
            up = F.interpolate(b, scale_factor=2, mode="bilinear", align_corners=False)
            return self.out(self.u1(T.cat([a, self.up_t(b), up[:, :8]], 1)))

    m = _init(T, UNet(), 1, 0.3)
    x = _data(T, _arr(2, 2, 8, 8, seed=2))
    y = _data(T, np.random.default_rng(3).integers(0, 3, (2, 8, 8)))
    y[0, :2, :3] = 255
    opt = T.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    sched = T.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=0.9)
    w = T.tensor([1.0, 2.0, 0.5])
    log = []
    for _ in range(3):
        logits = m(x)
        ce = F.cross_entropy(logits, y, weight=w, ignore_index=255)
        valid = (y != 255).unsqueeze(1)
        onehot = F.one_hot(y.clamp(max=2), 3).permute(0, 3, 1, 2).float() * valid
        p = logits.softmax(1) * valid
        dice = 1 - (2 * (p * onehot).sum((0, 2, 3)) + 1) / (p.sum((0, 2, 3)) +
                                                            onehot.sum((0, 2, 3)) + 1)
        loss = ce + dice.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        log.append([ce.item(), dice.mean().item(), sched.get_last_lr()[0]])
    m.eval()
    with T.no_grad():
        pred = m(x).argmax(1)
    keep = y != 255
    cm = T.bincount(y[keep] * 3 + pred[keep], minlength=9).reshape(3, 3)
    iou = cm.diag() / (cm.sum(0) + cm.sum(1) - cm.diag()).clamp(min=1)
    return [log, m.d1[1].running_mean, m.up_t.weight.grad, cm, iou]


# ---- a recommender ---------------------------------------------------------------------------

def recommender(T):
    """BPR matrix factorisation: user histories pooled by EmbeddingBag
    (offsets, per_sample_weights, mode sum; and mode max), item embeddings
    with sparse gradients stepped by SparseAdam, the dense tower by Adagrad."""
    nn = T.nn
    F = nn.functional
    hist = nn.EmbeddingBag(10, 4, mode="sum")
    items = nn.Embedding(10, 4, sparse=True)
    tower = nn.Linear(4, 4)
    for mod, s in ((hist, 1), (items, 2), (tower, 3)):
        _init(T, mod, s, 0.5)
    bags = T.tensor([1, 3, 3, 7, 2, 9, 5, 0])
    offsets = T.tensor([0, 3, 4])
    weights = _data(T, np.linspace(0.5, 1.2, 8).astype(np.float32))
    pos, neg = T.tensor([2, 4, 6]), T.tensor([8, 4, 1])
    sparse_opt = T.optim.SparseAdam(list(items.parameters()), lr=0.05)
    dense_opt = T.optim.Adagrad(list(hist.parameters()) + list(tower.parameters()), lr=0.05)
    log = []
    for _ in range(3):
        u = tower(hist(bags, offsets, per_sample_weights=weights))
        score = (u * items(pos)).sum(-1) - (u * items(neg)).sum(-1)
        loss = -F.logsigmoid(score).mean()
        sparse_opt.zero_grad()
        dense_opt.zero_grad()
        loss.backward()
        g = items.weight.grad
        log.append([loss.item(), g.is_sparse, g.coalesce().indices(), g.coalesce().values()])
        sparse_opt.step()
        dense_opt.step()
    mx = nn.EmbeddingBag.from_pretrained(items.weight.detach(), mode="max", freeze=False)
    pooled = mx(bags, offsets)
    pooled.sum().backward()
    return [log, items.weight, hist.weight.grad, pooled, mx.weight.grad,
            F.embedding_bag(bags.view(2, 4), items.weight.detach(), mode="mean")]


# ---- a mixture density network --------------------------------------------------------------

def mixture_density(T):
    """An MDN: MixtureSameFamily of a Categorical and Independent Normals,
    negative log likelihood with softplus scales; nn.GaussianNLLLoss on a
    heteroscedastic head; the mixture's mean and variance, a KL between
    Normals, LowRankMultivariateNormal's log_prob."""
    nn = T.nn
    F = nn.functional
    D = T.distributions
    K, O = 3, 2
    net = _init(T, nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, K * (1 + 2 * O))),
                1)
    x, y = _data(T, _arr(8, 2, seed=2)), _data(T, _arr(8, O, seed=3))
    opt = T.optim.Adam(net.parameters(), lr=1e-2)
    losses = []
    for _ in range(3):
        out = net(x)
        logits, mu, s = out[:, :K], out[:, K:K + K * O], out[:, K + K * O:]
        mix = D.MixtureSameFamily(D.Categorical(logits=logits),
                                  D.Independent(D.Normal(mu.view(-1, K, O),
                                                         F.softplus(s.view(-1, K, O)) + 1e-3), 1))
        loss = -mix.log_prob(y).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    gnll = nn.GaussianNLLLoss(full=True)(mu[:, :O], y, F.softplus(s[:, :O]))
    p, q = D.Normal(mu[:, 0], 1.0), D.Normal(T.zeros(8), F.softplus(s[:, 0]))
    lr = D.LowRankMultivariateNormal(T.zeros(O), _data(T, _arr(O, 1, seed=4)), T.ones(O))
    return [losses, mix.mean, mix.variance, gnll, D.kl_divergence(p, q), lr.log_prob(y),
            net[0].weight.grad]


# ---- a checkpoint round trip mid-training ----------------------------------------------------

def checkpoint_resume(T):
    """Train, torch.save model, optimizer and scheduler state into a
    BytesIO, load them into fresh objects (weights_only, map_location) and
    go on: the resumed losses, and the loaded optimizer state's form."""
    nn = T.nn
    F = nn.functional

    def build():
        m = _init(T, nn.Sequential(nn.Linear(3, 6), nn.LayerNorm(6), nn.GELU(),
                                   nn.Linear(6, 2)), 1)
        o = T.optim.RAdam(m.parameters(), lr=1e-2, weight_decay=1e-3)
        s = T.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)
        return m, o, s

    x, y = _data(T, _arr(5, 3, seed=2)), _data(T, _arr(5, 2, seed=3))

    def step(m, o, s):
        o.zero_grad()
        loss = F.huber_loss(m(x), y, delta=0.5)
        loss.backward()
        o.step()
        s.step()
        return loss.item()

    m, o, s = build()
    first = [step(m, o, s) for _ in range(2)]
    buf = io.BytesIO()
    T.save({"epoch": 2, "model": m.state_dict(), "optim": o.state_dict(),
            "sched": s.state_dict()}, buf)
    size_ok = buf.tell() > 0
    buf.seek(0)
    ck = T.load(buf, map_location="cpu", weights_only=True)
    m2, o2, s2 = build()
    m2.load_state_dict(ck["model"])
    o2.load_state_dict(ck["optim"])
    s2.load_state_dict(ck["sched"])
    st = o2.state_dict()["state"][0]
    rest = [step(m2, o2, s2) for _ in range(2)]
    return [first, rest, size_ok, ck["epoch"], sorted(st), st["step"],
            o2.param_groups[0]["lr"], list(ck["model"].keys()), m2[3].bias]


def inputs(T):
    return {"T": T, "dcgan": dcgan, "graph_network": graph_network,
            "policy_gradient": policy_gradient, "gpt_lm": gpt_lm, "contrastive": contrastive,
            "custom_functions": custom_functions, "per_sample_grads": per_sample_grads,
            "pinn": pinn, "ctc_speech": ctc_speech, "unet": unet, "recommender": recommender,
            "mixture_density": mixture_density, "checkpoint_resume": checkpoint_resume,
            "meta_ensemble": meta_ensemble, "distillation": distillation,
            "resnet_autocast": resnet_autocast, "realnvp": realnvp, "tcn": tcn,
            "spatial_transformer": spatial_transformer, "half_batch_norm": half_batch_norm,
            "bf16_model": bf16_model, "half_mse_loss": half_mse_loss,
            "resumed_schedulers": resumed_schedulers}


CALLS = [
    "dcgan(T)", "graph_network(T)", "policy_gradient(T)", "gpt_lm(T)", "contrastive(T)",
    "custom_functions(T)", "per_sample_grads(T)", "pinn(T)", "ctc_speech(T)", "unet(T)",
    "recommender(T)", "mixture_density(T)", "checkpoint_resume(T)", "meta_ensemble(T)",
    "distillation(T)", "resnet_autocast(T)", "realnvp(T)", "tcn(T)", "spatial_transformer(T)",
    "half_batch_norm(T)", "half_mse_loss(T)", "bf16_model(T)", "resumed_schedulers(T)",
]


def main():
    record(CALLS, inputs, describe, "training_programs4", messages=True)


if __name__ == "__main__":
    main()
