"""Record PyTorch's answers for a fifth round of training programs, for
tests/test_training_programs5.py, from areas the first four rounds left
out: a ViT (patch embedding by Conv2d and by unfold, class token, learned
positions), WGAN-GP (a gradient penalty differentiated again), MAML (inner
steps with create_graph), DQN (replay buffer, gather on actions,
smooth_l1, hard and soft target updates), skip-gram word2vec with negative
sampling (sparse Embedding, SparseAdam), a DDPM training step (cosine-free
linear schedule, cumprod, gather by timestep, sinusoidal embedding), a
Glow step (ActNorm, invertible 1x1 convolution with slogdet, affine
coupling), a neural ODE by hand-written RK4, a top-k gated mixture of
experts, batch-hard triplet mining, pruning, SWA (AveragedModel, SWALR,
update_bn), gradient accumulation with clipping and OneCycleLR /
CosineAnnealingWarmRestarts, the data utilities (samplers, collate_fn,
random_split), beam search over a TransformerDecoder, the less common
losses, a linear-chain CRF, a one-stage detector's loss and NMS, capsule
routing, Newton steps by torch.func, the less common optimizers with
param groups added mid-run, a compiled model's checkpoint, decoding with a key/value cache
(nn.attention.bias) and flex_attention's block masks.

As in rounds three and four, every program takes the library as T and
builds its parameters and data from NumPy, so the test runs the very same
code on torchlike; describe() is round three's.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs5.py
writes tests/golden/training_programs5.json ([call, outcome] pairs over T)."""
import collections
import copy
import importlib
import math
import warnings

import numpy as np

from golden_calls import record
from golden_training_programs3 import _arr, _data, _init, describe  # noqa: F401 - describe is the test's


# ---- a vision transformer -------------------------------------------------------------------

def vit(T):
    """A two-block ViT on 8x8 images: patches embedded by a strided Conv2d
    (checked against F.unfold and a Linear on the same weights), a class
    token and learned positions as Parameters, pre-norm blocks with
    nn.MultiheadAttention, AdamW with a warmup LambdaLR."""
    nn = T.nn
    F = nn.functional

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

        def forward(self, x):
            h = self.n1(x)
            x = x + self.attn(h, h, h, need_weights=False)[0]
            return x + self.mlp(self.n2(x))

    class ViT(nn.Module):
        def __init__(self, d=8, p=4):
            super().__init__()
            self.p = p
            self.embed = nn.Conv2d(3, d, p, stride=p)
            self.cls = nn.Parameter(T.zeros(1, 1, d))
            self.pos = nn.Parameter(T.zeros(1, 5, d))
            self.blocks = nn.Sequential(Block(d), Block(d))
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, 3)

        def forward(self, x):
            x = self.embed(x).flatten(2).transpose(1, 2)
            x = T.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
            return self.head(self.norm(self.blocks(x))[:, 0])

    model = _init(T, ViT(), 1, 0.3)
    imgs = _data(T, _arr(4, 3, 8, 8, seed=2))
    labels = T.tensor([0, 2, 1, 2])
    cols = F.unfold(imgs, kernel_size=4, stride=4).transpose(1, 2)
    by_unfold = cols @ model.embed.weight.flatten(1).t() + model.embed.bias
    by_conv = model.embed(imgs).flatten(2).transpose(1, 2)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "pos" not in n]
    other = [p for n, p in model.named_parameters() if p.dim() < 2 or "pos" in n]
    opt = T.optim.AdamW([{"params": decay, "weight_decay": 0.05},
                         {"params": other, "weight_decay": 0.0}], lr=3e-3)
    sched = T.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 3))
    losses = []
    for _ in range(4):
        opt.zero_grad()
        loss = F.cross_entropy(model(imgs), labels, label_smoothing=0.1)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return [losses, (by_unfold - by_conv).abs().max() < 1e-5, model.pos.grad[0, :2],
            model.cls, sched.get_last_lr()]


# ---- WGAN-GP --------------------------------------------------------------------------------

def wgan_gp(T):
    """A critic trained with the gradient penalty: the critic's gradient at
    points between real and fake samples by autograd.grad(create_graph=True)
    and its norm's distance from 1 differentiated again; n_critic steps per
    generator step, Adam(betas=(0., 0.9))."""
    nn = T.nn
    G = _init(T, nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2)), 1)
    D = _init(T, nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 8), nn.Tanh(),
                               nn.Linear(8, 1)), 2)
    opt_d = T.optim.Adam(D.parameters(), lr=1e-3, betas=(0.0, 0.9))
    opt_g = T.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.9))
    log = []
    for it in range(2):
        for k in range(3):
            real = _data(T, _arr(6, 2, seed=10 * it + k) * 0.5 + 1.0)
            fake = G(_data(T, _arr(6, 2, seed=100 + 10 * it + k))).detach()
            alpha = _data(T, np.random.default_rng(k).random((6, 1)).astype(np.float32))
            mid = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
            grad = T.autograd.grad(D(mid), mid, grad_outputs=T.ones(6, 1), create_graph=True,
                                   retain_graph=True, only_inputs=True)[0]
            gp = ((grad.norm(2, dim=1) - 1) ** 2).mean()
            loss_d = D(fake).mean() - D(real).mean() + 10 * gp
            opt_d.zero_grad()
            loss_d.backward()
            opt_d.step()
        for p in D.parameters():
            p.requires_grad_(False)
        loss_g = -D(G(_data(T, _arr(6, 2, seed=200 + it)))).mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        for p in D.parameters():
            p.requires_grad_(True)
        log.append([loss_d.item(), gp.item(), loss_g.item()])
    return [log, D[0].weight.grad, G[2].weight.grad, D[2].weight.requires_grad]


# ---- MAML -----------------------------------------------------------------------------------

def maml(T):
    """Model-agnostic meta-learning on sine tasks: a functional MLP, inner
    SGD steps with autograd.grad(create_graph=True), the query loss summed
    over tasks and backpropagated through the inner steps into the
    meta-parameters; first-order MAML for comparison."""
    F = T.nn.functional
    rng = np.random.default_rng(0)
    params = [_data(T, (rng.standard_normal(s) * 0.5).astype(np.float32)).requires_grad_()
              for s in [(16, 1), (16,), (16, 16), (16,), (1, 16), (1,)]]

    def net(x, w):
        h = F.relu(F.linear(x, w[0], w[1]))
        h = F.relu(F.linear(h, w[2], w[3]))
        return F.linear(h, w[4], w[5])

    def task(seed):
        r = np.random.default_rng(seed)
        amp, phase = r.uniform(0.5, 2.0), r.uniform(0, math.pi)
        xs = r.uniform(-3, 3, (10, 1)).astype(np.float32)
        x = _data(T, xs)
        return x[:5], (amp * T.sin(x[:5] + phase)), x[5:], (amp * T.sin(x[5:] + phase))

    meta = T.optim.Adam(params, lr=1e-2)
    log = []
    for step in range(2):
        for first_order in (False, True):
            meta.zero_grad()
            total = 0.0
            for t in range(3):
                xs, ys, xq, yq = task(10 * step + t)
                fast = params
                for _ in range(2):
                    loss = F.mse_loss(net(xs, fast), ys)
                    grads = T.autograd.grad(loss, fast, create_graph=not first_order)
                    fast = [w - 0.05 * g for w, g in zip(fast, grads)]
                q = F.mse_loss(net(xq, fast), yq)
                q.backward()
                total += q.item()
            log.append([total, params[0].grad.norm().item(), params[5].grad.item()])
            if not first_order:
                meta.step()
    return [log, params[4]]


# ---- DQN ------------------------------------------------------------------------------------

def dqn(T):
    """DQN on a fixed replay buffer (a deque of transitions sampled by NumPy
    indices): Q(s, a) by gather, the target by the target network's max
    under no_grad, smooth_l1 (Huber) loss, value clipping of gradients,
    hard target updates by load_state_dict and soft (Polyak) ones by
    lerp_ / mul_ and add_; double-DQN's argmax for the target."""
    nn = T.nn
    F = nn.functional
    q = _init(T, nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)), 1)
    target = copy.deepcopy(q)
    for p in target.parameters():
        p.requires_grad_(False)
    rng = np.random.default_rng(3)
    buffer = collections.deque(maxlen=20)
    Transition = collections.namedtuple("Transition", "s a r s2 done")
    for _ in range(25):
        buffer.append(Transition(rng.standard_normal(4).astype(np.float32), int(rng.integers(3)),
                                 float(rng.standard_normal()), rng.standard_normal(4)
                                 .astype(np.float32), bool(rng.random() < 0.2)))
    opt = T.optim.RMSprop(q.parameters(), lr=1e-3, alpha=0.95, eps=0.01, centered=True)
    log = []
    for step in range(4):
        batch = Transition(*zip(*[buffer[i] for i in rng.choice(len(buffer), 8, replace=False)]))
        s = T.tensor(np.stack(batch.s))
        a = T.tensor(batch.a, dtype=T.long).unsqueeze(1)
        r = T.tensor(batch.r, dtype=T.float32)
        s2 = _data(T, np.stack(batch.s2))
        done = T.tensor(batch.done, dtype=T.bool)
        q_sa = q(s).gather(1, a).squeeze(1)
        with T.no_grad():
            if step % 2:
                best = q(s2).argmax(dim=1, keepdim=True)
                nxt = target(s2).gather(1, best).squeeze(1)
            else:
                nxt = target(s2).max(1)[0]
            y = r + 0.99 * nxt * (~done).float()
        loss = F.smooth_l1_loss(q_sa, y)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(q.parameters(), 0.5)
        opt.step()
        if step == 1:
            target.load_state_dict(q.state_dict())
        else:
            with T.no_grad():
                for tp, p in zip(target.parameters(), q.parameters()):
                    if step == 2:
                        tp.mul_(0.9).add_(p, alpha=0.1)
                    else:
                        tp.lerp_(p, 0.1)
        log.append([loss.item(), q_sa.detach(), y])
    eps = [max(0.05, 1.0 - i / 10) for i in range(3)]
    return [log, target[2].bias, q[0].weight.grad, eps, len(buffer)]


