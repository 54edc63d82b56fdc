"""Record PyTorch's answers for an eleventh round of training programs, for
tests/test_training_programs11.py, about corners the first ten rounds left:
torch.utils.data's samplers, datasets and collation at their edges;
torch.nn.utils (clipping of single tensors and odd norms, the old
weight_norm/spectral_norm hooks, pruning's amounts and removal,
parametrizations with several originals); chains of schedulers and their
state dicts; torch.func over modules (jacrev/jacfwd/hessian through
functional_call, vmap's in_dims/out_dims/chunk_size, grad's argnums and
aux, vjp/jvp/linearize and their refusals); load_state_dict's casts,
pre/post hooks and extra state; buffers and parameters registered and
refused; the order hooks run in; nn.init on odd shapes; torch.save/load
of nested containers and shared views; float64, float16 and bfloat16
layers and the refusals of mixed dtypes; and the common layers' refusals
of inputs of the wrong shape.

As in rounds three to ten, every program takes the library as T and
builds its parameters and data from NumPy, so the test runs the very same
code on torchlike; what draws random numbers is compared only by what
does not depend on the stream.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs11.py
writes tests/golden/training_programs11.json ([call, outcome] pairs over T)."""
import collections
import importlib
import io
import math
import warnings

import numpy as np

from golden_calls import record
from golden_training_programs3 import _data, _init, _raised, _warned
from golden_training_programs6 import _broadcast, describe  # noqa: F401 - describe: the test's
from golden_training_programs7 import _fit, _mlp, _raised_full, _raised_head, _t


def _long(T, a):
    return _data(T, np.asarray(a, dtype=np.int64))


def _f32(T, a):
    return _data(T, np.asarray(a, dtype=np.float32))


# ---- torch.utils.data -------------------------------------------------------------------------

def weighted_sampler_edges(T):
    """WeightedRandomSampler without replacement (distinct draws, a zero
    weight never drawn while others remain), its length, and its refusals:
    a 2-d weight, num_samples of zero, a non-bool replacement, more draws
    than weights without replacement (at iteration)."""
    D = T.utils.data
    g = T.Generator().manual_seed(3)
    s = D.WeightedRandomSampler([0.1, 0.0, 2.0, 1.0, 0.5], 4, replacement=False, generator=g)
    draws = list(s)
    s2 = D.WeightedRandomSampler(T.tensor([1.0, 2.0], dtype=T.float64), 6, generator=g)
    d2 = list(s2)
    return [len(s), len(set(draws)), 1 in draws, sorted(draws) == sorted(set(draws)),
            len(d2), all(i in (0, 1) for i in d2), type(d2[0]).__name__,
            _raised(lambda: D.WeightedRandomSampler([[1.0, 2.0]], 2)),
            _raised(lambda: D.WeightedRandomSampler([1.0, 2.0], 0)),
            _raised(lambda: D.WeightedRandomSampler([1.0, 2.0], 2, replacement=1)),
            _raised(lambda: list(D.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)))]


def batch_sampler_over_random(T):
    """BatchSampler over a seeded RandomSampler: every index once per epoch,
    the batch sizes with and without drop_last, two epochs differing but
    each a permutation; a DataLoader given that batch_sampler."""
    D = T.utils.data
    g = T.Generator().manual_seed(7)
    bs = D.BatchSampler(D.RandomSampler(range(10), generator=g), 4, drop_last=False)
    e1, e2 = list(bs), list(bs)
    flat1 = sorted(i for b in e1 for i in b)
    flat2 = sorted(i for b in e2 for i in b)
    bd = D.BatchSampler(D.RandomSampler(range(10), generator=g), 4, drop_last=True)
    ds = D.TensorDataset(T.arange(10) * 10)
    dl = D.DataLoader(ds, batch_sampler=D.BatchSampler(D.SequentialSampler(ds), 3, False))
    return [[len(b) for b in e1], flat1, flat2, len(bs), [len(b) for b in bd], len(bd),
            [b[0] for b in dl], len(dl)]


class _Stream:
    pass


