"""Eager-mode post-training quantization (torch.ao.quantization.quantize):
propagate_qconfig_ gives each module its qconfig; prepare attaches an
observer (``activation_post_process``, called by a forward hook) to each
leaf that will be quantized; convert swaps observed modules for their
quantized counterparts (``from_float``); quantize_dynamic swaps Linear for
dynamic Linear.  prepare_qat swaps in fake-quantized training modules."""
import copy

from ...nn.modules.module import Module
from ...nn.modules.container import Sequential
from ...nn.modules.linear import Linear
from ...nn.modules.conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                                ConvTranspose3d)
from ...nn.modules.activation import ReLU6, Hardswish, ELU, LeakyReLU, PReLU
from ...nn.modules.normalization import (BatchNorm2d, BatchNorm3d, GroupNorm, LayerNorm,
                                         InstanceNorm1d, InstanceNorm2d, InstanceNorm3d)
from ...nn.modules.dropout import Dropout
from ...nn.modules.sparse import Embedding, EmbeddingBag
from ...nn.modules.rnn import LSTM, GRU, RNNCell, LSTMCell, GRUCell
from ..nn import quantized as nnq
from ..nn import intrinsic as nni
from ..nn.intrinsic import quantized as nniq
from ..nn import qat as nnqat
from .stubs import QuantStub, DeQuantStub
from .qconfig import (default_dynamic_qconfig, float16_dynamic_qconfig,
                      float_qparams_weight_only_qconfig)

__all__ = ["propagate_qconfig_", "prepare", "convert", "quantize", "quantize_dynamic",
           "prepare_qat", "quantize_qat", "add_quant_dequant", "get_default_qat_module_mappings",
           "get_default_static_quant_module_mappings", "get_default_dynamic_quant_module_mappings",
           "get_default_qconfig_propagation_list",
           "get_default_static_quant_reference_module_mappings"]


def get_default_static_quant_module_mappings():
    """float module type -> quantized module type (what convert swaps)."""
    return {QuantStub: nnq.Quantize, DeQuantStub: nnq.DeQuantize, Linear: nnq.Linear,
            Conv1d: nnq.Conv1d, Conv2d: nnq.Conv2d, ReLU6: nnq.ReLU6,
            nni.LinearReLU: nniq.LinearReLU, nni.ConvReLU1d: nniq.ConvReLU1d,
            nni.ConvReLU2d: nniq.ConvReLU2d, nnq.FloatFunctional: nnq.QFunctional,
            nnqat.Linear: nnq.Linear, nnqat.LinearReLU: nniq.LinearReLU,
            nnqat.Conv2d: nnq.Conv2d, nnqat.ConvReLU2d: nniq.ConvReLU2d,
            Embedding: nnq.Embedding, EmbeddingBag: nnq.EmbeddingBag,
            Conv3d: nnq.Conv3d, ConvTranspose1d: nnq.ConvTranspose1d,
            ConvTranspose2d: nnq.ConvTranspose2d, BatchNorm2d: nnq.BatchNorm2d,
            BatchNorm3d: nnq.BatchNorm3d, Dropout: nnq.Dropout, ELU: nnq.ELU,
            Hardswish: nnq.Hardswish, LeakyReLU: nnq.LeakyReLU, LayerNorm: nnq.LayerNorm,
            GroupNorm: nnq.GroupNorm, InstanceNorm1d: nnq.InstanceNorm1d,
            InstanceNorm2d: nnq.InstanceNorm2d, InstanceNorm3d: nnq.InstanceNorm3d,
            ConvTranspose3d: nnq.ConvTranspose3d, PReLU: nnq.PReLU,
            nni.ConvReLU3d: nniq.ConvReLU3d, nni.BNReLU2d: nniq.BNReLU2d,
            nni.BNReLU3d: nniq.BNReLU3d, nni.LinearLeakyReLU: nniq.LinearLeakyReLU,
            nni.LinearTanh: nniq.LinearTanh, nni.ConvAdd2d: nniq.ConvAdd2d,
            nni.ConvAddReLU2d: nniq.ConvAddReLU2d, nnqat.Embedding: nnq.Embedding,
            nnqat.EmbeddingBag: nnq.EmbeddingBag}


def get_default_static_quant_reference_module_mappings():
    """float module type -> reference module type (convert(is_reference=True))."""
    from ..nn.quantized import reference as nnqr
    return {QuantStub: nnq.Quantize, DeQuantStub: nnq.DeQuantize, Linear: nnqr.Linear,
            Conv1d: nnqr.Conv1d, Conv2d: nnqr.Conv2d, Conv3d: nnqr.Conv3d,
            ConvTranspose1d: nnqr.ConvTranspose1d, ConvTranspose2d: nnqr.ConvTranspose2d,
            ConvTranspose3d: nnqr.ConvTranspose3d}


