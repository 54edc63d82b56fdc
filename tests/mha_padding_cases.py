"""Attention rows that see no key, run the same way over PyTorch and torchlike.

``record(T)`` takes the library as T, builds every module with weights and
inputs drawn from NumPy (so both libraries compute from the same numbers)
and returns, per case, the output (NaN kept), the attention weights, or the
exception raised.  scripts/golden_mha_padding.py writes PyTorch's answers to
tests/golden/mha_padding.json; tests/test_mha_padding.py compares.

What the cases tell apart: PyTorch's MultiheadAttention and
TransformerEncoderLayer take a fused inference kernel ("fast path": eval,
no gradients, batch_first self-attention, bool masks for the attention)
whose masked softmax gives NaN for a query row with every key masked, where
the general path (need_weights=False) gives that row zeros from its
attention kernel (then out_proj's bias); TransformerEncoder's nested-tensor
path gives zeros at every padded position.  Around them: a fully masked
row of attn_mask (2-D and per head), float masks (the layer's fused kernel
reads any nonzero entry as masked), is_causal (unread by the fused kernel),
the conditions that send a call down the general path (fast path off,
gradients, training, hooks, cross-attention, sequence-first input), and a
batch of padding only through the nested path (PyTorch's refusal)."""
import numpy as np

E, H, N, L, FF = 8, 2, 3, 4, 16

# sequence 1 is all padding, sequence 2 its first two tokens only
KPM = [[False] * L, [True] * L, [False, False, True, True]]


def _fill(T, module, seed):
    """Every parameter of module set from NumPy (named order), nonzero biases."""
    rs = np.random.RandomState(seed)
    with T.no_grad():
        for _, p in sorted(module.named_parameters()):
            p.copy_(T.tensor(rs.uniform(-0.6, 0.6, tuple(p.shape)).astype(np.float32)))
    return module


def _x(T, seed=1, shape=(N, L, E)):
    return T.tensor(np.random.RandomState(seed).randn(*shape).astype(np.float32))


def _out(r):
    """A JSON form: the list of the tensors returned (one, or MultiheadAttention's
    output and weights, None kept), each as nested lists (NaN kept)."""
    if not isinstance(r, tuple):
        r = (r,)
    return [None if t is None else
            np.asarray(t.detach().float().cpu().numpy(), dtype=np.float64).tolist() for t in r]


def _mha(T, batch_first=True, bias=True):
    return _fill(T, T.nn.MultiheadAttention(E, H, batch_first=batch_first, bias=bias), 10).eval()


def _layer(T, **kw):
    kw.setdefault("batch_first", True)
    return _fill(T, T.nn.TransformerEncoderLayer(E, H, FF, dropout=0.0, **kw), 20).eval()


def _masks(T):
    kpm = T.tensor(KPM)
    row = T.zeros(L, L, dtype=T.bool)
    row[1] = True                                  # query 1 sees no key
    per_head = T.zeros(N * H, L, L, dtype=T.bool)
    per_head[1, 2] = True                          # sequence 0, head 1, query 2
    noncausal = T.zeros(L, L, dtype=T.bool)
    noncausal[0, 1:] = True
    soft = T.zeros(N, L)
    soft[0, 1] = -1.0                              # a soft (finite) additive mask
    soft[2, 3] = -0.5
    causal = T.ones(L, L, dtype=T.bool).triu(1)
    return dict(kpm=kpm, row=row, causal=causal, per_head=per_head, noncausal=noncausal, soft=soft,
                fkpm=T.zeros(N, L).masked_fill(kpm, float("-inf")),
                frow=T.zeros(L, L).masked_fill(row, float("-inf")))