def iterable_dataset_refusals(T):
    """An IterableDataset through a DataLoader: batches; len() of a loader
    over a dataset without __len__ (TypeError), shuffle, a sampler and a
    batch_sampler refused for it; one with __len__ (the loader's length
    rounds up); ChainDataset of two streams."""
    D = T.utils.data

    class Stream(D.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(T.arange(self.n, dtype=T.float32).unbind(0))

    class Sized(Stream):
        def __len__(self):
            return self.n

    dl = D.DataLoader(Stream(5), batch_size=2)
    chain = D.ChainDataset([Stream(2), Stream(3)])
    return [list(dl), _raised(lambda: len(dl)),
            _raised(lambda: D.DataLoader(Stream(5), shuffle=True)),
            _raised(lambda: D.DataLoader(Stream(5), sampler=[0, 1])),
            _raised(lambda: D.DataLoader(Stream(5), batch_sampler=[[0, 1]])),
            len(D.DataLoader(Sized(5), batch_size=2)),
            len(D.DataLoader(Sized(5), batch_size=2, drop_last=True)),
            [float(x) for x in chain], _raised(lambda: len(chain))]


def stack_and_concat_datasets(T):
    """StackDataset in its tuple and dict forms (a sample from each), its
    length and refusal of unequal lengths; ConcatDataset's negative index,
    its refusal of a too negative one, its cumulative sizes; Subset's
    negative index and its __getitems__ batch form."""
    D = T.utils.data
    a = D.TensorDataset(T.arange(4))
    b = D.TensorDataset(T.arange(4) * 10)
    st = D.StackDataset(a, b)
    sd = D.StackDataset(x=a, y=b)
    cat = D.ConcatDataset([a, D.TensorDataset(T.arange(3) + 100)])
    sub = D.Subset(b, [3, 1, 2])
    return [st[2], sd[1], len(st), len(sd),
            _raised(lambda: D.StackDataset(a, D.TensorDataset(T.arange(3)))),
            _raised(lambda: D.StackDataset(a, y=b)),
            _raised(lambda: D.StackDataset()),
            cat[-1], cat[-7], _raised(lambda: cat[-8]), cat.cumulative_sizes, len(cat),
            sub[-1], sub[0], len(sub), st.__getitems__([0, 3])]


def tensor_dataset_refusals(T):
    """TensorDataset of tensors whose first sizes differ (refused), of one
    tensor, indexed by a tensor index; random_split's refusal of lengths
    that do not add up and of fractions that do not sum to one."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(6).reshape(3, 2), T.tensor([1.0, 2.0, 3.0]))
    return [_raised(lambda: D.TensorDataset(T.zeros(3), T.zeros(4))),
            D.TensorDataset(T.arange(3))[1], ds[T.tensor(2)], ds[1:3], len(ds),
            _raised(lambda: D.random_split(range(5), [2, 2])),
            _raised(lambda: D.random_split(range(5), [0.5, 0.6])),
            [len(s) for s in D.random_split(range(7), [0.5, 0.5],
                                            generator=T.Generator().manual_seed(0))],
            [len(s) for s in D.random_split(range(10), [0.3, 0.3, 0.4],
                                            generator=T.Generator().manual_seed(0))]]


def collate_scalars_and_arrays(T):
    """default_collate of numpy scalars of several dtypes (their tensors'
    dtypes), of float16 arrays, of Python bools and ints, of a dict whose
    values are tuples; its refusal of numpy object and string arrays and of
    sets; default_convert of a tuple of arrays and of a string array."""
    D = T.utils.data
    return [D.default_collate([np.int32(1), np.int32(2)]),
            D.default_collate([np.float32(1.5), np.float32(2.5)]),
            D.default_collate([np.bool_(True), np.bool_(False)]),
            D.default_collate([np.array([1, 2], dtype=np.float16),
                               np.array([3, 4], dtype=np.float16)]),
            D.default_collate([True, False, True]), D.default_collate([1, 2, 3]),
            D.default_collate([{"p": (1, 2.0)}, {"p": (3, 4.0)}]),
            _raised(lambda: D.default_collate([np.array([None]), np.array([None])])),
            _raised(lambda: D.default_collate([np.array(["a"]), np.array(["b"])])),
            _raised(lambda: D.default_collate([{1, 2}, {3, 4}])),
            D.default_convert((np.array([1, 2], dtype=np.int16), np.array([0.5]))),
            D.default_convert(np.array(["x", "y"])).tolist()]


def loader_dict_samples_padding(T):
    """A dataset of dicts with token lists of several lengths, a collate_fn
    padding them with their lengths, and a bag-of-embeddings model trained
    on the batches (shuffle off, drop_last on)."""
    nn = T.nn
    D = T.utils.data
    rng = np.random.default_rng(4)
    samples = [{"ids": rng.integers(1, 9, int(n)).tolist(), "y": float(n % 2)}
               for n in rng.integers(1, 6, 9)]

    def collate(batch):
        ids = [T.tensor(s["ids"]) for s in batch]
        lens = T.tensor([len(s["ids"]) for s in batch])
        padded = nn.utils.rnn.pad_sequence(ids, batch_first=True)
        return padded, lens, T.tensor([s["y"] for s in batch])

    emb = _init(T, nn.Embedding(9, 4, padding_idx=0), 5)
    head = _init(T, nn.Linear(4, 1), 6)
    opt = T.optim.SGD([*emb.parameters(), *head.parameters()], lr=0.2)
    losses, shapes = [], []
    for ids, lens, y in D.DataLoader(samples, batch_size=4, collate_fn=collate, drop_last=True):
        shapes.append(list(ids.shape))
        opt.zero_grad()
        h = emb(ids).sum(1) / lens.unsqueeze(1)
        loss = nn.functional.binary_cross_entropy_with_logits(head(h).squeeze(1), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [shapes, losses, emb.weight[0], emb.weight.grad[0]]


def loader_reshuffles_per_epoch(T):
    """A shuffling DataLoader with a seeded generator: each epoch a
    permutation, two loaders seeded alike giving the same epochs, and a
    training loop whose loss does not depend on the order (full-batch
    gradient summed over mini-batches before one step)."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(8))

    def epochs(seed):
        dl = D.DataLoader(ds, batch_size=3, shuffle=True, generator=T.Generator().manual_seed(seed))
        return [[int(i) for b in dl for i in b[0]] for _ in range(2)]

    a, b = epochs(5), epochs(5)
    net = _mlp(T, 7, (2, 3, 1))
    x, y = _t(T, 8, 2, seed=8), _t(T, 8, 1, seed=9)
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    dl = D.DataLoader(D.TensorDataset(x, y), batch_size=3, shuffle=True,
                      generator=T.Generator().manual_seed(1))
    for _ in range(2):
        opt.zero_grad()
        for xb, yb in dl:
            (T.nn.functional.mse_loss(net(xb), yb, reduction="sum") / 8).backward()
        opt.step()
    return [a == b, sorted(a[0]), sorted(a[1]), len(a[0]), net[0].weight, net[2].bias]


def sampler_lengths_and_refusals(T):
    """The samplers' lengths and refusals: RandomSampler's replacement must
    be a bool, num_samples given without replacement larger than the data
    (taken: whole permutations and part of one, so each index's count is
    all that does not depend on the stream), SequentialSampler over a range, SubsetRandomSampler
    over a tensor of indices, BatchSampler's batch_size as a bool."""
    D = T.utils.data
    g = T.Generator().manual_seed(2)
    wrap = list(D.RandomSampler(range(3), num_samples=7, generator=g))
    sub = list(D.SubsetRandomSampler(T.tensor([4, 8, 15]), generator=g))
    return [len(wrap), sorted(collections.Counter(wrap).values()),
            len(D.SequentialSampler(range(2, 9))),
            list(D.SequentialSampler(range(2, 5))), sorted(int(i) for i in sub),
            _raised(lambda: D.RandomSampler(range(3), replacement=0)),
            _raised(lambda: D.RandomSampler(range(3), num_samples=-2)),
            _raised(lambda: D.BatchSampler(range(3), True, False)),
            _raised(lambda: D.BatchSampler(range(3), 2.0, False)),
            len(D.RandomSampler(range(3), num_samples=5))]


def loader_batch_none_prebatched(T):
    """A dataset that yields whole batches, read with batch_size=None (no
    second batching; numpy converted to tensors), and a regression trained
    on them; a loader's batch_size and drop_last attributes."""
    D = T.utils.data

    class Batches(D.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            rng = np.random.default_rng(i)
            x = rng.standard_normal((4, 2)).astype(np.float32)
            return x, (x.sum(1, keepdims=True) * 0.5).astype(np.float32)

    dl = D.DataLoader(Batches(), batch_size=None)
    net = _init(T, T.nn.Linear(2, 1), 10)
    opt = T.optim.SGD(net.parameters(), lr=0.2)
    losses = []
    for x, y in dl:
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    first = next(iter(dl))
    return [type(first[0]).__name__, first[0].dtype, losses, net.weight, dl.batch_size,
            dl.drop_last, D.DataLoader(Batches(), batch_size=2).batch_size, len(dl)]


# ---- torch.nn.utils ---------------------------------------------------------------------------

def clip_single_tensor_norms(T):
    """clip_grad_norm_ given one tensor (not a list), with norm_type 1 and
    3, max_norm as a 0-d tensor; clip_grad_value_ with foreach on and off
    and parameters without gradients; the returned norms."""
    nn = T.nn
    U = nn.utils
    out = []
    for nt in (1.0, 3.0, 2.0):
        w = nn.Parameter(_t(T, 3, 2, seed=11))
        w.grad = _t(T, 3, 2, seed=12) * 4
        out.append([U.clip_grad_norm_(w, 1.5, norm_type=nt), w.grad])
    w = nn.Parameter(_t(T, 4, seed=13))
    w.grad = _t(T, 4, seed=14) * 3
    out.append([U.clip_grad_norm_([w], T.tensor(0.5)), w.grad])
    for foreach in (False, True):
        net = _mlp(T, 15, (2, 3, 1))
        net(_t(T, 4, 2, seed=16)).sum().backward()
        net[2].bias.grad = None
        U.clip_grad_value_(net.parameters(), 0.1, foreach=foreach)
        out.append([net[0].weight.grad, net[2].weight.grad, net[2].bias.grad])
    return out


def clip_grad_zero_and_nan(T):
    """Clipping when every gradient is zero (norm 0, nothing scaled), with a
    NaN gradient (the NaN norm propagates without error_if_nonfinite), the
    inf norm of mixed float32/float64 gradients, and clip_grad_value_ of a
    negative clip value (PyTorch clamps with min > max)."""
    nn = T.nn
    U = nn.utils
    a = nn.Parameter(T.zeros(3))
    a.grad = T.zeros(3)
    z = U.clip_grad_norm_([a], 1.0)
    b = nn.Parameter(T.zeros(2))
    b.grad = _f32(T, [float("nan"), 1.0])
    n = U.clip_grad_norm_([b], 1.0)
    c = nn.Parameter(T.zeros(2, dtype=T.float64))
    c.grad = T.tensor([3.0, -4.0], dtype=T.float64)
    d = nn.Parameter(T.zeros(2))
    d.grad = _f32(T, [1.0, -5.0])
    inf = U.clip_grad_norm_([c, d], 2.0, norm_type=float("inf"))
    e = nn.Parameter(T.zeros(3))
    e.grad = _f32(T, [-1.0, 0.5, 2.0])
    U.clip_grad_value_([e], -0.5)
    return [z, a.grad, n, b.grad, inf, c.grad, d.grad, e.grad,
            _raised(lambda: U.clip_grad_norm_([b], 1.0, error_if_nonfinite=True))]


def old_weight_norm_hooks(T):
    """The deprecated nn.utils.weight_norm: its g and v parameters for dim 0,
    dim 1 and dim None, training a layer under it, remove_weight_norm
    folding the weight back, and its refusal to register twice and to
    remove what is not there."""
    nn = T.nn
    U = nn.utils
    out = []
    for dim in (0, 1, None):
        lin = _init(T, nn.Linear(3, 2), 17)
        U.weight_norm(lin, dim=dim)
        out.append([sorted(n for n, _ in lin.named_parameters()), lin.weight_g.shape,
                    lin.weight_g, lin.weight])
    lin = _init(T, nn.Linear(3, 2), 17)
    U.weight_norm(lin)
    x, y = _t(T, 5, 3, seed=18), _t(T, 5, 2, seed=19)
    losses = _fit(T, lin, T.optim.SGD(lin.parameters(), lr=0.1), x, y)
    w = lin.weight.detach().clone()
    U.remove_weight_norm(lin)
    out += [losses, w, lin.weight, sorted(n for n, _ in lin.named_parameters()),
            _raised(lambda: U.remove_weight_norm(lin)),
            _raised(lambda: U.weight_norm(U.weight_norm(_init(T, nn.Linear(2, 2), 1))))]
    return out


def prune_amounts_and_remove(T):
    """Pruning's amounts: an int count, a fraction, zero; l1_unstructured's
    choice (the smallest magnitudes), identity, is_pruned, the buffers and
    the forward pre-hook it adds, prune.remove making it permanent; its
    refusals of an amount above one, a negative one, a count above the
    size, and remove() of an unpruned name."""
    nn = T.nn
    P = importlib.import_module(T.__name__ + ".nn.utils.prune")
    lin = _init(T, nn.Linear(3, 2), 20)
    P.l1_unstructured(lin, "weight", amount=2)
    m1 = lin.weight_mask.clone()
    P.l1_unstructured(lin, "bias", amount=0.5)
    hooks = len(lin._forward_pre_hooks)
    pruned = P.is_pruned(lin)
    P.remove(lin, "weight")
    other = _init(T, nn.Linear(3, 2), 21)
    P.identity(other, "weight")
    P.l1_unstructured(_init(T, nn.Linear(3, 2), 22), "weight", amount=0)
    return [m1, lin.weight, lin.bias, lin.bias_mask, hooks, pruned,
            sorted(n for n, _ in lin.named_buffers()), sorted(n for n, _ in lin.named_parameters()),
            other.weight_mask, P.is_pruned(nn.Linear(2, 2)),
            _raised(lambda: P.l1_unstructured(nn.Linear(3, 2), "weight", amount=1.5)),
            _raised(lambda: P.l1_unstructured(nn.Linear(3, 2), "weight", amount=-1)),
            _raised(lambda: P.l1_unstructured(nn.Linear(3, 2), "weight", amount=7)),
            _raised(lambda: P.remove(nn.Linear(3, 2), "weight")),
            _raised(lambda: P.l1_unstructured(nn.Linear(3, 2), "nothing", amount=1))]


def prune_structured_dims(T):
    """ln_structured over output rows (dim 0) and input columns (dim 1),
    with n=1, 2 and inf; pruning a conv's output channels; the masks and
    the pruned forward; two prunings of one tensor combined (a container)."""
    nn = T.nn
    P = importlib.import_module(T.__name__ + ".nn.utils.prune")
    out = []
    for n, dim in ((1, 0), (2, 1), (float("inf"), 0)):
        lin = _init(T, nn.Linear(4, 3), 23)
        P.ln_structured(lin, "weight", amount=1, n=n, dim=dim)
        out.append(lin.weight_mask)
    conv = _init(T, nn.Conv2d(2, 4, 2), 24)
    P.ln_structured(conv, "weight", amount=0.5, n=2, dim=0)
    x = _t(T, 1, 2, 3, 3, seed=25)
    out += [conv.weight_mask[:, 0, 0, 0], conv(x)]
    lin = _init(T, nn.Linear(4, 3), 23)
    P.ln_structured(lin, "weight", amount=1, n=2, dim=0)
    P.l1_unstructured(lin, "weight", amount=3)
    hook = [h for h in lin._forward_pre_hooks.values()][0]
    out += [lin.weight_mask, type(hook).__name__, len(list(hook))]
    return out


def parametrize_several_originals(T):
    """A parametrization whose right_inverse returns two tensors (a low-rank
    factorisation): original0 and original1, training them, the state
    dict's keys, and removing it with leave_parametrized."""
    nn = T.nn
    PZ = nn.utils.parametrize

    class LowRank(nn.Module):
        def forward(self, a, b):
            return a @ b

        def right_inverse(self, w):
            return w[:, :1].clone(), T.ones(1, w.shape[1])

    lin = _init(T, nn.Linear(3, 4), 26)
    PZ.register_parametrization(lin, "weight", LowRank())
    keys = list(lin.state_dict())
    shapes = [lin.parametrizations.weight.original0.shape,
              lin.parametrizations.weight.original1.shape]
    w0 = lin.weight.detach().clone()
    x, y = _t(T, 6, 3, seed=27), _t(T, 6, 4, seed=28)
    losses = _fit(T, lin, T.optim.SGD(lin.parameters(), lr=0.05), x, y)
    w = lin.weight.detach().clone()
    PZ.remove_parametrizations(lin, "weight", leave_parametrized=True)
    return [keys, shapes, w0, losses, w, lin.weight, type(lin.weight).__name__,
            PZ.is_parametrized(lin),
            _raised(lambda: PZ.remove_parametrizations(lin, "weight"))]


def parametrize_cached_and_bias(T):
    """A parametrization on a bias and on a weight together, their values
    under parametrize.cached() (computed once per forward), a module type
    renamed by parametrization, and training with both."""
    nn = T.nn
    PZ = nn.utils.parametrize
    calls = []

    class Positive(nn.Module):
        def forward(self, x):
            calls.append(1)
            return nn.functional.softplus(x)

    class Centered(nn.Module):
        def forward(self, x):
            return x - x.mean()

    lin = _init(T, nn.Linear(3, 3), 29)
    PZ.register_parametrization(lin, "bias", Positive())
    PZ.register_parametrization(lin, "weight", Centered())
    x = _t(T, 4, 3, seed=30)
    with PZ.cached():
        a = lin(x) + lin(x)
    n_cached = len(calls)
    b = lin(x) + lin(x)
    n_plain = len(calls) - n_cached
    losses = _fit(T, lin, T.optim.Adam(lin.parameters(), lr=0.05), x, _t(T, 4, 3, seed=31))
    return [n_cached, n_plain, (a - b).abs().max(), type(lin).__name__, lin.bias,
            lin.weight.sum(), losses]


def vector_to_parameters_refusals(T):
    """vector_to_parameters writing a vector into a model's parameters
    (views kept, values replaced), parameters_to_vector of parameters of
    mixed shapes; refusals of a non-tensor vector and a too short one."""
    nn = T.nn
    U = nn.utils
    net = _mlp(T, 32, (2, 3, 1))
    v = U.parameters_to_vector(net.parameters())
    U.vector_to_parameters(v * 2 + 1, net.parameters())
    return [v.shape, net[0].weight, net[2].bias, U.parameters_to_vector(net.parameters()).sum(),
            _raised(lambda: U.vector_to_parameters([1.0, 2.0], net.parameters())),
            _raised(lambda: U.vector_to_parameters(T.zeros(3), net.parameters())),
            _raised(lambda: U.parameters_to_vector(T.zeros(3)))]


# ---- schedulers -------------------------------------------------------------------------------

def _opt(T, lr=0.1, groups=1, **kw):
    params = [{"params": [T.nn.Parameter(T.zeros(1))], "lr": lr * (k + 1)} for k in range(groups)]
    return T.optim.SGD(params, lr=lr, **kw)


def plateau_state_roundtrip(T):
    """ReduceLROnPlateau with cooldown, threshold_mode='abs', per-group
    min_lr and eps: its lrs over a loss curve, its state dict mid-way
    loaded into a fresh scheduler that continues alike."""
    S = T.optim.lr_scheduler
    losses = [1.0, 0.9, 0.9, 0.89, 0.95, 0.95, 0.95, 0.7, 0.71, 0.72, 0.73, 0.74, 0.75]
    opt = _opt(T, 1.0, groups=2)
    kw = dict(factor=0.5, patience=1, cooldown=2, threshold=0.05, threshold_mode="abs",
              min_lr=[0.2, 0.3], eps=0.01)
    s = S.ReduceLROnPlateau(opt, **kw)
    lrs = []
    for v in losses[:6]:
        s.step(v)
        lrs.append([g["lr"] for g in opt.param_groups])
    sd = s.state_dict()
    opt2 = _opt(T, 1.0, groups=2)
    for g, g2 in zip(opt.param_groups, opt2.param_groups):
        g2["lr"] = g["lr"]
    s2 = S.ReduceLROnPlateau(opt2, factor=0.9)
    s2.load_state_dict(sd)
    rest, rest2 = [], []
    for v in losses[6:]:
        s.step(v)
        s2.step(v)
        rest.append([g["lr"] for g in opt.param_groups])
        rest2.append([g["lr"] for g in opt2.param_groups])
    return [lrs, rest, rest == rest2, s.best, s.num_bad_epochs, s.cooldown_counter,
            s.get_last_lr(), sorted(k for k in sd if k != "mode_worse"), sd["min_lrs"]]


def sequential_three_stages(T):
    """SequentialLR of ConstantLR, ExponentialLR and CosineAnnealingLR with
    two milestones: the lr each step, and a state dict loaded into a fresh
    chain mid-way continuing alike."""
    S = T.optim.lr_scheduler

    def build(opt):
        return S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=2),
                                    S.ExponentialLR(opt, gamma=0.8),
                                    S.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)],
                              milestones=[3, 6])

    opt = _opt(T, 0.4)
    s = build(opt)
    lrs = [s.get_last_lr()[0]]
    for _ in range(5):
        opt.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    sd = s.state_dict()
    opt2 = _opt(T, 0.4)
    s2 = build(opt2)
    s2.load_state_dict(sd)
    opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    a, b = [], []
    for _ in range(6):
        opt.step()
        s.step()
        opt2.step()
        s2.step()
        a.append(s.get_last_lr()[0])
        b.append(s2.get_last_lr()[0])
    return [lrs, a, b, s.last_epoch, sorted(sd), len(sd["_schedulers"])]


def chained_two_groups(T):
    """ChainedScheduler with its optimizer given, over two param groups of
    different lrs: MultiplicativeLR with a lambda per group and StepLR;
    the lrs each step and its state dict's keys."""
    S = T.optim.lr_scheduler
    opt = _opt(T, 0.1, groups=2)
    s = S.ChainedScheduler([S.MultiplicativeLR(opt, [lambda e: 0.9, lambda e: 0.5]),
                            S.StepLR(opt, step_size=2, gamma=0.1)], optimizer=opt)
    lrs = [s.get_last_lr()]
    for _ in range(4):
        opt.step()
        s.step()
        lrs.append(s.get_last_lr())
    sd = s.state_dict()
    return [lrs, sorted(sd), [sorted(x) for x in sd["_schedulers"]],
            _raised(lambda: S.ChainedScheduler([S.StepLR(opt, 2), S.StepLR(_opt(T), 2)]))]


