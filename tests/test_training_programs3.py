"""A third round of ordinary PyTorch training programs run on torchlike: a
Transformer classifier and nn.Transformer (padding and causal masks, the
eval-mode nested-tensor result), MultiheadAttention, torch.nn.functional's
private attention helpers, a GRU/LSTM seq2seq on packed sequences, a VAE
and a GAN, parametrizations, clipping, chained schedulers with state dicts,
module and optimizer hooks, CPU autocast.

The programs live in scripts/golden_training_programs3.py, taking the
library as T; PyTorch's answers to them are in
tests/golden/training_programs3.json.  Here each runs on torchlike and its
described result is compared with PyTorch's: bit for bit where the
computation is the same sequence of float operations (schedulers' rates,
dtypes, hook orders, messages), else within a stated tolerance."""
import warnings

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
from oracle import assert_program_matches, golden_calls

CALLS, _golden = golden_calls("training_programs3")

# (rtol, atol) for the float values of each program; a program not listed is
# compared bit for bit.  The tolerances cover float32 results computed in
# another order than PyTorch's: its BLAS, its fused attention and encoder
# kernels (the eval-mode paths), its vectorised exp/tanh; training then
# carries those last bits through a few optimizer steps.
_TOLERANCE = {
    "classifier_training(T, False)": (2e-5, 1e-6),
    "classifier_training(T, True)": (2e-5, 1e-6),
    "classifier_training(T, True, batch_first=False)": (2e-5, 1e-6),
    "classifier_masks(T)": (1e-5, 1e-6),
    "encoder_inference(T)": (1e-5, 1e-6),
    "seq2seq_transformer(T)": (2e-5, 1e-6),
    "mha_calls(T)": (1e-5, 1e-6),
    "functional_helpers(T)": (1e-5, 1e-6),
    "rnn_seq2seq(T)": (2e-5, 1e-6),
    "vae(T)": (1e-5, 1e-6),
    "gan(T)": (2e-5, 1e-6),
    "parametrized(T)": (1e-5, 1e-6),
    "old_checkpoints(T)": (1e-6, 1e-7),
    "clipping(T)": (1e-5, 1e-6),
    "hooks(T)": (1e-6, 1e-7),
}


# programs about PyTorch's CPU kernels alone: half_steps(T) checks their
# rounding of a Python scalar and alpha to the half dtype in add/sub (and so
# in SGD's and RMSprop's momentum steps); on a device torchlike keeps both in
# float, as PyTorch's CUDA kernels do (docs/elementwise.md)
_HOST_ONLY = ("half_steps(T)",)


@pytest.mark.parametrize("call,expected", [
    pytest.param(c, e, marks=pytest.mark.host_only) if c in _HOST_ONLY else (c, e)
    for c, e in CALLS], ids=[c for c, _ in CALLS])
def test_program_matches_pytorch(call, expected):
    assert_program_matches(_golden, call, expected, _TOLERANCE.get(call))


# ---- the nested-tensor result, against the padded computation --------------------------------