# ---- word2vec -------------------------------------------------------------------------------

def word2vec(T):
    """Skip-gram with negative sampling: centre and context tables as
    nn.Embedding(sparse=True), scores by bmm, logsigmoid of positive and
    negated negative scores, SparseAdam on the sparse gradients; the
    nearest words by cosine similarity at the end."""
    nn = T.nn
    F = nn.functional
    V, D = 12, 6

    class SkipGram(nn.Module):
        def __init__(self):
            super().__init__()
            self.u = nn.Embedding(V, D, sparse=True)
            self.v = nn.Embedding(V, D, sparse=True)

        def forward(self, centre, ctx, neg):
            u = self.u(centre).unsqueeze(2)                 # B, D, 1
            pos = F.logsigmoid(T.bmm(self.v(ctx).unsqueeze(1), u).squeeze())
            negs = F.logsigmoid(-T.bmm(self.v(neg), u).squeeze(2)).sum(1)
            return -(pos + negs).mean()

    model = _init(T, SkipGram(), 1, 0.5)
    opt = T.optim.SparseAdam(list(model.parameters()), lr=0.05)
    rng = np.random.default_rng(2)
    freq = np.arange(1, V + 1, dtype=np.float64) ** 0.75
    log = []
    for _ in range(4):
        centre = _data(T, rng.integers(0, V, 6))
        ctx = _data(T, rng.integers(0, V, 6))
        neg = _data(T, rng.choice(V, (6, 3), p=freq / freq.sum()))
        opt.zero_grad()
        loss = model(centre, ctx, neg)
        loss.backward()
        grad = model.u.weight.grad
        opt.step()
        log.append(loss.item())
    emb = F.normalize(model.u.weight.detach(), dim=1)
    sim = emb @ emb.t()
    return [log, grad.is_sparse, grad.coalesce().indices(), grad.to_dense()[:3],
            sim.topk(3, dim=1).indices[:4], model.v.weight[:2]]


# ---- DDPM -----------------------------------------------------------------------------------

def ddpm(T):
    """A DDPM training step on 2-d points and two sampling steps: a linear
    beta schedule, alphas' cumprod, coefficients gathered by timestep and
    reshaped to broadcast, a sinusoidal time embedding (exp of an arange,
    sin / cos concatenated), an MLP denoiser trained on the noise by MSE
    with an EMA of its weights."""
    nn = T.nn
    F = nn.functional
    steps = 50
    betas = T.linspace(1e-4, 0.02, steps)
    alphas = 1.0 - betas
    abar = T.cumprod(alphas, dim=0)
    abar_prev = F.pad(abar[:-1], (1, 0), value=1.0)
    post_var = betas * (1.0 - abar_prev) / (1.0 - abar)

    def extract(a, t, shape):
        return a.gather(-1, t).reshape(t.shape[0], *((1,) * (len(shape) - 1)))

    def time_embed(t, dim=8):
        half = dim // 2
        freqs = T.exp(-math.log(10000) * T.arange(half, dtype=T.float32) / half)
        args = t[:, None].float() * freqs[None]
        return T.cat([T.sin(args), T.cos(args)], dim=-1)

    class Denoiser(nn.Module):
        def __init__(self):
            super().__init__()
            self.t = nn.Sequential(nn.Linear(8, 16), nn.SiLU(), nn.Linear(16, 16))
            self.x = nn.Linear(2, 16)
            self.out = nn.Sequential(nn.SiLU(), nn.Linear(16, 16), nn.SiLU(), nn.Linear(16, 2))

        def forward(self, x, t):
            return self.out(self.x(x) + self.t(time_embed(t)))

    model = _init(T, Denoiser(), 1, 0.3)
    ema = copy.deepcopy(model).requires_grad_(False)
    opt = T.optim.Adam(model.parameters(), lr=2e-3)
    x0 = _data(T, _arr(16, 2, seed=2))
    rng = np.random.default_rng(3)
    log = []
    for i in range(4):
        t = _data(T, rng.integers(0, steps, 16))
        noise = _data(T, _arr(16, 2, seed=10 + i))
        xt = extract(abar, t, x0.shape).sqrt() * x0 + extract(1 - abar, t, x0.shape).sqrt() * noise
        loss = F.mse_loss(model(xt, t), noise)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with T.no_grad():
            for pe, p in zip(ema.parameters(), model.parameters()):
                pe.mul_(0.9).add_(p.detach(), alpha=0.1)
        log.append(loss.item())
    x = _data(T, _arr(3, 2, seed=20))
    with T.no_grad():
        for k, step in enumerate((steps - 1, steps - 2)):
            t = T.full((3,), step, dtype=T.long)
            eps = ema(x, t)
            mean = (x - extract(betas, t, x.shape) / extract(1 - abar, t, x.shape).sqrt() * eps) \
                / extract(alphas, t, x.shape).sqrt()
            x = mean + extract(post_var, t, x.shape).sqrt() * _data(T, _arr(3, 2, seed=30 + k))
    return [log, abar[[0, 24, 49]], post_var[:3], time_embed(T.tensor([0, 7, 49])), x]


# ---- Glow -----------------------------------------------------------------------------------