def one_cycle_three_phase_linear(T):
    """OneCycleLR with three_phase and linear annealing over total_steps,
    cycling SGD's momentum; stepping past the end refused; momentum
    cycling with an optimizer without momentum refused; a bad pct_start."""
    S = T.optim.lr_scheduler
    opt = _opt(T, 0.1, momentum=0.9)
    s = S.OneCycleLR(opt, max_lr=1.0, total_steps=8, three_phase=True, anneal_strategy="linear",
                     div_factor=10, final_div_factor=100, pct_start=0.25)
    lrs, moms = [], []
    for _ in range(8):
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
        opt.step()
        s.step()
    err = _raised(lambda: s.step())
    return [lrs, moms, err,
            _raised(lambda: S.OneCycleLR(_opt(T), max_lr=1.0, total_steps=5)),
            _raised(lambda: S.OneCycleLR(_opt(T, momentum=0.9), max_lr=1.0, total_steps=5,
                                         pct_start=1.5)),
            _raised(lambda: S.OneCycleLR(_opt(T, momentum=0.9), max_lr=1.0)),
            _raised(lambda: S.OneCycleLR(_opt(T, momentum=0.9), max_lr=1.0, epochs=2)),
            _raised(lambda: S.OneCycleLR(_opt(T, momentum=0.9), max_lr=[1.0, 2.0],
                                         total_steps=5))]


def constant_linear_refusals(T):
    """ConstantLR and LinearLR's factors and their refusals (a factor above
    one, a start_factor of zero, an end_factor above one), MultiplicativeLR
    given a non-callable, and the lrs of a LinearLR warmup."""
    S = T.optim.lr_scheduler
    opt = _opt(T, 0.3)
    s = S.LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=3)
    lrs = []
    for _ in range(5):
        lrs.append(s.get_last_lr()[0])
        opt.step()
        s.step()
    return [lrs,
            _raised(lambda: S.ConstantLR(_opt(T), factor=1.5)),
            _raised(lambda: S.LinearLR(_opt(T), start_factor=0.0)),
            _raised(lambda: S.LinearLR(_opt(T), end_factor=1.5)),
            _raised(lambda: S.MultiplicativeLR(_opt(T), 0.5)),
            _raised(lambda: S.LambdaLR(_opt(T, groups=2), [lambda e: 1.0])),
            _raised(lambda: S.StepLR(_opt(T), step_size=2, last_epoch=3))]


def cosine_past_t_max(T):
    """CosineAnnealingLR stepped beyond T_max (the lr rises again, its
    recursive form), with eta_min, against the closed form; and
    ExponentialLR's state dict loaded into a fresh one."""
    S = T.optim.lr_scheduler
    opt = _opt(T, 1.0)
    s = S.CosineAnnealingLR(opt, T_max=3, eta_min=0.1)
    lrs = []
    for _ in range(8):
        opt.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    closed = [0.1 + 0.9 * (1 + math.cos(math.pi * k / 3)) / 2 for k in range(1, 9)]
    opt2 = _opt(T, 1.0)
    e = S.ExponentialLR(opt2, gamma=0.5)
    opt2.step()
    e.step()
    sd = e.state_dict()
    e2 = S.ExponentialLR(_opt(T, 1.0), gamma=0.9)
    e2.load_state_dict(sd)
    return [lrs, max(abs(a - b) for a, b in zip(lrs, closed)), e2.gamma, e2.last_epoch,
            e2.get_last_lr(), sorted(sd)]


def plateau_max_mode_rel(T):
    """ReduceLROnPlateau tracking an accuracy (mode 'max', relative
    threshold) in a real loop, with its refusals: factor of one, an unknown
    mode, an unknown threshold_mode, a min_lr list of the wrong length."""
    S = T.optim.lr_scheduler
    opt = _opt(T, 0.5)
    s = S.ReduceLROnPlateau(opt, mode="max", factor=0.2, patience=0, threshold=0.1)
    accs = [0.5, 0.6, 0.62, 0.7, 0.71, 0.9, 0.91]
    lrs = []
    for a in accs:
        s.step(a)
        lrs.append(opt.param_groups[0]["lr"])
    return [lrs, s.best,
            _raised(lambda: S.ReduceLROnPlateau(_opt(T), factor=1.0)),
            _raised(lambda: S.ReduceLROnPlateau(_opt(T), mode="avg")),
            _raised(lambda: S.ReduceLROnPlateau(_opt(T), threshold_mode="pct")),
            _raised(lambda: S.ReduceLROnPlateau(_opt(T, groups=2), min_lr=[0.1, 0.1, 0.1]))]


def step_before_optimizer_warning(T):
    """The warnings a script meets with schedulers: scheduler.step() before
    any optimizer.step(), and step(epoch) (deprecated); the lrs they give."""
    S = T.optim.lr_scheduler
    opt = _opt(T, 1.0)
    s = S.StepLR(opt, step_size=1, gamma=0.5)
    _, w1 = _warned(lambda: s.step())
    opt2 = _opt(T, 1.0)
    s2 = S.StepLR(opt2, step_size=1, gamma=0.5)
    opt2.step()
    _, w2 = _warned(lambda: s2.step(3))
    return [w1, opt.param_groups[0]["lr"], w2, opt2.param_groups[0]["lr"], s2.last_epoch]


def cyclic_lr_state_and_triangular2(T):
    """CyclicLR triangular2 (amplitude halved each cycle) over two groups,
    without momentum cycling for Adam, its state dict (no scale function
    ref), and its refusal to cycle momentum for Adam-less-momentum SGD."""
    S = T.optim.lr_scheduler
    opt = _opt(T, 0.1, groups=2)
    s = S.CyclicLR(opt, base_lr=[0.1, 0.2], max_lr=[1.0, 2.0], step_size_up=2,
                   mode="triangular2", cycle_momentum=False)
    lrs = []
    for _ in range(9):
        lrs.append([round(x, 6) for x in s.get_last_lr()])
        opt.step()
        s.step()
    sd = s.state_dict()
    return [lrs, "_scale_fn_ref" in sd, sd["mode"], sd["total_size"], sd["step_ratio"],
            _raised(lambda: S.CyclicLR(_opt(T), base_lr=0.1, max_lr=1.0)),
            _raised(lambda: S.CyclicLR(_opt(T, momentum=0.9), base_lr=0.1, max_lr=1.0,
                                       mode="zigzag"))]


# ---- torch.func over modules ------------------------------------------------------------------

def func_jacrev_wrt_params(T):
    """jacrev of a Linear's output with respect to its parameters through
    functional_call (a dict of Jacobians), against jacfwd's; their shapes."""
    F = T.func
    lin = _init(T, T.nn.Linear(3, 2), 33)
    params = {k: v.detach() for k, v in lin.named_parameters()}
    x = _t(T, 4, 3, seed=34)

    def f(p):
        return T.func.functional_call(lin, p, (x,)).tanh()

    jr = F.jacrev(f)(params)
    jf = F.jacfwd(f)(params)
    return [sorted(jr), jr["weight"].shape, jr["bias"].shape, jr["weight"], jr["bias"],
            (jr["weight"] - jf["weight"]).abs().max()]


def func_hessian_mlp_input(T):
    """hessian of a small tanh MLP's scalar output with respect to its
    input, symmetric, against jacfwd(jacrev); and grad of it."""
    F = T.func
    net = _mlp(T, 35, (3, 4, 1))

    def f(x):
        return net(x).squeeze()

    x = _t(T, 3, seed=36)
    h = F.hessian(f)(x)
    h2 = F.jacfwd(F.jacrev(f))(x)
    return [h, (h - h.T).abs().max(), (h - h2).abs().max(), F.grad(f)(x)]


def func_vmap_dims(T):
    """vmap with in_dims (0, None) and (1, 0), out_dims=1, a nested vmap
    (an outer product), chunk_size giving the same result, and a tuple
    output with out_dims per output."""
    F = T.func
    a, b = _t(T, 3, 4, seed=37), _t(T, 4, seed=38)
    r1 = F.vmap(lambda u, v: u * v, in_dims=(0, None))(a, b)
    r2 = F.vmap(lambda u, v: u.dot(v), in_dims=(1, 0))(_t(T, 4, 5, seed=39), _t(T, 5, 4, seed=40))
    r3 = F.vmap(lambda u: u.sum(0, keepdim=True) * 2, out_dims=1)(a)
    outer = F.vmap(F.vmap(lambda u, v: u * v, in_dims=(None, 0)), in_dims=(0, None))(
        a[:, 0], b)
    chunked = F.vmap(lambda u: u.exp().sum(), chunk_size=2)(a)
    plain = F.vmap(lambda u: u.exp().sum())(a)
    t1, t2 = F.vmap(lambda u: (u.max(), u.min(0, keepdim=True).values), out_dims=(0, 1))(a)
    return [r1, r2, r3.shape, r3, outer, (chunked - plain).abs().max(), t1, t2.shape]


def func_grad_argnums_aux(T):
    """grad with argnums (0, 1) over a weight and a bias, has_aux returning
    a dict; grad_and_value; training a linear model with these gradients
    by hand."""
    F = T.func
    x, y = _t(T, 6, 2, seed=41), _t(T, 6, seed=42)

    def loss(w, b):
        pred = x @ w + b
        err = (pred - y).square().mean()
        return err, {"pred_mean": pred.mean()}

    w, b = _t(T, 2, seed=43), T.tensor(0.0)
    losses = []
    for _ in range(3):
        (gw, gb), aux = F.grad(loss, argnums=(0, 1), has_aux=True)(w, b)
        w, b = w - 0.1 * gw, b - 0.1 * gb
        losses.append(float(loss(w, b)[0]))
    g, (v, aux2) = F.grad_and_value(loss, has_aux=True)(w, b)
    return [losses, w, b, g, v, sorted(aux), aux2["pred_mean"]]


def func_vjp_jvp_linearize(T):
    """vjp and jvp of an MLP with respect to its input, linearize's
    function agreeing with jvp, and the vjp's cotangent applied twice."""
    F = T.func
    net = _mlp(T, 44, (3, 4, 2))
    x, t = _t(T, 3, seed=45), _t(T, 3, seed=46)
    out, vjp_fn = F.vjp(net, x)
    (ct,) = vjp_fn(T.ones(2))
    (ct2,) = vjp_fn(_f32(T, [1.0, -2.0]))
    o2, jv = F.jvp(net, (x,), (t,))
    o3, lin_fn = F.linearize(net, x)
    return [out, ct, ct2, (o2 - out).abs().max(), jv, (lin_fn(t) - jv).abs().max(),
            (o3 - out).abs().max()]


def func_ensemble_with_buffers(T):
    """An ensemble of three BatchNorm MLPs in eval mode run at once with
    stack_module_state and vmap over functional_call (parameters and
    buffers), against running each model alone."""
    nn = T.nn
    F = T.func
    import copy
    models = []
    for k in range(3):
        m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
        _init(T, m, 47 + k)
        with T.no_grad():
            m[1].running_mean.copy_(_t(T, 4, seed=50 + k) * 0.1)
            m[1].running_var.copy_(_t(T, 4, seed=53 + k).abs() + 0.5)
        models.append(m.eval())
    params, buffers = F.stack_module_state(models)
    base = copy.deepcopy(models[0])
    x = _t(T, 5, 3, seed=56)

    def run(p, b, xx):
        return F.functional_call(base, (p, b), (xx,))

    ens = F.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    alone = T.stack([m(x) for m in models])
    return [sorted(params), sorted(buffers), ens.shape, (ens - alone).abs().max(),
            params["0.weight"].requires_grad]


def func_transform_refusals(T):
    """torch.func's refusals a script meets: vmap over inputs of different
    batch sizes, an in_dims out of range, an in_dims tuple of the wrong
    length, grad of a non-scalar output, grad's argnums out of range, and
    functional_call's strict check and duplicate keys."""
    F = T.func
    lin = T.nn.Linear(2, 2)
    return [_raised_head(lambda: F.vmap(lambda a, b: a + b)(T.ones(3, 2), T.ones(4, 2))),
            _raised_head(lambda: F.vmap(lambda a: a, in_dims=2)(T.ones(3, 2))),
            _raised_head(lambda: F.vmap(lambda a, b: a, in_dims=(0,))(T.ones(3), T.ones(3))),
            _raised_head(lambda: F.grad(lambda a: a * 2)(T.ones(3))),
            _raised_head(lambda: F.grad(lambda a: a.sum(), argnums=1)(T.ones(3))),
            _raised_head(lambda: F.functional_call(lin, {"weight": T.ones(2, 2)}, (T.ones(2),),
                                                   strict=True)),
            _raised_head(lambda: F.functional_call(lin, ({"weight": T.ones(2, 2)},
                                                         {"weight": T.ones(2, 2)}),
                                                   (T.ones(2),)))]


