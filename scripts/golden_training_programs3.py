"""Record PyTorch's answers for a third round of training programs, for
tests/test_training_programs3.py: a Transformer classifier (padding and
causal masks, bool and float, norm_first, the eval-mode nested-tensor
result), nn.Transformer with greedy decoding, MultiheadAttention's masks,
weights and checks, the private helpers of torch.nn.functional that model
code calls (_canonical_mask, _none_or_dtype, _in_projection_packed,
_in_projection, _mha_shape_check), a GRU/LSTM seq2seq on packed sequences
with teacher forcing, a VAE and a GAN (parameter groups, two optimizers),
parametrizations, gradient clipping and checkpointing, chained learning-rate
schedulers with their state dicts, optimizer and module hooks, and CPU
autocast's dtypes.

Every program takes the library as T and builds its parameters and data
from NumPy (the same numbers under both libraries), so the test runs the
very same code on torchlike.

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs3.py
writes tests/golden/training_programs3.json ([call, outcome] pairs over T)."""
import warnings

import numpy as np

from golden_calls import record


def _arr(*shape, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def _data(T, a):
    """ndarray a as a tensor on the default device, as a training script
    moves its data there with .to(device): from_numpy stays on the host
    (PyTorch's rule), and .to() of a tensor already there is the tensor
    itself, so on the CPU (where PyTorch's answers are recorded) this is
    plain from_numpy, sharing a's memory."""
    return T.from_numpy(a).to(T.get_default_device())


def _init(T, module, seed, scale=0.3):
    """Every parameter of module drawn from NumPy (seeded)."""
    rng = np.random.default_rng(seed)
    with T.no_grad():
        for p in module.parameters():
            p.copy_(_data(T, (rng.standard_normal(tuple(p.shape)) * scale)
                                 .astype(np.float32)))
    return module


def _warned(fn):
    """fn()'s result and the messages of the warnings it raised (without the
    place in PyTorch's C++ sources that some name)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message).split(" (Triggered internally at")[0] for w in caught]


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return [type(e).__name__, str(e).splitlines()[0]]
    return "no error"


# ---- a Transformer classifier ---------------------------------------------------------------

def _tokens(T):
    rng = np.random.default_rng(5)
    tok = rng.integers(1, 20, (4, 7))
    lens = [7, 5, 3, 6]
    pad = np.zeros((4, 7), dtype=bool)
    for i, n in enumerate(lens):
        pad[i, n:] = True
    tok[pad] = 0
    return _data(T, tok), _data(T, pad), T.tensor([0, 1, 2, 1])


def _classifier(T, norm_first, batch_first=True, activation="gelu"):
    nn = T.nn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 8, padding_idx=0)
            layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first,
                                               norm_first=norm_first, activation=activation)
            self.enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8),
                                             enable_nested_tensor=False)
            self.head = nn.Linear(8, 3)

        def forward(self, tok, pad, key_mask=None, mask=None, is_causal=None):
            h = self.emb(tok)
            if not batch_first:
                h = h.transpose(0, 1)
            h = self.enc(h, mask=mask, src_key_padding_mask=pad if key_mask is None else key_mask,
                         is_causal=is_causal)
            if not batch_first:
                h = h.transpose(0, 1)
            keep = pad.logical_not().unsqueeze(-1).float()
            return self.head((h * keep).sum(1) / keep.sum(1))

    return _init(T, Classifier(), 1)


def classifier_training(T, norm_first, batch_first=True):
    """Three AdamW steps on a padded batch: losses and one gradient."""
    F = T.nn.functional
    tok, pad, y = _tokens(T)
    m = _classifier(T, norm_first, batch_first)
    opt = T.optim.AdamW(m.parameters(), lr=1e-2)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(m(tok, pad), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, m.enc.layers[0].self_attn.in_proj_weight.grad


def classifier_masks(T):
    """The same logits from a bool and a float padding mask; a causal mask
    given as float, as bool, and with the is_causal hint (which needs it)."""
    tok, pad, _ = _tokens(T)
    m = _classifier(T, False)
    additive = T.zeros(4, 7).masked_fill(pad, float("-inf"))
    causal = T.nn.Transformer.generate_square_subsequent_mask(7)
    causal_out, messages = _warned(lambda: m(tok, pad, mask=causal))
    return [m(tok, pad), m(tok, pad, additive), causal_out, messages,
            m(tok, pad, additive, mask=causal, is_causal=True),
            m(tok, pad, mask=causal.isinf()),
            _raised(lambda: m(tok, pad, is_causal=True))]


def encoder_inference(T):
    """PyTorch's nested-tensor path: an encoder in eval mode without
    gradients, given a padding mask, returns zeros past each sequence (its
    norm applied after); not in training mode, with grad enabled, with
    norm_first (which also warns at construction), an attention mask, a
    mask that is not left aligned, or the fast path switched off."""
    nn = T.nn
    tok, pad, _ = _tokens(T)

    def build(norm_first=False, **kw):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                           norm_first=norm_first)
        return _warned(lambda: _init(T, nn.TransformerEncoder(layer, 2, **kw), 2))

    (enc, w1), (enc_nf, w2), (enc_norm, w3) = build(), build(True), build(norm=nn.LayerNorm(8))
    x = _init(T, nn.Embedding(20, 8), 3)(tok).detach()
    out = {"warnings": w1 + w2 + w3,
           "flags": [enc.use_nested_tensor, enc_nf.use_nested_tensor, enc.mask_check,
                     enc.enable_nested_tensor],
           "train": enc(x, src_key_padding_mask=pad)}
    for e in (enc, enc_nf, enc_norm):
        e.eval()
    out["eval_grad"] = enc(x, src_key_padding_mask=pad)
    with T.no_grad():
        out["eval"] = enc(x, src_key_padding_mask=pad)
        out["eval_norm"] = enc_norm(x, src_key_padding_mask=pad)
        out["eval_norm_first"] = enc_nf(x, src_key_padding_mask=pad)
        out["eval_float_mask"] = enc(x, src_key_padding_mask=T.zeros(4, 7).masked_fill(
            pad, float("-inf")))
        shifted = pad.clone()
        shifted[0, 0] = True
        out["not_left_aligned"] = enc(x, src_key_padding_mask=shifted)
        out["with_mask"] = enc(x, mask=T.zeros(7, 7), src_key_padding_mask=pad)
        T.backends.mha.set_fastpath_enabled(False)
        try:
            out["fastpath_off"] = enc(x, src_key_padding_mask=pad)
        finally:
            T.backends.mha.set_fastpath_enabled(True)
        all_pad = pad.clone()
        all_pad[2] = True
        out["all_padded_row"] = enc(x, src_key_padding_mask=all_pad)[2]
    with T.inference_mode():
        out["inference_mode"] = enc(x, src_key_padding_mask=pad)
    for p in enc.parameters():
        p.requires_grad_(False)
    out["frozen"] = enc(x, src_key_padding_mask=pad)
    return out


def seq2seq_transformer(T):
    """nn.Transformer: three Adam steps with padding and causal masks, then
    greedy decoding in eval mode."""
    nn = T.nn
    F = nn.functional
    model, messages = _warned(lambda: nn.Transformer(8, 2, 2, 2, 16, dropout=0.0,
                                                     batch_first=True))
    _init(T, model, 1)
    emb, gen = _init(T, nn.Embedding(10, 8, padding_idx=0), 2), _init(T, nn.Linear(8, 10), 3)
    rng = np.random.default_rng(0)
    src, tgt = rng.integers(1, 10, (3, 6)), rng.integers(1, 10, (3, 5))
    src[1, 4:] = 0
    src[2, 3:] = 0
    tgt[2, 3:] = 0
    src, tgt = _data(T, src), _data(T, tgt)
    src_pad, tgt_pad = src == 0, tgt == 0
    causal = model.generate_square_subsequent_mask(5)
    opt = T.optim.Adam(list(model.parameters()) + list(emb.parameters()) +
                       list(gen.parameters()), lr=1e-2)
    losses = []
    for _ in range(3):
        out = model(emb(src), emb(tgt), tgt_mask=causal, src_key_padding_mask=src_pad,
                    tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad)
        logits = gen(out)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, 10), tgt[:, 1:].reshape(-1),
                               ignore_index=0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with T.no_grad():
        memory = model.encoder(emb(src), src_key_padding_mask=src_pad)
        ys = T.ones(3, 1, dtype=T.int64)
        for _ in range(4):
            o = model.decoder(emb(ys), memory,
                              tgt_mask=model.generate_square_subsequent_mask(ys.shape[1]),
                              memory_key_padding_mask=src_pad)
            ys = T.cat([ys, gen(o[:, -1]).argmax(-1, keepdim=True)], 1)
    return [messages, losses, memory, ys,
            _raised(lambda: model(emb(src), emb(tgt), tgt_is_causal=True))]


# ---- MultiheadAttention ---------------------------------------------------------------------

def mha_calls(T):
    nn = T.nn
    mha = _init(T, nn.MultiheadAttention(8, 2, batch_first=True), 4)
    q, kv = _data(T, _arr(2, 3, 8, seed=7)), _data(T, _arr(2, 5, 8, seed=8))
    pad = T.tensor([[False] * 5, [False, False, True, True, True]])
    am = _data(T, _arr(3, 5, seed=9))
    am3 = _data(T, _arr(4, 3, 5, seed=10))
    out = {"avg": mha(q, kv, kv, key_padding_mask=pad),
           "heads": mha(q, kv, kv, key_padding_mask=pad, average_attn_weights=False),
           "no_weights": mha(q, kv, kv, key_padding_mask=pad, need_weights=False),
           "mask3": mha(q, kv, kv, attn_mask=am3, key_padding_mask=pad.float() * -1e9),
           "bool_mask": mha(q, kv, kv, attn_mask=am > 1.0),
           "unbatched": mha(q[0], kv[0], kv[0], key_padding_mask=pad[1]),
           "causal_hint": mha(q, q, q, is_causal=True, need_weights=False,
                              attn_mask=T.nn.Transformer.generate_square_subsequent_mask(3))}
    mismatch, out["mismatch_warnings"] = _warned(lambda: mha(q, kv, kv, key_padding_mask=pad,
                                                            attn_mask=am))
    out["mismatch"] = mismatch
    mha2 = _init(T, nn.MultiheadAttention(8, 2, kdim=6, vdim=4, bias=False, add_bias_kv=True,
                                          add_zero_attn=True), 5)
    out["kdim_vdim"] = mha2(q.transpose(0, 1), _data(T, _arr(5, 2, 6, seed=11)),
                            _data(T, _arr(5, 2, 4, seed=12)), key_padding_mask=pad)
    mha.eval()
    with T.no_grad():
        out["eval_self"] = mha(q, q, q, key_padding_mask=pad[:, :3])
    out["errors"] = [_raised(f) for f in (
        lambda: mha(q, kv, kv, key_padding_mask=pad[:, :4]),
        lambda: mha(q, kv, kv, attn_mask=am.int()),
        lambda: mha(q, kv, kv, key_padding_mask=pad.int()),
        lambda: mha(q[0], kv, kv),
        lambda: mha(q, q, q, is_causal=True),
        lambda: mha(q, kv, kv[..., :4]),
        lambda: mha(q, kv, kv, key_padding_mask=pad[0]))]
    return out


def functional_helpers(T):
    F = T.nn.functional
    mask = T.tensor([[False, True], [False, False]])
    canon_w, messages = _warned(lambda: F._canonical_mask(
        mask=mask, mask_name="key_padding_mask", other_type=T.float32, other_name="attn_mask",
        target_type=T.float64))
    q = _data(T, _arr(2, 8, seed=1))
    k = _data(T, _arr(3, 8, seed=2))
    w = _data(T, _arr(24, 8, seed=3))
    b = _data(T, _arr(24, seed=4))
    shape_cases = [
        (T.ones(3, 2, 8), T.ones(4, 2, 8), T.ones(4, 2, 8), None, None),
        (T.ones(3, 8), T.ones(4, 8), T.ones(4, 8), T.zeros(4, dtype=T.bool), T.zeros(3, 4)),
        (T.ones(3, 8), T.ones(4, 8), T.ones(4, 8), None, T.zeros(2, 3, 4)),
        (T.ones(3, 8), T.ones(4, 2, 8), T.ones(4, 2, 8), None, None),
        (T.ones(3, 8), T.ones(4, 8), T.ones(4, 8), T.zeros(2, 4), None),
        (T.ones(3, 8), T.ones(4, 8), T.ones(4, 8), None, T.zeros(3)),
        (T.ones(3, 2, 8), T.ones(4, 8), T.ones(4, 2, 8), None, None),
        (T.ones(3, 2, 8), T.ones(4, 2, 8), T.ones(4, 2, 8), T.zeros(2), None),
        (T.ones(3, 2, 8), T.ones(4, 2, 8), T.ones(4, 2, 8), None, T.zeros(3, 4, 4, 1)),
        (T.ones(2, 3, 2, 8), T.ones(4, 2, 8), T.ones(4, 2, 8), None, None)]
    return {
        "bool": F._canonical_mask(mask=mask, mask_name="m", other_type=None, other_name="",
                                  target_type=T.float32),
        "float": F._canonical_mask(mask=T.ones(2, 2), mask_name="m", other_type=None,
                                   other_name="", target_type=T.float64),
        "none": F._canonical_mask(mask=None, mask_name="m", other_type=None, other_name="",
                                  target_type=T.float32),
        "int": _raised(lambda: F._canonical_mask(mask=T.ones(2, 2, dtype=T.int64),
                                                 mask_name="attn_mask", other_type=None,
                                                 other_name="", target_type=T.float32)),
        "warned": [canon_w, messages],
        "not_checked": _warned(lambda: F._canonical_mask(
            mask=mask, mask_name="m", other_type=T.float32, other_name="o",
            target_type=T.float32, check_other=False))[1],
        "dtypes": [F._none_or_dtype(None) is None, F._none_or_dtype(T.ones(1, dtype=T.float64))
                   == T.float64, _raised(lambda: F._none_or_dtype(3))],
        "packed_self": F._in_projection_packed(q, q, q, w, b),
        "packed_kv": F._in_projection_packed(q, k, k, w, b),
        "packed_all": F._in_projection_packed(q, k, T.ones(3, 8), w),
        "packed_contiguous": [t.is_contiguous() for t in F._in_projection_packed(q, k, k, w, b)],
        "separate": F._in_projection(q, k, T.ones(3, 4), w[:8], w[8:16], w[16:, :4], b[:8]),
        "separate_bad": _raised(lambda: F._in_projection(q, k, k, w[:8], w[8:16, :4], w[16:])),
        "bias_bad": _raised(lambda: F._in_projection(q, k, k, w[:8], w[8:16], w[16:], b)),
        "shape_check": [_raised(lambda c=c: F._mha_shape_check(*c, 2)) if i >= 2 else
                        F._mha_shape_check(*c, 2) for i, c in enumerate(shape_cases)],
    }


def layer_flags(T):
    nn = T.nn
    return [nn.TransformerEncoderLayer(8, 2, 16, activation=a).activation_relu_or_gelu
            for a in ("relu", "gelu", nn.GELU(), nn.ReLU(), T.tanh)] + \
        [T.backends.mha.get_fastpath_enabled()]


# ---- a seq2seq RNN on packed sequences ------------------------------------------------------

def rnn_seq2seq(T):
    """A bidirectional GRU encoder over packed (unsorted) sequences and an
    attention LSTMCell decoder with teacher forcing on a fixed coin."""
    nn = T.nn
    F = nn.functional
    rnn = nn.utils.rnn
    rng = np.random.default_rng(3)
    lens = [4, 6, 2, 5]
    seqs = [_data(T, rng.integers(1, 12, n)) for n in lens]
    lengths = T.tensor(lens)

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(12, 6, padding_idx=0)
            self.rnn = nn.GRU(6, 8, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(16, 8)

        def forward(self, x, n):
            packed = rnn.pack_padded_sequence(self.emb(x), n, batch_first=True,
                                              enforce_sorted=False)
            out, h = self.rnn(packed)
            out, _ = rnn.pad_packed_sequence(out, batch_first=True)
            return out, T.tanh(self.fc(T.cat([h[-2], h[-1]], dim=1)))

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(12, 6)
            self.attn = nn.Linear(24, 8)
            self.v = nn.Linear(8, 1, bias=False)
            self.cell = nn.LSTMCell(22, 8)
            self.out = nn.Linear(30, 12)

        def forward(self, tok, h, c, enc, mask):
            e = self.emb(tok)
            energy = T.tanh(self.attn(T.cat([h.unsqueeze(1).repeat(1, enc.shape[1], 1), enc],
                                            2)))
            a = F.softmax(self.v(energy).squeeze(2).masked_fill(mask == 0, -1e10), dim=1)
            ctx = T.bmm(a.unsqueeze(1), enc).squeeze(1)
            h, c = self.cell(T.cat([e, ctx], 1), (h, c))
            return self.out(T.cat([h, ctx, e], 1)), h, c, a

    enc, dec = _init(T, Encoder(), 4), _init(T, Decoder(), 5)
    src = rnn.pad_sequence(seqs, batch_first=True)
    tgt = rnn.pad_sequence([s.flip(0) for s in seqs], batch_first=True)
    params = list(enc.parameters()) + list(dec.parameters())
    opt = T.optim.Adam(params, lr=1e-2)
    coin = np.random.default_rng(0)
    losses, norms = [], []
    for _ in range(3):
        opt.zero_grad()
        out, h = enc(src, lengths)
        mask = (src != 0)[:, :out.shape[1]]
        c = T.zeros_like(h)
        tok, logits = tgt[:, 0], []
        for t in range(1, tgt.shape[1]):
            o, h, c, a = dec(tok, h, c, out, mask)
            logits.append(o)
            tok = tgt[:, t] if coin.random() < 0.5 else o.argmax(1)
        loss = F.cross_entropy(T.stack(logits, 1).reshape(-1, 12), tgt[:, 1:].reshape(-1),
                               ignore_index=0)
        loss.backward()
        norms.append(nn.utils.clip_grad_norm_(params, 1.0).item())
        opt.step()
        losses.append(loss.item())
    packed = rnn.pack_padded_sequence(src, lengths, batch_first=True, enforce_sorted=False)
    return [losses, norms, a, packed.batch_sizes, packed.sorted_indices,
            packed.unsorted_indices, rnn.pad_sequence(seqs, batch_first=True, padding_side="left"),
            _raised(lambda: rnn.pack_padded_sequence(src, lengths, batch_first=True)),
            _raised(lambda: rnn.pad_packed_sequence(packed, batch_first=True, total_length=3))]


def rnn_checks(T):
    """pack_padded_sequence's checks in PyTorch's order (the count of
    lengths, the last length, the order) and pad_sequence's copies into the
    first sequence's trailing shape (size-1 dims broadcast)."""
    rnn = T.nn.utils.rnn
    x = T.ones(4, 3, 2)
    packs = [_raised(lambda a=a, k=k: rnn.pack_padded_sequence(x, a, **k).batch_sizes)
             for a, k in (([2, 3, 0], {}), ([3, 0, 2], {}), ([4, 2], {}),
                          ([1, 0, 2], dict(enforce_sorted=False)),
                          ([4, 2, 1], dict(batch_first=True)))]
    packs.append(rnn.pack_padded_sequence(x, [4, 2], enforce_sorted=False).batch_sizes)
    packs.append(_raised(lambda: rnn.pack_padded_sequence(T.ones(0, 3, 2), [1, 1, 1])))
    pads = [_raised(lambda s=s: rnn.pad_sequence(s)) for s in (
        [T.ones(3, 2), T.ones(2, 3)], [T.ones(3, 2), T.ones(2, 2, 2)],
        [T.ones(3, 4, 2), T.ones(2, 3, 2)], [T.ones(3, 1), T.ones(2, 3)])]
    pads.append(rnn.pad_sequence([T.ones(3, 2), T.arange(2.0).reshape(2, 1)]))
    pads.append(rnn.pad_sequence([T.ones(3, 2, 2), T.ones(2, 2)], batch_first=True))
    return [packs, pads]


# ---- generative models ----------------------------------------------------------------------

def vae(T):
    """A VAE with decay / no-decay groups, BCE-with-logits and the KL term;
    then add_param_group."""
    nn = T.nn
    F = nn.functional

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(12, 16), nn.SiLU())
            self.mu, self.logvar = nn.Linear(16, 3), nn.Linear(16, 3)
            self.dec = nn.Sequential(nn.Linear(3, 16), nn.LeakyReLU(0.2), nn.Linear(16, 12))

        def forward(self, x, eps):
            h = self.enc(x)
            mu, logvar = self.mu(h), self.logvar(h)
            return self.dec(mu + eps * T.exp(0.5 * logvar)), mu, logvar

    m = _init(T, VAE(), 1)
    decay = [p for n, p in m.named_parameters() if not n.endswith("bias")]
    no_decay = [p for n, p in m.named_parameters() if n.endswith("bias")]
    opt = T.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                         {"params": no_decay, "weight_decay": 0.0}], lr=3e-3, betas=(0.9, 0.95))
    x = _data(T, (np.random.default_rng(0).random((8, 12)) > 0.5).astype(np.float32))
    losses = []
    for step in range(4):
        eps = _data(T, _arr(8, 3, seed=step + 10, scale=0.5))
        logits, mu, logvar = m(x, eps)
        rec = F.binary_cross_entropy_with_logits(logits, x, reduction="sum")
        kld = -0.5 * T.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = (rec + kld) / x.shape[0]
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    groups = [{k: v for k, v in g.items() if k != "params"}
              for g in opt.state_dict()["param_groups"]]
    extra = nn.Parameter(T.ones(3))
    opt.add_param_group({"params": extra, "lr": 0.1})
    return [losses, groups, {k: v for k, v in opt.param_groups[-1].items() if k != "params"},
            _raised(lambda: opt.add_param_group({"params": [extra]})),
            _raised(lambda: T.optim.SGD(extra, lr=0.1)),
            _warned(lambda: len(T.optim.SGD({extra}, lr=0.1).param_groups))]


