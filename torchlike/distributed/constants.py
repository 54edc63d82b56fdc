"""Names shared by every part of torchlike.distributed: the backends, the
reduction operators, the error classes and the default timeout, as in
``torch.distributed``."""
import datetime
import enum

__all__ = ["Backend", "ReduceOp", "RedOpType", "GroupMember", "group", "DistError",
           "DistBackendError", "DistNetworkError", "DistStoreError", "default_pg_timeout"]

# PyTorch's default for gloo process groups and stores.
default_pg_timeout = datetime.timedelta(minutes=30)


class DistError(RuntimeError):
    """An error of the distributed package."""


class DistBackendError(DistError):
    """A collective or point-to-point operation failed (peer closed, timeout)."""


class DistNetworkError(DistError):
    """A connection could not be made or was lost."""


class DistStoreError(DistError):
    """A store operation failed, e.g. a wait that timed out."""


class Backend(str):
    """A backend name, normalised to lower case: ``Backend("GLOO") == "gloo"``.

    ``gloo`` runs on CPU tensors over TCP (torchlike's own transport, see
    docs/distributed.md); ``nccl`` is accepted only where a GPU is present and
    then stages CUDA tensors through the host."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"
    UCC = "ucc"
    XCCL = "xccl"
    backend_list = [UNDEFINED, GLOO, NCCL, UCC, MPI, XCCL]
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL}

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got "
                             f"{type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


class RedOpType(enum.IntEnum):
    """The reduction of a collective; ``ReduceOp.SUM`` etc. are its members
    (their repr is PyTorch's: ``<RedOpType.SUM: 0>``)."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __str__(self):
        return f"RedOpType.{self.name}"


class ReduceOp:
    """``ReduceOp.SUM``, ``PRODUCT``, ``MIN``, ``MAX``, ``AVG`` (floating
    tensors: the sum divided by the group size) and, for integer and bool
    tensors, ``BAND``, ``BOR``, ``BXOR``."""
    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


class GroupMember:
    """``WORLD`` is the default group once initialised (None before);
    ``NON_GROUP_MEMBER`` is what ``new_group`` returns to ranks outside it."""
    WORLD = None
    NON_GROUP_MEMBER = -100


class group:
    """``group.WORLD``: the default process group (as ``GroupMember.WORLD``)."""
    WORLD = None