def glow(T):
    """One Glow step on 2x4x4 inputs: ActNorm initialised from the first
    batch's statistics (a flag buffer), an invertible 1x1 convolution whose
    log-determinant is slogdet of its weight (initialised by QR of a random
    matrix), an affine coupling with a sigmoid scale; the negative
    log-likelihood in bits per dimension, trained by Adam, and the
    inverse checked to reconstruct the input."""
    nn = T.nn
    F = nn.functional

    class ActNorm(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.loc = nn.Parameter(T.zeros(1, c, 1, 1))
            self.logs = nn.Parameter(T.zeros(1, c, 1, 1))
            self.register_buffer("inited", T.tensor(0, dtype=T.uint8))

        def forward(self, x):
            if self.inited.item() == 0:
                with T.no_grad():
                    mean = x.mean(dim=(0, 2, 3), keepdim=True)
                    std = x.std(dim=(0, 2, 3), keepdim=True)
                    self.loc.data.copy_(-mean)
                    self.logs.data.copy_(T.log(1 / (std + 1e-6)))
                    self.inited.fill_(1)
            y = (x + self.loc) * T.exp(self.logs)
            return y, x.shape[2] * x.shape[3] * self.logs.sum()

        def reverse(self, y):
            return y * T.exp(-self.logs) - self.loc

    class InvConv(nn.Module):
        def __init__(self, c):
            super().__init__()
            w = np.linalg.qr(np.random.default_rng(4).standard_normal((c, c)))[0]
            self.weight = nn.Parameter(_data(T, w.astype(np.float32)))

        def forward(self, x):
            logdet = x.shape[2] * x.shape[3] * T.linalg.slogdet(self.weight)[1]
            return F.conv2d(x, self.weight.unsqueeze(2).unsqueeze(3)), logdet

        def reverse(self, y):
            return F.conv2d(y, T.inverse(self.weight).unsqueeze(2).unsqueeze(3))

    class Coupling(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.net = nn.Sequential(nn.Conv2d(c // 2, 8, 3, padding=1), nn.ReLU(),
                                     nn.Conv2d(8, c, 3, padding=1))

        def forward(self, x):
            xa, xb = x.chunk(2, 1)
            shift, s = self.net(xa).chunk(2, 1)
            scale = T.sigmoid(s + 2.0)
            yb = (xb + shift) * scale
            return T.cat([xa, yb], 1), T.log(scale).flatten(1).sum(1)

        def reverse(self, y):
            ya, yb = y.chunk(2, 1)
            shift, s = self.net(ya).chunk(2, 1)
            return T.cat([ya, yb / T.sigmoid(s + 2.0) - shift], 1)

    flow = nn.ModuleList([ActNorm(4), InvConv(4), Coupling(4)])
    _init(T, flow[2], 5, 0.2)
    opt = T.optim.Adam(flow.parameters(), lr=1e-2)
    x = _data(T, _arr(5, 4, 4, 4, seed=6) * 0.7 + 0.3)
    n_dim = 4 * 4 * 4
    log = []
    for _ in range(3):
        h, logdet = x, T.zeros(5)
        for layer in flow:
            h, ld = layer(h)
            logdet = logdet + ld
        log_pz = (-0.5 * (h ** 2 + math.log(2 * math.pi))).flatten(1).sum(1)
        bpd = -(log_pz + logdet).mean() / (n_dim * math.log(2))
        opt.zero_grad()
        bpd.backward()
        opt.step()
        log.append(bpd.item())
    with T.no_grad():
        h = x
        for layer in flow:
            h = layer(h)[0]
        back = h
        for layer in reversed(flow):
            back = layer.reverse(back)
    return [log, flow[0].inited, flow[0].logs.flatten(), flow[1].weight.grad,
            T.linalg.slogdet(flow[1].weight), (back - x).abs().max().item() < 1e-4]


# ---- a neural ODE ---------------------------------------------------------------------------

def neural_ode(T):
    """dy/dt = f(t, y) by a small MLP, integrated by hand-written RK4 over a
    time grid from linspace, the trajectory stacked and fitted to a spiral
    by MSE; gradients by backpropagating through the solver."""
    nn = T.nn
    F = nn.functional

    class ODEFunc(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))

        def forward(self, t, y):
            return self.net(T.cat([y, t.expand(y.shape[0], 1)], dim=1))

    def rk4(f, y0, ts):
        ys = [y0]
        y = y0
        for t0, t1 in zip(ts[:-1], ts[1:]):
            h = t1 - t0
            k1 = f(t0, y)
            k2 = f(t0 + h / 2, y + h / 2 * k1)
            k3 = f(t0 + h / 2, y + h / 2 * k2)
            k4 = f(t1, y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            ys.append(y)
        return T.stack(ys)

    func = _init(T, ODEFunc(), 1, 0.4)
    ts = T.linspace(0.0, 1.0, 6)
    y0 = T.tensor([[1.0, 0.0], [0.5, 0.5]])
    true = T.stack([T.stack([T.cos(ts * 2) * r, T.sin(ts * 2) * r], dim=-1)
                    for r in (1.0, 0.7)], dim=1)
    opt = T.optim.Adam(func.parameters(), lr=1e-2)
    log = []
    for _ in range(3):
        opt.zero_grad()
        pred = rk4(func, y0, ts)
        loss = F.mse_loss(pred, true)
        loss.backward()
        opt.step()
        log.append(loss.item())
    return [log, pred.shape, pred[-1], func.net[0].weight.grad[:2]]


# ---- a mixture of experts -------------------------------------------------------------------

def moe(T):
    """A top-2 gated mixture of experts (Switch/GShard style): gate logits,
    topk, softmax over the chosen logits scattered into a dense gate
    matrix, tokens dispatched to experts by nonzero / index_add_, the
    load-balancing loss from each expert's share of tokens and of gate
    probability, a router z-loss by logsumexp."""
    nn = T.nn
    F = nn.functional
    E, D = 4, 6

    class MoE(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = nn.Linear(D, E, bias=False)
            self.experts = nn.ModuleList(nn.Sequential(nn.Linear(D, 8), nn.GELU(),
                                                       nn.Linear(8, D)) for _ in range(E))

        def forward(self, x):
            logits = self.gate(x)                                  # N, E
            probs = logits.softmax(-1)
            top_v, top_i = logits.topk(2, dim=-1)
            weights = T.zeros_like(logits).scatter(1, top_i, top_v.softmax(-1))
            out = T.zeros_like(x)
            for e, expert in enumerate(self.experts):
                idx = (top_i == e).any(-1).nonzero(as_tuple=True)[0]
                if idx.numel():
                    out.index_add_(0, idx, expert(x[idx]) * weights[idx, e:e + 1])
            share = F.one_hot(top_i[:, 0], E).float().mean(0)
            aux = E * (share * probs.mean(0)).sum()
            z = T.logsumexp(logits, dim=-1).pow(2).mean()
            return out, aux, z, top_i

    model = _init(T, MoE(), 1, 0.4)
    head = _init(T, nn.Linear(D, 1), 2)
    opt = T.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=5e-3)
    x = _data(T, _arr(10, D, seed=3))
    y = _data(T, _arr(10, 1, seed=4))
    log = []
    for _ in range(3):
        out, aux, z, top_i = model(x)
        loss = F.mse_loss(head(out + x), y) + 0.01 * aux + 1e-3 * z
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([loss.item(), aux.item(), z.item()])
    counts = T.bincount(top_i.flatten(), minlength=E)
    return [log, top_i, counts, model.gate.weight.grad,
            model.experts[1][0].weight.grad is None]


# ---- batch-hard triplet loss ----------------------------------------------------------------

def triplet(T):
    """Metric learning with batch-hard mining: pairwise distances by cdist,
    same-label masks from broadcast equality (eye removed), the hardest
    positive by masked max and hardest negative by masked_fill then min,
    margin ranking by relu; F.triplet_margin_loss and
    TripletMarginWithDistanceLoss on the mined triplets agree."""
    nn = T.nn
    F = nn.functional
    net = _init(T, nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 4)), 1)
    x = _data(T, _arr(8, 5, seed=2))
    labels = T.tensor([0, 0, 1, 1, 2, 2, 0, 1])
    opt = T.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    log = []
    for _ in range(3):
        emb = F.normalize(net(x), p=2, dim=1)
        dist = T.cdist(emb, emb)
        same = labels.unsqueeze(0) == labels.unsqueeze(1)
        pos_mask = same & ~T.eye(8, dtype=T.bool)
        hard_pos = (dist * pos_mask.float()).max(dim=1).values
        hard_neg = dist.masked_fill(same, float("inf")).min(dim=1).values
        loss = F.relu(hard_pos - hard_neg + 0.3).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([loss.item(), hard_pos.detach(), hard_neg.detach()])
    emb = net(x)
    a, p, n = emb[[0, 2, 4]], emb[[1, 3, 5]], emb[[2, 4, 0]]
    cos = nn.TripletMarginWithDistanceLoss(
        distance_function=lambda u, v: 1.0 - F.cosine_similarity(u, v), margin=0.5)
    return [log, F.triplet_margin_loss(a, p, n, margin=1.0, p=2, swap=True),
            nn.TripletMarginLoss(margin=0.2, reduction="none")(a, p, n), cos(a, p, n),
            T.cdist(emb[:3], emb[3:6], p=1), net[2].weight.grad]


# ---- pruning --------------------------------------------------------------------------------

def pruning(T):
    """torch.nn.utils.prune as a pruning script uses it: l1_unstructured on
    one layer (weight_orig and weight_mask appear, the weight is
    recomputed by a forward pre-hook), ln_structured over output rows,
    global_unstructured by L1 across layers, a fine-tuning step that keeps
    pruned weights at zero, then prune.remove to make it permanent."""
    nn = T.nn
    F = nn.functional
    prune = importlib.import_module(T.__name__ + ".nn.utils.prune")  # import torch.nn.utils.prune
    model = _init(T, nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(),
                                   nn.Linear(8, 3)), 1)
    prune.l1_unstructured(model[0], name="weight", amount=0.3)
    names = sorted(n for n, _ in model[0].named_parameters())
    buffers = sorted(n for n, _ in model[0].named_buffers())
    prune.ln_structured(model[2], name="weight", amount=0.25, n=2, dim=0)
    prune.global_unstructured([(model[0], "weight"), (model[4], "weight")],
                              pruning_method=prune.L1Unstructured, amount=10)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    x, y = _data(T, _arr(5, 6, seed=2)), T.tensor([0, 1, 2, 1, 0])
    losses = []
    for _ in range(2):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    zeros = [int((m.weight == 0).sum()) for m in (model[0], model[2], model[4])]
    pruned = prune.is_pruned(model)
    for i in (0, 2, 4):
        prune.remove(model[i], "weight")
    return [losses, names, buffers, zeros, model[0].weight_orig.grad
            if hasattr(model[0], "weight_orig") else None, pruned, prune.is_pruned(model),
            sorted(n for n, _ in model.named_parameters()), model[2].weight, model[4].weight]


# ---- stochastic weight averaging ------------------------------------------------------------

def swa(T):
    """SWA as the recipe goes: a cosine-annealed run, then SWALR and an
    AveragedModel updated each epoch, an EMA model by
    get_ema_multi_avg_fn, update_bn over a DataLoader to recompute the
    averaged model's batch-norm statistics."""
    nn = T.nn
    F = nn.functional
    swa_utils = T.optim.swa_utils
    model = _init(T, nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8), nn.ReLU(),
                                   nn.Linear(8, 1)), 1)
    data = T.utils.data.TensorDataset(_data(T, _arr(12, 3, seed=2)),
                                      _data(T, _arr(12, 1, seed=3)))
    loader = T.utils.data.DataLoader(data, batch_size=4, shuffle=False)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = T.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    swa_model = swa_utils.AveragedModel(model)
    ema_model = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.8))
    swa_sched = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="cos")
    lrs, losses = [], []
    for epoch in range(5):
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
            ema_model.update_parameters(model)
            losses.append(loss.item())
        if epoch >= 2:
            swa_model.update_parameters(model)
            swa_sched.step()
        else:
            sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    before = swa_model.module[1].running_mean.clone()
    swa_utils.update_bn(loader, swa_model)
    swa_model.eval()
    return [losses, lrs, swa_model.n_averaged, ema_model.n_averaged, swa_model.module[0].weight,
            ema_model.module[3].bias, before, swa_model.module[1].running_mean,
            swa_model.module[1].running_var, swa_model(data.tensors[0][:2]),
            sorted(swa_model.state_dict())[:4]]


# ---- gradient accumulation ------------------------------------------------------------------

def grad_accum(T):
    """Gradient accumulation over micro-batches (the loss divided by the
    number of steps), clip_grad_norm_ returning the total norm before the
    step (and error_if_nonfinite), OneCycleLR's rates and momenta, then
    CosineAnnealingWarmRestarts stepped with fractional epochs."""
    nn = T.nn
    F = nn.functional
    model = _init(T, nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)), 1)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = T.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=6, pct_start=0.3,
                                            anneal_strategy="cos", three_phase=True)
    x, y = _data(T, _arr(12, 4, seed=2)), _data(T, _arr(12, 2, seed=3))
    accum = 3
    norms, lrs, moms, losses = [], [], [], []
    for step in range(6):
        for k in range(accum):
            lo = (4 * step + k) % 9
            loss = F.mse_loss(model(x[lo:lo + 4]), y[lo:lo + 4]) / accum
            loss.backward()
            losses.append(loss.item())
        norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5,
                                              norm_type=2.0, error_if_nonfinite=True))
        opt.step()
        opt.zero_grad(set_to_none=True)
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
    opt2 = T.optim.Adam(model.parameters(), lr=0.01)
    warm = T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt2, T_0=2, T_mult=2, eta_min=1e-4)
    rates = []
    for epoch in range(3):
        for i in range(4):
            warm.step(epoch + i / 4)
            rates.append(opt2.param_groups[0]["lr"])
    inf_norm = nn.utils.clip_grad_norm_([T.ones(3, requires_grad=True)], 1.0, norm_type="inf")
    return [losses, norms, lrs, moms, rates, warm.T_i, warm.T_cur, inf_norm,
            model[0].weight.grad is None]