def func_per_sample_clipped_sgd(T):
    """Per-sample gradients by vmap(grad) over functional_call, clipped per
    sample to norm 1 and averaged (DP-SGD without noise), for three steps
    of a small classifier; against the loop over samples."""
    nn = T.nn
    F = T.func
    net = _mlp(T, 57, (3, 4, 2))
    x, y = _t(T, 5, 3, seed=58), _long(T, [0, 1, 1, 0, 1])

    def loss_one(p, xi, yi):
        out = F.functional_call(net, p, (xi.unsqueeze(0),))
        return nn.functional.cross_entropy(out, yi.unsqueeze(0))

    losses = []
    for _ in range(3):
        p = {k: v.detach() for k, v in net.named_parameters()}
        g = F.vmap(F.grad(loss_one), in_dims=(None, 0, 0))(p, x, y)
        norms = T.stack([g[k].flatten(1).norm(dim=1) for k in g]).norm(dim=0)
        scale = (1.0 / norms).clamp(max=1.0)
        with T.no_grad():
            for k, v in net.named_parameters():
                v -= 0.5 * (g[k] * scale.view(-1, *([1] * (g[k].dim() - 1)))).mean(0)
        losses.append(float(nn.functional.cross_entropy(net(x), y)))
    return [losses, norms, net[0].weight]


# ---- state dicts, buffers and parameters ------------------------------------------------------

def load_state_dict_casts(T):
    """load_state_dict of float64 tensors into a float32 model (copied and
    cast, the parameters keep their dtype and identity), with assign=True
    (the float64 tensor taken), of an int buffer from a float value, and
    of a tensor needing broadcast (refused as a size mismatch)."""
    nn = T.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.register_buffer("steps", T.tensor(0))

    net = Net()
    w_id = id(net.lin.weight)
    sd = {"lin.weight": _t(T, 2, 2, seed=59).double(), "lin.bias": T.ones(2, dtype=T.float64),
          "steps": T.tensor(7.9)}
    net.load_state_dict(sd)
    net2 = Net()
    net2.load_state_dict(sd, assign=True)
    bad = dict(sd, **{"lin.bias": T.ones(1)})
    return [net.lin.weight, net.lin.weight.dtype, id(net.lin.weight) == w_id, net.steps,
            net2.lin.weight.dtype, type(net2.lin.weight).__name__,
            net2.lin.weight.requires_grad, net2.steps.dtype,
            _raised_full(lambda: Net().load_state_dict(bad))]


def load_state_dict_hooks_migrate(T):
    """A checkpoint from an older layout migrated with a load_state_dict
    pre-hook (keys renamed), a post-hook that drops an expected missing key
    from the report, and the order both hooks run in."""
    nn = T.nn
    log = []

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.register_buffer("scale", T.ones(1))
            self.fc.register_load_state_dict_pre_hook(self._rename)

        def _rename(self, module, sd, prefix, local_metadata, strict, missing, unexpected,
                    errors):
            log.append(("pre", prefix))
            for k in list(sd):
                if k.startswith(prefix + "w"):
                    sd[prefix + "weight"] = sd.pop(k)
                elif k.startswith(prefix + "b"):
                    sd[prefix + "bias"] = sd.pop(k)

    def post(module, report):
        log.append(("post", list(report.missing_keys)))
        if "scale" in report.missing_keys:
            report.missing_keys.remove("scale")

    net = Net()
    net.register_load_state_dict_post_hook(post)
    old = {"fc.w": _t(T, 2, 2, seed=60), "fc.b": T.zeros(2)}
    rep = net.load_state_dict(old)
    return [log, rep.missing_keys, rep.unexpected_keys, net.fc.weight]


def extra_state_roundtrip(T):
    """A module with get_extra_state/set_extra_state: its '_extra_state'
    key in the state dict, carried through torch.save/load into a fresh
    module, and a missing extra state reported."""
    nn = T.nn

    class Vocab(nn.Module):
        def __init__(self, words=()):
            super().__init__()
            self.words = list(words)
            self.emb = nn.Embedding(4, 2)

        def get_extra_state(self):
            return {"words": self.words}

        def set_extra_state(self, state):
            self.words = list(state["words"])

    src = _init(T, Vocab(["a", "b", "c"]), 61)
    buf = io.BytesIO()
    T.save(src.state_dict(), buf)
    buf.seek(0)
    sd = T.load(buf, weights_only=False)
    dst = Vocab()
    dst.load_state_dict(sd)
    rep = Vocab().load_state_dict({"emb.weight": T.zeros(4, 2)}, strict=False)
    return [list(sd), dst.words, dst.emb.weight, rep.missing_keys]


def buffer_registration_refusals(T):
    """register_buffer's refusals (a dotted name, an empty one, a name
    already an attribute or parameter, a non-tensor), a None buffer (kept
    out of the state dict, then set), and assigning to a buffer's name."""
    nn = T.nn
    m = nn.Linear(2, 2)
    m.register_buffer("running", None)
    sd1 = list(m.state_dict())
    m.running = T.ones(2)
    sd2 = list(m.state_dict())
    m.foo = 3
    return [sd1, sd2, [n for n, _ in m.named_buffers()],
            _raised(lambda: m.register_buffer("a.b", T.ones(1))),
            _raised(lambda: m.register_buffer("", T.ones(1))),
            _raised(lambda: m.register_buffer("foo", T.ones(1))),
            _raised(lambda: m.register_buffer("weight", T.ones(1))),
            _raised(lambda: m.register_buffer("x", [1.0])),
            _raised(lambda: m.register_buffer(3, T.ones(1))),
            _raised(lambda: setattr(m, "running", [1.0]))]


def parameter_registration_refusals(T):
    """register_parameter's refusals (a plain tensor, a dotted name, a name
    already a buffer), assigning a plain tensor over a parameter, a None
    parameter kept out of the state dict and the optimizer's list, and a
    non-leaf parameter refused."""
    nn = T.nn
    m = nn.Linear(2, 2)
    m.register_buffer("buf", T.zeros(1))
    m.register_parameter("extra", None)
    return [list(m.state_dict()), len(list(m.parameters())),
            _raised(lambda: m.register_parameter("p", T.ones(1))),
            _raised(lambda: m.register_parameter("a.b", nn.Parameter(T.ones(1)))),
            _raised(lambda: m.register_parameter("buf", nn.Parameter(T.ones(1)))),
            _raised(lambda: setattr(m, "weight", T.ones(2, 2))),
            _raised(lambda: m.register_parameter("q", nn.Parameter(T.ones(1, requires_grad=True)
                                                                     * 2)))]


def non_persistent_buffers_move(T):
    """Persistent and non-persistent buffers through .double(), .half() and
    .to(float64): float buffers converted, integer ones kept; the
    non-persistent one out of the state dict but in named_buffers and
    moved alike; a state dict carrying it refused as unexpected."""
    nn = T.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.register_buffer("mean", T.zeros(2))
            self.register_buffer("count", T.tensor(3))
            self.register_buffer("cache", T.ones(2), persistent=False)

    n = Net().double()
    h = Net().half()
    t = Net().to(T.float64)
    sd = dict(Net().state_dict())
    sd["cache"] = T.ones(2)
    return [[b.dtype for _, b in n.named_buffers()], [b.dtype for _, b in h.named_buffers()],
            [b.dtype for _, b in t.named_buffers()], list(n.state_dict()),
            sorted(n._non_persistent_buffers_set),
            _raised(lambda: Net().load_state_dict(sd)),
            Net().load_state_dict(sd, strict=False).unexpected_keys]


def tied_parameters_state_dict(T):
    """A tied embedding/output weight: both keys in the state dict (one
    tensor), parameters() counting it once, loading a state dict where the
    two copies differ (the later key wins), and the optimizer stepping it
    once."""
    nn = T.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(5, 3)
            self.out = nn.Linear(3, 5, bias=False)
            self.out.weight = self.emb.weight

        def forward(self, ids):
            return self.out(self.emb(ids))

    lm = _init(T, LM(), 62)
    sd = lm.state_dict()
    same = sd["emb.weight"].data_ptr() == sd["out.weight"].data_ptr()
    sd2 = {"emb.weight": T.zeros(5, 3), "out.weight": T.ones(5, 3)}
    lm2 = LM()
    lm2.load_state_dict(sd2)
    ids = _long(T, [[1, 2, 3], [4, 0, 1]])
    opt = T.optim.SGD(lm.parameters(), lr=0.5)
    loss = nn.functional.cross_entropy(lm(ids).flatten(0, 1), _long(T, [2, 3, 4, 0, 1, 2]))
    loss.backward()
    opt.step()
    return [list(sd), same, len(list(lm.parameters())),
            [n for n, _ in lm.named_parameters()],
            [n for n, _ in lm.named_parameters(remove_duplicate=False)],
            lm2.emb.weight, lm2.out.weight is lm2.emb.weight, loss, lm.emb.weight]


def state_dict_version_metadata(T):
    """The state dict's _metadata (versions per module prefix), a BatchNorm
    checkpoint without num_batches_tracked (an old version, loaded), and
    strict loading's refusal listing both missing and unexpected keys."""
    nn = T.nn
    net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    sd = net.state_dict()
    meta = {k: dict(v) for k, v in sd._metadata.items()}
    old = collections.OrderedDict((k, v) for k, v in sd.items()
                                  if not k.endswith("num_batches_tracked"))
    old._metadata = collections.OrderedDict(
        [(k, dict(v, version=1) if k == "1" else v) for k, v in sd._metadata.items()])
    fresh = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    rep = fresh.load_state_dict(collections.OrderedDict(old))
    fresh2 = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    rep2 = fresh2.load_state_dict(old)
    bad = dict(sd)
    bad.pop("0.bias")
    bad["2.weight"] = T.ones(1)
    return [meta, rep.missing_keys, rep2.missing_keys, fresh2[1].num_batches_tracked,
            _raised_full(lambda: nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
                         .load_state_dict(bad))]


# ---- hooks and their order --------------------------------------------------------------------

def forward_pre_hook_order(T):
    """Forward pre-hooks and forward hooks registered with prepend and not,
    their order, one removed by its handle, one removed twice (no error),
    a pre-hook returning a single tensor (wrapped), and a handle used as a
    context manager."""
    nn = T.nn
    log = []
    lin = _init(T, nn.Linear(2, 2), 63)
    lin.register_forward_pre_hook(lambda m, a: log.append("pre1"))
    lin.register_forward_pre_hook(lambda m, a: log.append("pre0"), prepend=True)
    h = lin.register_forward_pre_hook(lambda m, a: log.append("pre2"))
    lin.register_forward_pre_hook(lambda m, a: a[0] * 2)
    lin.register_forward_hook(lambda m, a, o: log.append("fwd1"))
    lin.register_forward_hook(lambda m, a, o: log.append("fwd0"), prepend=True)
    x = _t(T, 1, 2, seed=64)
    y1 = lin(x)
    h.remove()
    h.remove()
    log.append("|")
    with lin.register_forward_hook(lambda m, a, o: o + 100):
        y2 = lin(x)
    y3 = lin(x)
    return [log, y1, y2, y3, len(lin._forward_pre_hooks), len(lin._forward_hooks)]


def backward_hooks_order_sequential(T):
    """Full backward pre-hooks and hooks on each layer of a Sequential, and
    a tensor hook on the input: the order they run in during backward
    (last layer first), what each sees, and a pre-hook scaling the
    gradient."""
    nn = T.nn
    log = []
    net = _mlp(T, 65, (2, 3, 1))
    for i, m in enumerate(net):
        m.register_full_backward_pre_hook(lambda mod, go, i=i: log.append(("pre", i)))
        m.register_full_backward_hook(
            lambda mod, gi, go, i=i: log.append(("post", i, gi[0] is None)))
    net[2].register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    x = _t(T, 3, 2, seed=66).requires_grad_()
    x.register_hook(lambda g: log.append(("x",)))
    net(x).sum().backward()
    return [log, x.grad, net[0].weight.grad]


def tensor_hooks_and_post_accumulate(T):
    """Several hooks on a leaf (run in registration order, each seeing the
    last's output), a post-accumulate-grad hook (after accumulation, seeing
    .grad), the hooks over two backward passes; a hook removed."""
    log = []
    w = T.nn.Parameter(_f32(T, [1.0, 2.0]))
    w.register_hook(lambda g: log.append(("h1", g.tolist())) or g * 2)
    h2 = w.register_hook(lambda g: log.append(("h2", g.tolist())) or g + 1)
    w.register_post_accumulate_grad_hook(lambda p: log.append(("acc", p.grad.tolist())))
    (w * w).sum().backward()
    h2.remove()
    (w * 3).sum().backward()
    return [log, w.grad]


def global_pre_hooks_order(T):
    """Global forward pre-hooks and hooks (register_module_forward_pre_hook
    and _hook) against a module's own: which runs first, for every
    submodule of a Sequential; removed afterwards (nothing logged)."""
    nn = T.nn
    log = []
    net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    net[0].register_forward_pre_hook(lambda m, a: log.append("local-pre"))
    net[0].register_forward_hook(lambda m, a, o: log.append("local-fwd"))
    h1 = nn.modules.module.register_module_forward_pre_hook(
        lambda m, a: log.append("global-pre:" + type(m).__name__))
    h2 = nn.modules.module.register_module_forward_hook(
        lambda m, a, o: log.append("global-fwd:" + type(m).__name__))
    try:
        net(T.ones(1, 2))
    finally:
        h1.remove()
        h2.remove()
    log.append("|")
    net(T.ones(1, 2))
    return log


