"""``torch._dynamo.config``: PyTorch's settings that scripts set, kept and
read back (nothing here consults them: torchlike runs eagerly).  An unknown
name is PyTorch's AttributeError, setting as reading."""
import sys
import types

_DEFAULTS = {
    "suppress_errors": False, "verbose": False, "cache_size_limit": 8,
    "recompile_limit": 8, "accumulated_cache_size_limit": 256,
    "accumulated_recompile_limit": 256, "automatic_dynamic_shapes": True,
    "assume_static_by_default": True, "capture_scalar_outputs": False,
    "capture_dynamic_output_shape_ops": False, "optimize_ddp": True,
    "inline_inbuilt_nn_modules": True, "guard_nn_modules": False,
    "specialize_int": False, "specialize_float": False, "force_parameter_static_shapes": True,
    "allow_unspec_int_on_nn_module": False, "skip_nnmodule_hook_guards": True,
    "error_on_recompile": False, "replay_record_enabled": False, "dynamic_shapes": True,
    "cache_size_limit_per_frame": 8, "use_single_step_graph": False,
}


class _Config(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"torchlike._dynamo.config.{name} does not exist")

    def __setattr__(self, name, value):
        if not name.startswith("__") and name not in _DEFAULTS and name not in self.__dict__:
            raise AttributeError(f"torchlike._dynamo.config.{name} does not exist")
        super().__setattr__(name, value)


globals().update(_DEFAULTS)
sys.modules[__name__].__class__ = _Config
