"""CUDA flags, as ``torch.backends.cuda``: ``matmul.allow_tf32`` (default
False, as PyTorch) lets float32 matrix products on CUDA round their inputs
to TF32 on tensor cores; the cuBLAS kernels read it at every call."""
from .. import _C, _flags


class _MatmulFlags:
    """``torchlike.backends.cuda.matmul``: the cuBLAS switches."""

    @property
    def allow_tf32(self):
        return _C._cublas_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _flags.allow_tf32_set(value)  # also torchlike.get_float32_matmul_precision's

    # PyTorch's switches for half-precision reductions; ours always
    # accumulate float16/bfloat16 products in float32.
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    """Whether this build has CUDA in it (not whether a GPU is present:
    that is torchlike.cuda.is_available())."""
    return _C._cuda_compiled()