def state_dict_pre_and_post_hooks(T):
    """register_state_dict_pre_hook and register_state_dict_post_hook on a
    parent and a child: their order, a post-hook adding a key, and a
    pre-hook seeing the prefix."""
    nn = T.nn
    log = []
    net = nn.Sequential(nn.Linear(1, 1))
    net.register_state_dict_pre_hook(lambda m, prefix, keep_vars: log.append(("pre", prefix)))
    net[0].register_state_dict_pre_hook(lambda m, prefix, keep_vars: log.append(("pre0", prefix)))

    def post(m, sd, prefix, local_metadata):
        log.append(("post", prefix, len(sd)))
        sd[prefix + "note"] = T.tensor(1)

    net[0].register_state_dict_post_hook(post)
    sd = net.state_dict(prefix="m.")
    return [log, list(sd)]


def hooks_on_shared_module(T):
    """A module used twice in one forward (a shared block): its forward
    hook runs twice, its full backward hook twice, and gradients
    accumulate from both uses."""
    nn = T.nn
    log = []
    block = _init(T, nn.Linear(2, 2), 67)
    block.register_forward_hook(lambda m, a, o: log.append(("fwd", o.shape[0])))
    block.register_full_backward_hook(lambda m, gi, go: log.append(("bwd", go[0].shape[0])))
    x = _t(T, 3, 2, seed=68)
    y = block(T.tanh(block(x)))
    y.sum().backward()
    return [log, block.weight.grad, block.bias.grad]


# ---- nn.init on odd shapes ----------------------------------------------------------------------

def init_fan_and_gain(T):
    """_calculate_fan_in_and_fan_out on a vector (refused), a matrix, conv
    weights of three ranks and a zero-size one; calculate_gain for every
    nonlinearity, leaky_relu's slope given, and its refusals."""
    I = T.nn.init
    fans = [I._calculate_fan_in_and_fan_out(T.empty(*s))
            for s in ((3, 4), (8, 3, 5), (8, 4, 3, 3), (2, 3, 1, 2, 2), (0, 4), (4, 0, 3))]
    names = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
             "conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]
    return [fans, _raised(lambda: I._calculate_fan_in_and_fan_out(T.empty(3))),
            [I.calculate_gain(n) for n in names], I.calculate_gain("leaky_relu", 0.2),
            I.calculate_gain("leaky_relu", 1), I.calculate_gain("leaky_relu", None),
            _raised(lambda: I.calculate_gain("leaky_relu", "x")),
            _raised(lambda: I.calculate_gain("gelu")),
            _raised(lambda: I.calculate_gain("leaky_relu", True))]


def init_eye_dirac_shapes(T):
    """eye_ on wide and tall matrices, dirac_ on conv1d/2d/3d weights with
    groups (an identity convolution: the output equals the input), and
    their refusals of other ranks and of groups not dividing."""
    nn = T.nn
    I = nn.init
    conv = nn.Conv2d(4, 4, 3, padding=1, groups=2, bias=False)
    I.dirac_(conv.weight, groups=2)
    x = _t(T, 1, 4, 5, 5, seed=69)
    c1 = nn.Conv1d(3, 5, 3, padding=1, bias=False)
    I.dirac_(c1.weight)
    x1 = _t(T, 1, 3, 6, seed=70)
    return [I.eye_(T.empty(2, 4)), I.eye_(T.empty(3, 2)), (conv(x) - x).abs().max(),
            c1(x1)[0, 3:].abs().max(), (c1(x1)[:, :3] - x1).abs().max(),
            I.dirac_(T.empty(2, 2, 1, 1, 3)).sum(),
            _raised(lambda: I.eye_(T.empty(2, 2, 2))),
            _raised(lambda: I.dirac_(T.empty(3, 3))),
            _raised(lambda: I.dirac_(T.empty(3, 3, 3), groups=2))]


def init_orthogonal_odd_shapes(T):
    """orthogonal_ on tall, wide and 3-d tensors (rows or columns
    orthonormal after flattening the trailing dims), with a gain; its
    refusal of a vector; sparse_'s refusal of a 3-d tensor; and the spread
    of kaiming/xavier on odd shapes by bound (seeded generator)."""
    I = T.nn.init
    g = T.Generator().manual_seed(0)
    tall = I.orthogonal_(T.empty(5, 3), generator=g)
    wide = I.orthogonal_(T.empty(2, 6), gain=2.0, generator=g)
    cube = I.orthogonal_(T.empty(3, 2, 2), generator=g).reshape(3, 4)
    eye = T.eye
    ku = I.kaiming_uniform_(T.empty(64, 1), a=0, mode="fan_out", generator=g)
    xu = I.xavier_uniform_(T.empty(1, 300), generator=g)
    return [(tall.T @ tall - eye(3)).abs().max() < 1e-5,
            (wide @ wide.T - 4 * eye(2)).abs().max() < 1e-5,
            (cube @ cube.T - eye(3)).abs().max() < 1e-5,
            _raised(lambda: I.orthogonal_(T.empty(4))),
            _raised(lambda: I.sparse_(T.empty(2, 2, 2), 0.5)),
            bool(ku.abs().max() <= math.sqrt(6.0)), bool(ku.abs().max() > 1.0),
            bool(xu.abs().max() <= math.sqrt(6.0 / 301)),
            bool(xu.abs().max() > 0.5 * math.sqrt(6.0 / 301))]


def init_zero_element_warnings(T):
    """Each initialiser on a zero-element tensor: the warnings (only some
    warn), the shapes kept; constant_/zeros_/ones_ on integer and bool
    tensors."""
    I = T.nn.init
    out = []
    for name in ("uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                 "kaiming_normal_", "trunc_normal_", "orthogonal_", "zeros_", "ones_"):
        fn = getattr(I, name)
        try:
            r, w = _warned(lambda: fn(T.empty(0, 3)).shape)
            out.append([name, r, w])
        except Exception as e:  # noqa: BLE001 - the refusal is the answer
            out.append([name, type(e).__name__, str(e).splitlines()[0]])
    return [out, I.constant_(T.zeros(3, dtype=T.int64), 7), I.ones_(T.zeros(2, dtype=T.bool)),
            I.zeros_(T.ones(2, dtype=T.int32)), I.constant_(T.zeros(2), 2.5)]


# ---- torch.save / torch.load ------------------------------------------------------------------

def save_nested_containers(T):
    """torch.save of nested dicts, lists, tuples and an OrderedDict holding
    tensors of many dtypes, loaded back with weights_only: types, dtypes,
    values, tuple-ness kept."""
    buf = io.BytesIO()
    obj = collections.OrderedDict(
        model={"layers": [T.arange(3, dtype=T.int8), (T.tensor([1.5], dtype=T.float16),
                                                      T.tensor([True]))]},
        opt=[{"lr": 0.1, "betas": (0.9, 0.99)}, {"lr": 0.2}],
        misc=(T.tensor(2, dtype=T.uint8), T.tensor([1.0, 2.0], dtype=T.bfloat16),
              T.tensor([3.0], dtype=T.float64), T.tensor([1 + 2j], dtype=T.complex64)),
        nested={"a": {"b": {"c": [T.zeros(0, 2, dtype=T.int16)]}}})
    T.save(obj, buf)
    buf.seek(0)
    back = T.load(buf, weights_only=True)
    return [type(back).__name__, list(back), back["model"], back["opt"],
            [type(x).__name__ for x in back["model"]["layers"]],
            [str(t.dtype) for t in back["misc"]], back["misc"][0], back["misc"][2],
            back["misc"][3].real, back["nested"]["a"]["b"]["c"][0].shape]


def save_shared_views(T):
    """Tensors sharing storage saved together (a base, a slice, a transposed
    view): after loading they still share (writing one shows in the
    others), strides kept; a view saved alone carries only its elements."""
    base = T.arange(12.0).reshape(3, 4)
    view = base[1]
    tr = base.t()
    buf = io.BytesIO()
    T.save({"base": base, "view": view, "tr": tr}, buf)
    buf.seek(0)
    back = T.load(buf)
    back["view"][0] = -1.0
    one = io.BytesIO()
    T.save(base[:, 1], one)
    one.seek(0)
    alone = T.load(one)
    return [back["base"], back["tr"][0], back["tr"].stride(), back["tr"].is_contiguous(),
            back["view"].storage_offset(), alone, alone.stride(),
            alone.untyped_storage().nbytes()]


def save_parameters_and_grads(T):
    """torch.save of a Parameter (a Parameter back, requires_grad kept), of a
    tensor requiring grad, of a frozen Parameter; .grad not saved."""
    p = T.nn.Parameter(T.ones(2))
    p.grad = T.ones(2)
    q = T.nn.Parameter(T.zeros(1), requires_grad=False)
    r = T.ones(3, requires_grad=True)
    buf = io.BytesIO()
    T.save([p, q, r], buf)
    buf.seek(0)
    a, b, c = T.load(buf)
    return [type(a).__name__, a.requires_grad, a.grad, type(b).__name__, b.requires_grad,
            type(c).__name__, c.requires_grad, c.is_leaf]


def save_map_location_forms(T):
    """torch.load with map_location as a string, a device, a dict and a
    function; the loaded tensors' devices and values; weights_only's
    refusal of a custom class."""
    buf = io.BytesIO()
    T.save({"w": T.arange(3.0, device="cpu")}, buf)  # a CPU checkpoint wherever it runs
    outs = []
    for loc in ("cpu", T.device("cpu"), {"cpu": "cpu"}, lambda s, l: s):
        buf.seek(0)
        t = T.load(buf, map_location=loc)["w"]
        outs.append([str(t.device), t])

    b2 = io.BytesIO()
    T.save(_Stream(), b2)
    b2.seek(0)
    return [outs, _raised_head(lambda: T.load(b2, weights_only=True))[0]]


def checkpoint_to_float64_model(T):
    """A float32 training checkpoint (model and Adam state) loaded into the
    same model in float64 (cast on load), and the optimizer state loaded
    into an optimizer over the float64 parameters (its state cast to
    them); training continues."""
    nn = T.nn
    net = _mlp(T, 71, (2, 3, 1))
    x, y = _t(T, 6, 2, seed=72), _t(T, 6, 1, seed=73)
    opt = T.optim.Adam(net.parameters(), lr=0.05)
    _fit(T, net, opt, x, y)
    buf = io.BytesIO()
    T.save({"model": net.state_dict(), "opt": opt.state_dict()}, buf)
    buf.seek(0)
    ck = T.load(buf)
    net2 = _mlp(T, 1, (2, 3, 1)).double()
    net2.load_state_dict(ck["model"])
    opt2 = T.optim.Adam(net2.parameters(), lr=0.05)
    opt2.load_state_dict(ck["opt"])
    st = opt2.state[net2[0].weight]
    losses = _fit(T, net2, opt2, x.double(), y.double())
    return [net2[0].weight.dtype, st["exp_avg"].dtype, st["step"].dtype, losses]


# ---- float64, float16 and bfloat16 layers -----------------------------------------------------

def float64_cnn_training(T):
    """A small CNN in float64 (.double()) trained with SGD and momentum; its
    losses and a weight (float64: PyTorch's and our sums agree closely)."""
    nn = T.nn
    net = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(12, 2))
    _init(T, net, 74)
    net.double()
    x = _t(T, 4, 1, 4, 4, seed=75).double()
    y = _long(T, [0, 1, 1, 0])
    opt = T.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, net[0].weight.dtype, net[4].bias, opt.state[net[4].bias]["momentum_buffer"]]


def half_layers_cpu(T):
    """Layers in float16 on the CPU (.half()): Linear, LayerNorm, GELU,
    softmax, Embedding, a Conv1d; the outputs' dtype and values (float16
    arithmetic: compared within float16's rounding)."""
    nn = T.nn
    lin = _init(T, nn.Linear(4, 3), 76).half()
    ln = _init(T, nn.LayerNorm(3), 77).half()
    emb = _init(T, nn.Embedding(5, 4), 78).half()
    conv = _init(T, nn.Conv1d(2, 2, 3), 79).half()
    ids = _long(T, [[1, 2], [3, 4]])
    h = ln(nn.functional.gelu(lin(emb(ids))))
    return [h.dtype, h, h.softmax(-1), conv(_t(T, 1, 2, 5, seed=80).half())]


def bfloat16_mlp_training(T):
    """An MLP in bfloat16 trained with SGD for three steps (bfloat16
    parameters and gradients), its losses; and mixed precision by hand: a
    bfloat16 forward with float32 master weights."""
    nn = T.nn
    net = _mlp(T, 81, (3, 4, 1)).to(T.bfloat16)
    x, y = _t(T, 6, 3, seed=82), _t(T, 6, 1, seed=83)
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    losses = _fit(T, net, opt, x.bfloat16(), y.bfloat16())
    master = _mlp(T, 81, (3, 4, 1))
    opt2 = T.optim.SGD(master.parameters(), lr=0.1)
    l2 = []
    for _ in range(3):
        work = _mlp(T, 1, (3, 4, 1)).to(T.bfloat16)
        work.load_state_dict(master.state_dict())
        loss = nn.functional.mse_loss(work(x.bfloat16()).float(), y)
        loss.backward()
        with T.no_grad():
            for p, q in zip(master.parameters(), work.parameters()):
                p.grad = q.grad.float()
        opt2.step()
        opt2.zero_grad()
        l2.append(loss.item())
    return [losses, net[0].weight.dtype, net[0].weight.grad.dtype, l2, master[2].bias]