def gan(T):
    """Two optimizers, detach for the discriminator's step, zero_grad with
    and without set_to_none; the discriminator frozen for a generator step."""
    nn = T.nn
    # no bias before the BatchNorm: its gradient is rounding noise, which
    # Adam would scale up to full steps
    G = _init(T, nn.Sequential(nn.Linear(4, 16, bias=False), nn.BatchNorm1d(16), nn.ReLU(),
                               nn.Linear(16, 6), nn.Tanh()), 1)
    D = _init(T, nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2, inplace=True),
                               nn.Linear(16, 1)), 2)
    opt_g = T.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_d = T.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    real = _data(T, np.random.default_rng(0).random((8, 6)).astype(np.float32) * 2 - 1)
    losses, grads_none = [], []
    for step in range(3):
        fake = G(_data(T, _arr(8, 4, seed=step + 20)))
        opt_d.zero_grad(set_to_none=True)
        loss_d = bce(D(real), T.ones(8, 1)) + bce(D(fake.detach()), T.zeros(8, 1))
        loss_d.backward()
        opt_d.step()
        opt_g.zero_grad()
        loss_g = bce(D(fake), T.ones(8, 1))
        loss_g.backward()
        opt_g.step()
        losses.append([loss_d.item(), loss_g.item()])
        grads_none.append([p.grad is None for p in D.parameters()])
    for p in D.parameters():
        p.requires_grad_(False)
    opt_g.zero_grad()
    bce(D(G(_data(T, _arr(8, 4, seed=99)))), T.ones(8, 1)).backward()
    return [losses, grads_none, G[1].running_mean, G[1].running_var, G[1].num_batches_tracked,
            [None if p.grad is None else p.grad.abs().sum() for p in D.parameters()],
            G[0].weight.grad]


