"""fuse_modules: folds lists of adjacent modules into one (eval mode):
conv + bn (the batch norm folded into the conv's weight and bias),
conv + bn + relu and conv + relu (ConvReLU1d/2d/3d), linear + bn, linear +
relu (LinearReLU), bn + relu (BNReLU2d/3d).  The fused-away modules become nn.Identity."""
import copy

from ...nn.modules.normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d
from ...nn.modules.conv import Conv1d, Conv2d, Conv3d
from ...nn.modules.linear import Linear, Identity
from ...nn.modules.activation import ReLU
from ...nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
from ..nn import intrinsic as nni

__all__ = ["fuse_modules", "fuse_known_modules", "get_fuser_method"]


def _conv_bn(is_qat, conv, bn):
    _eval_only(is_qat, conv, bn)
    return fuse_conv_bn_eval(conv, bn)


def _conv_bn_relu(is_qat, conv, bn, relu):
    _eval_only(is_qat, conv, bn)
    fused = fuse_conv_bn_eval(conv, bn)
    return _CONV_RELU[type(conv)](fused, relu)


def _conv_relu(is_qat, conv, relu):
    return _CONV_RELU[type(conv)](conv, relu)


def _bn_relu(is_qat, bn, relu):
    return (nni.BNReLU2d if type(bn) is BatchNorm2d else nni.BNReLU3d)(bn, relu)


def _linear_bn(is_qat, linear, bn):
    _eval_only(is_qat, linear, bn)
    return fuse_linear_bn_eval(linear, bn)


def _linear_relu(is_qat, linear, relu):
    return nni.LinearReLU(linear, relu)


def _eval_only(is_qat, *mods):
    if is_qat or any(m.training for m in mods):
        raise NotImplementedError("fusing batch norm for training (ConvBn2d, QAT) is not "
                                  "supported by torchlike: call model.eval() first")


_CONV_RELU = {Conv1d: nni.ConvReLU1d, Conv2d: nni.ConvReLU2d, Conv3d: nni.ConvReLU3d}
_FUSERS = {
    (Conv1d, BatchNorm1d): _conv_bn, (Conv2d, BatchNorm2d): _conv_bn,
    (Conv1d, BatchNorm1d, ReLU): _conv_bn_relu, (Conv2d, BatchNorm2d, ReLU): _conv_bn_relu,
    (Conv1d, ReLU): _conv_relu, (Conv2d, ReLU): _conv_relu,
    (Conv3d, BatchNorm3d): _conv_bn, (Conv3d, BatchNorm3d, ReLU): _conv_bn_relu,
    (Conv3d, ReLU): _conv_relu, (BatchNorm2d, ReLU): _bn_relu, (BatchNorm3d, ReLU): _bn_relu,
    (Linear, BatchNorm1d): _linear_bn, (Linear, ReLU): _linear_relu,
}


def get_fuser_method(op_list, additional_fuser_method_mapping=None):
    table = {**_FUSERS, **(additional_fuser_method_mapping or {})}
    fuser = table.get(tuple(op_list))
    if fuser is None:
        raise AssertionError(f"did not find fuser method for: {tuple(op_list)} ")
    return fuser


def fuse_known_modules(mod_list, is_qat=False, additional_fuser_method_mapping=None):
    """[fused, Identity, ...] for a list of modules of a known pattern."""
    fuser = get_fuser_method(tuple(type(m) for m in mod_list), additional_fuser_method_mapping)
    fused = fuser(is_qat, *mod_list)
    out = [fused] + [Identity() for _ in mod_list[1:]]
    # hooks of the first module's inputs and the last module's outputs survive
    for hook in mod_list[0]._forward_pre_hooks.values():
        fused.register_forward_pre_hook(hook)
    for hook in mod_list[-1]._forward_hooks.values():
        fused.register_forward_hook(hook)
    return out


def _get(model, name):
    for part in name.split("."):
        model = getattr(model, part)
    return model


def _set(model, name, module):
    parts = name.split(".")
    for part in parts[:-1]:
        model = getattr(model, part)
    setattr(model, parts[-1], module)


def fuse_modules(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                 fuse_custom_config_dict=None):
    """model with each list of module names in modules_to_fuse (or the one
    list) fused; a copy unless inplace."""
    if not inplace:
        model = copy.deepcopy(model)
    groups = modules_to_fuse if modules_to_fuse and isinstance(modules_to_fuse[0],
                                                               (list, tuple)) else [modules_to_fuse]
    extra = (fuse_custom_config_dict or {}).get("additional_fuser_method_mapping")
    for names in groups:
        mods = [_get(model, n) for n in names]
        fused = fuser_func(mods, False, extra) if extra else fuser_func(mods)
        for name, mod in zip(names, fused):
            _set(model, name, mod)
    return model
