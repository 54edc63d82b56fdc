"""Record PyTorch's behaviour of torch.nn as golden files for torchlike's tests.

Run with a Python that has real PyTorch installed:

    python scripts/make_golden.py

It writes tests/golden/nn/{cases.json, functional.npz, modules.npz}.  The
tests (tests/test_nn_golden.py) never import torch: they evaluate the same
expressions with ``torch`` bound to torchlike and compare with what was
recorded here.

Every case is code text evaluated in both libraries:
  * functional: an expression over named inputs (float64 unless integer);
    the output, and the gradient of ``sum(out * w)`` for a fixed random ``w``
    with respect to every float input;
  * modules: a constructor and a call; the module's state dict (so names,
    shapes and gate order are checked), output, and the gradients of the
    input and of every parameter;
  * models: repr text, state-dict keys and shapes, parameter/buffer/module names;
  * init: statistics of freshly initialised parameters and of nn.init calls;
  * errors: the message of a call that must fail."""
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "nn")
rng = np.random.default_rng(1234)


def randn(*shape):
    return rng.standard_normal(shape)


def uniform(lo, hi, *shape):
    return rng.uniform(lo, hi, shape)


def ints(lo, hi, *shape):
    return rng.integers(lo, hi, shape).astype(np.int64)


# ---- functional cases: (name, expression, inputs) ---------------------------------------

