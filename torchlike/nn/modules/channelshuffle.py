"""torch.nn.modules.channelshuffle: the channel-shuffle layer under PyTorch's module path; they live in
misc.py."""
from .misc import (ChannelShuffle)  # noqa: F401

__all__ = ["ChannelShuffle"]
