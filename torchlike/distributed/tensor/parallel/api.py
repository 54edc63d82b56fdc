"""parallelize_module: apply parallel styles to a module's submodules, as
torch.distributed.tensor.parallel.parallelize_module."""
import warnings
from fnmatch import fnmatch

from .._api import current_mesh
from .style import ParallelStyle

__all__ = ["parallelize_module"]


def parallelize_module(module, device_mesh=None, parallelize_plan=None, *, src_data_rank=0):
    """Apply ``parallelize_plan`` over the 1-D ``device_mesh``: a
    ParallelStyle for ``module`` itself, or a dict from submodule paths
    (``"w1"``, ``"layers.*.attn"``: each part matched with fnmatch against
    child names) to styles.  Parameters are distributed from the values of
    rank ``src_data_rank`` (None: each rank's own).  Returns ``module``."""
    device_mesh = current_mesh(device_mesh)
    if device_mesh.ndim != 1:
        raise ValueError(f"Tensor Parallel only accepts a 1D DeviceMesh, but found "
                         f"{device_mesh.ndim}D! If you have a 2-D or N-D device_mesh, "
                         f"consider passing in device_mesh[\"tp\"]")
    if parallelize_plan is None:
        warnings.warn("No parallelize_plan is provided and auto-parallel is not supported at "
                      "the moment, so this parallelize_module call will do nothing.",
                      stacklevel=2)
        return module
    if isinstance(parallelize_plan, ParallelStyle):
        parallelize_plan.src_data_rank = src_data_rank
        return parallelize_plan._apply(module, device_mesh)
    if not isinstance(parallelize_plan, dict):
        raise TypeError(f"Expect Union[ParallelStyle, Dict[str, ParallelStyle]] for "
                        f"parallelize_plan, {type(parallelize_plan)} found!")
    for path, style in parallelize_plan.items():
        if path == "":
            parallelize_module(module, device_mesh, style, src_data_rank=src_data_rank)
            continue
        token, *rest = path.split(".")
        children = [(n, c) for n, c in module.named_children() if fnmatch(n, token)]
        if not children:
            warnings.warn(f"Parallelize plan key '{path}' could not be resolved: no submodule "
                          f"matching token '{token}' in module {module}, skipping this plan "
                          f"entry.", stacklevel=2)
            continue
        for _, child in children:
            parallelize_module(child, device_mesh, {".".join(rest): style} if rest else style,
                               src_data_rank=src_data_rank)
    return module