x = randn(3, 5)
x4 = randn(2, 3, 6, 7)
logits = randn(4, 5)
tgt = np.array([0, 4, 2, 1], dtype=np.int64)
FUNCTIONAL = [
    ("relu", "F.relu(x)", {"x": x}),
    ("relu6", "F.relu6(x * 4)", {"x": x}),
    ("leaky_relu", "F.leaky_relu(x, 0.2)", {"x": x}),
    ("elu", "F.elu(x, 0.7)", {"x": x}),
    ("selu", "F.selu(x)", {"x": x}),
    ("celu", "F.celu(x, 1.3)", {"x": x}),
    ("gelu", "F.gelu(x)", {"x": x}),
    ("gelu_tanh", "F.gelu(x, approximate='tanh')", {"x": x}),
    ("silu", "F.silu(x)", {"x": x}),
    ("mish", "F.mish(x)", {"x": x}),
    ("softplus", "F.softplus(x, 2.0, 1.0)", {"x": x}),
    ("softsign", "F.softsign(x)", {"x": x}),
    ("hardtanh", "F.hardtanh(x, -0.5, 0.8)", {"x": x}),
    ("hardsigmoid", "F.hardsigmoid(x * 4)", {"x": x}),
    ("hardswish", "F.hardswish(x * 4)", {"x": x}),
    ("hardshrink", "F.hardshrink(x, 0.3)", {"x": x}),
    ("softshrink", "F.softshrink(x, 0.3)", {"x": x}),
    ("tanhshrink", "F.tanhshrink(x)", {"x": x}),
    ("threshold", "F.threshold(x, 0.1, -2.0)", {"x": x}),
    ("prelu", "F.prelu(x4, w)", {"x4": x4, "w": np.array([0.1, -0.3, 0.5])}),
    ("rrelu_eval", "F.rrelu(x, 0.1, 0.3, training=False)", {"x": x}),
    ("glu", "F.glu(x6, -1)", {"x6": randn(3, 6)}),
    ("logsigmoid", "F.logsigmoid(x * 10)", {"x": x}),
    ("softmax", "F.softmax(x, 1)", {"x": x}),
    ("softmax_dim0", "F.softmax(x4, 0)", {"x4": x4}),
    ("log_softmax", "F.log_softmax(x, 0)", {"x": x}),
    ("softmin", "F.softmin(x, 1)", {"x": x}),
    # losses
    ("cross_entropy", "F.cross_entropy(logits, t)", {"logits": logits, "t": tgt}),
    ("cross_entropy_weight_ignore",
     "F.cross_entropy(logits, t, weight=cw, ignore_index=2)",
     {"logits": logits, "t": tgt, "cw": uniform(0.5, 2, 5)}),
    ("cross_entropy_smoothing", "F.cross_entropy(logits, t, label_smoothing=0.1)",
     {"logits": logits, "t": tgt}),
    ("cross_entropy_smoothing_weight_none",
     "F.cross_entropy(logits, t, weight=cw, label_smoothing=0.2, reduction='none')",
     {"logits": logits, "t": tgt, "cw": uniform(0.5, 2, 5)}),
    ("cross_entropy_smoothing_weight_mean",
     "F.cross_entropy(logits, t, weight=cw, label_smoothing=0.2, ignore_index=0)",
     {"logits": logits, "t": tgt, "cw": uniform(0.5, 2, 5)}),
    ("cross_entropy_probs", "F.cross_entropy(logits, p, label_smoothing=0.05)",
     {"logits": logits, "p": np.abs(randn(4, 5)) / 3}),
    ("cross_entropy_3d_sum", "F.cross_entropy(l3, t3, reduction='sum')",
     {"l3": randn(2, 4, 3, 2), "t3": ints(0, 4, 2, 3, 2)}),
    ("nll_loss", "F.nll_loss(F.log_softmax(logits, 1), t, reduction='none')",
     {"logits": logits, "t": tgt}),
    ("mse_loss", "F.mse_loss(x, y)", {"x": x, "y": randn(3, 5)}),
    ("l1_loss_sum", "F.l1_loss(x, y, reduction='sum')", {"x": x, "y": randn(3, 5)}),
    ("smooth_l1_loss", "F.smooth_l1_loss(x, y, beta=0.5)", {"x": x, "y": randn(3, 5)}),
    ("huber_loss", "F.huber_loss(x, y, delta=0.7, reduction='none')",
     {"x": x, "y": randn(3, 5)}),
    ("binary_cross_entropy", "F.binary_cross_entropy(torch.sigmoid(x), y, weight=cw)",
     {"x": x, "y": uniform(0, 1, 3, 5), "cw": uniform(0.5, 1.5, 5)}),
    ("bce_with_logits", "F.binary_cross_entropy_with_logits(x, y, pos_weight=pw)",
     {"x": x, "y": uniform(0, 1, 3, 5), "pw": uniform(0.5, 3, 5)}),
    ("kl_div_batchmean", "F.kl_div(F.log_softmax(x, 1), p, reduction='batchmean')",
     {"x": x, "p": F.softmax(torch.tensor(randn(3, 5)), 1).numpy()}),
    ("kl_div_log_target", "F.kl_div(x, y, reduction='sum', log_target=True)",
     {"x": x, "y": randn(3, 5)}),
    ("poisson_nll", "F.poisson_nll_loss(x, y)", {"x": x, "y": uniform(0, 4, 3, 5)}),
    ("poisson_nll_full", "F.poisson_nll_loss(torch.exp(x), y, log_input=False, full=True)",
     {"x": x, "y": uniform(0, 4, 3, 5)}),
    ("gaussian_nll", "F.gaussian_nll_loss(x, y, v)",
     {"x": x, "y": randn(3, 5), "v": uniform(0.1, 2, 3, 5)}),
    ("gaussian_nll_full_1d_var", "F.gaussian_nll_loss(x, y, v, full=True, reduction='sum')",
     {"x": x, "y": randn(3, 5), "v": uniform(0.1, 2, 3)}),
    ("margin_ranking", "F.margin_ranking_loss(a, b, s, margin=0.3)",
     {"a": randn(6), "b": randn(6), "s": np.sign(randn(6))}),
    ("hinge_embedding", "F.hinge_embedding_loss(x, s, margin=0.8)",
     {"x": x, "s": np.sign(randn(3, 5))}),
    ("soft_margin", "F.soft_margin_loss(x, s)", {"x": x, "s": np.sign(randn(3, 5))}),
    ("multilabel_soft_margin", "F.multilabel_soft_margin_loss(x, y)",
     {"x": x, "y": (randn(3, 5) > 0).astype(np.float64)}),
    ("multilabel_margin", "F.multilabel_margin_loss(x, mt, reduction='none')",
     {"x": x, "mt": np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 0, 0, 0, 0]],
                             dtype=np.int64)}),
    ("multi_margin", "F.multi_margin_loss(logits, t)", {"logits": logits, "t": tgt}),
    ("multi_margin_p2_weight", "F.multi_margin_loss(logits, t, p=2, margin=0.7, weight=cw)",
     {"logits": logits, "t": tgt, "cw": uniform(0.5, 2, 5)}),
    ("cosine_embedding", "F.cosine_embedding_loss(a, b, s, margin=0.2)",
     {"a": randn(4, 6), "b": randn(4, 6), "s": np.sign(randn(4))}),
    ("triplet_margin", "F.triplet_margin_loss(a, p, n, margin=0.5, swap=True)",
     {"a": randn(4, 6), "p": randn(4, 6), "n": randn(4, 6)}),
    ("ctc_loss", "F.ctc_loss(F.log_softmax(lp, 2), ct, il, tl)",
     {"lp": randn(7, 2, 5), "ct": np.array([[1, 2, 2], [3, 1, 0]], dtype=np.int64),
      "il": np.array([7, 5], dtype=np.int64), "tl": np.array([3, 2], dtype=np.int64)}),
    ("ctc_loss_sum_blank", "F.ctc_loss(F.log_softmax(lp, 2), ct, il, tl, blank=4, "
     "reduction='sum')",
     {"lp": randn(6, 2, 5), "ct": np.array([1, 1, 0, 2, 3], dtype=np.int64),
      "il": np.array([6, 6], dtype=np.int64), "tl": np.array([2, 3], dtype=np.int64)}),
    # normalisation
    ("layer_norm", "F.layer_norm(x4, (6, 7), w, b)",
     {"x4": x4, "w": randn(6, 7), "b": randn(6, 7)}),
    ("batch_norm_train", "F.batch_norm(x4, None, None, w, b, training=True)",
     {"x4": x4, "w": randn(3), "b": randn(3)}),
    ("batch_norm_eval", "F.batch_norm(x4, rm, rv, w, b, training=False, eps=1e-3)",
     {"x4": x4, "rm": randn(3), "rv": uniform(0.5, 2, 3), "w": randn(3), "b": randn(3)}),
    ("group_norm", "F.group_norm(x6c, 3, w, b)",
     {"x6c": randn(2, 6, 4), "w": randn(6), "b": randn(6)}),
    ("instance_norm", "F.instance_norm(x4, weight=w, bias=b)",
     {"x4": x4, "w": randn(3), "b": randn(3)}),
    ("rms_norm", "F.rms_norm(x4, (7,), w, eps=1e-6)", {"x4": x4, "w": randn(7)}),
    ("local_response_norm", "F.local_response_norm(x4, 2, alpha=0.1, beta=0.6, k=1.5)",
     {"x4": x4}),
    ("normalize", "F.normalize(x, p=3, dim=0)", {"x": x}),
    # convolution
    ("conv1d", "F.conv1d(c1, w, b, stride=2, padding=1, dilation=2)",
     {"c1": randn(2, 4, 11), "w": randn(6, 4, 3), "b": randn(6)}),
    ("conv2d", "F.conv2d(x4, w, b, stride=(2, 1), padding=(1, 2))",
     {"x4": x4, "w": randn(4, 3, 3, 2), "b": randn(4)}),
    ("conv2d_groups_dilation", "F.conv2d(c2, w, None, padding=2, dilation=2, groups=2)",
     {"c2": randn(2, 4, 7, 6), "w": randn(6, 2, 3, 3)}),
    ("conv2d_same", "F.conv2d(x4, w, padding='same')", {"x4": x4, "w": randn(2, 3, 4, 3)}),
    ("conv2d_unbatched", "F.conv2d(u, w)", {"u": randn(3, 5, 5), "w": randn(2, 3, 2, 2)}),
    ("conv3d", "F.conv3d(c3, w, b, stride=(1, 2, 1), padding=1)",
     {"c3": randn(1, 2, 4, 5, 4), "w": randn(3, 2, 2, 3, 2), "b": randn(3)}),
    ("conv_transpose1d", "F.conv_transpose1d(c1, w, b, stride=3, padding=1, output_padding=2)",
     {"c1": randn(2, 4, 5), "w": randn(4, 3, 4), "b": randn(3)}),
    ("conv_transpose2d", "F.conv_transpose2d(x4, w, b, stride=2, padding=1, output_padding=1, "
     "groups=3, dilation=(1, 2))", {"x4": x4, "w": randn(3, 2, 3, 3), "b": randn(6)}),
    ("unfold", "F.unfold(x4, (2, 3), dilation=(1, 2), padding=1, stride=2)", {"x4": x4}),
    ("fold", "F.fold(cols, (5, 6), (2, 2), padding=1, stride=(2, 1))",
     {"cols": randn(2, 12, 21)}),
    # pooling
    ("max_pool2d", "F.max_pool2d(x4, 3, 2, 1)", {"x4": x4}),
    ("max_pool2d_ceil_dilation", "F.max_pool2d(x4, (2, 3), (2, 2), (1, 0), dilation=(1, 2), "
     "ceil_mode=True)", {"x4": x4}),
    ("max_pool2d_indices", "F.max_pool2d(x4, 2, return_indices=True, ceil_mode=True)",
     {"x4": x4}),
    ("max_pool1d", "F.max_pool1d(c1, 3, 2, ceil_mode=True)", {"c1": randn(2, 3, 10)}),
    ("max_pool3d", "F.max_pool3d(c3, 2, 1, 1)", {"c3": randn(1, 2, 4, 5, 4)}),
    ("avg_pool2d", "F.avg_pool2d(x4, 3, 2, 1)", {"x4": x4}),
    ("avg_pool2d_ceil_nopad", "F.avg_pool2d(x4, 3, 2, 1, ceil_mode=True, "
     "count_include_pad=False)", {"x4": x4}),
    ("avg_pool2d_ceil_pad", "F.avg_pool2d(x4, 3, 2, 1, ceil_mode=True)", {"x4": x4}),
    ("avg_pool2d_divisor", "F.avg_pool2d(x4, 2, divisor_override=3)", {"x4": x4}),
    ("avg_pool1d", "F.avg_pool1d(c1, 4, 3, 2, ceil_mode=True)", {"c1": randn(2, 3, 10)}),
    ("avg_pool3d", "F.avg_pool3d(c3, 2, 2, 1)", {"c3": randn(1, 2, 4, 5, 4)}),
    ("lp_pool2d", "F.lp_pool2d(x4, 2, 3, 2)", {"x4": x4}),
    ("adaptive_avg_pool2d", "F.adaptive_avg_pool2d(x4, (4, 3))", {"x4": x4}),
    ("adaptive_avg_pool1d", "F.adaptive_avg_pool1d(c1, 4)", {"c1": randn(2, 3, 10)}),
    ("adaptive_max_pool2d", "F.adaptive_max_pool2d(x4, (4, 3), return_indices=True)",
     {"x4": x4}),
    ("max_unpool2d",
     "F.max_unpool2d(*F.max_pool2d(x4, 2, return_indices=True), 2, output_size=(6, 7))",
     {"x4": x4}),
    # resampling
    ("interp_nearest", "F.interpolate(x4, size=(9, 5))", {"x4": x4}),
    ("interp_nearest_scale", "F.interpolate(x4, scale_factor=1.7)", {"x4": x4}),
    ("interp_nearest_exact", "F.interpolate(x4, size=(4, 11), mode='nearest-exact')",
     {"x4": x4}),
    ("interp_bilinear", "F.interpolate(x4, size=(9, 5), mode='bilinear')", {"x4": x4}),
    ("interp_bilinear_ac", "F.interpolate(x4, size=(9, 5), mode='bilinear', "
     "align_corners=True)", {"x4": x4}),
    ("interp_bilinear_scale", "F.interpolate(x4, scale_factor=(1.5, 0.6), mode='bilinear')",
     {"x4": x4}),
    ("interp_bicubic", "F.interpolate(x4, size=(8, 10), mode='bicubic')", {"x4": x4}),
    ("interp_bicubic_ac", "F.interpolate(x4, size=(4, 5), mode='bicubic', "
     "align_corners=True)", {"x4": x4}),
    ("interp_linear", "F.interpolate(c1, size=17, mode='linear')", {"c1": randn(2, 3, 10)}),
    ("interp_trilinear", "F.interpolate(c3, scale_factor=2, mode='trilinear')",
     {"c3": randn(1, 2, 3, 2, 3)}),
    ("interp_area", "F.interpolate(x4, size=(4, 3), mode='area')", {"x4": x4}),
    ("interp_bilinear_aa", "F.interpolate(big, size=(5, 3), mode='bilinear', antialias=True)",
     {"big": randn(1, 2, 13, 11)}),
    ("interp_bicubic_aa", "F.interpolate(big, size=(4, 6), mode='bicubic', antialias=True)",
     {"big": randn(1, 2, 13, 11)}),
    ("interp_bilinear_aa_ac", "F.interpolate(big, size=(5, 14), mode='bilinear', "
     "antialias=True, align_corners=True)", {"big": randn(1, 2, 13, 11)}),
    ("interp_bicubic_aa_scale", "F.interpolate(big, scale_factor=0.4, mode='bicubic', "
     "antialias=True)", {"big": randn(1, 2, 13, 11)}),
    ("affine_grid", "F.affine_grid(th, (2, 3, 4, 5), align_corners=False)",
     {"th": randn(2, 2, 3)}),
    ("affine_grid_ac", "F.affine_grid(th, (1, 1, 3, 2), align_corners=True)",
     {"th": randn(1, 2, 3)}),
    ("grid_sample_bilinear", "F.grid_sample(x4, g, align_corners=False)",
     {"x4": x4, "g": uniform(-1.3, 1.3, 2, 4, 3, 2)}),
    ("grid_sample_bilinear_ac_border", "F.grid_sample(x4, g, padding_mode='border', "
     "align_corners=True)", {"x4": x4, "g": uniform(-1.3, 1.3, 2, 4, 3, 2)}),
    ("grid_sample_reflection", "F.grid_sample(x4, g, padding_mode='reflection')",
     {"x4": x4, "g": uniform(-2.5, 2.5, 2, 4, 3, 2)}),
    ("grid_sample_reflection_ac", "F.grid_sample(x4, g, padding_mode='reflection', "
     "align_corners=True)", {"x4": x4, "g": uniform(-2.5, 2.5, 2, 4, 3, 2)}),
    ("grid_sample_nearest", "F.grid_sample(x4, g, mode='nearest')",
     {"x4": x4, "g": uniform(-1.1, 1.1, 2, 4, 3, 2)}),
    ("pixel_shuffle", "F.pixel_shuffle(ps, 2)", {"ps": randn(2, 8, 3, 2)}),
    ("pixel_unshuffle", "F.pixel_unshuffle(ps, 2)", {"ps": randn(2, 2, 4, 6)}),
    ("pad_reflect", "F.pad(x4, (2, 1, 1, 3), mode='reflect')", {"x4": x4}),
    ("pad_circular", "F.pad(x4, (2, 1, 1, 3), mode='circular')", {"x4": x4}),
    # embedding, distances, attention
    ("embedding_padding", "F.embedding(idx, w, padding_idx=1)",
     {"idx": np.array([[0, 1, 3], [3, 3, 1]], dtype=np.int64), "w": randn(5, 4)}),
    ("embedding_bag_mean", "F.embedding_bag(flat, w, off, mode='mean')",
     {"flat": np.array([0, 2, 2, 4, 1, 3], dtype=np.int64), "w": randn(5, 4),
      "off": np.array([0, 2, 2, 5], dtype=np.int64)}),
    ("embedding_bag_max", "F.embedding_bag(idx, w, mode='max')",
     {"idx": np.array([[0, 2, 4], [3, 1, 3]], dtype=np.int64), "w": randn(5, 4)}),
    ("embedding_bag_sum_psw", "F.embedding_bag(idx, w, mode='sum', per_sample_weights=psw)",
     {"idx": np.array([[0, 2, 4], [3, 1, 3]], dtype=np.int64), "w": randn(5, 4),
      "psw": randn(2, 3)}),
    ("one_hot", "F.one_hot(idx, 6)", {"idx": np.array([[0, 1, 3], [5, 3, 1]], dtype=np.int64)}),
    ("cosine_similarity", "F.cosine_similarity(a, b, dim=1)", {"a": randn(4, 6), "b": randn(4, 6)}),
    ("pairwise_distance", "F.pairwise_distance(a, b, p=1.5)", {"a": randn(4, 6), "b": randn(4, 6)}),
    ("sdpa_causal", "F.scaled_dot_product_attention(q, k, v, is_causal=True)",
     {"q": randn(2, 3, 5, 4), "k": randn(2, 3, 5, 4), "v": randn(2, 3, 5, 6)}),
    ("sdpa_bool_mask", "F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3)",
     {"q": randn(2, 4, 4), "k": randn(2, 6, 4), "v": randn(2, 6, 3),
      "m": np.tril(np.ones((4, 6), dtype=bool), 2)}),
    ("sdpa_float_mask", "F.scaled_dot_product_attention(q, k, v, attn_mask=m)",
     {"q": randn(2, 4, 4), "k": randn(2, 6, 4), "v": randn(2, 6, 3), "m": randn(4, 6)}),
    ("bilinear", "F.bilinear(a, b2, w, bias)",
     {"a": randn(4, 6), "b2": randn(4, 3), "w": randn(2, 6, 3), "bias": randn(2)}),
    ("linear_3d", "F.linear(x3, w, b)", {"x3": randn(2, 3, 4), "w": randn(5, 4), "b": randn(5)}),
]