def to_reference(mod, reference_cls):
    """mod as a reference module: its qconfig's weight observer run on its weight."""
    from ..nn.quantized.reference import get_qparam_dict
    observer = mod.qconfig.weight()
    observer(mod.weight)
    return reference_cls.from_float(mod, get_qparam_dict(observer))


def get_default_qat_module_mappings():
    """float module type -> its quantization-aware-training module (prepare_qat)."""
    return {Linear: nnqat.Linear, Conv2d: nnqat.Conv2d, nni.LinearReLU: nnqat.LinearReLU,
            nni.ConvReLU2d: nnqat.ConvReLU2d}


def get_default_dynamic_quant_module_mappings():
    return {Linear: nnq.dynamic.Linear, LSTM: nnq.dynamic.LSTM, GRU: nnq.dynamic.GRU,
            RNNCell: nnq.dynamic.RNNCell, LSTMCell: nnq.dynamic.LSTMCell,
            GRUCell: nnq.dynamic.GRUCell, Embedding: nnq.Embedding,
            EmbeddingBag: nnq.EmbeddingBag}


def get_default_qconfig_propagation_list():
    return set(get_default_static_quant_module_mappings()) | \
        set(get_default_dynamic_quant_module_mappings())


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None):
    """Sets ``qconfig`` on every submodule: its type's or name's entry in
    qconfig_dict, else its parent's."""
    qconfig_dict = qconfig_dict or {}

    def visit(mod, parent_qconfig, prefix):
        qconfig = qconfig_dict.get(type(mod), parent_qconfig)
        qconfig = qconfig_dict.get(prefix, qconfig)
        qconfig = getattr(mod, "qconfig", qconfig) if getattr(mod, "qconfig", None) is not None \
            else qconfig
        mod.qconfig = qconfig
        for name, child in mod.named_children():
            visit(child, qconfig, prefix + ("." if prefix else "") + name)
    visit(module, qconfig_dict.get("", None), "")


def _observer_forward_hook(self, input, output):
    return self.activation_post_process(output)


def _needs_observer(mod):
    return getattr(mod, "qconfig", None) is not None


def _add_observer_(module, allow_list, non_leaf=(), custom=None):
    for name, child in module.named_children():
        if type(child) is Dropout:
            continue
        if custom and type(child) in custom and _needs_observer(child):
            # a custom module observes itself (from_float prepares it); PyTorch adds no
            # output observer for the quantizable MultiheadAttention / LSTM
            module._modules[name] = custom[type(child)].from_float(child)
            continue
        if type(child) in non_leaf:  # a module with children of its own (QAT: weight_fake_quant)
            _insert_observer(child)
            continue
        if isinstance(child, nnq.FloatFunctional):
            if _needs_observer(child):
                child.activation_post_process = child.qconfig.activation()
        elif isinstance(child, nni._FusedModule):
            if _needs_observer(child):
                _insert_observer(child)
        else:
            _add_observer_(child, allow_list, non_leaf, custom)
    if not list(module.children()) and not isinstance(module, Sequential) and \
            type(module) in allow_list:
        _insert_observer(module)


def _insert_observer(mod):
    if not _needs_observer(mod) or isinstance(mod, DeQuantStub):
        return
    mod.add_module("activation_post_process", mod.qconfig.activation())
    mod._observer_hook_handle = mod.register_forward_hook(_observer_forward_hook)


def prepare(model, inplace=False, allow_list=None, observer_non_leaf_module_list=None,
            prepare_custom_config_dict=None):
    """model with observers on the modules convert will quantize (a copy unless inplace)."""
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, qconfig_dict=None)
    allow_list = get_default_qconfig_propagation_list() if allow_list is None else allow_list
    if not any(_needs_observer(m) for m in model.modules()):
        import warnings
        warnings.warn("None of the submodule got qconfig applied. Make sure you passed correct "
                      "configuration through `qconfig_dict` or by assigning the `.qconfig` "
                      "attribute directly on submodules")
    custom = (prepare_custom_config_dict or {}).get("float_to_observed_custom_module_class")
    _add_observer_(model, allow_list, tuple(observer_non_leaf_module_list or ()), custom)
    return model


def _remove_qconfig(module):
    for child in module.children():
        _remove_qconfig(child)
    if hasattr(module, "qconfig"):
        del module.qconfig
    handle = module.__dict__.pop("_observer_hook_handle", None)
    if handle is not None:
        handle.remove()
    if "activation_post_process" in module._modules and not isinstance(
            module, (nnq.FloatFunctional, nnq.QFunctional)):
        del module._modules["activation_post_process"]