# ---- parametrizations, clipping, checkpointing ----------------------------------------------

def parametrized(T):
    nn = T.nn
    P = nn.utils.parametrizations
    parametrize = nn.utils.parametrize
    lin = _init(T, nn.Linear(5, 4), 1)
    P.weight_norm(lin)
    names = [n for n, _ in lin.named_parameters()]
    opt = T.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    x = _data(T, _arr(2, 5))
    for _ in range(2):
        opt.zero_grad()
        (lin(x) ** 2).mean().backward()
        opt.step()
    weight = lin.weight
    parametrize.remove_parametrizations(lin, "weight")

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    sym = _init(T, nn.Linear(3, 3), 2)
    parametrize.register_parametrization(sym, "weight", Symmetric())
    sym(x[:, :3]).sum().backward()
    spectral = _init(T, nn.Linear(6, 4), 3)
    P.spectral_norm(spectral, n_power_iterations=3)
    inner = spectral.parametrizations.weight[0]
    with T.no_grad():  # the random start vectors set to fixed ones
        inner._u.copy_(nn.functional.normalize(T.arange(4.0) + 1, dim=0))
        inner._v.copy_(nn.functional.normalize(T.arange(6.0) - 2, dim=0))
    return [names, weight, [n for n, _ in lin.named_parameters()],
            sym.weight, [p.grad for p in sym.parameters()],
            list(spectral.state_dict().keys()), spectral.weight,
            _raised(lambda: parametrize.register_parametrization(sym, "bias", nn.Flatten(0)))]