# ---- decoding with a KV cache ------------------------------------------------------------------

def kv_cache(T):
    """A causal self-attention layer decoding with a key/value cache: the
    prompt by is_causal=True, then chunks of new tokens attending to the
    cache plus themselves with nn.attention.bias.causal_lower_right (the
    mask aligned to the bottom-right corner), checked against a full
    causal pass; causal_upper_left for a chunk at the start; a query
    longer than the keys (rows that see nothing, and the warning); the
    CausalBias's fields, repr and refusal of is_causal=True; a training
    step through the lower-right mask."""
    nn = T.nn
    F = nn.functional
    bias = importlib.import_module(T.__name__ + ".nn.attention.bias")
    H, D = 2, 4

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(H * D, 3 * H * D)
            self.proj = nn.Linear(H * D, H * D)

        def split(self, x):
            B, L, _ = x.shape
            q, k, v = self.qkv(x).split(H * D, dim=2)
            return [t.view(B, L, H, D).transpose(1, 2) for t in (q, k, v)]

        def merge(self, y):
            B, _, L, _ = y.shape
            return self.proj(y.transpose(1, 2).reshape(B, L, H * D))

        def forward(self, x, cache=None, mask=None):
            q, k, v = self.split(x)
            if cache is not None:
                k, v = T.cat([cache[0], k], dim=2), T.cat([cache[1], v], dim=2)
            if mask is None:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            return self.merge(y), (k, v)

    attn = _init(T, SelfAttention(), 1, 0.4)
    x = _data(T, _arr(2, 7, H * D, seed=2))
    with T.no_grad():
        full, _ = attn(x)
        out, cache = attn(x[:, :4])
        chunks = [out]
        for lo, hi in ((4, 6), (6, 7)):
            step, cache = attn(x[:, lo:hi], cache, bias.causal_lower_right(hi - lo, hi))
            chunks.append(step)
        first, _ = attn(x[:, :3], None, bias.causal_upper_left(3, 3))
    decoded = T.cat(chunks, dim=1)
    lr = bias.causal_lower_right(3, 5)

    def refusal(fn):
        try:
            fn()
        except Exception as e:   # noqa: BLE001 - the exception is the answer
            return [type(e).__name__, str(e)]
        return None

    q = _data(T, _arr(1, H, 5, D, seed=3)).requires_grad_()
    kv = _data(T, _arr(1, H, 3, D, seed=4)).requires_grad_()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tall_mask = bias.causal_lower_right(5, 3)
        bias.causal_upper_left(5, 3)
    warned = [str(w.message) for w in caught]
    tall = F.scaled_dot_product_attention(q, kv, kv, attn_mask=tall_mask)
    tall.pow(2).sum().backward()
    opt = T.optim.SGD(attn.parameters(), lr=0.1)
    losses = []
    for _ in range(2):
        with T.no_grad():
            _, cache = attn(x[:, :5])
        y, _ = attn(x[:, 5:], (cache[0].detach(), cache[1].detach()),
                    bias.causal_lower_right(2, 7))
        loss = y.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [(decoded - full).abs().max().item() < 1e-5, (first - full[:, :3]).abs().max()
            .item() < 1e-5, decoded[0, -1], repr(lr), lr._materialize(), [lr.seq_len_q,
            lr.seq_len_kv, int(lr.variant)], list(bias.CausalVariant.__members__),
            refusal(lambda: F.scaled_dot_product_attention(q, kv, kv, attn_mask=lr,
                                                          is_causal=True)),
            refusal(lambda: bias.causal_lower_right(3)), tall[0, 0], q.grad[0, 0], kv.grad[0, 1],
            type(tall).__name__, losses, attn.qkv.weight.grad[:2], warned]


# ---- flex attention's block masks -----------------------------------------------------------

def flex_masks(T):
    """Evaluating a packed-sequence model with flex_attention (forward
    only: PyTorch's CPU flex_attention has no backward): document masking
    by and_masks of a causal and a same-document mask_mod, a sliding
    window by or_masks, ALiBi and tanh soft-capping score_mods, GQA;
    the BlockMask's metadata (partial and full blocks, their orders, the
    transposed q_* lists), its repr, its drawing by print(), to_string
    with a small grid, and rows taken by indexing for a decoding step."""
    fa = importlib.import_module(T.__name__ + ".nn.attention.flex_attention")
    doc = T.tensor([0, 0, 0, 1, 1, 1, 1, 1, 2, 2])

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    def same_doc(b, h, q_idx, kv_idx):
        return doc[q_idx] == doc[kv_idx]

    def window(b, h, q_idx, kv_idx):
        return (q_idx - kv_idx).abs() <= 2

    def alibi(score, b, h, q_idx, kv_idx):
        return score - (h + 1) * 0.25 * (q_idx - kv_idx).abs()

    def softcap(score, b, h, q_idx, kv_idx):
        return 4 * T.tanh(score / 4)

    # the masks are made where the data is (PyTorch's default is "cuda")
    packed = fa.create_block_mask(fa.and_masks(causal, same_doc), None, None, 10, 10,
                                  device=T.get_default_device(), BLOCK_SIZE=4)
    banded = fa.create_block_mask(fa.or_masks(window, causal), 2, 2, 10, 10,
                                  device=T.get_default_device(), BLOCK_SIZE=(4, 2))
    q = _data(T, _arr(2, 2, 10, 4, seed=1))
    k, v = _data(T, _arr(2, 1, 10, 4, seed=2)), _data(T, _arr(2, 1, 10, 4, seed=3))
    with T.no_grad():
        outs = [fa.flex_attention(q, k, v, score_mod=alibi, block_mask=packed, enable_gqa=True),
                fa.flex_attention(q, k, v, score_mod=softcap, block_mask=banded,
                                  enable_gqa=True, scale=0.4)]
    meta = [[getattr(bm, f) for f in ("kv_num_blocks", "kv_indices", "full_kv_num_blocks",
                                      "full_kv_indices", "q_num_blocks", "q_indices",
                                      "full_q_num_blocks", "full_q_indices")]
            for bm in (packed, banded)]
    step = banded[1, 0, 2]
    return [outs, meta, [packed.to_dense(), packed.sparsity(), packed.numel(), packed.shape],
            repr(banded), str(packed), banded.to_string(grid_size=2, limit=1),
            [step.shape, step.kv_num_blocks, step.full_kv_indices, banded[:, 1].shape]]


# ---- a one-stage detector's loss ---------------------------------------------------------------

