"""torch.backends.mkl: whether this build uses Intel MKL.  torchlike's BLAS
and LAPACK come from OpenBLAS, so there is none, and ``verbose`` (MKL's
logging) is a context that changes nothing."""
VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available():
    return False


class verbose:
    """``with backends.mkl.verbose(level):`` MKL's logging, which there is none of."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
