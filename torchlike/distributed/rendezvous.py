"""Rendezvous: from an ``init_method`` URL to (store, rank, world size).

* ``env://`` (the default): ``MASTER_ADDR``, ``MASTER_PORT``, ``RANK`` and
  ``WORLD_SIZE`` from the environment (``rank``/``world_size`` arguments win);
  rank 0 serves a TCPStore there.
* ``tcp://host:port``: the same with the address in the URL; rank and world
  size from the arguments or the query (``?rank=0&world_size=2``).
* ``file:///path``: a FileStore at ``path`` (the file is removed when the
  last rank lets go)."""
import os
import urllib.parse

from .store import FileStore
from .tcp_store import TCPStore

__all__ = ["rendezvous"]


def _env(name, method="env"):
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"Error initializing torch.distributed using {method}:// rendezvous: "
                         f"environment variable {name} expected, but not set")
    return value


def _query_int(query, name, given):
    if given is not None and given >= 0:
        return given
    if name in query:
        return int(query[name][0])
    return None


def rendezvous(url, rank, world_size, timeout):
    """(store, rank, world_size) for ``url``."""
    parsed = urllib.parse.urlparse(url)
    query = urllib.parse.parse_qs(parsed.query)
    scheme = parsed.scheme
    if scheme == "env":
        rank = rank if rank >= 0 else int(_env("RANK"))
        world_size = world_size if world_size >= 0 else int(_env("WORLD_SIZE"))
        host, port = _env("MASTER_ADDR"), int(_env("MASTER_PORT"))
    elif scheme == "tcp":
        rank, world_size = _query_int(query, "rank", rank), _query_int(query, "world_size",
                                                                      world_size)
        if rank is None or world_size is None:
            raise ValueError("Error initializing torch.distributed using tcp:// rendezvous: "
                             "rank and world_size must be given (as arguments or in the "
                             "query string)")
        host, port = parsed.hostname, parsed.port
        if port is None:
            raise ValueError(f"port number missing in the init_method {url!r}")
    elif scheme == "file":
        rank, world_size = _query_int(query, "rank", rank), _query_int(query, "world_size",
                                                                      world_size)
        if rank is None or world_size is None:
            raise ValueError("Error initializing torch.distributed using file:// rendezvous: "
                             "rank and world_size must be given")
        path = urllib.parse.unquote(parsed.path if not parsed.netloc
                                    else parsed.netloc + parsed.path)
        store = FileStore(path, world_size)
        store.set_timeout(timeout)
        return store, rank, world_size
    else:
        raise RuntimeError(f"No rendezvous handler for {scheme}://")
    store = TCPStore(host, port, world_size, is_master=(rank == 0), timeout=timeout)
    return store, rank, world_size
