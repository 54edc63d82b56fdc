"""Record PyTorch's answers for a twelfth round of training programs, for
tests/test_training_programs12.py: the less common layers, losses,
optimizers and schedulers in combinations the first eleven rounds left --
recurrent layers over packed sequences (bidirectional, projected, several
layers, unsorted, with initial states), grouped and dilated convolutions
and their transposes with output_size, EmbeddingBag's offsets, weights
and modes, CTC loss's reductions and blanks, warm restarts stepped by
fractional epochs, OneCycleLR cycling Adam's betas, clipping with
non-finite norms, CPU autocast, checkpoints resumed through BytesIO,
samplers and collate functions, and a few idioms around them (gradient
penalties, custom autograd Functions, exponential moving averages,
unpooling, patch models through Fold/Unfold).

As in rounds three to eleven, every program takes the library as T and
builds its parameters and data from NumPy, so the test runs the very same
code on torchlike; what draws random numbers is compared only by what
does not depend on the stream.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs12.py
writes tests/golden/training_programs12.json ([call, outcome] pairs over T)."""
import io

import numpy as np

from golden_calls import record
from golden_training_programs3 import _data, _init, _raised
from golden_training_programs6 import describe  # noqa: F401 - describe: the test's
from golden_training_programs7 import _fit, _mlp, _t


def _long(T, a):
    return _data(T, np.asarray(a, dtype=np.int64))


# ---- recurrent layers over packed sequences ----------------------------------------------------

def lstm_packed_bidirectional_proj(T):
    """A two-layer bidirectional LSTM with proj_size over an unsorted packed
    batch: the padded output (with total_length), the final states' shapes
    and values, the packed data's batch sizes and sort order, a few Adam
    steps of a classifier on the last valid output."""
    nn = T.nn
    R = nn.utils.rnn
    lstm = _init(T, nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2,
                            batch_first=True), 1)
    head = _init(T, nn.Linear(4, 2), 2)
    x = _t(T, 4, 6, 3, seed=3)
    lens = T.tensor([3, 6, 1, 4])
    y = _long(T, [0, 1, 1, 0])
    opt = T.optim.Adam([*lstm.parameters(), *head.parameters()], lr=0.01)
    losses = []
    for _ in range(3):
        packed = R.pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
        out, (h, c) = lstm(packed)
        pad, plens = R.pad_packed_sequence(out, batch_first=True, total_length=7)
        last = T.cat([h[-2], h[-1]], dim=1)
        loss = nn.functional.cross_entropy(head(last), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, list(pad.shape), plens, list(h.shape), list(c.shape),
            packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices,
            pad[2, 1:].abs().sum().item(), h, c[0]]


def gru_packed_with_h0(T):
    """A three-layer GRU (time-major) over a packed batch given an initial
    state: the final state equals the padded output at each sequence's
    last step (top layer), the gradient reaching h0."""
    nn = T.nn
    R = nn.utils.rnn
    gru = _init(T, nn.GRU(2, 3, num_layers=3), 4)
    seqs = [_t(T, n, 2, seed=10 + n) for n in (5, 2, 4)]
    packed = R.pack_sequence(seqs, enforce_sorted=False)
    h0 = _t(T, 3, 3, 3, seed=5).requires_grad_()
    out, h = gru(packed, h0)
    pad, lens = R.pad_packed_sequence(out)
    lasts = T.stack([pad[n - 1, i] for i, n in enumerate(lens.tolist())])
    (h.sum() + out.data.pow(2).sum()).backward()
    return [pad, lens, h, bool(T.allclose(lasts, h[-1])), h0.grad,
            gru.weight_hh_l2.grad.abs().sum().item()]


def rnn_relu_unpack_roundtrip(T):
    """An Elman RNN with relu and no bias over pack_sequence (sorted), the
    output unpacked by unpack_sequence and unpad_sequence, and
    PackedSequence's to() / is_cuda / float() views."""
    nn = T.nn
    R = nn.utils.rnn
    rnn = _init(T, nn.RNN(2, 4, nonlinearity="relu", bias=False), 6)
    seqs = [_t(T, n, 2, seed=20 + n) for n in (4, 3, 1)]
    packed = R.pack_sequence(seqs)
    out, h = rnn(packed)
    parts = R.unpack_sequence(out)
    pad, lens = R.pad_packed_sequence(out, batch_first=True)
    unp = R.unpad_sequence(pad, lens, batch_first=True)
    d = packed.double()
    return [[list(p.shape) for p in parts], parts[1], [bool(T.equal(a, b)) for a, b in zip(parts, unp)],
            h, packed.is_cuda, d.data.dtype, d.batch_sizes, packed.sorted_indices]


def lstm_cell_seq2seq_teacher_forcing(T):
    """An encoder LSTM and a decoder LSTMCell with teacher forcing on half
    the steps (a fixed pattern), trained with RMSprop (centered, with
    momentum); the losses and the decoder's last state."""
    nn = T.nn
    enc = _init(T, nn.LSTM(2, 4), 7)
    dec = _init(T, nn.LSTMCell(2, 4), 8)
    out_l = _init(T, nn.Linear(4, 2), 9)
    src = _t(T, 5, 3, 2, seed=10)
    tgt = _t(T, 4, 3, 2, seed=11)
    params = [*enc.parameters(), *dec.parameters(), *out_l.parameters()]
    opt = T.optim.RMSprop(params, lr=0.01, centered=True, momentum=0.5, alpha=0.9)
    losses = []
    for _ in range(3):
        _, (h, c) = enc(src)
        h, c = h[0], c[0]
        inp = T.zeros(3, 2)
        loss = 0
        for t in range(4):
            h, c = dec(inp, (h, c))
            pred = out_l(h)
            loss = loss + nn.functional.smooth_l1_loss(pred, tgt[t], beta=0.5)
            inp = tgt[t] if t % 2 == 0 else pred.detach()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, h, c]


def gru_cell_unbatched(T):
    """GRUCell and RNNCell on unbatched (1-d) inputs against the batched
    call, and their refusals of a hidden state of the wrong size."""
    nn = T.nn
    cell = _init(T, nn.GRUCell(3, 2), 12)
    rc = _init(T, nn.RNNCell(3, 2, nonlinearity="relu"), 13)
    x = _t(T, 3, seed=14)
    h = _t(T, 2, seed=15)
    a = cell(x, h)
    b = cell(x[None], h[None])[0]
    return [a, bool(T.allclose(a, b)), rc(x), rc(x, h),
            _raised(lambda: cell(x[None], T.zeros(1, 3))),
            _raised(lambda: rc(T.zeros(2, 3), T.zeros(3, 2)))]


# ---- grouped and dilated convolutions ----------------------------------------------------------

def conv1d_groups_dilation_padding_modes(T):
    """Conv1d with groups=2, dilation=2 and padding='same' in each padding
    mode (zeros, reflect, replicate, circular), trained a step each with
    SGD (nesterov); the outputs' shapes and the losses; padding='same'
    refused with a stride."""
    nn = T.nn
    x = _t(T, 2, 4, 9, seed=16)
    y = _t(T, 2, 6, 9, seed=17)
    out = []
    for mode in ("zeros", "reflect", "replicate", "circular"):
        conv = _init(T, nn.Conv1d(4, 6, 3, groups=2, dilation=2, padding="same",
                                  padding_mode=mode), 18)
        opt = T.optim.SGD(conv.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        losses = _fit(T, conv, opt, x, y, steps=2)
        out.append([mode, list(conv(x).shape), losses, conv.bias.detach()])
    out.append(_raised(lambda: nn.Conv1d(4, 6, 3, stride=2, padding="same")))
    out.append(_raised(lambda: nn.Conv1d(4, 6, 3, groups=3)))
    return out


def conv_transpose2d_groups_output_size(T):
    """ConvTranspose2d with groups=2, dilation=2, stride=2: the output for
    each output_size the stride allows, one it does not (refused), and a
    short autoencoder step through it."""
    nn = T.nn
    ct = _init(T, nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2, dilation=2), 19)
    x = _t(T, 1, 4, 3, 3, seed=20)
    outs = [list(ct(x, output_size=s).shape) for s in ([7, 7], [8, 8], [8, 7])]
    enc = _init(T, nn.Conv2d(6, 4, 3, stride=2, groups=2), 21)
    img = _t(T, 2, 6, 9, 9, seed=22)
    opt = T.optim.Adam([*ct.parameters(), *enc.parameters()], lr=0.01)
    losses = []
    for _ in range(2):
        rec = ct(enc(img), output_size=img.shape[-2:])
        loss = nn.functional.mse_loss(rec, img)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [outs, ct(x, output_size=[8, 8])[0, :, 0], losses,
            _raised(lambda: ct(x, output_size=[9, 9])), list(ct.weight.shape)]


def conv_transpose1d_output_padding(T):
    """ConvTranspose1d with output_padding and dilation, its gradient
    against the adjoint identity <conv(x), y> = <x, conv_t(y)>, and
    output_padding not smaller than the stride refused."""
    nn = T.nn
    F = nn.functional
    w = _t(T, 3, 2, 4, seed=23)
    x = _t(T, 2, 3, 5, seed=24)
    yt = F.conv_transpose1d(x, w, stride=3, output_padding=1, dilation=2)
    y = _t(T, *yt.shape, seed=25)
    lhs = (yt * y).sum()
    rhs = (F.conv1d(y, w, stride=3, dilation=2) * x).sum()
    ct = _init(T, nn.ConvTranspose1d(3, 2, 4, stride=3, output_padding=1, dilation=2), 26)
    return [list(yt.shape), bool(abs(lhs.item() - rhs.item()) < 1e-3), ct(x)[0, 0],
            _raised(lambda: F.conv_transpose1d(x, w, stride=2, output_padding=2))]


def conv3d_grouped_pool_unpool(T):
    """A grouped Conv3d, MaxPool3d with return_indices, MaxUnpool3d back to
    the input size; one training step; the unpooled map's nonzero count."""
    nn = T.nn
    conv = _init(T, nn.Conv3d(2, 4, 2, groups=2, padding=1), 27)
    pool = nn.MaxPool3d(2, return_indices=True)
    unpool = nn.MaxUnpool3d(2)
    x = _t(T, 1, 2, 3, 3, 3, seed=28)
    h = conv(x)
    p, idx = pool(h)
    u = unpool(p, idx, output_size=h.shape)
    loss = (u - h).pow(2).mean()
    loss.backward()
    return [list(h.shape), list(p.shape), idx.dtype, int((u != 0).sum()), loss.item(),
            conv.weight.grad.abs().sum().item(), idx[0, 0]]


def adaptive_max_unpool2d(T):
    """AdaptiveMaxPool2d with return_indices on a size it divides and one it
    does not, MaxUnpool2d with a stride and padding, the indices' values."""
    nn = T.nn
    x = _t(T, 1, 1, 6, 5, seed=29)
    p, i = nn.AdaptiveMaxPool2d((3, 2), return_indices=True)(x)
    mp, mi = nn.MaxPool2d(3, stride=2, padding=1, return_indices=True)(x)
    u = nn.MaxUnpool2d(3, stride=2, padding=1)(mp, mi, output_size=[6, 5])
    return [p, i, mp, mi, u]


# ---- embeddings and sequence losses ------------------------------------------------------------

def embedding_bag_modes_offsets(T):
    """EmbeddingBag in sum/mean/max over 1-d input with offsets (an empty
    bag included), include_last_offset, per_sample_weights with sum,
    padding_idx left out of the reduction, trained with Adagrad
    (lr_decay, initial accumulator); max with weights refused."""
    nn = T.nn
    ids = _long(T, [1, 2, 4, 5, 4, 3, 2, 9, 0])
    offs = _long(T, [0, 2, 2, 5])
    outs = []
    for mode in ("sum", "mean", "max"):
        bag = _init(T, nn.EmbeddingBag(10, 3, mode=mode), 30)
        outs.append(bag(ids, offs))
    bag = _init(T, nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True, padding_idx=2), 31)
    psw = _t(T, 9, seed=32)
    opt = T.optim.Adagrad(bag.parameters(), lr=0.1, lr_decay=0.01, initial_accumulator_value=0.5)
    losses = []
    for _ in range(3):
        o = bag(ids, _long(T, [0, 3, 6, 9]), per_sample_weights=psw)
        loss = o.pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    mx = nn.EmbeddingBag(10, 3, mode="max")
    return [outs, losses, bag.weight[2], list(o.shape),
            _raised(lambda: mx(ids, offs, per_sample_weights=psw)),
            _raised(lambda: bag(ids.view(3, 3), offs))]