def swap_module(mod, mapping, custom_module_class_mapping=None):
    """mod's quantized counterpart when it has a qconfig and a mapping; else mod."""
    if _needs_observer(mod) and type(mod) in mapping:
        target = mapping[type(mod)]
        new = to_reference(mod, target) if getattr(target, "_IS_REFERENCE", False) else \
            target.from_float(mod)
        for hook in mod._forward_pre_hooks.values():
            new.register_forward_pre_hook(hook)
        for key, hook in mod._forward_hooks.items():
            if hook is not _observer_forward_hook:
                new.register_forward_hook(hook)
        return new
    return mod


def _convert(module, mapping, inplace=True, custom=None):
    swaps = {}
    for name, child in module.named_children():
        if custom and type(child) in custom:  # an observed custom module converts itself
            swaps[name] = custom[type(child)].from_observed(child)
            continue
        if not isinstance(child, nni._FusedModule):
            _convert(child, mapping, True, custom)
        swaps[name] = swap_module(child, mapping)
    for name, new in swaps.items():
        module._modules[name] = new
    return module


def convert(module, mapping=None, inplace=False, remove_qconfig=True, is_reference=False,
            convert_custom_config_dict=None, use_precomputed_fake_quant=False):
    """module with every observed module swapped for its quantized counterpart."""
    if not inplace:
        module = copy.deepcopy(module)
    if mapping is None:
        mapping = get_default_static_quant_reference_module_mappings() if is_reference else \
            get_default_static_quant_module_mappings()
    custom = (convert_custom_config_dict or {}).get("observed_to_quantized_custom_module_class")
    _convert(module, mapping, custom=custom)
    if remove_qconfig:
        _remove_qconfig(module)
    return module


def quantize(model, run_fn, run_args, mapping=None, inplace=False):
    """prepare, calibrate with run_fn(model, *run_args), convert."""
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    prepare(model, inplace=True)
    run_fn(model, *(run_args if isinstance(run_args, (list, tuple)) else (run_args,)))
    convert(model, mapping, inplace=True)
    return model


_DYNAMIC_TYPES = (Linear, LSTM, GRU, LSTMCell, RNNCell, GRUCell)


def quantize_dynamic(model, qconfig_spec=None, dtype=None, mapping=None, inplace=False):
    """model with its Linear, LSTM, GRU and RNN cell layers (those named or
    typed in qconfig_spec, all by default) replaced by dynamically quantized
    ones: weights int8 (dtype qint8, the default) or float16; with dtype
    quint8, its Embedding and EmbeddingBag layers quantized weight-only."""
    from ... import _C
    dtype = _C.qint8 if dtype is None else dtype
    defaults = {_C.qint8: default_dynamic_qconfig, _C.float16: float16_dynamic_qconfig,
                _C.quint8: float_qparams_weight_only_qconfig}
    if qconfig_spec is None:
        if dtype not in defaults:
            raise ValueError(f"Don't know how to quantize with default settings for {dtype}. "
                             f"Provide full qconfig please")
        types = (Embedding, EmbeddingBag) if dtype is _C.quint8 else _DYNAMIC_TYPES
        qconfig_spec = dict.fromkeys(types, defaults[dtype])
    elif isinstance(qconfig_spec, set):
        if dtype not in defaults:
            raise RuntimeError(f"Unknown dtype specified for quantize_dynamic: {dtype}")
        qconfig_spec = dict.fromkeys(qconfig_spec, defaults[dtype])
    mapping = get_default_dynamic_quant_module_mappings() if mapping is None else mapping
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, qconfig_spec)
    _convert(model, mapping)
    _remove_qconfig(model)
    return model


def prepare_qat(model, mapping=None, inplace=False):
    """model (in training mode) with Linear/Conv2d (fused or not) swapped for
    their QAT modules, whose weights are fake-quantized, and FakeQuantize
    modules on the outputs (the qconfig's activation); convert afterwards."""
    if not model.training:
        raise AssertionError("prepare_qat only works on models in training mode")
    mapping = get_default_qat_module_mappings() if mapping is None else mapping
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, qconfig_dict=None)
    _convert(model, mapping)
    prepare(model, inplace=True, observer_non_leaf_module_list=set(mapping.values()))
    return model


def quantize_qat(model, run_fn, run_args, inplace=False):
    """prepare_qat, train with run_fn(model, *run_args), convert."""
    if not inplace:
        model = copy.deepcopy(model)
    model.train()
    prepare_qat(model, inplace=True)
    run_fn(model, *(run_args if isinstance(run_args, (list, tuple)) else (run_args,)))
    convert(model, inplace=True)
    return model


def add_quant_dequant(module):
    raise NotImplementedError("add_quant_dequant is not supported by torchlike")
