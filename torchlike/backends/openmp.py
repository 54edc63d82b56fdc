"""torch.backends.openmp: whether this build uses OpenMP.  torchlike's CPU
kernels split work on their own thread pool (set_num_threads sizes it),
not OpenMP."""


def is_available():
    return False