def embedding_bag_2d_from_pretrained(T):
    """EmbeddingBag.from_pretrained (frozen) over 2-d bags in mean mode and
    max mode, against Embedding then a reduction; its max_norm renorming
    the rows it reads."""
    nn = T.nn
    w = _t(T, 6, 4, seed=33)
    ids = _long(T, [[0, 2, 5], [1, 1, 3]])
    bag = nn.EmbeddingBag.from_pretrained(w.clone(), mode="mean")
    emb = nn.Embedding.from_pretrained(w.clone())
    mx = nn.EmbeddingBag.from_pretrained(w.clone(), mode="max")
    nb = nn.EmbeddingBag.from_pretrained(w.clone(), max_norm=1.0, mode="sum", freeze=False)
    o = nb(ids)
    return [bag(ids), bool(T.allclose(bag(ids), emb(ids).mean(1))), mx(ids),
            bag.weight.requires_grad, o, nb.weight.norm(dim=1), nb.weight.requires_grad]


def ctc_loss_reductions_blank(T):
    """CTC loss over log-probabilities with padded (2-d) and concatenated
    (1-d) targets, reductions none/sum/mean, a nonzero blank, an
    impossible alignment (inf, then zeroed by zero_infinity) and the
    gradients reaching the logits."""
    nn = T.nn
    F = nn.functional
    logits = _t(T, 8, 2, 5, seed=34).requires_grad_()
    lp = logits.log_softmax(2)
    tgt = _long(T, [[1, 2, 2, 0], [3, 1, 0, 0]])
    il = _long(T, [8, 6])
    tl = _long(T, [3, 2])
    none = F.ctc_loss(lp, tgt, il, tl, reduction="none")
    cat = F.ctc_loss(lp, _long(T, [1, 2, 2, 3, 1]), il, tl, reduction="sum")
    mean = F.ctc_loss(lp, tgt, il, tl)
    blank4 = F.ctc_loss(lp, _long(T, [[1, 2, 2, 0], [3, 1, 0, 0]]), il, tl, blank=4,
                        reduction="none")
    bad_tl = _long(T, [3, 5])
    bad_tgt = _long(T, [[1, 1, 1, 1, 1], [1, 2, 1, 2, 1]])
    inf = F.ctc_loss(lp, bad_tgt, _long(T, [8, 3]), bad_tl, reduction="none")
    zero = nn.CTCLoss(zero_infinity=True, reduction="sum")(lp, bad_tgt, _long(T, [8, 3]), bad_tl)
    (mean + zero).backward()
    return [none, cat, mean, blank4, inf, zero, logits.grad[:, 1].sum(1), logits.grad[0]]


def ctc_training_tensor_lengths(T):
    """A small CTC acoustic model: a GRU over features, log_softmax, CTC
    with padded targets, trained with AdamW and gradient
    clipping by norm; the losses and clip norms."""
    nn = T.nn
    gru = _init(T, nn.GRU(3, 6, bidirectional=True), 35)
    proj = _init(T, nn.Linear(12, 4), 36)
    ctc = nn.CTCLoss(blank=0)
    x = _t(T, 10, 3, 3, seed=37)
    tgt = _long(T, [[1, 2, 3], [2, 2, 0], [3, 1, 1]])
    il = _long(T, [10, 9, 7])
    tl = _long(T, [3, 2, 3])
    params = [*gru.parameters(), *proj.parameters()]
    opt = T.optim.AdamW(params, lr=0.01, weight_decay=0.1, amsgrad=True)
    losses, norms = [], []
    for _ in range(3):
        out, _ = gru(x)
        loss = ctc(proj(out).log_softmax(-1), tgt, il, tl)
        opt.zero_grad()
        loss.backward()
        norms.append(nn.utils.clip_grad_norm_(params, 0.5).item())
        opt.step()
        losses.append(loss.item())
    return [losses, norms]


# ---- losses with uncommon options --------------------------------------------------------------

def cross_entropy_soft_smoothing_weights(T):
    """cross_entropy with class probabilities as targets, with
    label_smoothing, with class weights, over a K-dim (N, C, d) input, and
    the index form with weights, ignore_index and smoothing together."""
    F = T.nn.functional
    x = _t(T, 3, 4, 2, seed=38).requires_grad_()
    p = _t(T, 3, 4, 2, seed=39).softmax(1)
    w = T.tensor([0.5, 1.0, 2.0, 1.5])
    idx = _long(T, [[0, 3], [-100, 2], [1, 1]])
    a = F.cross_entropy(x, p)
    b = F.cross_entropy(x, p, label_smoothing=0.2)
    c = F.cross_entropy(x, p, weight=w, reduction="none")
    d = F.cross_entropy(x, idx, weight=w, label_smoothing=0.1)
    e = F.cross_entropy(x, idx, weight=w, label_smoothing=0.1, reduction="sum")
    (a + b + c.sum() + d).backward()
    return [a, b, c, d, e, x.grad[0],
            _raised(lambda: F.cross_entropy(x, p, ignore_index=1)),
            _raised(lambda: F.cross_entropy(x, idx, label_smoothing=1.5))]


def nll_segmentation_weights(T):
    """A per-pixel classifier: Conv2d, log_softmax over channels, NLLLoss
    with class weights and an ignore_index over a (N, H, W) target, trained
    with NAdam; the weighted mean's denominators; all-ignored is NaN."""
    nn = T.nn
    conv = _init(T, nn.Conv2d(2, 3, 3, padding=1), 40)
    x = _t(T, 2, 2, 4, 4, seed=41)
    t = _long(T, np.random.default_rng(42).integers(0, 4, (2, 4, 4)))
    t = T.where(t == 3, T.full_like(t, 7), t)
    loss_fn = nn.NLLLoss(weight=T.tensor([1.0, 0.5, 2.0]), ignore_index=7)
    opt = T.optim.NAdam(conv.parameters(), lr=0.02, momentum_decay=0.003)
    losses = []
    for _ in range(3):
        loss = loss_fn(conv(x).log_softmax(1), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    allign = nn.NLLLoss(ignore_index=7)(conv(x).log_softmax(1), T.full_like(t, 7))
    return [losses, allign.item(), conv.bias.detach()]


def ranking_and_margin_losses(T):
    """A scoring model trained on pairwise margin ranking, then hinge
    embedding, soft margin, multilabel margin and multi margin (p=2,
    weighted) losses of its scores, with their gradients."""
    nn = T.nn
    F = nn.functional
    m = _init(T, nn.Linear(3, 1), 43)
    a, b = _t(T, 6, 3, seed=44), _t(T, 6, 3, seed=45)
    y = T.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    opt = T.optim.SGD(m.parameters(), lr=0.1, weight_decay=0.01, dampening=0.2, momentum=0.8)
    losses = []
    for _ in range(3):
        loss = F.margin_ranking_loss(m(a).squeeze(1), m(b).squeeze(1), y, margin=0.3)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    s = _t(T, 4, 5, seed=46).requires_grad_()
    ml_t = _long(T, [[3, 0, -1, 1, 2], [1, -1, 0, 0, 0], [0, 1, 2, 3, 4], [-1, 0, 0, 0, 0]])
    parts = [F.hinge_embedding_loss(s, T.sign(_t(T, 4, 5, seed=47)), margin=0.5),
             F.soft_margin_loss(s, T.sign(_t(T, 4, 5, seed=48)), reduction="sum"),
             F.multilabel_margin_loss(s, ml_t, reduction="none"),
             F.multi_margin_loss(s, _long(T, [0, 4, 2, 1]), p=2, margin=0.7,
                                 weight=T.tensor([1.0, 2.0, 0.5, 1.0, 3.0]))]
    sum(p.sum() for p in parts).backward()
    return [losses, parts, s.grad]


def gaussian_poisson_nll_training(T):
    """A heteroscedastic regressor trained with GaussianNLLLoss (full=True,
    per-feature and scalar-broadcast variances) and a count model with
    PoissonNLLLoss (log_input False, full), Adamax both."""
    nn = T.nn
    net = _init(T, nn.Linear(3, 4), 49)
    x, y = _t(T, 8, 3, seed=50), _t(T, 8, 2, seed=51)
    g = nn.GaussianNLLLoss(full=True, eps=1e-4)
    opt = T.optim.Adamax(net.parameters(), lr=0.02, weight_decay=0.01)
    losses = []
    for _ in range(3):
        o = net(x)
        mu, var = o[:, :2], nn.functional.softplus(o[:, 2:])
        loss = g(mu, y, var) + g(mu, y, var[:, :1])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    rate = nn.functional.softplus(_t(T, 5, seed=52)).requires_grad_()
    counts = T.tensor([0.0, 1.0, 3.0, 2.0, 7.0])
    pl = nn.PoissonNLLLoss(log_input=False, full=True)(rate, counts)
    pl.backward()
    return [losses, pl, rate.grad,
            _raised(lambda: g(mu, y, -T.ones(8, 2))),
            _raised(lambda: g(mu, y, T.ones(8, 3)))]


# ---- optimizers and schedulers -----------------------------------------------------------------

def cosine_warm_restarts_fractional(T):
    """CosineAnnealingWarmRestarts (T_0=2, T_mult=2, eta_min) stepped by
    fractional epochs inside each epoch as PyTorch's docs show, the lrs
    read from get_last_lr; its state dict resumed into a new scheduler;
    its refusals of T_0=0, T_mult=1.5 and a negative epoch."""
    nn = T.nn
    net = _mlp(T, 53)
    opt = T.optim.SGD(net.parameters(), lr=0.5)
    S = T.optim.lr_scheduler
    sch = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.01)
    lrs = []
    iters = 4
    for epoch in range(4):
        for i in range(iters):
            opt.step()
            sch.step(epoch + i / iters)
            lrs.append(round(sch.get_last_lr()[0], 10))
    state = sch.state_dict()
    opt2 = T.optim.SGD(net.parameters(), lr=0.5)
    sch2 = S.CosineAnnealingWarmRestarts(opt2, T_0=2, T_mult=2, eta_min=0.01)
    sch2.load_state_dict(state)
    opt2.step()
    sch2.step()
    return [lrs, state["T_i"], state["T_cur"], sch2.get_last_lr(), sch2.T_cur,
            _raised(lambda: S.CosineAnnealingWarmRestarts(opt, T_0=0)),
            _raised(lambda: S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5)),
            _raised(lambda: sch.step(-1))]


def one_cycle_adam_betas(T):
    """OneCycleLR over Adam cycling beta1 (cos annealing, default and custom
    div factors), its lr and beta1 traces, total_steps from epochs and
    steps_per_epoch, and the error of a step past the end."""
    net = _mlp(T, 54)
    opt = T.optim.Adam(net.parameters(), lr=1e-3, betas=(0.9, 0.99))
    sch = T.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=2, steps_per_epoch=4,
                                          pct_start=0.25, div_factor=10, final_div_factor=100,
                                          base_momentum=0.8, max_momentum=0.95)
    x, y = _t(T, 5, 4, seed=55), _t(T, 5, 2, seed=56)
    lrs, b1 = [], []
    losses = []
    for _ in range(8):
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        lrs.append(round(opt.param_groups[0]["lr"], 10))
        b1.append(round(opt.param_groups[0]["betas"][0], 10))
        losses.append(loss.item())
        if len(lrs) < 8:
            sch.step()
    return [lrs, b1, losses, sch.total_steps, opt.param_groups[0]["initial_lr"],
            opt.param_groups[0]["max_lr"], opt.param_groups[0]["min_lr"],
            _raised(lambda: [sch.step() for _ in range(3)])]