def old_checkpoints(T):
    """A state dict saved with the hook-based nn.utils.weight_norm
    (weight_g, weight_v) loads into a parametrizations.weight_norm module;
    the old spectral_norm's does not load into the new one; batch norm
    state from before num_batches_tracked loads."""
    nn = T.nn
    old = _init(T, nn.Conv1d(2, 3, 3), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the old form is deprecated
        nn.utils.weight_norm(old, dim=0)
        spectral_old = nn.utils.spectral_norm(nn.Linear(3, 2))
    new = nn.utils.parametrizations.weight_norm(nn.Conv1d(2, 3, 3), dim=0)
    loaded = new.load_state_dict(old.state_dict())
    x = _data(T, _arr(1, 2, 5))
    spectral_new = nn.utils.parametrizations.spectral_norm(nn.Linear(3, 2))
    # batch norm state without num_batches_tracked: version 1, or a plain
    # dict (no version), keeps the module's count
    import collections
    bn = nn.BatchNorm1d(3)
    bn(_data(T, _arr(4, 3)))
    plain = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    versioned = collections.OrderedDict(plain)
    versioned._metadata = collections.OrderedDict({"": {"version": 1}})
    current = collections.OrderedDict(plain)
    current._metadata = collections.OrderedDict({"": {"version": 2}})
    counts = []
    for sd in (plain, versioned):
        target = nn.BatchNorm1d(3)
        target(_data(T, _arr(4, 3)))
        target(_data(T, _arr(4, 3)))
        counts.append([repr(target.load_state_dict(sd)), target.num_batches_tracked])
    return [list(old.state_dict()), repr(loaded), list(new.state_dict()), new(x), old(x),
            _raised(lambda: spectral_new.load_state_dict(spectral_old.state_dict())), counts,
            _raised(lambda: nn.BatchNorm1d(3).load_state_dict(current))]


def clipping(T):
    nn = T.nn
    m = _init(T, nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)), 6)
    x = _data(T, _arr(5, 4, scale=10.0))
    out = []
    for foreach in (None, True, False):
        m.zero_grad()
        (m(x) ** 2).sum().backward()
        norm = nn.utils.clip_grad_norm_(m.parameters(), 1.5, foreach=foreach)
        out.append([norm] + [p.grad for p in m.parameters()])
        m.zero_grad()
        (m(x) ** 2).sum().backward()
        nn.utils.clip_grad_value_(m.parameters(), 0.5, foreach=foreach)
        out.append([p.grad for p in m.parameters()])
    m[0].weight.grad[0, 0] = float("nan")
    out.append(_raised(lambda: nn.utils.clip_grad_norm_(m.parameters(), 1.0,
                                                        error_if_nonfinite=True)))
    return out