def mixed_dtype_refusals(T):
    """The refusals of a float64 input into float32 layers a script meets
    after .double() on the data only: Linear, Conv2d, an LSTM, a GRUCell,
    BatchNorm1d in training, bmm and einsum of mixed dtypes; a float16
    input to a float32 Linear; and the layers that take it (ReLU, Dropout
    in eval).  (Left out: the @ operator, which takes NumPy's meaning and
    promotes, docs/numpy.md.)"""
    nn = T.nn
    x = _t(T, 2, 4, seed=84).double()
    img = _t(T, 1, 2, 4, 4, seed=85).double()
    return [_raised_full(lambda: nn.Linear(4, 2)(x)),
            _raised_full(lambda: nn.Conv2d(2, 2, 3)(img)),
            _raised_head(lambda: nn.LSTM(4, 3)(x.unsqueeze(0))),
            _raised_head(lambda: nn.GRUCell(4, 3)(x)),
            _raised_full(lambda: T.bmm(x.unsqueeze(0), T.ones(1, 4, 2))),
            _raised_full(lambda: T.einsum("bi,io->bo", x, T.ones(4, 2))),
            _raised_full(lambda: nn.Linear(4, 2)(x.half())),
            nn.ReLU()(x).dtype, nn.Dropout().eval()(x).dtype]


def default_dtype_float64_modules(T):
    """Modules built under set_default_dtype(float64): their parameters,
    buffers and factory tensors are float64, integer buffers stay int64;
    a float literal tensor too; restored afterwards."""
    nn = T.nn
    old = T.get_default_dtype()
    T.set_default_dtype(T.float64)
    try:
        bn = nn.BatchNorm1d(3)
        lin = nn.Linear(2, 2)
        lit = T.tensor([1.5])
        ar = T.arange(3.0)
        out = [bn.weight.dtype, bn.running_mean.dtype, bn.num_batches_tracked.dtype,
               lin.weight.dtype, lit.dtype, ar.dtype, T.get_default_dtype()]
    finally:
        T.set_default_dtype(old)
    return out + [nn.Linear(2, 2).weight.dtype, T.tensor([1.5]).dtype,
                  _raised(lambda: T.set_default_dtype(T.int64))]


def module_dtype_keeps_identity(T):
    """.double() and .float() keep each Parameter object (an optimizer made
    before still updates the model), convert its .grad too, and .half()
    of a module with a complex parameter (left complex? PyTorch casts
    only floating point)."""
    nn = T.nn
    net = _mlp(T, 86, (2, 2, 1))
    ids = [id(p) for p in net.parameters()]
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    x, y = _t(T, 4, 2, seed=87), _t(T, 4, 1, seed=88)
    nn.functional.mse_loss(net(x), y).backward()
    net.double()
    same = [id(p) for p in net.parameters()] == ids
    gdt = net[0].weight.grad.dtype
    opt.step()
    m = nn.Module()
    m.c = nn.Parameter(T.ones(2, dtype=T.complex64))
    m.r = nn.Parameter(T.ones(2))
    m.half()
    return [same, gdt, net[0].weight.dtype, net[0].weight, m.c.dtype, m.r.dtype]


# ---- the layers' refusals of shapes -----------------------------------------------------------

def linear_bilinear_shape_errors(T):
    """Linear given the wrong feature count (the matmul's message with both
    shapes), a 0-d input, a 3-d input with the wrong last size; Bilinear's
    first and second input sizes; Identity passing anything."""
    nn = T.nn
    lin = nn.Linear(3, 2)
    bil = nn.Bilinear(3, 4, 2)
    return [_raised_full(lambda: lin(T.ones(5, 4))),
            _raised_full(lambda: lin(T.tensor(1.0))),
            _raised_full(lambda: lin(T.ones(2, 3, 4))),
            _raised_full(lambda: lin(T.ones(4))),
            _raised_full(lambda: bil(T.ones(2, 4), T.ones(2, 4))),
            _raised_full(lambda: bil(T.ones(2, 3), T.ones(2, 3))),
            _raised_full(lambda: bil(T.ones(2, 3), T.ones(3, 4))),
            nn.Identity(5, x=1)(T.ones(2, 7)).shape]


def conv_channel_errors(T):
    """Convolutions given the wrong channel count (1-d, 2-d, 3-d, grouped,
    transposed), an input smaller than the kernel, and an unbatched input
    of the wrong rank: PyTorch's messages."""
    nn = T.nn
    return [_raised_full(lambda: nn.Conv1d(3, 4, 2)(T.ones(1, 2, 5))),
            _raised_full(lambda: nn.Conv2d(3, 4, 3)(T.ones(2, 4, 5, 5))),
            _raised_full(lambda: nn.Conv3d(2, 4, 1)(T.ones(1, 3, 2, 2, 2))),
            _raised_full(lambda: nn.Conv2d(4, 4, 3, groups=2)(T.ones(1, 6, 5, 5))),
            _raised_full(lambda: nn.ConvTranspose2d(3, 4, 3)(T.ones(1, 2, 5, 5))),
            _raised_full(lambda: nn.Conv2d(1, 1, 5)(T.ones(1, 1, 3, 3))),
            _raised_full(lambda: nn.Conv2d(1, 1, 3)(T.ones(1, 1, 1, 3, 3))),
            _raised_full(lambda: nn.Conv1d(1, 1, 3)(T.ones(3)))]


def batchnorm_shape_errors(T):
    """BatchNorm's refusals: the wrong feature count (running_mean's
    message), the wrong rank for 1d/2d/3d, one value per channel in
    training (refused) and in eval (taken)."""
    nn = T.nn
    bn = nn.BatchNorm1d(3)
    return [_raised_full(lambda: nn.BatchNorm1d(4)(T.ones(2, 3))),
            _raised_full(lambda: nn.BatchNorm2d(3)(T.ones(2, 3, 4))),
            _raised_full(lambda: nn.BatchNorm1d(3)(T.ones(2, 3, 4, 5))),
            _raised_full(lambda: nn.BatchNorm3d(3)(T.ones(2, 3, 4, 4))),
            _raised_full(lambda: bn(T.ones(1, 3))),
            _raised_full(lambda: nn.BatchNorm2d(3)(T.ones(1, 3, 1, 1))),
            bn.eval()(T.ones(1, 3)),
            _raised_full(lambda: nn.InstanceNorm1d(3)(T.ones(2, 3, 1)))]


def norm_layer_shape_errors(T):
    """LayerNorm's normalized_shape against the input's trailing sizes,
    GroupNorm's channel count and divisibility, LocalResponseNorm on a 2-d
    input, RMSNorm's shape; PyTorch's messages."""
    nn = T.nn
    return [_raised_full(lambda: nn.LayerNorm([3, 4])(T.ones(2, 4, 3))),
            _raised_full(lambda: nn.LayerNorm(4)(T.ones(4, 3))),
            _raised_full(lambda: nn.GroupNorm(2, 4)(T.ones(2, 6, 3))),
            _raised_full(lambda: nn.GroupNorm(4, 6)),
            _raised_full(lambda: nn.LocalResponseNorm(2)(T.ones(3, 4))),
            _raised_full(lambda: nn.RMSNorm([2, 3])(T.ones(3, 2)))]


def rnn_shape_errors(T):
    """The recurrent layers' refusals: an input of the wrong feature size
    (LSTM, GRU, RNN), hidden states of the wrong shape (with batch_first),
    a 4-d input, an unbatched input with a batched hidden state, and a
    cell given the wrong hidden size."""
    nn = T.nn
    return [_raised_full(lambda: nn.LSTM(4, 3)(T.ones(5, 2, 3))),
            _raised_full(lambda: nn.GRU(4, 3, batch_first=True)(T.ones(2, 5, 4), T.zeros(1, 3, 3))),
            _raised_full(lambda: nn.LSTM(4, 3, num_layers=2)(
                T.ones(5, 2, 4), (T.zeros(1, 2, 3), T.zeros(1, 2, 3)))),
            _raised_full(lambda: nn.RNN(4, 3)(T.ones(1, 2, 3, 4))),
            _raised_full(lambda: nn.GRU(4, 3)(T.ones(5, 4), T.zeros(1, 2, 3))),
            _raised_full(lambda: nn.LSTMCell(4, 3)(T.ones(2, 4), (T.zeros(2, 4), T.zeros(2, 4)))),
            _raised_full(lambda: nn.GRUCell(4, 3)(T.ones(2, 5)))]


def loss_target_shape_errors(T):
    """Losses given targets of the wrong shape or range: cross_entropy's
    spatial target, nll_loss's class index out of range, a negative one,
    a probability target of another shape, BCE's size mismatch (a
    ValueError), margin ranking's and cosine embedding's sizes (a
    broadcasting failure: torchlike's BroadcastError, a RuntimeError as
    PyTorch's, adds both shapes to PyTorch's words, docs/elementwise.md)."""
    F = T.nn.functional
    logits = _t(T, 2, 3, 4, seed=89)
    return [_raised_full(lambda: F.cross_entropy(logits, _long(T, [[0, 1, 2], [1, 0, 2]]))),
            _raised_full(lambda: F.nll_loss(_t(T, 2, 3, seed=90), _long(T, [0, 5]))),
            _raised_full(lambda: F.cross_entropy(_t(T, 2, 3, seed=90), _long(T, [0, -2]))),
            _raised_full(lambda: F.cross_entropy(_t(T, 2, 3, seed=90), T.ones(2, 4))),
            _raised_full(lambda: F.binary_cross_entropy(T.full((3, 1), 0.5), T.ones(3))),
            _broadcast(lambda: F.margin_ranking_loss(T.ones(3), T.ones(3), T.ones(2))),
            _broadcast(lambda: F.cosine_embedding_loss(T.ones(2, 3), T.ones(2, 4), T.ones(2)))]


def pooling_shape_errors(T):
    """Pooling's refusals: an output size of zero (max, avg, 1-d and 2-d),
    adaptive pooling's output_size of the wrong length, padding over half
    the kernel, a stride of zero, and max_unpool's indices shape."""
    nn = T.nn
    F = nn.functional
    return [_raised_full(lambda: nn.MaxPool1d(4)(T.ones(1, 2, 3))),
            _raised_full(lambda: nn.AvgPool2d(3)(T.ones(1, 1, 2, 4))),
            _raised_full(lambda: nn.AdaptiveAvgPool2d((2, 2, 2))(T.ones(1, 2, 4, 4))),
            _raised_full(lambda: nn.MaxPool1d(2, padding=2)(T.ones(1, 1, 6))),
            _raised_full(lambda: F.max_pool2d(T.ones(1, 1, 4, 4), 2, stride=0)),
            _raised_full(lambda: F.avg_pool1d(T.ones(1, 1, 4), 2, stride=0)),
            _raised_full(lambda: F.adaptive_max_pool1d(T.ones(1, 4), (1, 1)))]


def embedding_shape_errors(T):
    """Embedding's refusals: an index out of range and a negative one, a
    padding_idx out of range at construction, a _weight of the wrong shape,
    from_pretrained of a 1-d table, max_norm of a non-number; one_hot's
    class count too small."""
    nn = T.nn
    emb = nn.Embedding(4, 2)
    return [_raised_full(lambda: emb(_long(T, [1, 4]))),
            _raised_full(lambda: emb(_long(T, [-1]))),
            _raised_full(lambda: nn.Embedding(4, 2, padding_idx=4)),
            _raised_full(lambda: nn.Embedding(4, 2, padding_idx=-5)),
            _raised_full(lambda: nn.Embedding(4, 2, _weight=T.ones(3, 2))),
            _raised_full(lambda: nn.Embedding.from_pretrained(T.ones(4))),
            _raised_full(lambda: nn.functional.one_hot(_long(T, [0, 3]), 3)),
            nn.functional.one_hot(_long(T, [0, 2]), -1)]


def reshape_layer_errors(T):
    """The shape layers' refusals in a CNN head: Flatten then a Linear of
    the wrong in_features (the matmul message naming the flattened
    shape), view of an incompatible size, Unflatten of a wrong product,
    PixelShuffle's channel divisibility, Fold's block count."""
    nn = T.nn
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten(), nn.Linear(16, 2))
    return [_raised_full(lambda: net(T.ones(3, 1, 5, 5))),
            _raised_full(lambda: T.ones(2, 6).view(4, 4)),
            _raised_full(lambda: T.ones(2, 3, 4).transpose(1, 2).view(2, 12)),
            _raised_full(lambda: nn.Unflatten(1, (2, 2))(T.ones(2, 6))),
            _raised_full(lambda: nn.PixelShuffle(2)(T.ones(1, 6, 2, 2))),
            _raised_full(lambda: nn.Fold((3, 3), 2)(T.ones(1, 4, 5))),
            _raised_full(lambda: nn.Flatten(2, 1)(T.ones(2, 3, 4)))]


def attention_layer_shape_errors(T):
    """MultiheadAttention and TransformerEncoderLayer refusals for inputs of
    the wrong shape: query of another embed dim, a key_padding_mask of the
    wrong length, a 4-d query; scaled_dot_product_attention given
    mismatched head dims."""
    nn = T.nn
    F = nn.functional
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    x = T.ones(2, 3, 4)
    return [_raised_head(lambda: mha(T.ones(2, 3, 5), T.ones(2, 3, 5), T.ones(2, 3, 5))),
            _raised_head(lambda: mha(x, x, x, key_padding_mask=T.zeros(2, 4, dtype=T.bool))),
            _raised_head(lambda: mha(T.ones(1, 2, 3, 4), x, x)),
            _raised_head(lambda: F.scaled_dot_product_attention(T.ones(1, 2, 3, 4),
                                                                T.ones(1, 2, 3, 5),
                                                                T.ones(1, 2, 3, 4)))]