def optimizer_options_tour(T):
    """One regression trained by each of Adam (amsgrad, maximize on the
    negated loss, weight decay), AdamW (amsgrad), RAdam (decoupled weight
    decay), NAdam (decoupled), Rprop (etas, step sizes), ASGD (t0, lambd),
    Adadelta (rho, weight decay) and SGD (nesterov with weight decay):
    the losses after three steps and a parameter."""
    nn = T.nn
    x, y = _t(T, 6, 4, seed=57), _t(T, 6, 2, seed=58)
    O = T.optim
    makers = [
        lambda p: O.Adam(p, lr=0.05, amsgrad=True, weight_decay=0.01, maximize=True),
        lambda p: O.AdamW(p, lr=0.05, amsgrad=True),
        lambda p: O.RAdam(p, lr=0.05, decoupled_weight_decay=True, weight_decay=0.1),
        lambda p: O.NAdam(p, lr=0.05, decoupled_weight_decay=True, weight_decay=0.1),
        lambda p: O.Rprop(p, lr=0.05, etas=(0.4, 1.3), step_sizes=(1e-4, 0.2)),
        lambda p: O.ASGD(p, lr=0.05, t0=1, lambd=1e-3, alpha=0.5),
        lambda p: O.Adadelta(p, lr=1.0, rho=0.8, weight_decay=0.05),
        lambda p: O.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01),
    ]
    out = []
    for k, make in enumerate(makers):
        net = _mlp(T, 59)
        opt = make(net.parameters())
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = nn.functional.mse_loss(net(x), y)
            (-loss if k == 0 else loss).backward()
            opt.step()
            losses.append(loss.item())
        out.append([type(opt).__name__, losses, net[0].bias.detach()])
    return out


def param_groups_added_midway(T):
    """A backbone trained alone, then a head added with add_param_group
    (its own lr and momentum, the defaults filled in), a LambdaLR with one
    lambda per group created after; the groups' options; adding a
    parameter twice refused; the optimizer's state dict keys."""
    nn = T.nn
    body = _mlp(T, 60, (3, 4))
    head = _init(T, nn.Linear(4, 1), 61)
    x, y = _t(T, 5, 3, seed=62), _t(T, 5, 1, seed=63)
    opt = T.optim.SGD(body.parameters(), lr=0.1, momentum=0.5)
    losses = []
    for step in range(4):
        if step == 2:
            opt.add_param_group({"params": head.parameters(), "lr": 0.01})
        opt.zero_grad()
        loss = nn.functional.mse_loss(head(T.relu(body(x))), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    sch = T.optim.lr_scheduler.LambdaLR(opt, [lambda e: 0.5 ** e, lambda e: 1.0 + e])
    sch.step()
    groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    return [losses, [sorted(g) for g in groups], [g["lr"] for g in groups],
            [g["momentum"] for g in groups],
            _raised(lambda: opt.add_param_group({"params": head.weight})),
            sorted(opt.state_dict()["state"]), opt.state_dict()["param_groups"][1]["params"]]


def clip_grad_nonfinite_and_foreach(T):
    """clip_grad_norm_ over parameters whose gradient has an inf: the total
    norm returned (inf), the gradients made NaN by the scaling; with
    error_if_nonfinite the RuntimeError; with foreach=True on finite
    gradients the same result as without; norm_type 'inf' and 0.5;
    get_total_norm and clip_grads_with_norm_."""
    nn = T.nn
    U = nn.utils
    net = _mlp(T, 64)
    x = _t(T, 3, 4, seed=65)
    net(x).sum().backward()
    grads = [p.grad.clone() for p in net.parameters()]
    n1 = U.clip_grad_norm_(net.parameters(), 0.1, foreach=True)
    g1 = [p.grad.clone() for p in net.parameters()]
    for p, g in zip(net.parameters(), grads):
        p.grad = g.clone()
    n2 = U.clip_grad_norm_(net.parameters(), 0.1, foreach=False)
    same = all(bool(T.allclose(a, p.grad)) for a, p in zip(g1, net.parameters()))
    for p, g in zip(net.parameters(), grads):
        p.grad = g.clone()
    ninf = U.clip_grad_norm_(net.parameters(), 0.1, norm_type="inf")
    for p, g in zip(net.parameters(), grads):
        p.grad = g.clone()
    nhalf = U.clip_grad_norm_(net.parameters(), 1.0, norm_type=0.5)
    tot = U.get_total_norm([g for g in grads], norm_type=2.0)
    gs = [g.clone() for g in grads]
    U.clip_grads_with_norm_(gs, 0.5, tot)
    bad = _t(T, 3, seed=66).requires_grad_()
    bad.grad = T.tensor([1.0, float("inf"), 2.0])
    nbad = U.clip_grad_norm_([bad], 1.0)
    return [n1, n2, same, ninf, nhalf, tot, gs[0], nbad, bad.grad,
            _raised(lambda: U.clip_grad_norm_([bad], 1.0, error_if_nonfinite=True)),
            U.clip_grad_norm_([], 1.0)]


def reduce_on_plateau_then_restarts(T):
    """MultiStepLR with repeated milestones (the factor applied twice),
    ExponentialLR then PolynomialLR in a SequentialLR, CyclicLR 'exp_range'
    with momentum cycling off under Adam, their lr traces."""
    S = T.optim.lr_scheduler
    p = [T.zeros(1, requires_grad=True)]

    def trace(opt, sch, n):
        out = []
        for _ in range(n):
            opt.step()
            sch.step()
            out.append(round(opt.param_groups[0]["lr"], 10))
        return out

    o1 = T.optim.SGD(p, lr=1.0)
    a = trace(o1, S.MultiStepLR(o1, milestones=[2, 2, 4], gamma=0.5), 6)
    o2 = T.optim.SGD(p, lr=1.0)
    b = trace(o2, S.SequentialLR(o2, [S.ExponentialLR(o2, 0.8),
                                      S.PolynomialLR(o2, total_iters=3, power=2.0)],
                                 milestones=[3]), 8)
    o3 = T.optim.Adam(p, lr=0.1)
    c = trace(o3, S.CyclicLR(o3, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9,
                             cycle_momentum=False), 8)
    return [a, b, c,
            _raised(lambda: S.CyclicLR(T.optim.Adam(p, lr=0.1), 0.01, 0.1))]


# ---- autocast, checkpoints, data ---------------------------------------------------------------

def cpu_autocast_bfloat16(T):
    """A forward pass under torch.autocast('cpu', bfloat16): a Linear's and
    a matmul's outputs in bfloat16, an addition of bfloat16 and float32
    promoted, the float32 loss's gradient reaching float32 parameters;
    autocast disabled inside; is_autocast_enabled inside and out."""
    nn = T.nn
    lin = _init(T, nn.Linear(4, 3), 67)
    x = _t(T, 2, 4, seed=68)
    with T.autocast("cpu", dtype=T.bfloat16):
        h = lin(x)
        m = x @ x.T
        s = h + T.ones(2, 3)
        inside = T.is_autocast_enabled("cpu")
        with T.autocast("cpu", enabled=False):
            f = lin(x)
        loss = h.float().pow(2).mean()
    loss.backward()
    return [h.dtype, m.dtype, s.dtype, f.dtype, inside, T.is_autocast_enabled("cpu"),
            lin.weight.grad.dtype, h.float(), loss.dtype, lin.weight.dtype]


def checkpoint_resume_bytesio(T):
    """Training interrupted after two steps: model, optimizer (Adam) and
    scheduler state saved to a BytesIO, loaded into fresh objects, then
    trained two more steps; the losses equal a run without the
    interruption; the loaded optimizer's step counts."""
    nn = T.nn
    x, y = _t(T, 6, 4, seed=69), _t(T, 6, 2, seed=70)

    def make():
        net = _mlp(T, 71)
        opt = T.optim.Adam(net.parameters(), lr=0.05)
        sch = T.optim.lr_scheduler.StepLR(opt, 1, gamma=0.7)
        return net, opt, sch

    def train(net, opt, sch, n):
        out = []
        for _ in range(n):
            opt.zero_grad()
            loss = nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            sch.step()
            out.append(loss.item())
        return out

    full = train(*make(), 4)
    net, opt, sch = make()
    first = train(net, opt, sch, 2)
    buf = io.BytesIO()
    T.save({"model": net.state_dict(), "opt": opt.state_dict(), "sch": sch.state_dict(),
            "epoch": 2}, buf)
    size_ok = buf.tell() > 0
    buf.seek(0)
    ck = T.load(buf, weights_only=True)
    net2, opt2, sch2 = make()
    net2.load_state_dict(ck["model"])
    opt2.load_state_dict(ck["opt"])
    sch2.load_state_dict(ck["sch"])
    second = train(net2, opt2, sch2, 2)
    st = opt2.state_dict()["state"][0]
    return [full, first + second, size_ok, ck["epoch"], st["step"],
            opt2.param_groups[0]["lr"], sorted(ck["opt"]["state"][1])]


def loader_samplers_collate(T):
    """A DataLoader over a map-style dataset with a SubsetRandomSampler
    (seeded; every chosen index once), a custom collate returning a dict,
    drop_last, and a SequentialSampler-driven BatchSampler with a collate
    that pads; the batches' shapes and the indices seen."""
    D = T.utils.data

    class Pairs(D.Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            return T.full((i % 3 + 1,), float(i)), i

    def collate(batch):
        seqs, ids = zip(*batch)
        return {"x": T.nn.utils.rnn.pad_sequence(list(seqs), batch_first=True,
                                                 padding_value=-1.0),
                "ids": T.tensor(ids)}

    g = T.Generator().manual_seed(0)
    s = D.SubsetRandomSampler([1, 3, 5, 7, 9], generator=g)
    dl = D.DataLoader(Pairs(), batch_size=2, sampler=s, collate_fn=collate, drop_last=True)
    seen = sorted(int(i) for b in dl for i in b["ids"])
    dl2 = D.DataLoader(Pairs(), batch_sampler=D.BatchSampler(D.SequentialSampler(range(7)), 3,
                                                             drop_last=False),
                       collate_fn=collate)
    bs = list(dl2)
    return [len(dl), len(seen), set(seen) <= {1, 3, 5, 7, 9}, len(set(seen)),
            [list(b["x"].shape) for b in bs], bs[0]["x"], bs[2]["ids"], len(s)]


def loader_worker_init_and_generator(T):
    """DataLoader options with num_workers=0: worker_init_fn never called,
    a persistent_workers refusal without workers, prefetch_factor refused
    without workers, pin_memory off, timeout refused negative."""
    D = T.utils.data
    ds = D.TensorDataset(T.arange(6.0))
    called = []
    dl = D.DataLoader(ds, batch_size=4, worker_init_fn=lambda i: called.append(i))
    batches = [b[0] for b in dl]
    return [batches, called,
            _raised(lambda: D.DataLoader(ds, persistent_workers=True)),
            _raised(lambda: D.DataLoader(ds, prefetch_factor=2)),
            _raised(lambda: D.DataLoader(ds, timeout=-1)),
            _raised(lambda: D.DataLoader(ds, batch_size=0)),
            _raised(lambda: D.DataLoader(ds, batch_size=2, batch_sampler=[[0]]))]


# ---- idioms ------------------------------------------------------------------------------------

def gradient_penalty_double_backward(T):
    """A WGAN-GP critic step: interpolates between real and fake, the
    critic's gradient with create_graph, the penalty (||g|| - 1)^2 trained
    through by Adam(betas=(0.5, 0.9)); a Hessian-vector product of the
    critic's output by double backward."""
    nn = T.nn
    critic = nn.Sequential(_init(T, nn.Linear(3, 5), 72), nn.Tanh(), _init(T, nn.Linear(5, 1), 73))
    real, fake = _t(T, 4, 3, seed=74), _t(T, 4, 3, seed=75)
    alpha = T.tensor([[0.2], [0.5], [0.7], [0.9]])
    opt = T.optim.Adam(critic.parameters(), lr=0.01, betas=(0.5, 0.9))
    losses = []
    for _ in range(3):
        xi = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        out = critic(xi)
        (g,) = T.autograd.grad(out.sum(), xi, create_graph=True)
        gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * gp
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append([loss.item(), gp.item()])
    z = real[:1].clone().requires_grad_()
    v = T.tensor([[1.0, -1.0, 0.5]])
    (gz,) = T.autograd.grad(critic(z).sum(), z, create_graph=True)
    (hv,) = T.autograd.grad((gz * v).sum(), z)
    return [losses, hv]


def custom_function_straight_through(T):
    """A custom autograd Function (a straight-through sign estimator with
    save_for_backward and a clipped gradient) inside a binarized layer,
    trained with SGD; mark_non_differentiable on an index output;
    once_differentiable's refusal of a double backward."""
    nn = T.nn
    A = T.autograd

    class SignSTE(A.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sign()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x.abs() <= 1).to(g.dtype)

    class MaxIdx(A.Function):
        @staticmethod
        def forward(ctx, x):
            v, i = x.max(1)
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(x, i)
            return v, i

        @staticmethod
        @A.function.once_differentiable
        def backward(ctx, gv, gi):
            x, i = ctx.saved_tensors
            return T.zeros_like(x).scatter(1, i[:, None], gv[:, None])

    lin = _init(T, nn.Linear(4, 3), 76)
    x, y = _t(T, 5, 4, seed=77), _t(T, 5, 3, seed=78)
    opt = T.optim.SGD(lin.parameters(), lr=0.1)
    losses = []
    for _ in range(3):
        w = SignSTE.apply(lin.weight)
        out = x @ w.T + lin.bias
        loss = nn.functional.mse_loss(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    z = _t(T, 3, 4, seed=79).requires_grad_()
    v, i = MaxIdx.apply(z)
    (g,) = A.grad(v.pow(2).sum(), z, create_graph=True)
    return [losses, lin.weight.detach(), v, i, i.requires_grad, g,
            _raised(lambda: g.sum().backward())]


def ema_averaged_model_update_bn(T):
    """An EMA of a model with BatchNorm kept by AveragedModel with
    get_ema_multi_avg_fn (buffers averaged too with use_buffers), updated
    after each SGD step; swa_utils.update_bn recomputing a copy's running
    stats from a loader; the averaged model's n_averaged."""
    nn = T.nn
    U = T.optim.swa_utils
    net = nn.Sequential(_init(T, nn.Linear(3, 4), 80), nn.BatchNorm1d(4), nn.ReLU(),
                        _init(T, nn.Linear(4, 1), 81))
    ema = U.AveragedModel(net, multi_avg_fn=U.get_ema_multi_avg_fn(0.9), use_buffers=True)
    x, y = _t(T, 8, 3, seed=82), _t(T, 8, 1, seed=83)
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        nn.functional.mse_loss(net(x), y).backward()
        opt.step()
        ema.update_parameters(net)
    swa = U.AveragedModel(net)
    swa.update_parameters(net)
    loader = [x[:4], x[4:]]
    U.update_bn(loader, swa)
    ema.eval()
    return [ema.n_averaged, ema.module[0].weight.detach(), ema.module[1].running_mean,
            swa.module[1].running_mean, swa.module[1].running_var,
            swa.module[1].num_batches_tracked, ema(x[:2]).detach()]


def batchnorm_cumulative_and_untracked(T):
    """BatchNorm2d with momentum=None (a cumulative average of the batches'
    statistics), BatchNorm1d with track_running_stats=False in eval mode
    (still the batch's statistics), affine=False; their buffers."""
    nn = T.nn
    bn = nn.BatchNorm2d(2, momentum=None)
    xs = [_t(T, 3, 2, 2, 2, seed=84 + k) for k in range(3)]
    for xb in xs:
        bn(xb)
    manual = T.stack([xb.mean((0, 2, 3)) for xb in xs]).mean(0)
    bu = nn.BatchNorm1d(3, track_running_stats=False, affine=False)
    bu.eval()
    z = _t(T, 4, 3, seed=87)
    return [bn.running_mean, bool(T.allclose(bn.running_mean, manual, atol=1e-6)),
            bn.running_var, bn.num_batches_tracked, bu(z), bu.running_mean,
            sorted(k for k, _ in bu.named_buffers()), sorted(dict(bu.state_dict()))]


def fold_unfold_patch_model(T):
    """A patch model: Unfold with dilation, padding and stride, a Linear
    over each patch, Fold back with the overlap counts divided out (Fold of
    Unfold of ones), trained two steps; the divisor map."""
    nn = T.nn
    kw = dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    unf = nn.Unfold(**kw)
    fold = nn.Fold(output_size=(5, 6), **kw)
    lin = _init(T, nn.Linear(12, 12), 88)
    x = _t(T, 2, 2, 5, 6, seed=89)
    div = fold(unf(T.ones(1, 2, 5, 6)))
    opt = T.optim.SGD(lin.parameters(), lr=0.05)
    losses = []
    for _ in range(2):
        p = unf(x)
        out = fold(lin(p.transpose(1, 2)).transpose(1, 2)) / div
        loss = nn.functional.l1_loss(out, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [list(unf(x).shape), div[0, 0], losses,
            _raised(lambda: fold(T.zeros(2, 12, 7)))]


def pixel_shuffle_super_resolution(T):
    """A sub-pixel super-resolution net: PixelUnshuffle of the input,
    a grouped conv, PixelShuffle up by 2, a bicubic (align_corners)
    skip path and a 'nearest-exact' one, trained with L1; the shapes."""
    nn = T.nn
    F = nn.functional
    down = nn.PixelUnshuffle(2)
    conv = _init(T, nn.Conv2d(4, 16, 3, padding=1, groups=4), 90)
    up = nn.PixelShuffle(4)
    lr_img = _t(T, 1, 1, 4, 4, seed=91)
    hr = _t(T, 1, 1, 8, 8, seed=92)
    opt = T.optim.Adam(conv.parameters(), lr=0.01)
    losses = []
    for _ in range(2):
        h = up(conv(down(lr_img)))
        skip = F.interpolate(lr_img, scale_factor=2, mode="bicubic", align_corners=True)
        near = F.interpolate(lr_img, size=(8, 8), mode="nearest-exact")
        loss = F.l1_loss(h + skip + 0.1 * near, hr)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    aa = F.interpolate(hr, size=(3, 3), mode="bilinear", antialias=True)
    area = F.interpolate(hr, size=(3, 5), mode="area")
    return [list(down(lr_img).shape), list(h.shape), losses, skip[0, 0, 0], near[0, 0, :, 0],
            aa, area]


def multihead_kdim_vdim_masks(T):
    """MultiheadAttention with kdim/vdim other than embed_dim, a bool
    key_padding_mask and a float attn_mask together, per-head weights
    (average_attn_weights=False), add_bias_kv and add_zero_attn; one
    training step; its refusals of a mask of the wrong size."""
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(4, 2, kdim=3, vdim=5, batch_first=True,
                                         add_bias_kv=True, add_zero_attn=True), 93)
    q = _t(T, 2, 3, 4, seed=94)
    k = _t(T, 2, 5, 3, seed=95)
    v = _t(T, 2, 5, 5, seed=96)
    kpm = T.tensor([[False, False, False, True, True], [False, False, False, False, False]])
    am = _t(T, 3, 5, seed=97) * 0.1
    out, w = mha(q, k, v, key_padding_mask=kpm, attn_mask=am, average_attn_weights=False)
    out.pow(2).sum().backward()
    out2, w2 = mha(q, k, v, key_padding_mask=kpm)
    return [out, list(w.shape), w[0, 1], w2[1], mha.bias_k.grad,
            mha.q_proj_weight.grad.abs().sum().item(),
            _raised(lambda: mha(q, k, v, attn_mask=T.zeros(4, 5)))]


def transformer_decoder_causal(T):
    """A TransformerDecoder of two layers (norm_first, gelu) with a causal
    tgt mask from generate_square_subsequent_mask and tgt_is_causal, a
    memory key padding mask, eval mode; a training step in train mode
    with dropout 0; the output's first position unaffected by later
    targets."""
    nn = T.nn
    layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.0, norm_first=True,
                                       activation="gelu", batch_first=True)
    dec = _init(T, nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(4)), 98)
    tgt = _t(T, 2, 4, 4, seed=99)
    mem = _t(T, 2, 3, 4, seed=100)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    mkpm = T.tensor([[False, False, True], [False, False, False]])
    out = dec(tgt, mem, tgt_mask=mask, tgt_is_causal=True, memory_key_padding_mask=mkpm)
    tgt2 = tgt.clone()
    tgt2[:, 2:] += 5.0
    out2 = dec(tgt2, mem, tgt_mask=mask, tgt_is_causal=True, memory_key_padding_mask=mkpm)
    opt = T.optim.SGD(dec.parameters(), lr=0.05)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    dec.eval()
    with T.no_grad():
        ev = dec(tgt, mem, tgt_mask=mask, memory_key_padding_mask=mkpm)
    return [mask, out, bool(T.allclose(out[:, :2], out2[:, :2], atol=1e-5)), loss.item(), ev]


def reinforce_categorical_policy(T):
    """REINFORCE with a Categorical policy over logits: fixed actions and
    returns (no sampling), log_prob and entropy bonus, normalized returns,
    trained with Adam; the policy's probabilities after training."""
    nn = T.nn
    D = T.distributions
    pol = _init(T, nn.Linear(3, 4), 101)
    s = _t(T, 6, 3, seed=102)
    a = _long(T, [0, 3, 1, 1, 2, 3])
    r = T.tensor([1.0, 0.5, -1.0, 2.0, 0.0, 1.5])
    ret = (r - r.mean()) / (r.std() + 1e-8)
    opt = T.optim.Adam(pol.parameters(), lr=0.05)
    losses = []
    for _ in range(3):
        dist = D.Categorical(logits=pol(s))
        loss = -(dist.log_prob(a) * ret).mean() - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, D.Categorical(logits=pol(s)).probs.detach()[:2], ret]