# ---- schedulers -----------------------------------------------------------------------------

def _sgd(T):
    return T.optim.SGD([T.nn.Parameter(T.ones(3))], lr=0.1, momentum=0.9)


def _rates(opt, sched, n, metrics=None):
    rates = []
    for i in range(n):
        opt.step()
        sched.step() if metrics is None else sched.step(metrics[i])
        rates.append([g["lr"] for g in opt.param_groups])
    return rates


def schedulers(T):
    L = T.optim.lr_scheduler
    out = {}

    def sequential(opt):
        return L.SequentialLR(opt, [L.LinearLR(opt, 0.1, 1.0, total_iters=3),
                                    L.CosineAnnealingLR(opt, T_max=5, eta_min=1e-3)],
                              milestones=[3])

    opt = _sgd(T)
    s = sequential(opt)
    out["sequential"] = _rates(opt, s, 6)
    state = s.state_dict()
    out["sequential_keys"] = [sorted(state), [sorted(x) for x in state["_schedulers"]]]
    opt2 = _sgd(T)
    s2 = sequential(opt2)
    s2.load_state_dict(state)
    opt2.load_state_dict(opt.state_dict())
    out["sequential_resumed"] = [_rates(opt2, s2, 4), _rates(opt, s, 4)]
    opt = _sgd(T)
    s = L.ChainedScheduler([L.ConstantLR(opt, factor=0.5, total_iters=2),
                            L.ExponentialLR(opt, gamma=0.9)])
    out["chained"] = [_rates(opt, s, 5), sorted(s.state_dict())]
    for kw in (dict(), dict(three_phase=True), dict(anneal_strategy="linear", pct_start=0.4)):
        opt = _sgd(T)
        s = L.OneCycleLR(opt, max_lr=1.0, total_steps=10, **kw)
        out["onecycle" + "".join(sorted(kw))] = [
            [_rates(opt, s, 1)[0][0], opt.param_groups[0]["momentum"]] for _ in range(10)]
        out["onecycle_over" + "".join(sorted(kw))] = _raised(s.step)
    opt = _sgd(T)
    s = L.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)
    out["restarts"] = _rates(opt, s, 10)
    opt = _sgd(T)
    s = L.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)
    fractional = []
    for epoch in range(3):
        for i in range(4):
            opt.step()
            s.step(epoch + i / 4)
            fractional.append(opt.param_groups[0]["lr"])
    out["restarts_fractional"] = [fractional, s.state_dict(), _raised(lambda: s.step(-1))]
    opt = _sgd(T)
    s = L.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, threshold=0.1,
                            threshold_mode="abs", cooldown=1, min_lr=0.01)
    out["plateau"] = _rates(opt, s, 10, [0.5, 0.55, 0.58, 0.6, 0.9, 0.91, 0.92, 0.93, 0.94,
                                         0.95])
    state = s.state_dict()
    out["plateau_state"] = {k: v for k, v in state.items() if k != "mode_worse"}
    s2 = L.ReduceLROnPlateau(_sgd(T), mode="min")
    s2.load_state_dict(state)
    out["plateau_loaded"] = [s2.patience, s2.cooldown, s2.best, s2.mode, s2.get_last_lr()]
    out["resume_without_initial_lr"] = _raised(lambda: L.StepLR(_sgd(T), 1, last_epoch=3))
    return out