def detection(T):
    """A RetinaNet-style head on a 4x4 feature map: anchors from meshgrid
    (indexing="ij") at two sizes, IoU by broadcast max/min and clamp,
    anchor labels by the best overlap (each ground truth also takes its
    best anchor by index assignment), the focal loss from
    binary_cross_entropy_with_logits, box deltas encoded with log and
    smooth_l1(beta=1/9), then greedy NMS by argsort and boolean masking."""
    nn = T.nn
    F = nn.functional
    ys, xs = T.meshgrid(T.arange(4.0), T.arange(4.0), indexing="ij")
    cx, cy = (xs + 0.5).flatten() / 4, (ys + 0.5).flatten() / 4
    anchors = T.cat([T.stack([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2], 1)
                     for s in (0.25, 0.5)])                          # A, 4
    gt = T.tensor([[0.1, 0.1, 0.4, 0.5], [0.5, 0.4, 0.95, 0.9]])
    gt_labels = T.tensor([1, 2])

    def iou(a, b):
        lt = T.max(a[:, None, :2], b[None, :, :2])
        rb = T.min(a[:, None, 2:], b[None, :, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[..., 0] * wh[..., 1]

        def area(x):
            return (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])
        return inter / (area(a)[:, None] + area(b)[None] - inter)

    overlaps = iou(anchors, gt)
    best, which = overlaps.max(1)
    labels = T.where(best >= 0.3, gt_labels[which], T.zeros_like(which))
    labels[overlaps.argmax(0)] = gt_labels
    pos = labels > 0
    head = _init(T, nn.Conv2d(8, 2 * (3 + 4), 1), 1)
    feat = _data(T, _arr(1, 8, 4, 4, seed=2))
    opt = T.optim.SGD(head.parameters(), lr=0.05, momentum=0.9)
    tgt, anc = gt[which[pos]], anchors[pos]
    aw, ah = anc[:, 2] - anc[:, 0], anc[:, 3] - anc[:, 1]
    deltas = T.stack([((tgt[:, 0] + tgt[:, 2]) - (anc[:, 0] + anc[:, 2])) / 2 / aw,
                      ((tgt[:, 1] + tgt[:, 3]) - (anc[:, 1] + anc[:, 3])) / 2 / ah,
                      T.log((tgt[:, 2] - tgt[:, 0]) / aw), T.log((tgt[:, 3] - tgt[:, 1]) / ah)], 1)
    log = []
    for _ in range(3):
        out = head(feat).view(1, 2, 7, 16).permute(0, 1, 3, 2).reshape(32, 7)
        cls, reg = out[:, :3], out[:, 3:]
        p, t = cls.sigmoid(), F.one_hot(labels, 3).float()
        ce = F.binary_cross_entropy_with_logits(cls, t, reduction="none")
        pt = p * t + (1 - p) * (1 - t)
        focal = (ce * (1 - pt) ** 2 * (0.25 * t + 0.75 * (1 - t))).sum() / max(1, pos.sum().item())
        reg_loss = F.smooth_l1_loss(reg[pos], deltas, beta=1 / 9)
        loss = focal + reg_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([focal.item(), reg_loss.item()])
    scores = cls.detach().sigmoid().max(1).values
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0 and len(keep) < 5:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        order = order[1:][iou(anchors[i].unsqueeze(0), anchors[order[1:]])[0] <= 0.5]
    return [labels, pos.nonzero(as_tuple=True)[0], deltas, log, keep, head.weight.grad[:3, :3, 0, 0]]


# ---- a compiled model's checkpoint -------------------------------------------------------------

def compiled_model(T):
    """model = torch.compile(model) then training as usual: the optimizer
    built from the compiled module's parameters, eval() through it, the
    state dict saved with the _orig_mod. prefix, loaded into a fresh
    compiled model, and stripped of the prefix by hand (nanoGPT's
    unwanted_prefix) for an uncompiled one; model._orig_mod's own keys."""
    nn = T.nn
    F = nn.functional

    def build():
        return _init(T, nn.Sequential(nn.Linear(3, 6), nn.GELU(), nn.Linear(6, 1)), 1)

    model = T.compile(build())
    opt = T.optim.AdamW(model.parameters(), lr=1e-2)
    x, y = _data(T, _arr(5, 3, seed=2)), _data(T, _arr(5, 1, seed=3))
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    state = model.state_dict()
    again = T.compile(build())
    again.load_state_dict(state)
    prefix = "_orig_mod."
    plain = build()
    plain.load_state_dict({k[len(prefix):] if k.startswith(prefix) else k: v
                           for k, v in state.items()})
    return [losses, type(model).__name__, list(state), list(model._orig_mod.state_dict()),
            [n for n, _ in model.named_modules()], model.training, model._orig_mod.training,
            len(model), again(x), plain(x), repr(model).splitlines()[:2]]


# ---- an optimizer written outside PyTorch ---------------------------------------------------

def custom_optimizer(T):
    """A Lion optimizer written as third-party optimizers are: it imports
    Optimizer and ParamsT with PyTorch's private helpers from
    torch.optim.optimizer (_use_grad_for_differentiable on step, _get_value
    of a tensor step count, _get_scalar_dtype, _default_to_fused_or_foreach,
    _view_as_real for complex parameters, the docstring fragments), keeps a
    step tensor in its state, trains a model with a complex parameter, and
    its state dict loads into a fresh instance."""
    opt_mod = importlib.import_module(T.__name__ + ".optim.optimizer")
    Optimizer, ParamsT = opt_mod.Optimizer, opt_mod.ParamsT
    nn = T.nn

    class Lion(Optimizer):
        __doc__ = "Lion.\n    " + opt_mod._maximize_doc + "\n    " + opt_mod._foreach_doc

        def __init__(self, params: ParamsT, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0,
                     maximize=False, foreach=None, differentiable=False):
            super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay,
                                          maximize=maximize, foreach=foreach,
                                          differentiable=differentiable))

        @opt_mod._use_grad_for_differentiable
        def step(self, closure=None):
            grad_mode = T.is_grad_enabled()
            for group in self.param_groups:
                params, grads, avgs = [], [], []
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        state["step"] = T.tensor(0.0, dtype=opt_mod._get_scalar_dtype())
                        state["exp_avg"] = T.zeros_like(p)
                    state["step"] += 1
                    params.append(p)
                    grads.append(-p.grad if group["maximize"] else p.grad)
                    avgs.append(state["exp_avg"])
                step = opt_mod._get_value(self.state[params[0]]["step"])
                opt_mod._view_as_real(params, grads, avgs)
                fused, foreach = opt_mod._default_to_fused_or_foreach(
                    params, group["differentiable"], use_fused=False)
                b1, b2 = group["betas"]
                for p, g, m in zip(params, grads, avgs):
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                    p.add_(T.sign(m * b1 + g * (1 - b1)), alpha=-group["lr"])
                    m.lerp_(g, 1 - b2)
            return [grad_mode, fused, foreach, step]

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)
            self.phase = nn.Parameter(T.tensor([0.5 + 0.5j, -0.2 + 1.0j]))

        def forward(self, x):
            return (self.lin(x) * self.phase).abs()

    model = _init(T, Model(), 1, 0.4)
    with T.no_grad():
        model.phase.copy_(T.tensor([0.5 + 0.5j, -0.2 + 1.0j]))
    opt = Lion(model.parameters(), lr=0.02, weight_decay=0.1)
    x, y = _data(T, _arr(5, 3, seed=2)), _data(T, np.abs(_arr(5, 2, seed=3)))
    log = []
    for _ in range(3):
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(model(x), y)
        loss.backward()
        log.append([loss.item(), opt.step()])
    again = Lion(Model().parameters(), lr=0.02, weight_decay=0.1)
    again.load_state_dict(opt.state_dict())
    return [log, T.view_as_real(model.phase.detach()), model.lin.weight,
            T.view_as_real(again.state[again.param_groups[0]["params"][0]]["exp_avg"]),
            str(opt.state_dict()["state"][0]["step"].dtype),
            "maximize (bool, optional)" in Lion.__doc__, T.is_grad_enabled()]


# ---- the attention backend switches a training script sets ---------------------------------

def attention_switches(T):
    """The torch.backends.cuda switches scripts set before training
    (enable_flash_sdp, enable_math_sdp ...) and read back, inside and
    outside nn.attention.sdpa_kernel and the deprecated
    backends.cuda.sdp_kernel; attention still runs with math off, and
    with both math and flash off it is PyTorch's 'No viable backend'
    error.  The switches are put back at the end."""
    import warnings as w
    cuda = T.backends.cuda
    attn = T.nn.attention
    F = T.nn.functional
    q = _data(T, _arr(1, 2, 3, 4, seed=1))

    def flags():
        return [cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled(),
                cuda.math_sdp_enabled(), cuda.cudnn_sdp_enabled()]

    log = [flags(), cuda.fp16_bf16_reduction_math_sdp_allowed()]
    try:
        with attn.sdpa_kernel([attn.SDPBackend.MATH]):
            log.append(flags())
            cuda.enable_flash_sdp(True)
            log.append(flags())
        log.append(flags())
        cuda.enable_math_sdp(False)
        log.append([flags(), F.scaled_dot_product_attention(q, q, q, is_causal=True)])
        cuda.enable_flash_sdp(False)
        try:
            F.scaled_dot_product_attention(q, q, q)
        except RuntimeError as e:
            log.append(str(e))
        cuda.enable_math_sdp(True)
        log.append(F.scaled_dot_product_attention(q, q, q, scale=0.3))
        with w.catch_warnings(record=True) as caught:
            w.simplefilter("always")
            with cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
                log.append([flags(), F.scaled_dot_product_attention(q, q, q)])
        log.append([type(x.message).__name__ for x in caught])
    finally:
        for switch in (cuda.enable_flash_sdp, cuda.enable_mem_efficient_sdp,
                       cuda.enable_math_sdp, cuda.enable_cudnn_sdp):
            switch(True)
    log.append(flags())
    return log


# ---- compiler settings a speed-minded script sets ------------------------------------------

def compiler_settings(T):
    """The settings gpt-fast- or speedrun-style scripts write before
    torch.compile: torch._inductor.config's coordinate_descent_tuning,
    triton.unique_kernel_names, fx_graph_cache ... read back, PyTorch's
    defaults, and its AttributeError for a name it does not have; the
    values are put back at the end."""
    config = T._inductor.config
    names = ["coordinate_descent_tuning", "fx_graph_cache", "max_autotune", "epilogue_fusion",
             "freezing", "unroll_reductions_threshold"]
    defaults = [getattr(config, n) for n in names] + [config.triton.unique_kernel_names,
                                                      config.triton.cudagraphs,
                                                      config.cpp.threads]
    config.coordinate_descent_tuning = True
    config.triton.unique_kernel_names = False
    set_values = [config.coordinate_descent_tuning, config.triton.unique_kernel_names]
    config.coordinate_descent_tuning = False
    config.triton.unique_kernel_names = True
    errors = []
    for fn in (lambda: setattr(config, "coordinate_descent_tunning", True),
               lambda: config.no_such_setting, lambda: config.triton.no_such_setting):
        try:
            fn()
        except AttributeError as e:
            errors.append(str(e).replace("torchlike", "torch"))
    return [defaults, set_values, errors]


# ---- a torchrun entry point --------------------------------------------------------------------

def elastic_record(T):
    """A training script's main under torchrun's @record: its result when it
    returns; when it raises, the exception raised again and written to the
    JSON error file the launcher names in TORCHELASTIC_ERROR_FILE."""
    import json
    import os
    import tempfile
    errors = importlib.import_module(T.__name__ + ".distributed.elastic.multiprocessing.errors")

    @errors.record
    def main(steps):
        model = _init(T, T.nn.Linear(2, 1), 1)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(steps):
            opt.zero_grad()
            model(T.ones(3, 2)).pow(2).mean().backward()
            opt.step()
        if steps > 2:
            raise RuntimeError(f"diverged after {steps} steps")
        return model.bias.item()

    old = os.environ.get("TORCHELASTIC_ERROR_FILE")
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    os.environ["TORCHELASTIC_ERROR_FILE"] = path
    try:
        ok = main(2)
        try:
            main(3)
            raised = None
        except RuntimeError as e:
            raised = str(e)
        with open(path) as f:
            written = json.load(f)
    finally:
        os.unlink(path)
        if old is None:
            del os.environ["TORCHELASTIC_ERROR_FILE"]
        else:
            os.environ["TORCHELASTIC_ERROR_FILE"] = old
    info = written["message"]["extraInfo"]
    return [ok, main.__name__, raised, written["message"]["message"], sorted(info),
            "in main" in info["py_callstack"], info["timestamp"].isdigit()]


# ---- what distributed and older training code imports from private modules -------------------