# inputs that are constants of the op (class weights, running statistics)
NO_GRAD = {"cw", "rm", "rv", "pw", "s", "y"}


def to_torch(arr, grad):
    t = torch.tensor(arr)
    if grad and t.is_floating_point():
        t.requires_grad_(True)
    return t


def record_functional(arrays, cases):
    for name, expr, inputs in FUNCTIONAL:
        env = {k: to_torch(v, k not in NO_GRAD) for k, v in inputs.items()}
        out = eval(expr, {"F": F, "torch": torch}, env)
        outs = list(out) if isinstance(out, tuple) else [out]
        for k, v in inputs.items():
            arrays[f"{name}/in/{k}"] = v
        loss = 0
        for i, o in enumerate(outs):
            arrays[f"{name}/out{i}"] = o.detach().numpy()
            if o.is_floating_point() and o.requires_grad:
                w = randn(*o.shape)
                arrays[f"{name}/gw{i}"] = w
                loss = loss + (o * torch.tensor(w)).sum()
        grads = []
        if torch.is_tensor(loss):
            float_inputs = [k for k, t in env.items() if t.requires_grad]
            gs = torch.autograd.grad(loss, [env[k] for k in float_inputs], allow_unused=True)
            for k, g in zip(float_inputs, gs):
                if g is not None:
                    arrays[f"{name}/grad/{k}"] = g.numpy()
                    grads.append(k)
        cases.append({"name": name, "expr": expr, "inputs": list(inputs), "outputs": len(outs),
                      "grads": grads})


