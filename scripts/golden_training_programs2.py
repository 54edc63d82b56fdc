"""Record PyTorch's answers to the calls a second round of training programs
made (char-level RNN LM, GPT-style LM, DCGAN/VAE, ResNet with EMA and
resumable checkpoints, metric code, data pipelines), for
tests/test_training_programs2.py: the exact values of float32 linspace /
logspace, quantile's interpolation, logcumsumexp's rounding, log_softmax and
cross_entropy on large logits, the reprs of named results, and the
torch._foreach_* functions (forms of the second operand, results, errors).

Run with an interpreter that has PyTorch:
    python scripts/golden_training_programs2.py
writes tests/golden/training_programs2.json ([call, outcome] pairs over T)."""
from golden_calls import det, record


class Box:
    """A sample type of a program's own, collated by a collator it registers."""

    def __init__(self, v):
        self.v = v


def inputs(T):
    import importlib
    import numpy as np

    def collate_box(batch, *, collate_fn_map=None):
        return T.tensor([b.v for b in batch])

    def strip_prefix(items, meta_keys, prefix):
        """consume_prefix_in_state_dict_if_present on a state dict of items
        whose _metadata has meta_keys: the keys left in both."""
        import collections
        sd = collections.OrderedDict(items)
        sd._metadata = {k: {"version": i} for i, k in enumerate(meta_keys)}
        importlib.import_module(T.__name__ + ".nn.modules.utils") \
            .consume_prefix_in_state_dict_if_present(sd, prefix)
        return list(sd.items()), sorted(sd._metadata.items())

    def printed(t, **opts):
        """str(t) under set_printoptions(**opts), the defaults restored after."""
        T.set_printoptions(**opts)
        try:
            return str(t)
        finally:
            T.set_printoptions(profile="default")

    def warned(fn):
        """The messages of the warnings fn() raises."""
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn()
        return [str(w.message) for w in caught]

    nn = T.nn

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(T.ones(2))

        def forward(self, a, b, k=1):
            return a * b * k * self.w

    def hooked(requires_grad, result=None):
        """What a full backward hook of a module called as m(x, 3.0) sees
        (grad_input's entries: shapes or None) and the warnings raised."""
        seen = []

        def hook(module, grad_input, grad_output):
            seen.append([None if g is None else list(g.shape) for g in grad_input])
            return result

        m = Two()
        m.register_full_backward_hook(hook)
        x = T.ones(2, requires_grad=requires_grad)
        messages = warned(lambda: m(x, 3.0).sum().backward())
        return seen, [w[:40] for w in messages]

    enc_layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True)
    return {"T": T, "F": T.nn.functional, "printed": printed, "warned": warned,
            "ENC": nn.TransformerEncoder(enc_layer, 2, enable_nested_tensor=False),
            "LAYER": enc_layer, "MHA": nn.MultiheadAttention(8, 2, batch_first=True),
            "hooked": hooked, "X8": det(T, 2, 5, 8), "KPM": T.tensor([[False] * 5, [False, False, False, True, True]]),
            "CAUSAL": nn.Transformer.generate_square_subsequent_mask(5), "X": det(T, 6, 5, s=0.7) * 3, "np": np, "Box": Box,
            "M": lambda path: importlib.import_module(T.__name__ + path), "collate_box": collate_box,
            "strip_prefix": strip_prefix,
            "Y": T.tensor([0, 4, 2, 1, 3, 0]),
            "A": [T.tensor([1.0, -2.0]), T.tensor([3.0])],
            "B": [T.tensor([0.5, 4.0]), T.tensor([-1.0])],
            "I": [T.tensor([1, 2]), T.tensor([3])]}


