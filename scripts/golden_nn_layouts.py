"""Record which memory layout PyTorch gives the results of its nn layers, for
tests/test_nn_layouts.py: the strides of conv/pool/norm/resample/shuffle/
dropout/pad outputs (and of max pooling's indices) for channels_last and
channels_last_3d inputs, of conv with only the weight channels-last, and of
the input gradient when the output's gradient arrives in the output's layout
(dx(f, x): autograd.grad(f(x), x, ones_like(f(x))), so no leaf's .grad
layout rule is involved); also what nn.utils.convert_conv{2,3}d_weight_
memory_format does to a module tree.

Run with an interpreter that has PyTorch:
    python scripts/golden_nn_layouts.py
writes tests/golden/nn_layouts.json ([call, outcome] pairs over T, the library)."""
from golden_calls import det, record


def inputs(T):
    F = T.nn.functional
    cl, cl3 = T.channels_last, T.channels_last_3d
    x4 = det(T, 2, 3, 6, 6)
    x5 = det(T, 2, 3, 4, 4, 4, s=0.7)

    def dx(f, x):
        """The strides of the input gradient of f at x, the output's
        gradient laid out as the output."""
        x = x.detach().requires_grad_()
        y = f(x)
        y = y[0] if isinstance(y, tuple) else y
        return T.autograd.grad(y, x, T.ones_like(y))[0].stride()

    def convs(memory_format, three=False):
        """The weight strides of a small tree after the conversion."""
        C = T.nn
        m = C.Sequential(C.Conv2d(3, 4, 3), C.Sequential(C.ConvTranspose2d(4, 2, 2), C.Linear(5, 5)),
                         C.Conv3d(2, 2, 2), C.ConvTranspose3d(2, 2, 2), C.Conv1d(2, 2, 2))
        f = (T.nn.utils.convert_conv3d_weight_memory_format if three
             else T.nn.utils.convert_conv2d_weight_memory_format)
        before = [p for p in m.parameters()]
        out = f(m, memory_format)
        return (out is m, all(a is b for a, b in zip(before, m.parameters())),
                [list(p.stride()) for n, p in m.named_parameters() if n.endswith("weight")])

    return {"T": T, "F": F, "x4": x4, "x5": x5, "cl": x4.contiguous(memory_format=cl),
            "cl3": x5.contiguous(memory_format=cl3), "cl4": det(T, 2, 4, 6, 6).contiguous(memory_format=cl), "dx": dx, "convs": convs,
            "w": det(T, 4, 3, 3, 3, s=0.5), "wcl": det(T, 4, 3, 3, 3, s=0.5).contiguous(memory_format=cl),
            "wt": det(T, 3, 2, 3, 3, s=0.4), "w5": det(T, 4, 3, 2, 2, 2, s=0.6),
            "wt5": det(T, 3, 2, 2, 2, 2, s=0.2), "d": T.float64,
            "nhwc": det(T, 2, 6, 6, 3).permute(0, 3, 1, 2), "nhwc2": det(T, 2, 6, 6, 6).permute(0, 3, 1, 2)[:, ::2]}


