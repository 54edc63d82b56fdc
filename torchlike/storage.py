"""torchlike.storage: the storage classes under PyTorch's module path
(``torch.storage.UntypedStorage`` in type hints and isinstance checks);
they live in torchlike.serialization (docs/serialization.md)."""
from .serialization import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