CALLS = [
    # linspace / logspace: PyTorch's float32 arithmetic and n // 2 switch point
    "T.linspace(0, 1, 20)", "T.linspace(1, -1, 7)", "T.linspace(-3.3, 2.7, 10)",
    "T.linspace(0, 1, 15)", "T.linspace(0, 1, 10, dtype=T.float64)", "T.linspace(1, -1, 7, dtype=T.float64)",
    "T.linspace(-33, 27, 10, dtype=T.int64)", "T.linspace(0.5, 2, 1)", "T.linspace(0, 1, 0)",
    "T.logspace(0, 2, 7)", "T.logspace(0.1, 1e-3, 7)", "T.logspace(0.1, 1e-3, 10, base=2, dtype=T.float64)",
    # quantile: q in the input's dtype, ranks in double, fused lerp
    "T.quantile(T.tensor([0.1, 0.2, 0.33, 0.81]), T.tensor([0.7, 0.9, 0.1]))",
    "T.quantile(T.tensor([0.7, 0.1, 0.3, 0.9, 0.5, 0.25]), 0.33)",
    "T.quantile(X, T.tensor([0.15, 0.85]), dim=1)",
    "T.quantile(X.double(), T.tensor([0.15, 0.85], dtype=T.float64), dim=0)",
    "T.quantile(X, 0.4, dim=0, interpolation='midpoint')",
    "T.nanquantile(T.tensor([0.3, float('nan'), 0.8, 0.1]), 0.3)",
    # logcumsumexp accumulates float32 in double
    "T.logcumsumexp(T.tensor([0.0, 1.0, 2.0, -1.0, 3.5]), 0)", "T.logcumsumexp(X, 1)",
    # log_softmax / cross_entropy keep (x - max) - log(sum) on large logits
    "F.log_softmax(T.tensor([1e4, 1e4 + 1, 1e4 - 3]), 0)", "F.log_softmax(X + 1e4, 1)",
    "F.log_softmax(X + 1e4, 0)", "F.log_softmax(T.tensor([1.0, 2.0]), 0)",
    "F.cross_entropy(X + 1e4, Y)", "F.cross_entropy(X + 1e4, Y, reduction='none')",
    "F.cross_entropy(X * 100, Y, label_smoothing=0.1, reduction='sum')",
    # named results print as PyTorch prints them
    "repr(T.sort(T.tensor([2, 1])))", "str(T.tensor([[1, 5], [3, 2]]).max(1))",
    "repr(T.topk(T.tensor([1.0, 3.0, 2.0]), 2))",
    # a forced sci_mode picks the notation before the column width is measured
    "printed(T.tensor([0.126, -0.132, 0.64]), sci_mode=True)",
    "printed(T.tensor([[1e-5, 2.0], [3.0, -4.0]]), sci_mode=True, precision=2)",
    "printed(T.tensor([1e-5, -1e5, 3.0]), sci_mode=False)", "printed(T.tensor([1.0, -1e9]), sci_mode=False)",
    "printed(T.tensor([1.0, -2.0, 30.0]), sci_mode=True)", "printed(T.tensor([1e-5, 1e5]))",
    # strides PyTorch's view gives size-1 dims (rotary embeddings' view_as_complex checks them)
    "T.zeros(8, 16).view(1, 8, 16).stride()", "T.zeros(8, 16).view(8, 1, 16).stride()",
    "T.zeros(8, 16).view(8, 16, 1).stride()", "T.zeros(8, 16).t().reshape(16, 1, 8, 1).stride()",
    "T.zeros(4, 6)[:, 1:2].view(1, 4, 1).stride()", "T.zeros(2, 1, 3).expand(2, 4, 3)[:, :1].view(1, 2, 3).stride()",
    "T.zeros(0, 3).view(3, 0, 1).stride()", "T.zeros(()).view(1, 1).stride()",
    "F.linear(T.ones(1, 8, 16), T.ones(4, 16)).stride()",
    "T.view_as_complex(F.linear(T.ones(1, 3, 4), X[:4, :4]).reshape(1, 3, 2, 2))",
    # PyTorch's deprecation warning for mismatched mask dtypes, once per module call
    "warned(lambda: ENC(X8, mask=CAUSAL, src_key_padding_mask=KPM))",
    "warned(lambda: LAYER(X8, src_mask=CAUSAL, src_key_padding_mask=KPM))",
    "warned(lambda: MHA(X8, X8, X8, key_padding_mask=KPM, attn_mask=CAUSAL))",
    "warned(lambda: MHA(X8, X8, X8, key_padding_mask=KPM, attn_mask=CAUSAL == float('-inf')))",
    "[m[:40] for m in warned(lambda: T.zeros(2, 4).scatter(1, T.tensor([[0, 1], [2, 2]]), T.ones(2, 2), reduce='add'))]",
    "warned(lambda: T.zeros(2, 4).scatter(1, T.tensor([[0, 1], [2, 2]]), 2.0, reduce='multiply'))",
    "T.linspace(2 + 1j, 3, 1)", "T.linspace(0, 1 + 2j, 4)", "T.linspace(2 + 1j, -3.3 + 0.7j, 7, dtype=T.complex128)",
    # full backward hooks: grad_input has an entry per positional argument;
    # with no input requiring grad they fire from the output, with a warning
    "hooked(True)", "hooked(False)", "hooked(False, (T.ones(2), None))", "hooked(True, (T.ones(2),))",
    # torch._foreach_*
    "T._foreach_add(A, 1)", "T._foreach_add(A, [1, 2])", "T._foreach_add(A, B, alpha=2)",
    "T._foreach_add(A, T.tensor(0.5))", "T._foreach_sub(A, B, alpha=0.5)", "T._foreach_mul(A, T.tensor(3.0))",
    "T._foreach_mul(A, [2.0, -1.0])", "T._foreach_div(A, B)", "T._foreach_div(I, 2)", "T._foreach_add(I, 1.5)",
    "T._foreach_maximum(A, B)", "T._foreach_minimum(A, 0.0)", "T._foreach_clamp_min(A, [0.0, 5.0])",
    "T._foreach_clamp_max(A, 0.5)", "T._foreach_pow(A, 2)", "T._foreach_pow(A, [2, 3])", "T._foreach_pow(2, A)",
    "T._foreach_lerp(A, B, 0.25)", "T._foreach_lerp(A, B, [0.1, 0.9])", "T._foreach_lerp(A, B, B)",
    "T._foreach_addcmul(A, A, B, value=2)", "T._foreach_addcdiv(A, A, B, [1, 2])",
    "T._foreach_addcdiv(A, A, B, T.tensor([0.5, 2.0]))",
    "T._foreach_sqrt(B)", "T._foreach_exp(A)", "T._foreach_neg(A)", "T._foreach_abs(A)", "T._foreach_sign(A)",
    "T._foreach_reciprocal(A)", "T._foreach_frac([T.tensor([1.25, -1.25])])", "T._foreach_sigmoid(A)",
    "T._foreach_norm(A)", "T._foreach_norm(A, 1)", "T._foreach_norm(A, float('inf'))",
    "T._foreach_norm(A, 2, dtype=T.float64)", "T._foreach_max(A)", "T._foreach_powsum(A, 3)",
    "T._foreach_clone(A)", "T._foreach_mm([T.ones(2, 3)], [T.ones(3, 1)])",
    "T._foreach_add_(A, 1)", "T._foreach_mul_(A, [3.0, 0.5])", "T._foreach_lerp_(A, B, 0.5)",
    "T._foreach_zero_(A)", "T._foreach_copy_(A, B)", "T._foreach_sqrt_([T.tensor([4.0, 9.0])])",
    "T._foreach_maximum_(A, 0.0)", "T._foreach_addcmul_(A, B, B, value=-1)",
    "T._foreach_add([], 1)", "T._foreach_add(A, [T.ones(2)])", "T._foreach_add(A, [1])",
    "T._foreach_add(A, T.ones(2))", "T._foreach_add(A, 2, alpha=3)", "T._foreach_mul(A, B, alpha=2)",
    # PyTorch's module paths that model code imports from
    "M('.nn.modules.utils')._pair(3)", "M('.nn.modules.utils')._triple([1, 2])",
    "M('.nn.modules.utils')._quadruple(0)", "M('.nn.modules.utils')._reverse_repeat_tuple((1, 2, 3), 2)",
    "M('.nn.modules.utils')._ntuple(5, 'five')(1.5)", "M('.nn.modules.utils')._pair.__name__",
    "strip_prefix([('module.a', 1), ('module.b.c', 2), ('d', 3)], ['', 'module', 'module.b', 'x'], 'module.')",
    "issubclass(T.nn.SyncBatchNorm, M('.nn.modules.batchnorm')._BatchNorm)",
    "issubclass(T.nn.BatchNorm1d, M('.nn.modules.batchnorm')._NormBase)",
    "issubclass(T.nn.InstanceNorm2d, M('.nn.modules.instancenorm')._InstanceNorm)",
    "issubclass(T.nn.AdaptiveAvgPool3d, M('.nn.modules.pooling')._AdaptiveAvgPoolNd)",
    "[sorted(M('.nn.modules.' + m).__all__) for m in ('flatten', 'fold', 'distance', 'pixelshuffle', 'upsampling', 'channelshuffle', 'batchnorm')]",
    "sorted(M('.nn.modules.padding').__all__)", "M('.nn.common_types')._size_2_t == M('.nn.common_types')._scalar_or_tuple_2_t[int]",
    "M('.types').Number == (int | float | bool)",
    # typed datasets and samplers; collate with a map of collators
    "T.utils.data.Dataset[int].__origin__ is T.utils.data.Dataset",
    "[c[int].__origin__.__name__ for c in (T.utils.data.IterableDataset, T.utils.data.Subset, T.utils.data.ConcatDataset, T.utils.data.Sampler, T.utils.data.DataLoader)]",
    "M('.utils.data._utils.collate').collate([{'b': Box(1), 'x': np.float32(2)}, {'b': Box(3), 'x': np.float32(4)}], collate_fn_map={**M('.utils.data._utils.collate').default_collate_fn_map, Box: collate_box})",
    "M('.utils.data._utils.collate').collate([Box(1)], collate_fn_map={Box: collate_box})",
    "M('.utils.data._utils.collate').collate([1, 2], collate_fn_map={Box: collate_box})",
    "M('.utils.data._utils.collate').default_collate([(np.float64(1.5), True, np.array([1, 2]), 's')] * 2)",
    "M('.utils.data._utils.collate').default_collate([np.int32(3), np.int32(4)])",
]


def describe(r):
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        a = r.detach()
        values = a.tolist()
        if a.is_complex():  # JSON has no complex numbers: [real, imag] pairs
            values = [a.real.tolist(), a.imag.tolist()]
        return ["tensor", str(r.dtype).split(".")[-1], list(r.shape), values]
    if isinstance(r, str):
        return ["str", r.replace("torchlike.", "torch.")]
    if isinstance(r, (list, tuple)):
        return [type(r).__name__, [describe(x) for x in r]]
    if isinstance(r, dict):
        return ["dict", {k: describe(v) for k, v in r.items()}]
    return [type(r).__name__, r]


def main():
    record(CALLS, inputs, describe, "training_programs2", messages=True)


if __name__ == "__main__":
    main()