# ---- whole programs ---------------------------------------------------------------------------

def weight_norm_classifier_resume(T):
    """A classifier with parametrizations.weight_norm on its hidden layer,
    trained with AdamW and a OneCycleLR, checkpointed (model, optimizer,
    scheduler) mid-way and resumed in a fresh process-like copy: the same
    losses as the run that went on."""
    nn = T.nn
    S = T.optim.lr_scheduler

    def build():
        net = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2))
        _init(T, net, 91)
        nn.utils.parametrizations.weight_norm(net[0])
        opt = T.optim.AdamW(net.parameters(), lr=0.01, weight_decay=0.1)
        sched = S.OneCycleLR(opt, max_lr=0.05, total_steps=6)
        return net, opt, sched

    x, y = _t(T, 8, 3, seed=92), _long(T, [0, 1, 1, 0, 1, 0, 0, 1])

    def step(net, opt, sched):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        sched.step()
        return loss.item()

    net, opt, sched = build()
    first = [step(net, opt, sched) for _ in range(3)]
    buf = io.BytesIO()
    T.save({"m": net.state_dict(), "o": opt.state_dict(), "s": sched.state_dict()}, buf)
    cont = [step(net, opt, sched) for _ in range(3)]
    buf.seek(0)
    ck = T.load(buf)
    net2, opt2, sched2 = build()
    net2.load_state_dict(ck["m"])
    opt2.load_state_dict(ck["o"])
    sched2.load_state_dict(ck["s"])
    resumed = [step(net2, opt2, sched2) for _ in range(3)]
    return [first, cont, resumed, sorted(ck["m"]), sched2.get_last_lr()]


def pruned_then_quantized_export(T):
    """Iterative magnitude pruning of an MLP during training (prune 30%
    then 50% globally), removing the reparametrisation, then exporting the
    state dict in float16 and reloading into a float32 model (values
    rounded to float16)."""
    nn = T.nn
    P = importlib.import_module(T.__name__ + ".nn.utils.prune")
    net = _mlp(T, 93, (4, 6, 2))
    x, y = _t(T, 10, 4, seed=94), _t(T, 10, 2, seed=95)
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    params = [(net[0], "weight"), (net[2], "weight")]
    losses = []
    for amount in (0.3, 0.5):
        P.global_unstructured(params, pruning_method=P.L1Unstructured, amount=amount)
        losses += _fit(T, net, opt, x, y, steps=2)
    for m, n in params:
        P.remove(m, n)
    half = {k: v.half() for k, v in net.state_dict().items()}
    back = _mlp(T, 1, (4, 6, 2))
    back.load_state_dict(half)
    zeros = [int((m.weight == 0).sum()) for m, _ in params]
    return [losses, zeros, int((back[0].weight == 0).sum()), back[0].weight,
            (back[2].weight - net[2].weight).abs().max() < 1e-2]


def sequential_lr_warmup_with_plateau_later(T):
    """A common recipe: LinearLR warmup chained by SequentialLR into
    CosineAnnealingLR, with ReduceLROnPlateau refused inside SequentialLR;
    the lrs of a short training run."""
    S = T.optim.lr_scheduler
    net = _mlp(T, 96, (2, 3, 1))
    opt = T.optim.SGD(net.parameters(), lr=0.2)
    s = S.SequentialLR(opt, [S.LinearLR(opt, 0.1, total_iters=2),
                             S.CosineAnnealingLR(opt, T_max=3)], milestones=[2])
    x, y = _t(T, 5, 2, seed=97), _t(T, 5, 1, seed=98)
    lrs = []
    for _ in range(5):
        lrs.append(s.get_last_lr()[0])
        _fit(T, net, opt, x, y, steps=1)
        s.step()
    return [lrs, net[2].bias,
            _raised(lambda: S.SequentialLR(opt, [S.ReduceLROnPlateau(opt)], milestones=[])),
            _raised(lambda: S.SequentialLR(opt, [S.StepLR(opt, 1), S.StepLR(opt, 1)],
                                           milestones=[1, 2])),
            _raised(lambda: S.SequentialLR(opt, [S.StepLR(opt, 1),
                                                 S.StepLR(_opt(T), 1)], milestones=[1]))]


def func_maml_inner_loop(T):
    """MAML's inner loop with torch.func: per-task adapted parameters by
    one grad step through functional_call, the outer loss on query data
    backpropagated to the shared initialisation, over two tasks."""
    nn = T.nn
    F = T.func
    net = _mlp(T, 99, (1, 8, 1))
    opt = T.optim.Adam(net.parameters(), lr=0.01)
    tasks = [(_t(T, 5, 1, seed=100 + k), _t(T, 5, 1, seed=110 + k)) for k in range(2)]

    def loss_fn(p, x, y):
        return nn.functional.mse_loss(F.functional_call(net, p, (x,)), y)

    outer = []
    for _ in range(3):
        opt.zero_grad()
        total = 0.0
        for x, y in tasks:
            p = dict(net.named_parameters())
            g = T.autograd.grad(loss_fn(p, x, y), list(p.values()), create_graph=True)
            adapted = {k: v - 0.1 * gk for (k, v), gk in zip(p.items(), g)}
            total = total + loss_fn(adapted, x * 2, y)
        total.backward()
        opt.step()
        outer.append(total.item())
    return [outer, net[0].bias]


def hooks_feature_extractor(T):
    """Feature extraction with forward hooks on named submodules of a CNN
    (the activations stored by name), with the hooks removed after; a
    forward hook with with_kwargs seeing a keyword argument."""
    nn = T.nn
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                        nn.Linear(2, 3))
    _init(T, net, 120)
    feats, handles = {}, []
    for name, m in net.named_children():
        if name in ("1", "3"):
            handles.append(m.register_forward_hook(
                lambda mod, a, o, name=name: feats.__setitem__(name, o.detach())))
    out = net(_t(T, 2, 1, 5, 5, seed=121))
    for h in handles:
        h.remove()
    seen = []

    class Scaled(nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale

    s = Scaled()
    s.register_forward_hook(lambda m, args, kwargs, o: seen.append(sorted(kwargs)) or o + 1,
                            with_kwargs=True)
    r = s(T.ones(2), scale=3.0)
    return [sorted(feats), feats["1"].shape, feats["3"], out, len(net[1]._forward_hooks), seen, r]


def init_custom_scheme_training(T):
    """A model initialised by a scheme applied over modules (kaiming for
    convs with fan_out, xavier with tanh's gain for linears, zeros for
    biases, BatchNorm to ones/zeros), checked by properties, then trained
    a step (its loss finite); the deterministic parts compared exactly."""
    nn = T.nn
    net = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.Tanh(), nn.Flatten(),
                        nn.Linear(16, 3))

    def init(m):
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
            nn.init.constant_(m.bias, 0.01)
        elif isinstance(m, nn.BatchNorm2d):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)

    net.apply(init)
    bound = 5 / 3 * math.sqrt(6 / (16 + 3))
    x = _t(T, 2, 2, 4, 4, seed=122)
    loss = net(x).square().mean()
    loss.backward()
    return [net[0].bias, net[4].bias, net[1].weight, bool(net[4].weight.abs().max() <= bound),
            bool(math.isfinite(loss.item())), net[1].bias.grad.shape]


# ---- a second pass over the same areas ------------------------------------------------------

def func_vmap_randomness_and_modules(T):
    """vmap over a model with dropout in training: refused under the default
    randomness='error', taken with 'same' (every sample masked alike, shown
    by equal rows for equal inputs); vmap over a BatchNorm model in
    training refused (it updates its running stats in place); in eval
    taken."""
    nn = T.nn
    F = T.func
    drop = nn.Dropout(0.5)
    x = T.ones(3, 4)
    same = F.vmap(drop, randomness="same")(x)
    bn = nn.Sequential(nn.Linear(4, 2), nn.BatchNorm1d(2))
    _init(T, bn, 123)
    return [_raised_head(lambda: F.vmap(drop)(x)),
            bool((same[0] == same[1]).all() and (same[1] == same[2]).all()),
            _raised_head(lambda: F.vmap(drop, randomness="sometimes")(x)),
            _raised_head(lambda: F.vmap(bn)(_t(T, 3, 2, 4, seed=124))),
            F.vmap(bn.eval())(_t(T, 3, 2, 4, seed=124)).shape]


def func_jacrev_chunked_and_argnums(T):
    """jacrev and jacfwd with argnums over two inputs (a tuple of
    Jacobians), jacrev with chunk_size (the same), has_aux, and the
    Jacobian of a vector function of a matrix input (its shape)."""
    F = T.func
    a, b = _t(T, 3, seed=125), _t(T, 3, seed=126)

    def f(u, v):
        return (u * v.sin()).cumsum(0)

    ja = F.jacrev(f, argnums=(0, 1))(a, b)
    jf = F.jacfwd(f, argnums=(0, 1))(a, b)
    jc = F.jacrev(f, argnums=1, chunk_size=1)(a, b)
    j_aux, aux = F.jacrev(lambda u: (u.exp(), u.sum()), has_aux=True)(a)
    m = F.jacrev(lambda w: w @ b)(_t(T, 2, 3, seed=127))
    return [ja[0], ja[1], (ja[1] - jf[1]).abs().max(), (jc - ja[1]).abs().max(), j_aux, aux,
            m.shape, m]


def save_graph_tensors(T):
    """torch.save of tensors from the middle of a graph (non-leaves that
    require grad), and of a tensor holding a grad_fn inside a list: loaded
    as leaves that require grad; a view of a leaf saved; numpy arrays in a
    checkpoint refused by weights_only and loaded without it."""
    w = T.ones(3, requires_grad=True)
    h = w * 2
    buf = io.BytesIO()
    T.save({"h": h, "v": w[1:], "list": [h.sum()]}, buf)
    buf.seek(0)
    back = T.load(buf)
    nb = io.BytesIO()
    T.save({"a": np.arange(3)}, nb)
    nb.seek(0)
    refused = _raised_head(lambda: T.load(nb, weights_only=True))[0]
    nb.seek(0)
    arr = T.load(nb, weights_only=False)["a"]
    return [back["h"], back["h"].requires_grad, back["h"].is_leaf, back["h"].grad_fn is None,
            back["v"], back["v"].requires_grad, back["list"][0], refused, type(arr).__name__,
            arr.tolist()]


def init_argument_refusals(T):
    """nn.init's refusals of bad arguments: an unknown mode, a sparsity on a
    1-d tensor, trunc_normal_ with its mean far outside [a, b] (a
    warning), normal_ and uniform_ on an integer tensor, orthogonal_ of a
    zero-element tensor (a no-op), and sparse_'s zero count per column."""
    I = T.nn.init
    g = T.Generator().manual_seed(1)
    sp = I.sparse_(T.empty(10, 4), sparsity=0.3, generator=g)
    _, w = _warned(lambda: I.trunc_normal_(T.empty(5), mean=5.0, std=1.0, a=-1.0, b=1.0,
                                           generator=g))
    return [_raised(lambda: I.kaiming_uniform_(T.empty(3, 3), mode="fan_avg")),
            _raised(lambda: I.kaiming_normal_(T.empty(3, 3), nonlinearity="swish")),
            _raised(lambda: I.sparse_(T.empty(4), 0.5)),
            w,
            _raised_head(lambda: I.normal_(T.zeros(3, dtype=T.int64))),
            _raised_head(lambda: I.uniform_(T.zeros(3, dtype=T.int32))),
            _warned(lambda: I.orthogonal_(T.empty(0, 3)).shape),
            (sp == 0).sum(0).tolist()]


def module_zero_grad_and_requires_grad(T):
    """zero_grad(set_to_none=False) keeping zeroed tensors, requires_grad_
    over a submodule (frozen backbone), a frozen parameter without a
    gradient after backward, and an optimizer skipping it."""
    nn = T.nn
    net = _mlp(T, 128, (2, 3, 1))
    x, y = _t(T, 4, 2, seed=129), _t(T, 4, 1, seed=130)
    nn.functional.mse_loss(net(x), y).backward()
    net.zero_grad(set_to_none=False)
    zeroed = [p.grad for p in net.parameters()]
    net.zero_grad()
    nones = [p.grad is None for p in net.parameters()]
    net[0].requires_grad_(False)
    opt = T.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    losses = _fit(T, net, opt, x, y)
    return [zeroed, nones, net[0].weight.grad is None, net[0].weight, net[2].weight, losses,
            sorted(n for n, p in net.named_parameters() if p.requires_grad),
            len(opt.state)]


def collate_mapping_mismatch(T):
    """default_collate of dicts whose keys differ from sample to sample (the
    first sample's keys rule; a missing one refused), of dicts with None
    values (refused), of a list of tuples of tensors of mixed dtypes
    (each field stacked in its dtype)."""
    D = T.utils.data
    return [_raised(lambda: D.default_collate([{"a": 1, "b": 2}, {"a": 3}])),
            D.default_collate([{"a": 1}, {"a": 3, "b": 4}]),
            _raised(lambda: D.default_collate([{"a": None}, {"a": None}])),
            D.default_collate([(T.tensor([1], dtype=T.int8), T.tensor(0.5, dtype=T.float64)),
                               (T.tensor([2], dtype=T.int8), T.tensor(1.5, dtype=T.float64))])]


