"""torchlike.testing: ``assert_close`` (and the deprecated ``assert_allclose``)
and ``make_tensor``, as in ``torch.testing``; docs/api_modules.md says where
they differ."""
from ._comparison import assert_close, assert_allclose  # noqa: F401
from ._creation import make_tensor  # noqa: F401

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