def test_encoder_inference_is_each_sequence_alone():
    """In eval mode without gradients, a padded batch through the encoder
    gives, for each sequence, what that sequence alone (unpadded) gives, and
    zeros past its end; norm is applied after the zeros."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8)).eval()
    x = torch.randn(3, 6, 8)
    lengths = [6, 2, 4]
    pad = torch.arange(6).unsqueeze(0) >= torch.tensor(lengths).unsqueeze(1)
    with torch.no_grad():
        out = enc(x, src_key_padding_mask=pad)
        for i, n in enumerate(lengths):
            alone = enc(x[i:i + 1, :n])
            np.testing.assert_allclose(out[i, :n].cpu().numpy(), alone[0].cpu().numpy(), rtol=1e-5,
                                       atol=1e-6)
            want = enc.norm(torch.zeros(1, 8))[0].cpu().numpy()
            for j in range(n, 6):
                np.testing.assert_array_equal(out[i, j].cpu().numpy(), want)
    # with gradients the padded positions are computed like the others
    out_grad = enc(x, src_key_padding_mask=pad)
    assert out_grad.requires_grad
    assert not bool((out_grad[1, 2:] == out[1, 2:]).all())


def test_canonical_mask_is_what_attention_adds():
    """A bool mask made additive by F._canonical_mask gives the bool mask's
    attention (True: not attended), in MultiheadAttention and SDPA."""
    F = nn.functional
    torch.manual_seed(1)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    q = torch.randn(2, 4, 8)
    pad = torch.tensor([[False, False, True, True], [False] * 4])
    additive = F._canonical_mask(mask=pad, mask_name="key_padding_mask", other_type=None,
                                 other_name="", target_type=q.dtype)
    a, wa = mha(q, q, q, key_padding_mask=pad)
    b, wb = mha(q, q, q, key_padding_mask=additive)
    np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    np.testing.assert_array_equal(wa.detach().cpu().numpy(), wb.detach().cpu().numpy())
    assert float(wa[0, :, 2:].abs().sum()) == 0.0
    qh = q.reshape(2, 4, 2, 4).transpose(1, 2)
    sdpa_bool = F.scaled_dot_product_attention(qh, qh, qh, attn_mask=~pad[:, None, None, :])
    sdpa_add = F.scaled_dot_product_attention(qh, qh, qh, attn_mask=additive[:, None, None, :])
    np.testing.assert_allclose(sdpa_bool.cpu().numpy(), sdpa_add.cpu().numpy(), rtol=1e-6,
                               atol=1e-7)


def test_in_projection_packed_is_three_linears():
    F = nn.functional
    rng = np.random.default_rng(0)
    q, k, v = (torch.tensor(rng.standard_normal(s).astype(np.float64))
               for s in ((3, 2, 4), (5, 2, 4), (5, 2, 4)))
    w = torch.tensor(rng.standard_normal((12, 4)))
    b = torch.tensor(rng.standard_normal(12))
    wn, bn = w.cpu().numpy(), b.cpu().numpy()
    for args in ((q, q, q), (q, k, k), (q, k, v)):
        got = F._in_projection_packed(*args, w, b)
        for i, (t, x) in enumerate(zip(got, args)):
            want = x.cpu().numpy() @ wn[4 * i:4 * i + 4].T + bn[4 * i:4 * i + 4]
            np.testing.assert_allclose(t.cpu().numpy(), want, rtol=1e-12, atol=1e-12)


def test_mha_functional_is_causal_needs_a_mask_and_stands_for_it():
    """is_causal without attn_mask is refused; with no padding mask and no
    weights asked for it runs the causal kernel whatever the mask holds;
    with weights, the mask itself is used."""
    F = nn.functional
    torch.manual_seed(2)
    mha = nn.MultiheadAttention(8, 2).eval()
    x = torch.randn(5, 2, 8)
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha(x, x, x, is_causal=True)
    other = torch.zeros(5, 5)
    with torch.no_grad():
        hinted = mha(x, x, x, attn_mask=other, is_causal=True, need_weights=False)[0]
        masked = mha(x, x, x, attn_mask=causal, need_weights=False)[0]
        weights_path = mha(x, x, x, attn_mask=other, is_causal=True)[0]
        unmasked = mha(x, x, x, need_weights=False)[0]
    np.testing.assert_allclose(hinted.cpu().numpy(), masked.cpu().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weights_path.cpu().numpy(), unmasked.cpu().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_optimizer_state_dict_hooks_compose():
    """A post hook's returned dict replaces the state dict; a load pre hook
    sees a copy it may change without touching the caller's dict."""
    p = nn.Parameter(torch.ones(2))
    opt = torch.optim.Adam([p], lr=0.1)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "tag": "v1"})
    seen = []

    def drop_tag(o, sd):
        seen.append(sd.pop("tag"))

    opt.register_load_state_dict_pre_hook(drop_tag)
    p.grad = torch.ones(2)
    opt.step()
    sd = opt.state_dict()
    assert sd["tag"] == "v1"
    opt.load_state_dict(sd)
    assert seen == ["v1"] and sd["tag"] == "v1"
    h = opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
    opt.state_dict()
    h.remove()
    opt.state_dict()
    assert seen == ["v1", "pre"]
    # hooks survive a pickle round trip only as PyTorch's do: not at all
    import pickle
    clone = pickle.loads(pickle.dumps(opt))
    assert "tag" not in clone.state_dict()


def test_grad_of_a_non_leaf_warns_as_pytorch():
    """Reading .grad of a tensor with history that keeps none warns (the
    leaf was probably meant); leaves, retained non-leaves and tensors
    without history do not."""
    x = torch.ones(2, requires_grad=True)
    quiet = [x, torch.ones(2), (x * 2).detach()]
    with torch.no_grad():
        quiet.append(x * 2)
    kept = x * 3
    kept.retain_grad()
    quiet.append(kept)
    for t in quiet:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert t.grad is None
    for t in (x * 2, x[0], x.view(2, 1)):
        with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
            assert t.grad is None
    (kept.sum() * 2).backward()
    np.testing.assert_array_equal(kept.grad.cpu().numpy(), [2.0, 2.0])


def test_deprecated_defaults_warn_once_per_process():
    """meshgrid without indexing, cross without dim, stft without a window
    and float() of a tensor that requires grad warn the first time only, as
    PyTorch's TORCH_WARN_ONCE; run in a fresh process, since the first call
    may have come earlier here."""
    import subprocess
    import sys
    code = ("import warnings, torchlike as T\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    for _ in range(2):\n"
            "        T.meshgrid(T.ones(2), T.ones(3))\n"
            "        T.cross(T.ones(3, 3), T.ones(3, 3))\n"
            "        T.stft(T.ones(64), 16, return_complex=True)\n"
            "        T.meshgrid(T.ones(2), indexing='xy')\n"
            "        T.cross(T.ones(3, 3), T.ones(3, 3), dim=0)\n"
            "        T.stft(T.ones(64), 16, window=T.ones(16), return_complex=True)\n"
            "        x = T.ones((), requires_grad=True)\n"
            "        float(x.detach()), int(x), x.item(), bool(x), float(x * 2), float(x)\n"
            "print([str(m.message).split(':')[0][:30] for m in w])\n")
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=root).stdout
    assert out.strip() == str(["torch.meshgrid", "Using torch.cross without spec",
                               "A window was not provided. A r",
                               "Converting a tensor with requi"])
