"""Convert the weights of the convolutions in a module tree to a memory
format (PyTorch's ``torch.nn.utils.memory_format``).

A convolution whose weight is channels-last gives channels-last outputs
even for a row-major input (docs/shapes.md, "Memory layouts"), so
converting the weights carries a whole network over to channels-last
without touching its input."""
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        # the Parameter object stays (optimizers hold it); its data is relaid
        laid = module.weight.detach().clone().contiguous(memory_format=memory_format)
        module.weight.data = laid
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Lay out the weight of every ``Conv2d`` and ``ConvTranspose2d`` in
    ``module`` (itself included) in ``memory_format``, in place; returns
    ``module``.  ``channels_last_3d`` raises (the weights are 4-d)."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """The same for every ``Conv3d`` and ``ConvTranspose3d`` (5-d weights:
    ``channels_last_3d``; ``channels_last`` raises)."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