# ---- module cases: (name, constructor, call, inputs, train) ------------------------------

MODULES = [
    ("linear", "nn.Linear(4, 3)", "m(x)", {"x": randn(2, 5, 4)}, False),
    ("bilinear", "nn.Bilinear(4, 3, 2)", "m(x, y)", {"x": randn(5, 4), "y": randn(5, 3)}, False),
    ("conv2d_reflect", "nn.Conv2d(3, 4, 3, stride=2, padding=1, padding_mode='reflect')",
     "m(x)", {"x": randn(2, 3, 7, 6)}, False),
    ("conv2d_circular_same", "nn.Conv2d(2, 4, (3, 2), padding='same', padding_mode='circular')",
     "m(x)", {"x": randn(2, 2, 5, 6)}, False),
    ("conv1d_groups", "nn.Conv1d(4, 6, 3, groups=2, bias=False)", "m(x)",
     {"x": randn(2, 4, 9)}, False),
    ("conv_transpose2d_output_size", "nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)",
     "m(x, output_size=(12, 10))", {"x": randn(2, 3, 6, 5)}, False),
    ("batchnorm2d_train", "nn.BatchNorm2d(3)", "m(x) + m(x * 2)", {"x": randn(4, 3, 5, 2)},
     True),
    ("batchnorm1d_cumulative", "nn.BatchNorm1d(3, momentum=None)", "m(x) + m(x * 2 + 1)",
     {"x": randn(4, 3)}, True),
    ("batchnorm1d_eval", "nn.BatchNorm1d(3)", "m(x)", {"x": randn(4, 3, 5)}, False),
    ("instancenorm1d_track", "nn.InstanceNorm1d(3, affine=True, track_running_stats=True)",
     "m(x)", {"x": randn(4, 3, 5)}, True),
    ("layernorm", "nn.LayerNorm((3, 4))", "m(x)", {"x": randn(2, 3, 4)}, False),
    ("groupnorm", "nn.GroupNorm(2, 4)", "m(x)", {"x": randn(2, 4, 3)}, False),
    ("prelu", "nn.PReLU(3)", "m(x)", {"x": randn(2, 3, 4)}, False),
    ("embedding_padding", "nn.Embedding(6, 3, padding_idx=2)", "m(idx)",
     {"idx": np.array([[0, 2, 5], [2, 1, 1]], dtype=np.int64)}, False),
    ("rnn_relu", "nn.RNN(3, 4, 2, nonlinearity='relu')", "m(x)[0]", {"x": randn(5, 2, 3)}, False),
    ("lstm_bidir", "nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True)", "m(x)[0]",
     {"x": randn(2, 5, 3)}, False),
    ("lstm_state", "nn.LSTM(3, 4)", "m(x, (h, c))[1][1]",
     {"x": randn(5, 2, 3), "h": randn(1, 2, 4), "c": randn(1, 2, 4)}, False),
    ("lstm_proj", "nn.LSTM(3, 5, proj_size=2)", "m(x)[1][0]", {"x": randn(4, 2, 3)}, False),
    ("gru", "nn.GRU(3, 4, bidirectional=True)", "m(x, h)[1]",
     {"x": randn(5, 2, 3), "h": randn(2, 2, 4)}, False),
    ("gru_unbatched", "nn.GRU(3, 4)", "m(x)[0]", {"x": randn(5, 3)}, False),
    ("lstm_packed", "nn.LSTM(3, 4, bidirectional=True)",
     "nn.utils.rnn.pad_packed_sequence(m(nn.utils.rnn.pack_padded_sequence("
     "x, [3, 5, 2], enforce_sorted=False))[0], total_length=6)[0]",
     {"x": randn(6, 3, 3)}, False),
    ("gru_packed_state", "nn.GRU(3, 4, 2, batch_first=True)",
     "m(nn.utils.rnn.pack_padded_sequence(x, torch.tensor([4, 4, 1]), batch_first=True), h)[1]",
     {"x": randn(3, 4, 3), "h": randn(2, 3, 4)}, False),
    ("lstmcell", "nn.LSTMCell(3, 4)", "m(x)[1]", {"x": randn(2, 3)}, False),
    ("grucell", "nn.GRUCell(3, 4)", "m(x, h)", {"x": randn(2, 3), "h": randn(2, 4)}, False),
    ("rnncell", "nn.RNNCell(3, 4, nonlinearity='relu')", "m(x)", {"x": randn(2, 3)}, False),
    ("mha", "nn.MultiheadAttention(8, 2)", "m(q, k, v)[0]",
     {"q": randn(4, 2, 8), "k": randn(5, 2, 8), "v": randn(5, 2, 8)}, False),
    ("mha_weights_masks", "nn.MultiheadAttention(8, 2, batch_first=True)",
     "m(q, k, k, key_padding_mask=kpm, attn_mask=am, average_attn_weights=False)[1]",
     {"q": randn(2, 4, 8), "k": randn(2, 5, 8),
      "kpm": np.array([[False] * 4 + [True], [False] * 5]),
      "am": np.triu(np.ones((4, 5), dtype=bool), 2)}, False),
    ("mha_kdim_bias_kv", "nn.MultiheadAttention(8, 4, kdim=3, vdim=5, add_bias_kv=True, "
     "add_zero_attn=True)", "m(q, k, v)[0]",
     {"q": randn(4, 2, 8), "k": randn(6, 2, 3), "v": randn(6, 2, 5)}, False),
    ("encoder_layer", "nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)", "m(x)",
     {"x": randn(5, 2, 8)}, False),
    ("encoder_layer_normfirst_gelu", "nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, "
     "activation='gelu', norm_first=True, batch_first=True)",
     "m(x, src_mask=nn.Transformer.generate_square_subsequent_mask(5))",
     {"x": randn(2, 5, 8)}, False),
    ("decoder_layer", "nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)", "m(x, mem)",
     {"x": randn(4, 2, 8), "mem": randn(5, 2, 8)}, False),
    ("transformer", "nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)", "m(src, tgt)",
     {"src": randn(5, 2, 8), "tgt": randn(4, 2, 8)}, False),
    ("weight_norm_conv", "nn.utils.parametrizations.weight_norm(nn.Conv1d(2, 3, 2), dim=1)",
     "m(x)", {"x": randn(2, 2, 5)}, False),
    ("spectral_norm_train", "nn.utils.parametrizations.spectral_norm(nn.Linear(4, 3), "
     "n_power_iterations=2)", "m(x)", {"x": randn(2, 4)}, True),
    ("spectral_norm_convT_eval",
     "nn.utils.parametrizations.spectral_norm(nn.ConvTranspose2d(2, 3, 2))",
     "m(x)", {"x": randn(1, 2, 3, 3)}, False),
    ("decoder_layer_masks", "nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, "
     "norm_first=True)", "m(x, mem, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4), "
     "memory_key_padding_mask=kpm)",
     {"x": randn(2, 4, 8), "mem": randn(2, 5, 8),
      "kpm": np.array([[False, False, True, True, True], [False] * 5])}, False),
    ("embedding_max_norm", "nn.Embedding(6, 3, max_norm=1.0)", "m(idx)",
     {"idx": np.array([[0, 2, 5], [2, 1, 1]], dtype=np.int64)}, False),
    ("embedding_bag_max", "nn.EmbeddingBag(6, 3, mode='max')", "m(idx)",
     {"idx": np.array([[0, 2, 5], [2, 1, 1]], dtype=np.int64)}, False),
    ("conv3d_dilated", "nn.Conv3d(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=(1, 0, 1), "
     "dilation=(1, 1, 2))", "m(x)", {"x": randn(1, 2, 3, 7, 5)}, False),
    ("upsample_bilinear_ac", "nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)",
     "m(x)", {"x": randn(1, 2, 3, 4)}, False),
    ("lppool3", "nn.LPPool2d(3, 2)", "m(x)", {"x": randn(1, 2, 4, 5)}, False),
    ("local_response_norm", "nn.LocalResponseNorm(3)", "m(x)", {"x": randn(2, 5, 3, 3)}, False),
    ("cnn", "nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), "
     "nn.MaxPool2d(2), nn.Conv2d(4, 6, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), "
     "nn.Linear(6, 3))", "m(x)", {"x": randn(2, 1, 8, 8)}, True),
]