def checkpointed_blocks_non_reentrant(T):
    """Activation checkpointing (use_reentrant=False) of two blocks and
    checkpoint_sequential over a Sequential: the same loss and gradients as
    the plain forward, a kwarg passed through checkpoint."""
    nn = T.nn
    C = T.utils.checkpoint
    net = nn.Sequential(*[_init(T, nn.Linear(4, 4), 103 + k) for k in range(4)])
    x = _t(T, 3, 4, seed=107).requires_grad_()

    def block(h, scale=1.0):
        return T.tanh(net[0](h)) * scale

    plain = (T.tanh(net[0](x)) * 2.0).pow(2).sum()
    plain.backward()
    g_plain = [net[0].weight.grad.clone(), x.grad.clone()]
    net.zero_grad()
    x.grad = None
    ck = C.checkpoint(block, x, scale=2.0, use_reentrant=False).pow(2).sum()
    ck.backward()
    g_ck = [net[0].weight.grad.clone(), x.grad.clone()]
    net.zero_grad()
    seq = C.checkpoint_sequential(net, 2, x, use_reentrant=False).sum()
    seq.backward()
    return [plain.item(), ck.item(), [bool(T.allclose(a, b)) for a, b in zip(g_plain, g_ck)],
            seq.item(), net[3].weight.grad]


# ---- a second pass ------------------------------------------------------------------------------

def packed_sequence_refusals(T):
    """pack_padded_sequence's refusals (unsorted lengths with
    enforce_sorted, a zero length, lengths that are not 1-d), an LSTM
    with proj_size given an h0 of the hidden (not projected) size on a
    padded batch, and pad_packed_sequence's refusal of a short
    total_length.  Left out: a length longer than the input, which
    PyTorch packs by reading past it (torchlike refuses, docs/nn.md), and
    the same wrong h0 with a packed batch, where PyTorch's packed kernel
    speaks of "an incorrect number of RNN parameters" (torchlike checks
    the states' sizes first, as PyTorch does for a padded batch)."""
    nn = T.nn
    R = nn.utils.rnn
    x = T.zeros(4, 3, 2)
    lstm = nn.LSTM(2, 5, proj_size=3)
    packed = R.pack_padded_sequence(x, [4, 2, 1])
    return [_raised(lambda: R.pack_padded_sequence(x, [2, 4, 1])),
            _raised(lambda: R.pack_padded_sequence(x, [4, 0, 1])),
            _raised(lambda: R.pack_padded_sequence(x, T.tensor([[4, 2, 1]]))),
            _raised(lambda: R.pack_padded_sequence(x, [[4.0, 2.0, 1.0]])),
            _raised(lambda: R.pack_padded_sequence(x, T.tensor(3))),
            _raised(lambda: lstm(x, (T.zeros(1, 3, 5), T.zeros(1, 3, 5)))),
            _raised(lambda: lstm(x, (T.zeros(1, 3, 3), T.zeros(1, 3, 3)))),
            _raised(lambda: R.pad_packed_sequence(packed, total_length=2)),
            [list(t.shape) for t in lstm(packed, (T.zeros(1, 3, 3), T.zeros(1, 3, 5)))[1]]]