def _mha_cases(T, m):
    x = _x(T)
    mha = _mha(T)
    return {
        "mha_fast_kpm": lambda: mha(x, x, x, key_padding_mask=m["kpm"], need_weights=False)[0],
        "mha_fast_kpm_weights": lambda: mha(x, x, x, key_padding_mask=m["kpm"]),
        "mha_fast_kpm_head_weights": lambda: mha(x, x, x, key_padding_mask=m["kpm"],
                                                 average_attn_weights=False),
        "mha_fast_row": lambda: mha(x, x, x, attn_mask=m["row"], need_weights=False)[0],
        "mha_fast_row_weights": lambda: mha(x, x, x, attn_mask=m["row"]),
        "mha_fast_per_head": lambda: mha(x, x, x, attn_mask=m["per_head"],
                                         need_weights=False)[0],
        "mha_fast_row_and_kpm": lambda: mha(x, x, x, attn_mask=m["row"],
                                            key_padding_mask=m["kpm"], need_weights=False)[0],
        "mha_fast_is_causal_no_mask": lambda: mha(x, x, x, need_weights=False,
                                                  is_causal=True)[0],
        "mha_fast_is_causal_noncausal_mask": lambda: mha(x, x, x, attn_mask=m["noncausal"],
                                                         need_weights=False, is_causal=True)[0],
        "mha_fast_is_causal_causal_mask": lambda: mha(x, x, x, attn_mask=m["causal"],
                                                      need_weights=False, is_causal=True)[0],
        # the general path
        "mha_float_kpm": lambda: mha(x, x, x, key_padding_mask=m["fkpm"], need_weights=False)[0],
        "mha_float_row": lambda: mha(x, x, x, attn_mask=m["frow"], need_weights=False)[0],
        "mha_soft_kpm": lambda: mha(x, x, x, key_padding_mask=m["soft"], need_weights=False)[0],
        "mha_cross_kpm": lambda: mha(x, x.clone(), x.clone(), key_padding_mask=m["kpm"],
                                     need_weights=False)[0],
        "mha_seq_first_kpm": lambda: _mha(T, batch_first=False)(
            x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), key_padding_mask=m["kpm"],
            need_weights=False)[0],
        "mha_no_bias_kpm": lambda: _mha(T, bias=False)(x, x, x, key_padding_mask=m["kpm"],
                                                       need_weights=False)[0],
        "mha_train_kpm": lambda: _mha(T).train()(x, x, x, key_padding_mask=m["kpm"],
                                                 need_weights=False)[0],
    }


def _hooked(module):
    """module with a forward hook on its linear1 (which does nothing)."""
    module.linear1.register_forward_hook(lambda mod, args, out: None)
    return module


def _layer_cases(T, m):
    x = _x(T)
    layer = _layer(T)
    hooked = _hooked(_layer(T))
    return {
        "layer_fast_kpm": lambda: layer(x, src_key_padding_mask=m["kpm"]),
        "layer_fast_float_kpm": lambda: layer(x, src_key_padding_mask=m["fkpm"]),
        "layer_fast_soft_kpm": lambda: layer(x, src_key_padding_mask=m["soft"]),
        "layer_fast_row": lambda: layer(x, src_mask=m["row"]),
        "layer_fast_float_row": lambda: layer(x, src_mask=m["frow"]),
        "layer_fast_row_and_kpm": lambda: layer(x, src_mask=m["row"],
                                                src_key_padding_mask=m["kpm"]),
        "layer_fast_is_causal_noncausal_mask": lambda: layer(x, src_mask=m["noncausal"],
                                                             is_causal=True),
        "layer_fast_is_causal_causal_mask": lambda: layer(x, src_mask=m["causal"], is_causal=True),
        "layer_fast_norm_first_kpm": lambda: _layer(T, norm_first=True)(
            x, src_key_padding_mask=m["kpm"]),
        "layer_fast_gelu_tanh_module": lambda: _layer(
            T, activation=T.nn.GELU(approximate="tanh"))(x, src_key_padding_mask=m["kpm"]),
        "layer_hooked_kpm": lambda: hooked(x, src_key_padding_mask=m["kpm"]),
        "layer_hooked_gelu_tanh_module": lambda: _hooked(_layer(
            T, activation=T.nn.GELU(approximate="tanh")))(x, src_key_padding_mask=m["kpm"]),
        "layer_seq_first_kpm": lambda: _layer(T, batch_first=False)(
            x.transpose(0, 1), src_key_padding_mask=m["kpm"]),
    }


def _encoder(T, layers=2, norm=False, **kw):
    layer = _layer(T)
    final = _fill(T, T.nn.LayerNorm(E), 30) if norm else None
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        enc = T.nn.TransformerEncoder(layer, layers, norm=final, **kw)
    return enc.eval()