def scheduler_api(T):
    """A custom scheduler subclass, the old _LRScheduler name (a subclass the
    built-in schedulers are not instances of), OneCycleLR over two groups,
    a tensor lr, repeated milestones, a cosine past T_max, a LambdaLR state
    dict with a callable object."""
    L = T.optim.lr_scheduler

    def opt(n=1):
        return T.optim.SGD([{"params": [T.nn.Parameter(T.ones(2))]} for _ in range(n)], lr=0.1,
                           momentum=0.9)

    class Warmup(L._LRScheduler):
        def __init__(self, optimizer, warm):
            self.warm = warm
            super().__init__(optimizer)

        def get_lr(self):
            return [b * min(1.0, (self.last_epoch + 1) / self.warm) for b in self.base_lrs]

    class Decay:
        def __call__(self, epoch):
            return 0.9 ** epoch

    o = opt(2)
    s = Warmup(o, 3)
    out = {"custom": [_rates(o, s, 1)[0] for _ in range(5)],
           "custom_keys": sorted(s.state_dict()),
           "old_name": [isinstance(s, L.LRScheduler),
                        isinstance(L.StepLR(opt(), 1), L._LRScheduler)]}
    o = opt(2)
    s = L.OneCycleLR(o, max_lr=[0.5, 1.0], total_steps=6, div_factor=10, final_div_factor=100)
    out["onecycle_groups"] = _rates(o, s, 6)
    out["onecycle_errors"] = [_raised(lambda: L.OneCycleLR(opt(2), max_lr=[0.5], total_steps=6)),
                              _raised(lambda: L.OneCycleLR(opt(), max_lr=0.5))]
    o = opt()
    o.param_groups[0]["lr"] = T.tensor(0.1)
    s = L.StepLR(o, 1, 0.5)
    o.step()
    s.step()
    out["tensor_lr"] = [type(o.param_groups[0]["lr"]).__name__, float(o.param_groups[0]["lr"]),
                        type(s.get_last_lr()[0]).__name__]
    o = opt()
    s = L.MultiStepLR(o, milestones=[3, 1, 1], gamma=0.5)
    out["milestones"] = [_rates(o, s, 4), sorted(s.milestones.items())]
    o = opt()
    out["cosine"] = _rates(o, L.CosineAnnealingLR(o, T_max=4), 10)
    o = opt()
    s = L.LambdaLR(o, [Decay()])
    _rates(o, s, 2)
    out["lambda_state"] = [type(x).__name__ for x in s.state_dict()["lr_lambdas"]]
    o = opt()
    out["chained_plateau"] = _raised(lambda: L.ChainedScheduler([L.StepLR(o, 1),
                                                                 L.ReduceLROnPlateau(o)]))
    return out