def embedding_bag_ctc_refusals(T):
    """EmbeddingBag's refusals (offsets not starting at zero, 2-d input
    with offsets, per_sample_weights of another shape, mode unknown) and
    CTC loss's (an input length beyond the time axis, a target length
    beyond the targets, log_probs of two dims)."""
    nn = T.nn
    F = nn.functional
    bag = nn.EmbeddingBag(5, 2)
    ids = T.tensor([0, 1, 2, 3])
    lp = T.zeros(4, 2, 3).log_softmax(2)
    tg = T.tensor([[1, 2], [1, 1]])
    return [_raised(lambda: bag(ids, T.tensor([1, 2]))),
            _raised(lambda: bag(ids.view(2, 2), T.tensor([0, 1]))),
            _raised(lambda: bag(ids, T.tensor([0, 2]), per_sample_weights=T.ones(3))),
            _raised(lambda: nn.EmbeddingBag(5, 2, mode="median")),
            _raised(lambda: F.ctc_loss(lp, tg, T.tensor([5, 4]), T.tensor([2, 2]))),
            _raised(lambda: F.ctc_loss(lp, tg, T.tensor([4, 4]), T.tensor([3, 2]))),
            F.ctc_loss(lp, tg, (4, 3), (2, 1), reduction="none"),
            F.ctc_loss(lp[:, 0], tg[0], T.tensor(4), T.tensor(2))]


def conv_padding_forms_and_refusals(T):
    """Conv2d with padding='valid', an asymmetric tuple, circular padding
    of a tuple (2, 1), reflect padding on a Conv3d; ConvTranspose2d's
    refusal of a non-zeros padding mode; grouped convolutions' refusals
    of weight/input channel mismatches."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 1, 2, 5, 6, seed=110)
    out = []
    for kw in ({"padding": "valid"}, {"padding": (2, 0)},
               {"padding": (2, 1), "padding_mode": "circular"},
               {"padding": 1, "padding_mode": "replicate", "dilation": (2, 1)}):
        conv = _init(T, nn.Conv2d(2, 2, 3, **kw), 111)
        y = conv(x)
        out.append([list(y.shape), y[0, 1, 0]])
    c3 = _init(T, nn.Conv3d(1, 1, 2, padding=1, padding_mode="reflect"), 112)
    out.append(c3(_t(T, 1, 1, 3, 3, 3, seed=113))[0, 0, 0])
    out.append(_raised(lambda: nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")))
    out.append(_raised(lambda: F.conv2d(x, T.zeros(4, 2, 3, 3), groups=2)))
    out.append(_raised(lambda: F.conv1d(T.zeros(1, 4, 5), T.zeros(2, 4, 3), groups=2)))
    # (an unknown padding string is left out: PyTorch prints a set of two
    # strings, whose order changes with the interpreter's string hashing)
    return out


def lazy_modules_training(T):
    """LazyLinear and LazyConv1d inferring their sizes at the first call,
    initialized then overwritten from NumPy, trained with SGD; their
    state dicts' shapes; a lazy module's state dict loaded before the
    first call (materialized from the checkpoint)."""
    nn = T.nn
    net = nn.Sequential(nn.LazyConv1d(3, 2), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
    x, y = _t(T, 4, 2, 6, seed=114), _t(T, 4, 2, seed=115)
    net(x)
    _init(T, net, 116)
    opt = T.optim.SGD(net.parameters(), lr=0.05)
    losses = _fit(T, net, opt, x, y, steps=3)
    sd = net.state_dict()
    fresh = nn.Sequential(nn.LazyConv1d(3, 2), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
    fresh.load_state_dict(sd)
    return [losses, {k: list(v.shape) for k, v in sd.items()}, type(net[3]).__name__,
            bool(T.allclose(fresh(x), net(x))), type(fresh[0]).__name__]


def grad_scaler_cpu_skips_inf(T):
    """torch.amp.GradScaler on the CPU: the loss scaled, unscale_ before
    clipping, a step skipped when a gradient is inf (the scale backed off)
    and growth after growth_interval good steps; the scale's trace."""
    nn = T.nn
    net = _mlp(T, 117)
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    scaler = T.amp.GradScaler("cpu", init_scale=256.0, growth_factor=2.0, backoff_factor=0.25,
                              growth_interval=2)
    x, y = _t(T, 4, 4, seed=118), _t(T, 4, 2, seed=119)
    scales, losses, bias = [], [], []
    for step in range(5):
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        scaler.scale(loss).backward()
        if step == 1:
            net[0].bias.grad[0] = float("inf")
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
        losses.append(loss.item())
        bias.append(net[0].bias[0].item())
    return [scales, losses, bias, scaler.state_dict()["_growth_tracker"],
            sorted(scaler.state_dict())]


def distributed_sampler_shards(T):
    """DistributedSampler without shuffling over 10 items for 3 replicas
    (padded by repeating, each rank's indices) and with drop_last; its
    set_epoch under shuffle keeps each epoch a partition of the padded
    set; refusals of a rank out of range."""
    D = T.utils.data
    ds = list(range(10))
    plain = [list(D.DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    drop = [list(D.DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False, drop_last=True))
            for r in range(3)]
    parts = []
    for epoch in (0, 1):
        ss = [D.DistributedSampler(ds, num_replicas=3, rank=r, shuffle=True, seed=4) for r in range(3)]
        for s in ss:
            s.set_epoch(epoch)
        parts.append(sorted(i for s in ss for i in s))
    return [plain, drop, parts[0] == parts[1], len(parts[0]),
            len(D.DistributedSampler(ds, num_replicas=3, rank=0)),
            _raised(lambda: D.DistributedSampler(ds, num_replicas=3, rank=3)),
            _raised(lambda: D.DistributedSampler(ds, num_replicas=3, rank=-1))]


def collate_namedtuples_and_nesting(T):
    """default_collate of namedtuples (the type kept), of nested lists of
    tensors (transposed), of tuples of dicts; a DataLoader over such
    samples; its refusal of lists of unequal lengths."""
    import collections
    D = T.utils.data
    P = collections.namedtuple("P", ["x", "y"])
    a = D.default_collate([P(T.ones(2), 1), P(T.zeros(2), 2)])
    nest = D.default_collate([[T.tensor([1, 2]), [T.tensor(3.0)]], [T.tensor([4, 5]), [T.tensor(6.0)]]])
    td = D.default_collate([({"a": 1.5},), ({"a": 2.5},)])
    dl = list(D.DataLoader([P(T.full((2,), float(i)), i) for i in range(5)], batch_size=2))
    return [type(a).__name__, a.x, a.y, nest, td, [type(b).__name__ for b in dl], dl[-1].x,
            _raised(lambda: D.default_collate([[1, 2], [3]]))]


def classification_losses_extras(T):
    """BCEWithLogitsLoss with pos_weight per class and weight per sample,
    KL divergence with log_target and batchmean, MultiLabelSoftMarginLoss
    with class weights, TripletMarginWithDistanceLoss with a cosine
    distance and swap, cosine similarity and pairwise distance options;
    their gradients through a small encoder trained by Adam."""
    nn = T.nn
    F = nn.functional
    enc = _init(T, nn.Linear(4, 3), 120)
    x = _t(T, 6, 4, seed=121)
    y = (_t(T, 6, 3, seed=122) > 0).float()
    bce = nn.BCEWithLogitsLoss(pos_weight=T.tensor([1.0, 2.0, 0.5]), weight=T.tensor([[1.0], [2.0], [1.0],
                                                                                      [0.5], [1.0], [1.0]]))
    mlsm = nn.MultiLabelSoftMarginLoss(weight=T.tensor([1.0, 0.5, 2.0]))
    trip = nn.TripletMarginWithDistanceLoss(
        distance_function=lambda a, b: 1.0 - F.cosine_similarity(a, b), margin=0.5, swap=True)
    opt = T.optim.Adam(enc.parameters(), lr=0.02)
    losses = []
    for _ in range(3):
        h = enc(x)
        kl = F.kl_div(h.log_softmax(1), _t(T, 6, 3, seed=123).log_softmax(1), reduction="batchmean",
                      log_target=True)
        loss = bce(h, y) + mlsm(h, y) + trip(h[:2], h[2:4], h[4:]) + kl
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    h = enc(x).detach()
    return [losses, F.cosine_similarity(h[:3], h[3:], dim=1, eps=1e-3),
            F.pairwise_distance(h[:3], h[3:], p=1.0, keepdim=True), nn.PairwiseDistance(p=3.0)(h[:2], h[1:3])]


def pooling_options(T):
    """AvgPool2d with ceil_mode, count_include_pad=False and
    divisor_override; MaxPool1d with dilation, ceil_mode and indices;
    LPPool1d/2d; AdaptiveAvgPool1d to a size that does not divide; their
    gradients."""
    nn = T.nn
    x = _t(T, 1, 2, 5, 5, seed=124).requires_grad_()
    a = nn.AvgPool2d(2, stride=2, padding=1, ceil_mode=True, count_include_pad=False)(x)
    b = nn.AvgPool2d(3, stride=2, divisor_override=2)(x)
    s = _t(T, 1, 2, 9, seed=125).requires_grad_()
    m, i = nn.MaxPool1d(3, stride=2, dilation=2, ceil_mode=True, return_indices=True)(s)
    lp1 = nn.LPPool1d(2, 3, stride=2)(s)
    lp2 = nn.LPPool2d(1.5, 2)(x.abs())
    ad = nn.AdaptiveAvgPool1d(4)(s)
    (a.sum() + b.sum() + lp2.sum()).backward()
    (m.sum() + lp1.sum() + ad.pow(2).sum()).backward()
    return [a, b, m, i, lp1, lp2, ad, x.grad[0, 0], s.grad]


def activations_zoo_training(T):
    """A network mixing the rarer activations (GLU, Softmin, Hardshrink,
    Softshrink, Tanhshrink, Threshold, CELU, SELU, Mish, Hardswish,
    LogSigmoid, RReLU in eval) trained by SGD; the outputs of each on a
    fixed input."""
    nn = T.nn
    acts = [nn.Softmin(dim=1), nn.Hardshrink(0.3), nn.Softshrink(0.2), nn.Tanhshrink(),
            nn.Threshold(0.1, -1.0), nn.CELU(0.7), nn.SELU(), nn.Mish(), nn.Hardswish(),
            nn.LogSigmoid(), nn.RReLU(0.1, 0.3).eval()]
    z = _t(T, 2, 4, seed=126)
    outs = [a(z) for a in acts]
    net = nn.Sequential(_init(T, nn.Linear(4, 8), 127), nn.GLU(), nn.Mish(),
                        _init(T, nn.Linear(4, 4), 128), nn.CELU(0.5), nn.Hardswish(),
                        _init(T, nn.Linear(4, 2), 129), nn.SELU())
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    losses = _fit(T, net, opt, _t(T, 5, 4, seed=130), _t(T, 5, 2, seed=131), steps=3)
    return [outs, losses, nn.GLU(dim=0)(z), _raised(lambda: nn.GLU()(T.zeros(2, 3)))]


def lbfgs_strong_wolfe(T):
    """LBFGS with the strong Wolfe line search minimizing a least-squares
    problem (closure), its loss trace, history size 3; and without a line
    search, max_iter 5; the state's func_evals and n_iter."""
    x = _t(T, 8, 3, seed=132)
    y = x @ T.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    out = []
    for ls in ("strong_wolfe", None):
        lin = _init(T, T.nn.Linear(3, 1), 133)
        opt = T.optim.LBFGS(lin.parameters(), lr=1 if ls else 0.3, max_iter=5, history_size=3,
                            line_search_fn=ls)
        trace = []

        def closure():
            opt.zero_grad()
            loss = T.nn.functional.mse_loss(lin(x), y)
            loss.backward()
            return loss
        for _ in range(2):
            trace.append(opt.step(closure).item())
        st = opt.state[opt._params[0]]
        out.append([trace, st["func_evals"], st["n_iter"], lin.bias.detach()])
    return out


def sparse_embedding_sparse_adam(T):
    """An Embedding with sparse=True (its gradient a sparse COO tensor of
    the looked-up rows) trained by SparseAdam beside a dense head by Adam;
    untouched rows keep their values.  (SparseAdam of a dense gradient,
    which PyTorch refuses, torchlike steps by design: docs/optim.md.)"""
    nn = T.nn
    emb = _init(T, nn.Embedding(6, 3, sparse=True), 134)
    head = _init(T, nn.Linear(3, 1), 135)
    ids = _long(T, [[0, 2], [2, 4]])
    y = T.tensor([[1.0], [-1.0]])
    o1 = T.optim.SparseAdam(emb.parameters(), lr=0.1)
    o2 = T.optim.Adam(head.parameters(), lr=0.1)
    w0 = emb.weight.detach().clone()
    losses = []
    for _ in range(3):
        o1.zero_grad()
        o2.zero_grad()
        loss = nn.functional.mse_loss(head(emb(ids).mean(1)), y)
        loss.backward()
        g = emb.weight.grad
        o1.step()
        o2.step()
        losses.append(loss.item())
    return [losses, g.is_sparse, g.coalesce().indices(), bool(T.equal(emb.weight[1], w0[1])),
            bool(T.equal(emb.weight[0], w0[0])), emb.weight.detach()]


def fuse_conv_bn_and_module_surgery(T):
    """fuse_conv_bn_eval of a trained conv and batch norm against the two
    in eval mode; get_submodule/set_submodule replacing a layer; apply()
    with an init function; requires_grad_(False) on a block and
    zero_grad(set_to_none=False)."""
    nn = T.nn
    U = nn.utils
    conv = _init(T, nn.Conv2d(2, 3, 3, padding=1), 136)
    bn = nn.BatchNorm2d(3)
    x = _t(T, 2, 2, 4, 4, seed=137)
    for k in range(2):
        bn(conv(x + k))
    conv.eval()
    bn.eval()
    fused = U.fuse_conv_bn_eval(conv, bn)
    same = bool(T.allclose(fused(x), bn(conv(x)), atol=1e-5))
    net = nn.Sequential(nn.Sequential(nn.Linear(2, 3), nn.ReLU()), nn.Linear(3, 1))
    net.set_submodule("0.1", nn.Tanh())
    names = [type(net.get_submodule(n)).__name__ for n in ("0", "0.0", "0.1", "1")]

    def init(m):
        if isinstance(m, nn.Linear):
            with T.no_grad():
                m.weight.fill_(0.1)
                m.bias.zero_()
    net.apply(init)
    net[0].requires_grad_(False)
    net(T.ones(2, 2)).sum().backward()
    net.zero_grad(set_to_none=False)
    return [same, fused.weight.shape, names, [p.requires_grad for p in net.parameters()],
            net[1].weight.grad, net[0][0].weight.grad, net(T.ones(1, 2)),
            _raised(lambda: net.get_submodule("0.5"))]


def adafactor_and_foreach_parity(T):
    """Adafactor (factored second moments on a matrix, unfactored on a
    vector) trained a few steps; Adam with foreach True and False giving
    the same parameters; Adam's refusal of fused and foreach together."""
    net = _mlp(T, 138)
    x, y = _t(T, 5, 4, seed=139), _t(T, 5, 2, seed=140)
    opt = T.optim.Adafactor(net.parameters(), lr=0.05)
    losses = _fit(T, net, opt, x, y, steps=3)
    st = opt.state[net[0].weight]
    ps = []
    for fe in (True, False):
        n2 = _mlp(T, 141)
        _fit(T, n2, T.optim.Adam(n2.parameters(), lr=0.05, foreach=fe, weight_decay=0.1), x, y, steps=3)
        ps.append(n2[0].weight.detach())
    return [losses, sorted(st), list(st["row_var"].shape), list(st["col_var"].shape),
            bool(T.allclose(ps[0], ps[1])),
            _raised(lambda: T.optim.Adam(net.parameters(), fused=True, foreach=True))]


def transformer_full_model(T):
    """nn.Transformer (one encoder and one decoder layer, batch_first) with
    src/tgt key padding masks and a causal mask, a step of training, then
    eval under no_grad; the output at padded source positions does not
    change with their contents."""
    nn = T.nn
    model = _init(T, nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                    dim_feedforward=6, dropout=0.0, batch_first=True), 142, scale=0.2)
    src = _t(T, 2, 5, 4, seed=143)
    tgt = _t(T, 2, 3, 4, seed=144)
    skpm = T.tensor([[False, False, False, True, True], [False] * 5])
    tmask = model.generate_square_subsequent_mask(3)
    out = model(src, tgt, tgt_mask=tmask, src_key_padding_mask=skpm,
                memory_key_padding_mask=skpm)
    loss = out.pow(2).mean()
    loss.backward()
    T.optim.SGD(model.parameters(), lr=0.1).step()
    model.eval()
    with T.no_grad():
        e1 = model(src, tgt, tgt_mask=tmask, src_key_padding_mask=skpm, memory_key_padding_mask=skpm)
        src2 = src.clone()
        src2[0, 3:] = 9.0
        e2 = model(src2, tgt, tgt_mask=tmask, src_key_padding_mask=skpm, memory_key_padding_mask=skpm)
    return [out, loss.item(), e1, bool(T.allclose(e1, e2, atol=1e-5))]


