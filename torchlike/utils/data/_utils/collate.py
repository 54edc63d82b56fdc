"""torch.utils.data._utils.collate: the collate functions under PyTorch's
module path, with the pattern and message that copied collate functions
import; they live in torchlike.utils.data.collate."""
from ..collate import (collate, collate_float_fn, collate_int_fn,  # noqa: F401
                       collate_numpy_array_fn, collate_numpy_scalar_fn, collate_str_fn,
                       collate_tensor_fn, default_collate, default_collate_fn_map, default_convert)
from ..collate import _collate_err_msg_format as default_collate_err_msg_format  # noqa: F401
from ..collate import _np_str_obj_array_pattern as np_str_obj_array_pattern  # noqa: F401