# ---- hooks and modes ------------------------------------------------------------------------

def hooks(T):
    nn = T.nn
    log = []

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.act = nn.ReLU()

        def forward(self, x, scale=1.0):
            return self.act(self.lin(x)) * scale

    m = _init(T, nn.Sequential(Block(), nn.Linear(4, 2)), 1)

    def pre(mod, args, kwargs):
        log.append(["pre", type(mod).__name__, len(args), sorted(kwargs)])
        return args, {**kwargs, "scale": 2.0}

    def post(mod, args, kwargs, out):
        log.append(["post", type(mod).__name__, sorted(kwargs)])
        return out + 1

    def halve(mod, args):
        log.append(["halve", type(mod).__name__])
        return (args[0] * 0.5,)

    def backward(mod, grad_in, grad_out):
        log.append(["backward", type(mod).__name__,
                    [None if g is None else list(g.shape) for g in grad_in]])

    def backward_pre(mod, grad_out):
        log.append(["backward_pre", type(mod).__name__])
        return (grad_out[0] * 2,)

    module = nn.modules.module
    handles = [m[0].register_forward_pre_hook(pre, with_kwargs=True),
               m[0].register_forward_hook(post, with_kwargs=True),
               m[1].register_forward_pre_hook(halve, prepend=True),
               module.register_module_forward_hook(
                   lambda mod, i, o: log.append(["global", type(mod).__name__])),
               module.register_module_forward_pre_hook(
                   lambda mod, i: log.append(["global_pre", type(mod).__name__])),
               m[1].register_full_backward_hook(backward),
               m[1].register_full_backward_pre_hook(backward_pre),
               module.register_module_full_backward_hook(
                   lambda mod, gi, go: log.append(["global_backward", type(mod).__name__]))]
    x = _data(T, _arr(3, 4)).requires_grad_(True)
    y = m(x)
    y.sum().backward()
    for h in handles:
        h.remove()
    plain = m(x)
    seen = []

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    b = Boom()
    b.register_forward_hook(lambda mod, i, o: seen.append("always"), always_call=True)
    b.register_forward_hook(lambda mod, i, o: seen.append("normal"))
    _raised(lambda: b(x))

    opt = T.optim.SGD(m.parameters(), lr=0.1)
    opt_log = []
    opt.register_step_pre_hook(lambda o, a, k: opt_log.append("step_pre"))
    opt.register_step_post_hook(lambda o, a, k: opt_log.append("step_post"))
    opt.register_state_dict_pre_hook(lambda o: opt_log.append("sd_pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_state_dict_post_hook(lambda o, sd: opt_log.append(sorted(sd)), prepend=True)
    opt.register_load_state_dict_pre_hook(
        lambda o, sd: {k: v for k, v in sd.items() if k != "extra"})
    opt.register_load_state_dict_post_hook(lambda o: opt_log.append("load_post"))
    opt.step()
    state = opt.state_dict()
    opt.load_state_dict(state)
    return [y, x.grad, log, plain, seen, opt_log, sorted(state)]


def api_checks(T):
    """What programs meet around their training loops: the optimizers' checks
    of tensor hyperparameters (Adam's foreach path refuses them unless
    capturable), the copy-construct warning of tensor(tensor), the .grad of
    a non-leaf."""
    nn = T.nn
    params = [nn.Parameter(T.ones(2))]
    adam_cases = [dict(lr=T.tensor(0.1), foreach=True), dict(lr=T.tensor(0.1), foreach=True,
                                                             capturable=True),
                  dict(lr=T.tensor([0.1, 0.2])), dict(betas=(0.9, T.tensor(0.99))),
                  dict(betas=(T.tensor(0.9), T.tensor(0.99)), foreach=True),
                  dict(betas=(T.tensor([0.9, 0.8]), T.tensor(0.99))), dict(betas=(0, 0.5)),
                  dict(betas=(0.9, 1.0))]
    checks = [_raised(lambda kw=kw: T.optim.Adam(params, **kw)) for kw in adam_cases]
    checks += [_raised(lambda c=c: c(params, lr=T.tensor([0.1, 0.2])))
               for c in (T.optim.SGD, T.optim.RMSprop, T.optim.NAdam, T.optim.RAdam,
                         T.optim.Adamax, T.optim.Adagrad, T.optim.Adadelta)]
    o = T.optim.Adam(params, betas=(T.tensor(0.9), T.tensor(0.99)))
    params[0].grad = T.ones(2)
    o.step()
    x = T.ones(2, requires_grad=True)
    copied, copy_warning = _warned(lambda: T.tensor(x * 2))
    _, grad_warning = _warned(lambda: (x * 2).grad)
    return [checks, params[0], copied, copy_warning, grad_warning,
            _warned(lambda: T.tensor([1.0, 2.0]))[1]]


def half_steps(T):
    """float16/bfloat16 arithmetic as PyTorch's CPU kernels do it, and
    optimizer steps on bfloat16 parameters (PyTorch's default per-parameter
    path): a Python scalar and alpha are rounded to the half dtype for
    add/sub, addcmul/addcdiv/lerp compute in float and round once.  992
    elements, a multiple of every vector width, so that no element falls in
    the tail PyTorch's vector loops finish in half-precision scalar code."""
    rng = np.random.default_rng(0)
    Y = _data(T, np.random.default_rng(1).integers(0, 32, 31))
    out = {}
    for name in ("float16", "bfloat16"):
        dt = getattr(T, name)
        a, b = (_data(T, rng.standard_normal(992).astype(np.float32)).to(dt)
                for _ in range(2))
        out[name] = [a + 0.1, a - 0.3, 0.3 - a, a * 0.1, a.add(b, alpha=0.3),
                     a.sub(b, alpha=0.3), a.clone().add_(b, alpha=-0.1),
                     a.addcmul(b, b, value=0.01), a.addcdiv(b, b.abs() + 1, value=-0.01),
                     a.clone().addcmul_(b, b, value=0.01), a.lerp(b, 0.1), a.lerp(b, 0.7),
                     # the sum and its log rounded to the dtype along the last
                     # dim (short and long rows), in float along another
                     T.log_softmax(a.reshape(31, 32) * 3, 1), T.log_softmax(a.reshape(2, 496), 1),
                     T.log_softmax(a.reshape(31, 32) * 3, 0),
                     # cross_entropy is that log_softmax then nll_loss
                     T.nn.functional.cross_entropy(a.reshape(31, 32) * 3, Y, reduction="none")]
    steps = {}
    for name, cls, kw in (("sgd", T.optim.SGD, dict(lr=0.1)),
                          ("momentum", T.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)),
                          ("adam", T.optim.Adam, dict(lr=1e-2)),
                          ("adamw", T.optim.AdamW, dict(lr=1e-2, amsgrad=True)),
                          ("rmsprop", T.optim.RMSprop, dict(lr=1e-2, centered=True)),
                          ("rmsprop_momentum", T.optim.RMSprop, dict(lr=1e-2, momentum=0.9)),
                          ("adagrad", T.optim.Adagrad, dict(lr=0.1))):
        p = T.nn.Parameter(_data(T, _arr(992, seed=3)).bfloat16())
        opt = cls([p], **kw)
        for i in range(3):
            p.grad = _data(T, _arr(992, seed=10 + i)).bfloat16()
            opt.step()
        steps[name] = p
    out["steps"] = steps
    return out


def autocast_dtypes(T):
    nn = T.nn
    F = nn.functional
    m = _init(T, nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 3)), 3)
    x = _data(T, _arr(5, 4))
    y = T.tensor([0, 1, 2, 1, 0])
    with T.autocast("cpu", dtype=T.bfloat16):
        h = m[0](x)
        out = m(x)
        loss = F.cross_entropy(out, y)
        results = [h, m[1](h), out, loss, T.softmax(out, -1), x @ x.T, out.sum(),
                   T.cat([h, x.repeat(1, 2)], 1), T.addmm(T.zeros(5, 5), x, x.T),
                   T.bmm(x[None], x.T[None]), F.conv1d(x[None], T.ones(2, 5, 2)),
                   F.mse_loss(out, T.zeros(5, 3)), T.exp(out), out.norm(),
                   F.log_softmax(out, -1), out.topk(2).values,
                   F.scaled_dot_product_attention(x[None], x[None], x[None])]
        dtypes = [str(t.dtype).split(".")[-1] for t in results]
        with T.autocast("cpu", enabled=False):
            dtypes.append(str(m[0](x).dtype).split(".")[-1])
    loss.backward()
    return [dtypes, [str(p.grad.dtype).split(".")[-1] for p in m.parameters()],
            T.is_autocast_enabled("cpu")]