def private_imports(T):
    """Gradients bucketed as mixed-precision and distributed trainers do:
    flattened into one buffer by torch._utils._flatten_dense_tensors,
    averaged there (an all-reduce of one rank), viewed back by
    _unflatten_dense_tensors and copied into .grad; weights initialised by
    nn.init's private _no_grad_* fillers; a collate function copied from
    PyTorch's, refusing string arrays by np_str_obj_array_pattern and
    default_collate_err_msg_format; the StateDict annotation."""
    utils = importlib.import_module(T.__name__ + "._utils")
    collate = importlib.import_module(T.__name__ + ".utils.data._utils.collate")
    opt_mod = importlib.import_module(T.__name__ + ".optim.optimizer")
    nn = T.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    init = nn.init
    init._no_grad_fill_(model[0].bias, 0.1)
    init._no_grad_zero_(model[2].bias)
    with T.no_grad():
        model[0].weight.copy_(_data(T, _arr(4, 3, seed=1) * 0.5))
        model[2].weight.copy_(_data(T, _arr(2, 4, seed=2) * 0.5))
    drawn = [init._no_grad_normal_(T.empty(3), 0.0, 1.0).shape,
             init._no_grad_uniform_(T.empty(2, 2), -1.0, 1.0).abs().max().item() <= 1.0]

    def my_collate(batch):
        elem = batch[0]
        if isinstance(elem, np.ndarray):
            if collate.np_str_obj_array_pattern.search(elem.dtype.str) is not None:
                raise TypeError(collate.default_collate_err_msg_format.format(elem.dtype))
            return T.stack([T.as_tensor(b) for b in batch])
        return collate.default_collate(batch)

    x = my_collate([_arr(3, seed=s) for s in range(4)])
    y = _data(T, _arr(4, 2, seed=9))
    try:
        my_collate([np.array(["a", "b"])])
        refused = None
    except TypeError as e:
        refused = str(e)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        grads = [p.grad for p in model.parameters()]
        flat = utils._flatten_dense_tensors(grads)
        flat.div_(2.0)                               # the mean over two ranks of equal grads
        for g, synced in zip(grads, utils._unflatten_dense_tensors(flat, grads)):
            g.copy_(synced)
        opt.step()
        losses.append(loss.item())
    state: opt_mod.StateDict = opt.state_dict()
    views = utils._unflatten_dense_tensors(flat, grads)
    views[0].zero_()
    return [losses, drawn, refused, flat.shape, [v.shape for v in views],
            flat[:12].abs().sum().item() == 0.0, model[2].weight, sorted(state)]


# ---- tensors made under inference_mode ------------------------------------------------------

def inference_tensors(T):
    """An evaluation pass under inference_mode whose outputs a script then
    tries to train with: requires_grad_ on an inference tensor, or a
    Parameter made from one, is refused outside inference_mode (allowed
    inside it, and with requires_grad=False); a clone is a normal tensor
    that trains."""
    nn = T.nn

    def attempt(fn):
        try:
            r = fn()
        except Exception as e:   # noqa: BLE001 - the exception is the answer
            return [type(e).__name__, str(e)]
        return ["ok", r.requires_grad, r.is_inference()]

    model = _init(T, nn.Linear(3, 2), 1)
    with T.inference_mode():
        feats = model(_data(T, _arr(4, 3, seed=2)))
        inside = [attempt(lambda: T.ones(2).requires_grad_()),
                  attempt(lambda: nn.Parameter(T.ones(2)))]
    outside = [attempt(lambda: feats.requires_grad_()), attempt(lambda: nn.Parameter(feats)),
               attempt(lambda: nn.Parameter(feats, requires_grad=False)),
               attempt(lambda: feats.requires_grad_(False)),
               attempt(lambda: feats.clone().requires_grad_())]
    head = nn.Parameter(feats.clone())
    (head ** 2).sum().backward()
    views = [feats.detach(), feats[0], feats.t(), feats.view(-1), feats.unbind(0)[1],
             feats + 1, feats.clone()]
    return [inside, outside, feats.is_inference(), head.grad,
            [v.is_inference() for v in views]]


# ---- warnings given once per process --------------------------------------------------------------

_SCALAR_WARNINGS = """
import sys, warnings
T = __import__(sys.argv[1])
warnings.simplefilter("always")
p = T.nn.Parameter(T.tensor([1.5, -0.5]))
for search in (None, "strong_wolfe"):
    opt = T.optim.LBFGS([p], max_iter=4, line_search_fn=search)
    def closure():
        opt.zero_grad()
        loss = ((p - 1) ** 4).sum()
        loss.backward()
        return loss
    with warnings.catch_warnings(record=True) as caught:
        opt.step(closure)
    print("lbfgs", len(caught))
loss = (p * 2).sum()
for where in ("no_grad", "inference_mode", "grad", "grad again", "int", "item"):
    with warnings.catch_warnings(record=True) as caught:
        if where == "no_grad":
            with T.no_grad():
                float(loss)
        elif where == "inference_mode":
            with T.inference_mode():
                float(loss)
        elif where == "int":
            int(loss)
        elif where == "item":
            loss.item()
        else:
            float(loss)
    print(where, [str(w.message).split(" (Triggered")[0] for w in caught])
conv = T.nn.Conv1d(1, 1, 4, padding="same")
for call in range(2):   # notices once per process too
    for name, fn in (("index_reduce", lambda: T.zeros(3).index_reduce(0, T.tensor([0, 2]),
                                                                        T.ones(2), "amax")),
                     ("csr", lambda: T.eye(3).to_sparse_csr()),
                     ("same", lambda: conv(T.ones(1, 1, 6)))):
        with warnings.catch_warnings(record=True) as caught:
            fn()
        print(name, [str(w.message).split(" (Triggered")[0] for w in caught])
"""


def scalar_warnings(T):
    """float(loss) of a loss that requires grad: PyTorch warns once per
    process, and only while grad mode is on, so an LBFGS step (which reads
    its closure's loss under no_grad) says nothing; index_reduce's and
    sparse CSR's beta notices and padding='same''s copy notice, once too.  Run in a fresh interpreter, since these warnings
    are once per process."""
    import os
    import subprocess
    import sys
    env = dict(os.environ)   # the library importable there as here
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(T.__file__)),
                                         env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", _SCALAR_WARNINGS, T.__name__],
                         capture_output=True, text=True, timeout=120, env=env)
    return out.stdout.replace("torchlike", "torch").splitlines()


# ---- the named results programs print and test for -------------------------------------------

def result_types(T):
    """The named tuples that linear-algebra and histogram calls return, as a
    program logging them or testing isinstance sees them: each type's name
    (torch.linalg's carry a linalg_ prefix, torch.slogdet's does not), its
    place in return_types, its fields and the repr's first line."""
    a = T.tensor([[2.0, 1.0], [1.0, 3.0]])
    # LDL has no device kernel yet (a refusal naming the device, listed in
    # tests/golden/device_refusals.txt): that step alone runs on the host
    host = a.cpu()
    results = [T.linalg.slogdet(a), T.slogdet(a), T.linalg.qr(a), T.linalg.svd(a), T.svd(a),
               T.linalg.eigh(a), T.linalg.eig(a), T.linalg.lu_factor(a), T.linalg.lu(a),
               T.linalg.inv_ex(a), T.linalg.cholesky_ex(a), T.linalg.solve_ex(a, a),
               T.linalg.lu_factor_ex(a), T.linalg.lstsq(a, a), T.linalg.ldl_factor(host),
               T.linalg.ldl_factor_ex(host), T.aminmax(a), T.frexp(a), T.geqrf(a),
               T.lu_unpack(*T.linalg.lu_factor(a)), T.histogram(a.flatten(), 3)]
    return [[type(r).__name__, getattr(T.return_types, type(r).__name__) is type(r),
             list(type(r).__match_args__),
             repr(r).split("\n")[0]] for r in results]


# ---- data utilities -------------------------------------------------------------------------

def data_pipeline(T):
    """The data utilities around a training loop: random_split with a
    seeded Generator (sizes by counts and by fractions; which samples go
    where depends on the generator's stream, so only the partition is
    compared), WeightedRandomSampler's length and support, a BatchSampler
    over a SequentialSampler with and without drop_last, a collate_fn that
    pads variable-length sequences by pad_sequence, a Subset and
    ConcatDataset, default_collate of dicts and namedtuples."""
    data = T.utils.data
    nn = T.nn

    class Seqs(data.Dataset):
        def __init__(self):
            rng = np.random.default_rng(1)
            self.items = [(_data(T, rng.standard_normal(int(n)).astype(np.float32)), int(n) % 3)
                          for n in rng.integers(1, 6, 10)]

        def __len__(self):
            return len(self.items)

        def __getitem__(self, i):
            return self.items[i]

    def pad_collate(batch):
        seqs, labels = zip(*batch)
        lens = T.tensor([len(s) for s in seqs])
        return nn.utils.rnn.pad_sequence(list(seqs), batch_first=True, padding_value=-1.0), \
            lens, T.tensor(labels)

    ds = Seqs()
    g = T.Generator().manual_seed(42)
    parts = data.random_split(ds, [7, 3], generator=g)
    fracs = data.random_split(range(10), [0.5, 0.3, 0.2], generator=T.Generator().manual_seed(0))
    cover = sorted(i for p in parts for i in p.indices)
    sampler = data.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0, 1.0], num_samples=6,
                                         replacement=True, generator=T.Generator().manual_seed(1))
    drawn = list(sampler)
    batches = list(data.BatchSampler(data.SequentialSampler(ds), batch_size=4, drop_last=False))
    dropped = list(data.BatchSampler(range(10), batch_size=4, drop_last=True))
    loader = data.DataLoader(ds, batch_sampler=data.BatchSampler(
        data.SequentialSampler(ds), 4, False), collate_fn=pad_collate)
    padded = [b for b in loader]
    both = data.ConcatDataset([data.Subset(ds, [0, 1]), data.Subset(ds, [9])])
    Pair = collections.namedtuple("Pair", "x y")
    collated = data.default_collate([{"a": T.ones(2), "b": 1.5, "p": Pair(1, T.zeros(1))},
                                     {"a": T.zeros(2), "b": 2.5, "p": Pair(2, T.ones(1))}])
    return [[len(p) for p in parts], [len(p) for p in fracs], cover, len(sampler),
            sorted(set(drawn)) in ([1, 3, 4], [1, 3], [3, 4], [1, 4], [1], [3], [4]),
            all(i in (1, 3, 4) for i in drawn), batches, dropped, len(loader),
            padded[0], padded[2], len(both), both[2][1], collated["a"], collated["b"],
            type(collated["p"]).__name__, collated["p"].x, collated["p"].y]