CALLS = [
    # convolution: channels-last when the input or the weight is (4-d; 5-d outside float64)
    "F.conv2d(cl, w).stride()", "F.conv2d(cl, w, T.ones(4), padding=1, stride=2).stride()",
    "F.conv2d(cl, w, dilation=2).stride()", "F.conv2d(cl, T.ones(3, 1, 3, 3), groups=3).stride()",
    "F.conv2d(x4, wcl).stride()", "F.conv2d(x4, w).stride()", "F.conv2d(x4, T.ones(4, 3, 1, 1)).stride()",
    "F.conv2d(nhwc, w).stride()", "F.conv2d(nhwc2, w).stride()", "F.conv2d(cl.double(), w.double()).stride()",
    "F.conv2d(cl, T.ones(4, 3, 6, 6)).stride()", "F.conv2d(cl[:1], w).stride()",
    "F.conv2d(x4[:, :1].contiguous(memory_format=T.channels_last), w[:, :1]).stride()",
    "F.conv_transpose2d(cl, wt).stride()", "F.conv_transpose2d(x4, wt.contiguous(memory_format=T.channels_last)).stride()",
    "F.conv_transpose2d(cl, wt, stride=2, output_padding=1).stride()",
    "F.conv3d(cl3, w5).stride()", "F.conv3d(x5, w5.contiguous(memory_format=T.channels_last_3d)).stride()",
    "F.conv3d(cl3.double(), w5.double()).stride()", "F.conv_transpose3d(cl3, wt5).stride()",
    "F.conv_transpose3d(cl3.double(), wt5.double()).stride()",
    "F.conv1d(x4[0].transpose(0, 1), T.ones(2, 3, 2)).stride()",
    "dx(lambda t: F.conv2d(t, w), cl)", "dx(lambda t: F.conv2d(t, wcl), x4)",
    "dx(lambda t: F.conv2d(t, w.double(), padding=1), cl.double())",
    "dx(lambda t: F.conv_transpose2d(t, wt), cl)", "dx(lambda t: F.conv3d(t, w5), cl3)",
    # pooling
    "F.max_pool2d(cl, 2).stride()", "F.max_pool2d(cl, 3, 2, 1, ceil_mode=True).stride()",
    "F.max_pool2d(cl, 2, return_indices=True)[1].stride()", "F.max_pool2d(nhwc2, 2).stride()",
    "F.max_pool3d(cl3, 2).stride()", "F.max_pool3d(cl3, 2, return_indices=True)[1].stride()",
    "F.avg_pool2d(cl, 2).stride()", "F.avg_pool2d(cl, 3, 1, 1, count_include_pad=False).stride()",
    "F.avg_pool3d(cl3, 2).stride()", "F.lp_pool2d(cl, 2, 2).stride()",
    "F.adaptive_avg_pool2d(cl, (3, 2)).stride()", "F.adaptive_avg_pool2d(cl, 1).stride()",
    "F.adaptive_max_pool2d(cl, (3, 2)).stride()",
    "F.adaptive_max_pool2d(cl, (3, 2), return_indices=True)[1].stride()",
    "F.adaptive_avg_pool3d(cl3, (3, 2, 2)).stride()", "F.adaptive_max_pool3d(cl3, (3, 2, 2)).stride()",
    "F.fractional_max_pool2d(cl, 2, output_size=3, _random_samples=T.full((2, 3, 2), 0.5)).stride()",
    "F.max_pool2d(cl.double(), 2).stride()", "F.avg_pool2d(cl.double(), 2).stride()",
    "dx(lambda t: F.max_pool2d(t, 2), cl)", "dx(lambda t: F.max_pool2d(t, 3, 1, 1), cl.double())",
    "dx(lambda t: F.avg_pool2d(t, 2), cl)", "dx(lambda t: F.max_pool3d(t, 2), cl3)",
    "dx(lambda t: F.adaptive_avg_pool2d(t, (3, 2)), cl)",
    "dx(lambda t: F.adaptive_max_pool2d(t, (3, 2)), cl)", "dx(lambda t: F.avg_pool3d(t, 2), cl3)",
    "dx(lambda t: F.adaptive_avg_pool3d(t, 2), cl3)",
    # normalisation
    "F.batch_norm(cl, None, None, training=True).stride()",
    "F.batch_norm(cl, T.zeros(3), T.ones(3), T.ones(3), T.zeros(3)).stride()",
    "F.batch_norm(cl3, None, None, training=True).stride()", "F.batch_norm(nhwc2, None, None, training=True).stride()",
    "F.batch_norm(cl.double(), None, None, training=True).stride()",
    "F.group_norm(cl, 3).stride()", "F.group_norm(cl3, 1).stride()", "F.instance_norm(cl).stride()",
    "F.instance_norm(cl3).stride()", "F.layer_norm(cl, (6, 6)).stride()",
    "F.local_response_norm(cl, 2).stride()",
    "dx(lambda t: F.batch_norm(t, None, None, training=True), cl)",
    "dx(lambda t: F.batch_norm(t, T.zeros(3), T.ones(3)), cl)",
    "dx(lambda t: F.batch_norm(t, None, None, T.ones(3), T.zeros(3), training=True), cl3)",
    "dx(lambda t: F.group_norm(t, 3), cl)", "dx(lambda t: F.instance_norm(t), cl)",
    "dx(lambda t: F.layer_norm(t, (6, 6)), cl)", "dx(lambda t: F.local_response_norm(t, 2), cl)",
    # resampling
    "F.interpolate(cl, scale_factor=2).stride()", "F.interpolate(cl, size=(5, 7), mode='nearest-exact').stride()",
    "F.interpolate(cl, scale_factor=2, mode='bilinear').stride()",
    "F.interpolate(cl, size=(5, 7), mode='bilinear', align_corners=True).stride()",
    "F.interpolate(cl, scale_factor=2, mode='bicubic').stride()",
    "F.interpolate(cl, size=(3, 3), mode='bilinear', antialias=True).stride()",
    "F.interpolate(cl, size=(3, 3), mode='area').stride()",
    "F.interpolate(cl3, scale_factor=2, mode='trilinear').stride()", "F.interpolate(cl3, scale_factor=2).stride()",
    "T.nn.Upsample(scale_factor=2)(cl).stride()", "F.interpolate(x4[0].transpose(1, 2), scale_factor=2).stride()",
    "dx(lambda t: F.interpolate(t, scale_factor=2), cl)",
    "dx(lambda t: F.interpolate(t, scale_factor=2, mode='bilinear'), cl)",
    "dx(lambda t: F.interpolate(t, scale_factor=2, mode='bicubic'), cl)",
    "dx(lambda t: F.interpolate(t, scale_factor=2, mode='trilinear'), cl3)",
    "dx(lambda t: F.interpolate(t, scale_factor=2), cl3)",
    # shuffles, dropout, padding
    "F.pixel_shuffle(cl4, 2).stride()", "F.pixel_unshuffle(cl, 2).stride()",
    "F.channel_shuffle(cl, 3).stride()",
    "dx(lambda t: F.pixel_shuffle(t, 2), cl4)", "dx(lambda t: F.pixel_unshuffle(t, 2), cl)",
    "F.dropout(cl, 0.5).stride()", "F.dropout2d(cl, 0.5).stride()", "F.dropout3d(cl3, 0.5).stride()",
    "F.alpha_dropout(cl, 0.5, True).stride()", "F.feature_alpha_dropout(cl, 0.5, True).stride()",
    "dx(lambda t: F.dropout2d(t, 0.5), cl)", "dx(lambda t: F.dropout(t, 0.5), cl)",
    "F.pad(cl, (1, 1, 1, 1)).stride()", "F.pad(cl, (1, 2, 0, 1), value=3.0).stride()",
    "F.pad(cl, (1, 1, 1, 1), mode='reflect').stride()", "F.pad(cl, (1, 1, 1, 1), mode='replicate').stride()",
    "F.pad(cl, (1, 1, 1, 1), mode='circular').stride()", "F.pad(cl3, (1, 1, 1, 1, 1, 1), mode='replicate').stride()",
    "F.pad(cl, (-1, 1, 0, 0)).stride()",
    "dx(lambda t: F.pad(t, (1, 1, 1, 1)), cl)", "dx(lambda t: F.pad(t, (1, 1, 1, 1), mode='reflect'), cl)",
    "dx(lambda t: F.pad(t, (1, 1, 1, 1), mode='replicate'), cl)",
    # softmax over channels, grid_sample and unfold stay row-major
    "F.softmax(cl, 1).stride()", "F.unfold(cl, 2).stride()",
    "F.grid_sample(cl, T.zeros(2, 4, 4, 2), align_corners=False).stride()",
    # nn.utils: the conv weights of a module tree
    "convs(T.channels_last)", "convs(T.channels_last_3d, three=True)", "convs(T.contiguous_format)",
    "convs(T.channels_last_3d)", "convs(T.channels_last, three=True)",
]


def describe(r):
    if isinstance(r, tuple):
        return ["tuple", [describe(v)[1] if isinstance(v, tuple) else v for v in r]]
    return [type(r).__name__, r]


def main():
    record(CALLS, inputs, describe, "nn_layouts", messages=True)


if __name__ == "__main__":
    main()
