"""torch.utils.data._utils: the import path code uses for the collate
functions (``from torch.utils.data._utils.collate import default_collate``)."""
from . import collate  # noqa: F401