def record_modules(arrays, cases):
    for name, ctor, call, inputs, train in MODULES:
        torch.manual_seed(0)
        m = eval(ctor, {"nn": nn, "torch": torch}).double()
        m.train(train)
        for k, v in m.state_dict().items():
            arrays[f"{name}/state/{k}"] = v.numpy().copy()   # the forward updates buffers in place
        env = {k: to_torch(v, True) for k, v in inputs.items()}
        env["m"] = m
        out = eval(call, {"nn": nn, "torch": torch, "F": F}, env)
        arrays[f"{name}/out"] = out.detach().numpy()
        for k, v in inputs.items():
            arrays[f"{name}/in/{k}"] = v
        w = randn(*out.shape)
        arrays[f"{name}/gw"] = w
        (out * torch.tensor(w)).sum().backward()
        grads = []
        for k, t in env.items():
            if k != "m" and t.requires_grad and t.grad is not None:
                arrays[f"{name}/grad/{k}"] = t.grad.numpy()
                grads.append(k)
        for k, p in m.named_parameters():
            if p.grad is not None:
                arrays[f"{name}/pgrad/{k}"] = p.grad.numpy()
        for k, v in m.state_dict().items():
            arrays[f"{name}/after/{k}"] = v.numpy()
        cases.append({"name": name, "ctor": ctor, "call": call, "inputs": list(inputs),
                      "train": train, "grads": grads})


