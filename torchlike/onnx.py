"""torchlike.onnx: importable, as ``torch.onnx`` is, so training scripts that
import it for an optional export step run. There is no ONNX exporter:
``export`` raises ``NotImplementedError``; ``is_in_onnx_export()`` is False."""

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export():
    """False: no export is ever in progress (models branch on it)."""
    return False


def export(model, args=(), f=None, *rest, **kwargs):
    raise NotImplementedError(
        "torchlike.onnx.export: torchlike has no ONNX exporter; save the weights "
        "with torchlike.save(model.state_dict(), path) and export them from PyTorch")
