"""FX graph mode quantization (torch.ao.quantization.quantize_fx): the model
is traced with torch.fx, its conv / linear (+ bn) (+ relu) chains fused
(fuse_fx), observers put where the QConfigMapping and the x86 backend's
patterns say (prepare_fx, prepare_qat_fx), and after calibration or
training the observed patterns replaced by quantized ops (convert_fx):
a GraphModule as PyTorch's, with its names and state dict keys."""
import copy
import warnings

from ...nn.modules.module import Module
from ...fx import GraphModule
from .qconfig_mapping import QConfigMapping
from .backend_config import _check_backend_config
from .fx.tracer import trace
from .fx.fuse import fuse_graph
from .fx.prepare import node_qconfigs, insert_observers
from .fx.convert import convert_graph
from .fx.patterns import FUSED_TYPES

__all__ = ["fuse_fx", "prepare_fx", "prepare_qat_fx", "convert_fx", "convert_to_reference_fx"]


def _check_model(model, what):
    if not isinstance(model, Module):
        raise TypeError(f"{what} expects a torch.nn.Module, got {type(model).__name__}")


def fuse_fx(model, fuse_custom_config=None, backend_config=None):
    """The traced model with its conv / linear (+ bn) (+ relu) chains fused
    (eval mode for batch norm: it is folded into the weights)."""
    _check_model(model, "fuse_fx")
    _check_backend_config(backend_config)
    gm, _ = trace(model)
    gm = fuse_graph(gm, is_qat=False)
    return GraphModule(gm, gm.graph)


def _qat_swap(gm, qconfigs):
    from .quantize import get_default_qat_module_mappings
    mapping = get_default_qat_module_mappings()
    for node in gm.graph.nodes:
        if node.op != "call_module":
            continue
        mod = gm.get_submodule(node.target)
        qconfig = qconfigs.get(node.name)
        if qconfig is not None and type(mod) in mapping:
            mod.qconfig = qconfig
            qat = mapping[type(mod)].from_float(mod)
            parent, _, leaf = node.target.rpartition(".")
            setattr(gm.get_submodule(parent) if parent else gm, leaf, qat)


def _check_fusion_qconfigs(mapping):
    """A fused module's qconfig by type is its parts' (which must agree), as
    PyTorch's _update_qconfig_for_fusion."""
    from .qconfig import qconfig_equals
    from ... import nn
    by_type = mapping.object_type_qconfigs
    for fused, parts in FUSED_TYPES.items():
        types = [getattr(nn, p) for p in parts]
        if types[0] not in by_type:
            continue
        first = by_type[types[0]]
        for t in types[1:]:
            if t not in by_type or not qconfig_equals(by_type[t], first):
                raise LookupError(f"During fusion, we need to specify the same qconfigs for "
                                  f"all module types in {fused} offending type: {t}")
        by_type[fused] = first


def _prepare(model, qconfig_mapping, is_qat, example_inputs, prepare_custom_config,
             backend_config, what):
    _check_model(model, what)
    _check_backend_config(backend_config)
    if example_inputs is None or not isinstance(example_inputs, tuple):
        raise TypeError(f"{what}: example_inputs must be a tuple of the model's positional "
                        f"inputs, got {type(example_inputs).__name__}")
    if isinstance(qconfig_mapping, dict):
        warnings.warn("Passing a QConfig dictionary to prepare is deprecated and will not be "
                      "supported in a future version. Please pass in a QConfigMapping "
                      "instead.", FutureWarning)
        qconfig_mapping = QConfigMapping.from_dict(qconfig_mapping)
    if not isinstance(qconfig_mapping, QConfigMapping):
        raise TypeError(f"{what}: qconfig_mapping must be a QConfigMapping (or a qconfig "
                        f"dict), got {type(qconfig_mapping).__name__}")
    qconfig_mapping = qconfig_mapping._copy()  # the fusion check adds entries
    _check_fusion_qconfigs(qconfig_mapping)
    model = copy.deepcopy(model)
    gm, scopes = trace(model, prepare_custom_config)
    gm = fuse_graph(gm, is_qat)
    gm = GraphModule(gm, gm.graph)  # only the modules the graph calls, in its order
    qconfigs = node_qconfigs(gm, qconfig_mapping, scopes)
    if is_qat:
        _qat_swap(gm, qconfigs)
    patterns = insert_observers(gm, qconfigs)
    gm = GraphModule(gm, gm.graph)
    gm._fx_quantization = {"qconfigs": qconfigs, "scopes": scopes, "patterns": patterns,
                           "is_qat": is_qat}
    return gm


def prepare_fx(model, qconfig_mapping, example_inputs, prepare_custom_config=None,
               _equalization_config=None, backend_config=None):
    """A GraphModule of model (eval mode) with observers; run calibration
    data through it, then convert_fx."""
    return _prepare(model, qconfig_mapping, False, example_inputs, prepare_custom_config,
                    backend_config, "prepare_fx")


def prepare_qat_fx(model, qconfig_mapping, example_inputs, prepare_custom_config=None,
                   backend_config=None):
    """A GraphModule of model (training mode) with its Linear / Conv2d
    (fused or not) swapped for QAT modules and fake quantizers on the
    activations; train it, then convert_fx."""
    return _prepare(model, qconfig_mapping, True, example_inputs, prepare_custom_config,
                    backend_config, "prepare_qat_fx")


def convert_fx(graph_module, convert_custom_config=None, _remove_qconfig=True,
               qconfig_mapping=None, backend_config=None, keep_original_weights=False):
    """The quantized GraphModule of a prepared, calibrated one."""
    return _convert(graph_module, qconfig_mapping, backend_config, False)


def _convert(graph_module, qconfig_mapping, backend_config, is_reference):
    _check_backend_config(backend_config)
    if qconfig_mapping is not None:
        raise NotImplementedError("convert_fx(qconfig_mapping=...) is not supported by "
                                  "torchlike: give the mapping to prepare_fx")
    return convert_graph(graph_module, is_reference)


def convert_to_reference_fx(graph_module, convert_custom_config=None, _remove_qconfig=True,
                            qconfig_mapping=None, backend_config=None):
    """The reference quantized GraphModule: quantize / dequantize nodes around
    float ops, weighted modules as reference modules (their weight quantized
    and dequantized)."""
    return _convert(graph_module, qconfig_mapping, backend_config, True)