# ---- model structure ---------------------------------------------------------------------

MODELS = [
    "nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True), "
    "nn.MaxPool2d(2), nn.Dropout(0.25), nn.Flatten(), nn.Linear(16 * 4 * 4, 10))",
    "nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.LayerNorm(8), nn.Linear(8, 2, bias=False))",
    "nn.ModuleDict({'enc': nn.LSTM(3, 4, 2, dropout=0.5, bidirectional=True), "
    "'emb': nn.Embedding(10, 3, padding_idx=0), 'head': nn.Linear(8, 5)})",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 3, norm=nn.LayerNorm(8))",
    "nn.Transformer(8, 2, 1, 2, 16)",
    "nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 3), "
    "nn.Linear(2, 3)])",
    "nn.Sequential(nn.Conv1d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False, "
    "padding_mode='circular'), nn.ConvTranspose2d(4, 2, 3, 2, 1, 1), nn.Conv3d(2, 2, 1), "
    "nn.Conv2d(2, 2, 3, padding='same'))",
    "nn.Sequential(nn.LeakyReLU(0.2), nn.ELU(alpha=0.5, inplace=True), nn.Hardtanh(-2, 2), "
    "nn.ReLU6(), nn.Softplus(beta=2), nn.Softmax(dim=1), nn.LogSoftmax(1), nn.PReLU(3), "
    "nn.GELU('tanh'), nn.SiLU(), nn.Mish(), nn.Hardswish(), nn.Hardsigmoid(), nn.Sigmoid(), "
    "nn.Tanh(), nn.SELU(), nn.CELU(), nn.GLU(), nn.Threshold(0.1, 20), nn.Hardshrink(), "
    "nn.Softshrink(0.3), nn.Tanhshrink(), nn.Softsign(), nn.LogSigmoid(), nn.RReLU(), "
    "nn.Softmin(0), nn.Identity())",
    "nn.Sequential(nn.MaxPool1d(3, 2, 1, ceil_mode=True), nn.AvgPool1d(3), nn.AvgPool2d(2), "
    "nn.AdaptiveAvgPool2d((1, 1)), nn.AdaptiveMaxPool1d(4), nn.LPPool2d(2, 3), "
    "nn.MaxUnpool2d(2), nn.Upsample(scale_factor=2, mode='bilinear'), "
    "nn.Upsample(size=(3, 4)), nn.PixelShuffle(2), nn.ZeroPad2d(1), nn.ConstantPad1d(2, 3.5), "
    "nn.ReflectionPad2d((1, 0, 2, 1)), nn.ReplicationPad1d(1), nn.Unflatten(1, (2, 3)), "
    "nn.Dropout2d(), nn.AlphaDropout(0.2))",
    "nn.Sequential(nn.BatchNorm1d(4, affine=False), nn.InstanceNorm2d(3), "
    "nn.GroupNorm(2, 4), nn.LayerNorm([2, 3], elementwise_affine=False), "
    "nn.LocalResponseNorm(2), nn.RMSNorm(4), nn.GRU(2, 3, batch_first=True), "
    "nn.RNN(2, 3, nonlinearity='relu', bias=False), nn.LSTMCell(2, 3), "
    "nn.LSTM(3, 5, proj_size=2), nn.Bilinear(2, 3, 4), nn.EmbeddingBag(5, 2, mode='sum'), "
    "nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True))",
    "nn.Sequential(nn.CrossEntropyLoss(), nn.MSELoss(), nn.BCEWithLogitsLoss(), nn.CTCLoss(), "
    "nn.NLLLoss(weight=torch.ones(3)))",
    "nn.Sequential(nn.utils.parametrizations.weight_norm(nn.Linear(3, 4)), nn.ReLU(), "
    "nn.utils.parametrizations.spectral_norm(nn.Conv2d(2, 3, 3)))",
    "nn.ParameterList([nn.Parameter(torch.zeros(2, 3)), nn.Parameter(torch.zeros(4))])",
    "nn.ParameterDict({'a': nn.Parameter(torch.zeros(2)), 'b': nn.Parameter(torch.ones(1, 3))})",
]