# ---- beam search over a Transformer decoder ---------------------------------------------------

def beam_search(T):
    """A small encoder-decoder: nn.TransformerDecoder with a causal tgt_mask
    (generate_square_subsequent_mask), tgt_key_padding_mask and
    memory_key_padding_mask, one teacher-forced training step, then beam
    search (beam 3) for one source by log_softmax, topk over the flattened
    beam x vocabulary scores, index arithmetic by // and %, and a length
    penalty."""
    nn = T.nn
    F = nn.functional
    V, D, BOS, EOS, PAD = 7, 8, 1, 2, 0

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D, padding_idx=PAD)
            self.pos = nn.Parameter(T.zeros(1, 8, D))
            enc = nn.TransformerEncoderLayer(D, 2, 16, dropout=0.0, batch_first=True)
            dec = nn.TransformerDecoderLayer(D, 2, 16, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(enc, 1, enable_nested_tensor=False)
            self.decoder = nn.TransformerDecoder(dec, 2)
            self.out = nn.Linear(D, V)

        def encode(self, src, src_pad):
            return self.encoder(self.emb(src) + self.pos[:, :src.shape[1]],
                                src_key_padding_mask=src_pad)

        def decode(self, tgt, memory, src_pad, tgt_pad=None):
            n = tgt.shape[1]
            mask = nn.Transformer.generate_square_subsequent_mask(n)
            h = self.decoder(self.emb(tgt) + self.pos[:, :n], memory, tgt_mask=mask,
                             tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad)
            return self.out(h)

    model = _init(T, Model(), 1, 0.3)
    src = T.tensor([[3, 4, 5, 6, 2], [4, 4, 2, 0, 0]])
    tgt = T.tensor([[1, 6, 5, 4, 3, 2], [1, 4, 4, 2, 0, 0]])
    src_pad, tgt_pad = src == PAD, tgt[:, :-1] == PAD
    opt = T.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(3):
        logits = model.decode(tgt[:, :-1], model.encode(src, src_pad), src_pad, tgt_pad)
        loss = F.cross_entropy(logits.reshape(-1, V), tgt[:, 1:].reshape(-1), ignore_index=PAD)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    beam = 3
    with T.no_grad():
        memory = model.encode(src[:1], src_pad[:1]).expand(beam, -1, -1)
        mem_pad = src_pad[:1].expand(beam, -1)
        seqs = T.full((beam, 1), BOS, dtype=T.long)
        scores = T.tensor([0.0] + [float("-inf")] * (beam - 1))
        finished = []
        for _ in range(4):
            logp = model.decode(seqs, memory, mem_pad)[:, -1].log_softmax(-1)
            cand = (scores.unsqueeze(1) + logp).flatten()
            top, idx = cand.topk(beam)
            prev, tok = idx // V, idx % V
            seqs = T.cat([seqs[prev], tok.unsqueeze(1)], dim=1)
            scores = top
            for b in range(beam):
                if tok[b].item() == EOS:
                    finished.append((scores[b].item() / seqs.shape[1] ** 0.6,
                                     seqs[b].tolist()))
            scores = scores.masked_fill(tok == EOS, float("-inf"))
    return [losses, seqs, scores, finished]


# ---- the less common losses ------------------------------------------------------------------

def losses(T):
    """A multi-head regression net trained on a sum of the losses a
    forecasting or ranking script writes: a pinball (quantile) loss by
    hand, GaussianNLLLoss (full, eps, a per-feature variance), PoissonNLLLoss
    (log_input either way, full), KLDivLoss with log_target, and
    MarginRanking / CosineEmbedding / HingeEmbedding / MultiLabelSoftMargin /
    SoftMargin / MultiMargin / SmoothL1(beta) values of fixed inputs."""
    nn = T.nn
    F = nn.functional
    net = _init(T, nn.Sequential(nn.Linear(4, 16), nn.ELU(), nn.Linear(16, 8)), 1)
    x, y = _data(T, _arr(6, 4, seed=2)), _data(T, _arr(6, 1, seed=3))
    counts = _data(T, np.random.default_rng(4).poisson(2.0, (6, 1)).astype(np.float32))
    qs = T.tensor([0.1, 0.5, 0.9])
    gnll = nn.GaussianNLLLoss(full=True, eps=1e-4)
    pnll = nn.PoissonNLLLoss(log_input=True, full=True)
    kl = nn.KLDivLoss(reduction="batchmean", log_target=True)
    target_dist = F.log_softmax(_data(T, _arr(6, 2, seed=5)), dim=1)
    opt = T.optim.Adam(net.parameters(), lr=1e-2)
    log = []
    for _ in range(3):
        out = net(x)
        q_pred, mu, var = out[:, :3], out[:, 3:4], F.softplus(out[:, 4:5])
        err = y - q_pred
        pinball = T.max(qs * err, (qs - 1) * err).mean()
        parts = [pinball, gnll(mu, y, var), pnll(out[:, 5:6], counts),
                 kl(F.log_softmax(out[:, 6:8], dim=1), target_dist)]
        loss = sum(parts)
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([p.item() for p in parts])
    a, b = _data(T, _arr(5, seed=6)), _data(T, _arr(5, seed=7))
    sign = T.tensor([1.0, -1.0, 1.0, -1.0, 1.0])
    A, B = _data(T, _arr(5, 3, seed=8)), _data(T, _arr(5, 3, seed=9))
    multi = T.tensor([[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]], dtype=T.float32)
    fixed = [F.margin_ranking_loss(a, b, sign, margin=0.2),
             F.cosine_embedding_loss(A, B, sign, margin=0.1, reduction="none"),
             F.hinge_embedding_loss(a.abs(), sign, margin=0.5),
             F.multilabel_soft_margin_loss(A, multi, weight=T.tensor([1.0, 2.0, 0.5])),
             F.soft_margin_loss(a, sign), F.multi_margin_loss(A, T.tensor([0, 2, 1, 1, 0]), p=2,
                                                            margin=0.5),
             F.smooth_l1_loss(a, b, beta=0.3, reduction="sum"),
             F.poisson_nll_loss(a.abs() + 0.1, counts[:5, 0], log_input=False, full=True),
             F.gaussian_nll_loss(a, b, T.ones(5) * 0.5, reduction="sum"),
             F.kl_div(F.log_softmax(A, 1), F.softmax(B, 1), reduction="sum")]
    return [log, fixed, net[2].bias.grad]


# ---- a linear-chain CRF -----------------------------------------------------------------------

def crf(T):
    """A BiLSTM-CRF tagger: emissions from a bidirectional LSTM, the CRF's
    log partition by the forward algorithm (logsumexp over the previous tag
    with masking of padded steps by where), the gold path's score by
    gather, the NLL trained by Adam; Viterbi decoding by max / argmax and
    backtracking through the stored pointers."""
    nn = T.nn
    K, B, L = 4, 3, 5
    rng = np.random.default_rng(1)
    tokens = _data(T, rng.integers(1, 10, (B, L)))
    tags = _data(T, rng.integers(0, K, (B, L)))
    lengths = T.tensor([5, 3, 4])
    mask = T.arange(L).unsqueeze(0) < lengths.unsqueeze(1)

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 6)
            self.lstm = nn.LSTM(6, 4, batch_first=True, bidirectional=True)
            self.proj = nn.Linear(8, K)
            self.trans = nn.Parameter(T.zeros(K, K))
            self.start = nn.Parameter(T.zeros(K))
            self.end = nn.Parameter(T.zeros(K))

        def emissions(self, tok):
            return self.proj(self.lstm(self.emb(tok))[0])

        def log_partition(self, em):
            alpha = self.start + em[:, 0]
            for t in range(1, L):
                nxt = T.logsumexp(alpha.unsqueeze(2) + self.trans + em[:, t].unsqueeze(1), dim=1)
                alpha = T.where(mask[:, t].unsqueeze(1), nxt, alpha)
            return T.logsumexp(alpha + self.end, dim=1)

        def gold(self, em, tags):
            s = self.start[tags[:, 0]] + em[:, 0].gather(1, tags[:, :1]).squeeze(1)
            for t in range(1, L):
                step = self.trans[tags[:, t - 1], tags[:, t]] + \
                    em[:, t].gather(1, tags[:, t:t + 1]).squeeze(1)
                s = s + step * mask[:, t]
            last = tags.gather(1, (lengths - 1).unsqueeze(1)).squeeze(1)
            return s + self.end[last]

        def viterbi(self, em):
            score = self.start + em[:, 0]
            ptrs = []
            for t in range(1, L):
                best, idx = (score.unsqueeze(2) + self.trans).max(dim=1)
                nxt = best + em[:, t]
                score = T.where(mask[:, t].unsqueeze(1), nxt, score)
                ptrs.append(idx)
            score = score + self.end
            paths = []
            for b in range(B):
                tag = score[b].argmax().item()
                path = [tag]
                for t in range(lengths[b].item() - 1, 0, -1):
                    tag = ptrs[t - 1][b, tag].item()
                    path.append(tag)
                paths.append(path[::-1])
            return score.max(dim=1).values, paths

    model = _init(T, Tagger(), 1, 0.3)
    opt = T.optim.Adam(model.parameters(), lr=2e-2)
    log = []
    for _ in range(3):
        em = model.emissions(tokens)
        nll = (model.log_partition(em) - model.gold(em, tags)).mean()
        opt.zero_grad()
        nll.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        log.append(nll.item())
    with T.no_grad():
        best, paths = model.viterbi(model.emissions(tokens))
    return [log, best, paths, model.trans.grad, model.lstm.weight_hh_l0_reverse.grad[:2]]