def swalr_and_cosine_resume(T):
    """SWALR annealing linearly to swa_lr over anneal_epochs after a
    cosine phase; CosineAnnealingLR resumed with last_epoch (initial_lr
    taken from the groups, refused when missing)."""
    S = T.optim.lr_scheduler
    U = T.optim.swa_utils
    p = [T.zeros(1, requires_grad=True)]
    opt = T.optim.SGD(p, lr=1.0)
    sw = U.SWALR(opt, swa_lr=0.1, anneal_epochs=3, anneal_strategy="linear")
    tr = []
    for _ in range(5):
        opt.step()
        sw.step()
        tr.append(round(opt.param_groups[0]["lr"], 10))
    o2 = T.optim.SGD(p, lr=1.0)
    c = S.CosineAnnealingLR(o2, T_max=6)
    for _ in range(2):
        o2.step()
        c.step()
    o3 = T.optim.SGD(p, lr=1.0)
    return [tr, round(o2.param_groups[0]["lr"], 10),
            _raised(lambda: S.CosineAnnealingLR(o3, T_max=6, last_epoch=2)),
            _raised(lambda: U.SWALR(opt, swa_lr=0.1, anneal_strategy="exp"))]


# ---- a third pass -------------------------------------------------------------------------------

def same_padding_even_kernels(T):
    """padding='same' with even kernels (PyTorch pads the extra element on
    the right): Conv1d with kernel 4 and dilation 1 and 3, Conv2d with a
    (4, 3) kernel and dilation (1, 2), each trained a step; the outputs
    against an explicit asymmetric F.pad then a valid convolution."""
    nn = T.nn
    F = nn.functional
    x1 = _t(T, 2, 2, 7, seed=150)
    out = []
    for dil in (1, 3):
        conv = _init(T, nn.Conv1d(2, 3, 4, dilation=dil, padding="same"), 151)
        total = dil * 3
        ref = F.conv1d(F.pad(x1, (total // 2, total - total // 2)), conv.weight, conv.bias,
                       dilation=dil)
        y = conv(x1)
        out.append([list(y.shape), bool(T.allclose(y, ref, atol=1e-6)), y[0, 0]])
        y.pow(2).mean().backward()
        out.append(conv.weight.grad[0, 0])
    c2 = _init(T, nn.Conv2d(1, 2, (4, 3), dilation=(1, 2), padding="same"), 152)
    x2 = _t(T, 1, 1, 5, 6, seed=153)
    ref2 = F.conv2d(F.pad(x2, (2, 2, 1, 2)), c2.weight, c2.bias, dilation=(1, 2))
    y2 = c2(x2)
    out.append([list(y2.shape), bool(T.allclose(y2, ref2, atol=1e-6)), y2[0, 1, :, 0]])
    return out


def conv_transpose_functional_groups(T):
    """F.conv_transpose2d and ConvTranspose3d with groups, dilation,
    output_padding and padding together, their gradients against the
    input, and the transpose as the adjoint of F.conv2d with the same
    arguments."""
    F = T.nn.functional
    w = _t(T, 4, 1, 3, 2, seed=154)
    x = _t(T, 1, 4, 3, 4, seed=155).requires_grad_()
    y = F.conv_transpose2d(x, w, stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2,
                           dilation=(2, 1))
    r = _t(T, *y.shape, seed=156)
    (y * r).sum().backward()
    adj = F.conv2d(r, w, stride=(2, 3), padding=(1, 0), groups=2, dilation=(2, 1))
    ct3 = _init(T, T.nn.ConvTranspose3d(4, 2, 2, stride=2, groups=2, output_padding=1, dilation=1), 157)
    v = _t(T, 1, 4, 2, 2, 2, seed=158)
    o3 = ct3(v)
    return [list(y.shape), y[0, 1, 0], bool(T.allclose(x.grad, adj, atol=1e-5)), list(o3.shape),
            o3[0, 1, 0, 0]]


def rnn_unbatched_and_biasless(T):
    """LSTM with proj_size on an unbatched (2-d) input with an unbatched
    state, against the batched call; a two-layer bias-free LSTM over a
    packed batch with the gradient reaching the padded input; a
    bidirectional GRU's h_n layout (layer-major, direction-minor)."""
    nn = T.nn
    R = nn.utils.rnn
    lstm = _init(T, nn.LSTM(3, 4, proj_size=2), 159)
    x = _t(T, 5, 3, seed=160)
    h0, c0 = _t(T, 1, 2, seed=161), _t(T, 1, 4, seed=162)
    o, (h, c) = lstm(x, (h0, c0))
    ob, (hb, cb) = lstm(x[:, None], (h0[:, None], c0[:, None]))
    nb = _init(T, nn.LSTM(2, 3, num_layers=2, bias=False, batch_first=True), 163)
    xp = _t(T, 3, 4, 2, seed=164).requires_grad_()
    out, _ = nb(R.pack_padded_sequence(xp, [4, 1, 3], batch_first=True, enforce_sorted=False))
    R.pad_packed_sequence(out, batch_first=True)[0].sum().backward()
    gru = _init(T, nn.GRU(2, 3, num_layers=2, bidirectional=True), 165)
    go, gh = gru(_t(T, 4, 1, 2, seed=166))
    return [o, h, c, bool(T.allclose(o, ob[:, 0], atol=1e-6)), xp.grad[1], list(gh.shape),
            bool(T.allclose(gh[2], go[-1, :, :3], atol=1e-6)),
            bool(T.allclose(gh[3], go[0, :, 3:], atol=1e-6))]


def functional_embedding_bag_ctc_dtypes(T):
    """F.embedding_bag with per_sample_weights and padding_idx (the
    functional form), its gradient against the weight; ctc_loss in
    float64 with int32 targets and lengths given as lists and tuples; the
    gradient of a zero_infinity batch where one sample is impossible."""
    F = T.nn.functional
    w = _t(T, 6, 3, seed=167).requires_grad_()
    ids = _long(T, [1, 0, 3, 3, 5, 2])
    o = F.embedding_bag(ids, w, _long(T, [0, 2, 2]), mode="sum",
                        per_sample_weights=_t(T, 6, seed=168), padding_idx=3)
    o.pow(2).sum().backward()
    lp = _t(T, 6, 2, 4, seed=169).double().log_softmax(2).requires_grad_()
    tg = T.tensor([[1, 2, 3], [2, 2, 2]], dtype=T.int32)
    l1 = F.ctc_loss(lp, tg, [6, 4], (3, 3), reduction="none", zero_infinity=True)
    l1.sum().backward()
    return [o, w.grad, l1, lp.grad[:, 1].abs().sum().item(), lp.grad[0, 0]]


def autocast_cpu_op_lists(T):
    """CPU autocast in bfloat16 over a small conv net: conv2d, bmm and
    linear run in bfloat16; the losses (mse, cross entropy) and softmax
    keep or return float32 as PyTorch's CPU lists say; a float16 autocast
    on the CPU; a function decorated with custom_fwd-free autocast(enabled=False)."""
    nn = T.nn
    F = nn.functional
    conv = _init(T, nn.Conv2d(1, 2, 3), 170)
    lin = _init(T, nn.Linear(8, 3), 171)
    x = _t(T, 2, 1, 4, 4, seed=172)
    y = _long(T, [0, 2])
    with T.autocast("cpu", dtype=T.bfloat16):
        h = conv(x)
        z = lin(h.flatten(1))
        b = T.bmm(h.flatten(2), h.flatten(2).transpose(1, 2))
        ce = F.cross_entropy(z, y)
        sm = z.softmax(-1)
        ls = z.log_softmax(-1)
        mse = F.mse_loss(z, T.zeros(2, 3))
        ln = F.layer_norm(z, (3,))
    ce.backward()
    with T.autocast("cpu", dtype=T.float16):
        z16 = lin(h.detach().float().flatten(1))
    return [h.dtype, z.dtype, b.dtype, ce.dtype, sm.dtype, ls.dtype, mse.dtype, ln.dtype,
            z16.dtype, conv.weight.grad.dtype, ce.item(), T.get_autocast_dtype("cpu")]


def checkpoint_shared_and_views(T):
    """torch.save into a BytesIO of a dict holding a parameter, a view of
    it, a buffer-less module's state dict, an int tensor and a slice of a
    float64 tensor: after load the view still shares storage with its
    base, dtypes and strides are kept; weights_only loading of a plain
    dict; loading with map_location='cpu'."""
    nn = T.nn
    base = T.arange(12.0).reshape(3, 4)
    view = base[1:, ::2]
    d64 = T.linspace(0, 1, 9, dtype=T.float64)[2::3]
    lin = _init(T, nn.Linear(2, 2), 173)
    buf = io.BytesIO()
    T.save({"base": base, "view": view, "lin": lin.state_dict(), "ints": T.tensor([1, 2], dtype=T.int16),
            "d64": d64, "meta": {"epoch": 3, "tags": ["a", "b"]}}, buf)
    buf.seek(0)
    ck = T.load(buf, weights_only=True, map_location="cpu")
    ck["base"][1, 0] = 100.0
    return [ck["view"], list(ck["view"].stride()), ck["ints"].dtype, ck["d64"], list(ck["d64"].stride()),
            ck["meta"], sorted(ck["lin"]), ck["lin"]["weight"].requires_grad,
            ck["view"].is_contiguous()]


def scheduler_variants_traces(T):
    """OneCycleLR three-phase linear with SGD momentum cycling, LinearLR
    and ConstantLR in a ChainedScheduler, CosineAnnealingWarmRestarts with
    T_mult=1 stepped without an epoch, and PolynomialLR past total_iters;
    their lr (and momentum) traces."""
    S = T.optim.lr_scheduler
    p = [T.zeros(1, requires_grad=True)]

    def run(opt, sch, n, key="lr"):
        out = []
        for _ in range(n):
            opt.step()
            sch.step()
            out.append(round(opt.param_groups[0][key], 10))
        return out
    o1 = T.optim.SGD(p, lr=0.1, momentum=0.9)
    s1 = S.OneCycleLR(o1, max_lr=1.0, total_steps=10, three_phase=True, anneal_strategy="linear")
    lr1 = [round(o1.param_groups[0]["lr"], 10)]
    mom = [round(o1.param_groups[0]["momentum"], 10)]
    for _ in range(9):
        o1.step()
        s1.step()
        lr1.append(round(o1.param_groups[0]["lr"], 10))
        mom.append(round(o1.param_groups[0]["momentum"], 10))
    o2 = T.optim.SGD(p, lr=1.0)
    ch = S.ChainedScheduler([S.LinearLR(o2, start_factor=0.25, total_iters=3),
                             S.ConstantLR(o2, factor=0.5, total_iters=2)], optimizer=o2)
    o3 = T.optim.SGD(p, lr=1.0)
    o4 = T.optim.SGD(p, lr=1.0)
    return [lr1, mom, run(o2, ch, 5), run(o3, S.CosineAnnealingWarmRestarts(o3, 3, eta_min=0.1), 7),
            run(o4, S.PolynomialLR(o4, total_iters=2, power=0.5), 4)]


def clip_mixed_dtypes_and_values(T):
    """clip_grad_norm_ over float32 and float64 parameters together (the
    norm in the first's dtype), clip_grad_value_ with foreach on and off,
    and clip_grad_norm_ of a single tensor and of a generator consumed
    once."""
    U = T.nn.utils
    a = T.ones(3, requires_grad=True)
    b = T.ones(2, dtype=T.float64, requires_grad=True)
    (a.sum() * 3 + (b * T.tensor([4.0, 12.0], dtype=T.float64)).sum()).backward()
    n = U.clip_grad_norm_([a, b], 2.0)
    ga, gb = a.grad.clone(), b.grad.clone()
    c = T.tensor([0.5, -3.0, 2.0], requires_grad=True)
    c.grad = T.tensor([0.5, -3.0, 2.0])
    U.clip_grad_value_(c, 1.0, foreach=True)
    d = T.tensor([0.5, -3.0, 2.0], requires_grad=True)
    d.grad = T.tensor([0.5, -3.0, 2.0])
    U.clip_grad_value_([d], 1.0, foreach=False)
    e = T.ones(4, requires_grad=True)
    e.grad = T.full((4,), 2.0)
    ne = U.clip_grad_norm_(e, 1.0)
    lin = _mlp(T, 174)
    lin(T.ones(1, 4)).sum().backward()
    ng = U.clip_grad_norm_((q for q in lin.parameters()), 0.5)
    return [n, n.dtype, ga, gb, c.grad, d.grad, ne, e.grad, ng,
            sum(q.grad.pow(2).sum() for q in lin.parameters()).sqrt()]


def loader_batch_none_and_sampler_lists(T):
    """DataLoader with batch_size=None over a dataset whose __getitem__
    takes a list of indices, driven by a BatchSampler passed as sampler
    (the batch built by the dataset itself); a dataset with
    __getitems__ used by the loader; drop_last with a RandomSampler of
    replacement and num_samples."""
    D = T.utils.data

    class Table(D.Dataset):
        def __init__(self):
            self.x = T.arange(10.0)

        def __len__(self):
            return 10

        def __getitem__(self, idx):
            return self.x[idx] * 2

    class Bulk(Table):
        def __getitems__(self, idxs):
            return [self.x[i] + 100 for i in idxs]

    dl = D.DataLoader(Table(), batch_size=None,
                      sampler=D.BatchSampler(D.SequentialSampler(range(10)), 4, drop_last=False))
    bulk = list(D.DataLoader(Bulk(), batch_size=3))
    g = T.Generator().manual_seed(1)
    rs = D.RandomSampler(range(10), replacement=True, num_samples=7, generator=g)
    lens = [len(b) for b in D.DataLoader(Table(), batch_size=3, sampler=rs, drop_last=True)]
    return [list(dl), bulk, lens, len(rs)]


# ---- a fourth pass: empty batches and non-contiguous inputs ------------------------------------

def _outcome(fn):
    """fn()'s tensor result as (shape, values), or what it raised."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return [type(e).__name__, str(e).splitlines()[0]]
    if isinstance(r, tuple):
        return [[list(t.shape), t.detach().tolist()] if hasattr(t, "shape") else t for t in r]
    return [list(r.shape), r.detach().tolist()]


def empty_batch_layers(T):
    """The last batch of an epoch can be empty: layers over a batch of
    zero (Linear, Conv1d/2d, ConvTranspose2d, BatchNorm1d in eval and
    train, LayerNorm, GroupNorm, Embedding, EmbeddingBag with offsets,
    LSTM/GRU batch_first, MultiheadAttention, MaxPool2d, AdaptiveAvgPool2d,
    interpolate, PixelShuffle) and the losses of an empty batch (mean
    reductions NaN, sums zero) with their backward."""
    nn = T.nn
    F = nn.functional
    bn = nn.BatchNorm1d(3)
    bn_eval = nn.BatchNorm1d(3).eval()
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    calls = [
        lambda: nn.Linear(3, 2)(T.zeros(0, 3)),
        lambda: nn.Conv1d(2, 3, 3, padding=1)(T.zeros(0, 2, 5)),
        lambda: nn.Conv2d(2, 3, 3)(T.zeros(0, 2, 5, 5)),
        lambda: nn.ConvTranspose2d(2, 3, 2, stride=2)(T.zeros(0, 2, 3, 3)),
        lambda: bn_eval(T.zeros(0, 3)),
        lambda: bn(T.zeros(0, 3)),
        lambda: nn.LayerNorm(3)(T.zeros(0, 3)),
        lambda: nn.GroupNorm(1, 2)(T.zeros(0, 2, 4)),
        lambda: nn.Embedding(5, 2)(T.zeros(0, 3, dtype=T.int64)),
        lambda: nn.EmbeddingBag(5, 2)(T.zeros(0, dtype=T.int64), T.zeros(0, dtype=T.int64)),
        lambda: nn.LSTM(2, 3, batch_first=True)(T.zeros(0, 4, 2)),
        lambda: nn.GRU(2, 3)(T.zeros(4, 0, 2)),
        lambda: mha(T.zeros(0, 3, 4), T.zeros(0, 3, 4), T.zeros(0, 3, 4)),
        lambda: nn.MaxPool2d(2)(T.zeros(0, 1, 4, 4)),
        lambda: nn.AdaptiveAvgPool2d(2)(T.zeros(0, 1, 4, 4)),
        lambda: F.interpolate(T.zeros(0, 1, 2, 2), scale_factor=2, mode="bilinear"),
        lambda: nn.PixelShuffle(2)(T.zeros(0, 4, 2, 2)),
    ]
    out = [_outcome(c) for c in calls]
    x = T.zeros(0, 3, requires_grad=True)
    losses = [F.cross_entropy(x, T.zeros(0, dtype=T.int64)),
              F.cross_entropy(x, T.zeros(0, dtype=T.int64), reduction="sum"),
              F.mse_loss(x, T.zeros(0, 3)), F.l1_loss(x, T.zeros(0, 3), reduction="sum"),
              F.nll_loss(x, T.zeros(0, dtype=T.int64)),
              F.binary_cross_entropy_with_logits(x, T.zeros(0, 3)),
              F.smooth_l1_loss(x, T.zeros(0, 3)), F.kl_div(x, T.zeros(0, 3), reduction="batchmean")]
    sum(l for l in losses[1:2] + losses[3:4]).backward()
    return [out, [l.item() for l in losses], list(x.grad.shape)]


def non_contiguous_inputs(T):
    """Layers fed transposed, sliced and expanded inputs (what a permute
    or a stride leaves): Linear over a transposed batch, Conv2d over a
    channels-last permute, LSTM over a time-reversed slice, LayerNorm over
    an expanded tensor, embedding indices from a strided slice; each
    against the same layer on a contiguous copy (within rounding), and a
    backward through them."""
    nn = T.nn
    base = _t(T, 4, 6, seed=180)
    lin = _init(T, nn.Linear(4, 3), 181)
    conv = _init(T, nn.Conv2d(3, 2, 2), 182)
    lstm = _init(T, nn.LSTM(3, 2), 183)
    ln = _init(T, nn.LayerNorm(3), 184)
    emb = _init(T, nn.Embedding(10, 2), 185)
    xt = base.t()
    img = _t(T, 2, 5, 5, 3, seed=186).permute(0, 3, 1, 2)
    seq = _t(T, 8, 2, 3, seed=187).flip(0)[::2]
    ex = _t(T, 1, 3, seed=188).expand(4, 3)
    ids = _long(T, np.arange(20) % 10)[1::3]
    r = [lin(xt), conv(img), lstm(seq)[0], ln(ex), emb(ids)]
    c = [lin(xt.contiguous()), conv(img.contiguous()), lstm(seq.contiguous())[0], ln(ex.contiguous()),
         emb(ids.contiguous())]
    total = sum(t.sum() for t in r)
    total.backward()
    # (close, not equal: PyTorch's channels-last convolution sums in another order)
    return [[bool(T.allclose(a, b, atol=1e-6)) for a, b in zip(r, c)], r[1][0, 0], r[2][-1], total.item(),
            lin.weight.grad, conv.weight.grad[0, 0]]


# ---- a fifth pass: gradients where the derivative is a choice ---------------------------------

def _grad_at(T, fn, values, dtype=None):
    x = T.tensor(values, dtype=dtype or T.float32, requires_grad=True)
    fn(x).sum().backward()
    return x.grad


def kink_gradients(T):
    """The gradients PyTorch picks at the kinks of piecewise activations
    (a custom activation's training can sit exactly there: a ReLU6 whose
    input is clamped to 6, a hard sigmoid at +-3): relu, relu6, hardtanh,
    hardsigmoid, hardswish, leaky_relu, elu, celu, selu, threshold,
    softshrink, hardshrink, clamp and abs at their breakpoints."""
    F = T.nn.functional
    fns = [
        (F.relu, [-1.0, 0.0, 1.0]), (F.relu6, [0.0, 6.0, 3.0]),
        (lambda v: F.hardtanh(v, -1.0, 1.0), [-1.0, 1.0, 0.0]),
        (F.hardsigmoid, [-3.0, 3.0, 0.0]), (F.hardswish, [-3.0, 3.0, 0.0]),
        (lambda v: F.leaky_relu(v, 0.1), [0.0, -1.0]), (F.elu, [0.0, -1.0]),
        (lambda v: F.celu(v, 0.5), [0.0]), (F.selu, [0.0]),
        (lambda v: F.threshold(v, 1.0, -2.0), [1.0, 0.5, 2.0]),
        (lambda v: F.softshrink(v, 0.5), [0.5, -0.5, 0.0]),
        (lambda v: F.hardshrink(v, 0.5), [0.5, -0.5, 0.7]),
        (lambda v: v.clamp(-1.0, 1.0), [-1.0, 1.0, 0.0]),
        (lambda v: v.clamp(min=0.0), [0.0]), (T.abs, [0.0, -2.0]),
        (lambda v: T.clamp(v, T.tensor([0.0, 1.0]), T.tensor([0.0, 2.0])), [0.0, 2.0]),
        (F.silu, [0.0]), (lambda v: F.softplus(v, beta=2.0, threshold=1.0), [0.5, 0.4, 0.6]),
    ]
    return [_grad_at(T, f, v) for f, v in fns]


def tie_and_zero_gradients(T):
    """Gradients through ties and zeros: max/min/amax/amin over ties (one
    winner or shared), max along a dim with ties, median and topk among
    equal values, sort of equal values, prod and cumprod with
    one and with two zeros, norm and std at zero, sqrt at zero, pow with a
    zero base, dist and cdist at zero distance, logsumexp of all -inf,
    and where() masking a NaN branch."""
    v = [1.0, 3.0, 3.0, 2.0]
    out = [
        _grad_at(T, lambda x: x.max(), v), _grad_at(T, lambda x: x.min(), [2.0, 1.0, 1.0]),
        _grad_at(T, lambda x: x.amax(), v), _grad_at(T, lambda x: x.amin(), [2.0, 1.0, 1.0]),
        _grad_at(T, lambda x: x.view(2, 2).max(dim=1).values, [3.0, 3.0, 1.0, 1.0]),
        _grad_at(T, lambda x: x.median(), [2.0, 2.0, 2.0, 5.0]),
        _grad_at(T, lambda x: x.topk(2).values * T.tensor([1.0, 10.0]), [1.0, 3.0, 3.0]),
        _grad_at(T, lambda x: x.sort().values * T.arange(4.0), [3.0, 1.0, 3.0, 1.0]),
        _grad_at(T, lambda x: x.prod(), [2.0, 0.0, 3.0]),
        _grad_at(T, lambda x: x.prod(), [0.0, 0.0, 3.0]),
        _grad_at(T, lambda x: x.cumprod(0), [2.0, 0.0, 3.0, 4.0]),
        _grad_at(T, lambda x: x.norm(), [0.0, 0.0]),
        _grad_at(T, lambda x: x.std(), [1.0, 1.0, 1.0]),
        _grad_at(T, lambda x: x.sqrt(), [0.0, 4.0]),
        _grad_at(T, lambda x: x.pow(2.0), [0.0]), _grad_at(T, lambda x: x.pow(0.5), [0.0]),
        _grad_at(T, lambda x: x.pow(0.0), [0.0, 2.0]),
        _grad_at(T, lambda x: T.dist(x, T.ones(2)), [1.0, 1.0]),
        _grad_at(T, lambda x: T.cdist(x.view(1, 2), T.ones(1, 2)), [1.0, 1.0]),
        _grad_at(T, lambda x: T.logsumexp(x, 0), [float("-inf"), float("-inf")]),
        _grad_at(T, lambda x: T.where(x > 0, x.log(), T.zeros(())), [0.0, 2.0, -1.0]),
        _grad_at(T, lambda x: T.atan2(x, T.zeros(2)), [0.0, 1.0]),
        _grad_at(T, lambda x: x.softmax(0), [float("-inf"), 0.0, 1.0]),
    ]
    return out


def kthvalue_ties(T):
    """kthvalue among equal values: which index (so which input the
    gradient reaches) PyTorch's CPU quickselect leaves at position k;
    torchlike takes the k-th of a stable sort."""
    out = []
    for v, k in (([2.0, 2.0, 2.0], 2), ([1.0, 2.0, 2.0, 2.0, 0.0], 3), ([3.0, 1.0, 3.0, 1.0], 3)):
        r = T.tensor(v).kthvalue(k)
        out.append([r.values.item(), r.indices.item(),
                    _grad_at(T, lambda x: x.kthvalue(k).values, v)])
    return out


def topk_ties(T):
    """topk among equal values (a top-2 accuracy over scores with ties, a
    beam of equal log-probabilities): which indices PyTorch's CPU kernel
    returns, and the gradient they route; torchlike returns the earliest
    of equal values first (a stable order)."""
    out = []
    for v, k in (([1.0, 2.0, 2.0, 2.0, 0.0], 2), ([5.0, 5.0, 1.0, 5.0, 5.0, 1.0], 2),
                 ([1.0, 3.0, 3.0, 1.0, 3.0, 2.0, 2.0, 2.0], 3)):
        r = T.tensor(v).topk(k)
        out.append([r.indices.tolist(), _grad_at(T, lambda x: x.topk(k).values * T.arange(1.0, k + 1), v)])
    return out


def tied_max_pool_and_unique(T):
    """Max pooling over windows of equal values (the gradient goes to one
    position per window, which PyTorch picks), adaptive max pooling with
    ties, max_pool1d with overlapping windows that share a maximum, and
    F.embedding with repeated indices summing their gradients."""
    F = T.nn.functional
    x = T.ones(1, 1, 4, 4, requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    y = T.tensor([[[1.0, 3.0, 3.0, 1.0, 3.0]]], requires_grad=True)
    F.max_pool1d(y, 3, stride=1).sum().backward()
    z = T.zeros(1, 1, 3, 3, requires_grad=True)
    F.adaptive_max_pool2d(z, 2).sum().backward()
    w = T.zeros(4, 2, requires_grad=True)
    F.embedding(T.tensor([1, 3, 1, 1]), w).sum().backward()
    return [x.grad, y.grad, z.grad, w.grad]


# ---- a sixth pass: what a probe of rarer functional calls found -------------------------------

def functional_corners_found(T):
    """The calls a probe of rarer functional forms found answering
    otherwise: pad_sequence of sequences of two dtypes (the first's
    kept), ctc_loss with float targets (read as int64) and with half
    log_probs on the CPU (refused), softmax of integers (the kernel
    named), a too-small 1-d transposed convolution, celu with alpha 0,
    rrelu with its bounds the wrong way round, EmbeddingBag's and the
    functional embedding_bag's padding_idx refusals."""
    nn = T.nn
    F = nn.functional
    R = nn.utils.rnn
    lp = _t(T, 4, 2, 3, seed=190).log_softmax(2)
    return [R.pad_sequence([T.ones(2), T.full((3,), 1 / 3, dtype=T.float64)]),
            R.pad_sequence([T.tensor([1, 2]), T.tensor([0.5])], batch_first=True, padding_value=7),
            F.ctc_loss(lp, T.tensor([[1.7, 1.0], [2.0, 1.0]]), [4, 3], [2, 2]),
            _raised(lambda: F.ctc_loss(lp.half(), T.tensor([[1, 1], [2, 1]]), [4, 3], [2, 2])),
            _raised(lambda: F.softmax(T.tensor([[1, 2]]), 0)),
            _raised(lambda: F.log_softmax(T.tensor([1, 2]), 0)),
            _raised(lambda: F.softmax(T.tensor([1.0]), 0, dtype=T.int32)),
            _raised(lambda: F.conv_transpose1d(T.ones(1, 4, 3), T.ones(4, 1, 2), padding=5)),
            _raised(lambda: F.celu(T.tensor([-1.0]), alpha=0.0)),
            _raised(lambda: F.rrelu(T.tensor([-1.0, 1.0]), lower=0.5, upper=0.2)),
            _raised(lambda: nn.EmbeddingBag(4, 2, padding_idx=5)),
            _raised(lambda: F.embedding_bag(T.tensor([1]), T.zeros(4, 2), T.tensor([0]), padding_idx=4))]


def loss_and_pool_refusals_found(T):
    """A second probe's findings: a negative label_smoothing (no smoothing
    in PyTorch), the triplet losses' margin refusals, one_hot of an empty
    tensor without a class count, fractional max pooling's size checks
    (the 3-d one strict), max_unpool1d's invalid index."""
    nn = T.nn
    F = nn.functional
    x = _t(T, 2, 3, seed=191)
    a = T.zeros(2, 3)
    return [F.cross_entropy(x, _long(T, [0, 2]), label_smoothing=-0.1),
            F.cross_entropy(x, x.softmax(1), label_smoothing=-0.5),
            _raised(lambda: F.cross_entropy(x, _long(T, [0, 2]), label_smoothing=1.5)),
            _raised(lambda: F.triplet_margin_loss(a, a, T.zeros(2, 4), margin=0.0)),
            _raised(lambda: F.triplet_margin_with_distance_loss(a, a, a, margin=-1.0)),
            _raised(lambda: nn.TripletMarginWithDistanceLoss(margin=-1.0)),
            _raised(lambda: F.one_hot(T.zeros(0, dtype=T.int64))),
            list(F.one_hot(T.zeros(0, dtype=T.int64), 3).shape),
            _raised(lambda: F.fractional_max_pool2d(T.ones(1, 1, 4, 6), 2, output_size=(3, 6))),
            _raised(lambda: F.fractional_max_pool3d(T.ones(1, 1, 4, 4, 4), 2, output_size=(3, 3, 3))),
            _raised(lambda: F.fractional_max_pool3d(T.ones(1, 1, 5, 4, 4), 2, output_size=(3, 4, 3))),
            _raised(lambda: F.max_unpool1d(T.ones(1, 1, 2), T.tensor([[[0, 9]]]), 2))]


def inputs(T):
    return {"T": T, **{name: globals()[name] for name in _PROGRAMS}}


_PROGRAMS = [name for name, f in list(globals().items())
             if callable(f) and getattr(f, "__module__", None) == __name__
             and not name.startswith("_") and name not in ("inputs", "describe", "main",
                                                            "record")]
CALLS = [name + "(T)" for name in _PROGRAMS]


def main():
    record(CALLS, inputs, describe, "training_programs12", messages=True)


if __name__ == "__main__":
    main()