def record_models(cases):
    for ctor in MODELS:
        m = eval(ctor, {"nn": nn, "torch": torch})
        cases.append({
            "ctor": ctor,
            "repr": repr(m),
            "state_dict": [[k, list(v.shape)] for k, v in m.state_dict().items()],
            "parameters": [k for k, _ in m.named_parameters()],
            "buffers": [k for k, _ in m.named_buffers()],
            "modules": [k for k, _ in m.named_modules()],
        })


# ---- initialisation ------------------------------------------------------------------------

INIT_MODULES = [
    "nn.Linear(400, 300)", "nn.Conv2d(16, 32, 5)", "nn.ConvTranspose2d(16, 32, 3, groups=2)",
    "nn.Conv1d(8, 4, 7)", "nn.Bilinear(30, 20, 50)", "nn.Embedding(500, 64)",
    "nn.LSTM(64, 128, 2)", "nn.GRUCell(30, 50)", "nn.MultiheadAttention(64, 4)",
    "nn.MultiheadAttention(64, 4, kdim=32, vdim=16, add_bias_kv=True)",
    "nn.BatchNorm2d(10)", "nn.LayerNorm(10)", "nn.PReLU(5)",
    "nn.Transformer(32, 4, 1, 1, 64)",
]

INIT_CALLS = [
    "nn.init.uniform_(t, -0.3, 0.7)", "nn.init.normal_(t, 0.5, 2.0)",
    "nn.init.trunc_normal_(t, 0.2, 1.0, -1.0, 1.5)", "nn.init.constant_(t, 0.25)",
    "nn.init.ones_(t)", "nn.init.zeros_(t)", "nn.init.eye_(t)", "nn.init.xavier_uniform_(t)",
    "nn.init.xavier_normal_(t, gain=2.0)", "nn.init.kaiming_uniform_(t)",
    "nn.init.kaiming_uniform_(t, a=0.3, mode='fan_out', nonlinearity='leaky_relu')",
    "nn.init.kaiming_normal_(t, nonlinearity='relu')",
    "nn.init.kaiming_normal_(t, mode='fan_out', nonlinearity='tanh')",
    "nn.init.orthogonal_(t, gain=1.5)", "nn.init.sparse_(t, 0.3)",
]

GAINS = ["nn.init.calculate_gain('linear')", "nn.init.calculate_gain('conv2d')",
         "nn.init.calculate_gain('sigmoid')", "nn.init.calculate_gain('tanh')",
         "nn.init.calculate_gain('relu')", "nn.init.calculate_gain('leaky_relu')",
         "nn.init.calculate_gain('leaky_relu', 0.2)", "nn.init.calculate_gain('selu')"]