def _encoder_cases(T, m):
    x = _x(T)
    shifted = T.tensor([[False] * L, [True] * L, [True, False, False, True]])
    return {
        "enc_nested_kpm": lambda: _encoder(T)(x, src_key_padding_mask=m["kpm"]),
        "enc_nested_kpm_norm": lambda: _encoder(T, norm=True)(x, src_key_padding_mask=m["kpm"]),
        "enc_nested_float_kpm": lambda: _encoder(T)(x, src_key_padding_mask=m["fkpm"]),
        "enc_no_nested_kpm": lambda: _encoder(T, enable_nested_tensor=False)(
            x, src_key_padding_mask=m["kpm"]),
        "enc_mask_and_kpm": lambda: _encoder(T)(x, mask=m["row"], src_key_padding_mask=m["kpm"]),
        "enc_not_left_aligned": lambda: _encoder(T)(x, src_key_padding_mask=shifted),
        "enc_not_left_aligned_unchecked": lambda: _encoder(T, mask_check=False)(
            x, src_key_padding_mask=shifted),
        "enc_all_padding": lambda: _encoder(T)(x, src_key_padding_mask=T.ones(N, L,
                                                                              dtype=T.bool)),
        "enc_all_padding_no_nested": lambda: _encoder(T, enable_nested_tensor=False)(
            x, src_key_padding_mask=T.ones(N, L, dtype=T.bool)),
    }


def _decoder_cases(T, m):
    x, mem = _x(T), _x(T, seed=2)
    dec = _fill(T, T.nn.TransformerDecoderLayer(E, H, FF, dropout=0.0, batch_first=True),
                40).eval()
    model = _fill(T, T.nn.Transformer(E, H, 1, 1, FF, dropout=0.0, batch_first=True), 50).eval()
    return {
        "dec_fast_tgt_kpm": lambda: dec(x, mem, tgt_key_padding_mask=m["kpm"]),
        "dec_fast_tgt_row": lambda: dec(x, mem, tgt_mask=m["row"]),
        "dec_memory_kpm": lambda: dec(x, mem, memory_key_padding_mask=m["kpm"]),
        # the encoder's nested path, then the decoder reading its zeros
        "transformer_kpm": lambda: model(mem, x, src_key_padding_mask=m["kpm"],
                                         tgt_key_padding_mask=m["kpm"],
                                         memory_key_padding_mask=m["kpm"]),
        "transformer_causal": lambda: model(
            mem, x, src_key_padding_mask=m["kpm"],
            tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(L), tgt_is_causal=True),
    }


def _run(case):
    try:
        return ["ok", _out(case())]
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return ["raises", type(e).__name__, str(e).splitlines()[0]]


def _grad_cases(T, m):
    """The same calls with gradients wanted: the general path throughout."""
    x = _x(T)
    mha, layer = _mha(T), _layer(T)
    return {
        "grad_mha_kpm": lambda: mha(x, x, x, key_padding_mask=m["kpm"], need_weights=False)[0],
        "grad_mha_row": lambda: mha(x, x, x, attn_mask=m["row"], need_weights=False)[0],
        "grad_layer_kpm": lambda: layer(x, src_key_padding_mask=m["kpm"]),
        "grad_enc_kpm": lambda: _encoder(T)(x, src_key_padding_mask=m["kpm"]),
    }


def record(T):
    """{case: ["ok", output] or ["raises", type, first line]} over library T."""
    m = _masks(T)
    out = {}
    with T.no_grad():
        cases = {**_mha_cases(T, m), **_layer_cases(T, m), **_encoder_cases(T, m),
                 **_decoder_cases(T, m)}
        for name, case in cases.items():
            out[name] = _run(case)
        T.backends.mha.set_fastpath_enabled(False)
        try:
            for name in ("mha_fast_kpm", "mha_fast_kpm_weights", "mha_fast_row",
                         "mha_fast_is_causal_no_mask", "mha_fast_is_causal_noncausal_mask",
                         "layer_fast_kpm", "layer_fast_soft_kpm", "enc_nested_kpm",
                         "dec_fast_tgt_kpm"):
                out["fastpath_off_" + name] = _run(cases[name])
        finally:
            T.backends.mha.set_fastpath_enabled(True)
    for name, case in _grad_cases(T, m).items():
        out[name] = _run(case)
    return out
