"""torchlike.backends: switches for the optional backend libraries.

``backends.cuda`` (``matmul.allow_tf32``), ``backends.cudnn`` and
``backends.mkldnn`` hold PyTorch's flags so code that
sets them runs; they take effect where such a path exists (the cuDNN paths
come with the GPU work; the CPU kernels have no nondeterministic variant).
``backends.mps`` answers that there is no MPS device; ``backends.mha``
switches the Transformer encoder's inference fast path; ``backends.opt_einsum``
answers that einsum contracts left to right; ``backends.quantized`` names
the quantized engine (x86's arithmetic, docs/quantization.md);
``backends.openmp`` and ``backends.mkl`` answer that neither library is used."""
from . import cuda, cudnn, mha, mkl, mkldnn, mps, openmp, opt_einsum, quantized  # noqa: F401
