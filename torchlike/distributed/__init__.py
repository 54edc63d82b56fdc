"""torchlike.distributed: multi-process training on CPU tensors, as
``torch.distributed`` with the gloo backend.

Processes meet through a store (``env://``, ``tcp://`` or ``file://``
rendezvous, or a ``TCPStore``/``FileStore``/``HashStore`` given directly),
then talk over TCP connections between every pair of ranks; collectives run
in issue order on a worker thread, ``async_op=True`` returns a ``Work``.
See docs/distributed.md for the transport and the differences from PyTorch."""
from .constants import (Backend, DistBackendError, DistError, DistNetworkError,  # noqa: F401
                        DistStoreError, GroupMember, ReduceOp, default_pg_timeout, group)
from .store import FileStore, HashStore, PrefixStore, Store  # noqa: F401
from .tcp_store import TCPStore  # noqa: F401
from .work import Work  # noqa: F401
from .process_group import ProcessGroup  # noqa: F401
from .distributed_c10d import (destroy_process_group, get_backend,  # noqa: F401
                               get_default_backend_for_device, get_global_rank,
                               get_group_rank, get_process_group_ranks, get_rank,
                               get_world_size, init_process_group, is_available,
                               is_gloo_available, is_initialized, is_mpi_available,
                               is_nccl_available, is_torchelastic_launched, is_ucc_available,
                               is_xccl_available, new_group)
from .distributed_c10d import (get_node_local_rank, is_backend_available,  # noqa: F401
                               new_subgroups, new_subgroups_by_enumeration, split_group)
from .debug import (DebugLevel, get_debug_level, set_debug_level,  # noqa: F401
                    set_debug_level_from_env)
from .collectives import (all_gather, all_gather_into_tensor, all_reduce,  # noqa: F401
                          all_to_all, all_to_all_single, barrier, broadcast, gather,
                          monitored_barrier, reduce, reduce_scatter, reduce_scatter_tensor,
                          scatter)
from .collectives import all_gather_coalesced, all_reduce_coalesced  # noqa: F401
from .p2p import P2POp, batch_isend_irecv, irecv, isend, recv, send  # noqa: F401
from .device_mesh import DeviceMesh, init_device_mesh  # noqa: F401
from .object_collectives import (all_gather_object, broadcast_object_list,  # noqa: F401
                                 gather_object, scatter_object_list)
from .object_collectives import recv_object_list, send_object_list  # noqa: F401
from .algorithms.ddp_comm_hooks import GradBucket  # noqa: F401

# PyTorch's older spellings
_all_gather_base = all_gather_into_tensor
_reduce_scatter_base = reduce_scatter_tensor