def attention_head_mismatch_errors(T):
    """scaled_dot_product_attention given key heads that do not divide the
    query's under enable_gqa, grouped heads whose head dims differ, and
    2-d inputs with mismatched dims; key or value heads that differ
    without enable_gqa and masks that do not fit the scores (broadcasting
    failures: compared by class and PyTorch's part, as BroadcastError adds
    both shapes), and a mask that would enlarge them."""
    F = T.nn.functional
    q = T.ones(1, 4, 3, 8)
    return [_broadcast(lambda: F.scaled_dot_product_attention(q, T.ones(1, 2, 3, 8),
                                                              T.ones(1, 2, 3, 8))),
            _broadcast(lambda: F.scaled_dot_product_attention(q, T.ones(2, 4, 3, 8),
                                                              T.ones(1, 3, 3, 8))),
            _broadcast(lambda: F.scaled_dot_product_attention(
                q, q, q, attn_mask=T.ones(2, 3, dtype=T.bool))),
            _broadcast(lambda: F.scaled_dot_product_attention(q, q, q,
                                                              attn_mask=T.zeros(3, 3, 3))),
            _raised_full(lambda: F.scaled_dot_product_attention(q, q, q,
                                                                attn_mask=T.zeros(2, 1, 3, 3))),
            _raised_head(lambda: F.scaled_dot_product_attention(q, T.ones(1, 3, 3, 8),
                                                                T.ones(1, 3, 3, 8),
                                                                enable_gqa=True)),
            _raised_full(lambda: F.scaled_dot_product_attention(q, T.ones(1, 2, 3, 6),
                                                                T.ones(1, 2, 3, 8),
                                                                enable_gqa=True)),
            _raised_full(lambda: F.scaled_dot_product_attention(T.ones(3, 4), T.ones(3, 5),
                                                                T.ones(3, 4)))]


# ---- a third pass ----------------------------------------------------------------------------

def functional_call_updates_buffers(T):
    """functional_call of a training BatchNorm model with buffers passed in
    a dict: the passed running stats are updated in place (the module's own
    stay), num_batches_tracked too; with tie_weights=False on a tied model
    the two names take separate tensors."""
    nn = T.nn
    F = T.func
    net = _init(T, nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2)), 131)
    bufs = {k: v.clone() for k, v in net.named_buffers()}
    params = dict(net.named_parameters())
    x = _t(T, 5, 3, seed=132)
    out = F.functional_call(net, (params, bufs), (x,))

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    tied = Tied()
    y = T.ones(1, 2)
    o1 = F.functional_call(tied, {"a.weight": T.eye(2) * 2}, (y,))
    o2 = F.functional_call(tied, {"a.weight": T.eye(2) * 2, "b.weight": T.eye(2) * 3}, (y,),
                           tie_weights=False)
    return [out, bufs["1.running_mean"], bufs["1.num_batches_tracked"], net[1].running_mean,
            net[1].num_batches_tracked, o1, o2,
            _raised_head(lambda: F.functional_call(tied, {"a.weight": T.eye(2),
                                                          "b.weight": T.eye(2) * 3}, (y,)))]


def module_registration_refusals(T):
    """add_module/register_module refusals (a dotted name, an empty one, a
    non-Module, a name already an attribute), get_parameter/get_buffer/
    get_submodule on missing names, and setattr of a Module over a
    parameter's name."""
    nn = T.nn
    m = nn.Sequential(nn.Linear(2, 2))
    m.extra = 1
    return [_raised(lambda: m.add_module("a.b", nn.ReLU())),
            _raised(lambda: m.add_module("", nn.ReLU())),
            _raised(lambda: m.add_module("x", T.ones(1))),
            _raised(lambda: m.add_module("extra", nn.ReLU())),
            _raised(lambda: m.register_module(3, nn.ReLU())),
            _raised(lambda: m.get_parameter("0.nothing")),
            _raised(lambda: m.get_parameter("1.weight")),
            _raised(lambda: m.get_buffer("0.weight")),
            _raised(lambda: m.get_submodule("0.inner")),
            _raised(lambda: setattr(m[0], "weight", nn.ReLU())),
            m.get_parameter("0.bias").shape]


def parameter_containers_edit(T):
    """ParameterList and ParameterDict given plain tensors (made Parameters),
    extended, indexed, sliced; ModuleDict update/pop/keys order; their state
    dict keys; an optimizer over them."""
    nn = T.nn
    pl = nn.ParameterList([T.ones(2), nn.Parameter(T.zeros(1))])
    pl.append(T.full((3,), 2.0))
    pl.extend([T.ones(1)])
    pd = nn.ParameterDict({"b": T.ones(1), "a": T.zeros(2)})
    pd.update({"c": T.ones(3)})
    popped = pd.pop("b")
    md = nn.ModuleDict({"z": nn.ReLU(), "y": nn.Tanh()})
    md.update([("x", nn.Identity())])
    md.pop("y")
    holder = nn.Module()
    holder.pl, holder.pd, holder.md = pl, pd, md
    opt = T.optim.SGD(holder.parameters(), lr=0.1)
    return [[type(p).__name__ for p in pl], len(pl), pl[1:].__class__.__name__, len(pl[1:]),
            list(pd.keys()), type(popped).__name__, list(md.keys()), list(holder.state_dict()),
            len(opt.param_groups[0]["params"]), "b" in pd,
            _raised(lambda: pd.__setitem__(3, T.ones(1)))]


def deepcopy_model_with_hooks(T):
    """copy.deepcopy of a model with a forward hook and a weight-norm
    parametrization: the copy keeps both, shares no storage, and trains
    apart from the original."""
    import copy
    nn = T.nn
    calls = []
    net = _mlp(T, 133, (2, 3, 1))
    net[0].register_forward_hook(lambda m, a, o: calls.append(o.shape[0]))
    nn.utils.parametrizations.weight_norm(net[2])
    twin = copy.deepcopy(net)
    x, y = _t(T, 4, 2, seed=134), _t(T, 4, 1, seed=135)
    _fit(T, twin, T.optim.SGD(twin.parameters(), lr=0.1), x, y, steps=2)
    return [calls, twin[0].weight.data_ptr() != net[0].weight.data_ptr(),
            (twin[0].weight - net[0].weight).abs().max() > 0, type(twin[2]).__name__,
            twin[2].weight, net[2].weight]


def to_empty_and_meta(T):
    """Building a model on the meta device (no memory), to_empty onto the
    CPU, then re-initialising deterministically; a meta tensor's refusal
    to give values; the parameters' devices and shapes."""
    nn = T.nn
    meta = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 1)).to("meta")
    devs = sorted({str(p.device) for p in meta.parameters()})
    cpu = meta.to_empty(device="cpu")
    with T.no_grad():
        for i, p in enumerate(cpu.parameters()):
            p.copy_(T.arange(p.numel(), dtype=T.float32).reshape(p.shape) * 0.01 * (i + 1))
    return [devs, sorted({str(p.device) for p in cpu.parameters()}),
            [list(p.shape) for p in cpu.parameters()], cpu(T.ones(2, 3, device="cpu")),
            _raised_head(lambda: T.ones(2, device="meta").tolist())]


def legacy_and_protocol_saves(T):
    """torch.save with an older pickle protocol and with the legacy (non-zip)
    format, both loaded back; a zip checkpoint read from a file path; a
    load of a truncated file refused."""
    import os
    import tempfile
    sd = {"w": T.arange(4.0).reshape(2, 2), "n": 3}
    out = []
    for kw in ({"pickle_protocol": 2}, {"_use_new_zipfile_serialization": False}):
        buf = io.BytesIO()
        T.save(sd, buf, **kw)
        buf.seek(0)
        back = T.load(buf)
        out.append([back["w"], back["n"]])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ck.pt")
        T.save(sd, path)
        out.append(T.load(path)["w"].sum())
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[:40])
        out.append(_raised_head(lambda: T.load(path))[0])
    return out


def plateau_with_warmup_chain(T):
    """A warmup LinearLR stepped every batch with a ReduceLROnPlateau stepped
    every epoch on the validation loss (two schedulers on one optimizer,
    as scripts do by hand), over three epochs of two batches."""
    S = T.optim.lr_scheduler
    net = _mlp(T, 136, (2, 3, 1))
    opt = T.optim.SGD(net.parameters(), lr=0.4)
    warm = S.LinearLR(opt, start_factor=0.25, total_iters=3)
    plateau = S.ReduceLROnPlateau(opt, factor=0.5, patience=0)
    x, y = _t(T, 8, 2, seed=137), _t(T, 8, 1, seed=138)
    lrs, vals = [], []
    for epoch in range(3):
        for b in range(2):
            xb, yb = x[b * 4:(b + 1) * 4], y[b * 4:(b + 1) * 4]
            _fit(T, net, opt, xb, yb, steps=1)
            warm.step()
            lrs.append(opt.param_groups[0]["lr"])
        with T.no_grad():
            val = T.nn.functional.mse_loss(net(x), y).item()
        vals.append(val)
        plateau.step(val + epoch * 0.5)  # a validation curve that worsens
        lrs.append(opt.param_groups[0]["lr"])
    return [lrs, vals, plateau.num_bad_epochs, warm.last_epoch]


# ---- a fourth pass ---------------------------------------------------------------------------

def hooks_on_tuple_outputs(T):
    """A GRU (tuple output) with a forward hook replacing the hidden state
    in its output tuple and a forward pre-hook scaling the input; the full
    backward hook of a layer whose input does not require grad (its
    grad_input None)."""
    nn = T.nn
    gru = _init(T, nn.GRU(2, 3, batch_first=True), 139)
    gru.register_forward_pre_hook(lambda m, args: (args[0] * 0.5,) + args[1:])
    gru.register_forward_hook(lambda m, args, out: (out[0], out[1] * 0))
    x = _t(T, 2, 4, 2, seed=140)
    out, h = gru(x)
    seen = []
    lin = _init(T, nn.Linear(3, 1), 141)
    lin.register_full_backward_hook(lambda m, gi, go: seen.append([g is None for g in gi]
                                                                  + [go[0].shape]))
    lin(out[:, -1]).sum().backward()
    return [out, h, seen, gru.weight_ih_l0.grad.abs().sum() > 0]


def functional_call_parametrized(T):
    """functional_call of a module under a parametrization: replacing the
    parametrized name ('weight': set through right_inverse) against
    replacing its original (run through the parametrization); the module's
    own weight untouched; a parametrization without right_inverse refused."""
    nn = T.nn
    F = T.func
    PZ = nn.utils.parametrize

    class Double(nn.Module):
        def forward(self, w):
            return w * 2

        def right_inverse(self, w):
            return w / 2

    class NoInverse(nn.Module):
        def forward(self, w):
            return w * 2

    lin2 = nn.Linear(2, 2, bias=False)
    PZ.register_parametrization(lin2, "weight", NoInverse())
    lin = _init(T, nn.Linear(2, 2, bias=False), 142)
    PZ.register_parametrization(lin, "weight", Double())
    x = T.ones(1, 2)
    w = T.eye(2)
    a = F.functional_call(lin, {"weight": w}, (x,))
    b = F.functional_call(lin, {"parametrizations.weight.original": w}, (x,))
    return [a, b, lin(x), sorted(k for k, _ in lin.named_parameters()),
            _raised(lambda: F.functional_call(lin2, {"weight": w}, (x,)))]


def loader_default_convert_dicts(T):
    """A DataLoader without batching over a dataset of dicts of numpy values
    (default_convert: arrays to tensors, numbers kept), then the same with
    a batch_size (default_collate: stacked), their types."""
    D = T.utils.data

    class Rows(D.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return {"x": np.full(2, i, dtype=np.float32), "id": i, "tag": f"r{i}"}

    plain = list(D.DataLoader(Rows(), batch_size=None))
    batched = list(D.DataLoader(Rows(), batch_size=2))
    return [[type(r["x"]).__name__ for r in plain], [type(r["id"]).__name__ for r in plain],
            plain[1], batched[0], batched[1]["tag"], len(batched)]


def orthogonal_without_trivialization(T):
    """parametrizations.orthogonal with use_trivialization=False (the weight
    itself the parameter, projected back by its right_inverse) on a tall and
    a square Linear, trained a few steps: still orthogonal columns; its
    refusal of a 1-d parameter."""
    nn = T.nn
    P = nn.utils.parametrizations
    out = []
    for shape in ((4, 2), (3, 3)):
        lin = _init(T, nn.Linear(shape[1], shape[0], bias=False), 143)
        P.orthogonal(lin, use_trivialization=False)
        x, y = _t(T, 6, shape[1], seed=144), _t(T, 6, shape[0], seed=145)
        _fit(T, lin, T.optim.SGD(lin.parameters(), lr=0.05), x, y, steps=2)
        w = lin.weight
        g = w.T @ w if shape[0] >= shape[1] else w @ w.T
        out.append([bool((g - T.eye(min(shape))).abs().max() < 1e-4),
                    sorted(k for k, _ in lin.named_parameters())])
    out.append(_raised(lambda: P.orthogonal(nn.BatchNorm1d(3), "weight")))
    return out


def inputs(T):
    return {"T": T, **{name: globals()[name] for name in _PROGRAMS}}


_PROGRAMS = [name for name, f in list(globals().items())
             if callable(f) and getattr(f, "__module__", None) == __name__
             and not name.startswith("_") and name not in ("inputs", "describe", "main",
                                                            "record")]
CALLS = [name + "(T)" for name in _PROGRAMS]


def main():
    record(CALLS, inputs, describe, "training_programs11", messages=True)


if __name__ == "__main__":
    main()