# ---- capsules ---------------------------------------------------------------------------------

def capsules(T):
    """Capsule layers with dynamic routing: primary capsules from a Conv2d
    reshaped to vectors, the squash non-linearity, prediction vectors by a
    broadcast matmul with a 5-d weight, three routing iterations (softmax
    of the logits over the output capsules, weighted sum, agreement by a
    dot product); the margin loss on capsule lengths and a masked
    reconstruction."""
    nn = T.nn
    F = nn.functional

    def squash(s, dim=-1):
        n2 = (s ** 2).sum(dim=dim, keepdim=True)
        return n2 / (1 + n2) * s / T.sqrt(n2 + 1e-8)

    class CapsNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 8, 3, stride=2)
            self.W = nn.Parameter(T.zeros(1, 18, 3, 4, 2))    # in caps, out caps, out dim, in dim
            self.recon = nn.Linear(3 * 4, 49)

        def forward(self, x, y):
            u = squash(self.conv(x).view(x.shape[0], 4, 2, 9).permute(0, 1, 3, 2)
                       .reshape(x.shape[0], 36, 2)[:, :18])
            u_hat = (self.W @ u[:, :, None, :, None]).squeeze(-1)   # B, 18, 3, 4
            b = T.zeros(x.shape[0], 18, 3)
            for it in range(3):
                c = b.softmax(dim=2)
                v = squash((c.unsqueeze(-1) * u_hat).sum(dim=1))    # B, 3, 4
                if it < 2:
                    b = b + (u_hat * v.unsqueeze(1)).sum(-1)
            lengths = v.norm(dim=-1)
            masked = (v * F.one_hot(y, 3).unsqueeze(-1)).flatten(1)
            return lengths, T.sigmoid(self.recon(masked)), c

    model = _init(T, CapsNet(), 1, 0.4)
    x = _data(T, np.abs(_arr(4, 1, 7, 7, seed=2)))
    y = T.tensor([0, 2, 1, 2])
    opt = T.optim.Adam(model.parameters(), lr=1e-2)
    log = []
    for _ in range(3):
        lengths, recon, c = model(x, y)
        onehot = F.one_hot(y, 3).float()
        margin = (onehot * F.relu(0.9 - lengths) ** 2
                  + 0.5 * (1 - onehot) * F.relu(lengths - 0.1) ** 2).sum(1).mean()
        loss = margin + 5e-4 * F.mse_loss(recon, x.flatten(1), reduction="sum")
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([margin.item(), loss.item()])
    return [log, lengths, c[0, :3], model.W.grad[0, 0]]


# ---- Newton steps by torch.func --------------------------------------------------------------

def func_newton(T):
    """Logistic regression fitted by Newton's method with torch.func: the
    gradient by jacrev, the Hessian by hessian (and by jacfwd(jacrev)),
    the step by linalg.solve; per-example losses by vmap and per-example
    Jacobians of a small network by vmap(jacrev) over functional_call;
    a Gauss-Newton product by jvp then vjp."""
    tf = T.func
    F = T.nn.functional
    X = _data(T, np.concatenate([_arr(12, 2, seed=1), np.ones((12, 1), np.float32)], 1)
                     .astype(np.float64))
    y = _data(T, (np.random.default_rng(2).random(12) < 0.5).astype(np.float64))

    def nll(w):
        return F.binary_cross_entropy_with_logits(X @ w, y) + 0.05 * (w ** 2).sum()

    w = T.zeros(3, dtype=T.float64)
    path = []
    for _ in range(4):
        g = tf.jacrev(nll)(w)
        H = tf.hessian(nll)(w)
        w = w - T.linalg.solve(H, g)
        path.append(nll(w).item())
    H2 = tf.jacfwd(tf.jacrev(nll))(w)
    per = tf.vmap(lambda xi, yi: F.binary_cross_entropy_with_logits(xi @ w, yi))(X, y)
    net = _init(T, T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2)), 3).double()
    params = {k: v.detach() for k, v in net.named_parameters()}
    jac = tf.vmap(tf.jacrev(lambda p, xi: tf.functional_call(net, p, (xi,))),
                  in_dims=(None, 0))(params, X[:3])
    out, jvp_out = tf.jvp(lambda p: tf.functional_call(net, p, (X[:3],)), (params,),
                          ({k: T.ones_like(v) for k, v in params.items()},))
    _, vjp_fn = tf.vjp(lambda p: tf.functional_call(net, p, (X[:3],)), params)
    gn = vjp_fn(jvp_out)[0]
    return [path, w, (H2 - H).abs().max().item() < 1e-8, per, jac["0.weight"].shape,
            jac["2.bias"], jvp_out, gn["0.bias"]]


# ---- the less common optimizers ----------------------------------------------------------------

def optimizers(T):
    """Each of Adagrad (lr_decay, initial_accumulator_value), Adamax,
    NAdam (momentum_decay, decoupled_weight_decay), RAdam (decoupled),
    ASGD (t0, lambd), Rprop (etas, step_sizes) and Adadelta, with
    weight_decay, maximize and foreach flags, trains a small net for four
    steps; a second param group is added by add_param_group after two;
    the state dict's keys and per-parameter state.  LBFGS with
    maximize=True climbs a log-likelihood, by fixed steps and by the
    strong-Wolfe line search."""
    nn = T.nn
    F = nn.functional
    x, y = _data(T, _arr(6, 3, seed=2)), _data(T, _arr(6, 1, seed=3))
    O = T.optim
    configs = [
        ("Adagrad", lambda p: O.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.01,
                                        initial_accumulator_value=0.1, foreach=False)),
        ("Adamax", lambda p: O.Adamax(p, lr=0.05, weight_decay=0.01, foreach=True)),
        ("NAdam", lambda p: O.NAdam(p, lr=0.05, momentum_decay=0.004, weight_decay=0.01,
                                    decoupled_weight_decay=True)),
        ("RAdam", lambda p: O.RAdam(p, lr=0.05, weight_decay=0.01, decoupled_weight_decay=True)),
        ("ASGD", lambda p: O.ASGD(p, lr=0.05, lambd=1e-3, alpha=0.75, t0=2, weight_decay=0.01)),
        ("Rprop", lambda p: O.Rprop(p, lr=0.02, etas=(0.4, 1.3), step_sizes=(1e-4, 0.5))),
        ("Adadelta", lambda p: O.Adadelta(p, lr=1.0, rho=0.8, weight_decay=0.01, maximize=False)),
        ("AdamMax", lambda p: O.Adam(p, lr=0.05, amsgrad=True, maximize=True)),
    ]
    out = []
    for name, make in configs:
        model = _init(T, nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)), 1)
        opt = make(model[0].parameters())
        losses = []
        for step in range(4):
            if step == 2:
                opt.add_param_group({"params": model[2].parameters(), "lr": 0.01})
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            (-loss if name == "AdamMax" else loss).backward()
            opt.step()
            losses.append(loss.item())
        sd = opt.state_dict()
        state0 = sd["state"][0]
        out.append([name, losses, model[0].weight, model[2].bias, len(sd["param_groups"]),
                    sd["param_groups"][1]["params"], sorted(state0),
                    {k: v for k, v in state0.items() if k == "step"},
                    sorted(k for k in sd["param_groups"][1] if k != "params")])
    for line_search in (None, "strong_wolfe"):    # LBFGS climbing a log-likelihood
        model = _init(T, nn.Linear(3, 1), 4)
        opt = O.LBFGS(model.parameters(), lr=0.5, max_iter=5, history_size=3,
                      line_search_fn=line_search, maximize=True)

        def closure():
            opt.zero_grad()
            ll = -F.mse_loss(model(x), y)
            ll.backward()
            return ll

        lls = [opt.step(closure).item() for _ in range(2)]
        out.append(["LBFGS", line_search, lls, model.weight, opt.state_dict()["param_groups"][0]
                    ["maximize"], opt.state[model.weight]["func_evals"]])
    return out


def inputs(T):
    return {"T": T, "vit": vit, "wgan_gp": wgan_gp, "maml": maml, "dqn": dqn,
            "word2vec": word2vec, "ddpm": ddpm, "glow": glow, "neural_ode": neural_ode,
            "moe": moe, "triplet": triplet, "pruning": pruning, "swa": swa,
            "grad_accum": grad_accum, "result_types": result_types, "compiled_model": compiled_model,
            "kv_cache": kv_cache, "flex_masks": flex_masks,
            "detection": detection, "scalar_warnings": scalar_warnings,
            "inference_tensors": inference_tensors, "custom_optimizer": custom_optimizer,
            "private_imports": private_imports, "attention_switches": attention_switches,
            "elastic_record": elastic_record, "compiler_settings": compiler_settings,
            "data_pipeline": data_pipeline, "beam_search": beam_search, "losses": losses,
            "crf": crf, "capsules": capsules, "func_newton": func_newton,
            "optimizers": optimizers}


CALLS = [
    "vit(T)", "wgan_gp(T)", "maml(T)", "dqn(T)", "word2vec(T)", "ddpm(T)", "glow(T)",
    "neural_ode(T)", "moe(T)", "triplet(T)", "pruning(T)", "swa(T)", "grad_accum(T)",
    "result_types(T)", "data_pipeline(T)", "beam_search(T)", "losses(T)", "crf(T)",
    "capsules(T)", "func_newton(T)", "optimizers(T)", "compiled_model(T)",
    "kv_cache(T)", "flex_masks(T)", "detection(T)", "scalar_warnings(T)",
    "inference_tensors(T)", "custom_optimizer(T)", "private_imports(T)",
    "attention_switches(T)", "elastic_record(T)", "compiler_settings(T)",
]


def main():
    record(CALLS, inputs, describe, "training_programs5", messages=True)


if __name__ == "__main__":
    main()