def stats(t):
    a = t.detach().double().numpy().ravel()
    return {"shape": list(t.shape), "min": float(a.min()), "max": float(a.max()),
            "mean": float(a.mean()), "std": float(a.std()),
            "zeros": float((a == 0).mean())}


def record_init(cases):
    torch.manual_seed(0)
    modules = []
    for ctor in INIT_MODULES:
        m = eval(ctor, {"nn": nn, "torch": torch})
        modules.append({"ctor": ctor, "params": {k: stats(v) for k, v in
                                                 m.state_dict().items()
                                                 if v.is_floating_point()}})
    calls = []
    for call in INIT_CALLS:
        shape = (300, 200) if "sparse" in call or "eye" in call or "orthogonal" in call \
            else (64, 32, 3, 3)
        t = torch.empty(shape, dtype=torch.float64)
        eval(call, {"nn": nn}, {"t": t})
        s = stats(t)
        if "orthogonal" in call:
            s["gram_dev"] = float((t.T @ t / 2.25 - torch.eye(200, dtype=torch.float64))
                                  .abs().max())
        calls.append({"call": call, "shape": list(shape), "stats": s})
    dirac = torch.empty(6, 2, 3, 3)
    nn.init.dirac_(dirac, groups=2)
    gains = {g: eval(g, {"nn": nn}) for g in GAINS}
    cases.update(modules=modules, calls=calls, gains=gains)
    return dirac.numpy()


# ---- error messages ------------------------------------------------------------------------

ERRORS = [
    "F.conv2d(torch.zeros(1, 3, 5, 5), torch.zeros(4, 2, 3, 3))",
    "F.conv2d(torch.zeros(1, 2, 2, 2), torch.zeros(4, 2, 3, 3))",
    "F.conv2d(torch.zeros(5, 5), torch.zeros(4, 2, 3, 3))",
    "nn.Linear(3, 4)(torch.zeros(2, 5))",
    "m = nn.Linear(3, 4); m.load_state_dict({'weight': torch.zeros(4, 2), "
    "'bias': torch.zeros(4)})",
    "m = nn.Linear(3, 4); m.load_state_dict({'weight': torch.zeros(4, 3), 'extra': "
    "torch.zeros(1)})",
    "nn.BatchNorm1d(3)(torch.zeros(1, 3))",
    "F.layer_norm(torch.zeros(2, 3), (4,))",
    "F.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 3]))",
    "F.glu(torch.zeros(2, 3))",
    "F.max_pool2d(torch.zeros(1, 1, 4, 4), 2, padding=2)",
    "F.group_norm(torch.zeros(2, 6, 3), 4)",
    "nn.Sequential(nn.ReLU())[3]",
    "nn.Module().register_buffer('a.b', torch.zeros(1))",
    "m = nn.Module(); m.x = 1; m.register_parameter('x', nn.Parameter(torch.zeros(1)))",
    "nn.Linear(2, 2).get_submodule('foo')",
    "nn.Embedding(3, 2)(torch.tensor([0.5]))",
    "nn.utils.rnn.pack_padded_sequence(torch.zeros(3, 2, 1), [1, 3])",
    "F.dropout(torch.zeros(2), 1.5)",
    "nn.LSTM(3, 4)(torch.zeros(5, 2, 2))",
    "F.nll_loss(torch.zeros(2, 3), torch.tensor([0, 1, 2]))",
    "nn.MultiheadAttention(8, 3)",
    "F.pixel_shuffle(torch.zeros(1, 3, 2, 2), 2)",
    "F.interpolate(torch.zeros(1, 1, 4), scale_factor=2, mode='bilinear')",
    "nn.Conv2d(3, 4, 3, groups=2)",
    "F.embedding(torch.tensor([5]), torch.zeros(3, 2))",
    "nn.Linear(2, 3).load_state_dict([])",
    "F.one_hot(torch.tensor([3]), 2)",
    "F.cross_entropy(torch.zeros(2, 3), torch.zeros(2, 4))",
    "F.conv_transpose2d(torch.zeros(1, 3, 4, 4), torch.zeros(2, 2, 3, 3))",
    "F.avg_pool2d(torch.zeros(1, 1, 4, 4), 2, padding=2)",
    "nn.Sequential(nn.Linear(2, 2)).insert(5, nn.ReLU())",
    "nn.Module()(torch.zeros(1))",
    "nn.RNN(3, 4, nonlinearity='sigmoid')",
    "nn.LayerNorm(4)(torch.zeros(2, 3))",
    "F.prelu(torch.zeros(2, 3), torch.zeros(2))",
]


def record_errors(cases):
    for code in ERRORS:
        try:
            exec(code, {"nn": nn, "torch": torch, "F": F})
        except Exception as e:  # noqa: BLE001 - the message is what we record
            cases.append({"code": code, "type": type(e).__name__, "message": str(e)})
        else:
            raise SystemExit(f"expected an error from: {code}")


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.set_default_dtype(torch.float32)
    cases = {"torch_version": torch.__version__, "functional": [], "modules": [], "models": [],
             "init": {}, "errors": []}
    functional_arrays, module_arrays = {}, {}
    record_functional(functional_arrays, cases["functional"])
    record_modules(module_arrays, cases["modules"])
    record_models(cases["models"])
    functional_arrays["init/dirac"] = record_init(cases["init"])
    record_errors(cases["errors"])
    np.savez_compressed(os.path.join(OUT, "functional.npz"), **functional_arrays)
    np.savez_compressed(os.path.join(OUT, "modules.npz"), **module_arrays)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
    print(f"wrote {len(cases['functional'])} functional, {len(cases['modules'])} module, "
          f"{len(cases['models'])} model, {len(cases['errors'])} error cases to {OUT}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
