"""``torch._inductor.config``: the compiler settings training scripts set,
with PyTorch's defaults, kept and read back (torchlike runs eagerly and
consults none).  The nested groups (``triton``, ``cpp``, ``trace``) work
the same way.  A name PyTorch does not have is its AttributeError, setting
as reading; the settings here are the commonly set subset of PyTorch's."""
import sys
import types

_DEFAULTS = {
    "coordinate_descent_tuning": False, "coordinate_descent_check_all_directions": False,
    "fx_graph_cache": True, "fx_graph_remote_cache": None, "max_autotune": False,
    "max_autotune_gemm": False, "max_autotune_pointwise": False, "epilogue_fusion": True,
    "freezing": False, "force_fuse_int_mm_with_mul": False, "use_mixed_mm": True,
    "cpp_wrapper": False, "debug": False, "benchmark_kernel": False, "aggressive_fusion": False,
    "shape_padding": True, "comprehensive_padding": True, "fallback_random": False,
    "implicit_fallbacks": True, "autotune_local_cache": True, "split_reductions": True,
    "pattern_matcher": True, "compile_threads": 2, "layout_optimization": True,
    "keep_output_stride": True, "size_asserts": True, "nan_asserts": False,
    "emulate_precision_casts": False, "allow_buffer_reuse": True, "memory_planning": False,
    "reorder_for_compute_comm_overlap": False, "unroll_reductions_threshold": 8,
    "conv_1x1_as_mm": False, "search_autotune_cache": False,
    "generate_intermediate_hooks": False, "force_disable_caches": False,
    "worker_start_method": "subprocess", "optimize_scatter_upon_const_tensor": True,
    "post_grad_fusion_options": {}, "pre_grad_fusion_options": {},
    "joint_graph_constant_folding": True, "group_fusion": False, "batch_fusion": True,
    "use_fast_math": False,
}
_GROUPS = {
    "triton": {"unique_kernel_names": True, "cudagraphs": False, "cudagraph_trees": True,
               "autotune_pointwise": True, "divisible_by_16": True, "max_tiles": None,
               "persistent_reductions": True, "cooperative_reductions": False,
               "enable_persistent_tma_matmul": False},
    "cpp": {"threads": -1, "simdlen": None, "enable_kernel_profile": False,
            "dynamic_threads": False},
    "trace": {"enabled": False, "graph_diagram": False},
}


class _Settings(types.ModuleType):
    """A namespace of known settings: reading or setting another name is
    PyTorch's AttributeError."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"{self.__name__}.{name} does not exist")

    def __setattr__(self, name, value):
        if not name.startswith("__") and name not in self.__dict__:
            raise AttributeError(f"{self.__name__}.{name} does not exist")
        super().__setattr__(name, value)


def _group(name, defaults):
    group = types.ModuleType.__new__(_Settings, f"{__name__}.{name}")
    types.ModuleType.__init__(group, f"{__name__}.{name}")
    group.__dict__.update({k: (dict(v) if isinstance(v, dict) else v)
                           for k, v in defaults.items()})
    return group


globals().update({k: (dict(v) if isinstance(v, dict) else v) for k, v in _DEFAULTS.items()})
globals().update({name: _group(name, defaults) for name, defaults in _GROUPS.items()})
sys.modules[__name__].__class__ = _Settings