def inputs(T):
    return {"T": T, "np": np, "classifier_training": classifier_training,
            "classifier_masks": classifier_masks, "encoder_inference": encoder_inference,
            "seq2seq_transformer": seq2seq_transformer, "mha_calls": mha_calls,
            "functional_helpers": functional_helpers, "layer_flags": layer_flags,
            "rnn_seq2seq": rnn_seq2seq, "rnn_checks": rnn_checks, "vae": vae, "gan": gan,
            "parametrized": parametrized, "old_checkpoints": old_checkpoints,
            "clipping": clipping, "schedulers": schedulers,
            "scheduler_api": scheduler_api, "hooks": hooks, "api_checks": api_checks,
            "half_steps": half_steps, "autocast_dtypes": autocast_dtypes}


CALLS = [
    "classifier_training(T, False)", "classifier_training(T, True)",
    "classifier_training(T, True, batch_first=False)", "classifier_masks(T)",
    "encoder_inference(T)", "seq2seq_transformer(T)", "mha_calls(T)", "functional_helpers(T)",
    "layer_flags(T)", "rnn_seq2seq(T)", "rnn_checks(T)", "vae(T)", "gan(T)", "parametrized(T)",
    "old_checkpoints(T)", "clipping(T)", "schedulers(T)", "scheduler_api(T)", "api_checks(T)",
    "hooks(T)", "half_steps(T)", "autocast_dtypes(T)",
]


def describe(r):
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        a = r.detach()
        if str(a.dtype).endswith("bfloat16"):
            a = a.float()
        return ["tensor", str(r.dtype).split(".")[-1], list(r.shape), a.tolist()]
    if isinstance(r, str):
        return ["str", r.replace("torchlike.", "torch.")]
    if isinstance(r, (list, tuple)):
        return [type(r).__name__, [describe(x) for x in r]]
    if isinstance(r, dict):
        return ["dict", {str(k): describe(v) for k, v in r.items()}]
    if isinstance(r, float) or r is None or isinstance(r, (bool, int)):
        return [type(r).__name__, r]
    return [type(r).__name__, str(r).replace("torchlike.", "torch.")]


def main():
    record(CALLS, inputs, describe, "training_programs3", messages=True)


if __name__ == "__main__":
    main()
