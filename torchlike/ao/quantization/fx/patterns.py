"""What FX graph mode quantization recognises (the x86 / fbgemm
BackendConfig's static int8 patterns, PyTorch's defaults): how each node
of a traced model is quantized.  Kinds:

    module      a module with a quantized counterpart (Linear, Conv, the
                fused modules, norms, activations): its input and output
                observed, convert swaps in ``mapping[type].from_float``
    linear      F.linear (optionally followed by a relu): input, weight and
                output observed; convert calls quantized::linear(_relu)
                with a packed weight
    binary      a + b, a * b of two tensors (optionally then a relu):
                quantized::add / add_relu / mul / mul_relu
    scalar      a + c, a * c with a number c: quantized::add / mul's Scalar
                forms, whose output qparams follow from the input's (the
                output observer is the input's, as for share ops)
    share       ops that keep their input's qparams (pooling, relu, flatten,
                cat, views): their output observer is their input's
    fixed       sigmoid, tanh, hardsigmoid with a FixedQParamsObserver qconfig
                (PyTorch's default mapping gives them one): lowered as share
                ops, the quantized op's output has the fixed qparams
    observed    x.flatten(): its input and output get observers of their own,
                and convert leaves it float between dequantize and quantize
    (a share op whose qconfig is ReuseInputObserver, reshape in the default
    mapping, gets no input observer: it shares its input's if there is one)
Everything else stays float; convert dequantizes its quantized inputs."""
import operator

import torchlike as _t  # the functions as models call them (torch.relu, torch.cat)
from ....nn import functional as F
from ....nn.modules import activation as _act, pooling as _pool
from ....nn.modules.dropout import Dropout
from ....nn.modules.linear import Identity
from ....nn.modules.sparse import Embedding, EmbeddingBag
from ...nn import intrinsic as nni

RELU_FUNCTIONS = (F.relu, _t.relu)
BINARY = {operator.add: "add", _t.add: "add", operator.mul: "mul", _t.mul: "mul"}
SHARE_MODULES = (_pool.AdaptiveAvgPool1d, _pool.AdaptiveAvgPool2d, _pool.AvgPool1d,
                 _pool.AvgPool2d, _pool.MaxPool1d, _pool.MaxPool2d, _act.ReLU, _act.ReLU6,
                 _act.Hardtanh, Identity, Dropout)
SHARE_FUNCTIONS = (F.relu, _t.relu, F.relu6, F.hardtanh, F.max_pool1d, F.max_pool2d,
                   F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.avg_pool1d, F.avg_pool2d,
                   _t.flatten, _t.mean, _t.transpose, _t.squeeze, _t.unsqueeze, _t.cat,
                   _t.clamp)
SHARE_METHODS = ("view", "permute", "transpose", "squeeze", "unsqueeze", "contiguous",
                 "relu", "mean", "detach", "clamp", "reshape")
# observed in and out by PyTorch's backend config, then left float between them
OBSERVED_METHODS = ("flatten",)
FIXED_MODULES = (_act.Sigmoid, _act.Tanh, _act.Hardsigmoid)
FIXED_FUNCTIONS = (_t.sigmoid, _t.tanh, F.sigmoid, F.tanh, F.hardsigmoid)
FIXED_METHODS = ("sigmoid", "tanh", "hardsigmoid")
# modules observed and converted by the static mapping but not as "module" patterns
# (embeddings are weight-only: a static int8 qconfig leaves them float, as PyTorch's)
_NOT_MODULE_PATTERNS = (Embedding, EmbeddingBag)


def static_module_mapping():
    from ..quantize import get_default_static_quant_module_mappings
    mapping = get_default_static_quant_module_mappings()
    for t in _NOT_MODULE_PATTERNS:
        mapping.pop(t, None)
    return mapping


def is_relu(node, modules):
    if node.op == "call_module":
        return type(modules.get(node.target)) is _act.ReLU
    if node.op == "call_method":
        return node.target == "relu"
    return node.op == "call_function" and any(node.target is f for f in RELU_FUNCTIONS)


def _is(target, functions):
    return any(target is f for f in functions)


def kind_of(node, modules, mapping):
    """The pattern kind of a node (module docstring), or None."""
    if node.op == "call_module":
        mod = modules[node.target]
        if type(mod) in mapping:
            return "module"
        if isinstance(mod, FIXED_MODULES):
            return "fixed"
        return "share" if isinstance(mod, SHARE_MODULES) else None
    if node.op == "call_function":
        if node.target is F.linear:  # (input, weight[, bias]) given by position
            return "linear" if 2 <= len(node.args) <= 3 and not node.kwargs else None
        if _is(node.target, tuple(BINARY)):
            a = node.args[:2]
            if node.kwargs or len(a) != 2 or not isinstance(a[0], _node_type()):
                return None
            if isinstance(a[1], _node_type()):
                return "binary"
            return "scalar" if isinstance(a[1], (int, float)) and \
                not isinstance(a[1], bool) else None
        if _is(node.target, FIXED_FUNCTIONS):
            return "fixed"
        return "share" if _is(node.target, SHARE_FUNCTIONS) else None
    if node.op == "call_method":
        if node.target in FIXED_METHODS:
            return "fixed"
        if node.target in OBSERVED_METHODS:
            return "observed"
        return "share" if node.target in SHARE_METHODS else None
    return None


def _node_type():
    from ....fx import Node
    return Node




def fixed_qparams(observer):
    """The (scale, zero point) a FixedQParamsObserver (or a fake quantizer
    holding one) fixes, else None."""
    from ..observer import FixedQParamsObserver
    inner = getattr(observer, "activation_post_process", observer)
    if isinstance(inner, FixedQParamsObserver):
        return float(inner.scale), int(inner.zero_point)
    return None


# fused module type -> the float types it fuses (a QConfigMapping must give them one qconfig)
FUSED_TYPES = {nni.LinearReLU: ("Linear", "ReLU"), nni.ConvReLU1d: ("Conv1d", "ReLU"),
               nni.ConvReLU2d: ("Conv2d", "ReLU"), nni.ConvReLU3d: ("Conv3d", "ReLU"),
               nni.BNReLU2d: ("BatchNorm2d", "ReLU"), nni.BNReLU3d: ("BatchNorm3d", "ReLU")}
